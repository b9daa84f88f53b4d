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
    /// Cut the words of scripts written without spaces ([`unspaced`]: Han, Hiragana,
    /// Katakana, Thai, Lao, Khmer, Myanmar) into single characters, so that word n-grams over
    /// them are character n-grams. UAX #29 (`unicode-segmentation`) cuts Han and Thai text
    /// into characters already, but leaves a Katakana run whole, and Hiragana next to Han as
    /// it comes: one rule for all of them. Stores made before this option read as without it.
    #[serde(default)]
    pub unspaced_chars: bool,
}

impl Default for TokenOptions {
    fn default() -> Self {
        TokenOptions {
            lowercase: true,
            stopwords: true,
            stem: true,
            possessive: true,
            unspaced_chars: true,
        }
    }
}

/// Whether `c` belongs to a script written without spaces between words: Thai, Lao, Myanmar,
/// Khmer, Hiragana, Katakana (full and half width) and the CJK ideographs.
pub fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF
            | 0x1000..=0x109F
            | 0x1780..=0x17FF
            | 0x19E0..=0x19FF
            | 0x3005..=0x3007
            | 0x3040..=0x30FF
            | 0x31F0..=0x31FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xF900..=0xFAFF
            | 0xFF66..=0xFF9F
            | 0x20000..=0x323AF)
}

/// Calls `f` with `word` cut as [`TokenOptions::unspaced_chars`] says: each character of a
/// script written without spaces alone, the runs of other characters whole.
fn split_unspaced<'t>(word: &'t str, f: &mut impl FnMut(&'t str)) {
    if !word.chars().any(unspaced) {
        return f(word);
    }
    let mut run = 0;
    for (i, c) in word.char_indices() {
        if unspaced(c) {
            if run < i {
                f(&word[run..i]);
            }
            f(&word[i..i + c.len_utf8()]);
            run = i + c.len_utf8();
        }
    }
    if run < word.len() {
        f(&word[run..]);
    }
}

/// Calls `f` with each word of `text`: the UAX #29 word segments (those holding a letter or
/// digit) of each whitespace-separated chunk. Pure-ASCII chunks take a fast path that applies
/// the same rules (WB5-WB13b restricted to ASCII); a test checks it against
/// `unicode-segmentation`.
pub fn for_each_word<'t>(text: &'t str, chars: bool, mut f: impl FnMut(&'t str)) {
    // One byte-level pass finds the chunks and whether each is ASCII; chunk boundaries are
    // ASCII bytes, so slicing the str there is always valid.
    let b = text.as_bytes();
    let n = b.len();
    let mut i = 0;
    loop {
        while i < n && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == n {
            return;
        }
        let start = i;
        let mut high = 0u8;
        while i < n && !b[i].is_ascii_whitespace() {
            high |= b[i];
            i += 1;
        }
        let chunk = &text[start..i];
        if high < 0x80 {
            ascii_words(chunk, &mut f);
        } else if chars {
            chunk
                .unicode_words()
                .for_each(|w| split_unspaced(w, &mut f));
        } else {
            chunk.unicode_words().for_each(&mut f);
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Digit,
    Underscore,
    /// `:` (MidLetter)
    MidLetter,
    /// `.` and `'` (MidNumLet, Single_Quote)
    MidNumLet,
    /// `,` and `;` (MidNum)
    MidNum,
    Other,
}

const fn class_of(b: u8) -> Class {
    match b {
        b'a'..=b'z' | b'A'..=b'Z' => Class::Letter,
        b'0'..=b'9' => Class::Digit,
        b'_' => Class::Underscore,
        b':' => Class::MidLetter,
        b'.' | b'\'' => Class::MidNumLet,
        b',' | b';' => Class::MidNum,
        _ => Class::Other,
    }
}

/// `class_of` for every byte: one load per byte in the word loop.
static CLASSES: [Class; 256] = {
    let mut t = [Class::Other; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = class_of(i as u8);
        i += 1;
    }
    t
};

#[inline(always)]
fn class(b: u8) -> Class {
    CLASSES[b as usize]
}

fn ascii_words<'t>(chunk: &'t str, f: &mut impl FnMut(&'t str)) {
    use Class::*;
    let b = chunk.as_bytes();
    let n = b.len();
    let mut i = 0;
    while i < n {
        if !matches!(class(b[i]), Letter | Digit | Underscore) {
            i += 1;
            continue;
        }
        let start = i;
        let mut alnum = class(b[i]) != Underscore;
        i += 1;
        while i < n {
            let c = class(b[i]);
            if matches!(c, Letter | Digit | Underscore) {
                alnum |= c != Underscore;
                i += 1;
                continue;
            }
            let (prev, next) = (class(b[i - 1]), b.get(i + 1).map_or(Other, |x| class(*x)));
            let letters = prev == Letter && next == Letter && matches!(c, MidLetter | MidNumLet);
            let digits = prev == Digit && next == Digit && matches!(c, MidNum | MidNumLet);
            if letters || digits {
                i += 2;
                continue;
            }
            break;
        }
        if alnum {
            f(&chunk[start..i]);
        }
    }
}

/// Runs the analysis chain on one word; `None` when it is dropped (a stop word, or nothing
/// left). The term is left in `scratch`.
pub fn analyze<'s>(word: &str, opts: TokenOptions, scratch: &'s mut Vec<u8>) -> Option<&'s [u8]> {
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
        return None;
    }
    if opts.stem && scratch.is_ascii() {
        let n = porter::stem(scratch);
        scratch.truncate(n);
    }
    Some(scratch)
}

