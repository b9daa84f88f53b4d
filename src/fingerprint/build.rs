//! The fingerprinting pipeline: shards in, one store out.
//!
//! Work units (see `corpus::discover`) are read in parallel on the rayon pool, one worker per
//! unit; each worker filters, decodes, extracts and fingerprints its documents into a small row
//! buffer, and the calling thread writes finished units to the store in unit order, so the
//! store order is the input order whatever the schedule. Memory per worker is bounded by its
//! largest record plus its rows (about 100 bytes per document).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use rayon::prelude::*;

use super::early_sets::EarlySets;
use super::minhash::{MinhashParams, Minhasher};
use super::params::FeatureMode;
use super::store::{
    flags, shard_checksum, BlockParams, ChunkParams, Filters, Manifest, Reading, Row, ShardInfo,
    ShingleParams, Stats, StoreWriter,
};
use super::{Fingerprinter, Params};
use crate::base::lock::Lock;
use crate::base::paths::within;
use crate::corpus::{
    self, discover, Document, ReadOptions, Shard, Sink, Skip, SkipCounts, WorkUnit,
};
use crate::text::{blocks, canonical, extract, features, paragraphs};
use crate::{Error, Result};

/// The keep field that names a WARC record's date (`WARC-Date`, in seconds since 1970).
pub const WARC_DATE: &str = "WARC-Date";

/// What to build.
#[derive(Clone, Debug)]
pub struct BuildConfig {
    /// Files and directories to read.
    pub inputs: Vec<PathBuf>,
    /// Store directory to write.
    pub output: PathBuf,
    /// Replace an existing store.
    pub force: bool,
    /// Reader options.
    pub read: ReadOptions,
    /// Fingerprint parameters.
    pub params: Params,
    /// Record filters.
    pub filters: Filters,
    /// MinHash band keys to compute too (`--candidates minhash`), if any.
    pub minhash: Option<MinhashParams>,
    /// Hash every paragraph chunk too (`--chunks`; `text::paragraphs`).
    pub chunks: bool,
    /// Keep every document's set of word k-gram shingles too (`--shingles`), with this k:
    /// verification then compares the sets kept instead of reading the shards again.
    pub shingles: Option<usize>,
    /// The field whose number each document keeps (`values.f64`), or [`WARC_DATE`].
    pub keep_field: Option<String>,
    /// Where the shingle sets of pages with a candidate fingerprinted before them are kept
    /// for verification (`dedup`; [`EarlySets`]), if anywhere.
    pub early_sets: Option<Arc<EarlySets>>,
}

/// Receives progress from the workers (called concurrently).
pub trait Progress: Sync {
    /// Discovery is done: `total_bytes` of input will be read.
    fn start(&self, total_bytes: u64);
    /// `bytes` more input bytes and `docs` more documents were processed.
    fn advance(&self, bytes: u64, docs: u64);
    /// A message worth showing now (a damaged shard, say).
    fn warn(&self, msg: &str);
}

/// A progress sink that shows nothing.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: u64) {}
    fn advance(&self, _: u64, _: u64) {}
    fn warn(&self, _: &str) {}
}

/// The outcome of a build.
#[derive(Debug)]
pub struct BuildReport {
    /// The manifest as written.
    pub manifest: Manifest,
    /// Where the store is.
    pub path: PathBuf,
    /// Shards that could not be read.
    pub failed: Vec<Error>,
    /// Files in walked directories that were not read.
    pub ignored: Vec<PathBuf>,
    /// Skips by reason.
    pub skips: SkipCounts,
    /// In a table's build ([`build_in_memory`]): each skipped row and why, in row order.
    pub skipped_rows: Vec<(u64, Skip)>,
}

/// How many record-level messages one unit reports in full.
const MESSAGES_PER_UNIT: usize = 5;

