//! The tables again, typed: `--tables parquet` and `--tables jsonl` write each TSV table
//! (clusters, keep and remove lists, excluded documents, the sweep, the pairs) as Parquet or
//! JSON lines beside it, with the same rows and columns.
//!
//! A column's type follows from its name, the same in every table (docs/FORMATS.md): ids and
//! names are strings, ratios, precisions and scores are doubles, every other column is a
//! signed 64-bit integer (Spark and DuckDB read unsigned 64-bit columns poorly). A field that
//! is `-` or empty is null.
//!
//! The lists and the pairs are written from the columns the run holds in memory, a row group
//! per block of documents or pairs, encoded on every core while their TSVs are formatted
//! ([`Writer`]); tables that exist only as files (the sweep) are converted from their TSV
//! text ([`write_table`]).

use std::path::{Path, PathBuf};

use crate::base::atomic::AtomicFile;
use crate::{Error, Result};

/// A typed table format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TableFormat {
    /// Apache Parquet (zstd).
    Parquet,
    /// JSON lines, one object per row.
    Jsonl,
}

impl TableFormat {
    /// File extension.
    pub fn ext(self) -> &'static str {
        match self {
            TableFormat::Parquet => "parquet",
            TableFormat::Jsonl => "jsonl",
        }
    }
}

/// A column's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// UTF-8 string.
    Str,
    /// Signed 64-bit integer.
    Int,
    /// Double.
    Float,
}

/// The type of the column named `name`.
pub fn kind(name: &str) -> Kind {
    match name {
        "id" | "representative" | "kept" | "kept_in" | "reason" | "id_a" | "id_b" => Kind::Str,
        "kept_ratio" | "max_cluster_ratio" | "precision" | "precision_low" | "precision_high"
        | "score" | "removal_rate" => Kind::Float,
        n if n.ends_with("_ratio") => Kind::Float,
        "tau" | "tau128" | "docs_kept" | "max_cluster" | "pairs" | "docs_in_clusters"
        | "candidate_pairs" | "known_pairs" | "verified_pairs" | "sampled_pairs"
        | "removed_by_star" | "cluster_size" | "hamming64" | "hamming128" | "documents"
        | "removed" | "full_text" | "blocks_aside" | "words_aside" => Kind::Int,
        _ => Kind::Str,
    }
}

/// A column made in memory, one value per row.
#[derive(Clone)]
pub enum Column {
    /// Strings (never null).
    Str(Strs),
    /// Integers; None is null.
    Int(Vec<Option<i64>>),
    /// Doubles; None is null.
    Float(Vec<Option<f64>>),
}

impl Column {
    /// An empty column of `kind` with room for `rows` values.
    pub fn of(kind: Kind, rows: usize) -> Column {
        match kind {
            Kind::Str => Column::Str(Strs::with_capacity(rows, rows * 24)),
            Kind::Int => Column::Int(Vec::with_capacity(rows)),
            Kind::Float => Column::Float(Vec::with_capacity(rows)),
        }
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        match self {
            Column::Str(s) => s.len(),
            Column::Int(v) => v.len(),
            Column::Float(v) => v.len(),
        }
    }

    /// Whether the column holds no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a string (to a string column; [`Writer::encode`] refuses a column whose length
    /// then differs from the others').
    pub fn push_str(&mut self, v: &str) {
        if let Column::Str(s) = self {
            s.push(v);
        }
    }

    /// Appends an integer or a null (to an integer column).
    pub fn push_int(&mut self, v: Option<i64>) {
        if let Column::Int(c) = self {
            c.push(v);
        }
    }

    /// Appends a double or a null (to a double column).
    pub fn push_float(&mut self, v: Option<f64>) {
        if let Column::Float(c) = self {
            c.push(v);
        }
    }
}

