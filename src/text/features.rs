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

use xxhash_rust::xxh3::{xxh3_128_with_seed, xxh3_64_with_seed};

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

#[cfg(test)]
mod tests {
    use super::*;

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
