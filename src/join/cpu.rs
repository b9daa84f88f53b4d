//! The CPU backend of the Hamming join, and the brute-force reference it is tested against.
//!
//! Identical fingerprints are collapsed first (CopyCat step 2): the plan runs on distinct
//! 64-bit values, and each group of identical ones becomes pairs at distance 0 afterwards. Per
//! table, the distinct values are sorted by their masked key and every pair inside a run of
//! equal keys is compared with one XOR and one popcount. A pair is kept only by the first table
//! in which it collides, so no pair is reported twice. Large runs (skewed keys: templated sites,
//! near-empty pages) are split by rows across the pool rather than left to one thread.

use rayon::prelude::*;

use super::graph::{collapse, Collapsed, PairGraph};
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

/// One table's order: the distinct fingerprints sorted by key (into `entries`), and the runs
/// of equal keys with two or more members, as ranges of `entries` (one list per group).
///
/// Two passes, both parallel and both writing memory that stays in cache. First the values
/// are partitioned by the top bits of their key into up to 1024 groups: each input chunk
/// counts its groups, and every (group, chunk) pair gets its own slice of the output, so the
/// chunks scatter at once without sharing a slice. Then each group, a contiguous region of a
/// few thousand to a few hundred thousand values, is sorted by the rest of its key (a local
/// counting sort, then the few buckets with several members sorted), and its runs found. The
/// fingerprints themselves are sorted, not indices into `values`, so comparing reads
/// contiguous memory; the rare pairs found are mapped back by binary search.
pub(crate) fn runs_of(values: &[u64], mask: u64, entries: &mut Vec<u64>) -> Vec<Vec<(u32, u32)>> {
    let kb = KeyBits::new(mask);
    let n = values.len();
    entries.clear();
    entries.resize(n, 0);
    if n == 0 {
        return Vec::new();
    }
    let gbits = kb.bits.min(10);
    let low = kb.bits - gbits;
    let ng = 1usize << gbits;
    let group = |v: u64| (kb.key(v) >> low) as usize;
    // Pass 1: partition by group.
    let chunk = n.div_ceil(rayon::current_num_threads() * 4).max(1 << 14);
    let hist: Vec<Vec<u32>> = values
        .par_chunks(chunk)
        .map(|c| {
            let mut h = vec![0u32; ng];
            for v in c {
                h[group(*v)] += 1;
            }
            h
        })
        .collect();
    let mut gstart = vec![0usize; ng + 1];
    for g in 0..ng {
        gstart[g + 1] = gstart[g] + hist.iter().map(|h| h[g] as usize).sum::<usize>();
    }
    // Output slices in (group, chunk) order, handed to each chunk as one slice per group.
    let mut per_chunk: Vec<Vec<&mut [u64]>> =
        (0..hist.len()).map(|_| Vec::with_capacity(ng)).collect();
    let mut rest = &mut entries[..];
    for g in 0..ng {
        for (c, h) in hist.iter().enumerate() {
            let (head, tail) = rest.split_at_mut(h[g] as usize);
            per_chunk[c].push(head);
            rest = tail;
        }
    }
    values
        .par_chunks(chunk)
        .zip(per_chunk.into_par_iter())
        .for_each(|(c, mut outs)| {
            let mut fill = vec![0usize; ng];
            for v in c {
                let g = group(*v);
                outs[g][fill[g]] = *v;
                fill[g] += 1;
            }
        });
    drop(hist);
    // Pass 2: each group sorted by the rest of its key, and its runs.
    let mut regions = Vec::with_capacity(ng);
    let mut rest = &mut entries[..];
    for g in 0..ng {
        let (head, tail) = rest.split_at_mut(gstart[g + 1] - gstart[g]);
        regions.push((gstart[g], head));
        rest = tail;
    }
    let lowmask = if low == 0 { 0 } else { (1u64 << low) - 1 };
    let sub = |v: u64| kb.key(v) & lowmask;
    regions
        .into_par_iter()
        .map_init(Vec::new, |tmp: &mut Vec<u64>, (base, region)| {
            let mut runs = Vec::new();
            let len = region.len();
            if len < 2 {
                return runs;
            }
            if low > 0 {
                // Counting sort on up to 16 further key bits, then sort what still ties.
                let sbits = low.min(16).min(usize::BITS - len.leading_zeros() + 1);
                let shift = low - sbits;
                let nb = 1usize << sbits;
                let mut fill = vec![0u32; nb + 1];
                for v in region.iter() {
                    fill[(sub(*v) >> shift) as usize + 1] += 1;
                }
                for i in 1..fill.len() {
                    fill[i] += fill[i - 1];
                }
                tmp.clear();
                tmp.extend_from_slice(region);
                let starts = fill.clone();
                for v in tmp.iter() {
                    let b = (sub(*v) >> shift) as usize;
                    region[fill[b] as usize] = *v;
                    fill[b] += 1;
                }
                if shift > 0 {
                    for w in starts.windows(2) {
                        let (s, e) = (w[0] as usize, w[1] as usize);
                        if e - s > 1 {
                            region[s..e].sort_unstable_by_key(|v| sub(*v));
                        }
                    }
                }
            }
            let mut start = 0;
            for i in 1..=len {
                if i == len || sub(region[i]) != sub(region[start]) {
                    if i - start > 1 {
                        runs.push(((base + start) as u32, (base + i) as u32));
                    }
                    start = i;
                }
            }
            runs
        })
        .collect()
}

