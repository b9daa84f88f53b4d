//! Hamming joins: all pairs of fingerprints within a distance.
//!
//! [`plan`] decides which key bits each table groups by (exact pigeonhole plans, or randomized
//! bit samples) and knows the distance it was made for. [`engine`] runs a plan: the collapse of
//! identical fingerprints ([`collapse`]), tables in families, each table's order
//! (`order`), and the graph of what was found ([`graph`]), whose document pairs
//! [`pair_order`] lists in order a batch at a time; a backend only
//! compares the runs of equal keys of a table: [`cpu`] on the rayon pool, [`gpu`] with
//! `shaders/hamming_join.wgsl`. [`backend`] chooses one of them once; [`run`] is the entry
//! point. [`reference`](mod@reference) is the brute-force join every fast path is tested against. Pairs are
//! document indices into the joined fingerprint arrays.

pub mod backend;
pub mod candidates;
pub mod canonical;
pub mod collapse;
pub mod cpu;
pub mod engine;
pub mod gpu;
pub mod graph;
pub mod lsh;
pub(crate) mod order;
pub mod pair_order;
pub mod pairs_file;
pub mod plan;
pub mod reference;
pub mod types;

use std::time::Instant;

pub use backend::{Backend, BackendChoice, OpenError};
use graph::PairGraph;
pub use types::{DistinctPair, JoinInput, JoinSpec, JoinStats, Pair, ValuePair};

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
