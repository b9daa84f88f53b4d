//! `neardup bench`: join throughput on this machine, from fingerprints generated in memory.
//!
//! Reports the plan, comparisons (fingerprint pairs compared inside runs of equal keys), pairs
//! found, the join's wall time and, on the GPU backend, the time of the dispatches (upload,
//! kernel and read-back) and compares per second over it, as a share of the device's popcount
//! bound when that is known (`--bound`, or the H100/H200 figure: 132 SMs x 1.98 GHz x 16
//! popcounts per clock / 2 popcounts per compare = 2.09e12 compares/s).

use std::time::Instant;

use super::args::BenchArgs;
use super::Outcome;
use crate::jobs::spec::{JoinConfig, Thresholds};
use crate::jobs::steps;
use crate::join::gpu::GpuStats;
use crate::join::{self, JoinInput, JoinStats};
use crate::synth::planted_fingerprints;

/// Compares per second of devices whose bound is known by name.
fn known_bound(adapter: &str) -> Option<f64> {
    let a = adapter.to_lowercase();
    (a.contains("h100") || a.contains("h200")).then_some(132.0 * 1.98e9 * 16.0 / 2.0)
}

/// Runs the command.
pub fn run(a: BenchArgs, quiet: bool) -> anyhow::Result<Outcome> {
    anyhow::ensure!(a.docs < u32::MAX as usize, "--docs must be below 2^32");
    let at = Thresholds::new(a.tau, None)?;
    let cfg = JoinConfig::new(&(&a.join).into(), at.tau)?;
    let started = Instant::now();
    let (fp64, fp128) = planted_fingerprints(a.docs, 0.1, 8, a.data_seed);
    let made = started.elapsed().as_secs_f64();
    let mut backend = steps::backend(&cfg, quiet)?;
    if a.batched {
        backend = backend.batched();
    }
    if a.unroll {
        backend = backend.unrolled();
    }
    let spec = steps::spec(&cfg, a.docs, at, &backend, quiet)?;
    let run = join::run(JoinInput::all(&fp64, &fp128), &spec, &backend)?;
    let (p, stats, gpu) = (spec.plan(), &run.stats, backend.gpu());
    let cores = rayon::current_num_threads();
    println!(
        "neardup bench: {} fingerprints (generated in {made:.1} s), tau {}, plan {}",
        a.docs, a.tau, p.name
    );
    println!("backend: {}; {cores} CPU threads", run.backend);
    println!(
        "join: {:.3} s wall; {} tables, {} comparisons ({:.3e}/s), {} pairs ({:.3e}/s), {} distinct fingerprints, largest key run {}",
        run.seconds,
        stats.tables,
        stats.comparisons,
        stats.comparisons as f64 / run.seconds.max(1e-9),
        stats.pairs,
        stats.pairs as f64 / run.seconds.max(1e-9),
        stats.distinct,
        stats.largest_run
    );
    if let (Some(g), Some(dev)) = (run.gpu, gpu) {
        let bound = a.bound.or_else(|| known_bound(&dev.adapter().name));
        if g.resident {
            resident(&g, stats, bound, &dev.adapter().name);
        } else {
            batched(&g, stats, run.seconds);
            let rate = stats.comparisons as f64 / g.gpu_seconds.max(1e-9);
            match bound {
                Some(b) => println!(
                    "bound: {b:.3e} compares/s; the dispatches reach {:.1} % of it",
                    100.0 * rate / b
                ),
                None => println!(
                    "bound: unknown for {} (pass --bound COMPARES_PER_S)",
                    dev.adapter().name
                ),
            }
        }
    } else if let Some(b) = a.bound {
        let rate = stats.comparisons as f64 / run.seconds.max(1e-9);
        println!(
            "bound: {b:.3e} compares/s; the join reaches {:.1} % of it",
            100.0 * rate / b
        );
    }
    println!(
        "rerun: neardup bench --docs {} --tau {} --method {} --backend {}{}",
        a.docs,
        a.tau,
        cfg.plan.method.name(),
        cfg.backend.name(),
        if a.batched {
            " --batched"
        } else if a.unroll {
            " --unroll"
        } else {
            ""
        }
    );
    Ok(Outcome::Clean)
}

