//! The plan of a split run, what every task reads first, and what a task reports.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::records::{self, Signature};
use crate::jobs::options::DedupOptions;
use crate::jobs::spec::DedupSpec;

/// Everything a task needs, written once into the work directory (`plan.json`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The output directory.
    pub output: PathBuf,
    /// Where the stages' files go (`output/split`).
    pub work: PathBuf,
    /// Partitions of the key space and of the documents.
    pub partitions: u32,
    /// The dedup options (JSON), as `DedupOptions` reads them.
    pub options: String,
    /// The stores in corpus order: the new collection's, then `--against`'s.
    pub stores: Vec<PlanStore>,
    /// Stores of the new collection (the first ones).
    pub new_stores: usize,
    /// MinHash bands.
    pub bands: u32,
    /// Canonical links make candidates.
    pub canonical: bool,
    /// Documents in all stores.
    pub documents: u64,
    /// Bytes a verify task may give the texts it compares (`--verify-memory`).
    pub verify_memory: u64,
    /// Whether the run sets each site's blocks aside (`--site-blocks aside` over stores with
    /// block keys): the scatter stage then sends every counted page's blocks, and the groups
    /// stage decides which are their site's.
    #[serde(default)]
    pub own: bool,
    /// Block keys (titles included) of every store, for the memory formula.
    #[serde(default)]
    pub block_keys: u64,
}

/// One store of the corpus.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlanStore {
    pub path: PathBuf,
    /// Its documents.
    pub docs: u64,
    /// The corpus number of its first document.
    pub first: u64,
    /// Its manifest's digest when planned ([`Store::manifest_digest`], over every column's
    /// checksum): a store made again or replaced during the run has another.
    ///
    /// [`Store::manifest_digest`]: crate::fingerprint::store::Store::manifest_digest
    pub manifest: String,
}

impl Plan {
    /// The plan in `work`.
    pub fn read(work: &Path) -> anyhow::Result<Plan> {
        let p = work.join("plan.json");
        let text = std::fs::read_to_string(&p).map_err(|e| crate::Error::io(&p, e))?;
        Ok(serde_json::from_str(&text)?)
    }

    /// The dedup options, validated.
    pub fn spec(&self) -> anyhow::Result<DedupSpec> {
        DedupSpec::new(&DedupOptions::from_json(&self.options)?)
    }

    /// Store `s` opened with its checksums checked (the scatter stage, the first to read it),
    /// or, for the tasks after it, without reading it again for them; refused either way
    /// when its documents are not the plan's (the store changed during the run).
    pub fn open_store(
        &self,
        s: usize,
        checksums: bool,
    ) -> anyhow::Result<crate::fingerprint::store::Store> {
        use crate::fingerprint::store::Store;
        let ps = self
            .stores
            .get(s)
            .ok_or_else(|| anyhow::anyhow!("no store {s} in the plan"))?;
        let store = if checksums {
            Store::open(&ps.path)?
        } else {
            Store::open_checked_before(&ps.path)?
        };
        anyhow::ensure!(
            store.len() as u64 == ps.docs,
            "{}: {} documents, {} when the run was planned: the store changed during the run",
            ps.path.display(),
            store.len(),
            ps.docs
        );
        anyhow::ensure!(
            store.manifest_digest() == ps.manifest,
            "{}: not the store the run was planned with (its manifest changed): the store was made again or replaced during the run; run dedup again",
            ps.path.display()
        );
        Ok(store)
    }

    /// The store holding corpus document `d`, and its row there.
    pub fn locate(&self, d: u64) -> (usize, u32) {
        let s = self.stores.partition_point(|s| s.first <= d) - 1;
        (s, (d - self.stores[s].first) as u32)
    }

    /// Documents of the new collection.
    pub fn new_documents(&self) -> u64 {
        self.stores[..self.new_stores].iter().map(|s| s.docs).sum()
    }

    /// The largest store's documents.
    pub fn largest_store(&self) -> u64 {
        self.stores.iter().map(|s| s.docs).max().unwrap_or(0)
    }
}

/// Documents of a verify task's batch of components, at most (a larger component is a
/// batch alone).
pub const BATCH_DOCUMENTS: u64 = 1 << 21;

/// Bytes of the per-node bound that do not grow with the corpus.
pub const BYTES_FIXED: u64 = 96 << 20;

