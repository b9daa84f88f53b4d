//! Hamming joins: all pairs of fingerprints within a distance.
//!
//! [`plan`] decides which key bits each table groups by (exact pigeonhole plans, or randomized
//! bit samples) and knows the distance it was made for. [`engine`] runs a plan: the collapse of
//! identical fingerprints ([`collapse`]), tables in families, each table's order
//! ([`order`](self::order)), and the graph of what was found ([`graph`]); a backend only
//! compares the runs of equal keys of a table: [`cpu`] on the rayon pool, [`gpu`] with
//! `shaders/hamming_join.wgsl`. [`backend`] chooses one of them once; [`run`] is the entry
//! point. [`reference`] is the brute-force join every fast path is tested against. Pairs are
//! document indices into the joined fingerprint arrays.

pub mod backend;
pub mod collapse;
pub mod cpu;
pub mod engine;
pub mod gpu;
pub mod graph;
pub(crate) mod order;
pub mod pairs_file;
pub mod plan;
pub mod reference;

use std::time::Instant;

pub use backend::{Backend, BackendChoice, OpenError};
use graph::PairGraph;
use plan::Plan;

/// One near-duplicate pair of documents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    /// The lower document index.
    pub a: u32,
    /// The higher document index.
    pub b: u32,
    /// 64-bit Hamming distance.
    pub d64: u8,
    /// 128-bit Hamming distance (0 when 128-bit fingerprints were not given).
    pub d128: u8,
}

impl Pair {
    /// The pair of documents `a` and `b` (in either order) with its distances.
    pub fn new(a: u32, b: u32, d64: u8, d128: u8) -> Pair {
        Pair {
            a: a.min(b),
            b: a.max(b),
            d64,
            d128,
        }
    }
}

/// Two distinct 64-bit fingerprints within tau, as a table's scan finds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ValuePair {
    /// One fingerprint.
    pub x: u64,
    /// The other.
    pub y: u64,
    /// Their Hamming distance.
    pub d64: u8,
}

/// Two distinct 64-bit fingerprints within tau, by their places among the join's sorted
/// distinct values (`x < y`), as the graph takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DistinctPair {
    /// The lower place.
    pub x: u32,
    /// The higher place.
    pub y: u32,
    /// The values' Hamming distance.
    pub d64: u8,
}

/// What a join reads: the corpus's fingerprint columns and the documents to join.
#[derive(Clone, Debug)]
pub struct JoinInput<'a> {
    /// 64-bit fingerprints, by document.
    pub fp64: &'a [u64],
    /// 128-bit fingerprints (low, high), by document.
    pub fp128: &'a [[u64; 2]],
    /// The documents to join (indices into the columns; others are left out), owned: the
    /// collapse reuses the list as its members.
    pub docs: Vec<u32>,
}

impl<'a> JoinInput<'a> {
    /// Every document of the columns.
    pub fn all(fp64: &'a [u64], fp128: &'a [[u64; 2]]) -> Self {
        JoinInput {
            fp64,
            fp128,
            docs: (0..fp64.len() as u32).collect(),
        }
    }
}

/// What a join looks for: the plan, and the distances a pair must be within.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinSpec {
    plan: Plan,
    tau: u32,
    tau128: Option<u32>,
}