/// Reads, fingerprints and stores everything in `cfg.inputs`.
pub fn build(cfg: &BuildConfig, progress: &dyn Progress) -> Result<BuildReport> {
    if let Some(input) = cfg.inputs.iter().find(|i| within(i, &cfg.output)) {
        return Err(Error::Config(format!(
            "the input {} lies inside the output {}, which the store would replace: choose another output",
            input.display(),
            cfg.output.display()
        )));
    }
    // One writer per store: a second run into the same store is refused while this one runs.
    let name = cfg.output.file_name().unwrap_or_default().to_string_lossy();
    if let Some(parent) = cfg.output.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    let _lock = Lock::acquire(
        &cfg.output.with_file_name(format!(".{name}.lock")),
        &cfg.output,
    )?;
    let found = discover(&cfg.inputs, &cfg.read);
    if found.shards.is_empty() && !found.failed.is_empty() {
        // Nothing readable at all: report the first reason rather than write an empty store.
        let mut failed = found.failed;
        return Err(failed.swap_remove(0));
    }
    for e in &found.failed {
        progress.warn(&e.to_string());
    }
    for o in &found.outputs {
        progress.warn(&format!(
            "{}: written by neardup (a store or an output directory), not read as input",
            o.display()
        ));
    }
    if let Some(first) = found.links.first() {
        progress.warn(&format!(
            "{} symbolic links in the input directories were not followed (first: {}); --follow follows them",
            found.links.len(),
            first.display()
        ));
    }
    if let Some(first) = found.repeated.first() {
        progress.warn(&format!(
            "{} files were reached more than once (first: {}): each is read once, at its first place",
            found.repeated.len(),
            first.display()
        ));
    }
    let mut writer = with_columns(StoreWriter::create(&cfg.output, cfg.force)?, cfg)?;
    let mut stats = Stats {
        input_bytes: found.shards.iter().map(|s| s.size).sum(),
        empty_shards: found.empty.len() as u64,
        ..Stats::default()
    };
    if let Some(early) = &cfg.early_sets {
        early.prepare(stats.input_bytes);
    }
    progress.start(stats.input_bytes);
    let mut skips = SkipCounts::default();
    let mut failed: Vec<Error> = found.failed;

    let shards = &found.shards;
    fingerprint_units(
        &found.units,
        &mut writer,
        &mut stats,
        &mut skips,
        &mut failed,
        |unit| run_unit(unit, shards, cfg, progress),
    )?;
    stats.skipped = skips.to_map();
    stats.failed_shards = failed.iter().map(|e| e.to_string()).collect();
    let shards_info = shards
        .iter()
        .map(|s| ShardInfo {
            path: s.path.to_string_lossy().into_owned(),
            format: s.format,
            bytes: s.size,
            absolute: std::path::absolute(&s.path)
                .ok()
                .map(|p| p.to_string_lossy().into_owned()),
            checksum: crate::base::mmap::map(&s.path)
                .ok()
                .map(|m| shard_checksum(&m)),
        })
        .collect();
    let manifest = writer.finish(manifest_of(cfg, stats, shards_info))?;
    let path = cfg.output.clone();
    Ok(BuildReport {
        manifest,
        path,
        failed,
        ignored: found.ignored,
        skips,
        skipped_rows: Vec::new(),
    })
}

/// `writer` with the optional columns `cfg` asks for (before the first row).
fn with_columns(mut writer: StoreWriter, cfg: &BuildConfig) -> Result<StoreWriter> {
    if let Some(m) = &cfg.minhash {
        writer = writer.with_minhash(m.bands as usize)?;
    }
    if cfg.chunks {
        writer = writer.with_chunks()?;
    }
    if cfg.shingles.is_some() {
        writer = writer.with_shingles()?;
    }
    if cfg.keep_field.is_some() {
        writer = writer.with_values()?;
    }
    if cfg.blocks() {
        writer = writer.with_blocks()?;
    }
    Ok(writer)
}

