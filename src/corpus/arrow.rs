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

use super::{Document, InMemory, PayloadKind, ReadOptions, Sink, Skip, SourceLoc, Tagged};
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

/// A column that can hold a number for `--keep-by`: numbers, dates and times, or text.
pub(crate) fn is_number(t: &DataType) -> bool {
    match t {
        DataType::Dictionary(_, v) => is_number(v),
        t => {
            t.is_numeric()
                || is_text(t)
                || matches!(
                    t,
                    DataType::Timestamp(..)
                        | DataType::Date32
                        | DataType::Date64
                        | DataType::Boolean
                )
        }
    }
}

/// One column's value as a number: numbers as they are, dates and times in seconds since
/// 1970, text read by [`super::number_of`]; None for a null or unreadable value.
pub(crate) fn number(col: &ArrayRef, row: usize) -> Option<f64> {
    use arrow_array::types::{
        Date32Type, Date64Type, Float16Type, Float32Type, Float64Type, TimestampMicrosecondType,
        TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
    };
    use arrow_schema::TimeUnit;
    if col.is_null(row) {
        return None;
    }
    macro_rules! prim {
        ($($t:ty),*) => {$(
            if let Some(a) = col.as_primitive_opt::<$t>() {
                return Some(a.value(row).as_());
            }
        )*};
    }
    let v = match col.data_type() {
        DataType::Float16 => f64::from(col.as_primitive::<Float16Type>().value(row)),
        DataType::Float32 => f64::from(col.as_primitive::<Float32Type>().value(row)),
        DataType::Float64 => col.as_primitive::<Float64Type>().value(row),
        DataType::Boolean => f64::from(u8::from(col.as_boolean().value(row))),
        // Decimals (a price, a score kept exactly): the unscaled integer over 10^scale.
        t @ (DataType::Decimal32(_, scale)
        | DataType::Decimal64(_, scale)
        | DataType::Decimal128(_, scale)
        | DataType::Decimal256(_, scale)) => {
            use arrow_array::types::{
                Decimal128Type, Decimal256Type, Decimal32Type, Decimal64Type,
            };
            let unscaled = match t {
                DataType::Decimal32(..) => {
                    f64::from(col.as_primitive::<Decimal32Type>().value(row))
                }
                DataType::Decimal64(..) => col.as_primitive::<Decimal64Type>().value(row) as f64,
                DataType::Decimal128(..) => col.as_primitive::<Decimal128Type>().value(row) as f64,
                _ => i256_f64(col.as_primitive::<Decimal256Type>().value(row)),
            };
            unscaled / 10f64.powi(i32::from(*scale))
        }
        DataType::Date32 => f64::from(col.as_primitive::<Date32Type>().value(row)) * 86_400.0,
        DataType::Date64 => col.as_primitive::<Date64Type>().value(row) as f64 / 1e3,
        DataType::Timestamp(unit, _) => match unit {
            TimeUnit::Second => col.as_primitive::<TimestampSecondType>().value(row) as f64,
            TimeUnit::Millisecond => {
                col.as_primitive::<TimestampMillisecondType>().value(row) as f64 / 1e3
            }
            TimeUnit::Microsecond => {
                col.as_primitive::<TimestampMicrosecondType>().value(row) as f64 / 1e6
            }
            TimeUnit::Nanosecond => {
                col.as_primitive::<TimestampNanosecondType>().value(row) as f64 / 1e9
            }
        },
        t if t.is_integer() => {
            trait AsF64 {
                fn as_(self) -> f64;
            }
            macro_rules! as_f64 {
                ($($n:ty),*) => {$(impl AsF64 for $n { fn as_(self) -> f64 { self as f64 } })*};
            }
            as_f64!(i8, i16, i32, i64, u8, u16, u32, u64);
            prim!(
                Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
                UInt64Type
            );
            return None;
        }
        _ => return value(col, row).and_then(|b| super::number_of(&lossy(b))),
    };
    // An infinite number is a number (it ranks first or last); NaN is none.
    (!v.is_nan()).then_some(v)
}

/// A 256-bit integer as the nearest f64 (its high and low 128 bits combined).
fn i256_f64(v: arrow_buffer::i256) -> f64 {
    let (low, high) = v.to_parts();
    high as f64 * 2f64.powi(128) + low as f64
}

