//! Parquet shards (the layout of Hugging Face datasets and of most data teams' corpora): one
//! document per row, its id, text and URL in columns named by `--id-field`, `--text-field` and
//! `--url-field`.
//!
//! A work unit is one row group, named by its byte range in the file, so row groups are read in
//! parallel and progress counts bytes as for the other formats. A document's source location
//! is the row group's byte range (`offset`, `length`) and its row within the group (`inner`),
//! so later stages read it again by row group. A row group that does not decode is counted as
//! a skip named by file and row group, and reading goes on with the next; a file whose footer
//! does not parse, or whose columns are missing or of the wrong type, is an error naming it.

use std::borrow::Cow;
use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;

use super::{Document, ReadOptions, Shard, Sink, Skip, SourceLoc, WorkUnit};
use crate::{Error, Result};

/// Rows decoded at a time.
const BATCH: usize = 1024;

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
    let meta = ArrowReaderMetadata::load(&file, Default::default()).map_err(|e| {
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

/// The work units of a Parquet shard: one per row group (empty row groups left out).
pub fn units(index: u32, shard: &Shard) -> Result<Vec<WorkUnit>> {
    let (_, meta) = metadata(&shard.path)?;
    let rows = meta.metadata().row_groups().iter().map(|rg| rg.num_rows());
    Ok(row_group_ranges(&meta)
        .into_iter()
        .zip(rows)
        .filter(|(_, n)| *n > 0)
        .map(|((start, end), _)| WorkUnit {
            shard: index,
            start,
            end,
        })
        .collect())
}

/// Where the three fields are among the file's top-level columns.
struct Fields {
    text: usize,
    id: Option<usize>,
    url: Option<usize>,
}

fn is_text(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
    )
}

fn is_id(t: &DataType) -> bool {
    is_text(t) || t.is_integer()
}

/// Finds the fields in the file's schema; a missing text column, or a column of a type that
/// cannot hold what it names, is an error naming the file and the column.
fn fields(path: &Path, meta: &ArrowReaderMetadata, opts: &ReadOptions) -> Result<Fields> {
    let schema = meta.schema();
    let names = || {
        schema
            .fields()
            .iter()
            .map(|f| format!("{} ({})", f.name(), f.data_type()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let find = |name: &str, ok: fn(&DataType) -> bool, what: &str| -> Result<Option<usize>> {
        match schema.index_of(name) {
            Err(_) => Ok(None),
            Ok(i) if ok(schema.field(i).data_type()) => Ok(Some(i)),
            Ok(i) => Err(parse_error(
                path,
                0,
                format!(
                    "column {name:?} is {}, not {what}",
                    schema.field(i).data_type()
                ),
            )),
        }
    };
    let Some(text) = find(
        &opts.text_field,
        is_text,
        "text (a string or binary column)",
    )?
    else {
        return Err(parse_error(
            path,
            0,
            format!(
                "no column {:?} for the text (columns: {}); --text-field names it",
                opts.text_field,
                names()
            ),
        ));
    };
    Ok(Fields {
        text,
        id: find(&opts.id_field, is_id, "an id (a string or integer column)")?,
        url: find(&opts.url_field, is_text, "a URL (a string column)")?,
    })
}

/// One column's values as text, whatever its Arrow type among those [`fields`] admits.
fn value<'a>(col: &'a ArrayRef, row: usize) -> Option<Cow<'a, [u8]>> {
    if col.is_null(row) {
        return None;
    }
    macro_rules! int {
        ($($t:ty),*) => {$(
            if let Some(a) = col.as_primitive_opt::<$t>() {
                return Some(Cow::Owned(a.value(row).to_string().into_bytes()));
            }
        )*};
    }
    Some(match col.data_type() {
        DataType::Utf8 => Cow::Borrowed(col.as_string::<i32>().value(row).as_bytes()),
        DataType::LargeUtf8 => Cow::Borrowed(col.as_string::<i64>().value(row).as_bytes()),
        DataType::Utf8View => Cow::Borrowed(col.as_string_view().value(row).as_bytes()),
        DataType::Binary => Cow::Borrowed(col.as_binary::<i32>().value(row)),
        DataType::LargeBinary => Cow::Borrowed(col.as_binary::<i64>().value(row)),
        DataType::BinaryView => Cow::Borrowed(col.as_binary_view().value(row)),
        _ => {
            int!(
                Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
                UInt64Type
            );
            return None;
        }
    })
}

fn lossy(b: Cow<'_, [u8]>) -> Cow<'_, str> {
    match b {
        Cow::Borrowed(b) => String::from_utf8_lossy(b),
        Cow::Owned(b) => Cow::Owned(String::from_utf8_lossy(&b).into_owned()),
    }
}

/// Reads the row group of `unit` into `sink`.
pub fn read(shard: &Shard, unit: &WorkUnit, opts: &ReadOptions, sink: &mut dyn Sink) -> Result<()> {
    let path = &shard.path;
    let (file, meta) = metadata(path)?;
    let ranges = row_group_ranges(&meta);
    let Some(rg) = ranges.iter().position(|r| r.0 == unit.start) else {
        return Err(parse_error(
            path,
            unit.start,
            "no row group starts here (the file changed since it was listed)".into(),
        ));
    };
    let (start, end) = ranges[rg];
    let f = fields(path, &meta, opts)?;
    let mut roots = vec![f.text];
    roots.extend(f.id);
    roots.extend(f.url);
    roots.sort_unstable();
    roots.dedup();
    let total = ranges.len();
    let bad = |sink: &mut dyn Sink, e: &dyn std::fmt::Display| {
        sink.skip(
            Skip::CorruptParquet,
            start,
            &format!("row group {rg} of {total} does not decode: {e}"),
        );
    };
    let mask = ProjectionMask::roots(meta.parquet_schema(), roots.iter().copied());
    let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(file, meta)
        .with_row_groups(vec![rg])
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
    let mut row = 0u64;
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
            sink.document(Document {
                id,
                url,
                loc,
                http_status: None,
                content_type: None,
                charset: Some(Cow::Borrowed("utf-8")),
                link: None,
                kind: opts.jsonl_kind,
                payload,
            });
        }
    }
    Ok(())
}
