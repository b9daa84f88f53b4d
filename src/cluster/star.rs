//! Removal by stars: a document is removed only when it is a near-duplicate (an edge of the
//! graph, or a member of the same unit) of a document that is kept, and it names that one.
//!
//! Clusters are connected components, and components chain: A ~ B and B ~ C put A and C
//! together though they may share little, so removing every member but one representative
//! removes documents that duplicate nothing kept. Here the documents are visited in the order
//! of the representative rule ([`ranking`]), best first; a document not yet removed is kept, and
//! every neighbour of it not yet decided is removed for it. So a removed document always has an
//! edge to its kept one, and no two kept documents are neighbours. A document is removed
//! exactly when some kept document that ranks before it is its neighbour (the greedy pass over
//! the ground truth that removal recall is measured against), and it names the best-ranked one.
//!
//! Components are independent, so they are assigned in parallel, each ranked and assigned by
//! one worker: the result does not depend on the thread count. Only documents with a
//! neighbour take part (the others are kept); they are grouped by component with an integer
//! sort, and each component is sorted by the rule on its own, so ids are compared only within
//! components. Work is one visit of each kept document's unit and adjacent units: O(documents
//! + edges) plus the sorts, with the largest component the longest sequential part.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use super::{Representative, SeqDsu};
use crate::join::graph::{Edge, PairGraph};

/// Which documents the remove list names.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum RemoveBy {
    /// Only near-duplicates of a kept document, each for that one (this module).
    #[default]
    Star,
    /// Every member of a cluster but its representative (Chuweb21D's rule).
    Component,
}

/// `via` of a document that is kept, or removed for a member of its own unit.
pub const NO_EDGE: u32 = u32::MAX;

const UNSET: u32 = u32::MAX;

/// The star assignment of a graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stars {
    /// Each document's kept document: itself when kept (documents outside the graph's units
    /// are kept).
    pub kept: Vec<u32>,
    /// For a document removed for a document of another unit, the index (in the graph's
    /// edges) of the edge between their units; else [`NO_EDGE`].
    pub via: Vec<u32>,
}

impl Stars {
    /// Documents removed.
    pub fn removed(&self) -> u64 {
        self.kept
            .iter()
            .enumerate()
            .filter(|(d, k)| **k != *d as u32)
            .count() as u64
    }
}

/// Units adjacent to each unit over the edges `keep` admits, with the edge's index.
struct Adjacency {
    start: Vec<u32>,
    next: Vec<(u32, u32)>,
    /// The admitted edges' indices.
    edges: Vec<u32>,
}

impl Adjacency {
    fn new(g: &PairGraph, keep: &(impl Fn(&Edge) -> bool + Sync)) -> Adjacency {
        let mut start = vec![0u32; g.units() + 1];
        let kept: Vec<u32> = (0..g.edges.len() as u32)
            .filter(|i| keep(&g.edges[*i as usize]))
            .collect();
        for i in &kept {
            let e = &g.edges[*i as usize];
            start[e.u as usize + 1] += 1;
            start[e.v as usize + 1] += 1;
        }
        for u in 1..start.len() {
            start[u] += start[u - 1];
        }
        let mut fill = start.clone();
        let mut next = vec![(0u32, 0u32); *start.last().unwrap_or(&0) as usize];
        for &i in &kept {
            let e = &g.edges[i as usize];
            for (a, b) in [(e.u, e.v), (e.v, e.u)] {
                next[fill[a as usize] as usize] = (b, i);
                fill[a as usize] += 1;
            }
        }
        Adjacency {
            start,
            next,
            edges: kept,
        }
    }

    fn of(&self, u: u32) -> &[(u32, u32)] {
        &self.next[self.start[u as usize] as usize..self.start[u as usize + 1] as usize]
    }
}

/// Each document's neighbours over the edges `keep` admits (the other members of its unit and
/// the members of adjacent units): the `central` rule's measure. 0 outside the units.
pub fn degrees(g: &PairGraph, keep: impl Fn(&Edge) -> bool + Sync) -> Vec<u32> {
    let adj = Adjacency::new(g, &keep);
    let mut out = vec![0u32; g.docs as usize];
    for u in 0..g.units() as u32 {
        let m = g.unit(u);
        let across: usize = adj.of(u).iter().map(|(v, _)| g.unit(*v).len()).sum();
        for d in m {
            out[*d as usize] = (m.len() - 1 + across) as u32;
        }
    }
    out
}

/// How `rule` ranks two documents (`Less`: `a` is kept first): the lowest id; the first in
/// corpus order; the longest text; or the most neighbours (`degree`, from [`degrees`]). Ties
/// go to the first in corpus order.
pub fn ranking<'a, 'd>(
    rule: Representative,
    id: impl Fn(u32) -> &'a str + Sync + 'd,
    text_len: impl Fn(u32) -> u32 + Sync + 'd,
    degree: &'d [u32],
) -> impl Fn(u32, u32) -> std::cmp::Ordering + Sync + 'd {
    use std::cmp::Reverse;
    move |a, b| {
        match rule {
            Representative::LowestId => id(a).cmp(id(b)),
            Representative::First => std::cmp::Ordering::Equal,
            Representative::Longest => Reverse(text_len(a)).cmp(&Reverse(text_len(b))),
            Representative::Central => {
                Reverse(degree[a as usize]).cmp(&Reverse(degree[b as usize]))
            }
        }
        .then(a.cmp(&b))
    }
}

