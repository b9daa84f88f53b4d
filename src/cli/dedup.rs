//! `neardup dedup`: the main job. Fingerprints the crawl into OUT/store, joins once at the
//! sweep's largest threshold (OUT/pairs.bin), sweeps every threshold, and writes clusters and
//! lists at the chosen one, so `sweep` and `cluster` can later reuse the store and the pairs.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use super::args::DedupArgs;
use super::fingerprint::{build_store, config_for};
use super::{pipeline, Outcome};
use crate::cluster::{Axis, Level};
use crate::fingerprint::store::Corpus;
use crate::join::graph::PairGraph;

/// What a dedup run leaves for callers that report on it (`demo`).
pub struct DedupRun {
    /// The corpus (the store in OUT/store).
    pub corpus: Corpus,
    /// The join at the sweep's largest threshold.
    pub graph: PairGraph,
    /// The sweep.
    pub levels: Vec<Level>,
    /// How fingerprinting ended.
    pub outcome: Outcome,
}

/// Runs the command.
pub fn run(a: DedupArgs, quiet: bool) -> anyhow::Result<Outcome> {
    Ok(dedup(&a, quiet)?.outcome)
}

/// Runs every stage and writes every output into `a.output`.
pub fn dedup(a: &DedupArgs, quiet: bool) -> anyhow::Result<DedupRun> {
    let tau_max = a.tau_max.unwrap_or(a.tau).max(a.tau);
    pipeline::out_dir(&a.output)?;
    let started = Instant::now();
    let store: PathBuf = a.output.join("store");
    let cfg = config_for(&a.inputs, &store, a.force, &a.fingerprint)?;
    if !quiet {
        eprintln!("[1/4] fingerprint -> {}", store.display());
    }
    let (report, outcome) = build_store(&cfg, quiet)?;
    let corpus = Corpus::open(std::slice::from_ref(&store))?;
    if !quiet {
        eprintln!("[2/4] join at tau {tau_max}");
    }
    let (g, _, run) = pipeline::join(&corpus, &a.join, tau_max, a.tau128, quiet)?;
    pipeline::write_pairs(&a.output.join("pairs.bin"), &corpus, &g, tau_max, a.tau128)?;
    if !quiet {
        eprintln!("[3/4] sweep tau 0..={tau_max}");
    }
    let levels = pipeline::write_sweep(&a.output, &corpus, &g, Axis::D64, tau_max, quiet)?;
    if !quiet {
        eprintln!("[4/4] clusters at tau {}", a.tau);
    }
    let (c, counts) =
        pipeline::write_clusters(&a.output, &corpus, &g, a.tau, a.tau128, a.representative)?;
    let secs = started.elapsed().as_secs_f64();
    pipeline::write_summary(
        &a.output,
        &json!({
            "command": "dedup",
            "inputs": a.inputs,
            "seconds": secs,
            "documents": corpus.len(),
            "joined": g.members.len(),
            "excluded": corpus.len() - g.members.len(),
            "fingerprint": {
                "store": store,
                "shards": report.manifest.shards.len(),
                "shards_failed": report.failed.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
                "params": report.manifest.params,
                "filters": report.manifest.filters,
                "stats": report.manifest.stats,
            },
            "join": pipeline::join_json(&a.join, tau_max, a.tau128, &g),
            "join_backend": run.backend,
            "join_seconds": run.seconds,
            "sweep": { "axis": "tau", "max": tau_max, "levels": levels },
            "clusters": pipeline::clusters_json(a.tau, a.tau128, a.representative, &c, &counts),
        }),
    )?;
    if !quiet {
        eprintln!(
            "done in {secs:.1} s: {} documents, {} kept at tau {} ({} removed, {} excluded from the join and kept); outputs in {}",
            corpus.len(),
            counts.keep,
            a.tau,
            counts.remove,
            counts.excluded,
            a.output.display()
        );
    }
    Ok(DedupRun {
        corpus,
        graph: g,
        levels,
        outcome,
    })
}
