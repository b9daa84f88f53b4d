//! The tables again, typed: `--tables parquet` and `--tables jsonl` write each TSV table
//! (clusters, keep and remove lists, excluded documents, the sweep, the pairs) as Parquet or
//! JSON lines beside it, with the same rows and columns.
//!
//! A column's type follows from its name, the same in every table (docs/FORMATS.md): ids and
//! names are strings, ratios, precisions and scores are doubles, every other column is a
//! signed 64-bit integer (Spark and DuckDB read unsigned 64-bit columns poorly). A field that
//! is `-` or empty is null. Tables are converted in parallel, each streamed in blocks of rows,
//! so memory stays bounded whatever their size.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::base::atomic::AtomicFile;
use crate::base::mmap;
use crate::{Error, Result};

/// A typed table format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
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
        | "score" => Kind::Float,
        n if n.ends_with("_ratio") => Kind::Float,
        "tau" | "tau128" | "docs_kept" | "max_cluster" | "pairs" | "docs_in_clusters"
        | "candidate_pairs" | "known_pairs" | "verified_pairs" | "sampled_pairs"
        | "removed_by_star" | "cluster_size" | "hamming64" | "hamming128" => Kind::Int,
        _ => Kind::Str,
    }
}

/// One table to convert: its TSV bytes, its header when the file has none (`keep.txt`), and
/// the path of the typed file without extension.
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

/// The tables of an output directory that exist: `clusters.tsv`, `keep.txt`, `remove.tsv`,
/// `excluded.tsv`, `sweep.tsv`, and `pairs.tsv` when present. Returns the mapped files with
/// their stems.
pub fn tables_in(dir: &Path) -> Result<Vec<(mmap::Mapped, &'static str, PathBuf)>> {
    let mut out = Vec::new();
    for name in [
        "clusters.tsv",
        "keep.txt",
        "remove.tsv",
        "excluded.tsv",
        "sweep.tsv",
        "pairs.tsv",
    ] {
        let p = dir.join(name);
        if p.is_file() {
            let stem = name.split('.').next().unwrap_or(name);
            out.push((mmap::map(&p)?, stem, p));
        }
    }
    Ok(out)
}