pub(crate) fn lossy(b: Cow<'_, [u8]>) -> Cow<'_, str> {
    match b {
        Cow::Borrowed(b) => String::from_utf8_lossy(b),
        Cow::Owned(b) => Cow::Owned(String::from_utf8_lossy(&b).into_owned()),
    }
}

/// Where the text, id and URL are among a schema's top-level columns.
pub(crate) struct Fields {
    pub text: usize,
    pub id: Option<usize>,
    pub url: Option<usize>,
    /// The `--keep-by` column, when one is named and present.
    pub value: Option<usize>,
}

impl Fields {
    /// The fields of `schema` as `opts` names them; a missing text column, or a column of a
    /// type that cannot hold what it names, is the reason (completing "... has ") and whether
    /// the text column is what is missing.
    pub(crate) fn locate(
        schema: &Schema,
        opts: &ReadOptions,
    ) -> std::result::Result<Fields, (String, bool)> {
        let find = |name: &str, ok: fn(&DataType) -> bool, what: &str| match schema.index_of(name) {
            Err(_) => Ok(None),
            Ok(i) if ok(schema.field(i).data_type()) => Ok(Some(i)),
            Ok(i) => Err((
                format!(
                    "column {name:?} of type {}, not {what}",
                    schema.field(i).data_type()
                ),
                false,
            )),
        };
        let text = find(
            &opts.text_field,
            is_text,
            "text (a string or binary column)",
        )?
        .ok_or_else(|| {
            let names: Vec<String> = schema
                .fields()
                .iter()
                .map(|f| format!("{} ({})", f.name(), f.data_type()))
                .collect();
            (
                format!(
                    "no column {:?} for the text (columns: {})",
                    opts.text_field,
                    names.join(", ")
                ),
                true,
            )
        })?;
        Ok(Fields {
            text,
            id: find(&opts.id_field, is_id, "an id (a string or integer column)")?,
            url: find(&opts.url_field, is_text, "a URL (a string column)")?,
            value: match &opts.value_field {
                Some(v) => Some(
                    find(v, is_number, "a number, a date or text")?
                        .ok_or_else(|| (format!("no column {v:?} for --keep-by"), false))?,
                ),
                None => None,
            },
        })
    }
}

/// Where a table's text, id and URL are among its columns, and how its rows read.
#[derive(Clone, Debug)]
pub struct Columns {
    schema: arrow_schema::SchemaRef,
    text: usize,
    id: Option<usize>,
    url: Option<usize>,
    value: Option<usize>,
    kind: PayloadKind,
    max_record: usize,
    text_field: String,
}

impl Columns {
    /// The columns of `schema` as `opts` names them: a missing text column, or a column of a
    /// type that cannot hold what it names, is an error naming the column and the table's
    /// columns.
    pub fn find(schema: &Schema, opts: &ReadOptions) -> Result<Columns> {
        let f = Fields::locate(schema, opts)
            .map_err(|(msg, _)| Error::Config(format!("the table has {msg}")))?;
        Ok(Columns {
            schema: std::sync::Arc::new(schema.clone()),
            id: f.id,
            url: f.url,
            value: f.value,
            text: f.text,
            kind: opts.jsonl_kind,
            max_record: opts.max_record,
            text_field: opts.text_field.clone(),
        })
    }

    /// Refuses a batch whose columns are not the table's.
    fn check(&self, batch: &RecordBatch) -> Result<()> {
        if batch.schema().fields() != self.schema.fields() {
            return Err(Error::Config(format!(
                "a record batch's columns are not the table's: {:?}",
                batch.schema()
            )));
        }
        Ok(())
    }

    /// Row `r` of `batch`, the table's row `row`, the `b`-th batch, as a document; a row
    /// without text, or with more than the record limit, is the skip and why.
    fn row<'a>(
        &self,
        batch: &'a RecordBatch,
        b: usize,
        r: usize,
        row: u64,
    ) -> std::result::Result<Document<'a>, (Skip, String)> {
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
        let mut doc = Document::row(id, url, loc, self.kind, payload);
        doc.value = self.value.and_then(|c| number(batch.column(c), r));
        Ok(doc)
    }

    /// Delivers the rows `unit` of `batch` (whose first row is the table's `start`) to
    /// `sink`, in row order, a row that cannot be read as a counted skip naming it.
    fn read(&self, batch: &RecordBatch, start: u64, unit: RowRange, sink: &mut dyn Sink) {
        for r in unit.start..unit.end {
            let row = start + r as u64;
            match self.row(batch, unit.batch as usize, r, row) {
                Ok(doc) => sink.document(doc),
                Err((skip, why)) => sink.skip(skip, row, &format!("row {row}: {why}")),
            }
        }
    }
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

/// The work of one batch: its rows cut into ranges of at most [`UNIT_ROWS`].
fn units_of(b: u32, rows: usize) -> impl Iterator<Item = RowRange> {
    (0..rows).step_by(UNIT_ROWS).map(move |start| RowRange {
        batch: b,
        start,
        end: (start + UNIT_ROWS).min(rows),
    })
}

/// Record batches held in memory, read as a corpus.
pub struct Batches {
    batches: Vec<RecordBatch>,
    /// The table's row number of each batch's first row.
    starts: Vec<u64>,
    /// The table's number of the first batch (a batch of a scanned table is read alone).
    first: u32,
    cols: Columns,
}

impl Batches {
    /// The batches of one table (one schema), their columns found as `opts` names them
    /// ([`Columns::find`]).
    pub fn new(batches: Vec<RecordBatch>, schema: &Schema, opts: &ReadOptions) -> Result<Batches> {
        let cols = Columns::find(schema, opts)?;
        let mut starts = Vec::with_capacity(batches.len());
        let mut rows = 0u64;
        for b in &batches {
            cols.check(b)?;
            starts.push(rows);
            rows += b.num_rows() as u64;
        }
        Ok(Batches {
            batches,
            starts,
            first: 0,
            cols,
        })
    }

