//! `neardup substrings`: repeated spans of at least `--min-tokens` words among the kept
//! documents ([`crate::reuse::spans`]), each occurrence but the first removed (or every one,
//! `--all-copies`). The documents' texts are read again from their shards, as verification
//! reads them; the removed byte ranges of each document's normalised text go to
//! `removed.tsv`, what was found to `summary.json`.

use std::io::Write as _;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Outcome;
use crate::base::atomic;
use crate::base::claim::OutDir;
use crate::base::spool::SpoolWriter;
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
    /// Memory for the table of seen windows and the windows of a pass, in bytes (half for
    /// the table, [`spans::WINDOW_BYTES`] a window taken): less makes more passes over the
    /// texts.
    #[serde(deserialize_with = "super::options::size")]
    pub memory: u64,
    /// Also write the words as fixed-width tokens ([`write_tokens`]).
    pub write_tokens: bool,
    /// Replace what another command wrote in the output directory.
    pub force: bool,
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
            write_tokens: false,
            force: false,
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
    /// Passes over the texts (more when the windows do not fit `--memory` at once).
    #[serde(default)]
    pub passes: u32,
    /// The most repeated spans.
    pub top: Vec<TopSpan>,
    /// The corpus written with the spans cut (`--write-corpus`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corpus: Option<crate::report::summary::CorpusSummary>,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// The least `--memory` substrings works within.
pub const MIN_MEMORY: u64 = 1 << 20;

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
    // The texts are set aside on disk, beside the outputs, for the passes to read again.
    let dir = removed.parent().unwrap_or(std::path::Path::new("."));
    let spool = SpoolWriter::create_in(dir, "substrings.spool")?;
    // Each window's hash is noted as the texts are read (see `spans::Seen`).
    let bytes: u64 = docs.iter().map(|&d| u64::from(stores.text_len(d))).sum();
    let seen = spans::Seen::new(job.min_tokens, bytes, job.memory);
    let found = reread::for_each_text(
        stores,
        docs,
        job.shard_dir.as_deref(),
        Vec::new,
        |hashes, _, text| {
            seen.note(text, hashes);
            spool.append(text)
        },
    )?;
    let mut places = Vec::with_capacity(found.values.len());
    for (d, p) in found.values {
        places.push((d, p?));
    }
    places.sort_unstable_by_key(|(d, _)| *d);
    let present: Vec<u32> = places.iter().map(|(d, _)| *d).collect();
    let spool = spool.finish(&places.into_iter().map(|(_, p)| p).collect::<Vec<_>>())?;
    if job.write_tokens {
        let ids: Vec<&str> = present.iter().map(|d| stores.id(*d)).collect();
        write_tokens(&spool, &ids, dir)?;
    }
    let progress = |pass: u64, passes: u64, windows: u64| {
        if !quiet {
            say!("substrings: pass {pass} of {passes}, about {windows} windows to sort and check");
        }
    };
    let s = spans::find_seen(&spool, seen, job.all_copies, job.top, job.memory, &progress)?;
    // The atomic file buffers its writes.
    let mut tsv = atomic::AtomicFile::create(removed)?;
    let io = |e| crate::Error::io(removed, e);
    writeln!(tsv, "id\tstart\tend\tbytes").map_err(io)?;
    let mut touched = 0u64;
    let mut removed_bytes = 0u64;
    for (d, ranges) in present.iter().zip(&s.removed) {
        if !ranges.is_empty() {
            touched += 1;
        }
        for &(a, b) in ranges {
            removed_bytes += u64::from(b - a);
            let id = tsv_field(stores.id(*d));
            writeln!(tsv, "{id}\t{a}\t{b}\t{}", b - a).map_err(io)?;
        }
    }
    tsv.commit()?;
    let mut buf = Vec::new();
    let top = s
        .top
        .iter()
        .map(|r| -> anyhow::Result<TopSpan> {
            let d = &present[r.doc as usize];
            let text = spool.get(r.doc, &mut buf)?;
            let w = spans::words(text);
            let (a, b) = (
                w[r.word as usize].0 as usize,
                w[r.word as usize + job.min_tokens - 1].1 as usize,
            );
            let mut end = b.min(a + 400);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            Ok(TopSpan {
                count: r.count,
                id: stores.id(*d).to_string(),
                sample: text[a..end].to_string(),
            })
        })
        .collect::<anyhow::Result<_>>()?;
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
        documents: present.len() as u64,
        documents_touched: touched,
        text_bytes: spool.bytes(),
        bytes_removed: removed_bytes,
        windows: s.windows,
        windows_marked: s.marked,
        passes: s.passes,
        top,
        corpus: None,
        seconds: 0.0,
    };
    let cut = present
        .iter()
        .zip(s.removed)
        .filter(|(_, r)| !r.is_empty())
        .map(|(d, r)| (*d, r))
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
        docs: present,
        missing: found.missing.len(),
    })
}

/// The files [`write_tokens`] writes.
pub const TOKEN_OUTPUTS: &[&str] = &["tokens.bin", "tokens.words.bin", "tokens.docs.txt"];

