//! Term n-grams to 128-bit feature hashes.
//!
//! Fingerprints are persisted, so feature hashing must give the same bits on every machine and
//! in every future version. Terms are hashed with XXH3, whose output is specified and frozen
//! (unlike the std, ahash or foldhash hashers): a term's hash is `xxh3_64(term bytes, seed)`.
//! An n-gram's feature is a fixed, documented mix of its n term hashes ([`ngram_hash`]); a
//! test pins its output so any change is caught and must bump `params::HASH_SCHEME`.
//! The low 64 bits of a feature feed SimHash-64 and all 128 bits SimHash-128, so the low half
//! of every 128-bit fingerprint equals the 64-bit one (as in the python `simhash` package).
//!
//! Weights are term frequencies: a feature that occurs k times is simply added k times.

use std::collections::HashMap;

use xxhash_rust::xxh3::xxh3_64_with_seed;

use super::tokenize::{self, TokenOptions};

/// Hash of one term.
#[inline]
pub fn term_hash(term: &[u8], seed: u64) -> u64 {
    xxh3_64_with_seed(term, seed)
}

/// Murmur3's 64-bit finaliser: full avalanche of a 64-bit word.
#[inline]
pub fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(FMIX_MUL[0]);
    k ^= k >> 33;
    k = k.wrapping_mul(FMIX_MUL[1]);
    k ^ (k >> 33)
}

/// [`fmix64`]'s two multipliers (for its vector twin beside the SimHash counters).
pub(crate) const FMIX_MUL: [u64; 2] = [0xff51_afd7_ed55_8ccd, 0xc4ce_b9fe_1a85_ec53];

/// The starting values of [`ngram_hash`]'s two lanes for an n-gram of `n` terms.
#[inline]
pub(crate) fn ngram_start(n: usize, seed: u64) -> (u64, u64) {
    let n = n as u64;
    (
        seed ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        !seed ^ n.wrapping_mul(0xC2B2_AE3D_27D4_EB4F),
    )
}

/// Per-position odd multipliers, so that the order of the terms matters.
pub(crate) const MUL_LO: [u64; MAX_N] = [
    0x9E37_79B9_7F4A_7C15,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
    0x85EB_CA77_C2B2_AE63,
    0x27D4_EB2F_1656_67C5,
    0xFF51_AFD7_ED55_8CCD,
    0xC4CE_B9FE_1A85_EC53,
    0xD6E8_FEB8_6659_FD93,
];
pub(crate) const MUL_HI: [u64; MAX_N] = [
    0xA076_1D64_78BD_642F,
    0xE703_7ED1_A0B4_28DB,
    0x8EBC_6AF0_9C88_C6E3,
    0x5899_65CC_7537_4CC3,
    0x1D8E_4E27_C47D_124F,
    0xBF58_476D_1CE4_E5B9,
    0x94D0_49BB_1331_11EB,
    0x2545_F491_4F6C_DD1D,
];

/// Feature hash of one n-gram of term hashes: two independent multiply-xorshift lanes over the
/// (already uniformly random) term hashes, each finished by Murmur3's finaliser. Term hashes
/// are XXH3 outputs, so this cheap mix gives uniform, order-sensitive 128-bit features.
#[inline]
pub fn ngram_hash(terms: &[u64], seed: u64) -> u128 {
    let (mut a, mut b) = ngram_start(terms.len(), seed);
    for (i, &h) in terms.iter().enumerate() {
        a = (a ^ h).wrapping_mul(MUL_LO[i]);
        a ^= a >> 32;
        b = (b ^ h.rotate_left(23)).wrapping_mul(MUL_HI[i]);
        b ^= b >> 29;
    }
    ((fmix64(b) as u128) << 64) | fmix64(a) as u128
}

/// Largest supported n.
pub const MAX_N: usize = 8;

