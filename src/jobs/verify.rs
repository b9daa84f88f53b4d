//! `verify`: candidate pairs (a join made here, or `pairs.bin`) scored on their texts.

use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::options::{JoinOptions, SimilarityOptions};
use super::spec::{outside_stores, verify_spec, JoinConfig, Thresholds};
use super::steps;
use crate::fingerprint::store::StoreSet;
use crate::join::plan::MAX_TAU;
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

/// The verify job's options as a caller gives them (the command line's, by name).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct VerifyPairs {
    /// Stores of the corpus.
    pub stores: Vec<PathBuf>,
    /// Largest 64-bit distance of the candidates.
    pub tau: u32,
    /// Largest 128-bit distance too.
    pub tau128: Option<u32>,
    /// A pairs file to reuse instead of joining.
    pub pairs: Option<PathBuf>,
    /// Where the shards are now, if they moved since fingerprinting.
    pub shard_dir: Option<PathBuf>,
    /// How pairs are compared on their text.
    #[serde(flatten)]
    pub similarity: SimilarityOptions,
    /// Plan and backend.
    #[serde(flatten)]
    pub join: JoinOptions,
}

impl Default for VerifyPairs {
    fn default() -> Self {
        VerifyPairs {
            stores: Vec::new(),
            tau: 3,
            tau128: None,
            pairs: None,
            shard_dir: None,
            similarity: SimilarityOptions::default(),
            join: JoinOptions::default(),
        }
    }
}

impl VerifyJob {
    /// Validates `o`, the scored pairs to go to `output` (the caller writes them).
    pub fn new(o: &VerifyPairs, output: PathBuf) -> anyhow::Result<VerifyJob> {
        let at = Thresholds::filtering(o.tau, o.tau128, o.pairs.is_some())?;
        let join = JoinConfig::new(&o.join, at.tau.min(MAX_TAU))?;
        outside_stores(&output, &o.stores)?;
        Ok(VerifyJob {
            stores: o.stores.clone(),
            output,
            at,
            pairs: o.pairs.clone(),
            verify: VerifySpec {
                shard_dir: o.shard_dir.clone(),
                ..verify_spec(&o.similarity)?
            },
            join,
        })
    }
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
