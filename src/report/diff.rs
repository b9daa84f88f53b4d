//! Word-level diffs of two texts: what a removed page shares with the kept page it was removed
//! for, and where they differ (`report.html`, `neardup explain`).
//!
//! Words are the texts' runs of non-blank characters, compared exactly; the diff is Myers'
//! (minimal in words) under a deadline, after which it may be longer than minimal but still
//! exact: the parts always spell out both texts. Long shared runs are cut to their first and
//! last words, and the parts stop after a word budget, so a pair of long pages gives a
//! bounded diff.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use similar::{capture_diff_slices_deadline, Algorithm, DiffTag};

/// How long one diff may search for the minimal one.
const DEADLINE: Duration = Duration::from_millis(200);

/// Which text a part is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// In both texts.
    Both,
    /// Only in the first (the removed page).
    Old,
    /// Only in the second (the kept page).
    New,
}

/// A run of words from one side, or shared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// Where the words are.
    pub side: Side,
    /// The words, joined by single spaces (a line break where the text had one); of a long
    /// shared run, its first words.
    pub text: String,
    /// Words left out after `text` (a long shared run is shown by its ends).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub elided: u64,
    /// Of a long shared run, its last words (empty otherwise).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tail: String,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A diff of two texts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diff {
    /// The parts, in reading order (an old run before the new run that replaces it).
    pub parts: Vec<Part>,
    /// Words of the first text, of the second, and shared by the two in the diff.
    pub old_words: u64,
    pub new_words: u64,
    pub shared_words: u64,
    /// Words not shown: the parts stopped at the word budget.
    pub cut_words: u64,
}

/// How a diff is shown.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// A shared run longer than twice this is shown by this many words at each end.
    pub context: usize,
    /// Words shown at most, over all parts.
    pub budget: usize,
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            context: 24,
            budget: 4000,
        }
    }
}

/// A word and whether a line break follows it.
fn words(text: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    for line in text.split('\n') {
        let start = out.len();
        out.extend(line.split_whitespace().map(|w| (w, false)));
        if out.len() > start {
            if let Some(last) = out.last_mut() {
                last.1 = true;
            }
        }
    }
    out
}

/// Bytes of a word shown at most: a longer one (a page's 300 kB "word" of base64) is shown cut,
/// with an ellipsis, so that a diff's size is bounded by its word budget.
pub const MAX_WORD: usize = 200;

/// `s` cut to at most `max` bytes at a character boundary, with an ellipsis when cut.
pub fn bounded(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= max {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}…", &s[..end]))
}

fn join(words: &[(&str, bool)], out: &mut String) {
    for (i, (w, brk)) in words.iter().enumerate() {
        out.push_str(&bounded(w, MAX_WORD));
        if i + 1 < words.len() {
            out.push(if *brk { '\n' } else { ' ' });
        }
    }
}