impl BuildConfig {
    /// Whether each page's block keys are kept (`blocks.u64`): for main content, whose own
    /// content is told from its site's by them.
    pub fn blocks(&self) -> bool {
        self.params.text == crate::text::extract::TextMode::Main
    }
}

/// The manifest of a store built by `cfg` from `shards` with `stats`: what its columns hold.
fn manifest_of(cfg: &BuildConfig, stats: Stats, shards: Vec<ShardInfo>) -> Manifest {
    let mut manifest = Manifest::new(cfg.params.clone(), cfg.filters.clone(), stats, shards);
    manifest.reading = Some(Reading::of(&cfg.read));
    manifest.minhash = cfg.minhash;
    manifest.chunks = cfg.chunks.then(ChunkParams::default);
    manifest.shingles = cfg.shingles.map(ShingleParams::new);
    manifest.keep_field = cfg.keep_field.clone();
    manifest.blocks = cfg.blocks().then(BlockParams::default);
    manifest
}

/// Fingerprints `units` on the rayon pool with `run` and writes their rows in unit order,
/// adding what each counted.
fn fingerprint_units<U: Sync>(
    units: &[U],
    writer: &mut StoreWriter,
    stats: &mut Stats,
    skips: &mut SkipCounts,
    failed: &mut Vec<Error>,
    run: impl Fn(&U) -> UnitResult + Sync,
) -> Result<()> {
    let (tx, rx) = mpsc::channel::<(usize, UnitResult)>();
    let run = &run;
    std::thread::scope(|scope| -> Result<()> {
        // Workers take units in input order, one at a time: units finish close to the order
        // they are written in, so the rows waiting for an earlier unit are about one unit per
        // worker, whatever the crawl's size. (Splitting the range, as a parallel iterator
        // does, had the second half's rows wait for the first: half the crawl held at once.)
        let next = AtomicUsize::new(0);
        scope.spawn(move || {
            let workers = rayon::current_num_threads().clamp(1, units.len().max(1));
            (0..workers)
                .into_par_iter()
                .for_each_with(tx, |tx, _| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(unit) = units.get(i) else { break };
                    if tx.send((i, run(unit))).is_err() {
                        break;
                    }
                });
        });
        // Write units in order as they finish.
        let mut pending: BTreeMap<usize, UnitResult> = BTreeMap::new();
        let mut next = 0;
        for (i, r) in rx {
            pending.insert(i, r);
            while let Some(r) = pending.remove(&next) {
                writer.push_rows(&r.rows, &r.keys)?;
                stats.other_records += r.other_records;
                stats.length_repaired += r.length_repaired;
                stats.skipped_bytes += r.skipped_bytes;
                stats.payload_bytes += r.payload_bytes;
                stats.text_bytes += r.text_bytes;
                stats.short += r.short;
                stats.no_features += r.no_features;
                skips.merge(&r.skips);
                if let Some(e) = r.error {
                    failed.push(e);
                }
                next += 1;
            }
        }
        Ok(())
    })
}

/// The name a store made in memory goes by in messages and summaries.
pub const IN_MEMORY: &str = "<in-memory table>";

/// A table to fingerprint: held in memory by the caller, or scanned (a batch at a time).
#[cfg(feature = "parquet")]
pub enum Table {
    /// Record batches held in memory.
    Held(std::sync::Arc<corpus::arrow::Batches>),
    /// A table scanned, `rows` of them about (room is made for them at once; 0: unknown).
    Scanned(std::sync::Arc<corpus::arrow::Streamed>, usize),
}