/// Strings one after another, with the offset where each ends: Arrow's layout, so a column
/// becomes an array without copying.
#[derive(Clone)]
pub struct Strs {
    bytes: String,
    /// `offsets[i]..offsets[i + 1]` is string `i`; starts with 0.
    offsets: Vec<i32>,
}

impl Strs {
    /// Room for `rows` strings of `bytes` bytes in all.
    pub fn with_capacity(rows: usize, bytes: usize) -> Strs {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Strs {
            bytes: String::with_capacity(bytes),
            offsets,
        }
    }

    /// Appends one string.
    pub fn push(&mut self, s: &str) {
        self.bytes.push_str(s);
        // A row group holds far less than 2 GiB of one column's strings (rows per group are
        // bounded by the callers), so the offset fits.
        self.offsets.push(self.bytes.len() as i32);
    }

    /// Strings held.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether no string is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// String `i`.
    pub fn get(&self, i: usize) -> &str {
        &self.bytes[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// A typed table written a row group at a time. [`Writer::encode`] turns columns into a row
/// group and may run on any thread, many at once; [`Writer::append`] adds encoded row groups
/// to the file in the order given. The file appears under its name when [`Writer::finish`]ed.
pub struct Writer {
    header: Vec<String>,
    kinds: Vec<Kind>,
    path: PathBuf,
    out: Out,
}

enum Out {
    Jsonl(AtomicFile),
    #[cfg(feature = "parquet")]
    Parquet(Box<pq::Table>),
}

/// A row group encoded by [`Writer::encode`], ready to append.
pub struct Encoded(EncodedRows);

enum EncodedRows {
    Jsonl(Vec<u8>),
    #[cfg(feature = "parquet")]
    Parquet(Vec<parquet::arrow::arrow_writer::ArrowColumnChunk>),
    Empty,
}

impl Writer {
    /// Starts `stem` plus the format's extension, with columns named `header` (their types
    /// follow from the names: [`kind`]).
    pub fn create<S: AsRef<str>>(stem: &Path, format: TableFormat, header: &[S]) -> Result<Writer> {
        let path = stem.with_extension(format.ext());
        let header: Vec<String> = header.iter().map(|h| h.as_ref().to_string()).collect();
        let kinds: Vec<Kind> = header.iter().map(|h| kind(h)).collect();
        let out = match format {
            TableFormat::Jsonl => Out::Jsonl(AtomicFile::create(&path)?),
            #[cfg(feature = "parquet")]
            TableFormat::Parquet => {
                Out::Parquet(Box::new(pq::Table::create(&path, &header, &kinds)?))
            }
            #[cfg(not(feature = "parquet"))]
            TableFormat::Parquet => {
                return Err(Error::Config(
                    "--tables parquet: this build of neardup has no Parquet support (built without the `parquet` feature)".into(),
                ))
            }
        };
        Ok(Writer {
            header,
            kinds,
            path,
            out,
        })
    }

    /// Empty columns for a row group of about `rows` rows.
    pub fn columns(&self, rows: usize) -> Vec<Column> {
        self.kinds.iter().map(|k| Column::of(*k, rows)).collect()
    }

    /// Encodes one row group: `cols` in the header's order, of equal length and of the
    /// header's types.
    pub fn encode(&self, cols: Vec<Column>) -> Result<Encoded> {
        let rows = cols.first().map_or(0, Column::len);
        let fits = cols.len() == self.kinds.len()
            && cols.iter().zip(&self.kinds).all(|(c, k)| {
                c.len() == rows
                    && matches!(
                        (c, k),
                        (Column::Str(_), Kind::Str)
                            | (Column::Int(_), Kind::Int)
                            | (Column::Float(_), Kind::Float)
                    )
            });
        if !fits {
            return Err(Error::Config(format!(
                "{}: a row group does not match the table's columns",
                self.path.display()
            )));
        }
        if rows == 0 {
            return Ok(Encoded(EncodedRows::Empty));
        }
        Ok(Encoded(match &self.out {
            Out::Jsonl(_) => EncodedRows::Jsonl(json_rows(&self.header, &cols, rows)),
            #[cfg(feature = "parquet")]
            Out::Parquet(t) => EncodedRows::Parquet(t.encode(cols)?),
        }))
    }

    /// Appends an encoded row group.
    pub fn append(&mut self, e: Encoded) -> Result<()> {
        match (&mut self.out, e.0) {
            (_, EncodedRows::Empty) => Ok(()),
            (Out::Jsonl(f), EncodedRows::Jsonl(bytes)) => f.put(&bytes),
            #[cfg(feature = "parquet")]
            (Out::Parquet(t), EncodedRows::Parquet(chunks)) => t.append(chunks),
            #[cfg(feature = "parquet")]
            _ => Err(Error::Config(format!(
                "{}: a row group encoded for another table",
                self.path.display()
            ))),
        }
    }

    /// Encodes and appends one row group.
    pub fn write(&mut self, cols: Vec<Column>) -> Result<()> {
        let e = self.encode(cols)?;
        self.append(e)
    }

    /// Completes the file; returns its path.
    pub fn finish(self) -> Result<PathBuf> {
        match self.out {
            Out::Jsonl(f) => f.commit()?,
            #[cfg(feature = "parquet")]
            Out::Parquet(t) => t.finish()?,
        }
        Ok(self.path)
    }
}

/// Encodes one row group of columns for each of `writers` (tables of the same columns in
/// different formats): the last takes the columns, the others a copy.
pub fn encode_each(writers: &[Writer], cols: Vec<Column>) -> Result<Vec<Encoded>> {
    let mut out = Vec::with_capacity(writers.len());
    if let Some((last, rest)) = writers.split_last() {
        for w in rest {
            out.push(w.encode(cols.clone())?);
        }
        out.push(last.encode(cols)?);
    }
    Ok(out)
}

/// One JSON object per row, keys in the header's order; nulls as null.
fn json_rows(header: &[String], cols: &[Column], rows: usize) -> Vec<u8> {
    let keys: Vec<String> = header
        .iter()
        .map(|h| serde_json::Value::from(h.as_str()).to_string())
        .collect();
    let mut out = Vec::with_capacity(rows * 64);
    for r in 0..rows {
        out.push(b'{');
        for (i, (c, key)) in cols.iter().zip(&keys).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(key.as_bytes());
            out.push(b':');
            // Writing a string or a number into a Vec cannot fail.
            let _ = match c {
                Column::Str(s) => serde_json::to_writer(&mut out, s.get(r)),
                Column::Int(v) => serde_json::to_writer(&mut out, &v[r]),
                Column::Float(v) => serde_json::to_writer(&mut out, &v[r]),
            };
        }
        out.extend_from_slice(b"}\n");
    }
    out
}

/// One table given as TSV text: its bytes, its header when the text has none (`keep.txt`),
/// and the path of the typed file without extension.
pub struct Table<'a> {
    /// The TSV text.
    pub tsv: &'a [u8],
    /// Column names when the text has no header line.
    pub header: Option<&'a [&'a str]>,
    /// Output path without the extension.
    pub stem: PathBuf,
    /// Where the TSV came from, for messages.
    pub source: PathBuf,
}

