//! Scores reported pairs against a synthetic crawl's planted truth.
//!
//! Every page made from another (exact copy or mutation, however many steps removed) belongs
//! to the family of the original it descends from; the true pairs are the pairs within a
//! family. Precision and recall are over document pairs, per threshold; a removal (the remove
//! list) is scored against the planted truth or any other set of true pairs ([`removal`]).

use std::collections::HashMap;

use crate::join::graph::PairGraph;
use crate::synth::{Origin, Truth};

/// Quality at one threshold.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Score {
    /// The threshold.
    pub tau: u32,
    /// Pairs reported within it.
    pub reported: u64,
    /// Of which true.
    pub correct: u64,
    /// Pairs in the truth.
    pub truth: u64,
    /// correct / reported (1 when nothing was reported).
    pub precision: f64,
    /// correct / truth (1 when there is nothing to find).
    pub recall: f64,
    /// Share of exact copies found paired with the page they copy.
    pub copy_recall: f64,
    /// Share of one-step mutations found paired with the page they were made from.
    pub mutation_recall: f64,
}

/// The family (index of the original) of each generated document.
pub fn families(t: &Truth) -> Vec<u32> {
    let mut fam = Vec::with_capacity(t.origins.len());
    for o in &t.origins {
        let f = match *o {
            Origin::Original | Origin::Template { .. } => fam.len() as u32,
            Origin::Exact { of } | Origin::Near { of } => fam[of],
        };
        fam.push(f);
    }
    fam
}

/// Scores the pairs of `g` at thresholds `0..=max`; `id` names document `i` of the corpus.
pub fn score<'a>(g: &PairGraph, id: impl Fn(u32) -> &'a str, t: &Truth, max: u32) -> Vec<Score> {
    let fam = families(t);
    let by_id: HashMap<&str, u32> = t
        .ids
        .iter()
        .zip(&fam)
        .map(|(i, f)| (i.as_str(), *f))
        .collect();
    let family: Vec<Option<u32>> = (0..g.docs).map(|d| by_id.get(id(d)).copied()).collect();
    let mut size: HashMap<u32, u64> = HashMap::new();
    for f in family.iter().flatten() {
        *size.entry(*f).or_default() += 1;
    }
    let truth: u64 = size.values().map(|k| k * (k - 1) / 2).sum();
    // One pass over the reported pairs: counts by distance, and each pair's distance for the
    // direct links below.
    let (mut reported, mut correct) = (vec![0u64; max as usize + 1], vec![0u64; max as usize + 1]);
    let mut found: HashMap<(u32, u32), u8> = HashMap::new();
    g.for_each_pair(|p| {
        if u32::from(p.d64) <= max {
            let d = p.d64 as usize;
            reported[d] += 1;
            let (fa, fb) = (family[p.a as usize], family[p.b as usize]);
            if fa.is_some() && fa == fb {
                correct[d] += 1;
            }
            found.insert((p.a, p.b), p.d64);
        }
    });
    // Direct links (a copy or a mutation and its source), by kind.
    let doc_of: HashMap<&str, u32> = (0..g.docs).map(|d| (id(d), d)).collect();
    let mut copies = vec![0u64; max as usize + 2];
    let mut mutations = vec![0u64; max as usize + 2];
    let (mut n_copies, mut n_mutations) = (0u64, 0u64);
    for (i, o) in t.origins.iter().enumerate() {
        let (of, hist, n) = match *o {
            Origin::Original | Origin::Template { .. } => continue,
            Origin::Exact { of } => (of, &mut copies, &mut n_copies),
            Origin::Near { of } => (of, &mut mutations, &mut n_mutations),
        };
        let (Some(a), Some(b)) = (
            doc_of.get(t.ids[i].as_str()),
            doc_of.get(t.ids[of].as_str()),
        ) else {
            continue;
        };
        *n += 1;
        let d = found
            .get(&((*a).min(*b), (*a).max(*b)))
            .map_or(max as usize + 1, |d| *d as usize);
        hist[d] += 1;
    }
    // A share of nothing is 1: nothing reported is all correct, nothing planted all found.
    let share = |found: u64, n: u64| if n == 0 { 1.0 } else { found as f64 / n as f64 };
    let (mut r, mut c, mut fc, mut fm) = (0, 0, 0, 0);
    (0..=max)
        .map(|tau| {
            r += reported[tau as usize];
            c += correct[tau as usize];
            fc += copies[tau as usize];
            fm += mutations[tau as usize];
            Score {
                tau,
                reported: r,
                correct: c,
                truth,
                precision: share(c, r),
                recall: share(c, truth),
                copy_recall: share(fc, n_copies),
                mutation_recall: share(fm, n_mutations),
            }
        })
        .collect()
}

