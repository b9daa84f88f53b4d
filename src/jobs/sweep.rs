//! `sweep`: one join at the largest threshold (or one read from `pairs.bin`), then the
//! clusters' statistics at every threshold, with the candidates' precision when verified.

use std::path::PathBuf;
use std::time::Instant;

use super::spec::{JoinConfig, Thresholds};
use super::{outputs, steps};
use crate::cluster::{Axis, Representative};
use crate::fingerprint::store::StoreSet;
use crate::report::summary::Command;
use crate::verify::{quality, Compare, VerifySpec};

/// The `sweep` job, validated.
#[derive(Clone, Debug)]
pub struct SweepJob {
    /// Stores of the corpus.
    pub stores: Vec<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// The threshold swept.
    pub axis: Axis,
    /// Its largest value.
    pub max: u32,
    /// Thresholds of the join the sweep needs.
    pub at: Thresholds,
    /// A pairs file to reuse.
    pub pairs: Option<PathBuf>,
    /// Verification of the candidates, if asked for.
    pub verify: Option<VerifySpec>,
    /// Pairs drawn per distance to estimate precision, instead of verifying every candidate.
    pub sample: Option<u64>,
    /// Seed of the draws.
    pub sample_seed: u64,
    /// Plan and backend.
    pub join: JoinConfig,
}

/// Runs the sweep into its output directory.
pub fn sweep(c: &SweepJob, quiet: bool) -> anyhow::Result<()> {
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
    Ok(())
}
