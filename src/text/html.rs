//! HTML to text in one forward pass.
//!
//! A tag scanner, not a tree builder: it keeps no element stack, so deep nesting, unclosed
//! tags and pages with hundreds of thousands of attributes all take time linear in the input
//! and memory linear in the output. The content of `script`, `style`, `noscript` and `template`
//! is dropped, comments and doctypes are dropped, character references are decoded, and
//! block-level elements become line breaks. Everything else contributes its text.
//!
//! The page's main content only (`--text main`) is [`super::main_content`]'s, which uses the
//! helpers here.

use super::entities::{self, Decoded};
use super::normalize::TextBuilder;
use super::structure::Index;

/// Elements whose content is not text (raw text up to the matching end tag). A literal match
/// compiles to a switch on the length and word compares, not a call to `memcmp` a name.
pub(super) fn is_skipped(name: &[u8]) -> bool {
    matches!(
        name,
        b"script" | b"style" | b"noscript" | b"template" | b"svg" | b"math"
    )
}

/// Extracts the text of `html` into `out` (appending).
pub fn to_text(html: &str, out: &mut String) {
    scan(html, out, false);
}

/// As [`to_text`], with the content of `noscript` and `template` read as text: for a page
/// whose text is nothing without them (its script renders what `noscript` holds).
pub fn to_text_with_inert(html: &str, out: &mut String) {
    scan(html, out, true);
}

/// Elements that never have content (their start tag is the whole element).
pub(super) fn is_void(name: &[u8]) -> bool {
    matches!(
        name,
        b"area"
            | b"base"
            | b"br"
            | b"col"
            | b"embed"
            | b"hr"
            | b"img"
            | b"input"
            | b"link"
            | b"meta"
            | b"source"
            | b"track"
            | b"wbr"
    )
}

