//! `summary.json`: every parameter and count of a `dedup`, `sweep` or `cluster` run, in one
//! typed schema for the three (docs/FORMATS.md). It is written last, so its presence marks a
//! finished run; parts a command does not produce are `null`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::atomic;
use crate::cluster::{Level, Representative};
use crate::fingerprint::store::{Filters, Stats};
use crate::fingerprint::Params;
use crate::join::graph::PairGraph;
use crate::join::plan::{Method, PlanSpec};
use crate::join::BackendChoice;
use crate::Result;

/// The command that wrote a summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Command {
    /// `neardup dedup`.
    Dedup,
    /// `neardup sweep`.
    Sweep,
    /// `neardup cluster`.
    Cluster,
}

/// The whole of `summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    /// The command.
    pub command: Command,
    /// The program and version that wrote it.
    pub created_by: String,
    /// Crawl inputs (`dedup`; empty otherwise).
    pub inputs: Vec<PathBuf>,
    /// The stores joined, in order.
    pub stores: Vec<PathBuf>,
    /// A digest of the stores' fingerprints and flags, in order (an `--against` run's older
    /// stores after its own): `report` and `explain` refuse stores that are not the ones the run
    /// read. Absent in summaries of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stores_digest: Option<String>,
    /// The pairs file read (`--pairs`) or written (`dedup`), if any.
    pub pairs_file: Option<PathBuf>,
    /// Wall time of the whole run, seconds (the report page's own time is `report.seconds`).
    pub seconds: f64,
    /// Documents in the stores.
    pub documents: u64,
    /// Documents joined.
    pub joined: u64,
    /// Documents left out of the join (too short, no features); kept as singletons.
    pub excluded: u64,
    /// How the store was built (`dedup`).
    pub fingerprint: Option<FingerprintSummary>,
    /// The join.
    pub join: JoinSummary,
    /// The sweep (`dedup`, `sweep`).
    pub sweep: Option<SweepSummary>,
    /// Clusters and lists at one threshold (`dedup`, `cluster`).
    pub clusters: Option<ClustersSummary>,
    /// Text verification of the candidate pairs (`dedup --verify`); absent when the sweep and
    /// clusters stand on SimHash alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<VerificationSummary>,
    /// A new collection deduplicated against an older one (`dedup --against`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub against: Option<AgainstSummary>,
    /// Candidates from canonical links (`dedup --canonical`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<crate::join::canonical::CanonicalStats>,
    /// Typed tables written (`dedup --tables`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<PathBuf>,
    /// The kept documents written out (`dedup --write-corpus`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus: Option<CorpusSummary>,
    /// The bound on the peak resident memory of `dedup`'s stages after fingerprinting,
    /// printed before they start (`cluster::leaders::memory_bound`), bytes; absent on the
    /// all-pairs path, whose memory follows the pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bound: Option<u64>,
    /// The removal audit per site (`dedup`): `sites.tsv`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sites: Option<SitesSummary>,
    /// Each stage's wall time and peak resident memory, in order (`dedup`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<StageSummary>,
    /// The report page (`dedup`): `report.html`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportSummary>,
    /// The stages after fingerprinting split into tasks over partitions (`dedup
    /// --partitions N`, `neardup.ray.dedup(..., partitions=N)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<SplitSummary>,
}

/// A split run: its partitions, what its stages found, and what their tasks took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitSummary {
    /// Partitions of the key space and of the documents.
    pub partitions: u32,
    /// Large-star and small-star steps the components stage took.
    pub components_steps: u64,
    /// Components of two or more documents verified, and their documents.
    pub components: u64,
    pub documents_in_components: u64,
    /// Keys scattered, and the groups' spanning-forest edges.
    pub keys: u64,
    pub forest_edges: u64,
    /// The bound on a task's memory per stage, by formula.
    pub memory_per_task: Vec<TaskMemory>,
    /// Per stage: its tasks, critical path, CPU and memory, per node.
    pub stages: Vec<SplitStage>,
}

