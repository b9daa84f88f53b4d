//! `join`: every pair of the stores' documents within the thresholds (with `--against`, none
//! within the older collection), and the compact `pairs.bin` later jobs reuse.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::options::JoinOptions;
use super::spec::{outside_stores, JoinConfig, Thresholds};
use super::{outputs, steps};
use crate::fingerprint::store::StoreSet;
use crate::join::graph::PairGraph;
use crate::join::plan::MAX_TAU;

/// The `join` job, validated.
#[derive(Clone, Debug)]
pub struct JoinJob {
    /// Stores of the corpus, then the `--against` stores.
    pub stores: Vec<PathBuf>,
    /// How many of `stores` come before the `--against` ones (all when none).
    pub split: usize,
    /// Whether the stores from `split` on are an older collection, not paired within itself.
    pub against: bool,
    /// Pair thresholds.
    pub at: Thresholds,
    /// Plan and backend.
    pub join: JoinConfig,
    /// The TSV (`-` for standard output).
    pub output: PathBuf,
    /// `pairs.bin` to write too.
    pub pairs_bin: Option<PathBuf>,
    /// Units listed as links instead of all their pairs.
    pub collapse_exact: bool,
}

/// The join's options as a caller gives them (the command line's, by name).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct JoinPairs {
    /// Stores of the corpus.
    pub stores: Vec<PathBuf>,
    /// Stores of an older collection: pairs within it are not wanted (within the corpus and
    /// across, as `dedup --against` forms them).
    pub against: Vec<PathBuf>,
    /// Largest 64-bit distance.
    pub tau: u32,
    /// Largest 128-bit distance too.
    pub tau128: Option<u32>,
    /// Plan and backend.
    #[serde(flatten)]
    pub join: JoinOptions,
}

impl Default for JoinPairs {
    fn default() -> Self {
        JoinPairs {
            stores: Vec::new(),
            against: Vec::new(),
            tau: 3,
            tau128: None,
            join: JoinOptions::default(),
        }
    }
}

impl JoinJob {
    /// Validates `o`, with the pairs to go to `output` (the caller writes them) and
    /// `pairs.bin` to `pairs_bin`, identical fingerprints listed as links with
    /// `collapse_exact`.
    pub fn new(
        o: &JoinPairs,
        output: PathBuf,
        pairs_bin: Option<PathBuf>,
        collapse_exact: bool,
    ) -> anyhow::Result<JoinJob> {
        let mut stores = o.stores.clone();
        let split = stores.len();
        stores.extend(o.against.iter().cloned());
        let at = Thresholds::new(o.tau, o.tau128)?;
        let join = JoinConfig::new(&o.join, at.tau.min(MAX_TAU))?;
        outside_stores(&output, &stores)?;
        if let Some(bin) = &pairs_bin {
            outside_stores(bin, &stores)?;
        }
        Ok(JoinJob {
            stores,
            split,
            against: !o.against.is_empty(),
            at,
            join,
            output,
            pairs_bin,
            collapse_exact,
        })
    }
}

/// What a join found.
pub struct Joined {
    /// The stores, in the order given (the corpus, then the `--against` ones).
    pub stores: StoreSet,
    /// The pairs, as units of identical fingerprints and edges between them.
    pub graph: PairGraph,
    /// With `--against`: the first document of the older collection (pairs within it are not
    /// wanted).
    pub old: Option<u32>,
}

/// Runs the join; writes `pairs.bin` when asked.
pub fn join(c: &JoinJob, quiet: bool) -> anyhow::Result<Joined> {
    let stores = StoreSet::open(&c.stores)?;
    let backend = steps::backend(&c.join, quiet)?;
    let graph = steps::join(&stores, &c.join, &backend, c.at, quiet)?.graph;
    if let Some(bin) = &c.pairs_bin {
        steps::write_pairs(bin, &stores, &graph, c.at, None)?;
    }
    let old = c.against.then(|| stores.base(c.split));
    outputs::warn_qualified(&stores);
    Ok(Joined { stores, graph, old })
}

impl Joined {
    /// The pairs, as the TSV lists them: by document index, with `--against` none within the
    /// older collection.
    pub fn pairs(&self) -> Vec<crate::join::types::Pair> {
        let old = self.old;
        self.graph
            .pairs_where(|a, b| crate::join::graph::not_within_old(old, a, b))
    }
}
