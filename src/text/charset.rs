//! Bytes to UTF-8 text.
//!
//! The encoding is taken, in order, from a byte-order mark; valid UTF-8 that holds non-ASCII
//! bytes (whatever a header or a `<meta>` says: a page that declares gb2312 or ISO-8859-1 and
//! is UTF-8 is read as the UTF-8 it is, since text in another encoding is almost never valid
//! UTF-8 by chance); the HTTP `Content-Type` charset; a `<meta>` declaration in the first
//! 1,024 bytes (HTML only); valid UTF-8; and finally `chardetng` run on a prefix only (it is
//! slow on whole documents). Pure ASCII follows its declaration (ISO-2022-JP is 7-bit).
//! Invalid bytes decode to U+FFFD; decoding never fails. Valid UTF-8 and ASCII come back
//! borrowed, without a copy.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8};

/// How many bytes `chardetng` sees.
const DETECT_PREFIX: usize = 16 << 10;
/// How far the `<meta>` prescan looks (as the HTML standard's prescan).
pub const META_PREFIX: usize = 1024;

/// A text encoding of two or four bytes a character, told from its byte-order mark or, without
/// one, from where its zero bytes fall (markup is mostly ASCII: `<` is `3C 00` in UTF-16LE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wide {
    Utf16Le,
    Utf16Be,
    Utf32Le,
    Utf32Be,
}

impl Wide {
    /// The encoding of `bytes` and the length of its byte-order mark, if it is one of these:
    /// by its mark (UTF-32's first, since UTF-32LE's begins as UTF-16LE's does), else by the
    /// zero bytes of its first 1,024 bytes (at least 16 characters, nearly all in one lane).
    pub fn sniff(bytes: &[u8]) -> Option<(Wide, usize)> {
        if bytes.starts_with(b"\xFF\xFE\x00\x00") {
            return Some((Wide::Utf32Le, 4));
        }
        if bytes.starts_with(b"\x00\x00\xFE\xFF") {
            return Some((Wide::Utf32Be, 4));
        }
        if bytes.starts_with(b"\xFF\xFE") {
            return Some((Wide::Utf16Le, 2));
        }
        if bytes.starts_with(b"\xFE\xFF") {
            return Some((Wide::Utf16Be, 2));
        }
        let head = &bytes[..bytes.len().min(META_PREFIX) & !3];
        // Text without a zero byte is none of these read by its zeros (a vectorised search,
        // so that every other page pays next to nothing for the question).
        if head.len() < 64 || memchr::memchr(0, head).is_none() {
            return None;
        }
        // Zero bytes by position modulo 4.
        let mut zeros = [0usize; 4];
        for (i, b) in head.iter().enumerate() {
            zeros[i & 3] += usize::from(*b == 0);
        }
        let lane = head.len() / 4;
        let most = |z: usize| z * 10 >= lane * 9;
        let few = |z: usize| z * 10 <= lane;
        let (z0, z1, z2, z3) = (zeros[0], zeros[1], zeros[2], zeros[3]);
        if few(z0) && most(z1) && most(z2) && most(z3) {
            return Some((Wide::Utf32Le, 0));
        }
        if most(z0) && most(z1) && most(z2) && few(z3) {
            return Some((Wide::Utf32Be, 0));
        }
        if few(z0) && few(z2) && most(z1) && most(z3) {
            return Some((Wide::Utf16Le, 0));
        }
        if most(z0) && most(z2) && few(z1) && few(z3) {
            return Some((Wide::Utf16Be, 0));
        }
        None
    }