/// Calls `f` with each attribute's name and value (the value unquoted, empty for a bare
/// name) of a start tag's attribute bytes.
pub(super) fn attributes(attrs: &[u8], mut f: impl FnMut(&[u8], &[u8])) {
    let n = attrs.len();
    let mut i = 0;
    while i < n {
        // An attribute name.
        while i < n && (attrs[i].is_ascii_whitespace() || attrs[i] == b'/') {
            i += 1;
        }
        let s = i;
        while i < n && !attrs[i].is_ascii_whitespace() && !matches!(attrs[i], b'=' | b'>' | b'/') {
            i += 1;
        }
        let name = &attrs[s..i];
        while i < n && attrs[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= n || attrs[i] != b'=' {
            if i == s {
                i += 1;
            } else {
                f(name, b"");
            }
            continue;
        }
        i += 1;
        while i < n && attrs[i].is_ascii_whitespace() {
            i += 1;
        }
        let (vs, ve) = if i < n && (attrs[i] == b'"' || attrs[i] == b'\'') {
            let q = attrs[i];
            let e = memchr::memchr(q, &attrs[i + 1..]).map_or(n, |e| i + 1 + e);
            (i + 1, e)
        } else {
            let e = attrs[i..]
                .iter()
                .position(|c| c.is_ascii_whitespace() || *c == b'>')
                .map_or(n, |e| i + e);
            (i, e)
        };
        i = (ve + 1).min(n.max(ve));
        f(name, &attrs[vs..ve.min(n)]);
    }
}

thread_local! {
    /// This thread's structural index, kept for its next page.
    static INDEX: std::cell::RefCell<Index> = std::cell::RefCell::new(Index::default());
}

/// One pass over `html` into `out`.
fn scan(html: &str, out: &mut String, inert: bool) {
    INDEX.with(|index| {
        let mut index = index.borrow_mut();
        index.build(html.as_bytes());
        scan_indexed(html, out, inert, &index);
    });
}

/// [`scan`] over `html` and its structural index.
fn scan_indexed(html: &str, out: &mut String, inert: bool, index: &Index) {
    let mut tb = TextBuilder::new(out);
    let b = html.as_bytes();
    let n = b.len();
    let mut i = 0;
    while i < n {
        let p = index.next_lt(i);
        append_text(html, i, p, &mut tb, index);
        if p >= n {
            break;
        }
        i = p;
        // b[i] == b'<'
        let next = b.get(i + 1).copied().unwrap_or(b' ');
        if b[i..].starts_with(b"<!--") {
            i = memchr::memmem::find(&b[i + 4..], b"-->").map_or(n, |e| i + 4 + e + 3);
        } else if next == b'!' || next == b'?' {
            i = (index.next_gt(i) + 1).min(n);
        } else if next == b'/' || next.is_ascii_alphabetic() {
            let closing = next == b'/';
            let name_start = i + 1 + usize::from(closing);
            let name_len = name_len(b, name_start);
            let end = tag_end(b, name_start + name_len);
            if name_len == 0 {
                // `</ >` and friends are bogus comments.
                i = end;
                continue;
            }
            let mut lower = [0u8; 12];
            let name = &b[name_start..name_start + name_len];
            let short = name.len() <= lower.len();
            if short {
                for (d, s) in lower.iter_mut().zip(name) {
                    *d = s.to_ascii_lowercase();
                }
            }
            let name = &lower[..if short { name_len } else { 0 }];
            i = end;
            if !closing && is_skipped(name) && !(inert && matches!(name, b"noscript" | b"template"))
            {
                // A self-closing `<svg/>` has no content to skip.
                if !b[..end].ends_with(b"/>") {
                    i = skip_raw_text(b, i, name, index);
                }
                tb.brk();
            } else if is_block(name) {
                tb.brk();
            }
        } else {
            // A literal `<` in text.
            tb.text("<", false);
            i += 1;
        }
    }
}

/// Appends html[from..to] with character references decoded (`index` is `html`'s).
pub(super) fn append_text(
    html: &str,
    from: usize,
    to: usize,
    tb: &mut TextBuilder<'_>,
    index: &Index,
) {
    if from >= to {
        return;
    }
    decode_into(&html[from..to], tb, |i| index.next_amp(from + i, to) - from);
}

/// Appends `seg` with character references decoded, `next_amp(i)` giving the first `&` of
/// `seg` at or after `i` (or `seg.len()`).
fn decode_into(seg: &str, tb: &mut TextBuilder<'_>, mut next_amp: impl FnMut(usize) -> usize) {
    let bytes = seg.as_bytes();
    let mut i = 0;
    let mut run = 0;
    loop {
        let amp = next_amp(i);
        if amp >= bytes.len() {
            break;
        }
        match entities::decode(&bytes[amp..]) {
            Some((d, used)) => {
                tb.text(&seg[run..amp], false);
                let mut buf = [0u8; 4];
                let s = match d {
                    Decoded::Char(c) => &*c.encode_utf8(&mut buf),
                    Decoded::Str(s) => s,
                };
                tb.text(s, false);
                i = amp + used;
                run = i;
            }
            None => i = amp + 1,
        }
    }
    tb.text(&seg[run..], false);
}

/// The length of the element name at `b[from..]`: ASCII letters, digits, `-` and `:`.
pub(super) fn name_len(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|c| !NAME_BYTE[usize::from(*c)])
        .unwrap_or(b.len() - from)
}

/// The bytes of an element name ([`name_len`]), one lookup a byte.
static NAME_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'-' || b == b':';
        c += 1;
    }
    t
};

/// Index just past the `>` that closes a tag whose attributes start at `from`. Quotes matter
/// only for attribute values (after `=`), as in browsers.
pub(super) fn tag_end(b: &[u8], from: usize) -> usize {
    let n = b.len();
    let mut i = from;
    while i < n {
        match b[i] {
            b'>' => return i + 1,
            b'=' => {
                i += 1;
                while i < n && b[i].is_ascii_whitespace() {
                    i += 1;
                }
                if i < n && (b[i] == b'"' || b[i] == b'\'') {
                    let q = b[i];
                    i = memchr::memchr(q, &b[i + 1..]).map_or(n, |e| i + 1 + e + 1);
                }
            }
            _ => i += 1,
        }
    }
    n
}

