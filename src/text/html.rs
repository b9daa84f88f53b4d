//! HTML to text in one forward pass.
//!
//! A tag scanner, not a tree builder: it keeps no element stack, so deep nesting, unclosed
//! tags and pages with hundreds of thousands of attributes all take time linear in the input
//! and memory linear in the output. The content of `script`, `style`, `noscript` and `template`
//! is dropped, comments and doctypes are dropped, character references are decoded, and
//! block-level elements become line breaks. Everything else contributes its text.
//!
//! [`to_main_text`] keeps the page's main content only (`--text main`), by rules read off the
//! markup in the same single pass: the elements that hold a page's frame (`nav`, `header`,
//! `footer`, `aside`, and any element whose `class`, `id` or `role` names navigation, menus,
//! sidebars, banners, breadcrumbs, tables of contents, sharing or comments) are dropped with
//! their content, and where the page marks its main content (`<main>`, `role="main"`, else
//! its first `<article>`) only that element's text is kept.

use super::entities::{self, Decoded};
use super::normalize::TextBuilder;

/// Elements whose content is not text (raw text up to the matching end tag).
const SKIPPED: [&[u8]; 6] = [
    b"script",
    b"style",
    b"noscript",
    b"template",
    b"svg",
    b"math",
];

/// Extracts the text of `html` into `out` (appending).
pub fn to_text(html: &str, out: &mut String) {
    scan(html, false, out);
}

/// Extracts the main content's text of `html` into `out` (appending): see the module's notes.
pub fn to_main_text(html: &str, out: &mut String) {
    let from = out.len();
    let region = scan(html, true, out);
    if let Some((a, b)) = region {
        // Only the main element's text: what came before and after it is dropped.
        let kept = out[from + a..from + b].trim().to_string();
        out.truncate(from);
        out.push_str(&kept);
    }
}

/// Elements a page's frame is made of, dropped with their content in main-content mode.
const FRAME: [&[u8]; 4] = [b"nav", b"header", b"footer", b"aside"];

/// Words of `class`, `id` and `role` values that mark an element as the page's frame: matched
/// as parts of a value (`sidebar` in `sphinxsidebar`).
const FRAME_WORDS: [&[u8]; 12] = [
    b"navbar",
    b"navigation",
    b"menu",
    b"sidebar",
    b"footer",
    b"breadcrumb",
    b"banner",
    b"cookie",
    b"social",
    b"share",
    b"comment",
    b"contentinfo",
];

/// Short words that mark the frame only as a whole word of a value (`nav`, not `canvas`).
const FRAME_TOKENS: [&[u8]; 6] = [
    b"nav",
    b"toc",
    b"header",
    b"related",
    b"complementary",
    b"search",
];

/// Elements that hold a page's parts, judged by their `class`, `id` and `role`.
fn is_container(name: &[u8]) -> bool {
    matches!(
        name,
        b"div"
            | b"section"
            | b"ul"
            | b"ol"
            | b"dl"
            | b"table"
            | b"form"
            | b"menu"
            | b"nav"
            | b"header"
            | b"footer"
            | b"aside"
            | b"main"
            | b"article"
    )
}

/// Elements that never have content (their start tag is the whole element).
fn is_void(name: &[u8]) -> bool {
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

/// The values of the `class`, `id` and `role` attributes of a start tag's attribute bytes,
/// lowercased and joined by spaces, into `out` (cleared first).
fn marks(attrs: &[u8], out: &mut Vec<u8>) {
    out.clear();
    if memchr::memchr(b'=', attrs).is_none() {
        return;
    }
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
        if name.eq_ignore_ascii_case(b"class")
            || name.eq_ignore_ascii_case(b"id")
            || name.eq_ignore_ascii_case(b"role")
        {
            out.extend(attrs[vs..ve.min(n)].iter().map(u8::to_ascii_lowercase));
            out.push(b' ');
        }
    }
}

/// Whether a start tag's marks (see [`marks`]) name the page's frame.
fn is_frame(marks: &[u8]) -> bool {
    let has = |w: &[u8]| memchr::memmem::find(marks, w).is_some();
    FRAME_WORDS.iter().any(|w| has(w))
        || marks
            .split(|c| !c.is_ascii_alphanumeric())
            .any(|t| FRAME_TOKENS.contains(&t))
}

/// Whether a start tag's marks name the main content.
fn is_main_role(marks: &[u8]) -> bool {
    marks
        .split(|c| c.is_ascii_whitespace())
        .any(|t| t == b"main")
}