    /// `bytes` (after the mark) decoded; a unit that is no character is U+FFFD.
    fn decode(self, bytes: &[u8]) -> String {
        match self {
            Wide::Utf16Le => encoding_rs::UTF_16LE
                .decode_without_bom_handling(bytes)
                .0
                .into_owned(),
            Wide::Utf16Be => encoding_rs::UTF_16BE
                .decode_without_bom_handling(bytes)
                .0
                .into_owned(),
            Wide::Utf32Le | Wide::Utf32Be => {
                let mut out = String::with_capacity(bytes.len() / 4);
                for c in bytes.chunks(4) {
                    let u = match (c.try_into(), self) {
                        (Ok(a), Wide::Utf32Le) => u32::from_le_bytes(a),
                        (Ok(a), _) => u32::from_be_bytes(a),
                        (Err(_), _) => 0xFFFD,
                    };
                    out.push(char::from_u32(u).unwrap_or('\u{fffd}'));
                }
                out
            }
        }
    }
}

/// How far the `<meta>` search of a page's main content looks: the whole `<head>`, up to here.
pub const HEAD_PREFIX: usize = 64 << 10;

/// Decodes `bytes` to text.
pub fn decode<'a>(bytes: &'a [u8], header_charset: Option<&str>, html: bool) -> Cow<'a, str> {
    decode_with(bytes, header_charset, html, META_PREFIX)
}

/// Decodes `bytes` to text, a `<meta>` declaration looked for in the first `prescan` bytes, up
/// to the end of the `<head>` (`--text main` looks in the whole head, [`HEAD_PREFIX`]: pages
/// declare their charset after a kilobyte of scripts and styles; `--text full` keeps the
/// standard prescan's kilobyte, so that its text is what it was).
pub fn decode_with<'a>(
    bytes: &'a [u8],
    header_charset: Option<&str>,
    html: bool,
    prescan: usize,
) -> Cow<'a, str> {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes).filter(|(e, _)| *e == UTF_8) {
        return enc.decode_without_bom_handling(&bytes[bom_len..]).0;
    }
    // Two or four bytes a character, with a mark or without one (a page declaring
    // `<meta charset=utf-16>` in UTF-16 has no ASCII bytes for the prescan to find).
    if let Some((wide, mark)) = Wide::sniff(bytes) {
        return Cow::Owned(wide.decode(&bytes[mark..]));
    }
    // Validated once: valid UTF-8 with non-ASCII bytes is UTF-8 whatever is declared; pure
    // ASCII follows its declaration.
    let valid = validate(bytes);
    if let Some(s) = valid.filter(|s| !s.is_ascii()) {
        return Cow::Borrowed(s);
    }
    let declared = header_charset
        .and_then(|l| Encoding::for_label(l.trim().as_bytes()))
        .or_else(|| {
            if html {
                meta_charset(bytes, prescan)
            } else {
                None
            }
        })
        .map(|e| e.output_encoding());
    if let Some(enc) = declared {
        if enc == UTF_8 {
            // Validation alone is much faster than the lossy decoder's chunked walk.
            return valid.map_or_else(|| String::from_utf8_lossy(bytes), Cow::Borrowed);
        }
        return enc.decode_without_bom_handling(bytes).0;
    }
    if let Some(s) = valid {
        return Cow::Borrowed(s);
    }
    let mut det = chardetng::EncodingDetector::new();
    let prefix = &bytes[..bytes.len().min(DETECT_PREFIX)];
    det.feed(prefix, prefix.len() == bytes.len());
    det.guess(None, true).decode_without_bom_handling(bytes).0
}