/// Fingerprints the rows of `table` into a store in memory, as [`build`] does a crawl's
/// shards into one on disk: the same rows, parameters and filters, no file made. The store
/// reads its documents again from `table` (from memory, or by scanning it again). Returns the
/// store, what was counted, and the rows read.
#[cfg(feature = "parquet")]
pub fn build_in_memory(
    cfg: &BuildConfig,
    table: Table,
    progress: &dyn Progress,
) -> Result<(super::store::Store, BuildReport, u64)> {
    let label = std::path::Path::new(IN_MEMORY);
    let rows = match &table {
        Table::Held(t) => t.rows() as usize,
        Table::Scanned(_, rows) => *rows,
    };
    let mut writer = with_columns(StoreWriter::memory(label, rows)?, cfg)?;
    let mut stats = Stats::default();
    progress.start(rows as u64);
    let mut skips = SkipCounts::default();
    let mut failed = Vec::new();
    let mut read = 0u64;
    let skipped_rows = std::sync::Mutex::new(Vec::new());
    let mut batch = |t: &corpus::arrow::Batches, writer: &mut StoreWriter| -> Result<()> {
        stats.input_bytes += t.text_bytes();
        read += t.rows();
        fingerprint_units(
            &t.units(),
            writer,
            &mut stats,
            &mut skips,
            &mut failed,
            |unit| {
                let mut sink = UnitSink::new(label, cfg, progress, unit.start as u64);
                sink.positions = true;
                sink.rows = true;
                t.read_unit(*unit, &mut sink);
                progress.advance((unit.end as u64).saturating_sub(sink.reported_to), 0);
                skipped_rows
                    .lock()
                    .unwrap()
                    .append(&mut sink.out.skipped_at);
                sink.out
            },
        )
    };
    let memory: std::sync::Arc<dyn corpus::InMemory> = match table {
        Table::Held(t) => {
            batch(&t, &mut writer)?;
            t
        }
        Table::Scanned(t, _) => {
            t.for_each_batch(|one| batch(one, &mut writer))?;
            t
        }
    };
    stats.skipped = skips.to_map();
    let store = writer
        .finish_in_memory(manifest_of(cfg, stats, Vec::new()))?
        .with_memory(memory);
    let mut skipped_rows = skipped_rows.into_inner().unwrap();
    skipped_rows.sort_unstable_by_key(|r| r.0);
    let report = BuildReport {
        manifest: store.manifest.clone(),
        path: label.to_path_buf(),
        failed,
        ignored: Vec::new(),
        skips,
        skipped_rows,
    };
    Ok((store, report, read))
}

/// What one unit produced.
#[derive(Default)]
struct UnitResult {
    rows: Vec<Row>,
    /// The rows' band keys, one row's after another (a store with signatures): kept in one
    /// array rather than a vector a row, so that the writer reads them in order, not from
    /// allocations gone cold while the unit was read.
    keys: Vec<u64>,
    skips: SkipCounts,
    /// Where each skip was and why (kept only for a table's rows: see `UnitSink::positions`).
    skipped_at: Vec<(u64, Skip)>,
    other_records: u64,
    length_repaired: u64,
    skipped_bytes: u64,
    payload_bytes: u64,
    text_bytes: u64,
    short: u64,
    no_features: u64,
    error: Option<Error>,
}

fn run_unit(
    unit: &WorkUnit,
    shards: &[Shard],
    cfg: &BuildConfig,
    progress: &dyn Progress,
) -> UnitResult {
    let shard = &shards[unit.shard as usize];
    let mut sink = UnitSink::new(&shard.path, cfg, progress, unit.start);
    if let Err(e) = corpus::read_unit(unit, shards, &cfg.read, &mut sink) {
        progress.warn(&e.to_string());
        sink.out.error = Some(e);
    }
    let done = unit.end.saturating_sub(sink.reported_to);
    progress.advance(done, 0);
    sink.out
}

struct UnitSink<'a> {
    /// What is read, named in messages.
    source: &'a std::path::Path,
    cfg: &'a BuildConfig,
    progress: &'a dyn Progress,
    fp: Fingerprinter,
    /// The signer, with its shingles and band keys of the page.
    sign: Option<(Minhasher, Vec<u64>, Vec<u64>)>,
    /// Where pages with a candidate before them keep their sets: only where the signer's
    /// shingles are the sets' (their length, the native terms).
    early: Option<&'a EarlySets>,
    text: String,
    out: UnitResult,
    messages: usize,
    reported_to: u64,
    /// Keep each skip's position (a table's row), so the result can say which rows were
    /// skipped and why.
    positions: bool,
    /// Positions are rows of a table in memory, not byte offsets: messages say "at row N".
    rows: bool,
    /// Keep each page's block keys.
    blocks: bool,
}

