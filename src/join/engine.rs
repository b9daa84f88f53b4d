//! The join engine: everything a join does on either backend but compare.
//!
//! Identical fingerprints are collapsed first ([`collapse`]): the plan runs on distinct
//! 64-bit values. Consecutive tables that share key bits form a family ([`families`]): the
//! values are ordered once by the shared bits, and each run of equal shared bits is then
//! sorted by the rest of one table's key after another while it sits in cache, so the
//! whole-array sort is paid once per family rather than once per table. A table keyed on the
//! top bits (a prefix) orders like the sorted values themselves and sorts nothing. Inside a
//! table's order, every run of two or more equal keys goes to the backend ([`Compare`]),
//! which compares its members and keeps the pairs within tau that no earlier table could have
//! found, so no pair is reported twice. The value pairs found map back to places among the
//! distinct values, and the graph ([`PairGraph`]) gives them back their documents.
//!
//! Two walks through a family serve the two backends (see [`Walk`]): the CPU compares a run
//! for every table of the family while the run is in cache; the GPU takes one table at a time,
//! so that it holds one table's runs, not a family's.

use rayon::prelude::*;

use super::collapse::{collapse, Collapsed};
use super::graph::{Edge, PairGraph};
use super::order::{self, KeyBits};
use super::types::{DistinctPair, JoinInput, JoinSpec, JoinStats, ValuePair};
use crate::base::hamming::dist128;

/// One table of a plan, as a backend sees it.
#[derive(Clone, Copy, Debug)]
pub struct Table<'a> {
    /// Its key mask.
    pub mask: u64,
    /// The masks of the plan's tables before it: a pair that agrees on one of them was found
    /// there and is not reported again.
    pub earlier: &'a [u64],
    /// Largest distance of a pair.
    pub tau: u32,
    /// Whether it is ordered as one of a family.
    pub in_family: bool,
}

impl Table<'_> {
    /// Whether values at XOR `x` (within tau) were first found by this table.
    #[inline]
    pub fn first_finds(&self, x: u64) -> bool {
        self.earlier.iter().all(|m| x & m != 0)
    }
}

/// A run of equal keys: positions `start..end` of a table's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// The first member's position.
    pub start: u32,
    /// One past the last member's position.
    pub end: u32,
}

impl Run {
    /// The run of `len` members found at `at` of a table's order.
    pub fn at(at: usize, len: usize) -> Run {
        Run {
            start: at as u32,
            end: (at + len) as u32,
        }
    }

    /// Members.
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    /// Whether the run has no members.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// How a backend walks a family's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walk {
    /// Each run of equal shared bits, while in cache, is ordered and scanned by every table of
    /// the family in turn; the parts of all the family's tables are held until the walk ends,
    /// and must not refer to the order (it has moved on).
    RunMajor,
    /// One table after another, each a pass over the family's order; the table's order stays
    /// in place until [`Compare::table`] has taken its parts.
    TableMajor,
}

/// A backend: compares the members of a table's runs of equal keys.
pub trait Compare: Sync {
    /// What one part of a table's order yields (a region, scanned in parallel with others).
    type Part: Send + Default;
    /// Why a table could not be joined.
    type Error;
    /// How the backend walks a family.
    const WALK: Walk;

    /// Takes one run of two or more values with equal keys, found at `at` in the table's
    /// order, into `part`; called in parallel for different parts, while the run is in cache.
    fn run(&self, t: &Table, run: &[u64], at: usize, part: &mut Self::Part);

    /// Takes a table's parts, in order, once all its runs are seen, and appends the value
    /// pairs found to `found`. `order` is the table's order except in a run-major family.
    fn table(
        &mut self,
        t: &Table,
        order: Option<&[u64]>,
        parts: Vec<Self::Part>,
        found: &mut Vec<ValuePair>,
    ) -> Result<(), Self::Error>;
}

/// Self-join of `input` as `spec` says, with the comparisons on `backend`: units of identical
/// fingerprints and the edges between them.
pub fn join<B: Compare>(
    input: JoinInput,
    spec: &JoinSpec,
    backend: &mut B,
) -> Result<(PairGraph, JoinStats), B::Error> {
    join_with(input, spec, |values, entries, stats| {
        join_values(values, spec, backend, entries, stats)
    })
}

