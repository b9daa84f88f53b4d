//! WARC records over byte slices: WARC/1.0, 1.1 and ClueWeb09's WARC/0.18.
//!
//! The parser is zero-copy and lenient in the ways real crawls need: LF-only line ends, junk
//! between records (it resyncs to the next line that starts with `WARC/<digit>`), and a wrong
//! `Content-Length` (ClueWeb09 has them): the declared length is trusted only when the bytes
//! after it are the end of the data or the next record; otherwise the record runs to the next
//! `WARC/` line, and the repair is counted. It works both on a whole memory-mapped shard and on
//! a streaming window (gzip shards), where it answers [`Step::NeedMore`] until a record is
//! complete.

use std::borrow::Cow;

use super::http;
use super::{Document, PayloadKind, Shard, Sink, Skip, SourceLoc, WorkUnit};
use crate::base::mmap;

/// Headers larger than this are treated as malformed (ClueWeb22 `VDOM-*` headers reach 1 MiB).
const MAX_HEADER: usize = 16 << 20;

/// Bytes kept at the end of a streaming window when junk or an oversized record is dropped: a
/// record line (`\nWARC/` and a digit) cut by the window's end is found once the rest arrives.
pub const KEEP_TAIL: usize = 7;

/// The default `--max-record-size`: a record block, HTML body or JSON line larger than this is
/// skipped (Common Crawl truncates payloads at 1 MiB; ClueWeb22 headers reach 1 MiB).
pub const DEFAULT_MAX_RECORD: usize = 32 << 20;

/// One parsed record.
#[derive(Debug)]
pub struct Record<'a> {
    /// Offset of the `WARC/` line within the buffer given to the parser.
    pub start: usize,
    /// Bytes of the buffer this record used, leading junk whitespace and trailing CRLFs included.
    pub consumed: usize,
    /// The header lines after the version line.
    pub header: &'a [u8],
    /// The record block.
    pub body: &'a [u8],
    /// The declared Content-Length was wrong and the record was cut at the next `WARC/` line.
    pub repaired: bool,
}

impl<'a> Record<'a> {
    /// The value of a header field (case-insensitive name), trimmed.
    pub fn field(&self, name: &str) -> Option<&'a [u8]> {
        header_field(self.header, name)
    }
}

/// The value of the header field `name` (case-insensitive) in WARC header lines, trimmed.
pub fn header_field<'a>(header: &'a [u8], name: &str) -> Option<&'a [u8]> {
    header.split(|b| *b == b'\n').find_map(|line| {
        let colon = memchr::memchr(b':', line)?;
        line[..colon]
            .trim_ascii()
            .eq_ignore_ascii_case(name.as_bytes())
            .then(|| line[colon + 1..].trim_ascii())
    })
}

/// The parser's answer for the bytes at the front of the buffer.
#[derive(Debug)]
pub enum Step<'a> {
    /// A complete record.
    Record(Record<'a>),
    /// Bytes to drop: junk (`Some(reason)`) or blank lines (`None`).
    Skip(usize, Option<Skip>),
    /// The buffer ends before the record does; call again with more bytes.
    NeedMore,
    /// Nothing but whitespace is left and the data has ended.
    End,
    /// (Streaming only.) A record larger than the limit begins in the buffer and does not end
    /// in it: drop the whole buffer, then what [`Rest`] says, without holding the record.
    TooLarge(Rest),
}

/// What remains of an oversized record after the buffer that held its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rest {
    /// This many more bytes (its declared Content-Length says so).
    Bytes(u64),
    /// Everything up to the next record line (it declared no usable length); the buffer's last
    /// [`KEEP_TAIL`] bytes were kept, since they may begin that line.
    ToRecordLine,
}

/// A resumable record parser; it remembers how far it searched for the next record so a
/// growing window is not rescanned from the start, and whether the front of the window
/// continues junk it has already counted, so a long run of junk is dropped as it streams in
/// (linear time) and counted once.
pub struct Parser {
    search_from: usize,
    in_junk: bool,
    max_record: usize,
    max_header: usize,
}

impl Default for Parser {
    fn default() -> Self {
        Parser::new(DEFAULT_MAX_RECORD)
    }
}

impl Parser {
    /// A parser that skips records whose block is larger than `max_record` bytes (headers
    /// are limited to the smaller of that and 16 MiB).
    pub fn new(max_record: usize) -> Parser {
        Parser {
            search_from: 0,
            in_junk: false,
            max_record,
            max_header: MAX_HEADER.min(max_record.max(1 << 10)),
        }
    }