/// (component, unit, document) of every document with a neighbour over `adj`'s edges, grouped
/// by component: components over the units the admitted edges touch (a union-find over those
/// alone); a unit of several documents and no edge is a component of its own.
fn grouped(g: &PairGraph, adj: &Adjacency) -> Vec<(u32, u32, u32)> {
    let mut touched: Vec<u32> = adj
        .edges
        .iter()
        .flat_map(|i| [g.edges[*i as usize].u, g.edges[*i as usize].v])
        .collect();
    touched.par_sort_unstable();
    touched.dedup();
    let place = |u: u32| touched.binary_search(&u).expect("a touched unit") as u32;
    let mut dsu = SeqDsu::new(touched.len());
    for i in &adj.edges {
        let e = &g.edges[*i as usize];
        dsu.union(place(e.u), place(e.v));
    }
    let labels = dsu.labels();
    let members = |c: u32, u: u32| g.unit(u).iter().map(move |d| (c, u, *d));
    let mut grouped: Vec<(u32, u32, u32)> = touched
        .iter()
        .zip(&labels)
        .flat_map(|(u, c)| members(*c, *u))
        .chain(
            g.multi_units()
                .into_iter()
                .filter(|u| adj.of(*u).is_empty())
                .zip(touched.len() as u32..)
                .flat_map(|(u, c)| members(c, u)),
        )
        .collect();
    grouped.par_sort_unstable_by_key(|x| x.0);
    grouped
}

/// Rank positions for repeated assignments over subgraphs of the edges `keep` admits (a sweep's
/// thresholds): the documents with a neighbour get positions such that, within any component of
/// those edges (so within any component of fewer edges), ascending position is `rank`'s order;
/// the others get `u32::MAX`. Comparing positions is then a load, not a rule's comparison
/// (ids read from the store), and each document is ranked once instead of once per threshold.
pub fn positions(
    g: &PairGraph,
    keep: impl Fn(&Edge) -> bool + Sync,
    rank: impl Fn(u32, u32) -> std::cmp::Ordering + Sync,
) -> Vec<u32> {
    let adj = Adjacency::new(g, &keep);
    let mut grouped = grouped(g, &adj);
    grouped
        .par_chunk_by_mut(|a, b| a.0 == b.0)
        .for_each(|c| c.sort_unstable_by(|a, b| rank(a.2, b.2)));
    let mut out = vec![u32::MAX; g.docs as usize];
    for (p, x) in grouped.iter().enumerate() {
        out[x.2 as usize] = p as u32;
    }
    out
}

