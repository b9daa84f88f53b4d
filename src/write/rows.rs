//! JSONL.gz and Parquet output: one row per kept document (docs/FORMATS.md, "Corpus output"):
//! `id`, `url`, `text` (the extracted text, as fingerprinted), `cluster_id` (the id of its
//! cluster's representative), `cluster_size`, `duplicates` (documents removed for it).
//!
//! Documents are read again in batches (bounded memory: a batch holds at most [`BATCH_TEXT`]
//! bytes of text), their texts extracted in parallel, and appended to the current shard in
//! store order; a shard ends at the first block past the target size. JSONL.gz blocks are
//! compressed in parallel, each a gzip member of its own (a multi-member gzip file is one
//! gzip stream to every reader); Parquet is written with zstd in row groups of about
//! [`ROW_GROUP_BYTES`].

use rayon::prelude::*;

use super::{manifest, shard_name, Config, Format, Kept, Manifest, ShardEntry};
use crate::base::atomic::AtomicFile;
use crate::fingerprint::store::StoreSet;
use crate::reuse::detect::drop_labeled;
use crate::text::paragraphs::chunks;
use crate::verify::reread;
use crate::{Error, Result};

/// Text held at a time, at most (by the store's text lengths).
pub const BATCH_TEXT: u64 = 64 << 20;
/// Documents read again at a time, at most.
const BATCH_DOCS: usize = 1 << 15;
/// Rows per JSONL.gz member (and per Parquet write), at most.
const BLOCK: usize = 256;
/// Text per block, at most (less for small shards, so a shard ends near its target).
const BLOCK_TEXT: usize = 1 << 20;
/// Target size of a Parquet row group before compression.
pub const ROW_GROUP_BYTES: usize = 128 << 20;

/// One output row.
#[derive(Debug, serde::Serialize)]
pub struct Row<'a> {
    /// The document's id.
    pub id: &'a str,
    /// Its URL (empty where it has none).
    pub url: &'a str,
    /// Its extracted text.
    pub text: &'a str,
    /// The id of its cluster's representative.
    pub cluster_id: &'a str,
    /// Documents in its cluster.
    pub cluster_size: u32,
    /// Documents removed as its near-duplicates.
    pub duplicates: u32,
}

