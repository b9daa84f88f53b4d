//! Text to terms, as Lucene's English analysis chain does it.
//!
//! Words are Unicode word-boundary segments (UAX #29, as Lucene's `StandardTokenizer`), then,
//! each step switchable: the English possessive `'s` is removed, the word is lowercased, stop
//! words are dropped, and the Porter stemmer is applied (to ASCII words; others pass
//! unstemmed). The defaults reproduce Anserini's default English analyzer.

use unicode_segmentation::UnicodeSegmentation;

use super::{porter, stop};

/// Which analysis steps run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TokenOptions {
    /// Lowercase every word.
    pub lowercase: bool,
    /// Drop Lucene's English stop words.
    pub stopwords: bool,
    /// Porter-stem ASCII words.
    pub stem: bool,
    /// Remove a trailing possessive `'s`.
    pub possessive: bool,
}

impl Default for TokenOptions {
    fn default() -> Self {
        TokenOptions {
            lowercase: true,
            stopwords: true,
            stem: true,
            possessive: true,
        }
    }
}

/// Calls `f` with each term of `text`. `scratch` is reused between calls to avoid allocation.
pub fn for_each_term(
    text: &str,
    opts: TokenOptions,
    scratch: &mut Vec<u8>,
    mut f: impl FnMut(&[u8]),
) {
    for word in text.unicode_words() {
        scratch.clear();
        if opts.lowercase {
            if word.is_ascii() {
                scratch.extend(word.bytes().map(|b| b.to_ascii_lowercase()));
            } else {
                scratch.extend_from_slice(word.to_lowercase().as_bytes());
            }
        } else {
            scratch.extend_from_slice(word.as_bytes());
        }
        if opts.possessive {
            strip_possessive(scratch);
        }
        if scratch.is_empty() || (opts.stopwords && stop::is_stop(scratch)) {
            continue;
        }
        if opts.stem && scratch.is_ascii() {
            let n = porter::stem(scratch);
            scratch.truncate(n);
        }
        f(scratch);
    }
}

fn strip_possessive(w: &mut Vec<u8>) {
    let n = w.len();
    if n >= 2 && matches!(w[n - 1], b's' | b'S') {
        if w[n - 2] == b'\'' {
            w.truncate(n - 2);
        } else if n >= 4 && (w[n - 4..n - 1] == *"\u{2019}".as_bytes() || w[n - 4..n - 1] == *"\u{201b}".as_bytes()) {
            w.truncate(n - 4);
        }
    }
}

/// The terms of `text` as strings (for tests and tools).
pub fn terms(text: &str, opts: TokenOptions) -> Vec<String> {
    let mut out = Vec::new();
    let mut scratch = Vec::new();
    for_each_term(text, opts, &mut scratch, |t| {
        out.push(String::from_utf8_lossy(t).into_owned())
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lucene_english_chain() {
        let t = terms(
            "The Rose's petals: connected, CONNECTING and connections of Zürich's café.",
            TokenOptions::default(),
        );
        assert_eq!(
            t,
            ["rose", "petal", "connect", "connect", "connect", "zürich", "café"]
        );
    }

    #[test]
    fn steps_can_be_switched_off() {
        let opts = TokenOptions {
            lowercase: false,
            stopwords: false,
            stem: false,
            possessive: false,
        };
        assert_eq!(terms("The rose's Petals", opts), ["The", "rose's", "Petals"]);
        let curly = terms("John\u{2019}s book", TokenOptions::default());
        assert_eq!(curly, ["john", "book"]);
    }

    #[test]
    fn words_follow_uax29() {
        let t = terms(
            "e.g. 3.14 don't example.com",
            TokenOptions {
                stem: false,
                ..TokenOptions::default()
            },
        );
        assert_eq!(t, ["e.g", "3.14", "don't", "example.com"]);
    }
}
