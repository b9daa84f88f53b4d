//! Parquet shards (the layout of Hugging Face datasets and of most data teams' corpora): one
//! document per row, its id, text and URL in columns named by `--id-field`, `--text-field` and
//! `--url-field`.
//!
//! A work unit is a range of rows of one row group, named by a slice of the group's byte range
//! in proportion (a group of more than [`UNIT_BYTES`] is cut into several units, so that a file
//! of a few large groups is still read on every core; with the file's offset index, a unit
//! skips the pages before its rows without decoding them). Progress counts bytes as for the
//! other formats. A document's source location is its row group's byte range (`offset`,
//! `length`) and its row within the group (`inner`), so later stages read it again by row
//! group. Rows that do not decode are counted as one skip per unit, named by file, row group
//! and rows, and reading goes on with the next unit; a file whose footer does not parse, or
//! whose columns are missing or of the wrong type, is an error naming it.

use std::borrow::Cow;
use std::fs::File;
use std::path::Path;

use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection,
    RowSelector,
};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::PageIndexPolicy;

use super::arrow::{lossy, value, Fields};
use super::{Document, ReadOptions, Shard, Sink, Skip, SourceLoc, WorkUnit};
use crate::{Error, Result};

/// Rows decoded at a time.
const BATCH: usize = 1024;
/// Compressed bytes of a row group per work unit, about.
pub const UNIT_BYTES: u64 = 8 << 20;

fn parse_error(path: &Path, offset: u64, msg: String) -> Error {
    Error::Parse {
        path: path.to_path_buf(),
        offset,
        msg,
    }
}

/// Opens `path`'s footer.
fn metadata(path: &Path) -> Result<(File, ArrowReaderMetadata)> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let options = ArrowReaderOptions::new().with_offset_index_policy(PageIndexPolicy::Optional);
    let meta = ArrowReaderMetadata::load(&file, options).map_err(|e| {
        let size = file.metadata().map(|m| m.len()).unwrap_or(0);
        parse_error(
            path,
            size.saturating_sub(8),
            format!("not a readable Parquet file (its footer: {e})"),
        )
    })?;
    Ok((file, meta))
}

/// The byte range `(start, end)` of every row group of a file, in order.
fn row_group_ranges(meta: &ArrowReaderMetadata) -> Vec<(u64, u64)> {
    meta.metadata()
        .row_groups()
        .iter()
        .map(|rg| {
            let ranges = rg.columns().iter().map(|c| c.byte_range());
            let start = ranges.clone().map(|r| r.0).min().unwrap_or(0);
            let end = ranges.map(|r| r.0 + r.1).max().unwrap_or(start);
            (start, end.max(start + 1))
        })
        .collect()
}

/// The work units of a Parquet shard: each row group (empty ones left out) as one unit, or as
/// several slices of its byte range of about [`UNIT_BYTES`] each.
pub fn units(index: u32, shard: &Shard) -> Result<Vec<WorkUnit>> {
    let (_, meta) = metadata(&shard.path)?;
    let rows = meta.metadata().row_groups().iter().map(|rg| rg.num_rows());
    let mut units = Vec::new();
    for ((start, end), rows) in row_group_ranges(&meta).into_iter().zip(rows) {
        if rows <= 0 {
            continue;
        }
        let n = (end - start).div_ceil(UNIT_BYTES).clamp(1, rows as u64);
        let at = |i: u64| start + ((end - start) as u128 * i as u128 / n as u128) as u64;
        units.extend((0..n).map(|i| WorkUnit {
            shard: index,
            start: at(i),
            end: at(i + 1),
        }));
    }
    Ok(units)
}

/// The first row of the slice of row group `(start, end)` of `rows` rows that begins at byte
/// `at` (slices tile the range, so their rows tile the group).
fn row_at(start: u64, end: u64, rows: u64, at: u64) -> u64 {
    (rows as u128 * (at - start) as u128 / (end - start) as u128) as u64
}

/// Finds the fields in the file's schema; a missing text column, or a column of a type that
/// cannot hold what it names, is an error naming the file and the column.
fn fields(path: &Path, meta: &ArrowReaderMetadata, opts: &ReadOptions) -> Result<Fields> {
    Fields::locate(meta.schema(), opts).map_err(|(msg, text)| {
        let hint = if text { "; --text-field names it" } else { "" };
        parse_error(path, 0, format!("the file has {msg}{hint}"))
    })
}

