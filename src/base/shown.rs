//! Text shown on a terminal: ids, URLs, hosts and page text come from the crawl, and a crawl
//! may hold bytes that a terminal obeys rather than shows (ESC and OSC sequences that move the
//! cursor, rename the window or hide what follows; `&#27;` decodes to one) or Unicode's
//! bidirectional overrides (U+202E shows `exe.txt` as `txt.exe`). Everything neardup writes to
//! a terminal goes through [`terminal`] (one line, an id or a URL) or [`terminal_text`] (lines
//! of text), which write such characters as `\u{1b}`: visible, and never obeyed.

use std::borrow::Cow;

/// Whether `c` is a control character a terminal may obey, or a bidirectional control.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{200e}' | '\u{200f}' | '\u{061c}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{2028}' | '\u{2029}'
        )
}

fn escape(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| unsafe_char(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) && !keep(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` as one piece of a line (an id, a URL, a host): every control character, line breaks and
/// tabs included, and every bidirectional control escaped.
pub fn terminal(s: &str) -> Cow<'_, str> {
    escape(s, |_| false)
}

/// `s` as lines of text (a message, a diff): as [`terminal`], but line breaks and tabs stay.
pub fn terminal_text(s: &str) -> Cow<'_, str> {
    escape(s, |c| c == '\n' || c == '\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_terminal_obeys_is_shown_instead() {
        assert_eq!(terminal("plain id 7"), "plain id 7");
        assert!(matches!(terminal("plain"), Cow::Borrowed(_)));
        assert_eq!(terminal("a\x1b]0;owned\x07b"), "a\\u{1b}]0;owned\\u{7}b");
        assert_eq!(terminal("x\u{202e}txt.exe"), "x\\u{202e}txt.exe");
        assert_eq!(terminal("a\tb\nc"), "a\\u{9}b\\u{a}c");
        assert_eq!(terminal("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(terminal_text("a\tb\nc\x1b[2J"), "a\tb\nc\\u{1b}[2J");
        assert_eq!(terminal("héllo 日本"), "héllo 日本");
    }
}