    /// Parses the record at the front of `buf`. `eof` says no more bytes will follow.
    ///
    /// A complete record whose block is larger than the limit is answered as a
    /// [`Skip::TooLarge`] skip; while streaming (`!eof`), junk and oversized records are
    /// dropped as they arrive (a skip that leaves the last [`KEEP_TAIL`] bytes, or
    /// [`Step::TooLarge`]), so the window never holds more than the limit.
    pub fn next<'a>(&mut self, buf: &'a [u8], eof: bool) -> Step<'a> {
        let step = match self.step(buf, eof) {
            Step::Record(r) if r.body.len() > self.max_record => {
                Step::Skip(r.consumed, Some(Skip::TooLarge))
            }
            s => s,
        };
        if !matches!(step, Step::NeedMore) {
            self.search_from = 0;
        }
        step
    }

    /// Whether the front of the window continues junk already reported.
    pub fn in_junk(&self) -> bool {
        self.in_junk
    }

    /// The reason to report for junk at the front of the buffer: none when it continues junk
    /// already reported.
    fn junk(&self, reason: Skip) -> Option<Skip> {
        (!self.in_junk).then_some(reason)
    }

    fn step<'a>(&mut self, buf: &'a [u8], eof: bool) -> Step<'a> {
        let ws = buf
            .iter()
            .position(|b| !matches!(b, b'\r' | b'\n' | b' ' | b'\t'))
            .unwrap_or(buf.len());
        let b = &buf[ws..];
        if b.is_empty() {
            return match (eof, ws) {
                (true, _) => end_or_skip(ws),
                (false, 0) => Step::NeedMore,
                // Whitespace is dropped as it arrives, however much of it there is.
                (false, _) => Step::Skip(ws, None),
            };
        }
        if b.len() < 8 && !eof {
            return Step::NeedMore;
        }
        if !is_version_line(b) {
            return self.resync(buf, ws, eof, Skip::Garbage);
        }
        self.in_junk = false;
        let Some(header_end) = header_end(b, self.max_header) else {
            if eof || b.len() > self.max_header {
                return self.resync(buf, ws, eof, Skip::MalformedRecord);
            }
            return Step::NeedMore;
        };
        let version_end = memchr::memchr(b'\n', b).map_or(b.len(), |p| p + 1);
        let header = &b[version_end.min(header_end)..header_end];
        if header
            .split(|c| *c == b'\n')
            .any(|l| l.starts_with(b"WARC/"))
        {
            return self.resync(buf, ws, eof, Skip::MalformedRecord);
        }
        let declared = header_field(header, "Content-Length")
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.parse::<usize>().ok());
        if let Some(len) = declared {
            let end = header_end.saturating_add(len);
            if end.saturating_add(4) > b.len() && !eof {
                if len > self.max_record {
                    return Step::TooLarge(
                        Rest::Bytes((ws + end).saturating_sub(buf.len()) as u64),
                    );
                }
                return Step::NeedMore;
            }
            if end <= b.len() {
                let after = skip_crlf(b, end);
                // The length is right when it lands on the record terminator (junk may follow,
                // and is skipped next) or directly on the next record.
                let terminated = b[end..].starts_with(b"\r\n\r\n") || b[end..].starts_with(b"\n\n");
                if after == b.len() || terminated || is_version_line(&b[after..]) {
                    return Step::Record(Record {
                        start: ws,
                        consumed: ws + after,
                        header,
                        body: &b[header_end..end],
                        repaired: false,
                    });
                }
            }
        }
        // No usable Content-Length: the record runs to the next `WARC/` line.
        let from = self.search_from.max(header_end);
        match find_marker(b, from) {
            Some(q) => Step::Record(Record {
                start: ws,
                consumed: ws + q,
                header,
                body: trim_crlf(&b[header_end..q]),
                repaired: declared.is_some(),
            }),
            None if !eof => {
                if b.len() - header_end > self.max_record {
                    return Step::TooLarge(Rest::ToRecordLine);
                }
                self.search_from = b.len().saturating_sub(16).max(header_end);
                Step::NeedMore
            }
            None => match declared {
                // The data ends before the declared length: the record was cut off.
                Some(len) if header_end.saturating_add(len) > b.len() => {
                    Step::Skip(buf.len(), Some(Skip::Truncated))
                }
                _ => Step::Record(Record {
                    start: ws,
                    consumed: buf.len(),
                    header,
                    body: trim_crlf(&b[header_end..]),
                    repaired: declared.is_some(),
                }),
            },
        }
    }

    /// Drops what is at the front of the buffer (junk, or a record whose header cannot be
    /// read) up to the next record line. While streaming, junk with no record line in sight is
    /// dropped but for the last [`KEEP_TAIL`] bytes, and what follows is the same run of junk.
    fn resync<'a>(&mut self, buf: &'a [u8], ws: usize, eof: bool, why: Skip) -> Step<'a> {
        let reason = self.junk(why);
        match find_marker(&buf[ws..], 1) {
            Some(p) => {
                self.in_junk = false;
                Step::Skip(ws + p, reason)
            }
            None if eof => {
                self.in_junk = false;
                Step::Skip(buf.len(), reason)
            }
            None if buf.len() > 4 * KEEP_TAIL => {
                self.in_junk = true;
                Step::Skip(buf.len() - KEEP_TAIL, reason)
            }
            None => Step::NeedMore,
        }
    }
}

