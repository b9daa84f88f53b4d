//! The CPU backend of the Hamming join, and the brute-force reference it is tested against.
//!
//! Identical fingerprints are collapsed first (CopyCat step 2): the plan runs on distinct
//! 64-bit values, and each group of identical ones becomes pairs at distance 0 afterwards. Per
//! table, the distinct values are sorted by their masked key and every pair inside a run of
//! equal keys is compared with one XOR and one popcount. A pair is kept only by the first table
//! in which it collides, so no pair is reported twice. Large runs (skewed keys: templated sites,
//! near-empty pages) are split by rows across the pool rather than left to one thread.

use rayon::prelude::*;

use super::plan::Plan;
use super::{JoinStats, Pair};

/// Runs longer than this are split by rows across threads.
const SPLIT_RUN: usize = 1024;

/// Hamming distance of 128-bit fingerprints stored as (low, high).
#[inline]
pub fn dist128(a: [u64; 2], b: [u64; 2]) -> u32 {
    (a[0] ^ b[0]).count_ones() + (a[1] ^ b[1]).count_ones()
}

fn pair(a: u32, b: u32, d64: u32, fp128: Option<&[[u64; 2]]>) -> Pair {
    let (a, b) = if a < b { (a, b) } else { (b, a) };
    let d128 = fp128.map_or(0, |f| dist128(f[a as usize], f[b as usize]));
    Pair {
        a,
        b,
        d64: d64 as u8,
        d128: d128 as u8,
    }
}

/// Every pair of `docs` within `tau` (and `tau128`, when given), compared one by one.
pub fn brute_force(
    fp64: &[u64],
    fp128: Option<&[[u64; 2]]>,
    docs: &[u32],
    tau: u32,
    tau128: Option<u32>,
) -> Vec<Pair> {
    let mut out = Vec::new();
    for (i, &a) in docs.iter().enumerate() {
        for &b in &docs[i + 1..] {
            let d = (fp64[a as usize] ^ fp64[b as usize]).count_ones();
            if d <= tau {
                let p = pair(a, b, d, fp128);
                if tau128.is_none_or(|t| u32::from(p.d128) <= t) {
                    out.push(p);
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// Distinct fingerprints and the documents that share each.
struct Collapsed {
    values: Vec<u64>,
    /// Documents sorted by fingerprint; group g is `members[starts[g]..starts[g + 1]]`.
    members: Vec<u32>,
    starts: Vec<usize>,
}

fn collapse(fp64: &[u64], docs: &[u32]) -> Collapsed {
    let mut members = docs.to_vec();
    members.par_sort_unstable_by_key(|d| (fp64[*d as usize], *d));
    let mut values = Vec::new();
    let mut starts = Vec::new();
    for (i, d) in members.iter().enumerate() {
        let v = fp64[*d as usize];
        if values.last() != Some(&v) {
            values.push(v);
            starts.push(i);
        }
    }
    starts.push(members.len());
    Collapsed {
        values,
        members,
        starts,
    }
}

/// Pairs of distinct values (indices into `values`, with their distance) found by `plan`.
fn join_distinct(
    values: &[u64],
    plan: &Plan,
    tau: u32,
    stats: &mut JoinStats,
) -> Vec<(u32, u32, u8)> {
    let mut found = Vec::new();
    for (t, &mask) in plan.tables.iter().enumerate() {
        let earlier = &plan.tables[..t];
        let mut keyed: Vec<(u64, u32)> = values
            .iter()
            .enumerate()
            .map(|(i, v)| (v & mask, i as u32))
            .collect();
        keyed.par_sort_unstable();
        let mut runs = Vec::new();
        let mut start = 0;
        for i in 1..=keyed.len() {
            if i == keyed.len() || keyed[i].0 != keyed[start].0 {
                if i - start > 1 {
                    runs.push((start, i));
                }
                start = i;
            }
        }
        stats.comparisons += runs
            .iter()
            .map(|(s, e)| ((e - s) * (e - s - 1) / 2) as u64)
            .sum::<u64>();
        stats.largest_run = stats
            .largest_run
            .max(runs.iter().map(|(s, e)| e - s).max().unwrap_or(0) as u64);
        let compare_row =
            |run: &[(u64, u32)], fps: &[u64], i: usize, out: &mut Vec<(u32, u32, u8)>| {
                let fi = fps[i];
                for (j, &fj) in fps.iter().enumerate().skip(i + 1) {
                    let x = fi ^ fj;
                    let d = x.count_ones();
                    if d <= tau && earlier.iter().all(|m| x & m != 0) {
                        let (a, b) = (run[i].1, run[j].1);
                        out.push((a.min(b), a.max(b), d as u8));
                    }
                }
            };
        let per_run: Vec<Vec<(u32, u32, u8)>> = runs
            .par_iter()
            .map(|&(s, e)| {
                let run = &keyed[s..e];
                let fps: Vec<u64> = run.iter().map(|(_, i)| values[*i as usize]).collect();
                if run.len() <= SPLIT_RUN {
                    let mut out = Vec::new();
                    for i in 0..run.len() {
                        compare_row(run, &fps, i, &mut out);
                    }
                    out
                } else {
                    (0..run.len())
                        .into_par_iter()
                        .fold(Vec::new, |mut out, i| {
                            compare_row(run, &fps, i, &mut out);
                            out
                        })
                        .reduce(Vec::new, |mut a, mut b| {
                            a.append(&mut b);
                            a
                        })
                }
            })
            .collect();
        for mut v in per_run {
            found.append(&mut v);
        }
    }
    found
}

/// Self-join of `docs` under `plan`: pairs of documents within `tau` (64-bit) and, when given,
/// `tau128` (128-bit), sorted by (a, b) with a < b.
pub fn join(
    fp64: &[u64],
    fp128: Option<&[[u64; 2]]>,
    docs: &[u32],
    plan: &Plan,
    tau: u32,
    tau128: Option<u32>,
) -> (Vec<Pair>, JoinStats) {
    let c = collapse(fp64, docs);
    let mut stats = JoinStats {
        documents: docs.len() as u64,
        distinct: c.values.len() as u64,
        tables: plan.tables.len() as u64,
        ..JoinStats::default()
    };
    let distinct_pairs = join_distinct(&c.values, plan, tau, &mut stats);
    let group = |g: u32| &c.members[c.starts[g as usize]..c.starts[g as usize + 1]];
    let keep = |p: &Pair| tau128.is_none_or(|t| u32::from(p.d128) <= t);
    let mut pairs: Vec<Pair> = (0..c.values.len() as u32)
        .into_par_iter()
        .flat_map_iter(|g| {
            let m = group(g);
            (0..m.len())
                .flat_map(move |i| (i + 1..m.len()).map(move |j| pair(m[i], m[j], 0, fp128)))
        })
        .filter(keep)
        .collect();
    stats.exact_pairs = pairs.len() as u64;
    let near: Vec<Pair> = distinct_pairs
        .par_iter()
        .flat_map_iter(|&(u, v, d)| {
            let (gu, gv) = (group(u), group(v));
            gu.iter()
                .flat_map(move |a| gv.iter().map(move |b| pair(*a, *b, u32::from(d), fp128)))
        })
        .filter(keep)
        .collect();
    pairs.extend(near);
    pairs.par_sort_unstable();
    stats.pairs = pairs.len() as u64;
    (pairs, stats)
}