/// Skips raw text up to and including `</name ...>`, case-insensitively (`index` is `b`'s).
pub(super) fn skip_raw_text(b: &[u8], from: usize, name: &[u8], index: &Index) -> usize {
    let mut i = from;
    loop {
        let lt = index.next_lt(i);
        if lt >= b.len() {
            return b.len();
        }
        i = lt + 1;
        if b.get(i) != Some(&b'/') {
            continue;
        }
        let at = lt + 2;
        let cand = &b[at..(at + name.len()).min(b.len())];
        if cand.eq_ignore_ascii_case(name) {
            let after = b.get(at + name.len()).copied().unwrap_or(b'>');
            if after == b'>' || after.is_ascii_whitespace() || after == b'/' {
                return tag_end(b, at + name.len());
            }
        }
        i = at;
    }
}

pub(super) fn is_block(name: &[u8]) -> bool {
    matches!(
        name,
        b"address"
            | b"article"
            | b"aside"
            | b"blockquote"
            | b"body"
            | b"br"
            | b"caption"
            | b"dd"
            | b"details"
            | b"dialog"
            | b"div"
            | b"dl"
            | b"dt"
            | b"fieldset"
            | b"figcaption"
            | b"figure"
            | b"footer"
            | b"form"
            | b"h1"
            | b"h2"
            | b"h3"
            | b"h4"
            | b"h5"
            | b"h6"
            | b"head"
            | b"header"
            | b"hr"
            | b"html"
            | b"li"
            | b"main"
            | b"nav"
            | b"ol"
            | b"option"
            | b"p"
            | b"pre"
            | b"section"
            | b"summary"
            | b"table"
            | b"tbody"
            | b"td"
            | b"tfoot"
            | b"th"
            | b"thead"
            | b"title"
            | b"tr"
            | b"ul"
    )
}

#[cfg(test)]
mod tests {
    use super::to_text;

    fn text(html: &str) -> String {
        let mut out = String::new();
        to_text(html, &mut out);
        out
    }

    #[test]
    fn strips_markup_and_keeps_text() {
        let html = "<!DOCTYPE html><html><head><title>T &amp; U</title>\
            <script>var x = '<p>no</p>';</script><style>p{}</style></head>\
            <body><!-- c --><p>Hello <b>wor</b>ld&nbsp;!</p><div>Next<br>line</div>\
            <noscript>hidden</noscript><template><p>tpl</p></template>\
            <a href=\"x>y\" title='a>b'>link</a> 1 < 2</body></html>";
        assert_eq!(text(html), "T & U\nHello world !\nNext\nline\nlink 1 < 2");
    }

    #[test]
    fn raw_text_end_tag_is_case_insensitive_and_unterminated_is_dropped() {
        assert_eq!(text("a<SCRIPT>x</Script >b"), "a\nb");
        assert_eq!(text("a<style>never closed"), "a");
        assert_eq!(text("a<!-- never closed"), "a");
        assert_eq!(text("a<p class='never closed"), "a");
    }