fn end_or_skip<'a>(ws: usize) -> Step<'a> {
    if ws == 0 {
        Step::End
    } else {
        Step::Skip(ws, None)
    }
}

/// `WARC/` followed by a digit: the first line of a record.
pub fn is_version_line(b: &[u8]) -> bool {
    b.len() >= 6 && b.starts_with(b"WARC/") && b[5].is_ascii_digit()
}

/// Position of the first line in `b` that starts a record, not counting `b`'s own first line
/// (used to end the dropping of an oversized record).
pub fn next_record_line(b: &[u8]) -> Option<usize> {
    find_marker(b, 0)
}

/// Position of the next line that starts a record, at or after `from`.
fn find_marker(b: &[u8], from: usize) -> Option<usize> {
    let mut at = from.min(b.len());
    while let Some(p) = memchr::memmem::find(&b[at..], b"\nWARC/") {
        let q = at + p + 1;
        if is_version_line(&b[q..]) {
            return Some(q);
        }
        at = q;
    }
    None
}

/// End of the header block (just after its blank line), if it ends within `max` bytes.
fn header_end(b: &[u8], max: usize) -> Option<usize> {
    let limit = b.len().min(max);
    for nl in memchr::memchr_iter(b'\n', &b[..limit]) {
        match b.get(nl + 1..nl + 3) {
            Some([b'\n', _]) => return Some(nl + 2),
            Some([b'\r', b'\n']) => return Some(nl + 3),
            None if b.get(nl + 1) == Some(&b'\n') => return Some(nl + 2),
            _ => {}
        }
    }
    None
}

fn skip_crlf(b: &[u8], mut p: usize) -> usize {
    let stop = (p + 4).min(b.len());
    while p < stop && matches!(b[p], b'\r' | b'\n') {
        p += 1;
    }
    p
}

fn trim_crlf(b: &[u8]) -> &[u8] {
    let mut end = b.len();
    while end > 0 && b.len() - end < 4 && matches!(b[end - 1], b'\r' | b'\n') {
        end -= 1;
    }
    &b[..end]
}

/// Start of the first record at or after `from` (used to cut shards into work units).
pub fn next_record_start(data: &[u8], from: usize) -> Option<usize> {
    let mut at = from.saturating_sub(1);
    loop {
        let q = find_marker(data, at)?;
        // A record start has a header block naming its type.
        let head = &data[q..(q + MAX_HEADER).min(data.len())];
        if let Some(end) = header_end(head, MAX_HEADER) {
            if header_field(&head[..end], "WARC-Type").is_some() {
                return Some(q);
            }
        }
        at = q;
    }
}

