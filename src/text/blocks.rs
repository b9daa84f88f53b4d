//! A page's blocks: the units its own content is told from its site's in.
//!
//! A block is one line of the normalised text: HTML becomes text with a line break at every
//! block element (a paragraph, a list item, a heading, a table cell: [`super::paragraphs`] cuts
//! the same lines), so a block is what a site repeats whole on its pages — a menu entry, a
//! footer line, a cookie notice, a section of documentation shown on every page of a kind.
//!
//! A block's key is XXH3-64 of its bytes with the low [`WORD_BITS`] bits replaced by its word
//! count (capped), so that what a set-aside block weighed is known from its key alone. Within
//! one host, two distinct blocks share a key with probability 2^-48 a pair: at the 10 million
//! distinct blocks of a very large host, about 0.2 colliding pairs are to be expected, and a
//! collision only adds the counts of two blocks of that host.
//!
//! A page's title key names what the page is about: its `<title>` when it has one, else its
//! first line. Blocks are counted once per distinct title of a host
//! ([`crate::fingerprint::own`]), so the copies of one page (which share their title) do not
//! make their text the site's.

use xxhash_rust::xxh3::xxh3_64;

/// Bits of a key that hold the block's word count.
pub const WORD_BITS: u32 = 16;
const WORD_MASK: u64 = (1 << WORD_BITS) - 1;

/// The key of one block (a line of normalised text, without its line break).
#[inline]
pub fn key(line: &str) -> u64 {
    (xxh3_64(line.as_bytes()) & !WORD_MASK) | (word_count(line) as u64).min(WORD_MASK)
}

/// The words a key says its block has (capped at 65 535).
#[inline]
pub fn words(key: u64) -> u32 {
    (key & WORD_MASK) as u32
}

/// The block keys of normalised `text`, in order, appended to `out` (one per non-empty line).
pub fn keys(text: &str, out: &mut Vec<u64>) {
    out.extend(text.split('\n').filter(|l| !l.is_empty()).map(key));
}

/// The title key of a page: of its `<title>` text when it has one (`title`), else of its first
/// line; never 0 (0 is kept for "no title": a page with no text).
pub fn title_key(title: Option<&[u8]>, text: &str) -> u64 {
    let t = title
        .map(|t| t.trim_ascii())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| {
            text.split('\n')
                .find(|l| !l.is_empty())
                .unwrap_or("")
                .as_bytes()
        });
    if t.is_empty() {
        0
    } else {
        xxh3_64(t).max(1)
    }
}

/// Words of `text`: runs of letters and digits, each Chinese or Japanese character one word
/// (as [`super::extract::has_words`] counts them).
pub fn word_count(text: &str) -> usize {
    super::extract::words_up_to(text, usize::MAX)
}

/// What [`own_text`] kept and set aside.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Own {
    /// Blocks set aside as the site's.
    pub blocks_aside: u32,
    /// Their words.
    pub words_aside: u32,
    /// Words kept: the page's own.
    pub words_kept: u32,
}

/// The lines of `text` whose key `site` does not call the site's, into `out` (cleared first),
/// each with its line break as in `text`.
pub fn own_text(text: &str, site: impl Fn(u64) -> bool, out: &mut String) -> Own {
    out.clear();
    let mut own = Own::default();
    for line in text.split('\n').filter(|l| !l.is_empty()) {
        let k = key(line);
        if site(k) {
            own.blocks_aside += 1;
            own.words_aside += words(k);
        } else {
            own.words_kept += words(k);
            out.push_str(line);
            out.push('\n');
        }
    }
    own
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Words as a plain reference counts them: split at every character that is not a letter
    /// or digit, ideographs one each.
    fn reference_words(text: &str) -> usize {
        let mut n = 0;
        for part in text.split(|c: char| !c.is_alphanumeric()) {
            let mut run = false;
            for c in part.chars() {
                if super::super::extract::is_ideograph(c) {
                    n += 1;
                    run = false;
                } else if !run {
                    n += 1;
                    run = true;
                }
            }
        }
        n
    }

    proptest! {
        #[test]
        fn word_counts_equal_the_reference(s in "[a-z0-9 ,.é日本\n-]{0,80}") {
            prop_assert_eq!(word_count(&s), reference_words(&s));
        }

        #[test]
        fn own_text_keeps_exactly_the_lines_not_set_aside(
            lines in proptest::collection::vec("[a-c]{1,3}( [a-c]{1,3}){0,3}", 0..12),
            aside in proptest::collection::vec(any::<bool>(), 12),
        ) {
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let site: std::collections::HashSet<u64> = lines
                .iter()
                .zip(&aside)
                .filter(|(_, a)| **a)
                .map(|(l, _)| key(l))
                .collect();
            let mut out = String::new();
            let own = own_text(&text, |k| site.contains(&k), &mut out);
            let want: String = lines
                .iter()
                .filter(|l| !site.contains(&key(l)))
                .map(|l| format!("{l}\n"))
                .collect();
            prop_assert_eq!(&out, &want);
            let aside_words: usize = lines
                .iter()
                .filter(|l| site.contains(&key(l)))
                .map(|l| reference_words(l))
                .sum();
            prop_assert_eq!(own.words_aside as usize, aside_words);
            prop_assert_eq!(own.words_kept as usize, reference_words(&want));
        }
    }

    #[test]
    fn keys_carry_their_words_and_titles_fall_back_to_the_first_line() {
        let k = key("Returns the next element of the iterator.");
        assert_eq!(words(k), 7);
        assert_ne!(k, key("Returns the next element of the iterator!"));
        let mut v = Vec::new();
        keys("a b\n\nc\n", &mut v);
        assert_eq!(v, vec![key("a b"), key("c")]);
        assert_eq!(title_key(Some(b"  T  "), "x"), title_key(Some(b"T"), "y"));
        assert_eq!(
            title_key(None, "\nFirst line\nsecond"),
            title_key(Some(b"First line"), "")
        );
        assert_eq!(title_key(Some(b" "), ""), 0);
    }
}