    /// Rows held.
    pub fn rows(&self) -> u64 {
        self.batches.iter().map(|b| b.num_rows() as u64).sum()
    }

    /// The text bytes of every row (what progress counts).
    pub fn text_bytes(&self) -> u64 {
        self.batches
            .iter()
            .map(|b| b.column(self.cols.text).get_buffer_memory_size() as u64)
            .sum()
    }

    /// The work: every batch cut into ranges of at most [`UNIT_ROWS`] rows, in table order.
    pub fn units(&self) -> Vec<RowRange> {
        self.batches
            .iter()
            .enumerate()
            .flat_map(|(b, batch)| units_of(self.first + b as u32, batch.num_rows()))
            .collect()
    }

    /// Delivers the documents of `unit` to `sink`, in row order; a row without text, or with
    /// more than the record limit, is a counted skip naming the row.
    pub fn read_unit(&self, unit: RowRange, sink: &mut dyn Sink) {
        let b = (unit.batch - self.first) as usize;
        self.cols.read(&self.batches[b], self.starts[b], unit, sink);
    }
}

impl InMemory for Batches {
    fn read(&self, wanted: &[(u32, SourceLoc)], visit: &mut dyn FnMut(&Tagged<'_>)) -> Result<()> {
        let mut docs = Vec::new();
        for (d, loc) in wanted {
            let Some(b) = loc.shard.checked_sub(self.first) else {
                continue;
            };
            let Some(batch) = self.batches.get(b as usize) else {
                continue;
            };
            let r = loc.inner as usize;
            if loc.kind != SourceLoc::MEMORY || r >= batch.num_rows() {
                continue;
            }
            if let Ok(doc) = self.cols.row(batch, loc.shard as usize, r, loc.offset) {
                docs.push((*d, doc));
            }
        }
        visit(&docs);
        Ok(())
    }
}

/// A table read in scans, each giving its record batches in the same order (a dataset on
/// disk, a stream that can be made again): fingerprinted on the first scan, its texts read
/// again on later ones, with one batch held at a time.
pub trait Scan: Send + Sync {
    /// A new scan of the table, from its first row.
    fn scan(&self) -> Result<Box<dyn Iterator<Item = Result<RecordBatch>> + '_>>;
}

/// A table that is scanned, not held: at most a batch of it in memory at a time.
pub struct Streamed {
    scan: Box<dyn Scan>,
    cols: Columns,
}

impl Streamed {
    /// The table `scan` gives, its columns in `schema` found as `opts` names them.
    pub fn new(scan: Box<dyn Scan>, schema: &Schema, opts: &ReadOptions) -> Result<Streamed> {
        Ok(Streamed {
            scan,
            cols: Columns::find(schema, opts)?,
        })
    }

    /// Scans the table once, calling `each` with every batch as a one-batch [`Batches`]
    /// (its rows numbered as in the table) until it fails.
    pub fn for_each_batch(&self, mut each: impl FnMut(&Batches) -> Result<()>) -> Result<()> {
        let mut start = 0u64;
        for (b, batch) in self.scan.scan()?.enumerate() {
            let batch = batch?;
            self.cols.check(&batch)?;
            let rows = batch.num_rows() as u64;
            each(&Batches {
                batches: vec![batch],
                starts: vec![start],
                first: b as u32,
                cols: self.cols.clone(),
            })?;
            start += rows;
        }
        Ok(())
    }
}

impl InMemory for Streamed {
    fn read(&self, wanted: &[(u32, SourceLoc)], visit: &mut dyn FnMut(&Tagged<'_>)) -> Result<()> {
        let mut by_row: Vec<&(u32, SourceLoc)> = wanted.iter().collect();
        by_row.sort_unstable_by_key(|w| w.1.offset);
        let mut next = 0;
        self.for_each_batch(|one| {
            let (batch, start, b) = (&one.batches[0], one.starts[0], one.first as usize);
            let end = start + batch.num_rows() as u64;
            let mut docs = Vec::new();
            while next < by_row.len() && by_row[next].1.offset < end {
                let (d, loc) = by_row[next];
                next += 1;
                if loc.kind != SourceLoc::MEMORY || loc.offset < start {
                    continue;
                }
                let r = (loc.offset - start) as usize;
                if let Ok(doc) = one.cols.row(batch, b, r, loc.offset) {
                    docs.push((*d, doc));
                }
            }
            if !docs.is_empty() {
                visit(&docs);
            }
            Ok(())
        })
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
            b.read_unit(u, &mut c);
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
        let again = |loc: SourceLoc| {
            let mut got = Vec::new();
            InMemory::read(&b, &[(7, loc)], &mut |docs: &Tagged<'_>| {
                got.extend(docs.iter().map(|(d, doc)| (*d, doc.payload.to_vec())))
            })
            .unwrap();
            got
        };
        assert_eq!(again(loc), vec![(7, b"c".to_vec())]);
        assert!(again(SourceLoc { shard: 5, ..loc }).is_empty());
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
