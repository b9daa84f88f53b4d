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

use super::Pair;

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

/// Documents sorted by fingerprint, with the boundaries of equal 64-bit values and of units.
#[derive(Debug)]
pub struct Collapsed {
    /// Distinct 64-bit fingerprints, ascending.
    pub values: Vec<u64>,
    /// Units of value `x` are `value_units[x]..value_units[x + 1]`.
    pub value_units: Vec<u32>,
    /// Documents grouped by unit.
    pub members: Vec<u32>,
    /// Unit boundaries in `members`.
    pub starts: Vec<u32>,
}

/// Groups `docs` by (fp64, fp128); within a unit members ascend.
///
/// A counting sort on the top bits of the 64-bit fingerprint scatters the documents, with
/// their values, into about one bucket per document, so only the few buckets with several
/// members need sorting by (fp64, fp128, document). The scattered values, deduplicated in
/// place, are the distinct values: 12 bytes a document while sorting, and the result.
pub fn collapse(fp64: &[u64], fp128: &[[u64; 2]], docs: Vec<u32>) -> Collapsed {
    let n = docs.len();
    let bits = (usize::BITS - n.leading_zeros()).clamp(1, 28);
    let shift = 64 - bits;
    let mut fill = vec![0u32; (1usize << bits) + 1];
    for d in &docs {
        fill[(fp64[*d as usize] >> shift) as usize + 1] += 1;
    }
    for i in 1..fill.len() {
        fill[i] += fill[i - 1];
    }
    // The 64-bit values travel with the documents, so nothing below reads the columns at
    // random except to tell apart equal 64-bit values; deduplicated in place, they become
    // `values`.
    let mut vals = vec![0u64; n];
    let mut members = vec![0u32; n];
    for d in docs {
        let v = fp64[d as usize];
        let b = (v >> shift) as usize;
        let at = fill[b] as usize;
        vals[at] = v;
        members[at] = d;
        fill[b] += 1;
    }
    // fill[b] is now the end of bucket b, and the start of bucket b + 1.
    // Buckets of several members are sorted by (value, document); only runs of equal values
    // (rare) read the 128-bit column, so its pages stay untouched otherwise.
    let mut tmp: Vec<(u64, u32)> = Vec::new();
    let mut start = 0usize;
    for end in fill {
        let end = end as usize;
        if end - start > 1 {
            tmp.clear();
            tmp.extend((start..end).map(|i| (vals[i], members[i])));
            tmp.sort_unstable();
            for (k, (v, d)) in tmp.iter().enumerate() {
                vals[start + k] = *v;
                members[start + k] = *d;
            }
            let mut i = start;
            while i < end {
                let mut j = i + 1;
                while j < end && vals[j] == vals[i] {
                    j += 1;
                }
                if j - i > 1 {
                    members[i..j].sort_unstable_by_key(|d| (fp128[*d as usize], *d));
                }
                i = j;
            }
        }
        start = end;
    }
    let (mut value_units, mut starts) = (Vec::with_capacity(n + 1), Vec::with_capacity(n + 1));
    let mut distinct = 0;
    for i in 0..n {
        let v = vals[i];
        if i == 0 || vals[i - 1] != v {
            // `distinct <= i`, so the compaction never overwrites a value still to be read.
            vals[distinct] = v;
            distinct += 1;
            value_units.push(starts.len() as u32);
            starts.push(i as u32);
        } else if fp128[members[i] as usize] != fp128[members[i - 1] as usize] {
            starts.push(i as u32);
        }
    }
    vals.truncate(distinct);
    vals.shrink_to_fit();
    value_units.push(starts.len() as u32);
    starts.push(members.len() as u32);
    Collapsed {
        values: vals,
        value_units,
        members,
        starts,
    }
}

impl PairGraph {
    /// Builds the graph from pairs of distinct 64-bit values `(x, y, d64)` (indices into
    /// `c.values`), keeping only unit pairs with a 128-bit distance within `tau128`.
    pub fn from_distinct(
        docs: u32,
        c: Collapsed,
        fp128: &[[u64; 2]],
        distinct: &[(u32, u32, u8)],
        tau128: Option<u32>,
    ) -> PairGraph {
        let unit_fp = |u: u32| fp128[c.members[c.starts[u as usize] as usize] as usize];
        let units_of = |x: u32| c.value_units[x as usize]..c.value_units[x as usize + 1];
        let edge = |u: u32, v: u32, d64: u8| {
            let d128 = super::cpu::dist128(unit_fp(u), unit_fp(v));
            tau128.is_none_or(|t| d128 <= t).then_some(Edge {
                u: u.min(v),
                v: u.max(v),
                d64,
                d128: d128 as u8,
                pad: [0; 2],
            })
        };
        // Same 64-bit value, different 128-bit value: distance 0 on 64 bits.
        let mut edges: Vec<Edge> = (0..c.values.len() as u32)
            .into_par_iter()
            .filter(|x| units_of(*x).len() > 1)
            .flat_map_iter(|x| {
                let r = units_of(x);
                r.clone()
                    .flat_map(move |u| (u + 1..r.end).map(move |v| (u, v)))
                    .filter_map(|(u, v)| edge(u, v, 0))
                    .collect::<Vec<_>>()
            })
            .collect();
        edges.par_extend(distinct.par_iter().flat_map_iter(|&(x, y, d)| {
            units_of(x)
                .flat_map(|u| units_of(y).map(move |v| (u, v)))
                .filter_map(|(u, v)| edge(u, v, d))
                .collect::<Vec<_>>()
        }));
        edges.par_sort_unstable();
        PairGraph {
            docs,
            members: c.members,
            starts: c.starts,
            edges,
        }
    }

    /// Units.
    pub fn units(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Members of unit `u`.
    pub fn unit(&self, u: u32) -> &[u32] {
        &self.members[self.starts[u as usize] as usize..self.starts[u as usize + 1] as usize]
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

    /// Calls `f` with every document pair (a < b), in no particular order.
    pub fn for_each_pair(&self, mut f: impl FnMut(Pair)) {
        let pair = |a: u32, b: u32, d64: u8, d128: u8| Pair {
            a: a.min(b),
            b: a.max(b),
            d64,
            d128,
        };
        for u in 0..self.units() as u32 {
            let m = self.unit(u);
            for i in 0..m.len() {
                for j in i + 1..m.len() {
                    f(pair(m[i], m[j], 0, 0));
                }
            }
        }
        for e in &self.edges {
            for &a in self.unit(e.u) {
                for &b in self.unit(e.v) {
                    f(pair(a, b, e.d64, e.d128));
                }
            }
        }
    }

    /// Every document pair, sorted by (a, b).
    pub fn pairs(&self) -> Vec<Pair> {
        let mut out = Vec::with_capacity(self.pair_count() as usize);
        self.for_each_pair(|p| out.push(p));
        out.par_sort_unstable();
        out
    }
}
