//! The HTTP response block at the start of a WARC `response` record.
//!
//! Lenient: LF-only line ends, missing reason phrases and header lines without a colon are
//! accepted. Only the status code, the `Content-Type` header and `Link` headers that name a
//! canonical link are read.

/// What the HTTP block says about its payload.
#[derive(Debug, PartialEq, Eq)]
pub struct HttpHead<'a> {
    /// Status code from the status line.
    pub status: u16,
    /// Raw `Content-Type` header value.
    pub content_type: Option<&'a [u8]>,
    /// Raw value of the first `Link` header that mentions `canonical`.
    pub link: Option<&'a [u8]>,
    /// Offset of the payload within the record body.
    pub payload_start: usize,
}

/// Parses `body` if it starts with an HTTP status line; `None` when it does not (bare payload,
/// as in ClueWeb22) and `Some(Err(()))` when it starts like one but is broken.
pub fn parse(body: &[u8]) -> Option<Result<HttpHead<'_>, ()>> {
    if !body.starts_with(b"HTTP/") {
        return None;
    }
    Some(parse_head(body))
}

fn parse_head(body: &[u8]) -> Result<HttpHead<'_>, ()> {
    let (status_line, mut pos) = line(body, 0).ok_or(())?;
    let status = status_line
        .split(|b| *b == b' ')
        .filter(|p| !p.is_empty())
        .nth(1)
        .and_then(|code| std::str::from_utf8(code).ok())
        .and_then(|code| code.trim().parse::<u16>().ok())
        .ok_or(())?;
    let mut content_type = None;
    let mut link = None;
    loop {
        let Some((l, next)) = line(body, pos) else {
            // Headers without a terminating blank line: no payload.
            return Ok(HttpHead {
                status,
                content_type,
                link,
                payload_start: body.len(),
            });
        };
        pos = next;
        if l.is_empty() {
            break;
        }
        if let Some(colon) = memchr::memchr(b':', l) {
            if l[..colon]
                .trim_ascii()
                .eq_ignore_ascii_case(b"content-type")
            {
                content_type = Some(l[colon + 1..].trim_ascii());
            } else if link.is_none()
                && l[..colon].trim_ascii().eq_ignore_ascii_case(b"link")
                && l[colon + 1..]
                    .windows(9)
                    .any(|w| w.eq_ignore_ascii_case(b"canonical"))
            {
                link = Some(l[colon + 1..].trim_ascii());
            }
        }
    }
    Ok(HttpHead {
        status,
        content_type,
        link,
        payload_start: pos,
    })
}

/// The line starting at `pos` without its line end, and the position after it.
fn line(buf: &[u8], pos: usize) -> Option<(&[u8], usize)> {
    let rest = buf.get(pos..)?;
    let nl = memchr::memchr(b'\n', rest)?;
    let l = &rest[..nl];
    let l = l.strip_suffix(b"\r").unwrap_or(l);
    Some((l, pos + nl + 1))
}

/// Splits a Content-Type value into a lowercase media type and an optional charset.
pub fn media_type(value: &[u8]) -> (String, Option<String>) {
    let text = String::from_utf8_lossy(value);
    let mut parts = text.split(';');
    let mime = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let charset = parts.find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
    });
    (mime, charset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_and_lf_heads() {
        let b = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=ISO-8859-1\r\n\r\n<p>x";
        let h = parse(b).unwrap().unwrap();
        assert_eq!(h.status, 200);
        assert_eq!(&b[h.payload_start..], b"<p>x");
        assert_eq!(
            media_type(h.content_type.unwrap()),
            ("text/html".into(), Some("ISO-8859-1".into()))
        );
        let b = b"HTTP/1.0 404\nServer: x\nbroken header\n\nbody";
        let h = parse(b).unwrap().unwrap();
        assert_eq!(h.status, 404);
        assert_eq!(h.content_type, None);
        assert_eq!(&b[h.payload_start..], b"body");
    }

    #[test]
    fn bare_payload_and_broken_status() {
        assert!(parse(b"<html>").is_none());
        assert_eq!(parse(b"HTTP/1.1 abc\r\n\r\n"), Some(Err(())));
        assert_eq!(parse(b"HTTP/1.1 200"), Some(Err(())));
    }
}
