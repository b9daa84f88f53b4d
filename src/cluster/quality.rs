//! Precision of candidate pairs per threshold, for the sweep: exact from a scored graph, or
//! estimated from a sample of pairs at each distance.
//!
//! At a threshold t, the candidates are the document pairs at distance <= t (the sweep's
//! axis), and precision is the share of them that are near-duplicates. Pairs of identical text
//! are near-duplicates without a comparison. A sample draws `n` document pairs per distance
//! uniformly (with replacement, an edge in proportion to the pairs it stands for); every pair
//! of a drawn edge is then known, since they share its two texts. The estimate at t is
//! stratified by distance, with a 95 % interval from the per-distance variances (Agresti-Coull
//! adjusted, so a distance whose draws all agree still has a width).

use serde::{Deserialize, Serialize};

use super::Axis;
use crate::base::rng::SplitMix64;
use crate::fingerprint::store::StoreSet;
use crate::join::graph::PairGraph;
use crate::verify::{score_graph, text_units, Compare, ScoredGraph, VerifySpec};
use crate::Result;

/// Candidate pairs and their precision at one threshold.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    /// The threshold.
    pub tau: u32,
    /// Document pairs within it.
    pub candidate_pairs: u64,
    /// Of them, those whose verdict is known (identical texts, pairs compared).
    pub known_pairs: u64,
    /// Of those, near-duplicates.
    pub verified_pairs: u64,
    /// Share of the candidates that are near-duplicates (estimated unless every candidate is
    /// known; 1 when there is no candidate).
    pub precision: f64,
    /// Lower end of its 95 % interval (equal to it when exact).
    pub precision_low: f64,
    /// Upper end.
    pub precision_high: f64,
    /// Document pairs drawn at distances within the threshold (0 when every pair was scored).
    pub sampled_pairs: u64,
}

/// Per-distance tallies: candidate, known and verified pairs.
#[derive(Clone, Copy, Default)]
struct Tally {
    candidates: u64,
    known: u64,
    verified: u64,
}

fn tallies(sg: &ScoredGraph, spec: &VerifySpec, axis: Axis, max: u32) -> Vec<Tally> {
    let g = &sg.graph;
    let mut t = vec![Tally::default(); max as usize + 1];
    let exact = g.exact_pairs();
    t[0] = Tally {
        candidates: exact,
        known: exact,
        verified: exact,
    };
    for (i, e) in g.edges.iter().enumerate() {
        let Some(l) = axis.level(e).filter(|l| *l <= max) else {
            continue;
        };
        let n = g.edge_pairs(e);
        let x = &mut t[l as usize];
        x.candidates += n;
        if sg.overlaps[i].is_compared() {
            x.known += n;
            x.verified += if sg.passes(i, spec) { n } else { 0 };
        }
    }
    t
}

/// Quality at every threshold `0..=max` on `axis`, from the scores of `sg`. Where some pairs
/// are not compared, precision is among the known ones and the interval runs from "none of
/// the others is a near-duplicate" to "all are".
pub fn exact(sg: &ScoredGraph, spec: &VerifySpec, axis: Axis, max: u32) -> Vec<Quality> {
    let mut acc = Tally::default();
    tallies(sg, spec, axis, max)
        .into_iter()
        .enumerate()
        .map(|(tau, t)| {
            acc.candidates += t.candidates;
            acc.known += t.known;
            acc.verified += t.verified;
            let ratio = |x: u64, n: u64| if n == 0 { 1.0 } else { x as f64 / n as f64 };
            let unknown = acc.candidates - acc.known;
            Quality {
                tau: tau as u32,
                candidate_pairs: acc.candidates,
                known_pairs: acc.known,
                verified_pairs: acc.verified,
                precision: ratio(acc.verified, acc.known),
                precision_low: ratio(acc.verified, acc.candidates),
                precision_high: ratio(acc.verified + unknown, acc.candidates),
                sampled_pairs: 0,
            }
        })
        .collect()
}

