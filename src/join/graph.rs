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
/// The documents are partitioned by the top bits of their 64-bit value into groups of a few
/// hundred, in parallel: each task owns a range of groups and its slice of the output, scans
/// all documents (sequential reads) and writes only its own, then sorts each small group by
/// (value, document), and by the 128-bit value only inside runs of equal 64-bit values (rare),
/// so that column's pages stay untouched otherwise. The values travel with the documents and,
/// deduplicated in place, become the distinct values: 12 bytes a document while sorting.
pub fn collapse(fp64: &[u64], fp128: &[[u64; 2]], docs: Vec<u32>) -> Collapsed {
    let n = docs.len();
    let gbits = (usize::BITS - n.leading_zeros()).saturating_sub(8).min(16);
    let group = |v: u64| {
        if gbits == 0 {
            0
        } else {
            (v >> (64 - gbits)) as usize
        }
    };
    let ng = 1usize << gbits;
    let counts = docs
        .par_chunks(1 << 16)
        .fold(
            || vec![0u32; ng],
            |mut c, chunk| {
                for d in chunk {
                    c[group(fp64[*d as usize])] += 1;
                }
                c
            },
        )
        .reduce(
            || vec![0u32; ng],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let mut gstart = Vec::with_capacity(ng + 1);
    gstart.push(0u32);
    for c in &counts {
        gstart.push(gstart[gstart.len() - 1] + c);
    }
    drop(counts);
    // Tasks: ranges of whole groups with about equal numbers of documents.
    let tasks = if n < 1 << 14 {
        1
    } else {
        rayon::current_num_threads() * 4
    };
    let mut bounds = vec![0usize];
    for t in 1..tasks {
        let want = (n * t / tasks) as u32;
        let g = gstart.partition_point(|s| *s < want).min(ng);
        if g > *bounds.last().unwrap_or(&0) {
            bounds.push(g);
        }
    }
    bounds.push(ng);
    let mut vals = vec![0u64; n];
    let mut members = vec![0u32; n];
    let mut pieces = Vec::with_capacity(bounds.len());
    let (mut vrest, mut mrest) = (&mut vals[..], &mut members[..]);
    for w in bounds.windows(2) {
        let len = (gstart[w[1]] - gstart[w[0]]) as usize;
        let (v, vt) = vrest.split_at_mut(len);
        let (m, mt) = mrest.split_at_mut(len);
        pieces.push((v, m, w[0], w[1]));
        vrest = vt;
        mrest = mt;
    }
    // Each task: scatter, sort its groups, find its units, and compact its distinct values to
    // the front of its slice. Unit starts are relative to the slice.
    let parts: Vec<(usize, Vec<u32>, Vec<u32>)> = pieces
        .into_par_iter()
        .map(|(vals, members, g0, g1)| {
            let base = gstart[g0];
            let mut fill: Vec<u32> = gstart[g0..g1].iter().map(|s| s - base).collect();
            for &d in &docs {
                let v = fp64[d as usize];
                let g = group(v).wrapping_sub(g0);
                if g < fill.len() {
                    let at = fill[g] as usize;
                    vals[at] = v;
                    members[at] = d;
                    fill[g] += 1;
                }
            }
            let mut tmp: Vec<(u64, u32)> = Vec::new();
            for g in g0..g1 {
                let (s, e) = ((gstart[g] - base) as usize, (gstart[g + 1] - base) as usize);
                if e - s < 2 {
                    continue;
                }
                tmp.clear();
                tmp.extend((s..e).map(|i| (vals[i], members[i])));
                tmp.sort_unstable();
                for (k, (v, d)) in tmp.iter().enumerate() {
                    vals[s + k] = *v;
                    members[s + k] = *d;
                }
                let mut i = s;
                while i < e {
                    let mut j = i + 1;
                    while j < e && vals[j] == vals[i] {
                        j += 1;
                    }
                    if j - i > 1 {
                        members[i..j].sort_unstable_by_key(|d| (fp128[*d as usize], *d));
                    }
                    i = j;
                }
            }
            let (mut value_units, mut starts) = (Vec::new(), Vec::new());
            let mut distinct = 0;
            for i in 0..vals.len() {
                let v = vals[i];
                if i == 0 || vals[i - 1] != v {
                    // `distinct <= i`: the compaction never overwrites a value still to be read.
                    vals[distinct] = v;
                    distinct += 1;
                    value_units.push(starts.len() as u32);
                    starts.push(i as u32);
                } else if fp128[members[i] as usize] != fp128[members[i - 1] as usize] {
                    starts.push(i as u32);
                }
            }
            (distinct, value_units, starts)
        })
        .collect();
    drop(docs);
    // Stitch the tasks together: values moved down in place, unit indices and starts offset.
    let units: usize = parts.iter().map(|p| p.2.len()).sum();
    let (mut value_units, mut starts) =
        (Vec::with_capacity(units + 1), Vec::with_capacity(units + 1));
    let mut distinct = 0;
    for (w, (d, vu, st)) in bounds.windows(2).zip(&parts) {
        let base = gstart[w[0]] as usize;
        vals.copy_within(base..base + d, distinct);
        distinct += d;
        let u0 = starts.len() as u32;
        value_units.extend(vu.iter().map(|u| u + u0));
        starts.extend(st.iter().map(|s| s + base as u32));
    }
    drop(parts);
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