/// Self-join of `input` with the pairs of distinct values found by `pairs_of` (given the
/// sorted distinct values, a sort buffer it may use, and the statistics to add its runs
/// to): the collapse before it and the graph after it, as [`join`] does for a backend that
/// compares runs.
pub fn join_with<E>(
    input: JoinInput,
    spec: &JoinSpec,
    pairs_of: impl FnOnce(&[u64], &mut Vec<u64>, &mut JoinStats) -> Result<Vec<ValuePair>, E>,
) -> Result<(PairGraph, JoinStats), E> {
    let JoinInput { fp64, fp128, docs } = input;
    let mut stats = JoinStats {
        documents: docs.len() as u64,
        tables: spec.plan().tables.len() as u64,
        ..JoinStats::default()
    };
    // One sort buffer for every table, the collapse's: its pages are touched once.
    let mut entries = Vec::new();
    let c = collapse(fp64, fp128, docs, &mut entries);
    stats.distinct = c.values.len() as u64;
    let found = pairs_of(&c.values, &mut entries, &mut stats)?;
    let distinct = to_indices(&c.values, &found);
    let graph = build_graph(fp64.len() as u32, c, fp128, &distinct, spec.tau128());
    stats.pairs = graph.pair_count();
    // Pairs at 64-bit distance 0: all of them but those of the edges at a positive distance.
    stats.exact_pairs = stats.pairs
        - graph
            .edges
            .iter()
            .filter(|e| e.d64 > 0)
            .map(|e| graph.edge_pairs(e))
            .sum::<u64>();
    Ok((graph, stats))
}

/// Pairs of the distinct, sorted `values` within tau, found family by family.
fn join_values<B: Compare>(
    values: &[u64],
    spec: &JoinSpec,
    backend: &mut B,
    entries: &mut Vec<u64>,
    stats: &mut JoinStats,
) -> Result<Vec<ValuePair>, B::Error> {
    let masks = &spec.plan().tables;
    let mut found = Vec::new();
    for (shared, range) in families(masks, values.len()) {
        let tables: Vec<Table> = range
            .clone()
            .map(|t| Table {
                mask: masks[t],
                earlier: &masks[..t],
                tau: spec.tau(),
                in_family: range.len() > 1,
            })
            .collect();
        let mut w = Walker {
            values,
            entries: &mut *entries,
            out: Out {
                backend: &mut *backend,
                stats: &mut *stats,
                found: &mut found,
            },
        };
        match (&tables[..], B::WALK) {
            ([t], _) => w.single(t)?,
            (_, Walk::RunMajor) => w.run_major(shared, &tables)?,
            (_, Walk::TableMajor) => w.table_major(shared, &tables)?,
        }
    }
    Ok(found)
}

/// Consecutive tables of `tables` that share key bits, as (shared mask, table indices): at
/// least enough bits that `n` values spread evenly leave about eight thousand or fewer in a
/// run of equal shared bits (64 KiB, in a core's cache). Tables in no family stand alone, as
/// a family of one whose shared mask is their own.
pub fn families(tables: &[u64], n: usize) -> Vec<(u64, std::ops::Range<usize>)> {
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

/// What the scan of one part of a table's order gave: the run counts, and the backend's part.
#[derive(Default)]
struct Scanned<P> {
    runs: JoinStats,
    part: P,
}

/// Hands every run of `sorted` (part of a table's order beginning at `base`) to the backend.
#[inline]
fn scan<B: Compare>(b: &B, t: &Table, sorted: &[u64], base: usize, into: &mut Scanned<B::Part>) {
    for_runs(sorted, t.mask, |s, e| {
        into.runs.add_run((e - s) as u64);
        b.run(t, &sorted[s..e], base + s, &mut into.part);
    });
}

/// One family's walk over the values: the values, the sort buffer its orders are built in,
/// and where each table's parts go.
struct Walker<'a, 'b, B> {
    values: &'a [u64],
    entries: &'b mut Vec<u64>,
    out: Out<'b, B>,
}

/// Where a table's parts go: the backend, the join's counts and the pairs found.
struct Out<'b, B> {
    backend: &'b mut B,
    stats: &'b mut JoinStats,
    found: &'b mut Vec<ValuePair>,
}

impl<B: Compare> Out<'_, B> {
    /// Hands a table's parts to the backend, counting their runs.
    fn finish(
        &mut self,
        t: &Table,
        order: Option<&[u64]>,
        parts: Vec<Scanned<B::Part>>,
    ) -> Result<(), B::Error> {
        let parts = parts
            .into_iter()
            .map(|p| {
                self.stats.add_runs(&p.runs);
                p.part
            })
            .collect();
        self.backend.table(t, order, parts, self.found)
    }
}

