//! The CPU backend of the Hamming join, and the brute-force reference it is tested against.
//!
//! Identical fingerprints are collapsed first (CopyCat step 2): the plan runs on distinct
//! 64-bit values, and each group of identical ones becomes pairs at distance 0 afterwards. Per
//! table, the distinct values are sorted by their masked key and every pair inside a run of
//! equal keys is compared with one XOR and one popcount. A pair is kept only by the first table
//! in which it collides, so no pair is reported twice. Large runs (skewed keys: templated sites,
//! near-empty pages) are split by rows across the pool rather than left to one thread.
//!
//! Consecutive tables that share key bits (pigeonhole tables keyed on several blocks: 84
//! tables of 3 of 9 blocks at tau 6) are joined as a family: one order by the shared bits,
//! then each run of equal shared bits is sorted by the rest of each table's key in turn while
//! it sits in cache, so the whole-array sort is paid once per family rather than per table.

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
    let runs = |r: &mut [u64], base: usize| {
        let mut out = Vec::new();
        for_runs(r, mask, |s, e| {
            out.push(((base + s) as u32, (base + e) as u32))
        });
        out
    };
    sorted_regions(values, entries, mask, runs)
}

/// The first step of a family's order, for the GPU driver: the distinct fingerprints sorted
/// by the bits `shared` into `entries`; returns the starts of the order's regions and its end
/// (runs of equal shared bits never cross regions). [`family_runs`] then orders it by each
/// table of the family in turn.
pub(crate) fn family_order(values: &[u64], shared: u64, entries: &mut Vec<u64>) -> Vec<usize> {
    let mut starts: Vec<usize> = sorted_regions(values, entries, shared, |_, base| base);
    starts.push(values.len());
    starts
}

/// One table of a family, for the GPU driver: every run of equal `shared` bits of the order
/// `entries` (regions starting at `starts`, from [`family_order`]) sorted in place by the
/// rest of the table's key `mask`, and the runs of equal keys with two or more members, as
/// ranges of `entries` (one list per region).
pub(crate) fn family_runs(
    entries: &mut [u64],
    starts: &[usize],
    shared: u64,
    mask: u64,
) -> Vec<Vec<(u32, u32)>> {
    let kb = &KeyBits::new(mask & !shared);
    order::regions(entries, starts)
        .into_par_iter()
        .map_init(order::Scratch::default, |scratch, (base, region)| {
            let mut shared_runs = Vec::new();
            for_runs(region, shared, |s, e| shared_runs.push((s, e)));
            let mut out = Vec::new();
            for (s, e) in shared_runs {
                let run = &mut region[s..e];
                sort_by_bits(run, scratch, kb);
                let at = base + s;
                for_runs(run, mask, |a, b| {
                    out.push(((at + a) as u32, (at + b) as u32))
                });
            }
            out
        })
        .collect()
}

