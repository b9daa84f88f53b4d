//! Finding shards and cutting them into work units.
//!
//! Formats are detected from content: the first bytes (inflated, for gzip) tell WARC
//! (`WARC/`) from JSONL (`{`); a `.jsonl` or `.ndjson` name (gzipped or not) makes a file whose
//! first line is damaged JSON lines still; anything else is a single HTML or text document when
//! it was named on the command line or carries an `.html`/`.htm`/`.txt` name inside a walked
//! directory.
//! Directories are walked in sorted order, so store order is reproducible. Uncompressed WARC and
//! JSONL shards larger than the split size become several units cut at record boundaries.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{warc, ReadOptions};
use crate::base::mmap;
use crate::{Error, Result};

/// A shard's detected format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShardFormat {
    /// Uncompressed WARC (any version, WET included).
    Warc,
    /// Gzip-compressed WARC, usually one member per record.
    WarcGz,
    /// JSON lines.
    Jsonl,
    /// Gzip-compressed JSON lines.
    JsonlGz,
    /// One HTML document.
    HtmlFile,
    /// One plain-text document.
    TextFile,
    /// Apache Parquet, one document per row.
    Parquet,
}

impl ShardFormat {
    /// Short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            ShardFormat::Warc => "warc",
            ShardFormat::WarcGz => "warc.gz",
            ShardFormat::Jsonl => "jsonl",
            ShardFormat::JsonlGz => "jsonl.gz",
            ShardFormat::HtmlFile => "html",
            ShardFormat::TextFile => "text",
            ShardFormat::Parquet => "parquet",
        }
    }
}

/// One input file.
#[derive(Clone, Debug)]
pub struct Shard {
    /// The path as found.
    pub path: PathBuf,
    /// The path relative to the directory argument it was found under (the file's id for
    /// single-document shards).
    pub rel: String,
    /// Detected format.
    pub format: ShardFormat,
    /// Size in bytes.
    pub size: u64,
}

/// A contiguous piece of one shard that one worker reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkUnit {
    /// Index into the shard list.
    pub shard: u32,
    /// First byte (a record boundary).
    pub start: u64,
    /// End: records that start at or after it belong to the next unit.
    pub end: u64,
}

/// What discovery found.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Readable shards in order.
    pub shards: Vec<Shard>,
    /// Work units in shard order.
    pub units: Vec<WorkUnit>,
    /// Files that could not be opened or read.
    pub failed: Vec<Error>,
    /// Files in walked directories that are not a known format.
    pub ignored: Vec<PathBuf>,
    /// Directories inside the inputs that neardup wrote (stores, `dedup` / `sweep` /
    /// `cluster` outputs), not read: their lists and tables are not documents.
    pub outputs: Vec<PathBuf>,
    /// Files with no content (no bytes, or a gzip stream that inflates to none): counted as
    /// shards that hold no record, never read as a document.
    pub empty: Vec<PathBuf>,
    /// Symbolic links inside walked directories, passed over (without `follow`).
    pub links: Vec<PathBuf>,
    /// Files reached a second time (named twice, or through a link or a directory as well):
    /// read once, at their first place.
    pub repeated: Vec<PathBuf>,
    /// The files taken, by where they really are ([`FileId`]).
    seen: std::collections::HashSet<FileId>,
}

/// Where a file really is: its device and inode on Unix (the same file by any path, link or
/// hard link), its canonical path elsewhere. Read from the metadata already fetched for its
/// size, where a canonical path costs a `readlink` a component of the path.
#[derive(PartialEq, Eq, Hash, Debug)]
enum FileId {
    #[cfg_attr(not(unix), allow(dead_code))]
    Inode(u64, u64),
    #[cfg_attr(unix, allow(dead_code))]
    Path(PathBuf),
}

impl FileId {
    fn of(path: &Path, meta: &std::fs::Metadata) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let _ = path;
            Some(FileId::Inode(meta.dev(), meta.ino()))
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            path.canonicalize().ok().map(FileId::Path)
        }
    }
}