/// A removal (each removed page naming the kept page it duplicates) against a truth.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RemovalScore {
    /// Removed pages (of the sample, where there is one).
    pub removed: u64,
    /// Of them, true near-duplicates of the page they name.
    pub correct: u64,
    /// True pairs.
    pub pairs: u64,
    /// True pairs whose pages were both kept.
    pub both_kept: u64,
}

impl RemovalScore {
    /// Removed pages that truly duplicate the page they name, of all removed (1 when none).
    pub fn precision(&self) -> f64 {
        if self.removed == 0 {
            1.0
        } else {
            self.correct as f64 / self.removed as f64
        }
    }

    /// True pairs with a page removed, of all true pairs (1 when there are none).
    pub fn recall(&self) -> f64 {
        if self.pairs == 0 {
            1.0
        } else {
            1.0 - self.both_kept as f64 / self.pairs as f64
        }
    }
}

/// Scores the removal (`kept`, and its `removed` pairs) against `pairs` (the truth), counting
/// removed pages of `sample` only where one is given; `dup` says whether a page truly
/// duplicates the page it names.
pub fn removal(
    kept: &[u32],
    removed: &[(u32, u32)],
    sample: Option<&std::collections::HashSet<u32>>,
    pairs: &[(u32, u32)],
    dup: impl Fn(u32, u32) -> bool,
) -> RemovalScore {
    let mut f = RemovalScore::default();
    for &(d, k) in removed {
        if sample.is_none_or(|s| s.contains(&d)) {
            f.removed += 1;
            f.correct += u64::from(dup(d, k));
        }
    }
    let is_kept = |d: u32| kept[d as usize] == d;
    f.pairs = pairs.len() as u64;
    f.both_kept = pairs
        .iter()
        .filter(|(a, b)| is_kept(*a) && is_kept(*b))
        .count() as u64;
    f
}

/// The planted family of each of the corpus's `n` documents, `id` naming them (None for a
/// page the truth does not know).
pub fn families_of<'a>(n: u32, id: impl Fn(u32) -> &'a str, truth: &Truth) -> Vec<Option<u32>> {
    let fam = families(truth);
    let by_id: std::collections::HashMap<&str, u32> = truth
        .ids
        .iter()
        .zip(&fam)
        .map(|(i, f)| (i.as_str(), *f))
        .collect();
    (0..n).map(|d| by_id.get(id(d)).copied()).collect()
}

/// The pairs of documents of one planted family (descending from one original), lower first,
/// sorted.
pub fn planted_pairs(fam: &[Option<u32>]) -> Vec<(u32, u32)> {
    let mut members: std::collections::HashMap<u32, Vec<u32>> = std::collections::HashMap::new();
    for (d, f) in fam.iter().enumerate() {
        if let Some(f) = f {
            members.entry(*f).or_default().push(d as u32);
        }
    }
    let mut pairs = Vec::new();
    for m in members.values() {
        for (i, &a) in m.iter().enumerate() {
            for &b in &m[i + 1..] {
                pairs.push((a, b));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

#[cfg(test)]
mod removal_tests {
    use super::*;

    /// Three families {0, 1, 2}, {3, 4}, {5}: removing 1 for 0 is right, 4 for 2 wrong, and
    /// the pair (0, 2) is left with both pages kept.
    #[test]
    fn a_removal_is_scored_by_what_it_names_and_what_it_leaves() {
        let fam = vec![Some(0), Some(0), Some(0), Some(1), Some(1), Some(2)];
        let pairs = planted_pairs(&fam);
        assert_eq!(pairs, vec![(0, 1), (0, 2), (1, 2), (3, 4)]);
        let kept = vec![0, 0, 2, 3, 2, 5];
        let removed = vec![(1, 0), (4, 2)];
        let same = |d: u32, k: u32| fam[d as usize] == fam[k as usize];
        let r = removal(&kept, &removed, None, &pairs, same);
        assert_eq!((r.removed, r.correct, r.pairs, r.both_kept), (2, 1, 4, 1));
        assert_eq!(r.precision(), 0.5);
        assert_eq!(r.recall(), 0.75);
        // Removed pages outside the sample are not counted.
        let sample: std::collections::HashSet<u32> = [0, 1, 2].into_iter().collect();
        let r = removal(&kept, &removed, Some(&sample), &pairs, same);
        assert_eq!((r.removed, r.correct), (1, 1));
    }
}
