//! `neardup sweep`: one join at the largest threshold, then statistics for every threshold.

use std::time::Instant;

use super::config::SweepCommand;
use super::{pipeline, Outcome};
use crate::fingerprint::store::StoreSet;
use crate::report::summary::Command;

/// Runs the command.
pub fn run(c: SweepCommand, quiet: bool) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let stores = StoreSet::open(&c.stores)?;
    let _lock = pipeline::out_dir(&c.output)?;
    let (g, ran) = pipeline::join_or_load(&stores, c.pairs.as_deref(), &c.join, c.at, quiet)?;
    let sweep = pipeline::write_sweep(&c.output, &stores, &g, c.axis, c.max, quiet)?;
    let join = pipeline::join_summary(&c.join, c.at, &g, ran);
    let mut s = pipeline::summary(Command::Sweep, &stores, &c.stores, &g, join);
    s.pairs_file = c.pairs.clone();
    s.sweep = Some(sweep);
    s.seconds = started.elapsed().as_secs_f64();
    s.write(&c.output)?;
    if !quiet {
        eprintln!("sweep written to {}", c.output.display());
    }
    Ok(Outcome::Clean)
}