/// Quality at every threshold `0..=max` on `axis`, estimated from `n` document pairs drawn
/// per distance (all of a distance's pairs when it has no more than `n`) with `seed`; the
/// drawn pairs are read again and compared. Returns the qualities and the scored sample.
pub fn sampled(
    stores: &StoreSet,
    g: &PairGraph,
    spec: &VerifySpec,
    axis: Axis,
    max: u32,
    n: u64,
    seed: u64,
) -> Result<(Vec<Quality>, ScoredGraph)> {
    let g = text_units(stores, g, spec);
    // Edges by distance.
    let mut by_level: Vec<Vec<usize>> = vec![Vec::new(); max as usize + 1];
    for (i, e) in g.edges.iter().enumerate() {
        if let Some(l) = axis.level(e).filter(|l| *l <= max) {
            by_level[l as usize].push(i);
        }
    }
    let mut rng = SplitMix64(seed);
    let mut drawn: Vec<Vec<usize>> = Vec::with_capacity(by_level.len());
    for edges in &by_level {
        let weights: Vec<u64> = edges.iter().map(|i| g.edge_pairs(&g.edges[*i])).collect();
        let total: u64 = weights.iter().sum();
        if total <= n {
            drawn.push(edges.clone());
            continue;
        }
        let mut prefix = Vec::with_capacity(weights.len());
        let mut s = 0u64;
        for w in &weights {
            s += w;
            prefix.push(s);
        }
        let draws = (0..n)
            .map(|_| {
                let r = rng.below(total);
                edges[prefix.partition_point(|p| *p <= r)]
            })
            .collect();
        drawn.push(draws);
    }
    let mut chosen: Vec<usize> = drawn.iter().flatten().copied().collect();
    chosen.sort_unstable();
    chosen.dedup();
    let sample = PairGraph {
        docs: g.docs,
        members: g.members.clone(),
        starts: g.starts.clone(),
        edges: chosen.iter().map(|i| g.edges[*i]).collect(),
    };
    let scored = score_graph(stores, sample, Vec::new(), spec, Compare::Every)?;
    let pass = |i: usize| {
        let at = chosen.binary_search(&i).expect("a drawn edge is scored");
        scored.passes(at, spec)
    };
    // Stratified estimate: per distance, the verified pairs (exact where every pair was
    // drawn) and the variance of the estimate.
    let exact_pairs = g.exact_pairs();
    let (mut cand, mut known, mut verified, mut sampled_pairs) =
        (exact_pairs, exact_pairs, exact_pairs, 0u64);
    let (mut estimate, mut variance) = (exact_pairs as f64, 0.0f64);
    let mut out = Vec::with_capacity(by_level.len());
    for (tau, (edges, draws)) in by_level.iter().zip(&drawn).enumerate() {
        let level: u64 = edges.iter().map(|i| g.edge_pairs(&g.edges[*i])).sum();
        cand += level;
        let mut seen = draws.clone();
        seen.sort_unstable();
        seen.dedup();
        for i in &seen {
            let p = g.edge_pairs(&g.edges[*i]);
            known += p;
            verified += if pass(*i) { p } else { 0 };
        }
        if level <= n {
            estimate += edges
                .iter()
                .filter(|i| pass(**i))
                .map(|i| g.edge_pairs(&g.edges[*i]) as f64)
                .sum::<f64>();
        } else {
            let x = draws.iter().filter(|i| pass(**i)).count() as f64;
            let m = draws.len() as f64;
            sampled_pairs += draws.len() as u64;
            estimate += level as f64 * x / m;
            let adj = (x + 2.0) / (m + 4.0);
            variance += (level as f64).powi(2) * adj * (1.0 - adj) / m;
        }
        let (p, half) = if cand == 0 {
            (1.0, 0.0)
        } else {
            (estimate / cand as f64, 1.96 * variance.sqrt() / cand as f64)
        };
        out.push(Quality {
            tau: tau as u32,
            candidate_pairs: cand,
            known_pairs: known,
            verified_pairs: verified,
            precision: p.clamp(0.0, 1.0),
            precision_low: (p - half).clamp(0.0, 1.0),
            precision_high: (p + half).clamp(0.0, 1.0),
            sampled_pairs,
        });
    }
    Ok((out, scored))
}
