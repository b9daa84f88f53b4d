//! The CPU backend of the Hamming join, and the brute-force reference it is tested against.
//!
//! Identical fingerprints are collapsed first (CopyCat step 2): the plan runs on distinct
//! 64-bit values, and each group of identical ones becomes pairs at distance 0 afterwards. Per
//! table, the distinct values are sorted by their masked key and every pair inside a run of
//! equal keys is compared with one XOR and one popcount. A pair is kept only by the first table
//! in which it collides, so no pair is reported twice. Large runs (skewed keys: templated sites,
//! near-empty pages) are split by rows across the pool rather than left to one thread.

use rayon::prelude::*;

use super::graph::{collapse, PairGraph};
use super::plan::Plan;
use super::{JoinStats, Pair};

/// Runs longer than this are split by rows across threads.
const SPLIT_RUN: usize = 1024;

/// Hamming distance of 128-bit fingerprints stored as (low, high).
#[inline]
pub fn dist128(a: [u64; 2], b: [u64; 2]) -> u32 {
    (a[0] ^ b[0]).count_ones() + (a[1] ^ b[1]).count_ones()
}

fn pair(a: u32, b: u32, d64: u32, fp128: &[[u64; 2]]) -> Pair {
    let (a, b) = if a < b { (a, b) } else { (b, a) };
    let d128 = dist128(fp128[a as usize], fp128[b as usize]);
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
    fp128: &[[u64; 2]],
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

/// Gathers the bits of a mask into a dense key (a software `pext` over the mask's runs of
/// consecutive bits; pigeonhole masks have one run per block).
struct KeyBits {
    /// (shift, run mask, output shift) per run.
    runs: Vec<(u32, u64, u32)>,
    bits: u32,
}

impl KeyBits {
    fn new(mask: u64) -> Self {
        let mut runs = Vec::new();
        let (mut bit, mut out) = (0u32, 0u32);
        while bit < 64 {
            if mask >> bit & 1 == 0 {
                bit += 1;
                continue;
            }
            let len = (mask >> bit).trailing_ones();
            let run = if len == 64 {
                u64::MAX
            } else {
                (1u64 << len) - 1
            };
            runs.push((bit, run, out));
            out += len;
            bit += len;
        }
        KeyBits { runs, bits: out }
    }

    #[inline]
    fn key(&self, v: u64) -> u64 {
        self.runs.iter().fold(0, |acc, &(shift, run, out)| {
            acc | ((v >> shift) & run) << out
        })
    }
}

/// Runs of equal keys for one table: indices into `values`, grouped. Keys of up to 20 bits
/// are bucketed by a counting sort alone (each bucket is a run); longer keys are bucketed by
/// their top bits and each bucket sorted.
fn runs_of(values: &[u64], mask: u64) -> (Vec<u32>, Vec<(usize, usize)>) {
    let kb = KeyBits::new(mask);
    let keys: Vec<u64> = values.par_iter().map(|v| kb.key(*v)).collect();
    let size_bits = usize::BITS - values.len().leading_zeros();
    let top = kb.bits.min(20).min(size_bits + 2);
    let low = kb.bits - top;
    let mut starts = vec![0u32; (1usize << top) + 1];
    for k in &keys {
        starts[(k >> low) as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut fill = starts.clone();
    let mut order = vec![0u32; values.len()];
    for (i, k) in keys.iter().enumerate() {
        let b = (k >> low) as usize;
        order[fill[b] as usize] = i as u32;
        fill[b] += 1;
    }
    let mut runs = Vec::new();
    for w in starts.windows(2) {
        let (s, e) = (w[0] as usize, w[1] as usize);
        if e - s < 2 {
            continue;
        }
        if low == 0 {
            runs.push((s, e));
            continue;
        }
        order[s..e].sort_unstable_by_key(|i| keys[*i as usize]);
        let mut start = s;
        for i in s + 1..=e {
            if i == e || keys[order[i] as usize] != keys[order[start] as usize] {
                if i - start > 1 {
                    runs.push((start, i));
                }
                start = i;
            }
        }
    }
    (order, runs)
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
        let (order, runs) = runs_of(values, mask);
        stats.comparisons += runs
            .iter()
            .map(|(s, e)| ((e - s) * (e - s - 1) / 2) as u64)
            .sum::<u64>();
        stats.largest_run = stats
            .largest_run
            .max(runs.iter().map(|(s, e)| e - s).max().unwrap_or(0) as u64);
        let compare_row = |run: &[u32], fps: &[u64], i: usize, out: &mut Vec<(u32, u32, u8)>| {
            let fi = fps[i];
            for (j, &fj) in fps.iter().enumerate().skip(i + 1) {
                let x = fi ^ fj;
                let d = x.count_ones();
                if d <= tau && earlier.iter().all(|m| x & m != 0) {
                    let (a, b) = (run[i], run[j]);
                    out.push((a.min(b), a.max(b), d as u8));
                }
            }
        };
        let per_run: Vec<Vec<(u32, u32, u8)>> = runs
            .par_iter()
            .map(|&(s, e)| {
                let run = &order[s..e];
                let fps: Vec<u64> = run.iter().map(|i| values[*i as usize]).collect();
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

/// Self-join of `docs` under `plan` in the compact form: units of identical fingerprints and
/// the edges between them within `tau` (64-bit) and, when given, `tau128` (128-bit).
pub fn join_graph(
    fp64: &[u64],
    fp128: &[[u64; 2]],
    docs: &[u32],
    plan: &Plan,
    tau: u32,
    tau128: Option<u32>,
) -> (PairGraph, JoinStats) {
    let c = collapse(fp64, fp128, docs);
    let mut stats = JoinStats {
        documents: docs.len() as u64,
        distinct: c.values.len() as u64,
        tables: plan.tables.len() as u64,
        ..JoinStats::default()
    };
    let distinct = join_distinct(&c.values, plan, tau, &mut stats);
    let graph = PairGraph::from_distinct(fp64.len() as u32, c, fp128, &distinct, tau128);
    stats.exact_pairs = graph.exact_pairs()
        + graph
            .edges
            .iter()
            .filter(|e| e.d64 == 0)
            .map(|e| graph.edge_pairs(e))
            .sum::<u64>();
    stats.pairs = graph.pair_count();
    (graph, stats)
}

/// Self-join of `docs` under `plan`: pairs of documents within `tau` (64-bit) and, when given,
/// `tau128` (128-bit), sorted by (a, b) with a < b.
pub fn join(
    fp64: &[u64],
    fp128: &[[u64; 2]],
    docs: &[u32],
    plan: &Plan,
    tau: u32,
    tau128: Option<u32>,
) -> (Vec<Pair>, JoinStats) {
    let (graph, stats) = join_graph(fp64, fp128, docs, plan, tau, tau128);
    (graph.pairs(), stats)
}

#[cfg(test)]
mod tests {
    use super::KeyBits;

    #[test]
    fn key_bits_gather_the_masked_bits_in_order() {
        let mask = 0xF0F0_0000_0000_00FFu64;
        let kb = KeyBits::new(mask);
        assert_eq!(kb.bits, 16);
        assert_eq!(kb.key(0xA0B0_0000_0000_00CD), 0xAB_CD);
        assert_eq!(KeyBits::new(u64::MAX).key(0x1234), 0x1234);
        assert_eq!(KeyBits::new(0).key(u64::MAX), 0);
    }
}
