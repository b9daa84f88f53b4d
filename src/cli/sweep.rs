//! `neardup sweep`: one join at the largest threshold, then statistics for every threshold,
//! with the candidates' precision when verified.

use std::time::Instant;

use super::config::SweepCommand;
use super::Outcome;
use crate::cluster::Representative;
use crate::fingerprint::store::StoreSet;
use crate::jobs::{outputs, steps};
use crate::report::summary::Command;
use crate::verify::{quality, Compare};

/// Runs the command.
pub fn run(c: SweepCommand, quiet: bool) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let stores = StoreSet::open(&c.stores)?;
    let _out = outputs::out_dir(&c.output, &c.stores)?;
    let loaded = steps::join_or_load(&stores, c.pairs.as_deref(), &c.join, c.at, quiet)?;
    let ran = loaded.ran.clone();
    let mut verification = None;
    let (g, q) = match (&c.verify, c.sample) {
        (None, _) => (loaded.graph, None),
        (Some(spec), None) => {
            let t = Instant::now();
            let sg = steps::score(&stores, loaded, c.at, spec, Compare::Every, quiet)?;
            verification = Some(steps::verification_summary(&sg, spec, t));
            let q = quality::exact(&sg, spec, c.axis, c.max);
            (sg.verified(spec), Some(q))
        }
        (Some(spec), Some(n)) => {
            let g = loaded.graph.within(c.at.tau, c.at.tau128);
            let t = Instant::now();
            let (q, sample) = quality::sampled(&stores, &g, spec, c.axis, c.max, n, c.sample_seed)?;
            if !quiet {
                say!(
                    "verify: {} pairs drawn per distance, {} text comparisons, {} documents read again in {:.2} s",
                    n,
                    sample.compared,
                    sample.stats.documents,
                    t.elapsed().as_secs_f64()
                );
            }
            (g, Some(q))
        }
    };
    let at = outputs::SweepAt {
        axis: c.axis,
        max: c.max,
        rule: Representative::LowestId,
        protect: None,
    };
    let (sweep, _) = outputs::write_sweep(&c.output, &stores, &g, at, q, quiet)?;
    let join = outputs::join_summary(&c.join, c.at, &g, ran);
    let mut s = outputs::summary(Command::Sweep, &stores, &c.stores, &g, join);
    s.pairs_file = c.pairs.clone();
    s.sweep = Some(sweep);
    s.verification = verification;
    s.seconds = started.elapsed().as_secs_f64();
    s.write(&c.output)?;
    if !quiet {
        say!("sweep written to {}", c.output.display());
    }
    Ok(Outcome::Clean)
}
