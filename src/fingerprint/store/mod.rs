//! The fingerprint store: a directory of memory-mappable columns and a manifest.
//!
//! Every column is a flat little-endian array with one entry per document in store order
//! (docs/FORMATS.md is the reference). `manifest.json` is written last, inside a temporary
//! directory that is renamed into place only when complete, so a directory with a manifest is
//! always a whole store and an interrupted run leaves nothing that looks like one.

pub mod checksum;
pub mod reader;
pub mod set;
pub mod writer;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Params;
use crate::corpus::{PayloadKind, ReadOptions, ShardFormat};

pub use reader::{open_many, Chunks, Store};
pub use set::StoreSet;
pub use writer::{Row, StoreWriter};

/// Store format name in the manifest.
pub const FORMAT: &str = "neardup-store";
/// Store format version; readers refuse other versions, except version 1, read as a store
/// without canonical links (version 2 added `canonical.bin` and `canonical.idx`).
pub const VERSION: u32 = 2;

/// Column file names.
pub mod col {
    /// SimHash-64, u64 per document.
    pub const FP64: &str = "fp64.u64";
    /// SimHash-128, two u64 (low, high) per document.
    pub const FP128: &str = "fp128.u128";
    /// Content hash, two u64 (low, high) per document.
    pub const CONTENT: &str = "content_hash.u128";
    /// Flags, u8 per document (see [`super::flags`]).
    pub const FLAGS: &str = "flags.u8";
    /// Normalised text length in bytes, u32 per document.
    pub const TEXT_LEN: &str = "text_len.u32";
    /// Term count, u32 per document.
    pub const TERMS: &str = "terms.u32";
    /// Source location, 32 bytes per document (`corpus::SourceLoc`).
    pub const SOURCE: &str = "source.loc";
    /// Document ids, UTF-8, concatenated.
    pub const IDS: &str = "ids.bin";
    /// Offsets into `ids.bin`, u64, one more than documents.
    pub const IDS_IDX: &str = "ids.idx";
    /// URLs, UTF-8, concatenated.
    pub const URLS: &str = "urls.bin";
    /// MinHash band keys, `bands` u64 per document, document by document: the layout of
    /// stores made before the band files ([`minhash_band`]), still read.
    pub const MINHASH: &str = "minhash.u64";

    /// MinHash band keys of band `b`, u64 per document (only in stores built with
    /// signatures): one file per band, so that a pass over one band reads it in order.
    pub fn minhash_band(b: usize) -> String {
        format!("minhash.{b:03}.u64")
    }
    /// Offsets into `urls.bin`, u64, one more than documents.
    pub const URLS_IDX: &str = "urls.idx";
    /// Canonical URLs (resolved, no fragment; empty where a page has none), concatenated
    /// (version 2 on).
    pub const CANONICAL: &str = "canonical.bin";
    /// Offsets into `canonical.bin`, u64, one more than documents.
    pub const CANONICAL_IDX: &str = "canonical.idx";
    /// Paragraph chunk hashes (XXH3-128, low then high u64), every chunk of every document
    /// in order (only in stores built with `--chunks`).
    pub const CHUNKS: &str = "chunks.u128";
    /// Offsets into `chunks.u128`, in chunks, u64, one more than documents.
    pub const CHUNKS_IDX: &str = "chunks.idx";
    /// Each document's title key, then the key of each of its blocks in order
    /// (`text::blocks`), document after document (stores of main content).
    pub const BLOCKS: &str = "blocks.u64";
    /// Offsets into `blocks.u64`, in keys, u64, one more than documents.
    pub const BLOCKS_IDX: &str = "blocks.idx";
    /// Verification's shingle set of every document (word k-gram hashes, sorted, without
    /// repeats, as verification makes them), document after document (only in
    /// stores built with `--shingles`, or by `dedup --keep-shingles`).
    pub const SHINGLES: &str = "shingles.u64";
    /// Offsets into `shingles.u64`, in hashes, u64, one more than documents.
    pub const SHINGLES_IDX: &str = "shingles.idx";
    /// A number per document (f64, NaN where the document had none), in stores built with
    /// a keep field (`--keep-field`, `dedup --keep-by`).
    pub const VALUES: &str = "values.f64";
    /// The manifest.
    pub const MANIFEST: &str = "manifest.json";
}

