//! `neardup sweep`: one join at the largest threshold, then statistics for every threshold.

use serde_json::json;

use super::args::SweepArgs;
use super::{pipeline, Outcome};
use crate::cluster::Axis;
use crate::fingerprint::store::Corpus;

/// Runs the command.
pub fn run(a: SweepArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let corpus = Corpus::open(&a.stores)?;
    pipeline::out_dir(&a.output)?;
    let (axis, max, tau, tau128) = match (a.tau128_max, a.tau) {
        (Some(m), Some(t)) => (Axis::D128 { tau64: t }, m, t, Some(m)),
        (None, None) => (Axis::D64, a.tau_max, a.tau_max, None),
        (None, Some(_)) => anyhow::bail!("--tau fixes the 64-bit threshold of a --tau128-max sweep; for a 64-bit sweep use --tau-max"),
        (Some(_), None) => anyhow::bail!("--tau128-max needs the fixed 64-bit --tau"),
    };
    anyhow::ensure!(max <= 128, "thresholds above 128 mean nothing");
    let g = pipeline::join_or_load(&corpus, a.pairs.as_deref(), &a.join, tau, tau128, quiet)?;
    let levels = pipeline::write_sweep(&a.output, &corpus, &g, axis, max, quiet)?;
    pipeline::write_summary(
        &a.output,
        &json!({
            "command": "sweep",
            "stores": a.stores,
            "pairs_file": a.pairs,
            "documents": corpus.len(),
            "joined": g.members.len(),
            "excluded": corpus.len() - g.members.len(),
            "join": pipeline::join_json(&a.join, tau, tau128, &g),
            "sweep": { "axis": axis.name(), "tau64": (axis != Axis::D64).then_some(tau), "max": max, "levels": levels },
        }),
    )?;
    if !quiet {
        eprintln!("sweep written to {}", a.output.display());
    }
    Ok(Outcome::Clean)
}
