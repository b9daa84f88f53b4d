//! The options of the jobs as a caller gives them, before validation: plain data with the
//! defaults in one place ([`Default`]), read from JSON or a Python keyword dictionary by name
//! (serde, the names of the command line's flags with `_` for `-`). The command line's
//! arguments convert into these; [`super::spec`] validates them into the specs the jobs run.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::cluster::star::RemoveBy;
use crate::cluster::Representative;
use crate::join::plan::Method;
use crate::join::BackendChoice;
use crate::report::typed::TableFormat;

/// A size in bytes: a number with an optional K, M, G or T suffix (powers of 1024; `KiB`,
/// `MB` and the like are read the same).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size (a number, optionally with K, M or G)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "{s:?}: unknown size unit {unit:?} (use K, M, G or T)"
            ))
        }
    };
    n.checked_mul(1 << shift).filter(|v| *v > 0).ok_or_else(|| {
        format!("{s:?} is not a usable size (it must be above zero and below 16 EiB)")
    })
}

/// A size given as a number of bytes or as text with a unit ([`parse_size`]).
pub(crate) fn size<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Size {
        Bytes(u64),
        Text(String),
    }
    match Size::deserialize(d)? {
        Size::Bytes(0) => Err(serde::de::Error::custom("a size of 0 bytes")),
        Size::Bytes(n) => Ok(n),
        Size::Text(t) => parse_size(&t).map_err(serde::de::Error::custom),
    }
}

/// Feature modes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Features {
    /// Lucene-style terms, word n-grams, XXH3.
    #[default]
    Native,
    /// Bit-for-bit the python `simhash` package (2.x) on the extracted text.
    SimhashPy,
}

/// How JSONL, Parquet and Arrow text is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextFormat {
    /// HTML when the text starts with a tag.
    #[default]
    Auto,
    /// Always HTML.
    Html,
    /// Always plain text.
    Text,
}

/// Where `dedup`'s candidate pairs come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Candidates {
    /// Pairs within a Hamming distance of the 64-bit SimHash.
    Simhash,
    /// MinHash-LSH: pairs sharing a band key.
    Minhash,
}

/// What `dedup` does with the blocks a page shares with its whole site
/// ([`crate::fingerprint::own`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SiteBlocks {
    /// Set aside: pages are compared on their own content (main content only).
    #[default]
    Aside,
    /// Kept: pages are compared on their text as extracted.
    Keep,
}

/// How documents are read, filtered and fingerprinted (`fingerprint`, `dedup`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FingerprintOptions {
    /// Follow symbolic links inside input directories.
    pub follow: bool,
    /// Feature mode.
    pub features: Features,
    /// Compute MinHash band keys too.
    pub minhash: bool,
    /// Hash every paragraph chunk too.
    pub chunks: bool,
    /// Keep every document's shingle set too (verification's word 8-grams), so that a
    /// verified `dedup` of the store compares them instead of reading the shards again.
    pub shingles: bool,
    /// MinHash bands (keys per document).
    pub minhash_bands: u32,
    /// MinHash bins per band.
    pub minhash_rows: u32,
    /// Word n-gram sizes of the SimHash features (1..8).
    pub ngrams: Vec<usize>,
    /// Keep case.
    pub no_lowercase: bool,
    /// Keep stop words.
    pub no_stopwords: bool,
    /// Do not stem.
    pub no_stem: bool,
    /// Keep possessive 's.
    pub no_possessive: bool,
    /// Keep the words of scripts written without spaces as UAX #29 finds them (a Thai run
    /// whole), not cut into characters.
    pub no_unspaced_chars: bool,
    /// Seed of the feature hashes.
    pub hash_seed: u64,
    /// Keep records whatever their HTTP status.
    pub any_status: bool,
    /// Keep records whatever their media type.
    pub any_content_type: bool,
    /// Skip payloads shorter than this many bytes.
    pub min_html_len: u64,
    /// Documents with fewer terms are short: stored, not joined.
    pub min_terms: u32,
    /// Keep only documents identified as English.
    pub english: bool,
    /// The id field (JSONL) or column (Parquet, Arrow).
    pub id_field: String,
    /// The text field or column.
    pub text_field: String,
    /// The URL field or column.
    pub url_field: String,
    /// How field text is read.
    pub text_format: TextFormat,
    /// Which text of an HTML page is read.
    pub text: crate::text::extract::TextMode,
    /// Uncompressed shards larger than this (MiB) are split across workers; 0 never splits.
    pub split_mib: u64,
    /// Records larger than this many bytes are skipped and counted.
    #[serde(deserialize_with = "size")]
    pub max_record_size: u64,
    /// The field (JSONL), column (Parquet, Arrow) or `WARC-Date` whose number each document
    /// keeps in the store, for `dedup --keep-by`.
    pub keep_field: Option<String>,
}

