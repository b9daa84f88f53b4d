//! Whitespace normalisation shared by HTML and plain-text payloads.
//!
//! The normalised text is what the content hash covers: runs of whitespace become one space,
//! or one newline where the run held a line break (a block element in HTML, a newline in plain
//! text); text starts and ends without whitespace. Two documents whose text differs only in
//! spacing therefore normalise to the same string.

/// Appends text to a string, collapsing whitespace.
pub struct TextBuilder<'a> {
    out: &'a mut String,
    pending: Gap,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Gap {
    None,
    Space,
    Break,
}

impl<'a> TextBuilder<'a> {
    /// Starts appending to `out` (normally empty).
    pub fn new(out: &'a mut String) -> Self {
        TextBuilder {
            out,
            pending: Gap::None,
        }
    }

    /// Marks a line break (a block boundary).
    pub fn brk(&mut self) {
        self.pending = Gap::Break;
    }

    /// Appends `s`; when `newline_breaks`, a newline in `s` counts as a line break.
    pub fn text(&mut self, s: &str, newline_breaks: bool) {
        let bytes = s.as_bytes();
        let (mut i, mut run) = (0, 0);
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                if matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\x0b') {
                    self.word(&s[run..i]);
                    self.gap(if newline_breaks && b == b'\n' {
                        Gap::Break
                    } else {
                        Gap::Space
                    });
                    i += 1;
                    run = i;
                } else {
                    i += 1;
                }
            } else {
                let c = s[i..].chars().next().unwrap_or(' ');
                let l = c.len_utf8();
                if c.is_whitespace() {
                    self.word(&s[run..i]);
                    self.gap(Gap::Space);
                    run = i + l;
                }
                i += l;
            }
        }
        self.word(&s[run..]);
    }

    fn gap(&mut self, g: Gap) {
        self.pending = self.pending.max(g);
    }

    fn word(&mut self, w: &str) {
        if w.is_empty() {
            return;
        }
        if !self.out.is_empty() {
            match self.pending {
                Gap::None => {}
                Gap::Space => self.out.push(' '),
                Gap::Break => self.out.push('\n'),
            }
        }
        self.pending = Gap::None;
        self.out.push_str(w);
    }
}

/// Normalises plain text into `out`.
pub fn plain(text: &str, out: &mut String) {
    TextBuilder::new(out).text(text, true);
}

#[cfg(test)]
mod tests {
    #[test]
    fn collapses_runs_and_trims() {
        let mut out = String::new();
        super::plain("  a \t b\n\n  c\u{a0}\u{2003}d  ", &mut out);
        assert_eq!(out, "a b\nc d");
    }

    #[test]
    fn adjacent_text_joins() {
        let mut out = String::new();
        let mut b = super::TextBuilder::new(&mut out);
        b.text("foo", false);
        b.text("bar ", false);
        b.brk();
        b.text(" baz", false);
        assert_eq!(out, "foobar\nbaz");
    }
}
