//! The collapse (CopyCat's step 2): documents with identical fingerprints become one unit, and
//! the join runs on distinct 64-bit values only.
//!
//! The two-pass counting sort of `order` orders the documents by 64-bit value,
//! carrying each document with its value (16 bytes a document): first by the top bits into
//! regions of about eight thousand, then each region, in cache and in parallel, by the rest,
//! with ties (equal values) sorted by document and, only inside runs of equal 64-bit values
//! (rare), by the 128-bit value, so that column's pages stay untouched otherwise. Each region
//! counts its distinct values and units, then writes its part of the outputs in parallel, at
//! the place the counts before it give.

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use super::graph::Edge;
use super::order;
use crate::base::hamming::dist128;

/// Documents grouped by fingerprint: the distinct 64-bit values, and the units (documents
/// whose 64- and 128-bit fingerprints are both identical) of each.
#[derive(Debug, Default)]
pub struct Collapsed {
    /// Distinct 64-bit fingerprints, ascending.
    pub values: Vec<u64>,
    /// Units of value `x` are `value_units[x]..value_units[x + 1]`.
    pub value_units: Vec<u32>,
    /// Documents grouped by unit; within a unit, ascending.
    pub members: Vec<u32>,
    /// Unit boundaries in `members`: unit `u` is `members[starts[u]..starts[u + 1]]`.
    pub starts: Vec<u32>,
    /// Pairs of units that share a 64-bit value (different 128-bit values), as edges at 64-bit
    /// distance 0 with their 128-bit distance.
    pub same: Vec<Edge>,
}

/// A document with its 64-bit fingerprint, as the collapse sorts them.
#[repr(C)]
#[derive(Clone, Copy, Default, Pod, Zeroable)]
struct Keyed {
    v: u64,
    d: u32,
    pad: u32,
}

/// Groups `docs` by (fp64, fp128). `scratch` is the sort buffer: it is left holding the
/// collapse's buffer (two words a document, contents unspecified) so that the tables' sorts
/// that follow reuse its pages instead of faulting in fresh ones.
pub fn collapse(
    fp64: &[u64],
    fp128: &[[u64; 2]],
    docs: Vec<u32>,
    scratch: &mut Vec<u64>,
) -> Collapsed {
    let n = docs.len();
    let mut buffer: Vec<Keyed> = bytemuck::allocation::zeroed_vec(n);
    let (regions, counts) = sort_regions(fp64, fp128, &docs, &mut buffer);
    let mut out = Collapsed {
        values: Vec::new(),
        value_units: Vec::new(),
        members: docs,
        starts: Vec::new(),
        same: Vec::new(),
    };
    out.same = fill(&mut out, regions, &counts, fp128);
    *scratch = bytemuck::allocation::cast_vec(buffer);
    out
}

/// Distinct values and units in one sorted region.
#[derive(Clone, Copy)]
struct Counts {
    values: usize,
    units: usize,
}

