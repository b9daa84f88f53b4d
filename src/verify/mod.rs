//! Verification: the candidate pairs of a join, scored on the documents' own text.
//!
//! SimHash finds candidates; what users mean by a near-duplicate is decided on the text, as
//! CopyCat does it: word 8-gram shingles ([`shingle`]) and S3 >= 0.82 ([`measure`]). The
//! documents of the pairs are read again from their shards ([`reread`]), each shard once.
//!
//! Memory: the shingle sets of every document in some pair are held at once, 8 bytes per
//! distinct shingle (a 10 KB page has about 1 500 terms, so about 12 KB).

pub mod measure;
pub mod reread;
pub mod shingle;

use std::collections::HashMap;

use rayon::prelude::*;

use crate::fingerprint::store::StoreSet;
use crate::join::graph::PairGraph;
use crate::join::Pair;
use crate::{Error, Result};
pub use measure::{Measure, Overlap};

/// How pairs are verified.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VerifySpec {
    /// Terms per shingle.
    pub k: usize,
    /// The measure that decides.
    pub measure: Measure,
    /// Its threshold: a pair is a near-duplicate when the measure is at least this.
    pub min: f64,
}

impl Default for VerifySpec {
    fn default() -> Self {
        VerifySpec {
            k: shingle::DEFAULT_K,
            measure: Measure::S3,
            min: 0.82,
        }
    }
}

impl VerifySpec {
    /// Whether `o` passes.
    pub fn passes(&self, o: &Overlap) -> bool {
        o.score(self.measure) >= self.min
    }
}

/// A candidate pair with its overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scored {
    /// The pair and its distances.
    pub pair: Pair,
    /// The shingle overlap of its documents.
    pub overlap: Overlap,
}

/// What verification read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyStats {
    /// Documents read again.
    pub documents: u64,
    /// Their text, in bytes.
    pub text_bytes: u64,
    /// Shingles held, summed over documents.
    pub shingles: u64,
}

/// The shingle sets of `docs`, read again from their shards.
pub fn shingle_sets(
    stores: &StoreSet,
    docs: &[u32],
    spec: &VerifySpec,
) -> Result<(HashMap<u32, Vec<u64>>, VerifyStats)> {
    let params = &stores.stores()[0].manifest.params;
    let (opts, seed) = (params.tokens, params.seed);
    let found = reread::for_each_text(
        stores,
        docs,
        || shingle::Shingler::new(spec.k, opts, seed),
        |s, _, text| {
            let mut out = Vec::new();
            s.shingles(text, &mut out);
            (text.len() as u64, out)
        },
    )?;
    if let Some(d) = found.missing.first() {
        return Err(Error::Config(format!(
            "{} documents were not found again in their shards (the first is {}): were the shards rewritten in place? fingerprint them again",
            found.missing.len(),
            stores.raw_id(*d)
        )));
    }
    let mut stats = VerifyStats::default();
    let sets = found
        .values
        .into_iter()
        .map(|(d, (bytes, set))| {
            stats.documents += 1;
            stats.text_bytes += bytes;
            stats.shingles += set.len() as u64;
            (d, set)
        })
        .collect();
    Ok((sets, stats))
}

/// Every pair of `g`, scored.
pub fn score(
    stores: &StoreSet,
    g: &PairGraph,
    spec: &VerifySpec,
) -> Result<(Vec<Scored>, VerifyStats)> {
    let pairs = g.pairs_where(|_, _| true);
    let mut docs: Vec<u32> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    docs.par_sort_unstable();
    docs.dedup();
    let (sets, stats) = shingle_sets(stores, &docs, spec)?;
    let scored = pairs
        .par_iter()
        .map(|p| Scored {
            pair: *p,
            overlap: Overlap::of(&sets[&p.a], &sets[&p.b]),
        })
        .collect();
    Ok((scored, stats))
}
