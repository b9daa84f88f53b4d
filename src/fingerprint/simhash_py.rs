//! Compatibility with the python `simhash` package (1e0ng/simhash 2.x), which Chuweb21D used.
//!
//! `Simhash(text, f)` lowercases the text, keeps the characters that match
//! `[\w\u4e00-\u9fcc]` (Python's `\w` is letters, numbers and `_`: Unicode categories L* and
//! N*), joins them, and takes every 4-character window (or the whole string, even empty, when
//! shorter) as a feature weighted by its count. A feature's hash is the last `f / 8` bytes of
//! its MD5 digest read as a big-endian integer, and bit j is set when the weighted count of
//! features with bit j set exceeds half the total weight. This module computes the same
//! integers for f = 64 and f = 128; `scripts/check_simhash_py.py` checks them against the
//! package itself.

use std::collections::HashMap;

use md5::{Digest, Md5};
use unicode_general_category::{get_general_category, GeneralCategory as G};

use super::simhash::Accumulator;

/// Whether Python's `re` `\w` (or the CJK range the package adds) matches `c`.
fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    if ('\u{4e00}'..='\u{9fcc}').contains(&c) {
        return true;
    }
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
            | G::DecimalNumber
            | G::LetterNumber
            | G::OtherNumber
    )
}

/// The 128-bit python-compatible SimHash of `text`; the low 64 bits are `Simhash(text).value`
/// and all 128 bits are `Simhash(text, f=128).value`.
pub fn simhash(text: &str) -> u128 {
    let chars: Vec<char> = text
        .to_lowercase()
        .chars()
        .filter(|c| is_word_char(*c))
        .collect();
    let mut counts: HashMap<&[char], u64> = HashMap::new();
    if chars.len() < 4 {
        counts.insert(&chars[..], 1);
    } else {
        for w in chars.windows(4) {
            *counts.entry(w).or_insert(0) += 1;
        }
    }
    let mut acc = Accumulator::default();
    let mut buf = String::new();
    for (feature, weight) in counts {
        buf.clear();
        buf.extend(feature.iter());
        let digest = Md5::digest(buf.as_bytes());
        let h = u128::from_be_bytes(digest.into());
        acc.add_weighted(h, weight);
    }
    acc.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_is_the_hash_of_the_empty_feature() {
        // One feature, '' with weight 1: the fingerprint is md5("") itself.
        let md5_empty = 0xd41d8cd98f00b204e9800998ecf8427e_u128;
        assert_eq!(simhash(""), md5_empty);
        assert_eq!(simhash("  ,.! "), md5_empty);
    }

    #[test]
    fn case_and_punctuation_do_not_matter() {
        assert_eq!(
            simhash("How are you? I am fine."),
            simhash("howareyouiamfine")
        );
        assert_ne!(simhash("how are you"), simhash("how are yov"));
    }
}
