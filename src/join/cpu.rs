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
use super::order::{self, KeyBits};
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
    let d128 = dist128(fp128[a as usize], fp128[b as usize]);
    Pair::new(a, b, d64 as u8, d128 as u8)
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

/// One table's order, for the GPU driver: the distinct fingerprints sorted by key (into
/// `entries`), and the runs of equal keys with two or more members, as ranges of `entries`
/// (one list per region of the sort).
pub(crate) fn runs_of(values: &[u64], mask: u64, entries: &mut Vec<u64>) -> Vec<Vec<(u32, u32)>> {
    let runs = |r: &[u64], base: usize| {
        let mut out = Vec::new();
        for_runs(r, mask, |s, e| {
            out.push(((base + s) as u32, (base + e) as u32))
        });
        out
    };
    sorted_regions(values, entries, mask, runs)
}

/// Calls `f(start, end)` for every run of two or more values with equal masked bits in
/// `sorted` (sorted by those bits).
#[inline]
fn for_runs(sorted: &[u64], mask: u64, mut f: impl FnMut(usize, usize)) {
    let n = sorted.len();
    let mut start = 0;
    for i in 1..=n {
        if i == n || (sorted[i] ^ sorted[start]) & mask != 0 {
            if i - start > 1 {
                f(start, i);
            }
            start = i;
        }
    }
}

/// Sorts `values` by their bits under `mask` into `entries` with the two-pass counting sort
/// of [`order`](super::order), and calls `visit(region, offset)` on each region of the
/// result, in parallel, while the region is in cache. Runs of equal keys never cross regions.
/// A mask of one run of bits gets a loop specialised to a shift and a mask.
fn sorted_regions<R: Send>(
    values: &[u64],
    entries: &mut Vec<u64>,
    mask: u64,
    visit: impl Fn(&[u64], usize) -> R + Sync,
) -> Vec<R> {
    let kb = KeyBits::new(mask);
    match kb.single() {
        Some((shift, run)) => sorted_by(values, entries, kb.bits, move |v| v >> shift & run, visit),
        None => sorted_by(values, entries, kb.bits, |v| kb.key(v), visit),
    }
}

