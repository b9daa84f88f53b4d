//! `verify`: candidate pairs (a join made here, or `pairs.bin`) scored on their texts.

use std::path::PathBuf;
use std::time::Instant;

use super::spec::{JoinConfig, Thresholds};
use super::steps;
use crate::fingerprint::store::StoreSet;
use crate::verify::{Compare, ScoredGraph, VerifySpec};

/// The `verify` job, validated.
#[derive(Clone, Debug)]
pub struct VerifyJob {
    /// Stores of the corpus.
    pub stores: Vec<PathBuf>,
    /// Output TSV.
    pub output: PathBuf,
    /// Thresholds of the candidate pairs.
    pub at: Thresholds,
    /// A pairs file to reuse.
    pub pairs: Option<PathBuf>,
    /// How pairs are verified.
    pub verify: VerifySpec,
    /// Plan and backend.
    pub join: JoinConfig,
}

/// The scored candidates.
pub struct Verified {
    /// The stores.
    pub stores: StoreSet,
    /// The candidates, each pair of texts with its overlap.
    pub scored: ScoredGraph,
    /// Seconds reading and comparing.
    pub seconds: f64,
}

/// Scores every candidate pair.
pub fn verify(c: &VerifyJob, quiet: bool) -> anyhow::Result<Verified> {
    let stores = StoreSet::open(&c.stores)?;
    let loaded = steps::join_or_load(&stores, c.pairs.as_deref(), &c.join, c.at, quiet)?;
    let read = Instant::now();
    let scored = steps::score(&stores, loaded, c.at, &c.verify, Compare::Every, true)?;
    Ok(Verified {
        stores,
        scored,
        seconds: read.elapsed().as_secs_f64(),
    })
}