/// Turns one record into a document, a skip, or a non-document notice.
pub fn deliver(rec: &Record<'_>, loc: SourceLoc, file_offset: u64, sink: &mut dyn Sink) {
    if rec.repaired {
        sink.length_repaired(file_offset);
    }
    let wtype = rec.field("WARC-Type").unwrap_or(b"");
    let is_conversion = wtype.eq_ignore_ascii_case(b"conversion");
    if !(wtype.eq_ignore_ascii_case(b"response")
        || wtype.eq_ignore_ascii_case(b"resource")
        || is_conversion)
    {
        sink.other_record();
        return;
    }
    let id = rec
        .field("WARC-TREC-ID")
        .filter(|v| !v.is_empty())
        .or_else(|| rec.field("WARC-Record-ID"))
        .map(|v| lossy(strip_angle(v)))
        .unwrap_or_else(|| Cow::Owned(format!("@{}:{}", loc.shard, file_offset)));
    let url = rec
        .field("WARC-Target-URI")
        .map(|v| lossy(strip_angle(v)))
        .unwrap_or(Cow::Borrowed(""));
    let warc_ct = rec.field("Content-Type").map(http::media_type);
    let mut link = None;
    let (status, ct, charset, payload) = match http::parse(rec.body) {
        Some(Ok(head)) => {
            let (ct, cs) = head
                .content_type
                .map(http::media_type)
                .map_or((None, None), |(m, c)| (Some(m), c));
            link = head.link.map(lossy);
            (Some(head.status), ct, cs, &rec.body[head.payload_start..])
        }
        Some(Err(())) => {
            sink.skip(
                Skip::MalformedHttp,
                file_offset,
                "unparseable HTTP status line",
            );
            return;
        }
        None => {
            let (ct, cs) = match warc_ct {
                Some((m, _)) if m.starts_with("application/http") => (None, None),
                Some((m, c)) => (Some(m), c),
                None => (None, None),
            };
            (None, ct, cs, rec.body)
        }
    };
    let kind = match ct.as_deref() {
        _ if is_conversion => PayloadKind::Text,
        Some(m) if m.contains("html") => PayloadKind::Html,
        Some("text/plain") => PayloadKind::Text,
        _ => PayloadKind::Unknown,
    };
    sink.document(Document {
        id,
        url,
        loc,
        http_status: status,
        content_type: ct.map(Cow::Owned),
        charset: charset.map(Cow::Owned),
        link,
        kind,
        payload: Cow::Borrowed(payload),
        value: None,
        date: rec
            .field("WARC-Date")
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(super::iso_seconds),
    });
}

fn strip_angle(v: &[u8]) -> &[u8] {
    v.strip_prefix(b"<")
        .and_then(|v| v.strip_suffix(b">"))
        .unwrap_or(v)
}

fn lossy(v: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(v)
}

/// Reads an uncompressed WARC work unit from the memory-mapped shard.
pub fn read_plain(
    shard: &Shard,
    unit: &WorkUnit,
    max_record: usize,
    sink: &mut dyn Sink,
) -> crate::Result<()> {
    let map = mmap::map(&shard.path)?;
    let start = (unit.start as usize).min(map.len());
    let data = &map[start..];
    let limit = (unit.end - unit.start) as usize;
    let mut parser = Parser::new(max_record);
    let mut pos = 0usize;
    while pos < limit.min(data.len()) {
        let offset = (start + pos) as u64;
        match parser.next(&data[pos..], true) {
            Step::Record(rec) => {
                let rec_offset = offset + rec.start as u64;
                if pos + rec.start >= limit {
                    break;
                }
                let loc = SourceLoc {
                    offset: rec_offset,
                    length: (rec.consumed - rec.start) as u64,
                    inner: 0,
                    shard: unit.shard,
                    kind: SourceLoc::PLAIN,
                };
                deliver(&rec, loc, rec_offset, sink);
                pos += rec.consumed;
            }
            Step::Skip(n, reason) => {
                if let Some(r) = reason {
                    sink.skip(r, offset, skip_detail(r));
                }
                pos += n.max(1);
            }
            // Whole data is never short of bytes; an oversized record is a skip above.
            Step::End | Step::NeedMore | Step::TooLarge(_) => break,
        }
    }
    Ok(())
}