/// A stage's bound on the memory of one of its tasks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskMemory {
    pub stage: String,
    /// Bytes.
    pub bytes: u64,
    /// How the bound is made.
    pub formula: String,
}

/// One stage of a split run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitStage {
    pub name: String,
    pub tasks: u64,
    /// The slowest task of each round of tasks that ran together, summed: in wall seconds,
    /// and in CPU seconds (what a round takes on nodes that do not share cores).
    pub critical_path_seconds: f64,
    pub critical_path_cpu_seconds: f64,
    /// CPU seconds of all its tasks.
    pub cpu_seconds: f64,
    /// The largest peak resident memory of a task's process, and the largest growth over its
    /// start (bytes).
    pub peak_rss_per_task: Option<u64>,
    pub peak_growth_per_task: u64,
    /// Per node.
    pub nodes: Vec<SplitNode>,
}

/// What one node did in a stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitNode {
    pub node: String,
    pub tasks: u64,
    pub seconds: f64,
    pub cpu_seconds: f64,
    pub peak_rss: u64,
    pub peak_growth: u64,
}

/// One stage of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StageSummary {
    /// `fingerprint`, `candidates and verification`, `sweep`, `clusters and lists`, ...
    pub name: String,
    /// Wall time, seconds.
    pub seconds: f64,
    /// The peak resident memory of the process during the stage, bytes (Linux; absent
    /// elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss: Option<u64>,
}

/// What the report page holds and what it took.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportSummary {
    /// Its size, bytes.
    pub bytes: u64,
    /// Removed pages shown beside their kept page.
    pub pairs: u64,
    /// Of them, shown without their texts: a shard could not be read again.
    pub pairs_without_text: u64,
    /// Sites in its audit table (the most removed first; every one is in `sites.tsv`).
    pub sites: u64,
    /// Time to build and write it, seconds.
    pub seconds: f64,
}

/// The removal audit in short: the crawl's rate and the sites removed far above it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SitesSummary {
    /// Sites (hosts) with documents that could be removed.
    pub sites: u64,
    /// Documents audited.
    pub documents: u64,
    /// Documents removed.
    pub removed: u64,
    /// The crawl's removal rate.
    pub removal_rate: f64,
    /// The rule a flagged site meets.
    pub rule: String,
    /// The flagged sites, most removed first.
    pub flagged: Vec<crate::report::sites::Row>,
    /// Documents compared on their full text under `--text main` for lack of main content
    /// (per site in `sites.tsv`).
    #[serde(default)]
    pub full_text: u64,
}

/// A corpus written out: its directory's manifest, in short.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusSummary {
    /// The directory.
    pub dir: PathBuf,
    /// The shards' format (`warc.gz`, `jsonl.gz`, `parquet`).
    pub format: String,
    /// Documents written.
    pub documents: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Shards written.
    pub shards: u64,
    /// Kept documents whose record was not found again (named in the corpus manifest).
    pub missing: u64,
    /// Labeled paragraphs dropped.
    pub dropped_paragraphs: u64,
    /// Seconds the writing took.
    pub seconds: f64,
}

/// `dedup NEW --against OLD`: the two sides and what crossed between them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgainstSummary {
    /// The older collection's stores.
    pub old_stores: Vec<PathBuf>,
    /// Documents of the new collection (the lists' documents).
    pub new_documents: u64,
    /// Documents of the older collection (never removed).
    pub old_documents: u64,
    /// Pairs within the lists' thresholds (verified when verifying) with one document on each
    /// side; pairs within the older collection are not formed.
    pub cross_pairs: u64,
    /// Such pairs within the new collection.
    pub new_pairs: u64,
    /// New documents removed for an old one.
    pub removed_for_old: u64,
    /// New documents removed for a new one.
    pub removed_for_new: u64,
}

