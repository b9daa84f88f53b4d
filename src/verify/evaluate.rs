//! How good candidates are against text-similarity truth: SimHash per threshold, and
//! MinHash-LSH.
//!
//! On a sample of the joinable documents (or all of them), the truth is every pair whose
//! measure is at least the threshold, found by comparing every pair of the sample's shingle
//! sets: no candidate generator at all, so nothing the method under test produced. For each
//! tau, the candidates are the sample's pairs within that 64-bit distance (computed from the
//! fingerprints directly, so exact whatever join plan would be used), and precision, recall
//! and F1 follow. MinHash-LSH's candidates are the sample's pairs that share a band key: the
//! store's own keys where it has them (`fingerprint --minhash`), otherwise keys signed here
//! from the same shingle sets with the default bands. Verification keeps exactly the true candidates, so after it precision is 1
//! and recall is unchanged: recall is what the candidates cap.
//!
//! The all-pairs comparison skips pairs whose set sizes alone rule the threshold out (S3 >= t
//! needs min/max >= t / (2 - t); Jaccard >= t needs min/max >= t), so its cost is far below
//! n^2/2 merges on real crawls.

use crate::join::lsh::DocMajor;
use rayon::prelude::*;

use super::{shingle_sets, Measure, Overlap, VerifySpec};
use crate::base::hamming::dist64;
use crate::base::rng::SplitMix64;
use crate::fingerprint::minhash::{MinhashParams, Minhasher};
use crate::fingerprint::store::StoreSet;
use crate::Result;

/// One threshold's row.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct EvalRow {
    /// The 64-bit threshold (for MinHash, the bands).
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
    /// The true pairs, as document indices (lower first), sorted.
    #[serde(skip)]
    pub truth_pairs: Vec<(u32, u32)>,
    /// MinHash-LSH's row (`tau` holds its bands), with the parameters and whether the keys
    /// are the store's.
    pub minhash: Option<MinhashEval>,
}

/// MinHash-LSH against the same truth.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MinhashEval {
    /// Bands, rows, shingle and seed of the keys.
    pub params: MinhashParams,
    /// Whether the keys are the store's column (else signed from the sample's sets).
    pub from_store: bool,
    /// Candidates, true positives, precision, recall, F1.
    pub row: EvalRow,
}

impl EvalRow {
    fn new(tau: u32, candidates: u64, true_positives: u64, truth: u64) -> EvalRow {
        let precision = if candidates == 0 {
            1.0
        } else {
            true_positives as f64 / candidates as f64
        };
        let recall = if truth == 0 {
            1.0
        } else {
            true_positives as f64 / truth as f64
        };
        let f1 = if precision + recall == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        EvalRow {
            tau,
            candidates,
            true_positives,
            precision,
            recall,
            f1,
        }
    }
}

/// Picks `n` of the joinable documents uniformly (all when `n` is none or too large), in
/// corpus order.
pub fn sample(stores: &StoreSet, n: Option<usize>, seed: u64) -> Vec<u32> {
    let mut docs = stores.joinable();
    if let Some(n) = n.filter(|n| *n < docs.len()) {
        // The first n are a uniform sample.
        SplitMix64(seed).sample_front(&mut docs, n);
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
        .map(|d| sets.remove(d).unwrap_or_default().into_vec())
        .collect();
    let fp = stores.fp64();
    // MinHash keys of the sample: the store's, or signed from the sets.
    let (mh_keys, mh_params, from_store) = match stores.minhash() {
        Some((keys, p)) => {
            let all = DocMajor {
                keys: &keys,
                bands: p.bands as usize,
            };
            let k: Vec<u64> = docs
                .iter()
                .flat_map(|d| all.of(*d).iter().copied())
                .collect();
            (k, p, true)
        }
        None => {
            let p = MinhashParams {
                shingle: spec.k as u32,
                ..MinhashParams::default()
            };
            let k: Vec<u64> = sets
                .par_iter()
                .map_init(
                    || (Minhasher::new(p), Vec::new()),
                    |(m, out), set| {
                        m.sign(set, out);
                        out.clone()
                    },
                )
                .flatten()
                .collect();
            (k, p, false)
        }
    };
    // A pair is a MinHash candidate as `dedup --candidates minhash` makes them: a shared band
    // key, or identical fingerprints (one unit of the join).
    let sample_keys = DocMajor {
        keys: &mh_keys,
        bands: mh_params.bands as usize,
    };
    let fp128 = stores.fp128();
    let shares = |i: usize, j: usize| {
        let (a, b) = (docs[i] as usize, docs[j] as usize);
        (fp[a] == fp[b] && fp128[a] == fp128[b]) || sample_keys.share(i as u32, j as u32)
    };
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
    let (truth_by_d, compared, mh_hits, mut truth_pairs) = by_size
        .par_iter()
        .enumerate()
        .map(|(k, &i)| {
            let mut hit = vec![0u64; width];
            let (mut compared, mut mh) = (0u64, 0u64);
            let mut pairs = Vec::new();
            let a = &sets[i];
            for &j in &by_size[k + 1..] {
                let b = &sets[j];
                if (a.len() as f64) < ratio * b.len() as f64 * (1.0 - 1e-12) {
                    break;
                }
                compared += 1;
                if spec.passes(&Overlap::of(a, b)) {
                    hit[dist64(fp[docs[i] as usize], fp[docs[j] as usize]) as usize] += 1;
                    mh += u64::from(shares(i, j));
                    pairs.push((docs[i].min(docs[j]), docs[i].max(docs[j])));
                }
            }
            (hit, compared, mh, pairs)
        })
        .reduce(
            || (vec![0u64; width], 0, 0, Vec::new()),
            |mut x, mut y| {
                for d in 0..width {
                    x.0[d] += y.0[d];
                }
                x.3.append(&mut y.3);
                (x.0, x.1 + y.1, x.2 + y.2, x.3)
            },
        );
    truth_pairs.par_sort_unstable();
    // MinHash candidates: every pair of the sample sharing a band key.
    let mh_candidates: u64 = (0..docs.len())
        .into_par_iter()
        .map(|i| (i + 1..docs.len()).filter(|j| shares(i, *j)).count() as u64)
        .sum();
    // Candidates by distance: every pair of the sample.
    let cand_by_d = distance_histogram(fp, docs, width);
    let truth: u64 = truth_by_d.iter().sum();
    let mut rows = Vec::new();
    let (mut c, mut tp) = (0u64, 0u64);
    for tau in 0..=tau_max.min(64) {
        c += cand_by_d[tau as usize];
        tp += truth_by_d[tau as usize];
        rows.push(EvalRow::new(tau, c, tp, truth));
    }
    Ok(Evaluation {
        sample: docs.len() as u64,
        compared,
        truth,
        rows,
        truth_pairs,
        minhash: Some(MinhashEval {
            params: mh_params,
            from_store,
            row: EvalRow::new(mh_params.bands, mh_candidates, mh_hits, truth),
        }),
    })
}

/// A remove list scored against the truth (Issue: removal by stars).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct RemovalEval {
    /// Removed documents of the sample (their kept document in the sample too).
    pub removed: u64,
    /// Of them, true near-duplicates of the document they name.
    pub correct: u64,
    /// `correct / removed` (1 when none are removed).
    pub precision: f64,
    /// Documents the greedy pass over the truth removes: documents in `rank` order, each
    /// removed when a kept one is its true near-duplicate.
    pub greedy_truth_removed: u64,
    /// `correct / greedy_truth_removed` (1 when the truth removes none).
    pub recall: f64,
}