/// Calls `f` with the feature of every n-gram, for each n in `ngrams`. A document with terms
/// but fewer than the smallest n gets one feature for all of its terms, so short texts still
/// have a fingerprint.
pub fn for_each_feature(terms: &[u64], ngrams: &[usize], seed: u64, mut f: impl FnMut(u128)) {
    for_each_ngram_size(terms, ngrams, |terms, n| {
        for w in terms.windows(n) {
            f(ngram_hash(w, seed));
        }
    });
}

/// Calls `run(terms, n)` for each n of `ngrams` that `terms` has n-grams of; where it has
/// terms but none of those (fewer terms than every n), `run(&terms[..m], m)` once with m the
/// number of terms (at most [`MAX_N`]): one n-gram of all of them. [`for_each_feature`] hashes
/// each window of each call.
#[inline]
pub fn for_each_ngram_size(terms: &[u64], ngrams: &[usize], mut run: impl FnMut(&[u64], usize)) {
    let mut any = false;
    for &n in ngrams {
        if n == 0 || n > MAX_N || terms.len() < n {
            continue;
        }
        any = true;
        run(terms, n);
    }
    if !any && !terms.is_empty() {
        let m = terms.len().min(MAX_N);
        run(&terms[..m], m);
    }
}

/// Looks `key` up in `map`, computing and remembering the value on a miss; a full map is
/// cleared first, so memory stays bounded. Called once per word: inlined, as a call here
/// measurably slows the whole pipeline.
#[inline(always)]
fn memo<K, Q>(
    map: &mut HashMap<K, Option<u64>, foldhash::fast::FixedState>,
    key: &Q,
    owned: impl FnOnce() -> K,
    compute: impl FnOnce() -> Option<u64>,
) -> Option<u64>
where
    K: std::borrow::Borrow<Q> + std::hash::Hash + Eq,
    Q: std::hash::Hash + Eq + ?Sized,
{
    if let Some(h) = map.get(key) {
        return *h;
    }
    let h = compute();
    if map.len() >= CACHE_WORDS {
        map.clear();
    }
    map.insert(owned(), h);
    h
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
    /// Words of up to 15 bytes, packed with their length into a u128 key: no allocation and
    /// no byte-string compare on the hot path.
    short: HashMap<u128, Option<u64>, foldhash::fast::FixedState>,
    long: HashMap<Box<[u8]>, Option<u64>, foldhash::fast::FixedState>,
    scratch: Vec<u8>,
}