/// How the candidate pairs were verified on the documents' text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerificationSummary {
    /// The measure that decides (`s3`, `jaccard`, `containment`).
    pub measure: String,
    /// Its threshold.
    pub min: f64,
    /// Terms per shingle.
    pub shingle: usize,
    /// Candidate document pairs (within the sweep's largest tau).
    pub candidate_pairs: u64,
    /// Of them, verified.
    pub verified_pairs: u64,
    /// Of them, pairs not compared: their texts were already joined by verified pairs at a
    /// distance no larger than theirs (only with `dedup --skip-joined`).
    #[serde(default)]
    pub not_compared_pairs: u64,
    /// Text comparisons made (pairs of distinct texts).
    pub comparisons: u64,
    /// Documents read again from their shards.
    pub documents_read: u64,
    /// Shingle sets taken from the stores, which kept them when fingerprinting (`--shingles`,
    /// `dedup --keep-shingles`), instead of reading the documents again.
    #[serde(default)]
    pub sets_from_store: u64,
    /// Shingle sets this run's fingerprinting kept for pages with a candidate fingerprinted
    /// before them (`fingerprint::early_sets`), instead of reading them again.
    #[serde(default)]
    pub sets_from_fingerprinting: u64,
    /// Their payload (HTML or text), bytes.
    #[serde(default)]
    pub payload_bytes: u64,
    /// Their text, bytes.
    pub text_bytes: u64,
    /// Wall time of verification, seconds.
    pub seconds: f64,
    /// How the texts were compared with the kept texts of their runs (the default; absent
    /// when every candidate pair was verified). `candidate_pairs` and `verified_pairs` then
    /// count the removals' pairs only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaders: Option<crate::cluster::leaders::LeaderStats>,
    /// Pages were compared on their own content: what the count of their sites' blocks found
    /// (absent with `--site-blocks keep`, full text, or stores without block keys).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_content: Option<OwnContentSummary>,
}

/// How pages were compared on their own content (`dedup --site-blocks aside`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnContentSummary {
    /// The rule a block is its site's by.
    pub rule: String,
    /// Hosts with enough pages for a block to be their site's.
    pub hosts: u64,
    /// Distinct blocks found to be their site's.
    pub site_blocks: u64,
    /// Pages with at least one of them.
    pub pages_with_site_blocks: u64,
    /// Passes over the block keys the count took.
    pub passes: u32,
    /// Wall time of the count, seconds.
    pub seconds: f64,
}

/// How the store of a `dedup` run was built.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FingerprintSummary {
    /// The store.
    pub store: PathBuf,
    /// Shards read.
    pub shards: u64,
    /// Shards that could not be read at all, with the reason.
    pub shards_failed: Vec<String>,
    /// Fingerprint parameters.
    pub params: Params,
    /// Record filters.
    pub filters: Filters,
    /// Build statistics.
    pub stats: Stats,
}

/// The join: its options, thresholds and result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinSummary {
    /// Exact or random.
    pub method: Method,
    /// Blocks of an exact plan, when set by hand.
    pub blocks: Option<usize>,
    /// Key bits per random table.
    pub bits: u32,
    /// Random tables.
    pub iterations: u32,
    /// Seed of the random tables.
    pub seed: u64,
    /// The backend asked for.
    pub backend: BackendChoice,
    /// The adapter asked for.
    pub adapter: Option<String>,
    /// 64-bit threshold of the pairs.
    pub tau: u32,
    /// 128-bit threshold of the pairs, when filtered.
    pub tau128: Option<u32>,
    /// Document pairs.
    pub pairs: u64,
    /// Of which at 64-bit distance 0 with equal 128-bit fingerprints (inside units).
    pub exact_pairs: u64,
    /// Units of identical fingerprints.
    pub units: u64,
    /// Edges between units.
    pub edges: u64,
    /// How the join ran here; `null` when it was read from a pairs file.
    pub ran: Option<JoinRun>,
}

/// How a join ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinRun {
    /// The plan's description.
    pub plan: String,
    /// Where the comparisons ran: "cpu" or "gpu (ADAPTER)".
    pub backend: String,
    /// Wall time of the join, seconds.
    pub seconds: f64,
}