/// Token ids that fit three bytes of 0 to 254.
const TOKEN_IDS: u32 = 255 * 255 * 255;

/// Writes the documents of `spool` (named by `id`) into `dir` as fixed-width tokens, for
/// byte-level suffix-array tools: `tokens.bin` holds four bytes a word, `0xFF` then the word's
/// id in three bytes of 0 to 254 (ids in order of first appearance), and after each document a
/// token of its own (ids counted down from the top), so that such a tool sees a token start
/// only at a multiple of four and no match crosses a document. `tokens.words.bin` maps each
/// token to its document's number, first and end byte (three little-endian `u32`; a
/// document's end token has `u32::MAX`, 0, 0), and `tokens.docs.txt` names the documents by
/// number, a line each. The words' dictionary is held in memory. Returns the tokens written.
pub fn write_tokens(
    spool: &crate::base::spool::Spool,
    ids: &[&str],
    dir: &std::path::Path,
) -> anyhow::Result<u64> {
    use std::collections::HashMap;
    let paths: Vec<PathBuf> = TOKEN_OUTPUTS.iter().map(|n| dir.join(n)).collect();
    let mut tokens = atomic::AtomicFile::create(&paths[0])?;
    let mut words = atomic::AtomicFile::create(&paths[1])?;
    let mut names = atomic::AtomicFile::create(&paths[2])?;
    let mut dict: HashMap<Box<[u8]>, u32> = HashMap::new();
    let mut buf = Vec::new();
    let mut n = 0u64;
    let token = |i: u32| {
        [
            0xFF,
            (i / (255 * 255)) as u8,
            (i / 255 % 255) as u8,
            (i % 255) as u8,
        ]
    };
    let full = || {
        anyhow::anyhow!(
            "more than {TOKEN_IDS} distinct words and documents: the tokens have no room"
        )
    };
    for (doc, name) in ids.iter().enumerate() {
        let text = spool.get(doc as u32, &mut buf)?;
        let (mut t, mut w) = (Vec::new(), Vec::new());
        for (s, e) in spans::words(text) {
            let next = dict.len() as u32;
            let i = *dict
                .entry(text.as_bytes()[s as usize..e as usize].into())
                .or_insert(next);
            t.extend_from_slice(&token(i));
            for x in [doc as u32, s, e] {
                w.extend_from_slice(&x.to_le_bytes());
            }
        }
        // Word ids stay below every document's own.
        if dict.len() as u64 + doc as u64 >= u64::from(TOKEN_IDS) {
            return Err(full());
        }
        t.extend_from_slice(&token(TOKEN_IDS - 1 - doc as u32));
        for x in [u32::MAX, 0, 0] {
            w.extend_from_slice(&x.to_le_bytes());
        }
        n += (t.len() / 4) as u64;
        tokens
            .write_all(&t)
            .map_err(|e| crate::Error::io(&paths[0], e))?;
        words
            .write_all(&w)
            .map_err(|e| crate::Error::io(&paths[1], e))?;
        writeln!(names, "{}", tsv_field(name)).map_err(|e| crate::Error::io(&paths[2], e))?;
    }
    tokens.commit()?;
    words.commit()?;
    names.commit()?;
    Ok(n)
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
    anyhow::ensure!(
        job.memory >= MIN_MEMORY,
        "--memory {}: at least {} MiB (half for the table of seen windows, half for the windows of a pass; less makes a pass for every few windows)",
        job.memory,
        MIN_MEMORY >> 20
    );
    let stores = StoreSet::open(&job.stores)?;
    let mut inputs = job.stores.clone();
    inputs.extend(job.keep.iter().cloned());
    if job.write_corpus == Some(crate::write::Format::WarcGz) {
        anyhow::bail!("--write-corpus warc.gz copies records as they were, and cut spans change the text: write jsonl.gz or parquet");
    }
    let claimed = OutDir::claim_for(&job.output, &inputs, "substrings", Some(job.force))?;
    claimed.reserve(OUTPUTS)?;
    if job.write_corpus.is_some() {
        claimed.reserve(&["corpus"])?;
    }
    if job.write_tokens {
        claimed.reserve(TOKEN_OUTPUTS)?;
    }
    let docs: Vec<u32> = match &job.keep {
        None => (0..stores.len() as u32).collect(),
        Some(path) => super::corpus::keep_docs(path, &super::corpus::ids_of(&stores))?,
    };
    // Everything is checked: what an earlier run made here goes (its finished mark first; the
    // store read, if it lies here, stays), so that a corpus or tokens this run does not write
    // are not left beside its table.
    claimed.replace_previous(&[], "summary.json")?;
    let f = spans_of(&stores, &docs, job, &job.output.join("removed.tsv"), quiet)?;
    if f.missing > 0 {
        // No summary.json, the mark of a finished run: the outputs are not whole.
        anyhow::bail!(
            "{} of {} documents were not found again in their shards (their store's source column names another record, or the shards changed): the outputs in {} are not whole, and no summary.json is written",
            f.missing,
            docs.len(),
            job.output.display()
        );
    }
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
    // Every document was found (a run that missed one failed above).
    Ok((summary, Outcome::Clean))
}