/// Scores `removed` ((document, the kept document it names)) against `truth_pairs` (sorted,
/// lower first) over the sample `docs`, the greedy truth removal visiting `docs` in `rank`
/// order (for the default rule, by id).
pub fn removal(
    docs: &[u32],
    truth_pairs: &[(u32, u32)],
    removed: &[(u32, u32)],
    rank: &[u32],
) -> RemovalEval {
    let in_sample: std::collections::HashSet<u32> = docs.iter().copied().collect();
    let is_true = |a: u32, b: u32| truth_pairs.binary_search(&(a.min(b), a.max(b))).is_ok();
    let mut e = RemovalEval::default();
    for &(d, k) in removed {
        if in_sample.contains(&d) && in_sample.contains(&k) {
            e.removed += 1;
            e.correct += u64::from(is_true(d, k));
        }
    }
    let mut nb: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    for &(a, b) in truth_pairs {
        nb.entry(a).or_default().push(b);
        nb.entry(b).or_default().push(a);
    }
    let mut kept: std::collections::HashSet<u32> = std::collections::HashSet::new();
    for d in rank.iter().filter(|d| in_sample.contains(d)) {
        let by_kept = nb
            .get(d)
            .is_some_and(|n| n.iter().any(|m| kept.contains(m)));
        if by_kept {
            e.greedy_truth_removed += 1;
        } else {
            kept.insert(*d);
        }
    }
    e.precision = if e.removed == 0 {
        1.0
    } else {
        e.correct as f64 / e.removed as f64
    };
    e.recall = if e.greedy_truth_removed == 0 {
        1.0
    } else {
        e.correct as f64 / e.greedy_truth_removed as f64
    };
    e
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

#[cfg(test)]
mod removal_tests {
    use super::removal;

    /// A chain 0 ~ 1 ~ 2: the greedy truth removal keeps 0 and 2 and removes 1; a list that
    /// removes 2 for 0 (not near-duplicates) loses precision, not recall.
    #[test]
    fn removal_is_scored_against_the_greedy_truth() {
        let docs: Vec<u32> = (0..6).collect();
        let truth = [(0, 1), (1, 2), (3, 4)];
        let removed = [(1, 0), (2, 0), (4, 3)];
        let rank: Vec<u32> = (0..6).collect();
        let e = removal(&docs, &truth, &removed, &rank);
        assert_eq!((e.removed, e.correct, e.greedy_truth_removed), (3, 2, 2));
        assert!((e.precision - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(e.recall, 1.0);
        // Out of the sample: not counted.
        let e = removal(&docs[..4], &truth, &removed, &rank);
        assert_eq!((e.removed, e.correct, e.greedy_truth_removed), (2, 1, 1));
    }
}

/// `evaluate.json`: the measure, the sample's evaluation, and the removal's when one was
/// given (fields in alphabetical order, as the file has always had them).
#[derive(Clone, Debug, serde::Serialize)]
pub struct EvaluateSummary<'a> {
    /// The evaluation.
    pub evaluation: &'a Evaluation,
    /// The measure.
    pub measure: &'static str,
    /// Its threshold.
    pub min: f64,
    /// A remove list scored against the truth (`--removal`).
    pub removal: Option<RemovalEval>,
    /// Seconds the run took.
    pub seconds: f64,
    /// The sample's seed.
    pub seed: u64,
    /// Terms per shingle.
    pub shingle: usize,
}
