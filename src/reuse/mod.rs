//! Content reuse below the page: paragraph chunks counted, labeled and found again.
//!
//! Whole-page fingerprints miss a page that copies paragraphs and wraps them in its own ads
//! and links. Here every page is a vector of exact paragraph-chunk hashes (made at
//! fingerprinting with `--chunks`; `text::paragraphs`), and
//! - [`discover`] counts every chunk of a corpus at once ([`count`]: exact, in bounded memory)
//!   and labels those seen more than a threshold number of times, minus [`stop`] chunks;
//! - [`detect`] scores each page by the share of its chunks that are labeled (containment) and
//!   each URL prefix ([`neighbourhood`]) by the share over all its pages (badness);
//! - [`experiment`] reproduces the mutation experiments that measure how much change page and
//!   neighbourhood detection survive.

pub mod count;
pub mod detect;
pub mod discover;
pub mod experiment;
pub mod labels;
pub mod neighbourhood;
pub mod spans;
pub mod stop;

use std::ops::Range;

use rayon::prelude::*;

use crate::fingerprint::store::StoreSet;

/// Documents `0..n` cut into a few ranges per thread (at least 4096 documents each), in
/// parallel: each range builds a small map of what it saw, and the caller merges them.
pub(crate) fn doc_ranges(n: usize) -> impl IndexedParallelIterator<Item = Range<usize>> {
    let per = n.div_ceil(4 * rayon::current_num_threads()).max(4096);
    (0..n.div_ceil(per))
        .into_par_iter()
        .map(move |r| r * per..((r + 1) * per).min(n))
}

/// The documents of a store set, as detection reads them (stores without chunks read as
/// documents without chunks).
pub struct StoreDocs<'a>(pub &'a StoreSet);

impl detect::Docs for StoreDocs<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn doc(&self, i: usize) -> (&str, &[u128]) {
        let (si, row) = self.0.position(i as u32);
        let chunks = self.0.stores()[si].chunks().map_or(&[][..], |c| c.doc(row));
        (self.0.url(i as u32), chunks)
    }
}