/// Compares rows `rows` of a run of fingerprints with every later member, keeping pairs
/// within `tau` that no earlier table could have found.
#[inline]
fn compare_rows(
    run: &[u64],
    rows: std::ops::Range<usize>,
    tau: u32,
    earlier: &[u64],
    out: &mut Vec<(u64, u64, u8)>,
) {
    for i in rows {
        let fi = run[i];
        for &fj in &run[i + 1..] {
            let x = fi ^ fj;
            let d = x.count_ones();
            if d <= tau && earlier.iter().all(|m| x & m != 0) {
                out.push((fi, fj, d as u8));
            }
        }
    }
}

/// Pairs of distinct values (indices into `values`, with their distance) found by `plan`.
fn join_distinct(
    values: &[u64],
    plan: &Plan,
    tau: u32,
    stats: &mut JoinStats,
) -> Vec<(u32, u32, u8)> {
    let mut found: Vec<(u64, u64, u8)> = Vec::new();
    // One buffer for every table: its pages are touched once, not once per table.
    let mut entries = Vec::new();
    for (t, &mask) in plan.tables.iter().enumerate() {
        let earlier = &plan.tables[..t];
        let groups = runs_of(values, mask, &mut entries);
        let runs = || {
            groups
                .iter()
                .flatten()
                .map(|&(s, e)| (s as usize, e as usize))
        };
        count_runs(&groups, stats);
        // Short runs (nearly all of them) are batched per thread with no allocation per run;
        // long ones are split by rows across the pool.
        let mut batch: Vec<(u64, u64, u8)> = groups
            .par_iter()
            .flat_map(|g| g.par_chunks(1024))
            .fold(Vec::new, |mut out, chunk| {
                for &(s, e) in chunk {
                    let (s, e) = (s as usize, e as usize);
                    if e - s <= SPLIT_RUN {
                        compare_rows(&entries[s..e], 0..e - s, tau, earlier, &mut out);
                    }
                }
                out
            })
            .reduce(Vec::new, |mut a, mut b| {
                a.append(&mut b);
                a
            });
        found.append(&mut batch);
        for (s, e) in runs().filter(|(s, e)| e - s > SPLIT_RUN) {
            let run = &entries[s..e];
            let mut rows: Vec<(u64, u64, u8)> = (0..run.len())
                .into_par_iter()
                .with_min_len(16)
                .fold(Vec::new, |mut out, i| {
                    compare_rows(run, i..i + 1, tau, earlier, &mut out);
                    out
                })
                .reduce(Vec::new, |mut a, mut b| {
                    a.append(&mut b);
                    a
                });
            found.append(&mut rows);
        }
    }
    to_indices(values, &found)
}

/// Maps pairs of fingerprints found by a table scan back to indices into `values` (sorted,
/// distinct), lower index first.
pub(crate) fn to_indices(values: &[u64], found: &[(u64, u64, u8)]) -> Vec<(u32, u32, u8)> {
    let index = |v: u64| values.partition_point(|x| *x < v) as u32;
    found
        .par_iter()
        .map(|&(x, y, d)| {
            let (a, b) = (index(x), index(y));
            (a.min(b), a.max(b), d)
        })
        .collect()
}

/// Table statistics of one table's runs.
pub(crate) fn count_runs(groups: &[Vec<(u32, u32)>], stats: &mut JoinStats) {
    for &(s, e) in groups.iter().flatten() {
        let len = u64::from(e - s);
        stats.comparisons += len * (len - 1) / 2;
        stats.largest_run = stats.largest_run.max(len);
    }
}

/// Self-join of `docs` under `plan` in the compact form: units of identical fingerprints and
/// the edges between them within `tau` (64-bit) and, when given, `tau128` (128-bit).
pub fn join_graph(
    fp64: &[u64],
    fp128: &[[u64; 2]],
    docs: Vec<u32>,
    plan: &Plan,
    tau: u32,
    tau128: Option<u32>,
) -> (PairGraph, JoinStats) {
    let (c, mut stats) = start(fp64, fp128, docs, plan);
    let distinct = join_distinct(&c.values, plan, tau, &mut stats);
    finish(fp64.len() as u32, c, fp128, &distinct, tau128, stats)
}

/// The first step of a join on either backend: identical fingerprints collapsed, and the
/// statistics known before any table runs.
pub(crate) fn start(
    fp64: &[u64],
    fp128: &[[u64; 2]],
    docs: Vec<u32>,
    plan: &Plan,
) -> (Collapsed, JoinStats) {
    let documents = docs.len() as u64;
    let c = collapse(fp64, fp128, docs);
    let stats = JoinStats {
        documents,
        distinct: c.values.len() as u64,
        tables: plan.tables.len() as u64,
        ..JoinStats::default()
    };
    (c, stats)
}

/// The graph of a join's distinct-value pairs, and the final counts.
pub(crate) fn finish(
    docs: u32,
    c: Collapsed,
    fp128: &[[u64; 2]],
    distinct: &[(u32, u32, u8)],
    tau128: Option<u32>,
    mut stats: JoinStats,
) -> (PairGraph, JoinStats) {
    let graph = PairGraph::from_distinct(docs, c, fp128, distinct, tau128);
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
    let (graph, stats) = join_graph(fp64, fp128, docs.to_vec(), plan, tau, tau128);
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
