//! Arrow arrays as documents: the column values the Parquet reader and the in-memory tables
//! share, and [`Batches`], record batches a caller holds (a `pyarrow.Table` handed over
//! through the Arrow C data interface, without a copy) read as a corpus.
//!
//! A document of a table is its row: the text, id and URL columns are named as for JSON lines
//! and Parquet (`id`, `text`, `url` by default); a table without an id column names each row
//! by its number. Its location is the row's number in the table (`offset`) and its batch
//! (`shard`), of kind [`SourceLoc::MEMORY`], so that verification reads the text again from
//! the batch, never from a file.

use std::borrow::Cow;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_buffer::ArrowNativeType;
use arrow_schema::{DataType, Schema};

use super::{Document, InMemory, PayloadKind, ReadOptions, Sink, Skip, SourceLoc};
use crate::{Error, Result};

/// Rows of a batch read by one worker at a time.
pub const UNIT_ROWS: usize = 4096;

/// A column of strings or bytes: plain, or dictionary-encoded (as pyarrow writes a column it
/// read as categorical), or all null (Arrow's `Null` type, as pyarrow types a column of `None`s).
pub(crate) fn is_text(t: &DataType) -> bool {
    match t {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::Null => true,
        DataType::Dictionary(_, v) => is_text(v),
        _ => false,
    }
}

pub(crate) fn is_id(t: &DataType) -> bool {
    match t {
        DataType::Dictionary(_, v) => is_id(v),
        t => is_text(t) || t.is_integer(),
    }
}

/// One column's values as text, whatever its Arrow type among those [`is_text`] and [`is_id`] admit.
pub(crate) fn value<'a>(col: &'a ArrayRef, row: usize) -> Option<Cow<'a, [u8]>> {
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
    // A dictionary column: the row's key names its value among the dictionary's values.
    macro_rules! dictionary {
        ($($t:ty),*) => {$(
            if let Some(d) = col.as_dictionary_opt::<$t>() {
                let key = d.keys().value(row).as_usize();
                return value(d.values(), key);
            }
        )*};
    }
    Some(match col.data_type() {
        DataType::Dictionary(..) => {
            dictionary!(
                Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
                UInt64Type
            );
            return None;
        }
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

pub(crate) fn lossy(b: Cow<'_, [u8]>) -> Cow<'_, str> {
    match b {
        Cow::Borrowed(b) => String::from_utf8_lossy(b),
        Cow::Owned(b) => Cow::Owned(String::from_utf8_lossy(&b).into_owned()),
    }
}

/// Record batches held in memory, read as a corpus.
pub struct Batches {
    batches: Vec<RecordBatch>,
    /// The table's row number of each batch's first row.
    starts: Vec<u64>,
    text: usize,
    id: Option<usize>,
    url: Option<usize>,
    kind: PayloadKind,
    max_record: usize,
    text_field: String,
}

/// A range of rows of one batch: what one worker reads at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowRange {
    /// The batch.
    pub batch: u32,
    /// Its first row.
    pub start: usize,
    /// One past its last row.
    pub end: usize,
}

impl Batches {
    /// The batches of one table (one schema), their columns found as `opts` names them: a
    /// missing text column, or a column of a type that cannot hold what it names, is an error
    /// naming the column and the table's columns.
    pub fn new(batches: Vec<RecordBatch>, schema: &Schema, opts: &ReadOptions) -> Result<Batches> {
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
                Ok(i) => Err(Error::Config(format!(
                    "the table's column {name:?} is {}, not {what}",
                    schema.field(i).data_type()
                ))),
            }
        };
        let text = find(
            &opts.text_field,
            is_text,
            "text (a string or binary column)",
        )?
        .ok_or_else(|| {
            Error::Config(format!(
                "the table has no column {:?} for the text (columns: {})",
                opts.text_field,
                names()
            ))
        })?;
        if let Some(b) = batches
            .iter()
            .find(|b| b.schema().fields() != schema.fields())
        {
            return Err(Error::Config(format!(
                "a record batch's columns are not the table's: {:?}",
                b.schema()
            )));
        }
        let mut starts = Vec::with_capacity(batches.len());
        let mut rows = 0u64;
        for b in &batches {
            starts.push(rows);
            rows += b.num_rows() as u64;
        }
        Ok(Batches {
            id: find(&opts.id_field, is_id, "an id (a string or integer column)")?,
            url: find(&opts.url_field, is_text, "a URL (a string column)")?,
            text,
            batches,
            starts,
            kind: opts.jsonl_kind,
            max_record: opts.max_record,
            text_field: opts.text_field.clone(),
        })
    }

    /// Rows in all.
    pub fn rows(&self) -> u64 {
        self.starts.last().copied().unwrap_or(0)
            + self.batches.last().map_or(0, |b| b.num_rows() as u64)
    }

    /// The text bytes of every row (what progress counts).
    pub fn text_bytes(&self) -> u64 {
        self.batches
            .iter()
            .map(|b| b.column(self.text).get_buffer_memory_size() as u64)
            .sum()
    }

    /// The work: every batch cut into ranges of at most [`UNIT_ROWS`] rows, in table order.
    pub fn units(&self) -> Vec<RowRange> {
        let mut out = Vec::new();
        for (b, batch) in self.batches.iter().enumerate() {
            let n = batch.num_rows();
            for start in (0..n).step_by(UNIT_ROWS) {
                out.push(RowRange {
                    batch: b as u32,
                    start,
                    end: (start + UNIT_ROWS).min(n),
                });
            }
        }
        out
    }

    /// Delivers the documents of `unit` to `sink`, in row order; a row without text, or with
    /// more than the record limit, is a counted skip naming the row.
    pub fn read(&self, unit: RowRange, sink: &mut dyn Sink) {
        let b = unit.batch as usize;
        for r in unit.start..unit.end {
            let row = self.starts[b] + r as u64;
            match self.row(b, r) {
                Ok(doc) => sink.document(doc),
                Err((skip, why)) => sink.skip(skip, row, &format!("row {row}: {why}")),
            }
        }
    }

    /// Row `r` of batch `b` as a document.
    fn row(&self, b: usize, r: usize) -> std::result::Result<Document<'_>, (Skip, String)> {
        let batch = &self.batches[b];
        let row = self.starts[b] + r as u64;
        let payload = value(batch.column(self.text), r).ok_or_else(|| {
            (
                Skip::MissingText,
                format!("the text column {:?} is null", self.text_field),
            )
        })?;
        if payload.len() > self.max_record {
            return Err((
                Skip::TooLarge,
                format!(
                    "a text of {} bytes is longer than the record limit ({} bytes)",
                    payload.len(),
                    self.max_record
                ),
            ));
        }
        let id = match self.id.and_then(|c| value(batch.column(c), r)) {
            Some(v) => lossy(v),
            None => Cow::Owned(row.to_string()),
        };
        let url = self
            .url
            .and_then(|c| value(batch.column(c), r))
            .map(lossy)
            .unwrap_or_default();
        let loc = SourceLoc {
            offset: row,
            length: payload.len() as u64,
            inner: r as u64,
            shard: b as u32,
            kind: SourceLoc::MEMORY,
        };
        Ok(Document::row(id, url, loc, self.kind, payload))
    }
}

