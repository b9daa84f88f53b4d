//! The pairs TSV: one line per document pair with both ids and both distances, sorted by
//! document index, `id_a < id_b` on each line (docs/FORMATS.md).
//!
//! Ids are looked up once per document, in document order (the id columns are read front to
//! back rather than at random), and lines are formatted in parallel batches; the documents of
//! the pairs are a bitmap over the corpus with a count per word, so listing them in order and
//! finding each one's place need no sort or search. Every pair is made in order a batch at a
//! time ([`PairOrder`]), never held all at once: a unit of k identical texts is k(k-1)/2 rows.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::lists::tsv_field;
use super::typed::{encode_each, Encoded, TableFormat, Writer};
use crate::fingerprint::store::StoreSet;
use crate::join::graph::PairGraph;
use crate::join::pair_order::PairOrder;
use crate::join::Pair;

/// The rows of a pairs table: listed (the collapsed links, as many as the documents and edges),
/// or every pair, made in order a batch at a time ([`PairOrder`]).
enum Rows<'g> {
    Listed(Vec<Pair>),
    Ordered { order: PairOrder<'g>, limit: u32 },
}

/// The pairs of `g` in document index order, with their documents' ids looked up once each,
/// in document order (the id columns are read front to back rather than at random).
struct Named<'g> {
    rows: Rows<'g>,
    set: DocSet,
    /// Ids of the documents of `set` in blocks of [`Named::BLOCK`]: the text and where each
    /// id ends.
    blocks: Vec<(String, Vec<usize>)>,
}

impl<'g> Named<'g> {
    const BLOCK: usize = 4096;

