//! Every parameter that shapes a fingerprint, as recorded in a store's manifest.
//!
//! Two stores can be joined only when their `Params` are equal; [`Params::diff`] names what
//! differs so the refusal is actionable.

use serde::{Deserialize, Serialize};

use crate::text::TokenOptions;

/// How features are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FeatureMode {
    /// Term n-grams of the Lucene-style analysis chain, hashed with XXH3.
    Native,
    /// Bit-for-bit the python `simhash` package on the extracted text.
    SimhashPy,
}

/// Fingerprint parameters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Params {
    /// Feature mode.
    pub features: FeatureMode,
    /// N-gram sizes (native mode).
    pub ngrams: Vec<usize>,
    /// Analysis steps (native mode).
    pub tokens: TokenOptions,
    /// Seed of the feature hashes (native mode).
    pub seed: u64,
    /// Name and version of the feature hashing scheme.
    pub hash: String,
    /// Which text of an HTML page is read (`--text`); stores made before it read all of it.
    #[serde(default)]
    pub text: crate::text::extract::TextMode,
    /// With `--text main`, the main-content extractor's name and version
    /// ([`crate::text::extract::MAIN_EXTRACTOR`]); empty for the full text (and absent from
    /// such a store's manifest, as before it existed).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text_extractor: String,
}

/// The current feature hashing scheme; bump when `text::features` changes its bits.
pub const HASH_SCHEME: &str = "xxh3-64 terms, mix128 n-grams, v1";

impl Default for Params {
    fn default() -> Self {
        Params {
            features: FeatureMode::Native,
            ngrams: vec![3, 5],
            tokens: TokenOptions::default(),
            seed: 0,
            hash: HASH_SCHEME.into(),
            text: crate::text::extract::TextMode::Full,
            text_extractor: String::new(),
        }
    }
}

impl Params {
    /// Sets the text mode, and the extractor that goes with it.
    pub fn with_text(mut self, text: crate::text::extract::TextMode) -> Self {
        self.text = text;
        self.text_extractor = match text {
            crate::text::extract::TextMode::Main => crate::text::extract::MAIN_EXTRACTOR.into(),
            crate::text::extract::TextMode::Full => String::new(),
        };
        self
    }

    /// Parameters for the python-compatible mode (the analysis options do not apply).
    pub fn simhash_py() -> Self {
        Params {
            features: FeatureMode::SimhashPy,
            ngrams: vec![],
            tokens: TokenOptions::default(),
            seed: 0,
            hash: "md5 of character 4-grams (python simhash 2.x)".into(),
            text: crate::text::extract::TextMode::Full,
            text_extractor: String::new(),
        }
    }

    /// Human-readable list of differences, empty when equal.
    pub fn diff(&self, other: &Params) -> Vec<String> {
        let mut d = Vec::new();
        let mut check = |name: &str, a: String, b: String| {
            if a != b {
                d.push(format!("{name}: {a} vs {b}"));
            }
        };
        check(
            "features",
            format!("{:?}", self.features),
            format!("{:?}", other.features),
        );
        check(
            "ngrams",
            format!("{:?}", self.ngrams),
            format!("{:?}", other.ngrams),
        );
        check(
            "tokens",
            format!("{:?}", self.tokens),
            format!("{:?}", other.tokens),
        );
        check("seed", self.seed.to_string(), other.seed.to_string());
        check("hash", self.hash.clone(), other.hash.clone());
        check(
            "text",
            format!("{:?}", self.text).to_lowercase(),
            format!("{:?}", other.text).to_lowercase(),
        );
        check(
            "text extractor",
            self.text_extractor.clone(),
            other.text_extractor.clone(),
        );
        d
    }
}