/// Sorts a run of a family's order (equal shared bits) in place by the rest of one table's
/// key, `kb`.
fn sort_by_bits(run: &mut [u64], scratch: &mut order::Scratch<u64>, kb: &KeyBits) {
    let key = |v: &u64| kb.key(*v);
    order::sort_region(run, scratch, kb.bits, key, |t| t.sort_unstable_by_key(key));
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
/// result, in parallel, while the region is in cache (the visitor may reorder a region's runs
/// of equal keys within themselves). Runs of equal keys never cross regions.
/// A mask of one run of bits gets a loop specialised to a shift and a mask.
fn sorted_regions<R: Send>(
    values: &[u64],
    entries: &mut Vec<u64>,
    mask: u64,
    visit: impl Fn(&mut [u64], usize) -> R + Sync,
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
    visit: impl Fn(&mut [u64], usize) -> R + Sync,
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
    let scan = |r: &mut [u64], base: usize| Found::scan(r, base, mask, tau, earlier);
    // A key made of the top bits orders like the values themselves, which are sorted.
    let prefix = mask != 0 && mask.leading_ones() == mask.count_ones();
    let (parts, order): (Vec<Found>, &[u64]) = if prefix {
        let cuts = order::cuts(values, mask, rayon::current_num_threads() * 16);
        let parts = cuts
            .par_windows(2)
            .map(|w| Found::scan(&values[w[0]..w[1]], w[0], mask, tau, earlier))
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
        found.append(&mut compare_long(&order[s..e], tau, earlier));
    }
}

/// The pairs of one long run, its rows split across the pool.
fn compare_long(run: &[u64], tau: u32, earlier: &[u64]) -> Vec<(u64, u64, u8)> {
    (0..run.len())
        .into_par_iter()
        .with_min_len(16)
        .fold(Vec::new, |mut out, i| {
            compare_rows(run, i..i + 1, tau, earlier, &mut out);
            out
        })
        .reduce(Vec::new, |mut a, mut b| {
            a.append(&mut b);
            a
        })
}

/// Consecutive tables of `tables` that share key bits, as (shared mask, table indices): at
/// least enough bits that `n` values spread evenly leave about eight thousand or fewer in a
/// run of equal shared bits (64 KiB, in a core's cache). Tables in no family stand alone, as
/// a family of one whose shared mask is their own.
pub(crate) fn families(tables: &[u64], n: usize) -> Vec<(u64, std::ops::Range<usize>)> {
    let log = usize::BITS - n.leading_zeros();
    let min_bits = log.saturating_sub(13).max(4);
    let mut out = Vec::new();
    let mut t = 0;
    while t < tables.len() {
        let (mut shared, mut e) = (tables[t], t + 1);
        while e < tables.len() && (shared & tables[e]).count_ones() >= min_bits {
            shared &= tables[e];
            e += 1;
        }
        out.push((shared, t..e));
        t = e;
    }
    out
}

/// Pairs of the family `(shared, range)`: the tables `range` of `plan`, which share the key
/// bits `shared` (see [`families`]). The values are ordered once by the shared bits, then each
/// run of equal shared bits is sorted in place by the rest of one table's key after another
/// and scanned while it is in cache. Each table still keeps only the pairs no earlier table of
/// the plan finds.
fn join_family(
    values: &[u64],
    (shared, range): (u64, std::ops::Range<usize>),
    plan: &Plan,
    tau: u32,
    entries: &mut Vec<u64>,
    stats: &mut JoinStats,
    found: &mut Vec<(u64, u64, u8)>,
) {
    let tables = &plan.tables[range.clone()];
    let rest: Vec<KeyBits> = tables.iter().map(|m| KeyBits::new(m & !shared)).collect();
    // Per region: what each table found, and the long runs (table, members) copied out.
    let visit = |region: &mut [u64], _| {
        let mut out: Vec<Found> = tables.iter().map(|_| Found::default()).collect();
        let mut long: Vec<(usize, Vec<u64>)> = Vec::new();
        let mut runs = Vec::new();
        for_runs(region, shared, |s, e| runs.push((s, e)));
        let mut scratch = order::Scratch::default();
        for (s, e) in runs {
            let run = &mut region[s..e];
            for (j, kb) in rest.iter().enumerate() {
                sort_by_bits(run, &mut scratch, kb);
                let earlier = &plan.tables[..range.start + j];
                let f = &mut out[j];
                for_runs(run, tables[j], |s, e| {
                    let len = e - s;
                    f.runs.add_run(len as u64);
                    if len <= SPLIT_RUN {
                        compare_rows(&run[s..e], 0..len, tau, earlier, &mut f.pairs);
                    } else {
                        long.push((j, run[s..e].to_vec()));
                    }
                });
            }
        }
        (out, long)
    };
    let parts = sorted_regions(values, entries, shared, visit);
    // Table by table, so that each one's pairs and statistics are added in plan order.
    let mut per_table: Vec<Vec<Found>> = tables.iter().map(|_| Vec::new()).collect();
    let mut long_runs: Vec<Vec<Vec<u64>>> = tables.iter().map(|_| Vec::new()).collect();
    for (part, long) in parts {
        for (j, f) in part.into_iter().enumerate() {
            per_table[j].push(f);
        }
        for (j, run) in long {
            long_runs[j].push(run);
        }
    }
    for (j, (parts, long)) in per_table.into_iter().zip(long_runs).enumerate() {
        let earlier = &plan.tables[..range.start + j];
        for mut p in parts {
            stats.comparisons += p.runs.comparisons;
            stats.largest_run = stats.largest_run.max(p.runs.largest_run);
            found.append(&mut p.pairs);
        }
        for run in long {
            found.append(&mut compare_long(&run, tau, earlier));
        }
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
    for (shared, range) in families(&plan.tables, values.len()) {
        if range.len() == 1 {
            let t = range.start;
            let earlier = &plan.tables[..t];
            join_table(
                values,
                plan.tables[t],
                tau,
                earlier,
                &mut entries,
                stats,
                &mut found,
            );
        } else {
            join_family(
                values,
                (shared, range),
                plan,
                tau,
                &mut entries,
                stats,
                &mut found,
            );
        }
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

#[cfg(test)]
mod tests {
    use super::families;
    use crate::join::plan::{pigeonhole, random};

    /// Families cover every table once, in plan order, and share enough bits for their runs.
    #[test]
    fn families_cover_the_plan_in_order_with_enough_shared_bits() {
        for (n, m, tau) in [
            (1000, 8, 6),
            (1 << 20, 9, 6),
            (82_500_000, 9, 6),
            (1 << 20, 4, 3),
        ] {
            let plan = pigeonhole(m, tau);
            let fams = families(&plan.tables, n);
            let mut next = 0;
            for (shared, range) in &fams {
                assert_eq!(range.start, next);
                next = range.end;
                for t in range.clone() {
                    assert_eq!(
                        plan.tables[t] & shared,
                        *shared,
                        "shared bits outside table {t}"
                    );
                }
                if range.len() > 1 {
                    let need = (usize::BITS - n.leading_zeros()).saturating_sub(13).max(4);
                    assert!(shared.count_ones() >= need, "{n}: {shared:#x}");
                }
            }
            assert_eq!(next, plan.tables.len());
            // Tables of several blocks do share, single blocks cannot.
            let joined = fams.iter().filter(|(_, r)| r.len() > 1).count();
            assert_eq!(joined > 0, m - tau as usize > 1, "{}", plan.name);
            assert!(fams.len() < plan.tables.len() || m - tau as usize == 1);
        }
        // Random samples rarely share enough; whatever they share, each table is one of a family.
        let plan = random(16, 20, 3);
        let count: usize = families(&plan.tables, 1 << 20)
            .iter()
            .map(|(_, r)| r.len())
            .sum();
        assert_eq!(count, 20);
    }
}