    /// With `old`, no pairs with both sides at or above that index (an older collection); with
    /// `collapse`, each group of identical fingerprints as its first member paired with each
    /// other member, and each edge as its units' first members.
    fn new(stores: &StoreSet, g: &'g PairGraph, old: Option<u32>, collapse: bool) -> Named<'g> {
        let (rows, set) = if collapse {
            let keep = |a: u32, b: u32| crate::join::graph::not_within_old(old, a, b);
            let link = |(a, b): (u32, u32), d64, d128| Pair::new(a, b, d64, d128);
            let mut pairs: Vec<Pair> = g.unit_links().map(|l| link(l, 0, 0)).collect();
            pairs.extend(g.edges.iter().map(|e| link(g.edge_link(e), e.d64, e.d128)));
            pairs.retain(|p| keep(p.a, p.b));
            pairs.sort_unstable();
            let set = DocSet::of_pairs(g.docs, &pairs);
            (Rows::Listed(pairs), set)
        } else {
            let order = PairOrder::new(g);
            let set = DocSet::where_(g.docs, |d| order.paired(d));
            // A pair is within the older collection when its lower document is.
            let limit = old.unwrap_or(g.docs);
            (Rows::Ordered { order, limit }, set)
        };
        // Copied into compact buffers (in parallel, a block of documents each), so formatting
        // reads them rather than the mapped column.
        let blocks = set
            .docs()
            .par_chunks(Self::BLOCK)
            .map(|c| {
                let (mut text, mut ends) = (String::new(), Vec::with_capacity(c.len() + 1));
                ends.push(0);
                for d in c {
                    text.push_str(&tsv_field(stores.id(*d)));
                    ends.push(text.len());
                }
                (text, ends)
            })
            .collect();
        Named { rows, set, blocks }
    }

    /// Calls `f` with the rows in order, in slices of `batch` (the last may be shorter).
    /// Returns the rows.
    fn for_each_batch<E>(
        &self,
        batch: usize,
        mut f: impl FnMut(&[Pair]) -> Result<(), E>,
    ) -> Result<u64, E> {
        match &self.rows {
            Rows::Listed(pairs) => {
                for c in pairs.chunks(batch) {
                    f(c)?;
                }
                Ok(pairs.len() as u64)
            }
            Rows::Ordered { order, limit } => order.for_each_batch(*limit, batch, f),
        }
    }

    /// The id of document `d`, one of the pairs'.
    fn id(&self, d: u32) -> &str {
        let i = self.set.rank(d);
        let (text, ends) = &self.blocks[i / Self::BLOCK];
        &text[ends[i % Self::BLOCK]..ends[i % Self::BLOCK + 1]]
    }

    /// The ids of a pair, the lesser first.
    fn ids(&self, p: &Pair) -> (&str, &str) {
        let (x, y) = (self.id(p.a), self.id(p.b));
        if x <= y {
            (x, y)
        } else {
            (y, x)
        }
    }
}

/// Writes the pairs of `g` to `w` as TSV sorted by document index; with `old`, none within
/// the older collection (both sides at or above that index); with `collapse`, each group of
/// identical fingerprints as its first member paired with each other member, and each edge as
/// its units' first members. Returns the pairs written.
pub fn write(
    w: &mut dyn Write,
    stores: &StoreSet,
    g: &PairGraph,
    old: Option<u32>,
    collapse: bool,
) -> std::io::Result<u64> {
    let named = Named::new(stores, g, old, collapse);
    writeln!(w, "id_a\tid_b\thamming64\thamming128")?;
    let n = named.for_each_batch(1 << 20, |batch| {
        let text: Vec<Vec<u8>> = batch
            .par_chunks(4096)
            .map(|c| {
                let mut out = Vec::with_capacity(c.len() * 48);
                for p in c {
                    let (x, y) = named.ids(p);
                    for field in [x.as_bytes(), b"\t", y.as_bytes(), b"\t"] {
                        out.extend_from_slice(field);
                    }
                    decimal(&mut out, p.d64);
                    out.push(b'\t');
                    decimal(&mut out, p.d128);
                    out.push(b'\n');
                }
                out
            })
            .collect();
        text.iter().try_for_each(|t| w.write_all(t))
    })?;
    w.flush()?;
    Ok(n)
}

/// Pairs per row group of the typed pairs table.
const ROW_GROUP: usize = 1 << 16;

/// Writes the pairs of `g` as the typed table `stem` (plus each format's extension), the same
/// rows as [`write()`]'s TSV with `collapse` (each group of identical fingerprints as its first
/// member paired with each other member, each edge as its units' first members) or without
/// (every pair): row groups are encoded in parallel and appended in order. Returns the files
/// written.
pub fn write_typed(
    stem: &Path,
    formats: &[TableFormat],
    stores: &StoreSet,
    g: &PairGraph,
    collapse: bool,
) -> crate::Result<Vec<PathBuf>> {
    if formats.is_empty() {
        return Ok(Vec::new());
    }
    let named = Named::new(stores, g, None, collapse);
    let header = ["id_a", "id_b", "hamming64", "hamming128"];
    let mut writers = formats
        .iter()
        .map(|f| Writer::create(stem, *f, &header))
        .collect::<crate::Result<Vec<Writer>>>()?;
    // Row groups are encoded a window at a time, in parallel: each batch is whole row groups.
    let window = rayon::current_num_threads().max(1) * 4 * ROW_GROUP;
    named.for_each_batch(window, |batch| -> crate::Result<()> {
        let groups: Vec<Vec<Encoded>> = batch
            .par_chunks(ROW_GROUP)
            .map(|c| {
                let mut cols = writers[0].columns(c.len());
                for p in c {
                    let (x, y) = named.ids(p);
                    cols[0].push_str(x);
                    cols[1].push_str(y);
                    cols[2].push_int(Some(i64::from(p.d64)));
                    cols[3].push_int(Some(i64::from(p.d128)));
                }
                encode_each(&writers, cols)
            })
            .collect::<crate::Result<_>>()?;
        for g in groups {
            for (w, e) in writers.iter_mut().zip(g) {
                w.append(e)?;
            }
        }
        Ok(())
    })?;
    writers.into_iter().map(Writer::finish).collect()
}

/// The documents of a list of pairs, as a bitmap over the corpus with a running count per
/// word: listing them in order and finding one's place among them need no sort or search.
struct DocSet {
    bits: Vec<u64>,
    /// Documents in the words before each word.
    before: Vec<u32>,
}

impl DocSet {
    /// The documents of `pairs`, below `docs`.
    fn of_pairs(docs: u32, pairs: &[Pair]) -> DocSet {
        use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
        let words: Vec<AtomicU64> = (0..(docs as usize).div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        pairs.par_chunks(1 << 14).for_each(|c| {
            for p in c {
                for d in [p.a, p.b] {
                    words[d as usize / 64].fetch_or(1 << (d % 64), Relaxed);
                }
            }
        });
        Self::from_bits(words.into_iter().map(AtomicU64::into_inner).collect())
    }

    /// The documents below `docs` for which `member` holds.
    fn where_(docs: u32, member: impl Fn(u32) -> bool + Sync) -> DocSet {
        let bits = (0..(docs as usize).div_ceil(64))
            .into_par_iter()
            .map(|w| {
                let first = w as u32 * 64;
                (first..(first + 64).min(docs))
                    .filter(|&d| member(d))
                    .fold(0u64, |b, d| b | 1 << (d - first))
            })
            .collect();
        Self::from_bits(bits)
    }

    /// The set of the documents whose bits are set, with its running counts.
    fn from_bits(bits: Vec<u64>) -> DocSet {
        let mut before = Vec::with_capacity(bits.len());
        let mut n = 0u32;
        for w in &bits {
            before.push(n);
            n += w.count_ones();
        }
        DocSet { bits, before }
    }

    /// The documents, ascending.
    fn docs(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for (i, &w) in self.bits.iter().enumerate() {
            let mut w = w;
            while w != 0 {
                out.push(i as u32 * 64 + w.trailing_zeros());
                w &= w - 1;
            }
        }
        out
    }

    /// The place of document `d` (one of the set) in [`DocSet::docs`].
    #[inline]
    fn rank(&self, d: u32) -> usize {
        let (w, b) = (d as usize / 64, d % 64);
        self.before[w] as usize + (self.bits[w] & ((1u64 << b) - 1)).count_ones() as usize
    }
}

/// Appends `n` in decimal.
fn decimal(out: &mut Vec<u8>, n: u8) {
    if n >= 100 {
        out.push(b'0' + n / 100);
    }
    if n >= 10 {
        out.push(b'0' + n / 10 % 10);
    }
    out.push(b'0' + n % 10);
}

#[cfg(test)]
mod tests {
    use crate::join::Pair;

    #[test]
    fn doc_set_lists_and_ranks_the_documents_of_pairs() {
        let pairs: Vec<Pair> = [(0, 5), (5, 63), (64, 200), (3, 199), (63, 64), (1000, 1001)]
            .iter()
            .map(|&(a, b)| Pair::new(a, b, 1, 2))
            .collect();
        let set = super::DocSet::of_pairs(1002, &pairs);
        let mut want: Vec<u32> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
        want.sort_unstable();
        want.dedup();
        assert_eq!(set.docs(), want);
        for (i, d) in want.iter().enumerate() {
            assert_eq!(set.rank(*d), i, "doc {d}");
        }
        assert!(super::DocSet::of_pairs(0, &[]).docs().is_empty());
        let odd = super::DocSet::where_(1002, |d| d % 2 == 1);
        assert_eq!(
            odd.docs(),
            (0..1002).filter(|d| d % 2 == 1).collect::<Vec<u32>>()
        );
        assert_eq!(odd.rank(999), 499);
    }

    #[test]
    fn decimal_writes_what_display_writes() {
        for n in 0..=u8::MAX {
            let mut out = Vec::new();
            super::decimal(&mut out, n);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
        }
    }
}
