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

use super::{order, Pair};

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
    /// Pairs of units sharing a 64-bit value (u < v), with their 128-bit distance.
    pub same: Vec<(u32, u32, u8)>,
    /// The collapse's sort buffer (two words a document, contents unspecified), handed on so
    /// that the tables' sorts reuse its pages instead of faulting in fresh ones.
    pub scratch: Vec<u64>,
}

/// A document with its 64-bit fingerprint, as the collapse sorts them.
#[repr(C)]
#[derive(Clone, Copy, Default, Pod, Zeroable)]
struct Keyed {
    v: u64,
    d: u32,
    pad: u32,
}

/// Groups `docs` by (fp64, fp128); within a unit members ascend.
///
/// The two-pass counting sort of `join::order` orders the documents by 64-bit
/// value, carrying each document with its value (16 bytes a document): first by the top
/// bits into regions of about eight thousand, then each region, in cache and in parallel, by the
/// rest, with ties (equal values) sorted by document and, only inside runs of equal 64-bit
/// values (rare), by the 128-bit value, so that column's pages stay untouched otherwise.
/// Each region then lists its distinct values and units, and the regions are stitched
/// together in parallel.
pub fn collapse(fp64: &[u64], fp128: &[[u64; 2]], docs: Vec<u32>) -> Collapsed {
    let n = docs.len();
    let mut buffer: Vec<Keyed> = bytemuck::allocation::zeroed_vec(n);
    let sorted = &mut buffer[..];
    let gbits = order::group_bits(n, 64);
    let low = 64 - gbits;
    let starts = order::partition(
        &docs,
        sorted,
        gbits,
        move |d| (fp64[*d as usize] >> low) as usize,
        move |d| Keyed {
            v: fp64[*d as usize],
            d: *d,
            pad: 0,
        },
    );
    let lowmask = (1u64 << low) - 1;
    // Each region sorted, with its counts of distinct values and of units.
    let mut regions = order::regions(sorted, &starts);
    let counts: Vec<(usize, usize)> = regions
        .par_iter_mut()
        .map_init(order::Scratch::default, |s, (_, r)| {
            order::sort_region(
                r,
                s,
                low,
                move |k| k.v & lowmask,
                |t| t.sort_unstable_by_key(|k| (k.v, k.d)),
            );
            // Documents sharing a value are ordered by 128-bit value, so its units are runs.
            let (mut values, mut units) = (0, 0);
            let mut i = 0;
            while i < r.len() {
                let mut j = i + 1;
                while j < r.len() && r[j].v == r[i].v {
                    j += 1;
                }
                values += 1;
                units += 1;
                if j - i > 1 {
                    r[i..j].sort_unstable_by_key(|k| (fp128[k.d as usize], k.d));
                    units += (i + 1..j)
                        .filter(|m| unit_start(r, *m, fp128).is_some())
                        .count();
                }
                i = j;
            }
            (values, units)
        })
        .collect();
    // Then every region writes its part of the outputs, found by the counts before it.
    let total_values: usize = counts.iter().map(|c| c.0).sum();
    let total_units: usize = counts.iter().map(|c| c.1).sum();
    let mut values = vec![0u64; total_values];
    let mut value_units = vec![0u32; total_values + 1];
    let mut unit_starts = vec![0u32; total_units + 1];
    value_units[total_values] = total_units as u32;
    unit_starts[total_units] = n as u32;
    let mut members = docs;
    let mut jobs = Vec::with_capacity(regions.len());
    let (mut vrest, mut urest, mut srest) = (
        &mut values[..],
        &mut value_units[..total_values],
        &mut unit_starts[..total_units],
    );
    let mut mrest = &mut members[..];
    let mut u0 = 0u32;
    for ((base, r), (nv, nu)) in regions.into_iter().zip(&counts) {
        let (v, vt) = vrest.split_at_mut(*nv);
        let (u, ut) = urest.split_at_mut(*nv);
        let (st, stt) = srest.split_at_mut(*nu);
        let (m, mt) = mrest.split_at_mut(r.len());
        jobs.push((base as u32, u0, &*r, v, u, st, m));
        u0 += *nu as u32;
        (vrest, urest, srest, mrest) = (vt, ut, stt, mt);
    }
    let same: Vec<(u32, u32, u8)> = jobs
        .into_par_iter()
        .flat_map_iter(|(base, u0, r, values, value_units, starts, members)| {
            let (mut x, mut unit) = (0, 0);
            // Units of the current value, as (unit, first position), while it has several.
            let (mut open, mut same) = (Vec::new(), Vec::new());
            let fp = |i: usize| fp128[r[i].d as usize];
            for i in 0..r.len() {
                members[i] = r[i].d;
                if let Some(new_value) = unit_start(r, i, fp128) {
                    if new_value {
                        values[x] = r[i].v;
                        value_units[x] = u0 + unit as u32;
                        x += 1;
                        open.clear();
                    }
                    for &(u, at) in &open {
                        same.push((
                            u,
                            u0 + unit as u32,
                            super::cpu::dist128(fp(at), fp(i)) as u8,
                        ));
                    }
                    open.push((u0 + unit as u32, i));
                    starts[unit] = base + i as u32;
                    unit += 1;
                }
            }
            same
        })
        .collect();
    Collapsed {
        values,
        value_units,
        members,
        starts: unit_starts,
        same,
        scratch: bytemuck::allocation::cast_vec(buffer),
    }
}

/// Whether position `i` of a sorted region begins a unit: `Some(true)` where it also begins a
/// new 64-bit value, `Some(false)` where only the 128-bit value changes, `None` inside a unit.
fn unit_start(r: &[Keyed], i: usize, fp128: &[[u64; 2]]) -> Option<bool> {
    if i == 0 || r[i].v != r[i - 1].v {
        Some(true)
    } else {
        (fp128[r[i].d as usize] != fp128[r[i - 1].d as usize]).then_some(false)
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
        let mut edges: Vec<Edge> = c
            .same
            .iter()
            .filter(|(_, _, d128)| tau128.is_none_or(|t| u32::from(*d128) <= t))
            .map(|&(u, v, d128)| Edge {
                u,
                v,
                d64: 0,
                d128,
                pad: [0; 2],
            })
            .collect();
        edges.par_extend(
            distinct
                .par_iter()
                .fold(Vec::new, |mut out, &(x, y, d)| {
                    for u in units_of(x) {
                        out.extend(units_of(y).filter_map(|v| edge(u, v, d)));
                    }
                    out
                })
                .flatten_iter(),
        );
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
