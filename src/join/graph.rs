//! The result of a join in its compact form: groups of identical fingerprints, and edges
//! between groups.
//!
//! A *unit* is a class of documents whose 64- and 128-bit fingerprints are both identical;
//! every two members of a unit are a pair at distance (0, 0), so a unit of k members stands for
//! k(k-1)/2 pairs without listing them (a templated site's 100 000 identical pages would
//! otherwise be 5 billion pairs). Edges join units whose 64-bit fingerprints are within tau,
//! with both distances. Clustering and sweeps work on this form; [`PairGraph::for_each_pair`]
//! expands it to document pairs for the TSV, in (a, b) order.

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use super::types::Pair;

/// Whether the pair of documents `a` and `b` is wanted against an older collection whose
/// documents start at `old`: every pair but those within it (`join --against`, `dedup
/// --against`); every pair when there is none.
pub fn not_within_old(old: Option<u32>, a: u32, b: u32) -> bool {
    old.is_none_or(|c| a.min(b) < c)
}

/// An edge between two units. Keep in sync with the `pairs.bin` layout in docs/FORMATS.md.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Pod, Zeroable)]
pub struct Edge {
    /// The lower unit.
    pub u: u32,
    /// The higher unit.
    pub v: u32,
    /// 64-bit Hamming distance.
    pub d64: u8,
    /// 128-bit Hamming distance.
    pub d128: u8,
    /// Zero.
    pub pad: [u8; 2],
}
const _: () = assert!(std::mem::size_of::<Edge>() == 12);

impl Edge {
    /// The edge between units `a` and `b` (in either order) with its distances.
    pub fn new(a: u32, b: u32, d64: u8, d128: u32) -> Edge {
        Edge {
            u: a.min(b),
            v: a.max(b),
            d64,
            d128: d128 as u8,
            pad: [0; 2],
        }
    }

    /// Whether the edge is within `tau` (and `tau128`, if given).
    pub fn within(&self, tau: u32, tau128: Option<u32>) -> bool {
        u32::from(self.d64) <= tau && tau128.is_none_or(|t| u32::from(self.d128) <= t)
    }
}

/// Units of identical fingerprints and the edges between them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairGraph {
    /// Documents in the corpus (the index space of `members`).
    pub docs: u32,
    /// Joined documents, grouped by unit; each unit's members ascending.
    pub members: Vec<u32>,
    /// Unit `u` is `members[starts[u]..starts[u + 1]]`.
    pub starts: Vec<u32>,
    /// Edges with `u < v`, sorted.
    pub edges: Vec<Edge>,
}

impl PairGraph {
    /// The graph with only its edges within `tau` (and `tau128`, if given); units stay, their
    /// pairs being at distance 0.
    pub fn within(mut self, tau: u32, tau128: Option<u32>) -> PairGraph {
        self.edges.retain(|e| e.within(tau, tau128));
        self
    }

    /// Units.
    pub fn units(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Members of unit `u`.
    pub fn unit(&self, u: u32) -> &[u32] {
        &self.members[self.starts[u as usize] as usize..self.starts[u as usize + 1] as usize]
    }

    /// Units of two or more members, ascending; found in parallel, a block of units at a
    /// time (most units are single documents).
    pub fn multi_units(&self) -> Vec<u32> {
        const BLOCK: usize = 1 << 16;
        let (n, s) = (self.units(), &self.starts);
        (0..n.div_ceil(BLOCK))
            .into_par_iter()
            .flat_map_iter(|b| {
                (b * BLOCK..(b * BLOCK + BLOCK).min(n))
                    .filter(|&u| s[u + 1] - s[u] > 1)
                    .map(|u| u as u32)
            })
            .collect()
    }

    /// Links that connect each unit: its first member with each other member (k - 1 for a
    /// unit of k, standing for its k(k-1)/2 pairs).
    pub fn unit_links(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.units() as u32).flat_map(move |u| {
            let m = self.unit(u);
            m[1..].iter().map(move |d| (m[0], *d))
        })
    }

    /// The link an edge stands for: the first members of its two units.
    pub fn edge_link(&self, e: &Edge) -> (u32, u32) {
        (self.unit(e.u)[0], self.unit(e.v)[0])
    }

    /// Document pairs inside units (identical fingerprints).
    pub fn exact_pairs(&self) -> u64 {
        self.starts
            .windows(2)
            .map(|w| {
                let k = u64::from(w[1] - w[0]);
                k * k.saturating_sub(1) / 2
            })
            .sum()
    }

    /// Document pairs an edge stands for.
    pub fn edge_pairs(&self, e: &Edge) -> u64 {
        self.unit(e.u).len() as u64 * self.unit(e.v).len() as u64
    }

    /// Document pairs in all.
    pub fn pair_count(&self) -> u64 {
        self.exact_pairs() + self.edges.iter().map(|e| self.edge_pairs(e)).sum::<u64>()
    }

    /// The document pairs edge `e` stands for.
    fn edge_doc_pairs<'a>(&'a self, e: &'a Edge) -> impl Iterator<Item = Pair> + 'a {
        let (ma, mb) = (self.unit(e.u), self.unit(e.v));
        ma.iter()
            .flat_map(move |a| mb.iter().map(move |b| Pair::new(*a, *b, e.d64, e.d128)))
    }

    /// Calls `f` with every document pair (a < b), in no particular order.
    pub fn for_each_pair(&self, mut f: impl FnMut(Pair)) {
        for u in 0..self.units() as u32 {
            unit_doc_pairs(self.unit(u)).for_each(&mut f);
        }
        for e in &self.edges {
            self.edge_doc_pairs(e).for_each(&mut f);
        }
    }

    /// Every document pair, sorted by (a, b).
    pub fn pairs(&self) -> Vec<Pair> {
        self.pairs_where(|_, _| true)
    }

    /// The document pairs `(a, b)` for which `keep(a, b)` holds, sorted by (a, b); built in
    /// parallel.
    pub fn pairs_where(&self, keep: impl Fn(u32, u32) -> bool + Sync) -> Vec<Pair> {
        let mut out: Vec<Pair> = self
            .multi_units()
            .par_iter()
            .flat_map_iter(|&u| unit_doc_pairs(self.unit(u)))
            .filter(|p| keep(p.a, p.b))
            .collect();
        out.par_extend(
            self.edges
                .par_iter()
                .flat_map_iter(|e| self.edge_doc_pairs(e))
                .filter(|p| keep(p.a, p.b)),
        );
        out.par_sort_unstable();
        out
    }
}

/// The pairs inside one unit, whose members are `m` (both distances 0).
fn unit_doc_pairs(m: &[u32]) -> impl Iterator<Item = Pair> + '_ {
    (0..m.len()).flat_map(move |i| m[i + 1..].iter().map(move |b| Pair::new(m[i], *b, 0, 0)))
}
