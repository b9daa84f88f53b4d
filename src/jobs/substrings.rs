//! `neardup substrings`: repeated spans of at least `--min-tokens` words among the kept
//! documents ([`crate::reuse::spans`]), each occurrence but the first removed (or every one,
//! `--all-copies`). The documents' texts are read again from their shards, as verification
//! reads them; the removed byte ranges of each document's normalised text go to
//! `removed.tsv`, what was found to `summary.json`.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Outcome;
use crate::base::atomic;
use crate::base::claim::OutDir;
use crate::base::tsv::tsv_field;
use crate::fingerprint::store::StoreSet;
use crate::reuse::spans;
use crate::verify::reread;

/// The job's options, by name (the command line's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SubstringsJob {
    /// Stores of the corpus, in order (the first occurrence is the first in this order).
    pub stores: Vec<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// The shortest span removed, in words.
    pub min_tokens: usize,
    /// Remove every occurrence of a repeated span, the first too (Lee et al.).
    pub all_copies: bool,
    /// A keep list (`dedup`'s `keep.txt`): only its documents are read (default: all).
    pub keep: Option<PathBuf>,
    /// Where the shards are now, if they moved since fingerprinting.
    pub shard_dir: Option<PathBuf>,
    /// The most repeated spans named in the summary.
    pub top: usize,
    /// Write the documents read, their repeated spans cut, into `OUT/corpus` (JSON lines or
    /// Parquet).
    pub write_corpus: Option<crate::write::Format>,
    /// Target size of a corpus shard, in bytes.
    pub shard_size: u64,
    /// Windows sorted at a time, in bytes ([`spans::WINDOW_BYTES`] each): more makes more
    /// passes over the texts.
    #[serde(deserialize_with = "super::options::size")]
    pub memory: u64,
}

impl Default for SubstringsJob {
    fn default() -> Self {
        SubstringsJob {
            stores: Vec::new(),
            output: PathBuf::new(),
            min_tokens: 50,
            all_copies: false,
            keep: None,
            shard_dir: None,
            top: 20,
            write_corpus: None,
            shard_size: 1 << 30,
            memory: 1 << 30,
        }
    }
}

/// A span of the summary: how often its first window occurs, where it is first, and its text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TopSpan {
    /// Occurrences of its first `min_tokens` words.
    pub count: u64,
    /// The document of its first occurrence.
    pub id: String,
    /// Its first `min_tokens` words as the text has them (at most 400 bytes, cut at a
    /// character).
    pub sample: String,
}

/// `summary.json` of `substrings`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubstringsSummary {
    /// `substrings`.
    pub command: String,
    /// The program and version.
    pub created_by: String,
    /// The stores read.
    pub stores: Vec<PathBuf>,
    /// The shortest span removed, in words.
    pub min_tokens: usize,
    /// Every occurrence removed.
    pub all_copies: bool,
    /// Documents read.
    pub documents: u64,
    /// Documents with a span removed.
    pub documents_touched: u64,
    /// Bytes of normalised text read.
    pub text_bytes: u64,
    /// Bytes removed.
    pub bytes_removed: u64,
    /// Windows of `min_tokens` words.
    pub windows: u64,
    /// Windows marked.
    pub windows_marked: u64,
    /// The most repeated spans.
    pub top: Vec<TopSpan>,
    /// The corpus written with the spans cut (`--write-corpus`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus: Option<crate::report::summary::CorpusSummary>,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// The outputs `substrings` writes.
pub const OUTPUTS: &[&str] = &["removed.tsv", "summary.json"];

/// What [`spans_of`] found among the documents read.
pub struct Found {
    /// The summary (its `corpus` and `seconds` left to the caller).
    pub summary: SubstringsSummary,
    /// Each document's removed byte ranges (the documents with one).
    pub cut: crate::write::Cuts,
    /// The documents read, in store order.
    pub docs: Vec<u32>,
    /// Documents not found again in their shards.
    pub missing: usize,
}

