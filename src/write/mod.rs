//! The deduplicated corpus written out: the kept documents, in store order, in shards of a
//! target size.
//!
//! - WARC.gz ([`warc`]): each kept record as it was. A record that was its own gzip member in
//!   a WARC.gz shard is that member copied byte for byte (checked: the member inflates to
//!   exactly the one record); a record of a plain WARC or WET shard, or one that shared its
//!   member with other records, is copied and compressed as a member of its own; a document
//!   from JSONL, Parquet or a plain file becomes a WARC `resource` record of its original
//!   payload. Shards are planned from the records' sizes and written in parallel.
//! - JSONL.gz and Parquet ([`rows`]): one row per kept document with its id, URL, extracted
//!   text and the cluster it stands for; optionally without its labeled (repeated) paragraphs.
//!
//! Every shard is written under a temporary name and renamed when whole, and `manifest.json`,
//! which lists the shards, is written last: a directory with a manifest is a whole corpus, and
//! a run that dies leaves no shard that looks complete. The directory is claimed through
//! [`crate::base::claim`]: one that holds an input, or anything neardup did not make there,
//! is refused; an earlier corpus output is replaced only when asked.

pub mod rows;
pub mod warc;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::base::atomic;
use crate::base::claim::OutDir;
use crate::fingerprint::store::StoreSet;
use crate::reuse::detect::Labels;
use crate::{Error, Result};

/// Name of the corpus manifest's format.
pub const FORMAT: &str = "neardup-corpus";
/// Name of the manifest file.
pub const MANIFEST: &str = "manifest.json";

/// How the kept documents are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// WARC records, one gzip member each.
    #[serde(rename = "warc.gz")]
    WarcGz,
    /// JSON lines, gzip-compressed.
    #[serde(rename = "jsonl.gz")]
    JsonlGz,
    /// Apache Parquet, zstd-compressed.
    Parquet,
}

impl Format {
    /// The shards' file extension (and the format's name on the command line).
    pub fn ext(self) -> &'static str {
        match self {
            Format::WarcGz => "warc.gz",
            Format::JsonlGz => "jsonl.gz",
            Format::Parquet => "parquet",
        }
    }
}

/// What to write and where.
#[derive(Clone, Debug)]
pub struct Config {
    /// The format.
    pub format: Format,
    /// The output directory.
    pub dir: PathBuf,
    /// Target size of a shard in bytes (a shard ends at the first record boundary at or past
    /// it; WARC.gz shards end before it where the records' sizes are known).
    pub shard_size: u64,
    /// Where the input shards are now, if they moved since fingerprinting.
    pub shard_dir: Option<PathBuf>,
    /// Paragraphs to drop from each document's text (JSONL.gz and Parquet only).
    pub drop_labels: Option<Labels>,
    /// Byte ranges to cut from documents' texts (`substrings`; JSONL.gz and Parquet only):
    /// per document, ascending and disjoint, in its normalised text.
    pub cut: Option<std::sync::Arc<Cuts>>,
}

/// Byte ranges to cut, per document.
pub type Cuts = std::collections::HashMap<u32, Vec<(u32, u32)>>;

/// `text` without the byte `ranges` (ascending, disjoint, on character boundaries): where a
/// cut leaves whitespace on both sides, one of them goes with it.
pub fn cut_ranges(text: &str, ranges: &[(u32, u32)]) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    for &(s, e) in ranges {
        let (s, mut e) = (s as usize, e as usize);
        if s < at || e > text.len() || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
            continue;
        }
        out.push_str(&text[at..s]);
        let before = out.as_bytes().last().is_none_or(u8::is_ascii_whitespace);
        if before && e < b.len() && b[e].is_ascii_whitespace() {
            e += 1;
        }
        at = e;
    }
    out.push_str(&text[at.min(text.len())..]);
    out
}

/// A kept document and the cluster it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kept {
    /// The document.
    pub doc: u32,
    /// The representative of its cluster (connected component).
    pub cluster: u32,
    /// Documents in the cluster.
    pub cluster_size: u32,
    /// Documents removed as near-duplicates of this one.
    pub duplicates: u32,
}

/// One written shard.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardEntry {
    /// File name within the output directory.
    pub name: String,
    /// Documents it holds.
    pub documents: u64,
    /// Its size in bytes.
    pub bytes: u64,
}

/// `manifest.json` of a corpus output.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// Version of this layout.
    pub version: u32,
    /// The shards' format.
    pub written_as: Format,
    /// Documents written.
    pub documents: u64,
    /// Bytes written, all shards.
    pub bytes: u64,
    /// The shards, in order (store order continues from one to the next).
    pub shards: Vec<ShardEntry>,
    /// WARC.gz: records copied byte for byte as their own gzip member.
    #[serde(default)]
    pub copied: u64,
    /// WARC.gz: records copied and compressed on their own (from plain WARC, or from a member
    /// they shared).
    #[serde(default)]
    pub recompressed: u64,
    /// WARC.gz: `resource` records made from documents of other formats.
    #[serde(default)]
    pub built: u64,
    /// Paragraphs dropped as labeled (with `--drop-labeled-chunks`).
    #[serde(default)]
    pub dropped_paragraphs: u64,
    /// Ids of kept documents whose record was not found again where the store said.
    #[serde(default)]
    pub missing: Vec<String>,
    /// Seconds the writing took.
    pub seconds: f64,
}