impl<B: Compare> Walker<'_, '_, B> {
    /// A table in no family: ordered by its whole key, or read in the values' own order when
    /// the key is a prefix.
    fn single(&mut self, t: &Table) -> Result<(), B::Error> {
        let b = &*self.out.backend;
        let values = self.values;
        if t.mask != 0 && t.mask.leading_ones() == t.mask.count_ones() {
            let cuts = order::cuts(values, t.mask, rayon::current_num_threads() * 16);
            let parts = cuts
                .par_windows(2)
                .map(|w| {
                    let mut s = Scanned::default();
                    scan(b, t, &values[w[0]..w[1]], w[0], &mut s);
                    s
                })
                .collect();
            return self.out.finish(t, Some(values), parts);
        }
        let parts = sorted_regions(values, self.entries, t.mask, |r, base| {
            let mut s = Scanned::default();
            scan(b, t, r, base, &mut s);
            s
        });
        self.out.finish(t, Some(self.entries), parts)
    }

    /// A family, each run of shared bits ordered and scanned by every table while in cache.
    fn run_major(&mut self, shared: u64, tables: &[Table]) -> Result<(), B::Error> {
        let b = &*self.out.backend;
        let rest: Vec<KeyBits> = tables
            .iter()
            .map(|t| KeyBits::new(t.mask & !shared))
            .collect();
        let regions = sorted_regions(self.values, self.entries, shared, |region, base| {
            let mut out: Vec<Scanned<B::Part>> =
                tables.iter().map(|_| Scanned::default()).collect();
            let mut scratch = order::Scratch::default();
            for (s, e) in shared_runs(region, shared) {
                let run = &mut region[s..e];
                for ((t, kb), into) in tables.iter().zip(&rest).zip(&mut out) {
                    sort_by_bits(run, &mut scratch, kb);
                    scan(b, t, run, base + s, into);
                }
            }
            out
        });
        // Table by table, so that each one's pairs and statistics are added in plan order.
        let mut per_table: Vec<Vec<Scanned<B::Part>>> = tables
            .iter()
            .map(|_| Vec::with_capacity(regions.len()))
            .collect();
        for region in regions {
            for (j, s) in region.into_iter().enumerate() {
                per_table[j].push(s);
            }
        }
        for (t, parts) in tables.iter().zip(per_table) {
            self.out.finish(t, None, parts)?;
        }
        Ok(())
    }

    /// A family, one table after another over its order by the shared bits.
    fn table_major(&mut self, shared: u64, tables: &[Table]) -> Result<(), B::Error> {
        let mut starts: Vec<usize> = sorted_regions(self.values, self.entries, shared, |_, at| at);
        starts.push(self.values.len());
        for t in tables {
            let b = &*self.out.backend;
            let kb = &KeyBits::new(t.mask & !shared);
            let parts = order::regions(self.entries, &starts)
                .into_par_iter()
                .map_init(order::Scratch::default, |scratch, (base, region)| {
                    let mut out = Scanned::default();
                    for (s, e) in shared_runs(region, shared) {
                        let run = &mut region[s..e];
                        sort_by_bits(run, scratch, kb);
                        scan(b, t, run, base + s, &mut out);
                    }
                    out
                })
                .collect();
            self.out.finish(t, Some(self.entries), parts)?;
        }
        Ok(())
    }
}

/// The runs of two or more values with equal `shared` bits in `region` (sorted by them).
fn shared_runs(region: &[u64], shared: u64) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    for_runs(region, shared, |s, e| runs.push((s, e)));
    runs
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
/// of [`order`], and calls `visit(region, offset)` on each region of the result, in parallel,
/// while the region is in cache (the visitor may reorder a region's runs of equal keys within
/// themselves). Runs of equal keys never cross regions. A mask of one run of bits gets a loop
/// specialised to a shift and a mask.
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

