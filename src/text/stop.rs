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
    word.len() <= 5
        && ENGLISH
            .binary_search_by(|w| w.as_bytes().cmp(word))
            .is_ok()
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
    }
}
