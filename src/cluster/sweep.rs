//! Threshold sweeps from one join: edges are added to one union-find in order of distance and
//! the statistics are taken after each threshold, so tau = 0..=max costs one join and one pass
//! over the edges instead of max + 1 joins.
//!
//! Units (identical fingerprints) are merged first: they are distance 0 on both axes. A
//! 128-bit sweep keeps only edges within the fixed 64-bit tau and orders them by 128-bit
//! distance.

use serde::{Deserialize, Serialize};

use super::Dsu;
use crate::join::graph::{Edge, PairGraph};

/// Which distance the sweep steps through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    /// The 64-bit distance.
    D64,
    /// The 128-bit distance, among pairs within a fixed 64-bit tau.
    D128 {
        /// The fixed 64-bit threshold.
        tau64: u32,
    },
}

impl Axis {
    /// The level of an edge on this axis, or None when the edge does not take part.
    pub fn level(self, e: &Edge) -> Option<u32> {
        match self {
            Axis::D64 => Some(u32::from(e.d64)),
            Axis::D128 { tau64 } => (u32::from(e.d64) <= tau64).then_some(u32::from(e.d128)),
        }
    }

    /// The column name of the threshold.
    pub fn name(self) -> &'static str {
        match self {
            Axis::D64 => "tau",
            Axis::D128 { .. } => "tau128",
        }
    }
}

/// Statistics after all pairs within one threshold are merged.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// The threshold.
    pub tau: u32,
    /// Clusters, singletons included (documents kept after deduplication).
    pub docs_kept: u64,
    /// `docs_kept` / documents.
    pub kept_ratio: f64,
    /// Size of the largest cluster.
    pub max_cluster: u64,
    /// `max_cluster` / documents.
    pub max_cluster_ratio: f64,
    /// Document pairs within the threshold.
    pub pairs: u64,
    /// Document pairs at exactly this distance.
    pub pairs_at: u64,
    /// Documents in clusters of two or more.
    pub docs_in_clusters: u64,
    /// Documents the star rule removes at this threshold ([`super::star`]): near-duplicates
    /// of a kept document, fewer than `documents - docs_kept` where clusters chain. Filled in
    /// by [`removed_by_star`].
    #[serde(default)]
    pub removed_by_star: u64,
    /// Number of clusters of each size, as (size, clusters), ascending.
    #[serde(skip)]
    pub size_histogram: Vec<(u64, u64)>,
}

/// Sweeps thresholds `0..=max` on `axis`; returns one [`Level`] per threshold and the
/// union-find as it stands after the last.
pub fn sweep(g: &PairGraph, axis: Axis, max: u32) -> (Vec<Level>, Dsu) {
    let dsu = Dsu::new(g.docs as usize);
    let total = u64::from(g.docs);
    let mut pairs = g.exact_pairs();
    let mut merges = dsu.union_all(&g.unit_links().collect::<Vec<_>>());
    // Counting sort of the edges by level: one bucket per threshold.
    let mut buckets: Vec<Vec<(u32, u32)>> = vec![Vec::new(); max as usize + 1];
    let mut bucket_pairs = vec![0u64; max as usize + 1];
    for e in &g.edges {
        if let Some(l) = axis.level(e).filter(|l| *l <= max) {
            buckets[l as usize].push(g.edge_link(e));
            bucket_pairs[l as usize] += g.edge_pairs(e);
        }
    }
    // The clusters' sizes are counted once, then kept up to date at the roots a threshold's
    // edges touch: a threshold costs its edges, not a pass over every document.
    let mut size = dsu.sizes();
    let mut clusters = Clusters::default();
    for s in size.iter().filter(|s| **s > 0) {
        clusters.count_in(u64::from(*s));
    }
    let mut roots = Vec::new();
    let mut levels = Vec::with_capacity(buckets.len());
    for (t, bucket) in buckets.iter().enumerate() {
        if !bucket.is_empty() {
            // The clusters the edges join, counted out before and in after (each new root is
            // one of the old, the smallest member of the clusters it joined).
            roots.clear();
            roots.extend(bucket.iter().flat_map(|&(a, b)| [dsu.find(a), dsu.find(b)]));
            roots.sort_unstable();
            roots.dedup();
            for &r in &roots {
                clusters.count_out(u64::from(size[r as usize]));
            }
            merges += dsu.union_all(bucket);
            for &r in &roots {
                let to = dsu.find(r);
                if to != r {
                    size[to as usize] += size[r as usize];
                    size[r as usize] = 0;
                }
            }
            for &r in roots.iter().filter(|r| size[**r as usize] > 0) {
                clusters.count_in(u64::from(size[r as usize]));
            }
        }
        let at = bucket_pairs[t] + if t == 0 { pairs } else { 0 };
        pairs += bucket_pairs[t];
        let kept = total - merges;
        let ratio = |x: u64| {
            if total == 0 {
                0.0
            } else {
                x as f64 / total as f64
            }
        };
        levels.push(Level {
            tau: t as u32,
            docs_kept: kept,
            kept_ratio: ratio(kept),
            max_cluster: clusters.largest,
            max_cluster_ratio: ratio(clusters.largest),
            pairs,
            pairs_at: at,
            docs_in_clusters: clusters.in_clusters,
            removed_by_star: 0,
            size_histogram: clusters.histogram.iter().map(|(s, n)| (*s, *n)).collect(),
        });
    }
    (levels, dsu)
}

