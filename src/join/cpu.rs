//! The CPU backend of the Hamming join: the members of each run of equal keys compared with one
//! XOR and one popcount, on the rayon pool, while the run is in cache.
//!
//! Runs up to `SPLIT_RUN` members are compared as the engine hands them over, region by
//! region in parallel; longer ones (skewed keys: templated sites, near-empty pages) are copied
//! out and split by rows across the pool once the table's scan is done, rather than left to
//! one thread. A family's tables are walked run by run ([`Walk::RunMajor`]): each run of
//! shared bits is compared for every table while it sits in cache.

use std::convert::Infallible;

use rayon::prelude::*;

use super::engine::{self, Compare, Table, Walk};
use super::graph::PairGraph;
use super::types::{JoinInput, JoinSpec, JoinStats, Pair, ValuePair};

/// Runs longer than this are split by rows across threads.
const SPLIT_RUN: usize = 1024;

/// The CPU backend.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuScan;

/// What the CPU scan of part of a table's order found.
#[derive(Default)]
pub struct Found {
    /// Pairs of values within tau, first found by this table.
    pairs: Vec<ValuePair>,
    /// Runs longer than [`SPLIT_RUN`], copied out for a parallel pass.
    long: Vec<Vec<u64>>,
}

impl Compare for CpuScan {
    type Part = Found;
    type Error = Infallible;
    const WALK: Walk = Walk::RunMajor;

    #[inline]
    fn run(&self, t: &Table, run: &[u64], _at: usize, part: &mut Found) {
        if run.len() <= SPLIT_RUN {
            compare_rows(run, 0..run.len(), t, &mut part.pairs);
        } else {
            part.long.push(run.to_vec());
        }
    }

    fn table(
        &mut self,
        t: &Table,
        _order: Option<&[u64]>,
        parts: Vec<Found>,
        found: &mut Vec<ValuePair>,
    ) -> Result<(), Infallible> {
        let mut long = Vec::new();
        for mut p in parts {
            found.append(&mut p.pairs);
            long.append(&mut p.long);
        }
        for run in long {
            found.append(&mut compare_long(&run, t));
        }
        Ok(())
    }
}

/// Compares rows `rows` of a run of fingerprints with every later member, keeping pairs
/// within tau that no earlier table could have found: eight members at a time with AVX-512's
/// 64-bit popcount (`VPOPCNTQ`) where the CPU has it, chosen at run time, one at a time
/// otherwise. Both give the same pairs in the same order.
#[inline]
fn compare_rows(run: &[u64], rows: std::ops::Range<usize>, t: &Table, out: &mut Vec<ValuePair>) {
    #[cfg(target_arch = "x86_64")]
    if crate::base::simd::avx512().popcount {
        // SAFETY: the CPU has AVX-512F and AVX-512 VPOPCNTDQ (checked just above).
        unsafe { compare_rows_avx512(run, rows, t, out) };
        return;
    }
    compare_rows_scalar(run, rows, t, out);
}

/// [`compare_rows`] one member at a time.
#[inline]
fn compare_rows_scalar(
    run: &[u64],
    rows: std::ops::Range<usize>,
    t: &Table,
    out: &mut Vec<ValuePair>,
) {
    for i in rows {
        let fi = run[i];
        for &fj in &run[i + 1..] {
            check(fi, fj, t, out);
        }
    }
}

/// One pair's test: within tau, and not found by an earlier table.
#[inline(always)]
fn check(fi: u64, fj: u64, t: &Table, out: &mut Vec<ValuePair>) {
    let x = fi ^ fj;
    let d = x.count_ones();
    if d <= t.tau && t.first_finds(x) {
        out.push(ValuePair {
            x: fi,
            y: fj,
            d64: d as u8,
        });
    }
}

/// [`compare_rows`] eight members at a time: XOR, `VPOPCNTQ` and one compare give a mask of
/// the members within tau, which are then checked one by one (few are).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
fn compare_rows_avx512(
    run: &[u64],
    rows: std::ops::Range<usize>,
    t: &Table,
    out: &mut Vec<ValuePair>,
) {
    use std::arch::x86_64::*;
    let tau = _mm512_set1_epi64(i64::from(t.tau));
    for i in rows {
        let fi = run[i];
        let f = _mm512_set1_epi64(fi as i64);
        let later = &run[i + 1..];
        let mut eights = later.chunks_exact(8);
        for c in &mut eights {
            // SAFETY: `c` is eight u64s, 64 readable bytes; the load has no alignment need.
            let v = unsafe { _mm512_loadu_si512(c.as_ptr().cast()) };
            let d = _mm512_popcnt_epi64(_mm512_xor_si512(f, v));
            let mut near = _mm512_cmple_epu64_mask(d, tau);
            while near != 0 {
                let k = near.trailing_zeros() as usize;
                near &= near - 1;
                check(fi, c[k], t, out);
            }
        }
        for &fj in eights.remainder() {
            check(fi, fj, t, out);
        }
    }
}

/// The pairs of one long run, its rows split across the pool.
fn compare_long(run: &[u64], t: &Table) -> Vec<ValuePair> {
    (0..run.len())
        .into_par_iter()
        .with_min_len(16)
        .fold(Vec::new, |mut out, i| {
            compare_rows(run, i..i + 1, t, &mut out);
            out
        })
        .reduce(Vec::new, |mut a, mut b| {
            a.append(&mut b);
            a
        })
}

/// Self-join of `input` as `spec` says, on the CPU, in the compact form: units of identical
/// fingerprints and the edges between them.
pub fn join_graph(input: JoinInput, spec: &JoinSpec) -> (PairGraph, JoinStats) {
    match engine::join(input, spec, &mut CpuScan) {
        Ok(done) => done,
        Err(never) => match never {},
    }
}

/// Self-join of `input` as `spec` says, on the CPU: pairs of documents sorted by (a, b), a < b.
pub fn join(input: JoinInput, spec: &JoinSpec) -> (Vec<Pair>, JoinStats) {
    let (graph, stats) = join_graph(input, spec);
    (graph.pairs(), stats)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// The wide path against the scalar one on random runs with planted near values, every
    /// tau from 0 to 12, with and without earlier tables, runs of every length around eight.
    #[test]
    fn eight_at_a_time_equals_one_at_a_time() {
        if !crate::base::simd::avx512().popcount {
            eprintln!("no AVX-512 VPOPCNTQ on this CPU: the wide path is not compared");
            return;
        }
        let mut rng = crate::base::rng::SplitMix64(55);
        let earlier = [0xffffu64, 0xffff_0000];
        for case in 0..400 {
            let n = rng.below(40) as usize;
            let base = rng.next_u64();
            let run: Vec<u64> = (0..n)
                .map(|_| match rng.below(3) {
                    0 => rng.next_u64(),
                    _ => base ^ (1u64 << rng.below(64)) ^ (1u64 << rng.below(64)),
                })
                .collect();
            let t = Table {
                mask: 0,
                earlier: if case % 2 == 0 { &[] } else { &earlier },
                tau: (case % 13) as u32,
                in_family: false,
            };
            let (mut slow, mut fast) = (Vec::new(), Vec::new());
            compare_rows_scalar(&run, 0..n, &t, &mut slow);
            // SAFETY: checked above that the CPU has the features.
            unsafe { compare_rows_avx512(&run, 0..n, &t, &mut fast) };
            let key = |p: &ValuePair| (p.x, p.y, p.d64);
            assert_eq!(
                slow.iter().map(key).collect::<Vec<_>>(),
                fast.iter().map(key).collect::<Vec<_>>(),
                "case {case}"
            );
        }
    }
}
