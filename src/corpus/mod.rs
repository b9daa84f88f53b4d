//! Crawl shards in, documents out.
//!
//! A shard is one input file. [`mod@discover`] walks the command line's paths, detects each file's
//! format from its first bytes (not its name) and splits large uncompressed shards into work
//! units at record boundaries (Parquet shards into their row groups). The readers ([`warc`],
//! [`jsonl`], [`files`], and `parquet` in builds with the `parquet` feature) turn a unit into
//! [`Document`]s and hand them, one at a time, to a [`Sink`]; a record that cannot be read is
//! reported to the sink as a skip with its location and never stops the shard. Only a shard that
//! cannot be opened or read at all is an error.
//!
//! Memory is bounded by the record limit (`ReadOptions::max_record`): plain shards are
//! memory-mapped and parsed in place, gzip shards are inflated member by member into one reused
//! window, and a record over the limit is passed over as it streams, never gathered whole.

#[cfg(feature = "parquet")]
pub mod arrow;
pub mod discover;
pub mod files;
pub mod gzip;
pub mod http;
pub mod jsonl;
mod libdeflate;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod skip;
pub mod warc;

use std::borrow::Cow;

pub use discover::{discover, Shard, ShardFormat, WorkUnit};
pub use skip::{Skip, SkipCounts};

/// Where a document's bytes live, so later stages can re-read the original record.
///
/// Stored as-is in the fingerprint store's `source` column; keep in sync with docs/FORMATS.md.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SourceLoc {
    /// Byte offset in the shard file: of the record (plain files), of the gzip member in which
    /// the record starts (gzip files), or of the line (JSONL).
    pub offset: u64,
    /// Length in the file: of the record, of the gzip member, or of the line.
    pub length: u64,
    /// For gzip shards, the record's offset inside the inflated stream of its member; 0 otherwise.
    pub inner: u64,
    /// Index of the shard in the store's shard list.
    pub shard: u32,
    /// 0 = plain bytes, 1 = gzip member, 2 = whole file, 3 = Parquet row (`offset` and
    /// `length` are its row group's byte range, `inner` the row within the group), 4 = gzip
    /// member that holds this WARC record and nothing else.
    pub kind: u32,
}

const _: () = assert!(std::mem::size_of::<SourceLoc>() == 32);

impl SourceLoc {
    /// `kind` for a location in an uncompressed file.
    pub const PLAIN: u32 = 0;
    /// `kind` for a location inside a gzip member.
    pub const GZIP: u32 = 1;
    /// `kind` for a document that is a whole file.
    pub const FILE: u32 = 2;
    /// `kind` for a row of a Parquet row group.
    pub const PARQUET: u32 = 3;
    /// `kind` for a WARC record alone in its gzip member (the member is the record's WARC.gz
    /// form, copied as it is by the corpus writer). Stores made before this kind existed say
    /// [`SourceLoc::GZIP`] for such records too.
    pub const GZIP_ALONE: u32 = 4;
    /// `kind` for a row of a table held in memory (`offset` is its row in the table, `shard`
    /// its record batch, `inner` its row in the batch): read again from memory, never a file.
    pub const MEMORY: u32 = 5;

    /// `kind` as records are matched when read again: a record alone in its member is found
    /// under [`SourceLoc::GZIP`] too, so stores of either age match.
    pub fn match_kind(&self) -> u32 {
        if self.kind == Self::GZIP_ALONE {
            Self::GZIP
        } else {
            self.kind
        }
    }
}

/// How a payload should be turned into text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PayloadKind {
    /// HTML (or XHTML): tags are stripped.
    Html,
    /// Plain text: only whitespace is normalised.
    Text,
    /// Not declared: sniffed from the first bytes.
    Unknown,
}

impl PayloadKind {
    /// Whether the payload is HTML, as `text::extract::payload_text` takes it: `None` has it
    /// sniff the first bytes.
    pub fn is_html(self) -> Option<bool> {
        match self {
            PayloadKind::Html => Some(true),
            PayloadKind::Text => Some(false),
            PayloadKind::Unknown => None,
        }
    }
}