/// What the batched GPU join did: dispatches, their parts, lanes, host work.
fn batched(g: &GpuStats, stats: &JoinStats, seconds: f64) {
    let rate = stats.comparisons as f64 / g.gpu_seconds.max(1e-9);
    println!(
        "gpu (batched): {:.3} s in {} dispatches ({} batches, {} reruns on overflow, {} runs split); {rate:.3e} compares/s",
        g.gpu_seconds, g.dispatches, g.batches, g.reruns, g.split_runs
    );
    println!(
        "gpu time: {:.3} s loading batches, {:.3} s dispatching (tiles uploaded, kernel run, counter read), {:.3} s reading pairs back; {:.3e} compares/s in the kernel",
        g.upload_seconds,
        g.kernel_seconds,
        g.read_seconds,
        stats.comparisons as f64 / g.kernel_seconds.max(1e-9)
    );
    println!(
        "lanes: {:.1} % of the kernel's lane steps compare a pair ({} comparisons in {} lane steps)",
        100.0 * stats.comparisons as f64 / (g.lane_steps.max(1)) as f64,
        stats.comparisons,
        g.lane_steps
    );
    println!(
        "host: {:.3} s outside the dispatches (grouping, table orders, packing, graph); {} of {} tables ordered in families",
        (seconds - g.gpu_seconds).max(0.0),
        g.family_tables,
        stats.tables
    );
}

/// What the resident GPU join did: upload, the tables on the device (by stage, where the
/// adapter times passes), read-back, reruns; the table weight the stage times imply.
fn resident(g: &GpuStats, stats: &JoinStats, bound: Option<f64>, adapter: &str) {
    println!(
        "gpu (resident): {:.3} s: {:.3} s creating buffers and uploading, {:.3} s for every table on the device (submission to record read), {:.3} s reading pairs back; {} tables rerun alone, {} windows, {} joins of chunks",
        g.gpu_seconds,
        g.upload_seconds,
        g.kernel_seconds,
        g.read_seconds,
        g.reruns,
        g.windows,
        g.chunks
    );
    if let Some(h) = g.host {
        let parts: Vec<String> = crate::join::gpu::HOST_PARTS
            .iter()
            .zip(h)
            .map(|(n, s)| format!("{n} {s:.3} s"))
            .collect();
        println!("host (resident): {}", parts.join(", "));
    }
    let Some(st) = g.stages else {
        println!("stages: {adapter} has no timestamp queries; no device times by stage");
        return;
    };
    let names = crate::gpu::resident::STAGES;
    let parts: Vec<String> = names
        .iter()
        .zip(st)
        .map(|(n, s)| format!("{n} {s:.4} s"))
        .collect();
    println!(
        "device time by stage (summed over tables): {}",
        parts.join(", ")
    );
    let compare = st[3].max(1e-12);
    let rate = stats.comparisons as f64 / compare;
    println!("comparisons: {rate:.3e} compares/s in the comparison stage");
    match bound {
        Some(b) => println!(
            "bound: {b:.3e} compares/s; the comparison stage reaches {:.1} % of it",
            100.0 * rate / b
        ),
        None => println!("bound: unknown for {adapter} (pass --bound COMPARES_PER_S)"),
    }
    // A table's cost a fingerprint, in comparisons: what the planner's weight stands for.
    let per_table = (st[0] + st[1] + st[2]) / stats.tables.max(1) as f64;
    let per_fp = per_table / stats.distinct.max(1) as f64;
    if stats.comparisons > 0 {
        println!(
            "table weight: {:.1} comparisons a fingerprint a table (the planner assumes {})",
            per_fp * rate,
            crate::join::plan::TableWeight::GPU_RESIDENT.0
        );
    }
}