impl JoinSpec {
    /// Pairs within `tau` on 64 bits (and `tau128` on 128 bits, when given) found with `plan`;
    /// refused when the plan was made for a smaller distance than `tau` (it would miss pairs
    /// without a word) or a distance exceeds the fingerprint's width.
    pub fn new(plan: Plan, tau: u32, tau128: Option<u32>) -> crate::Result<JoinSpec> {
        if tau > plan.tau {
            return Err(crate::Error::Config(format!(
                "a plan made for tau {} cannot join at tau {tau}: it would miss pairs",
                plan.tau
            )));
        }
        if tau > 64 || tau128.is_some_and(|t| t > 128) {
            return Err(crate::Error::Config(
                "thresholds above the fingerprint's width mean nothing".into(),
            ));
        }
        Ok(JoinSpec { plan, tau, tau128 })
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Largest 64-bit distance of a pair.
    pub fn tau(&self) -> u32 {
        self.tau
    }

    /// Largest 128-bit distance of a pair, when filtered.
    pub fn tau128(&self) -> Option<u32> {
        self.tau128
    }
}

/// What a join did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JoinStats {
    /// Documents joined.
    pub documents: u64,
    /// Distinct 64-bit fingerprints among them.
    pub distinct: u64,
    /// Tables in the plan.
    pub tables: u64,
    /// Fingerprint pairs compared.
    pub comparisons: u64,
    /// Largest run of equal keys in any table.
    pub largest_run: u64,
    /// Pairs reported.
    pub pairs: u64,
    /// Of which identical 64-bit fingerprints.
    pub exact_pairs: u64,
}

impl JoinStats {
    /// Counts a run of `len` equal keys: its comparisons, and the largest run.
    pub(crate) fn add_run(&mut self, len: u64) {
        self.comparisons += len * len.saturating_sub(1) / 2;
        self.largest_run = self.largest_run.max(len);
    }

    /// Adds the run counts of `other` (comparisons, largest run).
    pub(crate) fn add_runs(&mut self, other: &JoinStats) {
        self.comparisons += other.comparisons;
        self.largest_run = self.largest_run.max(other.largest_run);
    }
}

/// A finished join.
#[derive(Clone, Debug)]
pub struct JoinOutput {
    /// The pairs, in compact form.
    pub graph: PairGraph,
    /// What the join counted.
    pub stats: JoinStats,
    /// The plan's description.
    pub plan: String,
    /// Where the comparisons ran: "cpu", or "gpu (ADAPTER)".
    pub backend: String,
    /// The GPU driver's counters, on the GPU backend.
    pub gpu: Option<gpu::GpuStats>,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// Why a join failed.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    /// The GPU failed (validation, memory); the message names the adapter.
    #[error("GPU join on {adapter}: {source}")]
    Gpu {
        /// The adapter's name.
        adapter: String,
        /// What went wrong.
        source: crate::gpu::GpuError,
    },
}

/// Joins `input` as `spec` says on `backend`: the one entry point of the join.
pub fn run(input: JoinInput, spec: &JoinSpec, backend: &Backend) -> Result<JoinOutput, JoinError> {
    let started = Instant::now();
    let (graph, stats, gpu) = match backend {
        Backend::Cpu => {
            let (g, s) = cpu::join_graph(input, spec);
            (g, s, None)
        }
        Backend::Gpu { gpu, config } => {
            let (g, s, gs) =
                gpu::join_graph(gpu, config, input, spec).map_err(|source| JoinError::Gpu {
                    adapter: gpu.adapter().name.clone(),
                    source,
                })?;
            (g, s, Some(gs))
        }
    };
    Ok(JoinOutput {
        graph,
        stats,
        plan: spec.plan().name.clone(),
        backend: backend.name(),
        gpu,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::plan::{pigeonhole, random};

    /// A plan runs at the tau it was made for or below, never above: it would miss pairs.
    #[test]
    fn a_spec_refuses_a_plan_made_for_a_smaller_tau() {
        assert!(JoinSpec::new(pigeonhole(5, 3), 3, None).is_ok());
        assert!(JoinSpec::new(pigeonhole(5, 3), 2, None).is_ok());
        let e = JoinSpec::new(pigeonhole(5, 3), 4, None).unwrap_err();
        assert!(e.to_string().contains("made for tau 3"), "{e}");
        assert!(JoinSpec::new(random(16, 20, 0, 3), 6, None).is_err());
        assert!(JoinSpec::new(pigeonhole(5, 3), 3, Some(129)).is_err());
    }
}