impl JoinSummary {
    /// The summary of the join `g` made (or read) with `plan` options at `tau` and `tau128`.
    pub fn new(
        plan: &PlanSpec,
        backend: BackendChoice,
        adapter: Option<String>,
        (tau, tau128): (u32, Option<u32>),
        g: &PairGraph,
        ran: Option<JoinRun>,
    ) -> Self {
        JoinSummary {
            method: plan.method,
            blocks: plan.blocks,
            bits: plan.bits,
            iterations: plan.iterations,
            seed: plan.seed,
            backend,
            adapter,
            tau,
            tau128,
            pairs: g.pair_count(),
            exact_pairs: g.exact_pairs(),
            units: g.units() as u64,
            edges: g.edges.len() as u64,
            ran,
        }
    }
}

/// A threshold sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSummary {
    /// "tau" (64-bit) or "tau128" (128-bit at a fixed 64-bit threshold).
    pub axis: String,
    /// The fixed 64-bit threshold of a 128-bit sweep.
    pub tau64: Option<u32>,
    /// The largest threshold swept.
    pub max: u32,
    /// One row per threshold.
    pub levels: Vec<Level>,
    /// Verified sweeps: candidates and precision per threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<Vec<crate::cluster::quality::Quality>>,
}

/// The keep policy of a run: what ranked the copies of a group before the representative rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicySummary {
    /// `--prefer`: stores whose documents are kept first, in this order.
    pub prefer: Vec<std::path::PathBuf>,
    /// `--keep-by`: the field (or column, or `WARC-Date`) whose number decides.
    pub keep_by: Option<String>,
    /// Which end of the numbers is kept: `max` or `min`.
    pub order: Option<crate::cluster::policy::Order>,
    /// Documents without a number in that field, ranked after every one with a number.
    pub documents_without_value: u64,
}

/// Clusters and lists at one threshold.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClustersSummary {
    /// 64-bit threshold.
    pub tau: u32,
    /// 128-bit threshold, when filtered.
    pub tau128: Option<u32>,
    /// How representatives were chosen (after the keep policy, where one is set).
    pub representative: Representative,
    /// The keep policy that ranked the copies before the representative rule (`--prefer`,
    /// `--keep-by`); absent when none was set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicySummary>,
    /// How the remove list was made: by stars (near-duplicates of a kept document) or by
    /// component.
    #[serde(default)]
    pub remove_by: crate::cluster::star::RemoveBy,
    /// Clusters, singletons included.
    pub clusters: u64,
    /// Clusters of two or more documents.
    pub clusters_of_two_or_more: u64,
    /// Documents in the largest cluster.
    pub largest_cluster: u64,
    /// Lines of `keep.txt`.
    pub keep: u64,
    /// Lines of `remove.tsv`.
    pub remove: u64,
    /// Lines of `excluded.tsv`.
    pub excluded: u64,
    /// Documents whose id is not unique among the stores, named `ID#N` in the lists.
    #[serde(default)]
    pub qualified_ids: u64,
    /// Of `remove`, those naming a document of the older collection (`dedup --against`;
    /// reported in `summary.json`'s `against`).
    #[serde(skip)]
    pub remove_for_old: u64,
}

impl Summary {
    /// Writes `dir/summary.json` atomically.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let body = serde_json::to_string_pretty(self).expect("a summary always serialises") + "\n";
        atomic::write(&dir.join("summary.json"), body.as_bytes())
    }

    /// Reads `dir/summary.json`.
    pub fn read(dir: &Path) -> Result<Summary> {
        let path = dir.join("summary.json");
        let text = std::fs::read_to_string(&path).map_err(|e| crate::Error::io(&path, e))?;
        serde_json::from_str(&text).map_err(|e| crate::Error::Parse {
            path,
            offset: 0,
            msg: e.to_string(),
        })
    }
}

/// What wrote a summary: this program and its version.
pub fn created_by() -> String {
    format!("neardup {}", env!("CARGO_PKG_VERSION"))
}