    /// The scanner as it was before the structural index: a search from each position for
    /// the next `<`, `&` and `>`, and `</` in raw text.
    fn searched(html: &str, inert: bool) -> String {
        use super::{is_block, is_skipped, tag_end, TextBuilder};
        // References are decoded as the scanner decodes them; the `&` is searched for.
        fn append(seg: &str, tb: &mut TextBuilder<'_>) {
            let bytes = seg.as_bytes();
            super::decode_into(seg, tb, |i| {
                memchr::memchr(b'&', &bytes[i..]).map_or(bytes.len(), |p| i + p)
            });
        }
        fn skip_raw(b: &[u8], from: usize, name: &[u8]) -> usize {
            let mut i = from;
            while let Some(p) = memchr::memmem::find(&b[i..], b"</") {
                let at = i + p + 2;
                let cand = &b[at..(at + name.len()).min(b.len())];
                if cand.eq_ignore_ascii_case(name) {
                    let after = b.get(at + name.len()).copied().unwrap_or(b'>');
                    if after == b'>' || after.is_ascii_whitespace() || after == b'/' {
                        return tag_end(b, at + name.len());
                    }
                }
                i = at;
            }
            b.len()
        }
        let mut out = String::new();
        let mut tb = TextBuilder::new(&mut out);
        let b = html.as_bytes();
        let n = b.len();
        let mut i = 0;
        while i < n {
            let Some(p) = memchr::memchr(b'<', &b[i..]) else {
                append(&html[i..], &mut tb);
                break;
            };
            append(&html[i..i + p], &mut tb);
            i += p;
            let next = b.get(i + 1).copied().unwrap_or(b' ');
            if b[i..].starts_with(b"<!--") {
                i = memchr::memmem::find(&b[i + 4..], b"-->").map_or(n, |e| i + 4 + e + 3);
            } else if next == b'!' || next == b'?' {
                i = memchr::memchr(b'>', &b[i..]).map_or(n, |e| i + e + 1);
            } else if next == b'/' || next.is_ascii_alphabetic() {
                let closing = next == b'/';
                let name_start = i + 1 + usize::from(closing);
                let name_len = super::name_len(b, name_start);
                let end = tag_end(b, name_start + name_len);
                i = end;
                if name_len == 0 {
                    continue;
                }
                let name = b[name_start..name_start + name_len].to_ascii_lowercase();
                let name = if name.len() <= 12 { &name[..] } else { &[][..] };
                if !closing
                    && is_skipped(name)
                    && !(inert && matches!(name, b"noscript" | b"template"))
                {
                    if !b[..end].ends_with(b"/>") {
                        i = skip_raw(b, i, name);
                    }
                    tb.brk();
                } else if is_block(name) {
                    tb.brk();
                }
            } else {
                tb.text("<", false);
                i += 1;
            }
        }
        out
    }

    #[test]
    fn the_indexed_scan_equals_searching_on_random_html() {
        // Tag soup: tags with quoted and bare values, comments, raw text with false end tags,
        // character references, literal `<` and `&`, long text runs across 64-byte blocks.
        let pieces = [
            "<p>",
            "</p>",
            "<div class=\"a > b\">",
            "<a href='x&amp;y'>",
            "</a>",
            "<br/>",
            "<!-- c > d -->",
            "<!doctype html>",
            "<?pi x?>",
            "<script>if (a < b) x = '</scr' + 'ipt>';</script>",
            "<style>p{}</STYLE >",
            "<noscript><p>ns</p></noscript>",
            "<template>t</template>",
            "<svg/>",
            "&amp;",
            "&lt;",
            "&#x41;",
            "&nbsp;",
            "& ",
            "&nosuch;",
            " < 2 ",
            "<3",
            "word ",
            "  \n\t",
            "é ü ",
            "<b>",
            "</b>",
            "<h1 title=\"x=y\">",
            "</h1>",
            "<li>",
            "</ >",
            "<p class=unterminated",
            "<a title='never closed",
            "a long run of text with no markup in it at all, to cross a block or two of the index ",
        ];
        let mut rng = crate::base::rng::SplitMix64(23);
        for _ in 0..3000 {
            let html: String = (0..rng.below(40))
                .map(|_| pieces[rng.below(pieces.len() as u64) as usize])
                .collect();
            for inert in [false, true] {
                let mut got = String::new();
                super::scan(&html, &mut got, inert);
                assert_eq!(got, searched(&html, inert), "{html:?} inert {inert}");
            }
        }
    }

    #[test]
    fn hostile_pages_are_linear() {
        // 200k attributes and 100k nested divs: must finish quickly, in one pass.
        let attrs: String = (0..200_000).map(|i| format!(" a{i}=\"v\"")).collect();
        let html = format!("<div{attrs}>x</div>");
        assert_eq!(text(&html), "x");
        let deep = "<div>".repeat(100_000) + "deep" + &"</div>".repeat(100_000);
        assert_eq!(text(&deep), "deep");
        let lt = "<".repeat(100_000);
        assert_eq!(text(&lt).len(), 100_000);
    }
}