/// Reads the row group of `unit` into `sink`.
pub fn read(shard: &Shard, unit: &WorkUnit, opts: &ReadOptions, sink: &mut dyn Sink) -> Result<()> {
    let path = &shard.path;
    let (file, meta) = metadata(path)?;
    let ranges = row_group_ranges(&meta);
    let Some(rg) = ranges
        .iter()
        .position(|r| r.0 <= unit.start && unit.start < r.1)
    else {
        return Err(parse_error(
            path,
            unit.start,
            "no row group is here (the file changed since it was listed)".into(),
        ));
    };
    let (start, end) = ranges[rg];
    let rows = meta.metadata().row_group(rg).num_rows().max(0) as u64;
    let first = row_at(start, end, rows, unit.start);
    let last = row_at(start, end, rows, unit.end.min(end));
    let f = fields(path, &meta, opts)?;
    let mut roots = vec![f.text];
    roots.extend(f.id);
    roots.extend(f.url);
    roots.extend(f.value);
    roots.sort_unstable();
    roots.dedup();
    let total = ranges.len();
    let bad = |sink: &mut dyn Sink, e: &dyn std::fmt::Display| {
        sink.skip(
            Skip::CorruptParquet,
            start,
            &format!("row group {rg} of {total} (rows {first}..{last}) does not decode: {e}"),
        );
    };
    if first >= last {
        return Ok(());
    }
    let selection = RowSelection::from(vec![
        RowSelector::skip(first as usize),
        RowSelector::select((last - first) as usize),
    ]);
    let mask = ProjectionMask::roots(meta.parquet_schema(), roots.iter().copied());
    let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(file, meta)
        .with_row_groups(vec![rg])
        .with_row_selection(selection)
        .with_projection(mask)
        .with_batch_size(BATCH)
        .build();
    let reader = match reader {
        Ok(r) => r,
        Err(e) => {
            bad(sink, &e);
            return Ok(());
        }
    };
    // The projected batch holds the columns in file order.
    let at = |i: usize| roots.binary_search(&i).unwrap_or(0);
    let mut row = first;
    for batch in reader {
        let batch: RecordBatch = match batch {
            Ok(b) => b,
            Err(e) => {
                // What decoded before the damage was delivered; the rest of the group is lost.
                bad(sink, &e);
                return Ok(());
            }
        };
        let text = batch.column(at(f.text));
        let id = f.id.map(|i| batch.column(at(i)));
        let url = f.url.map(|i| batch.column(at(i)));
        let number = f.value.map(|i| batch.column(at(i)));
        for r in 0..batch.num_rows() {
            let loc = SourceLoc {
                offset: start,
                length: end - start,
                inner: row,
                shard: unit.shard,
                kind: SourceLoc::PARQUET,
            };
            row += 1;
            let Some(payload) = value(text, r) else {
                sink.skip(
                    Skip::MissingText,
                    start,
                    &format!(
                        "row {} of row group {rg}: the text column {:?} is null",
                        row - 1,
                        opts.text_field
                    ),
                );
                continue;
            };
            if payload.len() > opts.max_record {
                sink.skip(
                    Skip::TooLarge,
                    start,
                    &format!(
                        "row {} of row group {rg}: a text of {} bytes is longer than --max-record-size ({} bytes)",
                        row - 1,
                        payload.len(),
                        opts.max_record
                    ),
                );
                continue;
            }
            let id = match id.and_then(|c| value(c, r)) {
                Some(v) => lossy(v),
                None => Cow::Owned(format!("{}@{rg}:{}", shard.rel, row - 1)),
            };
            let url = url.and_then(|c| value(c, r)).map(lossy).unwrap_or_default();
            let mut doc = Document::row(id, url, loc, opts.jsonl_kind, payload);
            doc.value = number.and_then(|c| super::arrow::number(c, r));
            sink.document(doc);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_of_a_row_group_tile_its_rows() {
        let mut rng = crate::base::rng::SplitMix64(5);
        for _ in 0..2000 {
            let start = rng.below(1 << 30);
            let end = start + 1 + rng.below(1 << 32);
            let rows = 1 + rng.below(1 << 20);
            let n = 1 + rng.below(rows.min(64));
            let at = |i: u64| start + ((end - start) as u128 * i as u128 / n as u128) as u64;
            let mut next = 0;
            for i in 0..n {
                let (a, b) = (
                    row_at(start, end, rows, at(i)),
                    row_at(start, end, rows, at(i + 1)),
                );
                assert_eq!(a, next);
                assert!(a <= b);
                next = b;
            }
            assert_eq!(next, rows);
        }
    }
}