/// Rows per row group of a table converted from TSV text.
const BLOCK: usize = 1 << 16;

/// Writes one table given as TSV text in one format; returns the file written. Used for the
/// tables that exist only as files (the sweep); the others are written from memory.
pub fn write_table(t: &Table<'_>, format: TableFormat) -> Result<PathBuf> {
    let text = std::str::from_utf8(t.tsv).map_err(|e| Error::Parse {
        path: t.source.clone(),
        offset: e.valid_up_to() as u64,
        msg: format!("not UTF-8 at byte {}", e.valid_up_to()),
    })?;
    let mut lines = text.split('\n').filter(|l| !l.is_empty());
    let header: Vec<String> = match t.header {
        Some(h) => h.iter().map(|s| s.to_string()).collect(),
        None => match lines.next() {
            Some(h) => h
                .trim_end_matches('\r')
                .split('\t')
                .map(str::to_string)
                .collect(),
            None => return Err(Error::store(&t.source, "an empty table (no header)")),
        },
    };
    let mut w = Writer::create(&t.stem, format, &header)?;
    let cols = header.len();
    let mut block = w.columns(BLOCK);
    let first = 1u64 + u64::from(t.header.is_none());
    for (line_no, line) in (first..).zip(lines) {
        let mut n = 0;
        for (i, f) in line.trim_end_matches('\r').split('\t').enumerate() {
            n = i + 1;
            let Some(c) = block.get_mut(i) else { continue };
            let name = &header[i];
            match c {
                Column::Str(s) => s.push(f),
                Column::Int(v) => v.push(number(f, &t.source, name, Kind::Int)?),
                Column::Float(v) => v.push(number(f, &t.source, name, Kind::Float)?),
            }
        }
        if n != cols {
            return Err(Error::Parse {
                path: t.source.clone(),
                offset: line_no,
                msg: format!("line {line_no} has {n} fields, the header {cols}"),
            });
        }
        if block[0].len() == BLOCK {
            let full = std::mem::replace(&mut block, w.columns(BLOCK));
            w.write(full)?;
        }
    }
    w.write(block)?;
    w.finish()
}