impl<'a> UnitSink<'a> {
    fn new(
        source: &'a std::path::Path,
        cfg: &'a BuildConfig,
        progress: &'a dyn Progress,
        start: u64,
    ) -> UnitSink<'a> {
        UnitSink {
            source,
            cfg,
            progress,
            fp: Fingerprinter::new(cfg.params.clone()),
            sign: cfg
                .minhash
                .map(|m| (Minhasher::new(m), Vec::new(), Vec::new())),
            early: cfg.early_sets.as_deref().filter(|e| {
                cfg.minhash.is_some_and(|m| m.shingle as usize == e.k())
                    && cfg.params.features == FeatureMode::Native
            }),
            text: String::new(),
            out: UnitResult::default(),
            messages: 0,
            reported_to: start,
            positions: false,
            rows: false,
            blocks: cfg.blocks(),
        }
    }

    fn skipped(&mut self, reason: Skip, offset: u64, detail: &str) {
        self.out.skips.add(reason);
        if self.positions {
            self.out.skipped_at.push((offset, reason));
        }
        let loud = matches!(
            reason,
            Skip::Truncated
                | Skip::Garbage
                | Skip::MalformedRecord
                | Skip::CorruptGzip
                | Skip::CorruptParquet
                | Skip::TooLarge
                | Skip::EmptyId
        );
        if loud && self.messages < MESSAGES_PER_UNIT {
            self.messages += 1;
            let at = if self.rows { "row" } else { "byte" };
            self.progress.warn(&format!(
                "{}: at {at} {offset}: {}: {detail}",
                self.source.display(),
                reason.name()
            ));
        }
    }

    fn admit(&mut self, doc: &Document<'_>) -> Option<Skip> {
        let f = &self.cfg.filters;
        if f.status_200_only && doc.http_status.is_some_and(|s| s != 200) {
            return Some(Skip::HttpStatus);
        }
        if f.html_text_only {
            if let Some(ct) = doc.content_type.as_deref() {
                let ok = ct.starts_with("text/") || ct.contains("html") || ct.is_empty();
                if !ok {
                    return Some(Skip::ContentType);
                }
            }
        }
        let head = &doc.payload[..doc.payload.len().min(1024)];
        let wide = crate::text::charset::Wide::sniff(head).is_some();
        if !wide && memchr::memchr(0, head).is_some() {
            return Some(Skip::Binary);
        }
        if (doc.payload.len() as u64) < f.min_html_len {
            return Some(Skip::HtmlTooShort);
        }
        None
    }
}

