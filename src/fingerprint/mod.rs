//! Text to fingerprints, and the store that keeps them.
//!
//! A [`Fingerprinter`] owns the scratch buffers of one worker and turns a document's normalised
//! text into its [`Fingerprints`]: SimHash-64, SimHash-128, an exact content hash and the term
//! count. [`store`] persists them column by column; [`build`] runs the whole
//! shards-to-store pipeline in parallel.

pub mod build;
pub mod early_sets;
pub mod minhash;
pub mod own;
pub mod params;
pub mod simhash;
pub mod simhash_py;
pub mod store;

pub use params::{FeatureMode, Params};

use xxhash_rust::xxh3::xxh3_128;

use crate::text::features::TermHasher;
use simhash::Accumulator;

/// What is computed for each document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fingerprints {
    /// SimHash-64.
    pub fp64: u64,
    /// SimHash-128 (its low half equals `fp64`).
    pub fp128: u128,
    /// XXH3-128 of the normalised text: equal only for texts equal after whitespace
    /// normalisation.
    pub content_hash: u128,
    /// Number of terms after analysis (native mode) or of words (python mode).
    pub terms: u32,
    /// Number of features summed (0 means the fingerprint carries no information).
    pub features: u64,
}

/// Per-worker state for fingerprinting.
pub struct Fingerprinter {
    params: Params,
    term_hashes: Vec<u64>,
    terms: TermHasher,
    acc: Accumulator,
}

impl Fingerprinter {
    /// A fingerprinter for `params`.
    pub fn new(params: Params) -> Self {
        Fingerprinter {
            terms: TermHasher::new(params.tokens, params.seed),
            params,
            term_hashes: Vec::new(),
            acc: Accumulator::default(),
        }
    }

    /// The term hashes of the text last fingerprinted (native mode; empty otherwise).
    pub fn terms(&self) -> &[u64] {
        &self.term_hashes
    }

    /// The parameters in use.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Fingerprints normalised text.
    pub fn fingerprint(&mut self, text: &str) -> Fingerprints {
        let content_hash = xxh3_128(text.as_bytes());
        match self.params.features {
            FeatureMode::SimhashPy => {
                let fp128 = simhash_py::simhash(text);
                let terms = text.split_whitespace().count() as u32;
                Fingerprints {
                    fp64: fp128 as u64,
                    fp128,
                    content_hash,
                    terms,
                    features: u64::from(!text.is_empty()),
                }
            }
            FeatureMode::Native => {
                self.term_hashes.clear();
                let seed = self.params.seed;
                self.terms.push_terms(text, &mut self.term_hashes);
                self.acc.reset();
                self.acc
                    .add_features(&self.term_hashes, &self.params.ngrams, seed);
                let features = self.acc.total();
                let fp128 = if features == 0 { 0 } else { self.acc.finish() };
                Fingerprints {
                    fp64: fp128 as u64,
                    fp128,
                    content_hash,
                    terms: self.term_hashes.len().min(u32::MAX as usize) as u32,
                    features,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_duplicates_are_close_and_strangers_far() {
        let mut f = Fingerprinter::new(Params::default());
        let base = "The quick brown fox jumps over the lazy dog near the river bank while \
                    the farmer watches his sheep graze on the green hills under a blue sky \
                    and children play football in the dusty village square after school.";
        let near = base.replace("football", "soccer");
        let other = "Quantum chromodynamics describes the strong interaction between quarks \
                     and gluons, the fundamental constituents of hadrons such as protons.";
        let a = f.fingerprint(base);
        let b = f.fingerprint(&near);
        let c = f.fingerprint(other);
        let d = |x: u64, y: u64| (x ^ y).count_ones();
        assert!(d(a.fp64, b.fp64) < d(a.fp64, c.fp64));
        assert!(d(a.fp64, b.fp64) <= 16, "{}", d(a.fp64, b.fp64));
        assert_eq!(a.fp128 as u64, a.fp64);
        assert_ne!(a.content_hash, b.content_hash);
        assert_eq!(a, f.fingerprint(base));
    }

    #[test]
    fn empty_text_has_no_features() {
        let mut f = Fingerprinter::new(Params::default());
        let e = f.fingerprint("");
        assert_eq!((e.fp64, e.terms, e.features), (0, 0, 0));
    }
}
