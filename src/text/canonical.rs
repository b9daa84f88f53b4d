//! Canonical links: `<link rel="canonical" href="...">` in a page's head and
//! `Link: <...>; rel="canonical"` in its HTTP headers, resolved against the page's URL
//! (WHATWG URL rules, by the `url` crate) and without their fragment.
//!
//! The HTML scan is a tag scanner over the head only (up to `</head>`, `<body`, or the first
//! 512 KiB): linear, no tree, attributes quoted or not, character references decoded in the
//! href. The first canonical link wins, the HTTP header's before the page's.

use super::entities::{self, Decoded};

/// Bytes of a page searched for its head's canonical link.
const HEAD_LIMIT: usize = 512 << 10;

/// A tag's attribute: its name as written, and its value with references decoded.
type Attribute<'a> = (&'a [u8], Vec<u8>);

/// The attributes of the tag whose name ends at `html[at]`, and the position after the tag.
fn attributes(html: &[u8], mut at: usize) -> (Vec<Attribute<'_>>, usize) {
    let mut out = Vec::new();
    let n = html.len();
    loop {
        while at < n && (html[at].is_ascii_whitespace() || html[at] == b'/') {
            at += 1;
        }
        if at >= n || html[at] == b'>' {
            return (out, (at + 1).min(n));
        }
        let start = at;
        while at < n && !html[at].is_ascii_whitespace() && !matches!(html[at], b'=' | b'>' | b'/') {
            at += 1;
        }
        let name = &html[start..at];
        while at < n && html[at].is_ascii_whitespace() {
            at += 1;
        }
        let mut value = Vec::new();
        if at < n && html[at] == b'=' {
            at += 1;
            while at < n && html[at].is_ascii_whitespace() {
                at += 1;
            }
            let (vs, ve) = match html.get(at) {
                Some(&q @ (b'"' | b'\'')) => {
                    let end = memchr::memchr(q, &html[at + 1..]).map_or(n, |e| at + 1 + e);
                    let r = (at + 1, end);
                    at = (end + 1).min(n);
                    r
                }
                _ => {
                    let s = at;
                    while at < n && !html[at].is_ascii_whitespace() && html[at] != b'>' {
                        at += 1;
                    }
                    (s, at)
                }
            };
            value = decode(&html[vs..ve]);
        }
        if name.is_empty() {
            at += 1;
        } else {
            out.push((name, value));
        }
    }
}

/// Character references decoded.
fn decode(v: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len());
    let mut i = 0;
    while i < v.len() {
        if v[i] == b'&' {
            if let Some((d, used)) = entities::decode(&v[i..]) {
                let mut buf = [0u8; 4];
                match d {
                    Decoded::Char(c) => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
                    Decoded::Str(s) => out.extend_from_slice(s.as_bytes()),
                }
                i += used;
                continue;
            }
        }
        out.push(v[i]);
        i += 1;
    }
    out
}

fn rel_is_canonical(rel: &[u8]) -> bool {
    rel.split(|b| b.is_ascii_whitespace())
        .any(|t| t.eq_ignore_ascii_case(b"canonical"))
}

/// Whether `rest` (what follows a `<`) opens the tag `tag`, in any case.
fn opens(rest: &[u8], tag: &[u8]) -> bool {
    rest.len() > tag.len()
        && rest[..tag.len()].eq_ignore_ascii_case(tag)
        && !rest[tag.len()].is_ascii_alphanumeric()
}

/// The position just after the `<` of the next tag of the head of `html` from `at`, comments
/// passed over; None at the head's end (`</head>`, `<body`) or `html`'s.
fn next_head_tag(html: &[u8], mut at: usize) -> Option<usize> {
    while let Some(lt) = memchr::memchr(b'<', &html[at..]) {
        at += lt + 1;
        let rest = &html[at..];
        if opens(rest, b"/head") || opens(rest, b"body") {
            return None;
        }
        if opens(rest, b"!--") {
            // A comment: skip to its end.
            at += memchr::memmem::find(rest, b"-->")? + 3;
            continue;
        }
        return Some(at);
    }
    None
}