/// Sorts `docs` into `buffer` by (fp64, fp128, document), region by region; returns the
/// regions with their offsets and counts.
fn sort_regions<'b>(
    fp64: &[u64],
    fp128: &[[u64; 2]],
    docs: &[u32],
    buffer: &'b mut [Keyed],
) -> (Vec<(usize, &'b mut [Keyed])>, Vec<Counts>) {
    let gbits = order::group_bits(docs.len(), 64);
    let low = 64 - gbits;
    let starts = order::partition(
        docs,
        buffer,
        gbits,
        move |d| (fp64[*d as usize] >> low) as usize,
        move |d| Keyed {
            v: fp64[*d as usize],
            d: *d,
            pad: 0,
        },
    );
    let lowmask = (1u64 << low) - 1;
    let mut regions = order::regions(buffer, &starts);
    let counts = regions
        .par_iter_mut()
        .map_init(order::Scratch::default, |s, (_, r)| {
            order::sort_region(
                r,
                s,
                low,
                move |k| k.v & lowmask,
                |t| t.sort_unstable_by_key(|k| (k.v, k.d)),
            );
            count_region(r, fp128)
        })
        .collect();
    (regions, counts)
}

/// Orders each run of equal 64-bit values of a sorted region by 128-bit value (so its units
/// are runs), and counts the region's values and units.
fn count_region(r: &mut [Keyed], fp128: &[[u64; 2]]) -> Counts {
    let mut c = Counts {
        values: 0,
        units: 0,
    };
    let mut i = 0;
    while i < r.len() {
        let mut j = i + 1;
        while j < r.len() && r[j].v == r[i].v {
            j += 1;
        }
        c.values += 1;
        c.units += 1;
        if j - i > 1 {
            r[i..j].sort_unstable_by_key(|k| (fp128[k.d as usize], k.d));
            c.units += (i + 1..j)
                .filter(|m| unit_start(r, *m, fp128).is_some())
                .count();
        }
        i = j;
    }
    c
}

/// One region's share of the outputs.
struct Part<'a> {
    /// Position of the region's first document.
    base: u32,
    /// The region's first unit.
    u0: u32,
    sorted: &'a [Keyed],
    values: &'a mut [u64],
    value_units: &'a mut [u32],
    starts: &'a mut [u32],
    members: &'a mut [u32],
}

/// Writes the outputs of every region in parallel, each at the place the counts before it
/// give; returns the pairs of units sharing a value.
fn fill(
    out: &mut Collapsed,
    regions: Vec<(usize, &mut [Keyed])>,
    counts: &[Counts],
    fp128: &[[u64; 2]],
) -> Vec<Edge> {
    let total_values: usize = counts.iter().map(|c| c.values).sum();
    let total_units: usize = counts.iter().map(|c| c.units).sum();
    out.values = vec![0u64; total_values];
    out.value_units = vec![0u32; total_values + 1];
    out.starts = vec![0u32; total_units + 1];
    out.value_units[total_values] = total_units as u32;
    out.starts[total_units] = out.members.len() as u32;
    let mut parts = Vec::with_capacity(regions.len());
    let (mut values, mut value_units, mut starts, mut members) = (
        &mut out.values[..],
        &mut out.value_units[..total_values],
        &mut out.starts[..total_units],
        &mut out.members[..],
    );
    let mut u0 = 0u32;
    for ((base, sorted), c) in regions.into_iter().zip(counts) {
        let (v, vt) = values.split_at_mut(c.values);
        let (vu, vut) = value_units.split_at_mut(c.values);
        let (st, stt) = starts.split_at_mut(c.units);
        let (m, mt) = members.split_at_mut(sorted.len());
        parts.push(Part {
            base: base as u32,
            u0,
            sorted,
            values: v,
            value_units: vu,
            starts: st,
            members: m,
        });
        u0 += c.units as u32;
        (values, value_units, starts, members) = (vt, vut, stt, mt);
    }
    parts
        .into_par_iter()
        .flat_map_iter(|p| p.fill(fp128))
        .collect()
}

impl Part<'_> {
    /// Lists the region's members, values and units; returns its pairs of units sharing a
    /// value.
    fn fill(self, fp128: &[[u64; 2]]) -> Vec<Edge> {
        let r = self.sorted;
        let (mut x, mut unit) = (0, 0);
        // Units of the current value, as (unit, first position), while it has several.
        let (mut open, mut same) = (Vec::<(u32, usize)>::new(), Vec::new());
        let fp = |i: usize| fp128[r[i].d as usize];
        for i in 0..r.len() {
            self.members[i] = r[i].d;
            let Some(new_value) = unit_start(r, i, fp128) else {
                continue;
            };
            let u = self.u0 + unit as u32;
            if new_value {
                self.values[x] = r[i].v;
                self.value_units[x] = u;
                x += 1;
                open.clear();
            }
            for &(v, at) in &open {
                same.push(Edge::new(v, u, 0, dist128(fp(at), fp(i))));
            }
            open.push((u, i));
            self.starts[unit] = self.base + i as u32;
            unit += 1;
        }
        same
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