impl Default for FingerprintOptions {
    fn default() -> Self {
        FingerprintOptions {
            follow: false,
            features: Features::Native,
            minhash: false,
            chunks: false,
            shingles: false,
            minhash_bands: 40,
            minhash_rows: 7,
            ngrams: vec![3, 5],
            no_lowercase: false,
            no_stopwords: false,
            no_stem: false,
            no_possessive: false,
            no_unspaced_chars: false,
            hash_seed: 0,
            any_status: false,
            any_content_type: false,
            min_html_len: 0,
            min_terms: 10,
            english: false,
            id_field: "id".into(),
            text_field: "text".into(),
            url_field: "url".into(),
            text_format: TextFormat::Auto,
            split_mib: 64,
            max_record_size: 32 << 20,
            keep_field: None,
            text: crate::text::extract::TextMode::Main,
        }
    }
}

/// How a SimHash join is planned and where it runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct JoinOptions {
    /// Exact pigeonhole tables or random bit samples.
    pub method: Method,
    /// Blocks of the exact plan (None: the planner's cheapest).
    pub blocks: Option<usize>,
    /// Key bits per random table.
    pub bits: u32,
    /// Random tables.
    pub iterations: u32,
    /// Seed of the random tables.
    pub seed: u64,
    /// Where the comparisons run.
    pub backend: BackendChoice,
    /// A part of the GPU adapter's name.
    pub adapter: Option<String>,
}

impl Default for JoinOptions {
    fn default() -> Self {
        JoinOptions {
            method: Method::Exact,
            blocks: None,
            bits: 16,
            iterations: 20,
            seed: 0,
            backend: BackendChoice::Auto,
            adapter: None,
        }
    }
}

/// How two documents' texts are compared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SimilarityOptions {
    /// s3 (CopyCat), jaccard or containment.
    pub measure: String,
    /// A pair is a near-duplicate when the measure is at least this.
    pub min: f64,
    /// Terms per shingle.
    pub shingle: usize,
    /// Shingle sets held at once, about, in bytes.
    #[serde(deserialize_with = "size")]
    pub verify_memory: u64,
}

impl Default for SimilarityOptions {
    fn default() -> Self {
        SimilarityOptions {
            measure: "s3".into(),
            min: 0.82,
            shingle: 8,
            verify_memory: crate::verify::DEFAULT_MEMORY,
        }
    }
}

/// How a corpus is written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CorpusOptions {
    /// Target size of an output shard, in bytes.
    #[serde(deserialize_with = "size")]
    pub shard_size: u64,
    /// Labeled paragraphs to drop: a `reuse discover` output or a store.
    pub drop_labeled_chunks: Option<PathBuf>,
}

impl Default for CorpusOptions {
    fn default() -> Self {
        CorpusOptions {
            shard_size: 1 << 30,
            drop_labeled_chunks: None,
        }
    }
}

