//! Why a record was not turned into a stored document, and how many times.
//!
//! Skips are the normal fate of dirty crawl data, never errors: each reason has a stable
//! snake_case name that appears in `neardup info`, in the store manifest and in summaries.

use std::collections::BTreeMap;

/// A reason for skipping a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Skip {
    /// A WARC header block that could not be parsed.
    MalformedRecord,
    /// A response record whose HTTP block could not be parsed.
    MalformedHttp,
    /// HTTP status other than 200.
    HttpStatus,
    /// A media type that is neither HTML nor text.
    ContentType,
    /// A payload that looks binary (NUL bytes) despite its declared type.
    Binary,
    /// HTML shorter than `--min-html-len`.
    HtmlTooShort,
    /// Not English (with `--english`).
    NotEnglish,
    /// A JSONL line that is not a JSON object.
    MalformedJson,
    /// A JSONL object without the text field.
    MissingText,
    /// Bytes between records that are not a record (counted once per run of junk).
    Garbage,
    /// A record cut off by the end of the shard.
    Truncated,
    /// A gzip member that does not inflate, or bytes where a member should start that are
    /// not one (counted once per damaged stretch; reading resumes at the next good member).
    CorruptGzip,
    /// A record block, HTML file or JSON line larger than `--max-record-size`.
    TooLarge,
    /// A document whose id is empty (it could not be told apart in any list).
    EmptyId,
    /// A Parquet row group that does not decode (its rows are lost; the file's other row
    /// groups are read).
    CorruptParquet,
}

impl Skip {
    /// Every reason, in display order.
    pub const ALL: [Skip; 15] = [
        Skip::MalformedRecord,
        Skip::MalformedHttp,
        Skip::HttpStatus,
        Skip::ContentType,
        Skip::Binary,
        Skip::HtmlTooShort,
        Skip::NotEnglish,
        Skip::MalformedJson,
        Skip::MissingText,
        Skip::Garbage,
        Skip::Truncated,
        Skip::CorruptGzip,
        Skip::TooLarge,
        Skip::EmptyId,
        Skip::CorruptParquet,
    ];

    /// The stable name used in reports and manifests.
    pub fn name(self) -> &'static str {
        match self {
            Skip::MalformedRecord => "malformed_record",
            Skip::MalformedHttp => "malformed_http",
            Skip::HttpStatus => "http_status",
            Skip::ContentType => "content_type",
            Skip::Binary => "binary",
            Skip::HtmlTooShort => "html_too_short",
            Skip::NotEnglish => "not_english",
            Skip::MalformedJson => "malformed_json",
            Skip::MissingText => "missing_text",
            Skip::Garbage => "garbage",
            Skip::Truncated => "truncated",
            Skip::CorruptGzip => "corrupt_gzip",
            Skip::TooLarge => "too_large",
            Skip::EmptyId => "empty_id",
            Skip::CorruptParquet => "corrupt_parquet",
        }
    }
}

/// Counts of skips by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkipCounts([u64; Skip::ALL.len()]);

impl SkipCounts {
    /// Counts one skip.
    pub fn add(&mut self, s: Skip) {
        self.0[s as usize] += 1;
    }
    /// The count for one reason.
    pub fn get(&self, s: Skip) -> u64 {
        self.0[s as usize]
    }
    /// Total skips.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
    /// Adds another set of counts.
    pub fn merge(&mut self, other: &SkipCounts) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a += b;
        }
    }
    /// Non-zero counts by name, for reports.
    pub fn to_map(&self) -> BTreeMap<String, u64> {
        Skip::ALL
            .iter()
            .filter(|s| self.get(**s) > 0)
            .map(|s| (s.name().to_string(), self.get(*s)))
            .collect()
    }
    /// Rebuilds counts from a name map (unknown names are ignored).
    pub fn from_map(map: &BTreeMap<String, u64>) -> Self {
        let mut c = SkipCounts::default();
        for s in Skip::ALL {
            if let Some(n) = map.get(s.name()) {
                c.0[s as usize] = *n;
            }
        }
        c
    }
}