/// Skips the element `name` whose start tag ends at `from`, nested elements of the same name
/// included, to just past its end tag (or the end of the page).
fn skip_element(b: &[u8], from: usize, name: &[u8]) -> usize {
    let n = b.len();
    let mut depth = 1usize;
    let mut i = from;
    while let Some(p) = memchr::memchr(b'<', &b[i..]) {
        let at = i + p + 1;
        let closing = b.get(at) == Some(&b'/');
        let s = at + usize::from(closing);
        let cand = &b[s..(s + name.len()).min(n)];
        let after = b.get(s + name.len()).copied().unwrap_or(b'>');
        if cand.eq_ignore_ascii_case(name)
            && (after == b'>' || after.is_ascii_whitespace() || after == b'/')
        {
            let end = tag_end(b, s + name.len());
            if closing {
                depth -= 1;
                if depth == 0 {
                    return end;
                }
            } else if !b[..end].ends_with(b"/>") {
                depth += 1;
            }
            i = end;
        } else {
            i = at;
        }
    }
    n
}

/// The main element being read: its name, nesting depth, and where its text starts in the
/// output.
struct MainAt {
    name: Vec<u8>,
    depth: usize,
    start: usize,
    /// `main` or `role="main"`, not an `article`.
    is_main: bool,
}