/// [`sorted_regions`] with the key (of `bits` bits) as a function.
fn sorted_by<R: Send>(
    values: &[u64],
    entries: &mut Vec<u64>,
    bits: u32,
    key: impl Fn(u64) -> u64 + Sync,
    visit: impl Fn(&[u64], usize) -> R + Sync,
) -> Vec<R> {
    let n = values.len();
    // Every entry is overwritten below: a buffer at least this long (the collapse's, already
    // faulted in) is cut to length, only a shorter one is replaced.
    if entries.len() >= n {
        entries.truncate(n);
        entries.shrink_to_fit();
    } else {
        *entries = vec![0; n];
    }
    let entries = &mut entries[..];
    if n == 0 {
        return Vec::new();
    }
    let gbits = order::group_bits(n, bits);
    let low = bits - gbits;
    let lowmask = if low == 0 { 0 } else { (1u64 << low) - 1 };
    let key = &key;
    let starts = order::partition(
        values,
        entries,
        gbits,
        move |v| (key(*v) >> low) as usize,
        |v| *v,
    );
    let sub = move |v: &u64| key(*v) & lowmask;
    order::regions(entries, &starts)
        .into_par_iter()
        .map_init(order::Scratch::default, |s, (base, region)| {
            order::sort_region(region, s, low, sub, |t| t.sort_unstable_by_key(sub));
            visit(region, base)
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

/// What the scan of part of one table's order found.
#[derive(Default)]
struct Found {
    /// Pairs of values within tau, first found by this table.
    pairs: Vec<(u64, u64, u8)>,
    /// Runs longer than [`SPLIT_RUN`], as ranges of the order, left for a parallel pass.
    long: Vec<(usize, usize)>,
    /// Comparisons and the largest run, counted as in a join's statistics.
    runs: JoinStats,
}

impl Found {
    /// Scans `sorted` (part of a table's order beginning at `base`, cut between runs):
    /// compares the members of each short run at once, notes the long ones.
    fn scan(sorted: &[u64], base: usize, mask: u64, tau: u32, earlier: &[u64]) -> Found {
        let mut f = Found::default();
        for_runs(sorted, mask, |s, e| {
            let len = e - s;
            f.runs.add_run(len as u64);
            if len <= SPLIT_RUN {
                compare_rows(&sorted[s..e], 0..len, tau, earlier, &mut f.pairs);
            } else {
                f.long.push((base + s, base + e));
            }
        });
        f
    }
}

/// Pairs of one table: short runs compared region by region as the order is built, long runs
/// split by rows across the pool.
fn join_table(
    values: &[u64],
    mask: u64,
    tau: u32,
    earlier: &[u64],
    entries: &mut Vec<u64>,
    stats: &mut JoinStats,
    found: &mut Vec<(u64, u64, u8)>,
) {
    let scan = |r: &[u64], base: usize| Found::scan(r, base, mask, tau, earlier);
    // A key made of the top bits orders like the values themselves, which are sorted.
    let prefix = mask != 0 && mask.leading_ones() == mask.count_ones();
    let (parts, order): (Vec<Found>, &[u64]) = if prefix {
        let cuts = order::cuts(values, mask, rayon::current_num_threads() * 16);
        let parts = cuts
            .par_windows(2)
            .map(|w| scan(&values[w[0]..w[1]], w[0]))
            .collect();
        (parts, values)
    } else {
        let parts = sorted_regions(values, entries, mask, scan);
        (parts, &entries[..])
    };
    let mut long = Vec::new();
    for mut p in parts {
        stats.comparisons += p.runs.comparisons;
        stats.largest_run = stats.largest_run.max(p.runs.largest_run);
        found.append(&mut p.pairs);
        long.append(&mut p.long);
    }
    for (s, e) in long {
        let run = &order[s..e];
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

/// Pairs of distinct values (indices into `values`, with their distance) found by `plan`.
fn join_distinct(
    values: &[u64],
    plan: &Plan,
    tau: u32,
    stats: &mut JoinStats,
    mut entries: Vec<u64>,
) -> Vec<(u32, u32, u8)> {
    let mut found: Vec<(u64, u64, u8)> = Vec::new();
    // One buffer for every table (`entries`, the collapse's sort buffer where given): its
    // pages are touched once, not once per table.
    for (t, &mask) in plan.tables.iter().enumerate() {
        let earlier = &plan.tables[..t];
        join_table(values, mask, tau, earlier, &mut entries, stats, &mut found);
    }
    to_indices(values, &found)
}

/// Maps pairs of fingerprints found by a table scan back to indices into `values` (sorted,
/// distinct), lower index first, sorted.
pub(crate) fn to_indices(values: &[u64], found: &[(u64, u64, u8)]) -> Vec<(u32, u32, u8)> {
    if found.is_empty() {
        return Vec::new();
    }
    let at = order::Positions::new(values);
    let mut pairs: Vec<(u32, u32, u8)> = found
        .par_iter()
        .map(|&(x, y, d)| {
            let (a, b) = (at.of(x) as u32, at.of(y) as u32);
            (a.min(b), a.max(b), d)
        })
        .collect();
    // In value order, the graph reads each pair's first side front to back.
    pairs.par_sort_unstable();
    pairs
}

/// Table statistics of one table's runs.
pub(crate) fn count_runs(groups: &[Vec<(u32, u32)>], stats: &mut JoinStats) {
    for &(s, e) in groups.iter().flatten() {
        stats.add_run(u64::from(e - s));
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
    let (mut c, mut stats) = start(fp64, fp128, docs, plan);
    let scratch = std::mem::take(&mut c.scratch);
    let distinct = join_distinct(&c.values, plan, tau, &mut stats, scratch);
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
    stats.pairs = graph.pair_count();
    // Pairs at 64-bit distance 0: all of them but those of the edges at a positive distance.
    stats.exact_pairs = stats.pairs
        - graph
            .edges
            .iter()
            .filter(|e| e.d64 > 0)
            .map(|e| graph.edge_pairs(e))
            .sum::<u64>();
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