/// `bytes` as a string where they are valid UTF-8: `std::str::from_utf8`'s answer, found a
/// vector at a time.
fn validate(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

/// The charset named by a `<meta charset>` or `<meta http-equiv content="...; charset=">`.
fn meta_charset(bytes: &[u8], prescan: usize) -> Option<&'static Encoding> {
    let mut head: Vec<u8> = bytes[..bytes.len().min(prescan)]
        .iter()
        .map(u8::to_ascii_lowercase)
        .collect();
    if prescan > META_PREFIX {
        // The head's end: a `<meta>` in the body is not the page's declaration.
        let end = [&b"</head"[..], b"<body"]
            .iter()
            .filter_map(|m| memchr::memmem::find(&head, m))
            .min();
        if let Some(e) = end {
            head.truncate(e);
        }
    }
    let mut at = 0;
    while let Some(p) = memchr::memmem::find(&head[at..], b"<meta") {
        let tag_start = at + p;
        let tag_end =
            memchr::memchr(b'>', &head[tag_start..]).map_or(head.len(), |e| tag_start + e);
        let tag = &head[tag_start..tag_end];
        if let Some(c) = memchr::memmem::find(tag, b"charset") {
            let rest = &tag[c + 7..];
            let rest = rest.trim_ascii_start();
            if let Some(rest) = rest.strip_prefix(b"=") {
                let rest = rest
                    .trim_ascii_start()
                    .strip_prefix(b"\"")
                    .or_else(|| rest.trim_ascii_start().strip_prefix(b"'"))
                    .unwrap_or(rest.trim_ascii_start());
                let end = rest
                    .iter()
                    .position(|b| matches!(b, b'"' | b'\'' | b';' | b' ' | b'/' | b'>'))
                    .unwrap_or(rest.len());
                if let Some(enc) = Encoding::for_label(&rest[..end]) {
                    // The standard maps a UTF-16 declaration in a byte-oriented prescan to UTF-8.
                    if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
                        return Some(UTF_8);
                    }
                    return Some(enc);
                }
            }
        }
        at = tag_end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vector validation answers as the standard library's on valid text of every width
    /// and on text broken at random places (cut sequences, stray continuation bytes,
    /// surrogates, overlong forms), short and long.
    #[test]
    fn validation_answers_as_the_standard_librarys() {
        let pieces: [&[u8]; 12] = [
            b"plain ascii text ",
            "Grüße ".as_bytes(),
            "日本語 ".as_bytes(),
            "𝄞 ".as_bytes(),
            b"\x80",
            b"\xC3",
            b"\xE6\x97",
            b"\xED\xA0\x80",
            b"\xC0\xAF",
            b"\xF4\x90\x80\x80",
            b"\xFF",
            b"<p>markup</p>\n",
        ];
        let mut rng = crate::base::rng::SplitMix64(5);
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..3000 {
            let mut bytes = Vec::new();
            let broken = rng.below(2) == 0;
            for _ in 0..rng.below(60) {
                let p = if broken {
                    rng.below(pieces.len() as u64)
                } else {
                    [0, 1, 2, 3, 11][rng.below(5) as usize]
                };
                bytes.extend_from_slice(pieces[p as usize]);
            }
            let want = std::str::from_utf8(&bytes).ok();
            assert_eq!(validate(&bytes), want, "{bytes:?}");
            if want.is_some() {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
        assert!(
            valid > 1000 && invalid > 1000,
            "{valid} valid, {invalid} not"
        );
    }

    #[test]
    fn utf16_and_utf32_with_a_mark_or_without_are_read() {
        let page = "<html><head><meta charset=utf-16></head><body><p>Grüße aus Köln, 日本語 text.</p></body></html>";
        let utf16le: Vec<u8> = page.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let utf16be: Vec<u8> = page.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let utf32le: Vec<u8> = page
            .chars()
            .flat_map(|c| (c as u32).to_le_bytes())
            .collect();
        let utf32be: Vec<u8> = page
            .chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect();
        for (bytes, mark) in [
            (utf16le, &b"\xFF\xFE"[..]),
            (utf16be, &b"\xFE\xFF"[..]),
            (utf32le, &b"\xFF\xFE\x00\x00"[..]),
            (utf32be, &b"\x00\x00\xFE\xFF"[..]),
        ] {
            assert_eq!(decode(&bytes, None, true), page);
            let marked = [mark, &bytes].concat();
            assert_eq!(decode(&marked, None, true), page);
            assert_eq!(decode(&bytes, Some("utf-8"), true), page);
        }
        // Latin text is never taken for a wide encoding.
        assert_eq!(Wide::sniff(page.as_bytes()), None);
    }

    #[test]
    fn a_meta_late_in_the_head_is_found_where_asked_and_latin1_is_windows_1252() {
        let mut page = b"<html><head><style>".to_vec();
        page.extend(std::iter::repeat_n(b'x', 2000));
        page.extend_from_slice(
            b"</style><meta charset=\"iso-8859-1\"></head><body><p>\x84caf\xe9\x93</p>",
        );
        let main = decode_with(&page, None, true, HEAD_PREFIX);
        assert!(main.ends_with("<p>\u{201e}café\u{201c}</p>"), "{main}");
        // The standard prescan's kilobyte alone does not see it (what --text full reads).
        assert_eq!(meta_charset(&page, META_PREFIX), None);
        assert_eq!(
            meta_charset(&page, HEAD_PREFIX),
            Some(encoding_rs::WINDOWS_1252)
        );
        // A meta in the body is not the page's.
        let body = b"<html><head></head><body><meta charset=koi8-r><p>caf\xe9</p>";
        assert_eq!(meta_charset(body, HEAD_PREFIX), None);
        // Declared in the header: latin-1's label is windows-1252.
        assert_eq!(
            decode(b"\x84a\x93", Some("ISO-8859-1"), true),
            "\u{201e}a\u{201c}"
        );
    }

    #[test]
    fn order_of_evidence() {
        // BOM wins over everything.
        assert_eq!(
            decode(b"\xEF\xBB\xBFcaf\xC3\xA9", Some("latin1"), true),
            "café"
        );
        // Header beats meta.
        let html = b"<meta charset=utf-8>caf\xE9";
        assert_eq!(
            decode(html, Some("iso-8859-1"), true),
            "<meta charset=utf-8>café"
        );
        // Meta when no header.
        let html = b"<html><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">caf\xE9";
        assert!(decode(html, None, true).ends_with("café"));
        // Valid UTF-8 is borrowed.
        assert!(matches!(
            decode("naïve".as_bytes(), None, true),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn charsets_that_lie_both_ways() {
        // UTF-8 declared as gb2312 (meta) or latin-1 (header): read as UTF-8.
        let page = "<meta charset=gb2312><p>中文网页，编码是UTF-8</p>";
        assert_eq!(decode(page.as_bytes(), None, true), page);
        assert_eq!(
            decode("Grüße".as_bytes(), Some("iso-8859-1"), true),
            "Grüße"
        );
        // GBK declared as UTF-8 is not valid UTF-8: replacement characters, no panic.
        let (gbk, _, _) = encoding_rs::GBK.encode("中文网页");
        let s = decode(&gbk, Some("utf-8"), true);
        assert!(s.contains('\u{fffd}'));
        // GBK declared as GBK is read as GBK; undeclared, the detector finds it.
        let mut page = b"<meta charset=gbk><p>".to_vec();
        page.extend_from_slice(&gbk);
        assert!(decode(&page, None, true).ends_with("中文网页"));
        // Pure ASCII follows its declaration: ISO-2022-JP is seven-bit.
        let (jis, _, _) = encoding_rs::ISO_2022_JP.encode("日本語");
        assert!(jis.is_ascii());
        assert_eq!(decode(&jis, Some("iso-2022-jp"), false), "日本語");
    }

    #[test]
    fn invalid_bytes_are_replaced_not_fatal() {
        let s = decode(b"ok \xFF\xFE\xFD bytes", Some("utf-8"), false);
        assert!(s.starts_with("ok ") && s.ends_with(" bytes") && s.contains('\u{fffd}'));
        // Undeclared non-UTF-8 goes to the detector and still decodes.
        let s = decode(
            b"Gr\xFC\xDFe aus K\xF6ln, sch\xF6ne Gr\xFC\xDFe",
            None,
            false,
        );
        assert!(s.contains("Grüße"), "{s}");
    }
}
