//! Lucene's English stop words (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`, 33 words), which
//! Anserini's default analyzer removes.

/// The list, sorted for binary search.
pub const ENGLISH: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// Whether `word` (already lowercased) is a stop word.
pub fn is_stop(word: &[u8]) -> bool {
    // A literal match compiles to a length switch and a few word compares; a test below keeps
    // it equal to the list.
    matches!(
        word,
        b"a" | b"an"
            | b"and"
            | b"are"
            | b"as"
            | b"at"
            | b"be"
            | b"but"
            | b"by"
            | b"for"
            | b"if"
            | b"in"
            | b"into"
            | b"is"
            | b"it"
            | b"no"
            | b"not"
            | b"of"
            | b"on"
            | b"or"
            | b"such"
            | b"that"
            | b"the"
            | b"their"
            | b"then"
            | b"there"
            | b"these"
            | b"they"
            | b"this"
            | b"to"
            | b"was"
            | b"will"
            | b"with"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorted_and_found() {
        assert!(super::ENGLISH.windows(2).all(|w| w[0] < w[1]));
        for w in super::ENGLISH {
            assert!(super::is_stop(w.as_bytes()));
        }
        assert!(!super::is_stop(b"rose"));
        assert!(!super::is_stop(b"The"));
        // Nothing outside the list matches.
        for w in ["", "th", "thee", "these1", "withe", "an ", "ist"] {
            assert!(!super::is_stop(w.as_bytes()), "{w}");
        }
    }
}