/// A word of up to 15 bytes as one integer: its bytes, zero padded, and its length in the top
/// byte. `text` is the text `w` was sliced from: when 16 bytes are readable there, the key is
/// one load and a mask instead of a byte copy.
#[inline(always)]
fn short_key(text: &[u8], w: &[u8]) -> Option<u128> {
    let len = w.len();
    if len > 15 {
        return None;
    }
    let at = (w.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    if let Some(b) = text
        .get(at..at + 16)
        .and_then(|b| <[u8; 16]>::try_from(b).ok())
    {
        let mask = (1u128 << (8 * len)) - 1;
        return Some((u128::from_le_bytes(b) & mask) | ((len as u128) << 120));
    }
    let mut k = [0u8; 16];
    k[..len].copy_from_slice(w);
    k[15] = len as u8;
    Some(u128::from_le_bytes(k))
}

impl TermHasher {
    /// A hasher for one analysis configuration and seed.
    pub fn new(opts: TokenOptions, seed: u64) -> Self {
        TermHasher {
            opts,
            seed,
            short: HashMap::with_hasher(foldhash::fast::FixedState::default()),
            long: HashMap::with_hasher(foldhash::fast::FixedState::default()),
            scratch: Vec::new(),
        }
    }

    /// Appends the term hashes of `text` to `out`; equal to running
    /// `tokenize::for_each_term` and [`term_hash`] on each term.
    pub fn push_terms(&mut self, text: &str, out: &mut Vec<u64>) {
        let (opts, seed) = (self.opts, self.seed);
        let (short, long) = (&mut self.short, &mut self.long);
        let scratch = &mut self.scratch;
        let mut analyze =
            |word: &str| tokenize::analyze(word, opts, scratch).map(|t| term_hash(t, seed));
        tokenize::for_each_word(text, opts.unspaced_chars, |word| {
            let bytes = word.as_bytes();
            let h = match short_key(text.as_bytes(), bytes) {
                Some(k) => memo(short, &k, || k, || analyze(word)),
                None => memo(long, bytes, || bytes.into(), || analyze(word)),
            };
            if let Some(h) = h {
                out.push(h);
            }
        });
    }
}

/// The word k-gram shingles of a term sequence, appended to `out` (unsorted, repeats kept): the
/// XXH3-64 of each window of `k` consecutive term hashes; a sequence shorter than `k` (but not
/// empty) is one shingle of all its terms. Verification's sets and MinHash signatures are made
/// of these, so both see the same shingles.
pub fn shingles(terms: &[u64], k: usize, out: &mut Vec<u64>) {
    if terms.is_empty() {
        return;
    }
    let k = k.max(1).min(terms.len());
    out.extend(
        terms
            .windows(k)
            .map(|w| xxhash_rust::xxh3::xxh3_64(bytemuck::cast_slice(w))),
    );
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
            "supercalifragilistic incomprehensibilities internationalization's a",
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
    fn short_keys_from_a_load_equal_short_keys_from_a_copy() {
        let text = b"a bb ccc internationalizatio x";
        for (at, len) in [(0, 1), (2, 2), (5, 3), (9, 15), (25, 1), (0, 15)] {
            let w = &text[at..at + len];
            let mut k = [0u8; 16];
            k[..len].copy_from_slice(w);
            k[15] = len as u8;
            // Words with 16 readable bytes take the load, the ones near the end the copy.
            assert_eq!(
                short_key(text, w),
                Some(u128::from_le_bytes(k)),
                "{at} {len}"
            );
            assert_eq!(short_key(w, w), Some(u128::from_le_bytes(k)));
        }
        assert_eq!(short_key(text, &text[..16]), None);
    }

    #[test]
    fn hashes_are_frozen() {
        // These values are persisted in stores; a change here breaks every existing store.
        assert_eq!(format!("{:016x}", term_hash(b"rose", 0)), PINNED_ROSE);
        let a = ngram_hash(&[1, 2, 3], 0);
        let b = ngram_hash(&[1, 2, 3], 0);
        assert_eq!(a, b);
        assert_ne!(ngram_hash(&[1, 2, 3], 0), ngram_hash(&[3, 2, 1], 0));
        assert_ne!(ngram_hash(&[1, 2, 3], 0), ngram_hash(&[1, 2, 3], 1));
        assert_ne!(ngram_hash(&[1, 2], 0), ngram_hash(&[1, 2, 0], 0));
        assert_eq!(
            format!("{:032x}", ngram_hash(&[term_hash(b"rose", 0); 3], 0)),
            PINNED_ROSE3
        );
    }

    const PINNED_ROSE3: &str = "004f0f3d393f1ddfb883d4bfbe6325a4";
    const PINNED_ROSE: &str = "d6ea2b8b8a72aca7";

    #[test]
    fn feature_bits_are_balanced() {
        // Every output bit is set for about half of 100,000 distinct n-grams.
        let mut counts = [0u32; 128];
        let n = 100_000u64;
        for i in 0..n {
            let h = ngram_hash(&[term_hash(&i.to_le_bytes(), 0), 7, 9], 0);
            for (j, c) in counts.iter_mut().enumerate() {
                *c += ((h >> j) & 1) as u32;
            }
        }
        for (j, c) in counts.iter().enumerate() {
            let share = *c as f64 / n as f64;
            assert!((0.49..0.51).contains(&share), "bit {j}: {share}");
        }
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
