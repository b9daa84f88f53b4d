//! Term n-grams to 128-bit feature hashes.
//!
//! Fingerprints are persisted, so feature hashing must give the same bits on every machine and
//! in every future version. It uses XXH3, whose output is specified and frozen (unlike the
//! std, ahash or foldhash hashers): a term's hash is `xxh3_64(term bytes, seed)`, and an n-gram's
//! feature is `xxh3_128` of its n term hashes as little-endian bytes, seeded with `seed ^ n`.
//! The low 64 bits of a feature feed SimHash-64 and all 128 bits SimHash-128, so the low half
//! of every 128-bit fingerprint equals the 64-bit one (as in the python `simhash` package).
//!
//! Weights are term frequencies: a feature that occurs k times is simply added k times.

use std::collections::HashMap;

use xxhash_rust::xxh3::{xxh3_128_with_seed, xxh3_64_with_seed};

use super::tokenize::{self, TokenOptions};

/// Hash of one term.
#[inline]
pub fn term_hash(term: &[u8], seed: u64) -> u64 {
    xxh3_64_with_seed(term, seed)
}

/// Feature hash of one n-gram of term hashes.
#[inline]
pub fn ngram_hash(terms: &[u64], seed: u64) -> u128 {
    let mut buf = [0u8; 8 * MAX_N];
    for (chunk, h) in buf.chunks_exact_mut(8).zip(terms) {
        chunk.copy_from_slice(&h.to_le_bytes());
    }
    xxh3_128_with_seed(&buf[..8 * terms.len()], seed ^ terms.len() as u64)
}

/// Largest supported n.
pub const MAX_N: usize = 8;

/// Calls `f` with the feature of every n-gram, for each n in `ngrams`. A document with terms
/// but fewer than the smallest n gets one feature for all of its terms, so short texts still
/// have a fingerprint.
pub fn for_each_feature(terms: &[u64], ngrams: &[usize], seed: u64, mut f: impl FnMut(u128)) {
    let mut any = false;
    for &n in ngrams {
        if n == 0 || n > MAX_N || terms.len() < n {
            continue;
        }
        any = true;
        for w in terms.windows(n) {
            f(ngram_hash(w, seed));
        }
    }
    if !any && !terms.is_empty() {
        f(ngram_hash(&terms[..terms.len().min(MAX_N)], seed));
    }
}

/// Words remembered by a [`TermHasher`] before its cache is cleared.
const CACHE_WORDS: usize = 1 << 20;

/// Turns text into term hashes, remembering each distinct word's fate (dropped, or its term
/// hash) so that lowercasing, stop-word lookup, stemming and hashing run once per distinct
/// word rather than once per occurrence. Web text is Zipfian, so most words hit the cache.
/// The cache is an in-memory map only (foldhash); nothing it hashes is persisted.
pub struct TermHasher {
    opts: TokenOptions,
    seed: u64,
    cache: HashMap<Box<[u8]>, Option<u64>, foldhash::fast::FixedState>,
    scratch: Vec<u8>,
}

impl TermHasher {
    /// A hasher for one analysis configuration and seed.
    pub fn new(opts: TokenOptions, seed: u64) -> Self {
        TermHasher {
            opts,
            seed,
            cache: HashMap::with_hasher(foldhash::fast::FixedState::default()),
            scratch: Vec::new(),
        }
    }

    /// Appends the term hashes of `text` to `out`; equal to running
    /// `tokenize::for_each_term` and [`term_hash`] on each term.
    pub fn push_terms(&mut self, text: &str, out: &mut Vec<u64>) {
        let (opts, seed) = (self.opts, self.seed);
        let cache = &mut self.cache;
        let scratch = &mut self.scratch;
        tokenize::for_each_word(text, |word| {
            let h = match cache.get(word.as_bytes()) {
                Some(h) => *h,
                None => {
                    let h = tokenize::analyze(word, opts, scratch).map(|t| term_hash(t, seed));
                    if cache.len() >= CACHE_WORDS {
                        cache.clear();
                    }
                    cache.insert(word.as_bytes().into(), h);
                    h
                }
            };
            if let Some(h) = h {
                out.push(h);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_terms_equal_the_plain_chain() {
        let texts = [
            "The Rose's petals: connected, CONNECTING and connections of Zürich's café.",
            "a rose is a rose is a rose; 3.14 e.g. don't ΣΊΣΥΦΟΣ naïve",
            "",
            "the the the",
        ];
        for opts in [
            TokenOptions::default(),
            TokenOptions {
                stem: false,
                stopwords: false,
                ..TokenOptions::default()
            },
        ] {
            let mut th = TermHasher::new(opts, 9);
            for t in texts.iter().chain(texts.iter()) {
                let mut fast = Vec::new();
                th.push_terms(t, &mut fast);
                let mut slow = Vec::new();
                let mut scratch = Vec::new();
                tokenize::for_each_term(t, opts, &mut scratch, |w| slow.push(term_hash(w, 9)));
                assert_eq!(fast, slow, "{t}");
            }
        }
    }

    #[test]
    fn hashes_are_frozen() {
        // These values are persisted in stores; a change here breaks every existing store.
        assert_eq!(term_hash(b"rose", 0), xxh3_64_with_seed(b"rose", 0));
        let a = ngram_hash(&[1, 2, 3], 0);
        let b = ngram_hash(&[1, 2, 3], 0);
        assert_eq!(a, b);
        assert_ne!(ngram_hash(&[1, 2, 3], 0), ngram_hash(&[3, 2, 1], 0));
        assert_ne!(ngram_hash(&[1, 2, 3], 0), ngram_hash(&[1, 2, 3], 1));
    }

    #[test]
    fn counts_windows_per_n() {
        let terms = [1u64, 2, 3, 4, 5, 6];
        let mut n = 0;
        for_each_feature(&terms, &[3, 5], 0, |_| n += 1);
        assert_eq!(n, 4 + 2);
        let mut n = 0;
        for_each_feature(&terms[..2], &[3, 5], 0, |_| n += 1);
        assert_eq!(n, 1);
        let mut n = 0;
        for_each_feature(&[], &[3, 5], 0, |_| n += 1);
        assert_eq!(n, 0);
    }
}