/// Calls `f` with each term of `text`. `scratch` is reused between calls to avoid allocation.
pub fn for_each_term(
    text: &str,
    opts: TokenOptions,
    scratch: &mut Vec<u8>,
    mut f: impl FnMut(&[u8]),
) {
    for_each_word(text, opts.unspaced_chars, |word| {
        if let Some(t) = analyze(word, opts, scratch) {
            f(t);
        }
    });
}

fn strip_possessive(w: &mut Vec<u8>) {
    let n = w.len();
    if n >= 2 && matches!(w[n - 1], b's' | b'S') {
        if w[n - 2] == b'\'' {
            w.truncate(n - 2);
        } else if n >= 4
            && (w[n - 4..n - 1] == *"\u{2019}".as_bytes()
                || w[n - 4..n - 1] == *"\u{201b}".as_bytes())
        {
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
            unspaced_chars: false,
        };
        assert_eq!(
            terms("The rose's Petals", opts),
            ["The", "rose's", "Petals"]
        );
        let curly = terms("John\u{2019}s book", TokenOptions::default());
        assert_eq!(curly, ["john", "book"]);
    }

    /// Scripts written without spaces are cut into characters, other runs of a word kept;
    /// without the option, a Katakana run stays whole as UAX #29 leaves it.
    #[test]
    fn unspaced_scripts_are_cut_into_characters() {
        let t = terms("ภาษาไทย カタカナ 中文abc の", TokenOptions::default());
        assert_eq!(
            t,
            [
                "ภ", "า", "ษ", "า", "ไ", "ท", "ย", "カ", "タ", "カ", "ナ", "中", "文", "abc", "の"
            ]
        );
        let whole = TokenOptions {
            unspaced_chars: false,
            ..TokenOptions::default()
        };
        let t = terms("カタカナ 中文", whole);
        assert_eq!(t, ["カタカナ", "中", "文"]);
        // Other scripts are untouched.
        assert_eq!(
            terms("Zürich Ελληνικά русский", TokenOptions::default()),
            ["zürich", "ελληνικά", "русский"]
        );
    }

    #[test]
    fn ascii_fast_path_equals_unicode_segmentation() {
        let alphabet = b"aZk9 0_.:,;'-!x\t\n\"(";
        let mut s = crate::base::rng::SplitMix64(1);
        for _ in 0..20_000 {
            let len = s.below(24) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[s.below(alphabet.len() as u64) as usize] as char)
                .collect();
            let mut fast = Vec::new();
            for_each_word(&text, false, |w| fast.push(w));
            let slow: Vec<&str> = text.unicode_words().collect();
            assert_eq!(fast, slow, "text {text:?}");
        }
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