/// The memory bound of each stage's task, by formula, for `plan` (bytes): the numbers that
/// `neardup` prints before the stages run and `summary.json` records beside the peaks.
/// `batch` is the documents of a verify task's batch of components (at most
/// [`BATCH_DOCUMENTS`], or the largest component's).
pub fn memory_per_task(plan: &Plan, batch: u64) -> Vec<(&'static str, u64, String)> {
    let p = u64::from(plan.partitions);
    let n = plan.documents;
    let keys = u64::from(plan.bands) + 3;
    let share = (n * keys).div_ceil(p);
    // With own content, three more partitioned files (blocks with their titles, their hosts
    // and their documents), and each block of a page up to three times in a partition's share.
    let files = if plan.own { 2 } else { 1 };
    let blocks = (3 * plan.block_keys).div_ceil(p);
    vec![
        (
            "scatter",
            BYTES_FIXED + files * p * records::BUFFER as u64,
            format!(
                "96 MB + partitions x {} KB of buffers{}",
                records::BUFFER >> 10,
                if plan.own { " x 2 (own content's files)" } else { "" }
            ),
        ),
        (
            "groups",
            BYTES_FIXED + 48 * (share + blocks),
            format!(
                "96 MB + 48 B x ((bands + 3) x documents + 3 x block keys) / partitions = 48 B x {} keys",
                share + blocks
            ),
        ),
        (
            "components",
            BYTES_FIXED + 48 * (2 * n).div_ceil(p),
            "96 MB + 48 B x 2 edges a joined document / partitions (a giant component's centre holds its edges on one node)".to_string(),
        ),
        (
            "verify",
            crate::cluster::leaders::memory_bound(batch, plan.verify_memory),
            format!(
                "96 MB + {} B x documents of a batch of components (at most {}, or the largest component: {batch}) + --verify-memory",
                crate::cluster::leaders::BYTES_PER_DOCUMENT,
                BATCH_DOCUMENTS
            ),
        ),
        (
            "lists",
            BYTES_FIXED + 64 * plan.largest_store(),
            "96 MB + 64 B x the largest store's documents".to_string(),
        ),
    ]
}

/// The output directories this process planned split runs into, each claimed (and locked)
/// from the plan to the gather, so that no other run writes there between.
pub(super) fn held() -> std::sync::MutexGuard<'static, Vec<(PathBuf, crate::base::claim::OutDir)>> {
    static HELD: std::sync::Mutex<Vec<(PathBuf, crate::base::claim::OutDir)>> =
        std::sync::Mutex::new(Vec::new());
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

/// The claim on `out` this process took when it planned the run, if it did (the driver
/// gathers where it planned).
pub(super) fn take_held(out: &Path) -> Option<crate::base::claim::OutDir> {
    let out = crate::base::paths::resolve(out);
    let mut h = held();
    let i = h.iter().position(|(o, _)| *o == out)?;
    Some(h.swap_remove(i).1)
}

/// What a split run writes into its output directory.
pub const OUTPUTS: [&str; 5] = [
    "summary.json",
    crate::cluster::file::NAME,
    crate::report::lists::KEEP,
    crate::report::lists::REMOVE,
    crate::report::lists::EXCLUDED,
];

/// The work directory of a split run in its output directory: a temporary named after the
/// process that planned the run, recorded as neardup's before it is made, so that the next
/// run removes what a killed or failed run left there.
pub fn work_dir(out: &Path) -> PathBuf {
    out.join(format!("split.tmp-{}", std::process::id()))
}

/// What one task did, for `summary.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TaskStats {
    /// The stage.
    pub stage: String,
    /// The task's part (its store or partition).
    pub part: u32,
    /// The node it ran on (its host name).
    pub node: String,
    /// Wall seconds.
    pub seconds: f64,
    /// CPU seconds of its process over the task (user and system).
    pub cpu_seconds: f64,
    /// Peak resident memory of its process over the task, bytes.
    pub peak_rss: Option<u64>,
    /// Resident memory of its process when the task started (a worker's own: the
    /// interpreter, libraries, what earlier tasks left mapped), bytes.
    pub start_rss: Option<u64>,
    /// The stage's own numbers (edges, components, lines...).
    pub counts: serde_json::Map<String, serde_json::Value>,
    /// The components step's signature of its input edges.
    pub signature: Option<Signature>,
}