/// The bytes of the first `<title>` in the head of `html`, as written (references not
/// decoded, whitespace kept): what a page says it is about, for telling its copies from other
/// pages of its site ([`super::blocks::title_key`]).
pub fn title(html: &[u8]) -> Option<&[u8]> {
    let html = &html[..html.len().min(HEAD_LIMIT)];
    let mut at = 0;
    while let Some(tag) = next_head_tag(html, at) {
        at = tag;
        let rest = &html[at..];
        if opens(rest, b"title") {
            let open = at + memchr::memchr(b'>', rest)? + 1;
            // The title's text runs to its end tag (raw text: no other tag ends it).
            let mut end = open;
            while let Some(e) = memchr::memchr(b'<', &html[end..]) {
                end += e;
                let tail = &html[end + 1..];
                if tail.len() >= 6 && tail[..6].eq_ignore_ascii_case(b"/title") {
                    return Some(&html[open..end]);
                }
                end += 1;
            }
            return None;
        }
    }
    None
}

/// The value of the attribute `name` (in any case) among `attrs`, references decoded.
fn get<'a>(attrs: &'a [Attribute<'_>], name: &[u8]) -> Option<&'a [u8]> {
    attrs
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_slice())
}

/// The first value `pick` gives for a `<tag>` in the head of `html`: it is handed each such
/// tag's attributes in turn, and the first trimmed, non-empty value it returns is the answer.
fn first_in_head(
    html: &[u8],
    tag: &[u8],
    pick: impl for<'a> Fn(&'a [Attribute<'_>]) -> Option<&'a [u8]>,
) -> Option<String> {
    let html = &html[..html.len().min(HEAD_LIMIT)];
    let mut at = 0;
    while let Some(start) = next_head_tag(html, at) {
        at = start;
        if opens(&html[at..], tag) {
            let (attrs, next) = attributes(html, at + tag.len());
            at = next;
            if let Some(value) = pick(&attrs) {
                let value = String::from_utf8_lossy(value).trim().to_string();
                if !value.is_empty() {
                    return Some(value);
                }
            }
        }
    }
    None
}

/// The href of the first `<link rel="canonical">` in the head of `html`, as written (its
/// character references decoded).
pub fn from_html(html: &[u8]) -> Option<String> {
    first_in_head(html, b"link", |attrs| {
        get(attrs, b"rel")
            .is_some_and(rel_is_canonical)
            .then(|| get(attrs, b"href"))
            .flatten()
    })
}

/// The site's name as the head of `html` declares it: the content of the first
/// `<meta property="og:site_name">` or `<meta name="application-name">` (references
/// decoded, trimmed); None where there is neither or it is empty.
pub fn site_name(html: &[u8]) -> Option<String> {
    first_in_head(html, b"meta", |attrs| {
        let is = |name: &[u8], value: &[u8]| {
            get(attrs, name).is_some_and(|v| v.eq_ignore_ascii_case(value))
        };
        (is(b"property", b"og:site_name") || is(b"name", b"application-name"))
            .then(|| get(attrs, b"content"))
            .flatten()
    })
}

/// The target of the first link with `rel` canonical in an HTTP `Link` header value
/// (`<url>; rel="canonical", <url2>; rel=alternate`).
pub fn from_link_header(value: &[u8]) -> Option<String> {
    let mut at = 0;
    while let Some(open) = memchr::memchr(b'<', &value[at..]) {
        let start = at + open + 1;
        let close = start + memchr::memchr(b'>', &value[start..])?;
        let target = &value[start..close];
        // Parameters run to the next link (a comma outside quotes).
        let mut end = close + 1;
        let mut quoted = false;
        while end < value.len() {
            match value[end] {
                b'"' => quoted = !quoted,
                b',' if !quoted => break,
                _ => {}
            }
            end += 1;
        }
        let canonical = value[close + 1..end].split(|b| *b == b';').any(|p| {
            let p = p.trim_ascii();
            match memchr::memchr(b'=', p) {
                Some(eq) if p[..eq].trim_ascii().eq_ignore_ascii_case(b"rel") => {
                    let v = p[eq + 1..].trim_ascii();
                    let v = v.strip_prefix(b"\"").unwrap_or(v);
                    let v = v.strip_suffix(b"\"").unwrap_or(v);
                    rel_is_canonical(v)
                }
                _ => false,
            }
        });
        if canonical {
            let t = String::from_utf8_lossy(target).trim().to_string();
            if !t.is_empty() {
                return Some(t);
            }
        }
        at = end;
    }
    None
}

/// `href` resolved against the page's `base` URL, without its fragment; only http(s) URLs.
/// None when it cannot be resolved (no usable base for a relative link, or not a URL).
pub fn resolve(href: &str, base: &str) -> Option<String> {
    let joined = match url::Url::parse(base) {
        Ok(b) => b.join(href).ok()?,
        Err(_) => url::Url::parse(href).ok()?,
    };
    let mut u = joined;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    u.set_fragment(None);
    Some(u.into())
}

/// A page URL in the form canonical links are compared in (parsed, no fragment), or the
/// string as it is where it does not parse.
pub fn normal_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            u.set_fragment(None);
            u.into()
        }
        Err(_) => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heads_canonical_link_is_found() {
        let cases: [(&str, Option<&str>); 9] = [
            (
                r#"<html><head><link rel="canonical" href="/a?b=1&amp;c=2"></head>"#,
                Some("/a?b=1&c=2"),
            ),
            (
                r#"<HEAD><LINK HREF='x.html' REL='Canonical' /></HEAD>"#,
                Some("x.html"),
            ),
            (
                "<head><link rel=canonical href=http://e.org/p></head>",
                Some("http://e.org/p"),
            ),
            (
                r#"<head><link rel="alternate canonical" href=" /s "></head>"#,
                Some("/s"),
            ),
            (
                r#"<head><link rel="stylesheet" href="s.css"><link rel="canonical" href="/c"></head>"#,
                Some("/c"),
            ),
            (
                r#"<head></head><body><link rel="canonical" href="/late"></body>"#,
                None,
            ),
            (
                r#"<head><!-- <link rel="canonical" href="/commented"> --></head>"#,
                None,
            ),
            (r#"<head><link rel="canonical"></head>"#, None),
            (r#"<head><linker rel="canonical" href="/x"></head>"#, None),
        ];
        for (html, want) in cases {
            assert_eq!(from_html(html.as_bytes()).as_deref(), want, "{html}");
        }
    }

    #[test]
    fn link_headers_are_read() {
        let h = br#"<https://e.org/a,b>; rel="preload", <https://e.org/c>; rel="canonical""#;
        assert_eq!(from_link_header(h).as_deref(), Some("https://e.org/c"));
        assert_eq!(from_link_header(b"<x>; rel=\"next\"").as_deref(), None);
        assert_eq!(
            from_link_header(b"<https://e.org/d>;REL=Canonical").as_deref(),
            Some("https://e.org/d")
        );
    }

    #[test]
    fn links_resolve_against_the_page() {
        let base = "http://e.org/dir/page.html?x=1#top";
        assert_eq!(resolve("/a", base).as_deref(), Some("http://e.org/a"));
        assert_eq!(
            resolve("b.html#frag", base).as_deref(),
            Some("http://e.org/dir/b.html")
        );
        assert_eq!(
            resolve("//o.net/c", base).as_deref(),
            Some("http://o.net/c")
        );
        assert_eq!(
            resolve("HTTPS://E.ORG:443/d", base).as_deref(),
            Some("https://e.org/d")
        );
        assert_eq!(resolve("mailto:x@e.org", base), None);
        assert_eq!(resolve("/a", ""), None);
        assert_eq!(
            resolve("http://e.org/z", "").as_deref(),
            Some("http://e.org/z")
        );
        assert_eq!(normal_url("http://E.org/p#f"), "http://e.org/p");
    }

    #[test]
    fn a_title_is_read_from_the_head_only() {
        assert_eq!(
            title(b"<html><HEAD><!-- <title>no</title> --><Title lang=en> A &amp; B </TITLE>"),
            Some(&b" A &amp; B "[..])
        );
        assert_eq!(title(b"<head></head><body><title>late</title>"), None);
        assert_eq!(title(b"<title>unfinished"), None);
        assert_eq!(title(b"<titles>x</titles>"), None);
        assert_eq!(title(b"<title>a < b</title>"), Some(&b"a < b"[..]));
    }

    #[test]
    fn a_site_name_is_read_from_the_heads_meta() {
        let page = b"<head><meta charset=utf-8><meta property='og:type' content=article>\
            <META PROPERTY=\"og:site_name\" CONTENT=\" Caf&eacute; Times \"></head>";
        assert_eq!(site_name(page).as_deref(), Some("Caf\u{e9} Times"));
        let app =
            b"<meta name=application-name content=Docs><meta property=og:site_name content=X>";
        assert_eq!(site_name(app).as_deref(), Some("Docs"));
        assert_eq!(site_name(b"<meta property=og:site_name content=''>"), None);
        assert_eq!(
            site_name(b"<body><meta property=og:site_name content=Late>"),
            None
        );
    }
}