/// A null field.
fn null(f: &str) -> bool {
    f.is_empty() || f == "-"
}

/// A field of a numeric column: None when null; an error naming the file and the column when
/// it is not a number of type `T`.
fn number<T: std::str::FromStr>(
    field: &str,
    source: &Path,
    col: &str,
    kind: Kind,
) -> Result<Option<T>> {
    if null(field) {
        return Ok(None);
    }
    let what = if kind == Kind::Int {
        "an integer"
    } else {
        "a number"
    };
    field.parse().map(Some).map_err(|_| Error::Parse {
        path: source.to_path_buf(),
        offset: 0,
        msg: format!("column {col}: {field:?} is not {what}"),
    })
}

#[cfg(feature = "parquet")]
mod pq {
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Float64Array, Int64Array, StringArray};
    use arrow_buffer::OffsetBuffer;
    use arrow_schema::{DataType, Field, Schema, SchemaRef};
    use parquet::arrow::arrow_writer::{
        compute_leaves, ArrowColumnChunk, ArrowRowGroupWriterFactory,
    };
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::{EnabledStatistics, WriterProperties};
    use parquet::file::writer::SerializedFileWriter;

    use super::{Column, Kind};
    use crate::base::atomic::AtomicFile;
    use crate::{Error, Result};

    pub struct Table {
        w: SerializedFileWriter<AtomicFile>,
        factory: ArrowRowGroupWriterFactory,
        schema: SchemaRef,
        path: PathBuf,
    }

    fn err(path: &Path, e: impl std::fmt::Display) -> Error {
        Error::Config(format!("{}: writing Parquet: {e}", path.display()))
    }

    impl Table {
        pub fn create(path: &Path, header: &[String], kinds: &[Kind]) -> Result<Table> {
            let fields: Vec<Field> = header
                .iter()
                .zip(kinds)
                .map(|(h, k)| {
                    let t = match k {
                        Kind::Str => DataType::Utf8,
                        Kind::Int => DataType::Int64,
                        Kind::Float => DataType::Float64,
                    };
                    Field::new(h, t, true)
                })
                .collect();
            let schema = Arc::new(Schema::new(fields));
            // Ids are mostly distinct: dictionaries would be tried and dropped page by page.
            // Statistics per column chunk are enough for a table read whole, and only on
            // numbers: the minimum and maximum of a row group's ids prune nothing (ids are
            // not sorted) and comparing every id costs. zstd's first level: ids compress
            // about 20 times at it, and it is the fastest.
            let mut props = WriterProperties::builder()
                .set_compression(Compression::ZSTD(
                    ZstdLevel::try_new(1).expect("valid level"),
                ))
                .set_dictionary_enabled(false)
                .set_statistics_enabled(EnabledStatistics::Chunk);
            for (h, k) in header.iter().zip(kinds) {
                if *k == Kind::Str {
                    let col = parquet::schema::types::ColumnPath::from(h.as_str());
                    props = props.set_column_statistics_enabled(col, EnabledStatistics::None);
                }
            }
            let props = props.build();
            let file = AtomicFile::create(path)?;
            // The high-level writer adds the Arrow schema to the footer; its parts then
            // encode row groups on any thread.
            let (w, factory) = ArrowWriter::try_new(file, schema.clone(), Some(props))
                .and_then(ArrowWriter::into_serialized_writer)
                .map_err(|e| err(path, e))?;
            Ok(Table {
                w,
                factory,
                schema,
                path: path.to_path_buf(),
            })
        }

        /// Encodes one row group's columns (of the schema's types: checked by the caller).
        pub fn encode(&self, cols: Vec<Column>) -> Result<Vec<ArrowColumnChunk>> {
            let e = |x: parquet::errors::ParquetError| err(&self.path, x);
            let mut writers = self.factory.create_column_writers(0).map_err(e)?;
            for ((c, field), w) in cols.into_iter().zip(self.schema.fields()).zip(&mut writers) {
                let array: ArrayRef = match c {
                    Column::Str(s) => {
                        // Offsets made by `Strs::push`: from 0, never decreasing, on
                        // character boundaries (checked again by `try_new`).
                        let offsets = OffsetBuffer::new(s.offsets.into());
                        let bytes = s.bytes.into_bytes().into();
                        let a = StringArray::try_new(offsets, bytes, None);
                        Arc::new(a.map_err(|x| err(&self.path, x))?)
                    }
                    Column::Int(v) => Arc::new(Int64Array::from(v)),
                    Column::Float(v) => Arc::new(Float64Array::from(v)),
                };
                for leaf in compute_leaves(field, &array).map_err(|x| err(&self.path, x))? {
                    w.write(&leaf).map_err(|x| err(&self.path, x))?;
                }
            }
            writers
                .into_iter()
                .map(|w| w.close().map_err(|x| err(&self.path, x)))
                .collect()
        }

        pub fn append(&mut self, chunks: Vec<ArrowColumnChunk>) -> Result<()> {
            let path = self.path.clone();
            let mut rg = self.w.next_row_group().map_err(|e| err(&path, e))?;
            for c in chunks {
                c.append_to_row_group(&mut rg).map_err(|e| err(&path, e))?;
            }
            rg.close().map(|_| ()).map_err(|e| err(&path, e))
        }

        pub fn finish(self) -> Result<()> {
            let path = self.path;
            let file = self.w.into_inner().map_err(|e| err(&path, e))?;
            file.commit()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_tables_keep_rows_types_and_nulls() {
        let dir = tempfile::tempdir().unwrap();
        let tsv = b"id\tkept\thamming64\tscore\na\tb\t3\t0.9\nc\td\t-\t-\n";
        let t = Table {
            tsv,
            header: None,
            stem: dir.path().join("remove"),
            source: dir.path().join("remove.tsv"),
        };
        let p = write_table(&t, TableFormat::Jsonl).unwrap();
        let text = std::fs::read_to_string(p).unwrap();
        let rows: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["hamming64"], 3);
        assert_eq!(rows[0]["score"], 0.9);
        assert_eq!(rows[0]["kept"], "b");
        assert!(rows[1]["hamming64"].is_null() && rows[1]["score"].is_null());
        // A field that does not parse as its column's type is an error naming the file.
        let t = Table {
            tsv: b"tau\tdocs_kept\n1\tmany\n",
            header: None,
            stem: dir.path().join("sweep"),
            source: dir.path().join("sweep.tsv"),
        };
        let e = write_table(&t, TableFormat::Jsonl).unwrap_err().to_string();
        assert!(e.contains("sweep.tsv") && e.contains("docs_kept"), "{e}");
    }

    /// Row groups of `n` rows each: an id, a distance (null every seventh row) and a score.
    fn group(g: usize, n: usize) -> Vec<Column> {
        let mut s = Strs::with_capacity(n, 0);
        let (mut d, mut f) = (Vec::new(), Vec::new());
        for r in 0..n {
            let i = g * n + r;
            s.push(&format!("doc-{i}\u{e9}"));
            d.push((!i.is_multiple_of(7)).then_some(i as i64));
            f.push(Some(i as f64 / 8.0));
        }
        vec![Column::Str(s), Column::Int(d), Column::Float(f)]
    }

    #[test]
    fn row_groups_encoded_on_any_thread_are_appended_in_sequence() {
        use rayon::prelude::*;
        let dir = tempfile::tempdir().unwrap();
        let header = ["id", "hamming64", "score"];
        let (groups, n) = (9, 1000);
        let mut paths = Vec::new();
        for f in [TableFormat::Jsonl, TableFormat::Parquet] {
            let mut w = match Writer::create(&dir.path().join("t"), f, &header) {
                Ok(w) => w,
                Err(_) if !cfg!(feature = "parquet") => continue,
                Err(e) => panic!("{e}"),
            };
            // Encoded on any thread in any order, appended in order.
            let mut enc: Vec<(usize, Encoded)> = (0..groups)
                .into_par_iter()
                .rev()
                .map(|g| (g, w.encode(group(g, n)).unwrap()))
                .collect();
            enc.sort_by_key(|(g, _)| *g);
            for (_, e) in enc {
                w.append(e).unwrap();
            }
            // A row group that does not match the columns is refused, not written.
            let mut bad = group(0, 3);
            bad.pop();
            assert!(w.encode(bad).is_err());
            let mut short = group(0, 3);
            short[1] = Column::Int(vec![Some(1)]);
            assert!(w.encode(short).is_err());
            assert!(!w.path.exists(), "visible before finish");
            paths.push(w.finish().unwrap());
        }
        let text = std::fs::read_to_string(&paths[0]).unwrap();
        let rows: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(rows.len(), groups * n);
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(r["id"], format!("doc-{i}\u{e9}"));
            if i % 7 == 0 {
                assert!(r["hamming64"].is_null());
            } else {
                assert_eq!(r["hamming64"], i as i64);
            }
            assert_eq!(r["score"], i as f64 / 8.0);
        }
        #[cfg(feature = "parquet")]
        {
            use arrow_array::cast::AsArray;
            use arrow_array::types::{Float64Type, Int64Type};
            use arrow_array::Array;
            use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
            let file = std::fs::File::open(&paths[1]).unwrap();
            let b = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
            assert_eq!(b.metadata().num_row_groups(), groups);
            let mut i = 0;
            for batch in b.build().unwrap() {
                let batch = batch.unwrap();
                let (ids, d, f) = (
                    batch.column(0).as_string::<i32>(),
                    batch.column(1).as_primitive::<Int64Type>(),
                    batch.column(2).as_primitive::<Float64Type>(),
                );
                for r in 0..batch.num_rows() {
                    let j = i + r;
                    assert_eq!(ids.value(r), rows[j]["id"].as_str().unwrap());
                    assert_eq!(d.is_null(r), j % 7 == 0);
                    if !d.is_null(r) {
                        assert_eq!(d.value(r), j as i64);
                    }
                    assert_eq!(f.value(r), j as f64 / 8.0);
                }
                i += batch.num_rows();
            }
            assert_eq!(i, groups * n);
        }
    }
}