/// Walks `inputs` and detects every shard. Inside a directory, symbolic links are followed
/// only with `opts.follow`; a file is read once, by where it really is, however many ways lead
/// to it.
pub fn discover(inputs: &[PathBuf], opts: &ReadOptions) -> Discovery {
    let mut d = Discovery::default();
    let mut dirs = std::collections::HashSet::new();
    for input in inputs {
        match std::fs::metadata(input) {
            Err(e) => d.failed.push(Error::io(input, e)),
            Ok(m) if m.is_dir() && neardup_output(input) => d.outputs.push(input.clone()),
            Ok(m) if m.is_dir() => {
                let mut files = Vec::new();
                if let Ok(c) = input.canonicalize() {
                    dirs.insert(c);
                }
                walk(input, &mut files, &mut d, opts.follow, &mut dirs);
                files.sort();
                for f in files {
                    let rel = f
                        .strip_prefix(input)
                        .unwrap_or(&f)
                        .to_string_lossy()
                        .into_owned();
                    add_file(&mut d, f, rel, false, None);
                }
            }
            Ok(m) => {
                let rel = input.to_string_lossy().into_owned();
                add_file(&mut d, input.clone(), rel, true, Some(m));
            }
        }
    }
    for (i, shard) in d.shards.iter().enumerate() {
        match split(i as u32, shard, opts.split_bytes) {
            Ok(units) => d.units.extend(units),
            Err(e) => d.failed.push(e),
        }
    }
    d
}

fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    d: &mut Discovery,
    follow: bool,
    dirs: &mut std::collections::HashSet<PathBuf>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => return d.failed.push(Error::io(dir, e)),
    };
    for entry in entries {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                d.failed.push(Error::io(dir, e));
                continue;
            }
        };
        let path = entry.path();
        // neardup's record of an output directory and its lock are bookkeeping, not shards.
        let name = entry.file_name();
        if name == crate::base::claim::RECORD || name == crate::base::claim::LOCK {
            continue;
        }
        let t = match entry.file_type() {
            Ok(t) if t.is_symlink() && !follow => {
                d.links.push(path);
                continue;
            }
            // Followed: what the link leads to, a broken link an unreadable file.
            Ok(t) if t.is_symlink() => match std::fs::metadata(&path) {
                Ok(m) => m.file_type(),
                Err(e) => {
                    d.failed.push(Error::io(&path, e));
                    continue;
                }
            },
            Ok(t) => t,
            Err(e) => {
                d.failed.push(Error::io(&path, e));
                continue;
            }
        };
        if t.is_dir() {
            if neardup_output(&path) {
                d.outputs.push(path);
            } else if path.canonicalize().is_ok_and(|c| dirs.insert(c)) {
                // Each directory once: a link back up the tree does not loop.
                walk(&path, out, d, follow, dirs);
            }
        } else if t.is_file() {
            out.push(path);
        }
    }
}

pub use crate::base::claim::is_store;
use crate::base::claim::marked;

/// Whether `dir` is one neardup wrote: a store (its manifest), or an output directory (its
/// lock, summary or pairs file). Told by the files' own marks, not their names alone.
fn neardup_output(dir: &Path) -> bool {
    dir.join(crate::base::claim::LOCK).is_file()
        || is_store(dir)
        || marked(dir, "summary.json", b"\"created_by\": \"neardup")
        || marked(dir, "pairs.bin", b"NDPAIRS\0")
}

/// Takes the file at `path` (its metadata, following links, where the caller has it).
fn add_file(
    d: &mut Discovery,
    path: PathBuf,
    rel: String,
    explicit: bool,
    meta: Option<std::fs::Metadata>,
) {
    let meta = match meta.map_or_else(|| std::fs::metadata(&path), Ok) {
        Ok(m) => m,
        Err(e) => return d.failed.push(Error::io(&path, e)),
    };
    if let Some(id) = FileId::of(&path, &meta) {
        if !d.seen.insert(id) {
            return d.repeated.push(path);
        }
    }
    let size = meta.len();
    if size == 0 || (size <= 4096 && inflates_to_nothing(&path)) {
        return d.empty.push(path);
    }
    // A corpus neardup wrote is read as its shards; its manifest is not a document.
    if path.file_name().is_some_and(|n| n == "manifest.json")
        && marked(
            path.parent().unwrap_or(Path::new(".")),
            "manifest.json",
            b"\"neardup-corpus\"",
        )
    {
        return d.ignored.push(path);
    }
    match detect(&path, explicit) {
        Ok(Some(format)) => d.shards.push(Shard {
            path,
            rel,
            format,
            size,
        }),
        Ok(None) => d.ignored.push(path),
        Err(e) => d.failed.push(e),
    }
}

/// A small gzip file whose every member inflates, to nothing at all.
fn inflates_to_nothing(path: &Path) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return false;
    }
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(&bytes[..])
        .read_to_end(&mut out)
        .is_ok_and(|n| n == 0)
}