/// A shard being written.
trait ShardOut {
    /// Appends rows.
    fn append(&mut self, rows: &[Row<'_>]) -> Result<()>;
    /// Appends rows already formatted and compressed (a JSONL.gz member).
    fn append_member(&mut self, _member: &[u8]) -> Result<()> {
        Err(Error::Config(
            "only JSONL.gz shards take prepared members".into(),
        ))
    }
    /// Bytes written so far (or about to be).
    fn size(&self) -> u64;
    /// Completes the shard and renames it into place; returns its size.
    fn finish(self: Box<Self>) -> Result<u64>;
}

/// Writes the JSONL.gz or Parquet shards of `kept`.
pub fn write(stores: &StoreSet, kept: &[Kept], cfg: &Config) -> Result<Manifest> {
    let mut m = manifest(cfg.format);
    let mut cur: Option<(Box<dyn ShardOut>, ShardEntry)> = None;
    let mut from = 0;
    while from < kept.len() {
        // The next batch: up to BATCH_DOCS documents or BATCH_TEXT bytes of text.
        let mut to = from;
        let mut text = 0u64;
        while to < kept.len() && to - from < BATCH_DOCS && (to == from || text < BATCH_TEXT) {
            text += u64::from(stores.text_len(kept[to].doc));
            to += 1;
        }
        let batch = &kept[from..to];
        from = to;
        let docs: Vec<u32> = batch.iter().map(|k| k.doc).collect();
        let found = reread::for_each_text(
            stores,
            &docs,
            cfg.shard_dir.as_deref(),
            || (),
            |_, d, text| {
                let cut = cfg
                    .cut
                    .as_ref()
                    .and_then(|c| c.get(&d))
                    .map(|r| super::cut_ranges(text, r));
                let text = cut.as_deref().unwrap_or(text);
                match &cfg.drop_labels {
                    None => (text.to_string(), 0u64),
                    Some(labels) => {
                        let kept = drop_labeled(text, labels);
                        let dropped = chunks(text).count() - chunks(&kept).count();
                        (kept, dropped as u64)
                    }
                }
            },
        )?;
        let mut texts: std::collections::HashMap<u32, (String, u64)> =
            found.values.into_iter().collect();
        m.missing
            .extend(found.missing.iter().map(|d| stores.id(*d).to_string()));
        let mut owned: Vec<(&Kept, String)> = Vec::with_capacity(batch.len());
        for k in batch {
            if let Some((text, dropped)) = texts.remove(&k.doc) {
                m.dropped_paragraphs += dropped;
                owned.push((k, text));
            }
        }
        let rows: Vec<Row<'_>> = owned
            .iter()
            .map(|(k, text)| Row {
                id: stores.id(k.doc),
                url: stores.url(k.doc),
                text,
                cluster_id: stores.id(k.cluster),
                cluster_size: k.cluster_size,
                duplicates: k.duplicates,
            })
            .collect();
        append(&mut m, &mut cur, &rows, cfg)?;
    }
    // No documents: one empty shard, so the corpus is still a readable file of its format.
    if cur.is_none() && m.shards.is_empty() {
        cur = Some(open(cfg, 0)?);
    }
    if let Some((out, mut entry)) = cur {
        entry.bytes = out.finish()?;
        m.bytes += entry.bytes;
        m.shards.push(entry);
    }
    Ok(m)
}

/// Appends `rows` to the current shard, ending it and opening the next at the target size.
fn append(
    m: &mut Manifest,
    cur: &mut Option<(Box<dyn ShardOut>, ShardEntry)>,
    rows: &[Row<'_>],
    cfg: &Config,
) -> Result<()> {
    // Blocks of at most BLOCK rows and about BLOCK_TEXT bytes of text (an eighth of a small
    // shard); JSONL blocks are formatted and compressed in parallel before they are placed.
    let max_text = BLOCK_TEXT.min((cfg.shard_size / 8).max(1) as usize);
    let mut blocks: Vec<&[Row<'_>]> = Vec::new();
    let (mut from, mut text) = (0, 0);
    for (i, r) in rows.iter().enumerate() {
        if i > from && (i - from == BLOCK || text >= max_text) {
            blocks.push(&rows[from..i]);
            (from, text) = (i, 0);
        }
        text += r.text.len();
    }
    if from < rows.len() {
        blocks.push(&rows[from..]);
    }
    let members: Vec<Vec<u8>> = match cfg.format {
        Format::JsonlGz => blocks.par_iter().map(|b| jsonl_member(b)).collect(),
        _ => Vec::new(),
    };
    for (i, block) in blocks.into_iter().enumerate() {
        if cur.is_none() {
            *cur = Some(open(cfg, m.shards.len())?);
        }
        let (out, entry) = cur.as_mut().expect("opened above");
        match cfg.format {
            Format::JsonlGz => out.append_member(&members[i])?,
            _ => out.append(block)?,
        }
        entry.documents += block.len() as u64;
        m.documents += block.len() as u64;
        if out.size() >= cfg.shard_size {
            let (out, mut entry) = cur.take().expect("opened above");
            entry.bytes = out.finish()?;
            m.bytes += entry.bytes;
            m.shards.push(entry);
        }
    }
    Ok(())
}

/// Opens shard `index`.
fn open(cfg: &Config, index: usize) -> Result<(Box<dyn ShardOut>, ShardEntry)> {
    let name = shard_name(index, cfg.format);
    let path = cfg.dir.join(&name);
    let out: Box<dyn ShardOut> = match cfg.format {
        Format::JsonlGz => Box::new(Jsonl {
            file: AtomicFile::create(&path)?,
            bytes: 0,
        }),
        #[cfg(feature = "parquet")]
        Format::Parquet => Box::new(parquet_out::Parquet::create(&path)?),
        #[cfg(not(feature = "parquet"))]
        Format::Parquet => return Err(Error::Config(
            "this build of neardup has no Parquet support (built without the `parquet` feature)"
                .into(),
        )),
        Format::WarcGz => return Err(Error::Config("WARC.gz is not a row format".into())),
    };
    Ok((
        out,
        ShardEntry {
            name,
            documents: 0,
            bytes: 0,
        },
    ))
}

/// One block of rows as a gzip member of JSON lines.
fn jsonl_member(rows: &[Row<'_>]) -> Vec<u8> {
    let mut lines = Vec::with_capacity(rows.iter().map(|r| r.text.len() + 128).sum());
    for r in rows {
        serde_json::to_writer(&mut lines, r).expect("rows serialise");
        lines.push(b'\n');
    }
    super::warc::gzip(&lines)
}

struct Jsonl {
    file: AtomicFile,
    bytes: u64,
}

impl ShardOut for Jsonl {
    fn append(&mut self, rows: &[Row<'_>]) -> Result<()> {
        self.append_member(&jsonl_member(rows))
    }
    fn append_member(&mut self, member: &[u8]) -> Result<()> {
        self.file.put(member)?;
        self.bytes += member.len() as u64;
        Ok(())
    }
    fn size(&self) -> u64 {
        self.bytes
    }
    fn finish(mut self: Box<Self>) -> Result<u64> {
        if self.bytes == 0 {
            // No rows: an empty gzip member, which every gzip reader opens (an empty file is
            // not gzip).
            self.append_member(&super::warc::gzip(&[]))?;
        }
        self.file.commit()?;
        Ok(self.bytes)
    }
}

#[cfg(feature = "parquet")]
mod parquet_out {
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema, SchemaRef};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::WriterProperties;

    use super::{Row, ShardOut, ROW_GROUP_BYTES};
    use crate::base::atomic::AtomicFile;
    use crate::{Error, Result};

    /// The corpus rows' schema (docs/FORMATS.md).
    pub fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("url", DataType::Utf8, false),
            Field::new("text", DataType::Utf8, false),
            Field::new("cluster_id", DataType::Utf8, false),
            Field::new("cluster_size", DataType::Int64, false),
            Field::new("duplicates", DataType::Int64, false),
        ]))
    }

    pub struct Parquet {
        w: ArrowWriter<AtomicFile>,
        path: std::path::PathBuf,
    }

    fn err(path: &std::path::Path, e: parquet::errors::ParquetError) -> Error {
        Error::Config(format!("{}: writing Parquet: {e}", path.display()))
    }

    impl Parquet {
        pub fn create(path: &std::path::Path) -> Result<Parquet> {
            let file = AtomicFile::create(path)?;
            let props = WriterProperties::builder()
                .set_compression(Compression::ZSTD(
                    ZstdLevel::try_new(3).expect("valid level"),
                ))
                .set_max_row_group_bytes(Some(ROW_GROUP_BYTES))
                .set_max_row_group_row_count(Some(1 << 20))
                .build();
            let w = ArrowWriter::try_new(file, schema(), Some(props)).map_err(|e| err(path, e))?;
            Ok(Parquet {
                w,
                path: path.to_path_buf(),
            })
        }
    }

    impl ShardOut for Parquet {
        fn append(&mut self, rows: &[Row<'_>]) -> Result<()> {
            fn col<'r>(rows: &'r [Row<'r>], f: fn(&'r Row<'r>) -> &'r str) -> ArrayRef {
                Arc::new(StringArray::from_iter_values(rows.iter().map(f)))
            }
            let int = |f: fn(&Row<'_>) -> u32| -> ArrayRef {
                Arc::new(Int64Array::from_iter_values(
                    rows.iter().map(|r| i64::from(f(r))),
                ))
            };
            let batch = RecordBatch::try_new(
                schema(),
                vec![
                    col(rows, |r| r.id),
                    col(rows, |r| r.url),
                    col(rows, |r| r.text),
                    col(rows, |r| r.cluster_id),
                    int(|r| r.cluster_size),
                    int(|r| r.duplicates),
                ],
            )
            .map_err(|e| Error::Config(format!("{}: {e}", self.path.display())))?;
            self.w.write(&batch).map_err(|e| err(&self.path, e))
        }
        fn size(&self) -> u64 {
            (self.w.bytes_written() + self.w.in_progress_size()) as u64
        }
        fn finish(self: Box<Self>) -> Result<u64> {
            let path = self.path;
            let file = self.w.into_inner().map_err(|e| err(&path, e))?;
            file.commit()?;
            std::fs::metadata(&path)
                .map(|m| m.len())
                .map_err(|e| Error::io(&path, e))
        }
    }
}