/// One document as a reader found it, before any filtering.
#[derive(Debug)]
pub struct Document<'a> {
    /// Document id (WARC-TREC-ID, WARC-Record-ID, the JSONL id field, or the relative path).
    pub id: Cow<'a, str>,
    /// The URL, where the source has one.
    pub url: Cow<'a, str>,
    /// Where the record lives.
    pub loc: SourceLoc,
    /// HTTP status, where the record carried an HTTP response block.
    pub http_status: Option<u16>,
    /// The declared media type, lowercase, without parameters (e.g. `text/html`).
    pub content_type: Option<Cow<'a, str>>,
    /// The charset named by the HTTP header, if any.
    pub charset: Option<Cow<'a, str>>,
    /// The raw value of an HTTP `Link` header naming a canonical link, if any.
    pub link: Option<Cow<'a, str>>,
    /// What the payload is.
    pub kind: PayloadKind,
    /// The payload bytes (HTML or text), in whatever encoding the source used.
    pub payload: Cow<'a, [u8]>,
    /// The number in the table field [`ReadOptions::value_field`] names (a number, or a
    /// number or ISO 8601 date as text, in seconds since 1970), for `--keep-by`.
    pub value: Option<f64>,
    /// The WARC record's `WARC-Date`, in seconds since 1970.
    pub date: Option<f64>,
}

impl<'a> Document<'a> {
    /// A document from a row of a table (a JSON line, a Parquet row): UTF-8 text of the kind
    /// `kind` says, no HTTP response around it.
    pub fn row(
        id: Cow<'a, str>,
        url: Cow<'a, str>,
        loc: SourceLoc,
        kind: PayloadKind,
        payload: Cow<'a, [u8]>,
    ) -> Document<'a> {
        Document {
            id,
            url,
            loc,
            http_status: None,
            content_type: None,
            charset: Some(Cow::Borrowed("utf-8")),
            link: None,
            kind,
            payload,
            value: None,
            date: None,
        }
    }
}

/// Seconds since 1970 of an ISO 8601 date or date and time (`2021-03-04`,
/// `2021-03-04T12:34:56Z`, `2021-03-04 12:34:56.5+09:00`); None when `s` is not one.
pub fn iso_seconds(s: &str) -> Option<f64> {
    let s = s.trim();
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        (!t.is_empty() && t.bytes().all(|c| c.is_ascii_digit())).then(|| t.parse().ok())?
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from 1970-01-01 (the proleptic Gregorian calendar).
    let (yy, mm) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mm + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let mut secs = days as f64 * 86_400.0;
    let rest = &s[10..];
    if rest.is_empty() {
        return Some(secs);
    }
    if !(rest.starts_with('T') || rest.starts_with(' ')) || rest.len() < 9 {
        return None;
    }
    let t = &rest[1..];
    let tb = t.as_bytes();
    if tb[2] != b':' || tb[5] != b':' {
        return None;
    }
    let hms = |r: std::ops::Range<usize>| -> Option<i64> {
        let v = t.get(r)?;
        (v.bytes().all(|c| c.is_ascii_digit())).then(|| v.parse().ok())?
    };
    let (h, mi, se) = (hms(0..2)?, hms(3..5)?, hms(6..8)?);
    if h > 23 || mi > 59 || se > 60 {
        return None;
    }
    secs += (h * 3600 + mi * 60 + se) as f64;
    let mut z = &t[8..];
    if let Some(f) = z.strip_prefix('.') {
        let n = f.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        secs += format!("0.{}", &f[..n]).parse::<f64>().ok()?;
        z = &f[n..];
    }
    match z {
        "" | "Z" | "z" => Some(secs),
        _ => {
            let (sign, hm) = match z.as_bytes()[0] {
                b'+' => (1.0, &z[1..]),
                b'-' => (-1.0, &z[1..]),
                _ => return None,
            };
            let hm = hm.replace(':', "");
            if hm.len() != 4 || !hm.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let off = hm[..2].parse::<f64>().ok()? * 3600.0 + hm[2..].parse::<f64>().ok()? * 60.0;
            Some(secs - sign * off)
        }
    }
}

/// The number a field's text holds: a number, or an ISO 8601 date ([`iso_seconds`]).
pub fn number_of(text: &str) -> Option<f64> {
    let t = text.trim();
    // `inf`, `-Infinity` and numbers beyond f64 (`1e400`) are numbers that rank first or
    // last; `NaN` is none.
    t.parse::<f64>()
        .ok()
        .filter(|v| !v.is_nan())
        .or_else(|| iso_seconds(t))
}

