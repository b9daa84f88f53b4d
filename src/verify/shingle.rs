//! Word k-gram shingles of a document's text, as a sorted set of 64-bit hashes.
//!
//! The words are the store's own terms (the same analysis as its fingerprints: lowercase, stop
//! words, stemming, as the store's parameters say), so verification sees the text as the
//! join did. A shingle is k consecutive terms, hashed (XXH3-64 of their term hashes); a text
//! with fewer than k terms (but some) is one shingle of all of them, so short pages can still be
//! verified; a text without terms has no shingles. Collisions among a page's shingles are
//! negligible (a page has thousands; 2^64 values).

use crate::text::features::{self, TermHasher};
use crate::text::tokenize::TokenOptions;

/// CopyCat's verification shingle: word 8-grams.
pub const DEFAULT_K: usize = 8;

/// Per-worker shingling state.
pub struct Shingler {
    k: usize,
    terms: TermHasher,
    buf: Vec<u64>,
}

impl Shingler {
    /// Shingles of `k` terms (at least 1) analysed with `opts` and hashed with `seed`.
    pub fn new(k: usize, opts: TokenOptions, seed: u64) -> Shingler {
        Shingler {
            k: k.max(1),
            terms: TermHasher::new(opts, seed),
            buf: Vec::new(),
        }
    }

    /// The shingle set of `text` into `out` (cleared first): sorted, deduplicated.
    pub fn shingles(&mut self, text: &str, out: &mut Vec<u64>) {
        out.clear();
        self.buf.clear();
        self.terms.push_terms(text, &mut self.buf);
        features::shingles(&self.buf, self.k, out);
        into_set(out);
    }
}

/// Shingles made into the set verification compares: below [`super::measure::WHOLE`] (the one
/// value a shingle never takes: it marks a whole text's set), sorted, without repeats.
pub fn into_set(shingles: &mut Vec<u64>) {
    for s in shingles.iter_mut() {
        *s = (*s).min(super::measure::WHOLE - 1);
    }
    shingles.sort_unstable();
    shingles.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::tokenize::terms;
    use crate::verify::measure::Overlap;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// Shingles as strings, from the plain term list.
    fn reference(text: &str, k: usize) -> BTreeSet<String> {
        let t = terms(text, TokenOptions::default());
        if t.is_empty() {
            return BTreeSet::new();
        }
        t.windows(k.min(t.len())).map(|w| w.join(" ")).collect()
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                Just("the"),
                Just("rose"),
                Just("roses"),
                Just("is"),
                Just("a"),
                Just("red"),
                Just("flower"),
                Just("Garden's"),
                Just("grows"),
                Just("!"),
            ],
            0..40,
        )
        .prop_map(|w| w.join(" "))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Set sizes and overlaps equal those of string shingles of the plain term list.
        #[test]
        fn shingles_equal_the_plain_reference(a in text(), b in text(), k in 1usize..9) {
            let mut s = Shingler::new(k, TokenOptions::default(), 0);
            let (mut ha, mut hb) = (Vec::new(), Vec::new());
            s.shingles(&a, &mut ha);
            s.shingles(&b, &mut hb);
            let (ra, rb) = (reference(&a, k), reference(&b, k));
            let o = Overlap::of(&ha, &hb);
            prop_assert_eq!(o.a as usize, ra.len());
            prop_assert_eq!(o.b as usize, rb.len());
            prop_assert_eq!(o.common as usize, ra.intersection(&rb).count());
        }
    }
}