/// Detects a file's format from its first bytes, falling back to its name.
pub fn detect(path: &Path, explicit: bool) -> Result<Option<ShardFormat>> {
    let mut head = [0u8; 4096];
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let n = read_up_to(&mut file, &mut head).map_err(|e| Error::io(path, e))?;
    let head = &head[..n];
    if head.starts_with(b"PAR1") {
        return Ok(Some(ShardFormat::Parquet));
    }
    if head.starts_with(&[0x1f, 0x8b]) {
        let mut inner = [0u8; 1024];
        let mut dec = flate2::read::MultiGzDecoder::new(head);
        // A short head can end mid-stream; whatever inflated is enough to sniff.
        let m = read_up_to(&mut dec, &mut inner).unwrap_or(0);
        return Ok(match sniff(&inner[..m]) {
            Sniff::Warc => Some(ShardFormat::WarcGz),
            Sniff::Json => Some(ShardFormat::JsonlGz),
            // A JSON lines file whose first line is damaged is still one, by its name.
            _ if name_format(&path.with_extension("")) == Some(ShardFormat::Jsonl) => {
                Some(ShardFormat::JsonlGz)
            }
            // A gzip file that holds neither is not a format we read.
            _ => {
                if explicit {
                    return Err(Error::Parse {
                        path: path.to_path_buf(),
                        offset: 0,
                        msg: "gzip file that holds neither WARC nor JSON lines".into(),
                    });
                }
                None
            }
        });
    }
    let by_name = name_format(path);
    Ok(match sniff(head) {
        Sniff::Warc => Some(ShardFormat::Warc),
        Sniff::Json if by_name != Some(ShardFormat::TextFile) => Some(ShardFormat::Jsonl),
        Sniff::Html => Some(ShardFormat::HtmlFile),
        _ if by_name.is_some() => by_name,
        _ if explicit => Some(ShardFormat::TextFile),
        _ => None,
    })
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if n > 0 => {
                let _ = e;
                break;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

enum Sniff {
    Warc,
    Json,
    Html,
    Other,
}

fn sniff(head: &[u8]) -> Sniff {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let body = &head[start..];
    if body.starts_with(b"WARC/") {
        return Sniff::Warc;
    }
    if body.starts_with(b"{") {
        return Sniff::Json;
    }
    let lower: Vec<u8> = body.iter().take(1024).map(u8::to_ascii_lowercase).collect();
    let has = |s: &[u8]| memchr::memmem::find(&lower, s).is_some();
    if has(b"<!doctype html") || has(b"<html") || has(b"<body") || has(b"<head") {
        return Sniff::Html;
    }
    Sniff::Other
}

fn name_format(path: &Path) -> Option<ShardFormat> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" | "xhtml" | "shtml" => Some(ShardFormat::HtmlFile),
        "txt" | "text" => Some(ShardFormat::TextFile),
        "jsonl" | "ndjson" => Some(ShardFormat::Jsonl),
        _ => None,
    }
}

/// The error for a Parquet shard in a build without the `parquet` feature.
#[cfg(not(feature = "parquet"))]
pub fn no_parquet(path: &Path) -> Error {
    Error::Parse {
        path: path.to_path_buf(),
        offset: 0,
        msg: "a Parquet file, and this build of neardup has no Parquet support (built without the `parquet` feature)".into(),
    }
}

/// Cuts a shard into work units of about `split_bytes`, at record boundaries (a Parquet shard
/// into its row groups).
fn split(index: u32, shard: &Shard, split_bytes: u64) -> Result<Vec<WorkUnit>> {
    if shard.format == ShardFormat::Parquet {
        #[cfg(feature = "parquet")]
        return super::parquet::units(index, shard);
        #[cfg(not(feature = "parquet"))]
        return Err(no_parquet(&shard.path));
    }
    let whole = vec![WorkUnit {
        shard: index,
        start: 0,
        end: shard.size,
    }];
    let splittable = matches!(shard.format, ShardFormat::Warc | ShardFormat::Jsonl);
    if !splittable || split_bytes == 0 || shard.size <= split_bytes {
        return Ok(whole);
    }
    let data = mmap::map(&shard.path)?;
    let mut cuts = vec![0u64];
    let mut at = split_bytes;
    while at < data.len() as u64 {
        let from = at as usize;
        let next = match shard.format {
            ShardFormat::Jsonl => memchr::memchr(b'\n', &data[from..]).map(|p| from + p + 1),
            _ => warc::next_record_start(&data, from),
        };
        match next {
            Some(p) if p < data.len() && p as u64 > *cuts.last().unwrap_or(&0) => {
                cuts.push(p as u64);
                at = p as u64 + split_bytes;
            }
            _ => break,
        }
    }
    cuts.push(data.len() as u64);
    Ok(cuts
        .windows(2)
        .map(|w| WorkUnit {
            shard: index,
            start: w[0],
            end: w[1],
        })
        .collect())
}