impl InMemory for Batches {
    fn document(&self, loc: &SourceLoc) -> Option<Document<'_>> {
        let b = loc.shard as usize;
        let r = usize::try_from(loc.inner).ok()?;
        if loc.kind != SourceLoc::MEMORY || b >= self.batches.len() {
            return None;
        }
        if r >= self.batches[b].num_rows() {
            return None;
        }
        self.row(b, r).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use arrow_array::{Int64Array, StringArray};
    use arrow_schema::Field;

    struct Collect(Vec<(String, String, u64)>, Vec<Skip>);

    impl Sink for Collect {
        fn document(&mut self, d: Document<'_>) {
            let text = String::from_utf8_lossy(&d.payload).into_owned();
            self.0.push((d.id.into_owned(), text, d.loc.offset));
        }
        fn skip(&mut self, s: Skip, _: u64, _: &str) {
            self.1.push(s);
        }
    }

    fn table() -> (Vec<RecordBatch>, Schema) {
        let schema = Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("text", DataType::Utf8, true),
        ]);
        let batch = |ids: Vec<Option<i64>>, texts: Vec<Option<&str>>| {
            RecordBatch::try_new(
                Arc::new(schema.clone()),
                vec![
                    Arc::new(Int64Array::from(ids)) as ArrayRef,
                    Arc::new(StringArray::from(texts)) as ArrayRef,
                ],
            )
            .unwrap()
        };
        (
            vec![
                batch(vec![Some(10), Some(11)], vec![Some("a b"), None]),
                batch(vec![None], vec![Some("c")]),
            ],
            schema,
        )
    }

    #[test]
    fn rows_read_in_order_and_again_by_location() {
        let (batches, schema) = table();
        let b = Batches::new(batches, &schema, &ReadOptions::default()).unwrap();
        assert_eq!(b.rows(), 3);
        let mut c = Collect(Vec::new(), Vec::new());
        for u in b.units() {
            b.read(u, &mut c);
        }
        let got: Vec<(&str, &str, u64)> =
            c.0.iter()
                .map(|(i, t, o)| (i.as_str(), t.as_str(), *o))
                .collect();
        // Row 1 has no text; row 2 has no id and is named by its row number.
        assert_eq!(got, vec![("10", "a b", 0), ("2", "c", 2)]);
        assert_eq!(c.1, vec![Skip::MissingText]);
        let loc = SourceLoc {
            offset: 2,
            length: 1,
            inner: 0,
            shard: 1,
            kind: SourceLoc::MEMORY,
        };
        assert_eq!(&*b.document(&loc).unwrap().payload, b"c");
        let gone = SourceLoc { shard: 5, ..loc };
        assert!(b.document(&gone).is_none());
    }

    #[test]
    fn a_missing_or_mistyped_column_is_named() {
        let (batches, schema) = table();
        let opts = ReadOptions {
            text_field: "body".into(),
            ..ReadOptions::default()
        };
        let e = Batches::new(batches.clone(), &schema, &opts)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("\"body\"") && e.contains("text (Utf8)"), "{e}");
        let opts = ReadOptions {
            text_field: "id".into(),
            ..ReadOptions::default()
        };
        let e = Batches::new(batches, &schema, &opts)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("Int64, not text"), "{e}");
    }
}