/// The clusters of a sweep as it stands: how many of each size, the largest, and the
/// documents in clusters of two or more.
#[derive(Default)]
struct Clusters {
    histogram: std::collections::BTreeMap<u64, u64>,
    /// Clusters only grow, so the largest is never counted out.
    largest: u64,
    in_clusters: u64,
}

impl Clusters {
    /// One cluster of `s` documents more.
    fn count_in(&mut self, s: u64) {
        *self.histogram.entry(s).or_insert(0) += 1;
        self.largest = self.largest.max(s);
        if s > 1 {
            self.in_clusters += s;
        }
    }

    /// One cluster of `s` documents fewer (it joined another).
    fn count_out(&mut self, s: u64) {
        if let std::collections::btree_map::Entry::Occupied(mut e) = self.histogram.entry(s) {
            *e.get_mut() -= 1;
            if *e.get() == 0 {
                e.remove();
            }
        }
        if s > 1 {
            self.in_clusters -= s;
        }
    }
}

/// How the documents of a star are ranked: the representative rule after the keep policy,
/// and the first document of an older collection, never removed (`--against`).
#[derive(Clone, Copy)]
pub struct Ranking<'p> {
    /// The representative rule.
    pub rule: super::Representative,
    /// The keep policy, which decides first.
    pub policy: &'p super::policy::KeepPolicy<'p>,
    /// Documents from here on are old.
    pub protect: Option<u32>,
}

/// Fills each level's `removed_by_star`: the star assignment ([`super::star`]) at every
/// threshold, on one preparation at the largest, documents ranked by `rule` (`id` and `text_len`
/// describe a document; documents from `protect` on are never removed, see
/// [`super::star::StarGraph::new`]). Returns the preparation, which assigns any subset of the largest
/// threshold's edges (the lists' threshold) with the same rule.
pub fn removed_by_star<'a>(
    levels: &mut [Level],
    g: &PairGraph,
    axis: Axis,
    ranking: &Ranking<'_>,
    id: impl Fn(u32) -> &'a str + Sync,
    text_len: impl Fn(u32) -> u32 + Sync,
) -> super::star::StarGraph {
    let Ranking {
        rule,
        policy,
        protect,
    } = *ranking;
    use super::{star, Representative};
    let within = |t: u32| move |e: &Edge| axis.level(e).is_some_and(|l| l <= t);
    // Prepared once at the largest threshold; every threshold is assigned on it. The central
    // rule's degrees change with the threshold, so its order is taken per threshold.
    let max = levels.last().map_or(0, |l| l.tau);
    let central = rule == Representative::Central;
    let sg = star::StarGraph::new(g, within(max), rule, policy, &id, &text_len, protect);
    let removed: Vec<u64> = levels
        .iter()
        .map(|l| {
            let admit = |e: u32| axis.level(&g.edges[e as usize]).is_some_and(|x| x <= l.tau);
            let order = central.then(|| sg.central_order(admit));
            sg.removed(admit, order.as_deref())
        })
        .collect();
    for (l, r) in levels.iter_mut().zip(removed) {
        l.removed_by_star = r;
    }
    sg
}