/// Per-document flag bits.
pub mod flags {
    /// Fewer terms than `--min-terms`: kept in the store, excluded from joins.
    pub const SHORT: u8 = 1;
    /// No features at all (empty text): the fingerprint is 0 and meaningless.
    pub const NO_FEATURES: u8 = 2;
    /// The id was already used by an earlier document of this store.
    pub const DUPLICATE_ID: u8 = 4;
    /// Read under `--text main` but compared on its full text: no main content was found,
    /// or it was too short to compare.
    pub const FULL_TEXT: u8 = 8;
}

/// Which records were admitted (not part of the fingerprint parameters).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Filters {
    /// Only HTTP status 200 (records without an HTTP block pass).
    pub status_200_only: bool,
    /// Only HTML and text media types (records without one pass).
    pub html_text_only: bool,
    /// Minimum payload length in bytes.
    pub min_html_len: u64,
    /// Documents with fewer terms are flagged `short`.
    pub min_terms: u32,
    /// Only documents identified as English.
    pub english_only: bool,
}

/// What happened while the store was built.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Documents stored.
    pub documents: u64,
    /// Records skipped, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Non-document WARC records passed over (warcinfo, request, metadata, ...).
    pub other_records: u64,
    /// Records whose Content-Length was wrong and repaired.
    pub length_repaired: u64,
    /// Input bytes passed over to resynchronise after damage (corrupt gzip members, bytes
    /// between members that are not one).
    #[serde(default)]
    pub skipped_bytes: u64,
    /// Input files with no bytes (or an empty gzip stream): read, holding no record.
    #[serde(default)]
    pub empty_shards: u64,
    /// Documents flagged short.
    pub short: u64,
    /// Documents without features.
    pub no_features: u64,
    /// Documents whose id repeats an earlier one.
    pub duplicate_ids: u64,
    /// Shards that could not be read, with the reason.
    pub failed_shards: Vec<String>,
    /// Input bytes (as stored on disk).
    pub input_bytes: u64,
    /// Payload (HTML or text) bytes of the stored documents.
    pub payload_bytes: u64,
    /// Normalised text bytes of the stored documents.
    pub text_bytes: u64,
}

/// One input shard as recorded in the manifest; `SourceLoc::shard` indexes this list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// Path as given.
    pub path: String,
    /// Detected format.
    pub format: ShardFormat,
    /// Size in bytes.
    pub bytes: u64,
    /// The path made absolute when the store was built (absent in older stores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute: Option<String>,
    /// [`shard_checksum`] of the file when it was read (absent in older stores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
}

/// A checksum of a shard that costs no second pass over it: XXH3-64 of its size, its first and
/// last MiB and 64 evenly spaced 4 KiB blocks, as 16 hex digits. It tells a shard rewritten,
/// appended to or cut from the one fingerprinted; an edit that keeps the size and misses every
/// sampled block would go unseen.
pub fn shard_checksum(data: &[u8]) -> String {
    const EDGE: usize = 1 << 20;
    const BLOCK: usize = 4 << 10;
    let mut h = xxhash_rust::xxh3::Xxh3::with_seed(0);
    h.update(&(data.len() as u64).to_le_bytes());
    if data.len() <= 2 * EDGE + 64 * BLOCK {
        h.update(data);
    } else {
        h.update(&data[..EDGE]);
        let span = data.len() - 2 * EDGE - BLOCK;
        for i in 0..64 {
            let at = EDGE + span * i / 63;
            h.update(&data[at..at + BLOCK]);
        }
        h.update(&data[data.len() - EDGE..]);
    }
    format!("{:016x}", h.digest())
}

/// The manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// Format version.
    pub version: u32,
    /// Number of documents.
    pub docs: u64,
    /// Fingerprint parameters.
    pub params: Params,
    /// Record filters.
    pub filters: Filters,
    /// Build statistics.
    pub stats: Stats,
    /// Input shards.
    pub shards: Vec<ShardInfo>,
    /// How the shards were read, so a stage that reads a record again (verification) gets
    /// the same text; absent in stores written before it was kept (the defaults then apply).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<Reading>,
    /// How the MinHash band keys (`minhash.u64`) were made, in a store that has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minhash: Option<super::minhash::MinhashParams>,
    /// How the paragraph chunks (`chunks.u128`) were cut and hashed, in a store that has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunks: Option<ChunkParams>,
    /// How the shingle sets (`shingles.u64`) were made, in a store that has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shingles: Option<ShingleParams>,
    /// How the block keys (`blocks.u64`) were made, in a store that has them (main content):
    /// what a page's own content is told by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<BlockParams>,
    /// The field whose number each document keeps in `values.f64` (or `WARC-Date`), in a
    /// store built with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_field: Option<String>,
    /// XXH3-64 of every column file, by name ([`checksum`]): checked when the store is
    /// opened. Empty in stores written before them, and in stores made in memory.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub checksums: BTreeMap<String, String>,
    /// Program and version that wrote the store.
    pub created_by: String,
}