/// Documents read again from a table, each with its caller's tag.
pub type Tagged<'a> = [(u32, Document<'a>)];

/// Documents of a table a caller holds (in memory, or as a dataset to scan again), read again
/// by their location ([`SourceLoc::MEMORY`]) where documents of files are read from their
/// shards.
pub trait InMemory: Send + Sync {
    /// Delivers the documents at the locations of `wanted`, each with its tag, as they were
    /// delivered when fingerprinted, in one or more chunks to `visit`; a tag not delivered was
    /// not found. A table that cannot be read again (a dataset gone, or changed) is an error.
    fn read(
        &self,
        wanted: &[(u32, SourceLoc)],
        visit: &mut dyn FnMut(&Tagged<'_>),
    ) -> crate::Result<()>;
}

/// Receives a reader's output. Implemented by the fingerprinting pipeline and by tests.
pub trait Sink {
    /// A document was read.
    fn document(&mut self, doc: Document<'_>);
    /// A record was skipped; `offset` is its position in the shard file.
    fn skip(&mut self, skip: Skip, offset: u64, detail: &str);
    /// A non-document record (warcinfo, request, metadata, ...) was passed over.
    fn other_record(&mut self) {}
    /// A record's Content-Length did not match its data and was repaired.
    fn length_repaired(&mut self, _offset: u64) {}
    /// `n` bytes of the file were passed over to resynchronise after damage.
    fn bytes_skipped(&mut self, _n: u64) {}
}

/// Reads one work unit into `sink`. Errors are shard-level failures; everything before the
/// failure has already been delivered.
pub fn read_unit(
    unit: &WorkUnit,
    shards: &[Shard],
    opts: &ReadOptions,
    sink: &mut dyn Sink,
) -> crate::Result<()> {
    let shard = &shards[unit.shard as usize];
    match shard.format {
        ShardFormat::Warc => warc::read_plain(shard, unit, opts.max_record, sink),
        ShardFormat::WarcGz => gzip::read_warc_gz(shard, unit, opts.max_record, sink),
        ShardFormat::Jsonl | ShardFormat::JsonlGz => jsonl::read(shard, unit, opts, sink),
        ShardFormat::HtmlFile | ShardFormat::TextFile => {
            files::read(shard, unit, opts.max_record, sink)
        }
        #[cfg(feature = "parquet")]
        ShardFormat::Parquet => parquet::read(shard, unit, opts, sink),
        #[cfg(not(feature = "parquet"))]
        ShardFormat::Parquet => Err(discover::no_parquet(&shard.path)),
    }
}

/// Reads every unit of every shard into `sink`, in order, on this thread (`neardup text` on one
/// worker, tests and tools): the shard-level errors, in unit order.
pub fn read_all(
    shards: &[Shard],
    units: &[WorkUnit],
    opts: &ReadOptions,
    sink: &mut dyn Sink,
) -> Vec<crate::Error> {
    units
        .iter()
        .filter_map(|u| read_unit(u, shards, opts, sink).err())
        .collect()
}

/// Options for the readers that depend on the input format.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// JSONL field (or Parquet column) holding the document id.
    pub id_field: String,
    /// JSONL field (or Parquet column) holding the document text (HTML or plain text).
    pub text_field: String,
    /// JSONL field (or Parquet column) holding the URL.
    pub url_field: String,
    /// How to treat JSONL and Parquet text: `Unknown` sniffs each document.
    pub jsonl_kind: PayloadKind,
    /// Size above which uncompressed shards are split into several work units.
    pub split_bytes: u64,
    /// Records (WARC blocks, whole HTML or text files, JSON lines) larger than this are
    /// skipped and counted, in bounded memory.
    pub max_record: usize,
    /// Follow symbolic links met while walking a directory (to files and directories alike);
    /// without it they are passed over and counted. Paths named as inputs are always read.
    pub follow: bool,
    /// JSONL field (or Parquet column) holding a number for `--keep-by` (None: not read).
    pub value_field: Option<String>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            id_field: "id".into(),
            text_field: "text".into(),
            url_field: "url".into(),
            jsonl_kind: PayloadKind::Unknown,
            split_bytes: 64 << 20,
            max_record: warc::DEFAULT_MAX_RECORD,
            follow: false,
            value_field: None,
        }
    }
}
