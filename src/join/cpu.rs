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
/// within tau that no earlier table could have found.
#[inline]
fn compare_rows(run: &[u64], rows: std::ops::Range<usize>, t: &Table, out: &mut Vec<ValuePair>) {
    for i in rows {
        let fi = run[i];
        for &fj in &run[i + 1..] {
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
