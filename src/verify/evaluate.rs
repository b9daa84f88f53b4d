//! How good SimHash candidates are against text-similarity truth, per threshold.
//!
//! On a sample of the joinable documents (or all of them), the truth is every pair whose
//! measure is at least the threshold, found by comparing every pair of the sample's shingle
//! sets: no candidate generator at all, so nothing the method under test produced. For each
//! tau, the candidates are the sample's pairs within that 64-bit distance (computed from the
//! fingerprints directly, so exact whatever join plan would be used), and precision, recall
//! and F1 follow. Verification keeps exactly the true candidates, so after it precision is 1
//! and recall is unchanged: recall is what the candidates cap.
//!
//! The all-pairs comparison skips pairs whose set sizes alone rule the threshold out (S3 >= t
//! needs min/max >= t / (2 - t); Jaccard >= t needs min/max >= t), so its cost is far below
//! n^2/2 merges on real crawls.

use rayon::prelude::*;

use super::{shingle_sets, Measure, Overlap, VerifySpec};
use crate::base::hamming::dist64;
use crate::base::rng::SplitMix64;
use crate::fingerprint::store::StoreSet;
use crate::Result;

/// One threshold's row.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct EvalRow {
    /// The 64-bit threshold.
    pub tau: u32,
    /// Candidate pairs of the sample within it.
    pub candidates: u64,
    /// Of them, true near-duplicates.
    pub true_positives: u64,
    /// `true_positives / candidates` (1 when there are none).
    pub precision: f64,
    /// `true_positives / truth` (1 when there is no truth).
    pub recall: f64,
    /// Harmonic mean of the two.
    pub f1: f64,
}

/// The evaluation of one sample.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Evaluation {
    /// Documents in the sample.
    pub sample: u64,
    /// Pairs of the sample compared on their text (after the size filter).
    pub compared: u64,
    /// True near-duplicate pairs in the sample.
    pub truth: u64,
    /// One row per tau, 0 up to the largest asked for.
    pub rows: Vec<EvalRow>,
}

/// Picks `n` of the joinable documents uniformly (all when `n` is none or too large), in
/// corpus order.
pub fn sample(stores: &StoreSet, n: Option<usize>, seed: u64) -> Vec<u32> {
    let mut docs = stores.joinable();
    if let Some(n) = n.filter(|n| *n < docs.len()) {
        // A partial Fisher-Yates shuffle: the first n are a uniform sample.
        let mut rng = SplitMix64(seed);
        for i in 0..n {
            let j = i + rng.below((docs.len() - i) as u64) as usize;
            docs.swap(i, j);
        }
        docs.truncate(n);
        docs.sort_unstable();
    }
    docs
}

/// Evaluates SimHash candidates at every tau up to `tau_max` on `docs` against the truth that
/// `spec` defines.
pub fn evaluate(
    stores: &StoreSet,
    docs: &[u32],
    spec: &VerifySpec,
    tau_max: u32,
) -> Result<Evaluation> {
    let (mut sets, _) = shingle_sets(stores, docs, spec)?;
    let sets: Vec<Vec<u64>> = docs
        .iter()
        .map(|d| sets.remove(d).unwrap_or_default())
        .collect();
    let fp = stores.fp64();
    // Sample positions by set size, so each document is compared with the sizes that can
    // reach the threshold only.
    let mut by_size: Vec<usize> = (0..docs.len()).collect();
    by_size.sort_by_key(|i| sets[*i].len());
    let ratio = match spec.measure {
        Measure::S3 => spec.min / (2.0 - spec.min),
        Measure::Jaccard => spec.min,
        Measure::Containment => 0.0,
    };
    // True pairs by distance, and how many pairs were compared: for each document, the larger
    // sets up to the size bound.
    let width = 65;
    let (truth_by_d, compared) = by_size
        .par_iter()
        .enumerate()
        .map(|(k, &i)| {
            let mut hit = vec![0u64; width];
            let mut compared = 0u64;
            let a = &sets[i];
            for &j in &by_size[k + 1..] {
                let b = &sets[j];
                if (a.len() as f64) < ratio * b.len() as f64 * (1.0 - 1e-12) {
                    break;
                }
                compared += 1;
                if spec.passes(&Overlap::of(a, b)) {
                    hit[dist64(fp[docs[i] as usize], fp[docs[j] as usize]) as usize] += 1;
                }
            }
            (hit, compared)
        })
        .reduce(
            || (vec![0u64; width], 0),
            |mut x, y| {
                for d in 0..width {
                    x.0[d] += y.0[d];
                }
                (x.0, x.1 + y.1)
            },
        );
    // Candidates by distance: every pair of the sample.
    let cand_by_d = distance_histogram(fp, docs, width);
    let truth: u64 = truth_by_d.iter().sum();
    let mut rows = Vec::new();
    let (mut c, mut tp) = (0u64, 0u64);
    for tau in 0..=tau_max.min(64) {
        c += cand_by_d[tau as usize];
        tp += truth_by_d[tau as usize];
        let precision = if c == 0 { 1.0 } else { tp as f64 / c as f64 };
        let recall = if truth == 0 {
            1.0
        } else {
            tp as f64 / truth as f64
        };
        let f1 = if precision + recall == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        rows.push(EvalRow {
            tau,
            candidates: c,
            true_positives: tp,
            precision,
            recall,
            f1,
        });
    }
    Ok(Evaluation {
        sample: docs.len() as u64,
        compared,
        truth,
        rows,
    })
}

/// Pairs of `docs` by 64-bit distance.
fn distance_histogram(fp: &[u64], docs: &[u32], width: usize) -> Vec<u64> {
    (0..docs.len())
        .into_par_iter()
        .map(|i| {
            let mut h = vec![0u64; width];
            let a = fp[docs[i] as usize];
            for &d in &docs[i + 1..] {
                h[dist64(a, fp[d as usize]) as usize] += 1;
            }
            h
        })
        .reduce(
            || vec![0u64; width],
            |mut x, y| {
                for d in 0..width {
                    x[d] += y[d];
                }
                x
            },
        )
}