impl Sink for UnitSink<'_> {
    fn document(&mut self, doc: Document<'_>) {
        if doc.loc.offset > self.reported_to {
            self.progress.advance(doc.loc.offset - self.reported_to, 1);
            self.reported_to = doc.loc.offset;
        } else {
            self.progress.advance(0, 1);
        }
        if doc.id.trim_matches(' ').is_empty() {
            // An empty id cannot be told apart in any list, and would sort first everywhere;
            // nor can one of spaces (a line of blanks). An id of a tab or a line break is an
            // id: the lists write it escaped (`\t`), visibly.
            return self.skipped(Skip::EmptyId, doc.loc.offset, "the document's id is empty");
        }
        if let Some(reason) = self.admit(&doc) {
            return self.skipped(reason, doc.loc.offset, "");
        }
        let html = doc.kind.is_html();
        let read = extract::payload_text(
            &doc.payload,
            doc.charset.as_deref(),
            html,
            self.cfg.params.text,
            &doc.url,
            &mut self.text,
        );
        if self.cfg.filters.english_only && !is_english(&self.text) {
            return self.skipped(Skip::NotEnglish, doc.loc.offset, "");
        }
        let fps = self.fp.fingerprint(&self.text);
        let mut flag = if read.full_text { flags::FULL_TEXT } else { 0 };
        if fps.terms < self.cfg.filters.min_terms {
            flag |= flags::SHORT;
            self.out.short += 1;
        }
        if fps.features == 0 {
            flag |= flags::NO_FEATURES;
            self.out.no_features += 1;
        }
        self.out.payload_bytes += doc.payload.len() as u64;
        self.out.text_bytes += self.text.len() as u64;
        if let Some((m, shingles, keys)) = &mut self.sign {
            shingles.clear();
            features::shingles(self.fp.terms(), m.params().shingle as usize, shingles);
            m.sign(shingles, keys);
            self.out.keys.extend_from_slice(keys);
            if let Some(early) = self.early.filter(|e| e.keeps(read.full_text)) {
                early.offer(keys, fps.content_hash, shingles);
            }
        }
        // The set verification compares: the same shingles, sorted, without repeats
        // (computed again only where the band keys use another k).
        let mut shingle_set = Vec::new();
        if let Some(k) = self.cfg.shingles {
            match &self.sign {
                Some((m, s, _)) if m.params().shingle as usize == k => {
                    shingle_set.extend_from_slice(s)
                }
                _ => features::shingles(self.fp.terms(), k, &mut shingle_set),
            }
            shingle_set.sort_unstable();
            shingle_set.dedup();
        }
        let mut chunks = Vec::new();
        if self.cfg.chunks {
            paragraphs::chunk_hashes(&self.text, &mut chunks);
        }
        let mut block_keys = Vec::new();
        if self.blocks {
            let title = (html != Some(false) && read.html)
                .then(|| canonical::title(&doc.payload))
                .flatten();
            block_keys.push(blocks::title_key(title, &self.text));
            blocks::keys(&self.text, &mut block_keys);
        }
        // The HTTP header's canonical link before the page's; resolved against the page URL.
        let href = doc
            .link
            .as_deref()
            .and_then(|l| canonical::from_link_header(l.as_bytes()))
            .or_else(|| {
                (html != Some(false))
                    .then(|| canonical::from_html(&doc.payload))
                    .flatten()
            });
        let canonical = href
            .and_then(|h| canonical::resolve(&h, &doc.url))
            .unwrap_or_default();
        self.out.rows.push(Row {
            canonical,
            id: doc.id.into_owned(),
            url: doc.url.into_owned(),
            fp64: fps.fp64,
            fp128: fps.fp128,
            content_hash: fps.content_hash,
            flags: flag,
            text_len: self.text.len().min(u32::MAX as usize) as u32,
            terms: fps.terms,
            loc: doc.loc,
            minhash: Vec::new(),
            chunks,
            shingles: shingle_set,
            blocks: block_keys,
            value: match &self.cfg.keep_field {
                Some(f) if f.eq_ignore_ascii_case(WARC_DATE) => doc.date,
                Some(_) => doc.value,
                None => None,
            }
            .map(f64::to_bits),
        });
    }

    fn skip(&mut self, skip: Skip, offset: u64, detail: &str) {
        self.skipped(skip, offset, detail);
    }

    fn other_record(&mut self) {
        self.out.other_records += 1;
    }

    fn length_repaired(&mut self, _offset: u64) {
        self.out.length_repaired += 1;
    }

    fn bytes_skipped(&mut self, n: u64) {
        self.out.skipped_bytes += n;
    }
}

/// Language identification on a prefix of the text (whatlang, trigram based).
fn is_english(text: &str) -> bool {
    let mut end = text.len().min(4096);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    whatlang::detect_lang(&text[..end]) == Some(whatlang::Lang::Eng)
}