/// `dedup`'s options (the command line's `neardup dedup`, flag for flag).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DedupOptions {
    /// Crawl files or directories, or stores.
    pub inputs: Vec<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// Replace an existing store in the output directory.
    pub force: bool,
    /// 64-bit threshold (None: 64 for MinHash candidates, 14 verified SimHash, 3 unverified).
    pub tau: Option<u32>,
    /// Largest threshold of the sweep (None: `tau`).
    pub tau_max: Option<u32>,
    /// Largest 128-bit distance too.
    pub tau128: Option<u32>,
    /// Which document of a group is kept first.
    pub representative: Representative,
    /// How the remove list is made.
    pub remove_by: RemoveBy,
    /// Stores of an older collection deduplicated against.
    pub against: Vec<PathBuf>,
    /// `FIELD[:max|min]`: the document of a group with the largest (or smallest) number in
    /// this field is kept, ties broken by the representative rule.
    pub keep_by: Option<String>,
    /// Stores whose documents are kept before any other's, in this order.
    pub prefer: Vec<PathBuf>,
    /// Pages in the same canonical class are candidates too.
    pub canonical: bool,
    /// Where candidates come from (None: MinHash when verifying, SimHash without).
    pub candidates: Option<Candidates>,
    /// Cluster on SimHash distance alone.
    pub no_verify: bool,
    /// Skip comparisons of pairs whose texts are already joined.
    pub skip_joined: bool,
    /// What is done with the blocks a page shares with its whole site.
    pub site_blocks: SiteBlocks,
    /// Keep every document's shingle set in the store as it is fingerprinted, and verify
    /// from the sets instead of reading the candidates' records again.
    pub keep_shingles: bool,
    /// Verify every candidate pair as a list of pairs.
    pub all_pairs: bool,
    /// Kept texts listed per run of equal band keys at most (0: no bound).
    pub max_leaders: usize,
    /// Split the stages after fingerprinting into tasks over this many partitions
    /// ([`crate::jobs::split`]).
    pub partitions: Option<u32>,
    /// Where the shards of given stores are now.
    pub shard_dir: Option<PathBuf>,
    /// How pairs are compared on their text.
    #[serde(flatten)]
    pub similarity: SimilarityOptions,
    /// Plan and backend.
    #[serde(flatten)]
    pub join: JoinOptions,
    /// Write the kept documents out in this format.
    pub write_corpus: Option<crate::write::Format>,
    /// Find the spans of at least this many words repeated among the kept documents
    /// (`substrings.tsv`), and cut them from the corpus written.
    pub substrings: Option<usize>,
    /// How the corpus is written.
    #[serde(flatten)]
    pub corpus: CorpusOptions,
    /// Typed table formats written next to the TSVs.
    pub tables: Vec<TableFormat>,
    /// How documents are read, filtered and fingerprinted.
    #[serde(flatten)]
    pub fingerprint: FingerprintOptions,
}

impl Default for DedupOptions {
    fn default() -> Self {
        DedupOptions {
            inputs: Vec::new(),
            output: PathBuf::new(),
            force: false,
            tau: None,
            tau_max: None,
            tau128: None,
            representative: Representative::default(),
            remove_by: RemoveBy::default(),
            against: Vec::new(),
            keep_by: None,
            prefer: Vec::new(),
            canonical: false,
            candidates: None,
            no_verify: false,
            skip_joined: false,
            site_blocks: SiteBlocks::Aside,
            keep_shingles: false,
            all_pairs: false,
            max_leaders: crate::cluster::leaders::DEFAULT_MAX_LEADERS,
            partitions: None,
            shard_dir: None,
            similarity: SimilarityOptions::default(),
            join: JoinOptions::default(),
            write_corpus: None,
            substrings: None,
            corpus: CorpusOptions::default(),
            tables: Vec::new(),
            fingerprint: FingerprintOptions::default(),
        }
    }
}

impl DedupOptions {
    /// The options read from a JSON object of option names (the command line's, `_` for `-`)
    /// over the defaults; a name that is no option is refused, naming it.
    pub fn from_json(json: &str) -> anyhow::Result<DedupOptions> {
        from_json(json, "dedup")
    }
}

/// Options of `job` read from a JSON object of their names over their defaults; a name that
/// is none of them is refused, naming it and them.
pub fn from_json<T: Default + Serialize + serde::de::DeserializeOwned>(
    json: &str,
    job: &str,
) -> anyhow::Result<T> {
    let given: serde_json::Map<String, serde_json::Value> = serde_json::from_str(json)?;
    let known = serde_json::to_value(T::default())?;
    let known = known.as_object().expect("options serialize as an object");
    if let Some(k) = given.keys().find(|k| !known.contains_key(*k)) {
        let mut names: Vec<&str> = known.keys().map(String::as_str).collect();
        names.sort_unstable();
        anyhow::bail!(
            "{k:?} is not a {job} option (they are: {})",
            names.join(", ")
        );
    }
    serde_json::from_value(serde_json::Value::Object(given))
        .map_err(|e| anyhow::anyhow!("{job} options: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_read_by_name_over_the_defaults() {
        let o = DedupOptions::from_json(
            r#"{"tau": 5, "min_terms": 3, "representative": "longest", "method": "random", "tables": ["parquet"]}"#,
        )
        .unwrap();
        assert_eq!(o.tau, Some(5));
        assert_eq!(o.fingerprint.min_terms, 3);
        assert_eq!(o.representative, Representative::Longest);
        assert_eq!(o.join.method, Method::Random);
        assert_eq!(o.tables, vec![TableFormat::Parquet]);
        assert_eq!(o.similarity, SimilarityOptions::default());
        let e = DedupOptions::from_json(r#"{"min_term": 3}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("\"min_term\" is not a dedup option") && e.contains("min_terms"),
            "{e}"
        );
        let e = DedupOptions::from_json(r#"{"representative": "best"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("best"), "{e}");
    }
}