/// Writes every table of `dir` (see [`tables_in`]) in `formats`, plus `extra` tables made in
/// memory (the pairs), in parallel. Returns the files written.
pub fn write_dir(
    dir: &Path,
    extra: Vec<Table<'_>>,
    formats: &[TableFormat],
) -> Result<Vec<PathBuf>> {
    let files = tables_in(dir)?;
    const KEEP: &[&str] = &["id"];
    let mut tables: Vec<Table<'_>> = files
        .iter()
        .map(|(m, stem, p)| Table {
            tsv: m,
            header: (*stem == "keep").then_some(KEEP),
            stem: dir.join(stem),
            source: p.clone(),
        })
        .collect();
    tables.extend(extra);
    let jobs: Vec<(&Table<'_>, TableFormat)> = tables
        .iter()
        .flat_map(|t| formats.iter().map(move |f| (t, *f)))
        .collect();
    jobs.par_iter()
        .map(|(t, f)| write_table(t, *f))
        .collect::<Result<Vec<PathBuf>>>()
}

/// Rows per block.
const BLOCK: usize = 1 << 14;

/// Writes one table in one format; returns the file written.
pub fn write_table(t: &Table<'_>, format: TableFormat) -> Result<PathBuf> {
    let path = t.stem.with_extension(format.ext());
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
    let kinds: Vec<Kind> = header.iter().map(|h| kind(h)).collect();
    let mut sink: Box<dyn Sink> = match format {
        TableFormat::Jsonl => Box::new(JsonLines {
            file: AtomicFile::create(&path)?,
            header: header.clone(),
            kinds: kinds.clone(),
        }),
        #[cfg(feature = "parquet")]
        TableFormat::Parquet => Box::new(pq::Writer::create(&path, &header, &kinds)?),
        #[cfg(not(feature = "parquet"))]
        TableFormat::Parquet => {
            return Err(Error::Config(
                "--tables parquet: this build of neardup has no Parquet support (built without the `parquet` feature)".into(),
            ))
        }
    };
    // The block's fields, row after row (`header.len()` per row).
    let cols = header.len();
    let mut block: Vec<&str> = Vec::with_capacity(BLOCK * cols);
    let first = 1u64 + u64::from(t.header.is_none());
    for (line_no, line) in (first..).zip(lines) {
        let before = block.len();
        block.extend(line.trim_end_matches('\r').split('\t'));
        if block.len() - before != cols {
            return Err(Error::Parse {
                path: t.source.clone(),
                offset: line_no,
                msg: format!(
                    "line {line_no} has {} fields, the header {cols}",
                    block.len() - before
                ),
            });
        }
        if block.len() == BLOCK * cols {
            sink.block(&block, cols, &t.source)?;
            block.clear();
        }
    }
    if !block.is_empty() {
        sink.block(&block, cols, &t.source)?;
    }
    sink.finish()?;
    Ok(path)
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

/// Receives blocks of rows: `fields` holds `cols` fields per row, row after row.
trait Sink {
    fn block(&mut self, fields: &[&str], cols: usize, source: &Path) -> Result<()>;
    fn finish(self: Box<Self>) -> Result<()>;
}

struct JsonLines {
    file: AtomicFile,
    header: Vec<String>,
    kinds: Vec<Kind>,
}

impl Sink for JsonLines {
    fn block(&mut self, fields: &[&str], cols: usize, source: &Path) -> Result<()> {
        let mut out = Vec::new();
        for r in fields.chunks(cols) {
            let mut obj = serde_json::Map::with_capacity(r.len());
            for ((f, name), k) in r.iter().zip(&self.header).zip(&self.kinds) {
                let v = match k {
                    Kind::Str => serde_json::Value::from(*f),
                    Kind::Int => serde_json::Value::from(number::<i64>(f, source, name, *k)?),
                    Kind::Float => serde_json::Value::from(number::<f64>(f, source, name, *k)?),
                };
                obj.insert(name.clone(), v);
            }
            serde_json::to_writer(&mut out, &obj).map_err(|e| Error::Config(e.to_string()))?;
            out.push(b'\n');
        }
        self.file.put(&out)
    }
    fn finish(self: Box<Self>) -> Result<()> {
        self.file.commit()
    }
}

#[cfg(feature = "parquet")]
mod pq {
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use arrow_array::builder::{PrimitiveBuilder, StringBuilder};
    use arrow_array::types::{ArrowPrimitiveType, Float64Type, Int64Type};
    use arrow_array::{ArrayRef, RecordBatch};
    use arrow_schema::{DataType, Field, Schema, SchemaRef};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::{EnabledStatistics, WriterProperties};

    use super::{number, Kind, Sink};
    use crate::base::atomic::AtomicFile;
    use crate::{Error, Result};

    pub struct Writer {
        w: ArrowWriter<AtomicFile>,
        schema: SchemaRef,
        header: Vec<String>,
        kinds: Vec<Kind>,
        path: PathBuf,
    }

    fn err(path: &Path, e: impl std::fmt::Display) -> Error {
        Error::Config(format!("{}: writing Parquet: {e}", path.display()))
    }

    impl Writer {
        pub fn create(path: &Path, header: &[String], kinds: &[Kind]) -> Result<Writer> {
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
            // Statistics per column chunk are enough for a table read whole.
            let props = WriterProperties::builder()
                .set_compression(Compression::ZSTD(
                    ZstdLevel::try_new(3).expect("valid level"),
                ))
                .set_dictionary_enabled(false)
                .set_statistics_enabled(EnabledStatistics::Chunk)
                .build();
            let file = AtomicFile::create(path)?;
            let w = ArrowWriter::try_new(file, schema.clone(), Some(props))
                .map_err(|e| err(path, e))?;
            Ok(Writer {
                w,
                schema,
                header: header.to_vec(),
                kinds: kinds.to_vec(),
                path: path.to_path_buf(),
            })
        }
    }

    /// Column `c` of `rows` as a numeric Arrow array (nulls where the field is null).
    fn numbers<T: ArrowPrimitiveType>(
        rows: &[&[&str]],
        c: usize,
        name: &str,
        kind: Kind,
        source: &Path,
    ) -> Result<ArrayRef>
    where
        T::Native: std::str::FromStr,
    {
        let mut b = PrimitiveBuilder::<T>::with_capacity(rows.len());
        for r in rows {
            b.append_option(number::<T::Native>(r[c], source, name, kind)?);
        }
        Ok(Arc::new(b.finish()))
    }

    impl Sink for Writer {
        fn block(&mut self, fields: &[&str], ncols: usize, source: &Path) -> Result<()> {
            let rows: Vec<&[&str]> = fields.chunks(ncols).collect();
            let mut cols: Vec<ArrayRef> = Vec::with_capacity(self.kinds.len());
            for (c, (k, name)) in self.kinds.iter().zip(&self.header).enumerate() {
                let col: ArrayRef = match k {
                    Kind::Str => {
                        let bytes = rows.iter().map(|r| r[c].len()).sum();
                        let mut b = StringBuilder::with_capacity(rows.len(), bytes);
                        for r in &rows {
                            b.append_value(r[c]);
                        }
                        Arc::new(b.finish())
                    }
                    Kind::Int => numbers::<Int64Type>(&rows, c, name, *k, source)?,
                    Kind::Float => numbers::<Float64Type>(&rows, c, name, *k, source)?,
                };
                cols.push(col);
            }
            let batch =
                RecordBatch::try_new(self.schema.clone(), cols).map_err(|e| err(&self.path, e))?;
            self.w.write(&batch).map_err(|e| err(&self.path, e))
        }
        fn finish(self: Box<Self>) -> Result<()> {
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
}