/// Builds the graph from pairs of distinct 64-bit values (indices into `c.values`),
/// keeping only unit pairs with a 128-bit distance within `tau128`.
fn build_graph(
    docs: u32,
    c: Collapsed,
    fp128: &[[u64; 2]],
    distinct: &[DistinctPair],
    tau128: Option<u32>,
) -> PairGraph {
    let unit_fp = |u: u32| fp128[c.members[c.starts[u as usize] as usize] as usize];
    let units_of = |x: u32| c.value_units[x as usize]..c.value_units[x as usize + 1];
    let within = |d128: u32| tau128.is_none_or(|t| d128 <= t);
    let edge = |u: u32, v: u32, d64: u8| {
        let d128 = dist128(unit_fp(u), unit_fp(v));
        within(d128).then(|| Edge::new(u, v, d64, d128))
    };
    // Same 64-bit value, different 128-bit value: distance 0 on 64 bits.
    let mut edges: Vec<Edge> = c
        .same
        .iter()
        .filter(|e| within(u32::from(e.d128)))
        .copied()
        .collect();
    edges.par_extend(
        distinct
            .par_iter()
            .fold(Vec::new, |mut out, p| {
                for u in units_of(p.x) {
                    out.extend(units_of(p.y).filter_map(|v| edge(u, v, p.d64)));
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

/// Maps pairs of fingerprints found by the tables back to their places among `values`
/// (sorted, distinct), lower place first, sorted.
fn to_indices(values: &[u64], found: &[ValuePair]) -> Vec<DistinctPair> {
    if found.is_empty() {
        return Vec::new();
    }
    let at = order::Positions::new(values);
    let mut pairs: Vec<DistinctPair> = found
        .par_iter()
        .map(|p| {
            let (a, b) = (at.of(p.x) as u32, at.of(p.y) as u32);
            DistinctPair {
                x: a.min(b),
                y: a.max(b),
                d64: p.d64,
            }
        })
        .collect();
    // In value order, the graph reads each pair's first side front to back.
    pairs.par_sort_unstable();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;
    use crate::join::cpu::CpuScan;
    use crate::join::plan::{pigeonhole, random};
    use crate::join::reference::brute_force;

    /// A plain backend that walks families table by table and compares each run from the
    /// table's order, as the GPU driver does: the walk the CPU scan does not take.
    struct ByTable;

    impl Compare for ByTable {
        type Part = Vec<Run>;
        type Error = ();
        const WALK: Walk = Walk::TableMajor;

        fn run(&self, _: &Table, run: &[u64], at: usize, part: &mut Vec<Run>) {
            part.push(Run::at(at, run.len()));
        }

        fn table(
            &mut self,
            t: &Table,
            order: Option<&[u64]>,
            parts: Vec<Vec<Run>>,
            found: &mut Vec<ValuePair>,
        ) -> Result<(), ()> {
            let order = order.ok_or(())?;
            for r in parts.iter().flatten() {
                let run = &order[r.start as usize..r.end as usize];
                for (i, &x) in run.iter().enumerate() {
                    for &y in &run[i + 1..] {
                        let d = (x ^ y).count_ones();
                        if d <= t.tau && t.first_finds(x ^ y) {
                            found.push(ValuePair { x, y, d64: d as u8 });
                        }
                    }
                }
            }
            Ok(())
        }
    }

    /// Clustered fingerprints: copies of a few bases with up to 8 bits flipped.
    fn clustered(n: usize) -> (Vec<u64>, Vec<[u64; 2]>) {
        let mut rng = SplitMix64(21);
        let bases: Vec<u64> = (0..n / 20).map(|_| rng.next_u64()).collect();
        let fp: Vec<u64> = (0..n)
            .map(|_| {
                let mut v = bases[rng.below(bases.len() as u64) as usize];
                for _ in 0..rng.below(9) {
                    v ^= 1 << rng.below(64);
                }
                v
            })
            .collect();
        let fp128 = fp.iter().map(|v| [*v, v.rotate_left(7) & 3]).collect();
        (fp, fp128)
    }

    /// Both walks of a family, and single tables, give the brute-force pairs and the same
    /// statistics.
    #[test]
    fn both_walks_equal_brute_force() {
        let (fp, fp128) = clustered(3000);
        let docs: Vec<u32> = (0..fp.len() as u32).collect();
        for (m, tau) in [(4, 3), (8, 6), (9, 6), (7, 2)] {
            let spec = JoinSpec::new(pigeonhole(m, tau), tau, Some(40)).unwrap();
            let input = || JoinInput {
                fp64: &fp,
                fp128: &fp128,
                docs: docs.clone(),
            };
            let (a, sa) = join(input(), &spec, &mut CpuScan).unwrap();
            let (b, sb) = join(input(), &spec, &mut ByTable).unwrap();
            let want = brute_force(&fp, &fp128, &docs, tau, Some(40));
            assert!(!want.is_empty());
            assert_eq!(a.pairs(), want, "run-major, m {m} tau {tau}");
            assert_eq!(b.pairs(), want, "table-major, m {m} tau {tau}");
            assert_eq!(sa, sb);
        }
    }

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
        let plan = random(16, 20, 3, 3);
        let count: usize = families(&plan.tables, 1 << 20)
            .iter()
            .map(|(_, r)| r.len())
            .sum();
        assert_eq!(count, 20);
    }
}
