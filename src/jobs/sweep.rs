//! `sweep`: one join at the largest threshold (or one read from `pairs.bin`), then the
//! clusters' statistics at every threshold, with the candidates' precision when verified.

use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::options::JoinOptions;
use super::spec::{check_spec, outside_stores, JoinConfig, Thresholds};
use super::{outputs, steps};
use crate::cluster::quality;
use crate::cluster::{Axis, Representative};
use crate::fingerprint::store::StoreSet;
use crate::join::plan::MAX_TAU;
use crate::report::summary::Command;
use crate::verify::{Compare, VerifySpec};

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

/// The sweep job's options as a caller gives them (the command line's, by name).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SweepOptions {
    /// Stores of the corpus.
    pub stores: Vec<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// Largest 64-bit threshold swept.
    pub tau_max: u32,
    /// Largest 128-bit threshold swept, at the fixed 64-bit `tau`.
    pub tau128_max: Option<u32>,
    /// The fixed 64-bit threshold of a 128-bit sweep.
    pub tau: Option<u32>,
    /// A pairs file to reuse instead of joining.
    pub pairs: Option<PathBuf>,
    /// Verify the candidates, MEASURE:MIN (`s3:0.82`).
    pub verify: Option<String>,
    /// Terms per shingle.
    pub shingle: usize,
    /// Where the shards are now, if they moved since fingerprinting.
    pub shard_dir: Option<PathBuf>,
    /// Shingle sets held at once, about, in bytes.
    pub verify_memory: u64,
    /// Pairs drawn per distance to verify, instead of all.
    pub verify_sample: Option<u64>,
    /// Seed of the draw.
    pub sample_seed: u64,
    /// Plan and backend.
    #[serde(flatten)]
    pub join: JoinOptions,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions {
            stores: Vec::new(),
            output: PathBuf::new(),
            tau_max: 6,
            tau128_max: None,
            tau: None,
            pairs: None,
            verify: None,
            shingle: 8,
            shard_dir: None,
            verify_memory: crate::verify::DEFAULT_MEMORY,
            verify_sample: None,
            sample_seed: 1,
            join: JoinOptions::default(),
        }
    }
}

impl SweepJob {
    /// Validates `o`.
    pub fn new(o: &SweepOptions) -> anyhow::Result<SweepJob> {
        let pairs = o.pairs.is_some();
        let (axis, max, at) = match (o.tau128_max, o.tau) {
            (Some(m), Some(t)) => (
                Axis::D128 { tau64: t },
                m,
                Thresholds::filtering(t, Some(m), pairs)?,
            ),
            (None, None) => (
                Axis::D64,
                o.tau_max,
                Thresholds::filtering(o.tau_max, None, pairs)?,
            ),
            (None, Some(_)) => anyhow::bail!("--tau fixes the 64-bit threshold of a --tau128-max sweep; for a 64-bit sweep use --tau-max"),
            (Some(_), None) => anyhow::bail!("--tau128-max needs the fixed 64-bit --tau"),
        };
        let join = JoinConfig::new(&o.join, at.tau.min(MAX_TAU))?;
        outside_stores(&o.output, &o.stores)?;
        Ok(SweepJob {
            stores: o.stores.clone(),
            output: o.output.clone(),
            axis,
            max,
            at,
            pairs: o.pairs.clone(),
            verify: check_spec(
                o.verify.as_deref(),
                o.shingle,
                o.shard_dir.clone(),
                o.verify_memory,
            )?,
            sample: o.verify_sample,
            sample_seed: o.sample_seed,
            join,
        })
    }
}

/// Runs the sweep into its output directory.
pub fn sweep(c: &SweepJob, quiet: bool) -> anyhow::Result<()> {
    let started = Instant::now();
    let stores = StoreSet::open(&c.stores)?;
    let _out = outputs::out_dir(&c.output, &c.stores, "sweep")?;
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
    let (sweep, _) = outputs::write_sweep(
        &c.output,
        &stores,
        &g,
        at,
        &crate::cluster::policy::KeepPolicy::NONE,
        q,
        quiet,
    )?;
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