/// How a store's paragraph chunks were made (`text::paragraphs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkParams {
    /// What a chunk is: `line` (a line of the normalised text: a block element's text).
    pub unit: String,
    /// The hash of a chunk's bytes: `xxh3-128`.
    pub hash: String,
}

impl Default for ChunkParams {
    fn default() -> Self {
        ChunkParams {
            unit: "line".into(),
            hash: "xxh3-128".into(),
        }
    }
}

/// How a store's block keys were made (`text::blocks`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockParams {
    /// What a block is: `line` (a line of the normalised text: a block element's text).
    pub unit: String,
    /// A key: [`BLOCK_KEY`].
    pub key: String,
    /// A document's first key: [`BLOCK_TITLE`].
    pub title: String,
}

/// The block key the stores hold; a store naming another has no usable block keys.
pub const BLOCK_KEY: &str = "xxh3-64, low 16 bits the block's words";
/// What a document's first key is.
pub const BLOCK_TITLE: &str = "xxh3-64 of the head's <title>, else of the first line; 0 none";

impl Default for BlockParams {
    fn default() -> Self {
        BlockParams {
            unit: "line".into(),
            key: BLOCK_KEY.into(),
            title: BLOCK_TITLE.into(),
        }
    }
}

/// How a store's shingle sets were made: verification's shingles of the store's own terms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShingleParams {
    /// Terms per shingle.
    pub k: u32,
    /// The hash of a shingle: [`SHINGLE_HASH`].
    pub hash: String,
}

/// The shingle hash the sets hold; a store naming another is read again from its shards.
pub const SHINGLE_HASH: &str = "xxh3-64 of the term hashes, sorted set";

impl ShingleParams {
    /// The sets of `k`-term shingles, hashed as verification hashes them.
    pub fn new(k: usize) -> ShingleParams {
        ShingleParams {
            k: k as u32,
            hash: SHINGLE_HASH.into(),
        }
    }
}

/// The reader options that shape a document's text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reading {
    /// JSONL field holding the id.
    pub id_field: String,
    /// JSONL field holding the text.
    pub text_field: String,
    /// JSONL field holding the URL.
    pub url_field: String,
    /// `auto`, `html` or `text`: how JSONL text was read.
    pub text_format: String,
    /// `--max-record-size` in bytes.
    pub max_record: u64,
}

impl Reading {
    /// The settings of `o`.
    pub fn of(o: &ReadOptions) -> Reading {
        Reading {
            id_field: o.id_field.clone(),
            text_field: o.text_field.clone(),
            url_field: o.url_field.clone(),
            text_format: match o.jsonl_kind {
                PayloadKind::Html => "html",
                PayloadKind::Text => "text",
                PayloadKind::Unknown => "auto",
            }
            .into(),
            max_record: o.max_record as u64,
        }
    }

    /// Reader options with these settings.
    pub fn options(&self) -> ReadOptions {
        ReadOptions {
            id_field: self.id_field.clone(),
            text_field: self.text_field.clone(),
            url_field: self.url_field.clone(),
            jsonl_kind: match self.text_format.as_str() {
                "html" => PayloadKind::Html,
                "text" => PayloadKind::Text,
                _ => PayloadKind::Unknown,
            },
            max_record: usize::try_from(self.max_record).unwrap_or(usize::MAX),
            follow: false,
            ..ReadOptions::default()
        }
    }
}

impl Manifest {
    /// A manifest for a store being written by this program; the writer fills in the document
    /// count and the duplicate-id count when it finishes.
    pub fn new(params: Params, filters: Filters, stats: Stats, shards: Vec<ShardInfo>) -> Self {
        Manifest {
            format: FORMAT.into(),
            version: VERSION,
            docs: 0,
            params,
            filters,
            stats,
            shards,
            reading: None,
            minhash: None,
            chunks: None,
            shingles: None,
            blocks: None,
            keep_field: None,
            checksums: BTreeMap::new(),
            created_by: format!("neardup {}", env!("CARGO_PKG_VERSION")),
        }
    }
}