/// The star assignment over the edges of `g` that `keep` admits (and its units), documents
/// visited best first by `rank` ([`ranking`]). Only documents with a neighbour take part,
/// grouped by component with an integer sort; each component is ranked on its own (small
/// sorts, in cache) and assigned by one worker.
pub fn stars(
    g: &PairGraph,
    keep: impl Fn(&Edge) -> bool + Sync,
    rank: impl Fn(u32, u32) -> std::cmp::Ordering + Sync,
) -> Stars {
    let adj = Adjacency::new(g, &keep);
    let mut grouped = grouped(g, &adj);
    let kept: Vec<AtomicU32> = (0..g.docs).map(|_| AtomicU32::new(UNSET)).collect();
    let via: Vec<AtomicU32> = (0..g.docs).map(|_| AtomicU32::new(NO_EDGE)).collect();
    // Each component's documents are written by its one worker only: relaxed accesses see
    // the worker's own writes in order.
    grouped.par_chunk_by_mut(|a, b| a.0 == b.0).for_each(|c| {
        c.sort_unstable_by(|a, b| rank(a.2, b.2));
        let take = |m: u32, k: u32, e: u32| {
            if kept[m as usize].load(Relaxed) == UNSET {
                kept[m as usize].store(k, Relaxed);
                via[m as usize].store(e, Relaxed);
            }
        };
        for &(_, u, d) in c.iter() {
            if kept[d as usize].load(Relaxed) != UNSET {
                continue;
            }
            kept[d as usize].store(d, Relaxed);
            for m in g.unit(u) {
                take(*m, d, NO_EDGE);
            }
            for (v, e) in adj.of(u) {
                for m in g.unit(*v) {
                    take(*m, d, *e);
                }
            }
        }
    });
    let kept = kept
        .into_iter()
        .enumerate()
        .map(|(d, k)| match k.into_inner() {
            UNSET => d as u32,
            k => k,
        })
        .collect();
    Stars {
        kept,
        via: via.into_iter().map(AtomicU32::into_inner).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;
    use std::collections::BTreeSet;

    /// The plain greedy pass over documents: in rank order, a document is removed for the
    /// first kept document (in rank order) among its neighbours, else kept.
    fn reference(g: &PairGraph, keep: impl Fn(&Edge) -> bool, order: &[u32]) -> Vec<u32> {
        let n = g.docs as usize;
        let mut nb: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); n];
        let mut link = |a: u32, b: u32| {
            nb[a as usize].insert(b);
            nb[b as usize].insert(a);
        };
        for u in 0..g.units() as u32 {
            let m = g.unit(u);
            for i in 0..m.len() {
                for j in i + 1..m.len() {
                    link(m[i], m[j]);
                }
            }
        }
        for e in g.edges.iter().filter(|e| keep(e)) {
            for a in g.unit(e.u) {
                for b in g.unit(e.v) {
                    link(*a, *b);
                }
            }
        }
        let mut kept: Vec<u32> = (0..n as u32).collect();
        let mut kept_at: Vec<Option<usize>> = vec![None; n];
        for (pos, &d) in order.iter().enumerate() {
            let best = nb[d as usize]
                .iter()
                .filter_map(|m| kept_at[*m as usize].map(|p| (p, *m)))
                .min();
            match best {
                Some((_, k)) => kept[d as usize] = k,
                None => kept_at[d as usize] = Some(pos),
            }
        }
        kept
    }

    fn random_graph(rng: &mut SplitMix64) -> PairGraph {
        let docs = 1 + rng.below(60) as u32;
        let mut perm: Vec<u32> = (0..docs).collect();
        for i in (1..perm.len()).rev() {
            perm.swap(i, rng.below(i as u64 + 1) as usize);
        }
        // Units: most single documents, some of two or three; a few documents left out.
        let (mut members, mut starts) = (Vec::new(), vec![0u32]);
        let mut i = 0;
        while i < perm.len() {
            if rng.below(10) == 0 {
                i += 1;
                continue;
            }
            let len = match rng.below(10) {
                0 => 3,
                1 | 2 => 2,
                _ => 1,
            }
            .min(perm.len() - i);
            let mut unit = perm[i..i + len].to_vec();
            unit.sort_unstable();
            members.extend(unit);
            starts.push(members.len() as u32);
            i += len;
        }
        let units = starts.len() as u32 - 1;
        let mut edges = BTreeSet::new();
        if units > 1 {
            for _ in 0..rng.below(u64::from(units) * 2) {
                let (a, b) = (
                    rng.below(units.into()) as u32,
                    rng.below(units.into()) as u32,
                );
                if a != b {
                    edges.insert((a.min(b), a.max(b), rng.below(8) as u8));
                }
            }
        }
        PairGraph {
            docs,
            members,
            starts,
            edges: edges
                .into_iter()
                .map(|(u, v, d)| Edge::new(u, v, d, 0))
                .collect(),
        }
    }

    /// Stars equal the plain greedy pass on random graphs, for every rule and thread count;
    /// every removed document has an edge (or its unit) to its kept one, and no kept document
    /// neighbours another.
    #[test]
    fn stars_equal_the_greedy_reference() {
        let mut rng = SplitMix64(11);
        let ids: Vec<String> = (0..64).map(|i| format!("id{:03}", (i * 37) % 64)).collect();
        for round in 0..300 {
            let g = random_graph(&mut rng);
            let tau = rng.below(8) as u32;
            let keep = |e: &Edge| u32::from(e.d64) <= tau;
            let len = |d: u32| (d * 7919) % 13;
            let degree = degrees(&g, keep);
            for rule in [
                Representative::LowestId,
                Representative::First,
                Representative::Longest,
                Representative::Central,
            ] {
                let rank = ranking(rule, |d| ids[d as usize].as_str(), len, &degree);
                let mut o = g.members.clone();
                o.sort_by(|a, b| rank(*a, *b));
                let want = reference(&g, keep, &o);
                if rule != Representative::Central {
                    // Positions ranked at the largest threshold order every smaller one.
                    let p = positions(&g, |e| e.d64 <= 7, &rank);
                    let by_pos = stars(&g, keep, |a, b| p[a as usize].cmp(&p[b as usize]));
                    assert_eq!(by_pos.kept, want, "round {round} {rule:?} by positions");
                }
                for threads in [1, 3] {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    let s = pool.install(|| stars(&g, keep, &rank));
                    assert_eq!(s.kept, want, "round {round} {rule:?} {threads} threads");
                    for (d, k) in s.kept.iter().enumerate() {
                        let e = s.via[d];
                        if *k == d as u32 {
                            assert_eq!(e, NO_EDGE);
                        } else if e == NO_EDGE {
                            let u = (0..g.units() as u32).find(|u| g.unit(*u).contains(k));
                            assert!(g.unit(u.unwrap()).contains(&(d as u32)), "round {round}");
                        } else {
                            let e = g.edges[e as usize];
                            assert!(keep(&e));
                            let (a, b) = (g.unit(e.u), g.unit(e.v));
                            assert!(
                                (a.contains(k) && b.contains(&(d as u32)))
                                    || (b.contains(k) && a.contains(&(d as u32))),
                                "round {round}"
                            );
                        }
                    }
                }
            }
        }
    }
}