/// Claims `dir` for a corpus written from `stores`: refused when it is, holds or lies inside
/// an input (a store, or a shard the stores were read from) or holds anything neardup did not
/// make there; a corpus written there earlier is replaced only with `force`, its manifest
/// removed first so that a run that dies then never looks finished. Nothing else is touched.
pub fn claim(
    dir: &Path,
    stores: &StoreSet,
    shard_dir: Option<&Path>,
    force: bool,
) -> Result<OutDir> {
    OutDir::claim_whole(
        dir,
        &inputs(stores, shard_dir),
        force,
        "a corpus",
        MANIFEST,
        "write",
    )
}

/// What a corpus written from `stores` reads: the stores and every shard they were read from
/// (where the manifests recorded it, and under `shard_dir`).
pub fn inputs(stores: &StoreSet, shard_dir: Option<&Path>) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for s in stores.stores() {
        v.push(s.path().to_path_buf());
        for info in &s.manifest.shards {
            v.extend(info.absolute.iter().map(PathBuf::from));
            v.push(PathBuf::from(&info.path));
            if let (Some(d), Some(n)) = (shard_dir, Path::new(&info.path).file_name()) {
                v.push(d.join(n));
            }
        }
    }
    v
}

/// Reads the manifest of a corpus output.
pub fn read_manifest(dir: &Path) -> Result<Manifest> {
    let p = dir.join(MANIFEST);
    let bytes = std::fs::read(&p).map_err(|e| Error::io(&p, e))?;
    let m: Manifest = serde_json::from_slice(&bytes).map_err(|e| Error::Parse {
        path: p.clone(),
        offset: e.column() as u64,
        msg: e.to_string(),
    })?;
    if m.format != FORMAT {
        return Err(Error::store(&p, "not a corpus manifest"));
    }
    Ok(m)
}

/// The name of shard `i`.
pub fn shard_name(i: usize, format: Format) -> String {
    format!("part-{i:05}.{}", format.ext())
}

/// Writes the documents `kept` (in store order) of `stores` as `cfg` says, then the manifest.
/// The directory must have been claimed with [`claim`].
pub fn write(stores: &StoreSet, kept: &[Kept], cfg: &Config) -> Result<Manifest> {
    let started = Instant::now();
    if cfg.shard_size == 0 {
        return Err(Error::Config("the shard size must be above 0".into()));
    }
    if cfg.cut.is_some() && cfg.format == Format::WarcGz {
        return Err(Error::Config(
            "cutting repeated spans changes the text, and WARC.gz output copies records as they were: write jsonl.gz or parquet".into(),
        ));
    }
    if cfg.drop_labels.is_some() && cfg.format == Format::WarcGz {
        return Err(Error::Config(
            "dropping labeled paragraphs changes the text, and WARC.gz output copies records as they were: write jsonl.gz or parquet".into(),
        ));
    }
    let mut m = match cfg.format {
        Format::WarcGz => warc::write(stores, kept, cfg)?,
        Format::JsonlGz | Format::Parquet => rows::write(stores, kept, cfg)?,
    };
    m.seconds = started.elapsed().as_secs_f64();
    let json = serde_json::to_string_pretty(&m).map_err(|e| Error::Config(e.to_string()))?;
    atomic::write(&cfg.dir.join(MANIFEST), (json + "\n").as_bytes())?;
    Ok(m)
}

/// An empty manifest for `format`.
fn manifest(format: Format) -> Manifest {
    Manifest {
        format: FORMAT.into(),
        version: 1,
        written_as: format,
        documents: 0,
        bytes: 0,
        shards: Vec::new(),
        copied: 0,
        recompressed: 0,
        built: 0,
        dropped_paragraphs: 0,
        missing: Vec::new(),
        seconds: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::cut_ranges;

    /// Cuts keep what is around them, take one of two spaces a cut leaves, and pass over a
    /// range that is out of order, past the end or inside a character.
    #[test]
    fn cuts_take_their_ranges_and_one_space() {
        let t = "one two three four";
        assert_eq!(cut_ranges(t, &[(4, 7)]), "one three four");
        assert_eq!(cut_ranges(t, &[(0, 3)]), "two three four");
        assert_eq!(cut_ranges(t, &[(14, 18)]), "one two three ");
        assert_eq!(cut_ranges(t, &[(4, 7), (14, 18)]), "one three ");
        assert_eq!(cut_ranges(t, &[(8, 13), (4, 7)]), "one two four");
        assert_eq!(cut_ranges(t, &[(4, 99)]), t);
        let u = "żółw ćma";
        assert_eq!(cut_ranges(u, &[(1, 3)]), u, "inside a character");
        assert_eq!(cut_ranges(u, &[(0, 7)]), "ćma");
    }
}
