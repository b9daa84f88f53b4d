//! The tests of main content, by what they hold, and the page builders they share.

use super::*;

mod attributes;
mod documentation;
mod frame;
mod regions;

/// `n` pieces of a test page, the `i`th made by `f(i)`, one after another.
fn each(n: usize, f: impl FnMut(usize) -> String) -> String {
    (0..n).map(f).collect()
}

fn main_text(html: &str) -> String {
    let mut out = String::new();
    extract(html, &mut out);
    out
}

/// A welcome text of short sentences and many commas: it outscores short articles.
fn blurb() -> String {
    (0..12)
        .map(|i| format!("Welcome, friend, to our site, number {i}, read on, enjoy, share, smile."))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A class page of an API site whose summary is the lists of methods it inherits: long
/// lists of links with commas between them, which must not outscore the class's
/// description by the commas between their links (they are left out of the text as link
/// lists), so the page's main content is its description and not the lists' headings.
/// [`commas`] as it was first written: each character decoded and compared.
fn commas_by_char(s: &str) -> usize {
    s.chars()
        .filter(|c| {
            matches!(
                c,
                ',' | '\u{060C}'
                    | '\u{FE50}'
                    | '\u{FE10}'
                    | '\u{FE11}'
                    | '\u{2E41}'
                    | '\u{2E34}'
                    | '\u{2E32}'
                    | '\u{FF0C}'
                    | '\u{3001}'
            )
        })
        .count()
}

const P1: &str = "The first paragraph of the story, long enough to score, with a comma or two, and more words after them.";
const P2: &str = "A second paragraph that goes on about the same subject, again with commas, clauses, and a full stop.";