/// The word diff of `old` against `new`, shown as `shape` says.
pub fn diff(old: &str, new: &str, shape: Shape) -> Diff {
    let a = words(old);
    let b = words(new);
    let (ka, kb): (Vec<&str>, Vec<&str>) = (
        a.iter().map(|w| w.0).collect(),
        b.iter().map(|w| w.0).collect(),
    );
    let ops =
        capture_diff_slices_deadline(Algorithm::Myers, &ka, &kb, Some(Instant::now() + DEADLINE));
    let mut d = Diff {
        old_words: a.len() as u64,
        new_words: b.len() as u64,
        ..Diff::default()
    };
    let mut left = shape.budget;
    let mut push = |d: &mut Diff, side: Side, run: &[(&str, bool)]| {
        if run.is_empty() {
            return;
        }
        if side == Side::Both {
            d.shared_words += run.len() as u64;
        }
        let c = shape.context;
        let mut text = String::new();
        let mut tail = String::new();
        let mut elided = 0;
        if side == Side::Both && run.len() > 2 * c + 1 && left >= 2 * c {
            // A long shared run by its two ends.
            join(&run[..c], &mut text);
            join(&run[run.len() - c..], &mut tail);
            elided = (run.len() - 2 * c) as u64;
            left -= 2 * c;
        } else {
            let shown = run.len().min(left);
            d.cut_words += (run.len() - shown) as u64;
            if shown == 0 {
                return;
            }
            join(&run[..shown], &mut text);
            left -= shown;
        }
        d.parts.push(Part {
            side,
            text,
            elided,
            tail,
        });
    };
    for op in &ops {
        let (tag, ra, rb) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => push(&mut d, Side::Both, &a[ra]),
            DiffTag::Delete => push(&mut d, Side::Old, &a[ra]),
            DiffTag::Insert => push(&mut d, Side::New, &b[rb]),
            DiffTag::Replace => {
                push(&mut d, Side::Old, &a[ra]);
                push(&mut d, Side::New, &b[rb]);
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The longest common subsequence of two word lists, by the textbook table.
    fn lcs(a: &[&str], b: &[&str]) -> usize {
        let mut t = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                t[i][j] = if a[i] == b[j] {
                    t[i + 1][j + 1] + 1
                } else {
                    t[i + 1][j].max(t[i][j + 1])
                };
            }
        }
        t[0][0]
    }

    fn side_words(d: &Diff, keep: Side) -> Vec<String> {
        d.parts
            .iter()
            .filter(|p| p.side == Side::Both || p.side == keep)
            .flat_map(|p| {
                p.text
                    .split_whitespace()
                    .chain(p.tail.split_whitespace())
                    .map(str::to_string)
            })
            .collect()
    }

    #[test]
    fn parts_spell_both_texts_and_share_the_longest_common_words() {
        let vocab = ["a", "b", "c", "d", "the", "page"];
        let mut rng = crate::base::rng::SplitMix64(5);
        let wide = Shape {
            context: 1000,
            budget: usize::MAX,
        };
        for _ in 0..400 {
            let mut text = |n: u64| {
                (0..rng.below(n))
                    .map(|_| vocab[rng.below(vocab.len() as u64) as usize])
                    .collect::<Vec<_>>()
            };
            let (a, b) = (text(30), text(30));
            let d = diff(&a.join(" "), &b.join(" "), wide);
            assert_eq!(side_words(&d, Side::Old), a, "{a:?} {b:?}");
            assert_eq!(side_words(&d, Side::New), b, "{a:?} {b:?}");
            assert_eq!(d.shared_words as usize, lcs(&a, &b), "{a:?} {b:?}");
            assert_eq!((d.old_words, d.new_words), (a.len() as u64, b.len() as u64));
        }
    }

    #[test]
    fn long_shared_runs_show_their_ends_and_the_budget_holds() {
        let shared: Vec<String> = (0..500).map(|i| format!("w{i}")).collect();
        let old = format!("{} only-old", shared.join(" "));
        let new = format!("{}\nonly-new", shared.join(" "));
        let d = diff(
            &old,
            &new,
            Shape {
                context: 5,
                budget: 100,
            },
        );
        assert_eq!(d.parts[0].side, Side::Both);
        assert_eq!(d.parts[0].elided, 490);
        assert_eq!(d.parts[0].text, "w0 w1 w2 w3 w4");
        assert_eq!(d.parts[0].tail, "w495 w496 w497 w498 w499");
        assert_eq!(
            d.parts[1],
            Part {
                side: Side::Old,
                text: "only-old".into(),
                elided: 0,
                tail: String::new(),
            }
        );
        assert_eq!(d.parts[2].text, "only-new");
        assert_eq!(d.shared_words, 500);
        let tight = diff(
            &old,
            &new,
            Shape {
                context: 500,
                budget: 100,
            },
        );
        let shown: usize = tight
            .parts
            .iter()
            .map(|p| p.text.split_whitespace().count())
            .sum();
        assert_eq!(shown, 100);
        assert_eq!(tight.cut_words, 402);
    }

    #[test]
    fn line_breaks_survive_inside_a_part() {
        let d = diff("one two\nthree", "one two\nthree", Shape::default());
        assert_eq!(
            d.parts,
            vec![Part {
                side: Side::Both,
                text: "one two\nthree".into(),
                elided: 0,
                tail: String::new(),
            }]
        );
    }
}