/// One pass over `html` into `out`; with `main`, the frame is dropped and the byte range of
/// `out` (relative to its length on entry) holding the main element's text is returned, when
/// the page marks one.
fn scan(html: &str, main: bool, out: &mut String) -> Option<(usize, usize)> {
    let base = out.len();
    let mut open: Option<MainAt> = None;
    let mut region: Option<(usize, usize)> = None;
    let mut article: Option<(usize, usize)> = None;
    // What each distinct set of marks decided (pages repeat their classes).
    let mut decided: std::collections::HashMap<&[u8], (bool, bool), foldhash::fast::RandomState> =
        Default::default();
    let mut m = Vec::new();
    let mut tb = TextBuilder::new(out);
    let b = html.as_bytes();
    let n = b.len();
    let mut i = 0;
    while i < n {
        let Some(p) = memchr::memchr(b'<', &b[i..]) else {
            text(html, i, n, &mut tb);
            break;
        };
        text(html, i, i + p, &mut tb);
        i += p;
        // b[i] == b'<'
        let next = b.get(i + 1).copied().unwrap_or(b' ');
        if b[i..].starts_with(b"<!--") {
            i = memchr::memmem::find(&b[i + 4..], b"-->").map_or(n, |e| i + 4 + e + 3);
        } else if next == b'!' || next == b'?' {
            i = memchr::memchr(b'>', &b[i..]).map_or(n, |e| i + e + 1);
        } else if next == b'/' || next.is_ascii_alphabetic() {
            let closing = next == b'/';
            let name_start = i + 1 + usize::from(closing);
            let name_len = b[name_start..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-' || **c == b':')
                .count();
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
            let attrs = &b[name_start + name_len..end];
            i = end;
            if main && !closing && !name.is_empty() && !is_void(name) && !attrs.ends_with(b"/>") {
                // Only containers are judged by their marks: inline elements (links, spans,
                // code), most of a page's tags, are read as they are. A page repeats its
                // containers' attributes, so each distinct one is judged once.
                let (frame, main_role) = if !is_container(name) || attrs.len() < 4 {
                    (false, false)
                } else if let Some(d) = decided.get(attrs) {
                    *d
                } else {
                    marks(attrs, &mut m);
                    let d = if m.is_empty() {
                        (false, false)
                    } else {
                        (is_frame(&m), is_main_role(&m))
                    };
                    decided.insert(attrs, d);
                    d
                };
                if frame || FRAME.contains(&name) {
                    i = skip_element(b, i, name);
                    tb.brk();
                    continue;
                }
                let starts_main = name == b"main" || main_role;
                match &mut open {
                    Some(o) if o.name == name => o.depth += 1,
                    None if region.is_none() && (starts_main || name == b"article") => {
                        tb.brk();
                        open = Some(MainAt {
                            name: name.to_vec(),
                            depth: 1,
                            start: tb.len() - base,
                            is_main: starts_main,
                        });
                        continue;
                    }
                    _ => {}
                }
            }
            if main && closing {
                if let Some(o) = &mut open {
                    if o.name == name {
                        o.depth -= 1;
                        if o.depth == 0 {
                            tb.brk();
                            let r = (o.start, tb.len() - base);
                            // An article stands for the main content only where nothing is
                            // marked as it: a `main` found later wins.
                            if o.is_main {
                                region = Some(r);
                            } else {
                                article.get_or_insert(r);
                            }
                            open = None;
                            continue;
                        }
                    }
                }
            }
            if !closing && SKIPPED.contains(&name) {
                // A self-closing `<svg/>` has no content to skip.
                if !b[..end].ends_with(b"/>") {
                    i = skip_raw_text(b, i, name);
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
    if let Some(o) = open {
        // A main element never closed runs to the end of the page.
        let r = (o.start, tb.len() - base);
        if o.is_main {
            region = Some(r);
        } else {
            article.get_or_insert(r);
        }
    }
    region.or(article)
}

/// Appends html[from..to] with character references decoded.
fn text(html: &str, from: usize, to: usize, tb: &mut TextBuilder<'_>) {
    if from >= to {
        return;
    }
    let seg = &html[from..to];
    let bytes = seg.as_bytes();
    let mut i = 0;
    let mut run = 0;
    while let Some(p) = memchr::memchr(b'&', &bytes[i..]) {
        let amp = i + p;
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

/// Index just past the `>` that closes a tag whose attributes start at `from`. Quotes matter
/// only for attribute values (after `=`), as in browsers.
fn tag_end(b: &[u8], from: usize) -> usize {
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

/// Skips raw text up to and including `</name ...>`, case-insensitively.
fn skip_raw_text(b: &[u8], from: usize, name: &[u8]) -> usize {
    let mut i = from;
    let finder = memchr::memmem::Finder::new(b"</");
    while let Some(p) = finder.find(&b[i..]) {
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

fn is_block(name: &[u8]) -> bool {
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
    use super::{to_main_text, to_text};

    fn main_text(html: &str) -> String {
        let mut out = String::new();
        to_main_text(html, &mut out);
        out
    }

    #[test]
    fn main_content_drops_the_frame() {
        let page = "<html><body><header><a>Home</a> <a>Docs</a></header>\
            <div class=\"sphinxsidebar\"><div><ul><li>Contents</li></ul></div></div>\
            <nav>Previous | Next</nav><div id=main-body><h1>Title</h1><p>The text.</p>\
            <div class='canvas'>kept</div><ul class=\"nav-link\"><li>gone</li></ul></div>\
            <footer>(c) 2024</footer><div role=navigation>menu</div></body></html>";
        assert_eq!(main_text(page), "Title\nThe text.\nkept");
        // The whole page is read where nothing is marked.
        assert_eq!(
            to_text_of("<p>a</p><p>b</p>"),
            main_text("<p>a</p><p>b</p>")
        );
    }

    fn to_text_of(html: &str) -> String {
        let mut out = String::new();
        to_text(html, &mut out);
        out
    }

    #[test]
    fn a_marked_main_element_is_all_that_is_kept() {
        let page = "<p>before</p><main><p>one</p><main>inner</main><p>two</p></main><p>after</p>";
        assert_eq!(main_text(page), "one\ninner\ntwo");
        let role = "<div>x</div><div role=\"main\"><div>in</div><p>more</p></div><div>y</div>";
        assert_eq!(main_text(role), "in\nmore");
        // An article stands for it where no main is marked; a later main wins.
        assert_eq!(
            main_text("<p>a</p><article>story</article><p>b</p>"),
            "story"
        );
        assert_eq!(
            main_text("<article>story</article><main>body</main>"),
            "body"
        );
        // Never closed: to the end of the page.
        assert_eq!(main_text("<p>a</p><main><p>rest"), "rest");
        // A frame element never closed drops the rest, and no more.
        assert_eq!(main_text("<p>a</p><nav><p>b"), "a");
    }

    #[test]
    fn main_content_is_linear_on_hostile_pages() {
        let deep = "<nav>".repeat(50_000) + "x" + &"</nav>".repeat(50_000) + "after";
        assert_eq!(main_text(&deep), "after");
        let many = "<div class=menu>m</div>".repeat(50_000) + "end";
        assert_eq!(main_text(&many), "end");
        let attrs: String = (0..100_000).map(|i| format!(" class=\"c{i}\"")).collect();
        assert_eq!(main_text(&format!("<div{attrs}>x</div>")), "x");
    }

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