/// Finds the repeated spans among the documents `docs` of `stores` as `job` says (its stores,
/// output and corpus options aside) and writes the removed ranges to `removed` (a file of an
/// output directory the caller has claimed).
pub fn spans_of(
    stores: &StoreSet,
    docs: &[u32],
    job: &SubstringsJob,
    removed: &std::path::Path,
    quiet: bool,
) -> anyhow::Result<Found> {
    anyhow::ensure!(job.min_tokens >= 1, "--min-tokens must be at least 1");
    if !quiet {
        say!(
            "substrings: reading {} documents again for spans of {} words or more",
            docs.len(),
            job.min_tokens
        );
    }
    let found = reread::for_each_text(
        stores,
        docs,
        job.shard_dir.as_deref(),
        || (),
        |_, _, text| text.to_string(),
    )?;
    let mut texts = found.values;
    texts.sort_unstable_by_key(|(d, _)| *d);
    let refs: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).collect();
    let s = spans::find(&refs, job.min_tokens, job.all_copies, job.top, job.memory);
    let mut tsv = String::from("id\tstart\tend\tbytes\n");
    let mut touched = 0u64;
    let mut removed_bytes = 0u64;
    for ((d, _), ranges) in texts.iter().zip(&s.removed) {
        if !ranges.is_empty() {
            touched += 1;
        }
        for &(a, b) in ranges {
            removed_bytes += u64::from(b - a);
            let _ = writeln!(tsv, "{}\t{a}\t{b}\t{}", tsv_field(stores.id(*d)), b - a);
        }
    }
    atomic::write(removed, tsv.as_bytes())?;
    let top = s
        .top
        .iter()
        .map(|r| {
            let (d, text) = &texts[r.doc as usize];
            let w = spans::words(text);
            let (a, b) = (
                w[r.word as usize].0 as usize,
                w[r.word as usize + job.min_tokens - 1].1 as usize,
            );
            let mut end = b.min(a + 400);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            TopSpan {
                count: r.count,
                id: stores.id(*d).to_string(),
                sample: text[a..end].to_string(),
            }
        })
        .collect();
    let summary = SubstringsSummary {
        command: "substrings".into(),
        created_by: crate::report::summary::created_by(),
        stores: stores
            .stores()
            .iter()
            .map(|s| s.path().to_path_buf())
            .collect(),
        min_tokens: job.min_tokens,
        all_copies: job.all_copies,
        documents: texts.len() as u64,
        documents_touched: touched,
        text_bytes: texts.iter().map(|(_, t)| t.len() as u64).sum(),
        bytes_removed: removed_bytes,
        windows: s.windows,
        windows_marked: s.marked,
        top,
        corpus: None,
        seconds: 0.0,
    };
    let cut = texts
        .iter()
        .zip(&s.removed)
        .filter(|(_, r)| !r.is_empty())
        .map(|((d, _), r)| (*d, r.clone()))
        .collect();
    if !quiet {
        say!(
            "substrings: {} of {} bytes removed from {} of {} documents ({} of {} windows)",
            summary.bytes_removed,
            summary.text_bytes,
            summary.documents_touched,
            summary.documents,
            summary.windows_marked,
            summary.windows
        );
    }
    Ok(Found {
        summary,
        cut,
        docs: texts.iter().map(|(d, _)| *d).collect(),
        missing: found.missing.len(),
    })
}

/// Writes the summary `s` to `path`.
pub fn write_summary(path: &std::path::Path, s: &SubstringsSummary) -> anyhow::Result<()> {
    atomic::write(path, serde_json::to_string_pretty(s)?.as_bytes())?;
    Ok(())
}

/// Runs the job.
pub fn substrings(
    job: &SubstringsJob,
    quiet: bool,
) -> anyhow::Result<(SubstringsSummary, Outcome)> {
    let started = std::time::Instant::now();
    anyhow::ensure!(!job.stores.is_empty(), "give at least one store");
    let stores = StoreSet::open(&job.stores)?;
    let mut inputs = job.stores.clone();
    inputs.extend(job.keep.iter().cloned());
    if job.write_corpus == Some(crate::write::Format::WarcGz) {
        anyhow::bail!("--write-corpus warc.gz copies records as they were, and cut spans change the text: write jsonl.gz or parquet");
    }
    let claimed = OutDir::claim(&job.output, &inputs)?;
    claimed.reserve(OUTPUTS)?;
    if job.write_corpus.is_some() {
        claimed.reserve(&["corpus"])?;
    }
    let docs: Vec<u32> = match &job.keep {
        None => (0..stores.len() as u32).collect(),
        Some(path) => {
            let mut wanted = HashSet::new();
            crate::report::lists::read_keep(path, |id, _| {
                wanted.insert(id.to_string());
                Ok(())
            })?;
            (0..stores.len() as u32)
                .filter(|d| wanted.contains(stores.id(*d)))
                .collect()
        }
    };
    let f = spans_of(&stores, &docs, job, &job.output.join("removed.tsv"), quiet)?;
    let corpus = match job.write_corpus {
        None => None,
        Some(format) => {
            let out = job.output.join("corpus");
            let c = crate::write::claim(&out, &stores, job.shard_dir.as_deref(), true)?;
            let kept: Vec<crate::write::Kept> = f
                .docs
                .iter()
                .map(|d| crate::write::Kept {
                    doc: *d,
                    cluster: *d,
                    cluster_size: 1,
                    duplicates: 0,
                })
                .collect();
            let cfg = crate::write::Config {
                format,
                dir: out.clone(),
                shard_size: job.shard_size,
                shard_dir: job.shard_dir.clone(),
                drop_labels: None,
                cut: Some(std::sync::Arc::new(f.cut)),
            };
            let m = crate::write::write(&stores, &kept, &cfg)?;
            c.finish()?;
            Some(super::outputs::corpus_summary(&out, &m))
        }
    };
    let mut summary = f.summary;
    summary.stores = job.stores.clone();
    summary.corpus = corpus;
    summary.seconds = started.elapsed().as_secs_f64();
    write_summary(&job.output.join("summary.json"), &summary)?;
    claimed.finish()?;
    if !quiet {
        say!(
            "substrings: done in {:.2} s; outputs in {}",
            summary.seconds,
            job.output.display()
        );
    }
    let outcome = if f.missing == 0 {
        Outcome::Clean
    } else {
        say_error!(
            "{} documents were not found again in their shards; they are left out",
            f.missing
        );
        Outcome::Partial
    };
    Ok((summary, outcome))
}