/// A short description of a parser-level skip for messages.
pub fn skip_detail(r: Skip) -> &'static str {
    match r {
        Skip::Garbage => "bytes that are not a WARC record; resynced to the next WARC/ line",
        Skip::Truncated => "record cut off by the end of the data",
        Skip::TooLarge => "record larger than --max-record-size; skipped without being read whole",
        _ => "unparseable WARC header",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(version: &str, nl: &str, body: &str, declared: Option<usize>) -> String {
        let len = declared.unwrap_or(body.len());
        format!(
            "{version}{nl}WARC-Type: response{nl}WARC-Record-ID: <urn:uuid:1>{nl}Content-Length: {len}{nl}{nl}{body}{nl}{nl}"
        )
    }

    /// (offset, body, repaired) per record.
    type Parsed = Vec<(usize, Vec<u8>, bool)>;

    fn parse_all(data: &[u8]) -> (Parsed, Vec<Skip>) {
        let mut p = Parser::default();
        let mut pos = 0;
        let (mut recs, mut skips) = (vec![], vec![]);
        loop {
            match p.next(&data[pos..], true) {
                Step::Record(r) => {
                    recs.push((pos + r.start, r.body.to_vec(), r.repaired));
                    pos += r.consumed;
                }
                Step::Skip(n, s) => {
                    skips.extend(s);
                    pos += n;
                }
                Step::End | Step::NeedMore | Step::TooLarge(_) => break,
            }
        }
        (recs, skips)
    }

    #[test]
    fn lf_only_and_old_versions() {
        let data = rec("WARC/0.18", "\n", "HTTP/1.1 200 OK\n\nhello", None)
            + &rec("WARC/1.0", "\r\n", "abc", None);
        let (recs, skips) = parse_all(data.as_bytes());
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].1, b"HTTP/1.1 200 OK\n\nhello");
        assert_eq!(recs[1].1, b"abc");
        assert!(skips.is_empty());
    }

    #[test]
    fn wrong_content_length_is_repaired_both_ways() {
        for declared in [3usize, 40, 100_000] {
            let data = rec("WARC/1.0", "\r\n", "0123456789", Some(declared))
                + &rec("WARC/1.0", "\r\n", "next", None);
            let (recs, _) = parse_all(data.as_bytes());
            assert_eq!(recs.len(), 2, "declared {declared}");
            assert_eq!(recs[0].1, b"0123456789");
            assert!(recs[0].2);
            assert_eq!(recs[1].1, b"next");
        }
    }

    #[test]
    fn garbage_between_records_is_skipped_and_counted() {
        let data = format!(
            "junk\n{}garbage garbage\nWARC/ nope\n{}",
            rec("WARC/1.0", "\r\n", "a", None),
            rec("WARC/1.0", "\r\n", "b", None)
        );
        let (recs, skips) = parse_all(data.as_bytes());
        assert_eq!(
            recs.iter().map(|r| r.1.clone()).collect::<Vec<_>>(),
            vec![b"a".to_vec(), b"b".to_vec()]
        );
        assert_eq!(skips, vec![Skip::Garbage, Skip::Garbage]);
    }

    #[test]
    fn truncated_last_record_is_a_skip() {
        let full = rec("WARC/1.0", "\r\n", "complete", None);
        let cut = rec("WARC/1.0", "\r\n", "0123456789abcdef", None);
        let data = format!("{full}{}", &cut[..cut.len() - 10]);
        let (recs, skips) = parse_all(data.as_bytes());
        assert_eq!(recs.len(), 1);
        assert_eq!(skips, vec![Skip::Truncated]);
    }

    #[test]
    fn streaming_window_gives_the_same_records() {
        let data = (0..20)
            .map(|i| rec("WARC/1.0", "\r\n", &"x".repeat(i * 37), None))
            .collect::<String>();
        let whole = parse_all(data.as_bytes()).0;
        // Feed the parser 7 bytes at a time.
        let mut p = Parser::default();
        let bytes = data.as_bytes();
        let (mut avail, mut pos, mut got) = (0, 0, vec![]);
        loop {
            let eof = avail >= bytes.len();
            match p.next(&bytes[pos..avail.min(bytes.len())], eof) {
                Step::Record(r) => {
                    got.push((pos + r.start, r.body.to_vec(), r.repaired));
                    pos += r.consumed;
                }
                Step::Skip(n, _) => pos += n,
                Step::NeedMore => avail += 7,
                Step::End => break,
                Step::TooLarge(_) => panic!("no record here is over the limit"),
            }
        }
        assert_eq!(got, whole);
    }

    #[test]
    fn record_start_finder_needs_a_header() {
        let data = format!(
            "{}{}",
            rec("WARC/1.0", "\r\n", "payload\nWARC/1.0 quoted\n", None),
            rec("WARC/1.0", "\r\n", "b", None)
        );
        let second = data.rfind("WARC/1.0\r\nWARC-Type").unwrap();
        assert_eq!(next_record_start(data.as_bytes(), 1), Some(second));
    }
}
