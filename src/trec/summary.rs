//! The summaries the TREC tools write beside their outputs (`trec.json`, `QRELS.json`,
//! `inspect.json`, `TRANSFERRED.json`), typed: every field is named here once and documented
//! in docs/FORMATS.md. Fields are in alphabetical order, as the files have always had them.

use std::path::PathBuf;

use serde::Serialize;

use super::dedup::{QrelsStats, Rule, RunStats};
use super::format::{BadLine, Kind};
use super::transfer::LevelRow;
use crate::cluster::star::RemoveBy;

/// One run of `trec run`.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// Lines that could not be read.
    pub bad_lines: Vec<BadLine>,
    /// The run read.
    pub input: PathBuf,
    /// The run written.
    pub output: PathBuf,
    /// What deduplicating it did.
    pub stats: RunStats,
}

/// `trec.json`: what `trec run` did.
#[derive(Clone, Debug, Serialize)]
pub struct RunsSummary {
    /// Which document stands for a group: its star's kept document or the representative.
    pub by: RemoveBy,
    /// The clusters file read.
    pub clusters: PathBuf,
    /// Whether it had the `kept` column.
    pub kept_column: bool,
    /// What was done to near-duplicates in a ranking.
    pub rule: Rule,
    /// Each run.
    pub runs: Vec<RunReport>,
}

/// `QRELS.json`: what `trec qrels` did.
#[derive(Clone, Debug, Serialize)]
pub struct QrelsSummary {
    /// Lines that could not be read.
    pub bad_lines: Vec<BadLine>,
    /// Which document stands for a group.
    pub by: RemoveBy,
    /// The clusters file read.
    pub clusters: PathBuf,
    /// The qrels read.
    pub input: PathBuf,
    /// Whether the clusters file had the `kept` column.
    pub kept_column: bool,
    /// The qrels written.
    pub output: PathBuf,
    /// What deduplicating them did.
    pub stats: QrelsStats,
}

/// One file of `trec inspect`.
#[derive(Clone, Debug, Serialize)]
pub struct InspectFile {
    /// Lines that could not be read.
    pub bad_lines: Vec<BadLine>,
    /// Entries read.
    pub entries: u64,
    /// The file.
    pub file: PathBuf,
    /// Entries whose document is in the corpus.
    pub found: u64,
    /// Share of the found entries judged not relevant that are near-duplicates (qrels only).
    pub irrelevant_share: Option<f64>,
    /// Run or qrels.
    pub kind: Kind,
    /// Found entries that are near-duplicates of a better-ranked (or another) one.
    pub near_duplicates: u64,
    /// Near-duplicate pairs not listed in pairs.tsv (over the per-topic limit).
    pub pairs_not_listed: u64,
    /// Relevant found entries (qrels only).
    pub relevant: Option<u64>,
    /// Share of the relevant ones that are near-duplicates (qrels only).
    pub relevant_share: Option<f64>,
    /// near_duplicates / found.
    pub share: f64,
    /// Topics.
    pub topics: usize,
}

/// `inspect.json`: what `trec inspect` found.
#[derive(Clone, Debug, Serialize)]
pub struct InspectSummary {
    /// Documents read again to compare.
    pub documents_read: u64,
    /// Each file.
    pub files: Vec<InspectFile>,
    /// The measure's threshold.
    pub min: f64,
    /// The measure.
    pub measure: String,
    /// Terms per shingle.
    pub shingle: usize,
    /// Entries per topic inspected.
    pub top: usize,
}

/// `TRANSFERRED.json`: what `trec transfer` did.
#[derive(Clone, Debug, Serialize)]
pub struct TransferSummary {
    /// Lines that could not be read.
    pub bad_lines: Vec<BadLine>,
    /// Pairs compared on their text.
    pub compared: u64,
    /// The stores of the judged crawl.
    pub from: Vec<PathBuf>,
    /// The qrels read.
    pub input: PathBuf,
    /// Each relevance grade's judgments and what became of them.
    pub levels: Vec<LevelRow>,
    /// The largest canonical class taken whole.
    pub max_class: usize,
    /// The measure.
    pub measure: String,
    /// The measure's threshold.
    pub min: f64,
    /// The qrels written.
    pub output: PathBuf,
    /// Records written.
    pub records_written: usize,
    /// Terms per shingle.
    pub shingle: usize,
    /// Canonical links shared by too many pages to be taken as one page's.
    pub site_wide_links: u64,
    /// The stores of the new crawl.
    pub to: Vec<PathBuf>,
}
