//! Gzip shards, inflated member by member, and damage survived.
//!
//! Common Crawl writes one gzip member per record, so a record's location is the member's offset
//! and compressed length, which is what index tools use to fetch it again. [`inflate`] walks the
//! members and hands their inflated bytes to a [`Members`] receiver: the WARC window below, or
//! the JSONL line reader. Files compressed as a single stream work too (records then share a
//! member and carry their inflated offset in `SourceLoc::inner`).
//!
//! Damage costs what it touches and no more. A member that does not inflate (a flipped bit, a
//! bad CRC, a damaged header) and bytes at a member boundary that do not start a member are
//! reported once, with their offset, and reading resumes at the next member header that
//! inflates; the bytes passed over are counted. Only when nothing after the damage inflates is
//! the rest of the shard lost (a file cut off inside its last member, say).
//!
//! Memory is bounded by the record limit, not the data: records larger than
//! `--max-record-size` are passed over as they inflate, never gathered whole.

use std::io::Read;

use flate2::bufread::GzDecoder;

use super::libdeflate::{Inflated, Inflater};
use super::warc::{self, Parser, Rest, Step, KEEP_TAIL};
use super::{Shard, Sink, Skip, SourceLoc, WorkUnit};
use crate::base::mmap;
use crate::Result;

/// How much to inflate between parser calls.
const CHUNK: usize = 256 << 10;

/// Inflated bytes a member may gather before its complete records are handed on; below this,
/// a member's records are handed on once the member (and its CRC) checked out whole.
const DRAIN_AT: usize = 1 << 20;

/// A candidate member header after damage is taken when this many bytes inflate from it
/// without error, or its whole member does.
const VERIFY_BYTES: usize = 64 << 10;

/// What kind of damage was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DamageKind {
    /// Bytes where a member should start that are not a gzip header: a damaged member header,
    /// or junk between members.
    NotAMember,
    /// A member that does not inflate: corrupt data, a bad CRC, a damaged header.
    Corrupt,
    /// The last member stops before its end: the file was cut off.
    Truncated,
}

/// Damage found while walking the members.
#[derive(Debug)]
pub struct Damage {
    /// File offset where the damaged bytes start.
    pub offset: u64,
    /// Where reading resumes: the next member that inflates, or `None` when nothing after the
    /// damage does.
    pub resume: Option<u64>,
    /// Bytes passed over: from `offset` to `resume`, or to the end of the file.
    pub skipped: u64,
    /// What kind of damage.
    pub kind: DamageKind,
    /// The decoder's words for it, if any.
    pub error: String,
}

impl Damage {
    /// A sentence for messages.
    pub fn describe(&self) -> String {
        let what = match self.kind {
            DamageKind::NotAMember => {
                "bytes that do not start a gzip member (a damaged member header, or junk between members)".to_string()
            }
            DamageKind::Corrupt => format!("corrupt gzip member ({})", self.error),
            DamageKind::Truncated => format!("gzip member cut off ({})", self.error),
        };
        match self.resume {
            Some(r) => format!(
                "{what}; {} bytes passed over, reading resumed at the member at byte {r}",
                self.skipped
            ),
            None => format!(
                "{what}; nothing after it inflates, the last {} bytes of the shard are lost",
                self.skipped
            ),
        }
    }

    /// The skip reason it counts as.
    pub fn skip(&self) -> Skip {
        match (self.kind, self.resume) {
            (DamageKind::Truncated, _) => Skip::Truncated,
            (DamageKind::NotAMember, None) => Skip::Garbage,
            _ => Skip::CorruptGzip,
        }
    }
}

/// Receives the members of a gzip file as [`inflate`] walks them.
pub trait Members {
    /// A member starts at file offset `offset`.
    fn member_start(&mut self, offset: u64);
    /// Inflated bytes of the current member.
    fn data(&mut self, bytes: &[u8]);
    /// The current member ended cleanly (its CRC checked); it was `length` bytes in the file.
    fn member_end(&mut self, length: u64);
    /// Damage: whatever of the current member was not yet handed on is lost.
    fn damaged(&mut self, damage: &Damage);
}

/// Walks the gzip members of `data`, resuming after damage at the next member that inflates.
pub fn inflate(data: &[u8], out: &mut dyn Members) {
    inflate_passing(data, out, &|_| {});
}

/// [`inflate`], calling `passed(pos)` each time a member ends at `pos`: the bytes before it
/// are not read again (a mapped shard hands their pages back).
pub fn inflate_passing(data: &[u8], out: &mut dyn Members, passed: &dyn Fn(usize)) {
    let mut fast = Fast::take();
    inflate_with(data, out, passed, fast.as_mut());
    Fast::put_back(fast);
}

/// [`inflate_passing`] with or without the whole-member fast path: a clean member is inflated
/// by libdeflate when `fast` is given and its bytes fit [`FAST_MAX`]; anything else (no fast
/// path, a larger member, damage) by the streaming decoder, which alone defines and reports
/// damage.
fn inflate_with(
    data: &[u8],
    out: &mut dyn Members,
    passed: &dyn Fn(usize),
    mut fast: Option<&mut Fast>,
) {
    // Inflate target of the streaming decoder, zeroed once when first needed: zeroing per
    // read would cost more than inflating.
    let mut chunk: Vec<u8> = Vec::new();
    let mut pos = 0usize;
    let mut decoder: Option<GzDecoder<&[u8]>> = None;
    while pos < data.len() {
        if !data[pos..].starts_with(&[0x1f, 0x8b]) {
            // Trailing zero padding is common and harmless.
            if data[pos..].iter().all(|b| *b == 0) {
                break;
            }
            let resume = next_member(data, pos + 1);
            out.damaged(&damage(
                data,
                pos,
                resume,
                DamageKind::NotAMember,
                String::new(),
            ));
            match resume {
                Some(r) => {
                    pos = r;
                    continue;
                }
                None => break,
            }
        }
        out.member_start(pos as u64);
        if let Some(f) = fast.as_deref_mut() {
            if let Some((read, written)) = f.member(&data[pos..]) {
                for piece in f.out[..written].chunks(CHUNK) {
                    out.data(piece);
                }
                out.member_end(read as u64);
                pos += read;
                passed(pos);
                continue;
            }
        }
        if chunk.is_empty() {
            chunk = vec![0u8; CHUNK];
        }
        // One decoder for every member, reset for each: a new one would allocate and clear
        // its inflate state (the window and tables) again, per record in a WARC.gz.
        let dec = match &mut decoder {
            Some(d) => {
                d.reset(&data[pos..]);
                d
            }
            None => decoder.insert(GzDecoder::new(&data[pos..])),
        };
        let failure = loop {
            match dec.read(&mut chunk) {
                Ok(0) => break None,
                Ok(n) => out.data(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Some(e),
            }
        };
        match failure {
            None => {
                let end = data.len() - dec.get_ref().len();
                out.member_end((end - pos) as u64);
                pos = end;
                passed(pos);
            }
            Some(e) => {
                let resume = next_member(data, pos + 1);
                let kind = if resume.is_none() && e.kind() == std::io::ErrorKind::UnexpectedEof {
                    DamageKind::Truncated
                } else {
                    DamageKind::Corrupt
                };
                out.damaged(&damage(data, pos, resume, kind, e.to_string()));
                match resume {
                    Some(r) => pos = r,
                    None => break,
                }
            }
        }
    }
}

/// The most inflated bytes one member may have to be inflated whole; a larger member (a file
/// compressed as one stream, a huge record) streams. Bounds the buffer each thread keeps.
const FAST_MAX: usize = 16 << 20;

/// The first size of a thread's whole-member buffer; it grows fourfold up to [`FAST_MAX`] as
/// larger members come.
const FAST_FIRST: usize = 256 << 10;

/// The whole-member fast path: a libdeflate decompressor and the buffer it inflates into,
/// kept per thread across shards and re-read records.
struct Fast {
    inflater: Inflater,
    out: Vec<u8>,
    /// The buffer's cap: [`FAST_MAX`] (smaller in tests).
    max: usize,
}

thread_local! {
    static FAST: std::cell::Cell<Option<Fast>> = const { std::cell::Cell::new(None) };
}

impl Fast {
    /// This thread's fast path, taken out while in use (so a nested read makes its own).
    fn take() -> Option<Fast> {
        if cfg!(miri) {
            return None; // Miri cannot call C.
        }
        FAST.with(|f| f.take()).or_else(|| {
            Inflater::new().map(|inflater| Fast {
                inflater,
                out: vec![0u8; FAST_FIRST],
                max: FAST_MAX,
            })
        })
    }

    fn put_back(fast: Option<Fast>) {
        if fast.is_some() {
            FAST.with(|f| f.set(fast));
        }
    }

    /// The member at `data[0]` inflated whole into `self.out`: (compressed bytes read,
    /// inflated bytes written), or `None` when it is damaged or larger than [`FAST_MAX`].
    fn member(&mut self, data: &[u8]) -> Option<(usize, usize)> {
        loop {
            match self.inflater.member(data, &mut self.out) {
                Inflated::Member { read, written } => return Some((read, written)),
                Inflated::Bad => return None,
                Inflated::NoRoom if self.out.len() >= self.max => return None,
                Inflated::NoRoom => {
                    let grown = (self.out.len() * 4).min(self.max);
                    self.out.resize(grown, 0);
                }
            }
        }
    }
}

fn damage(
    data: &[u8],
    offset: usize,
    resume: Option<usize>,
    kind: DamageKind,
    error: String,
) -> Damage {
    Damage {
        offset: offset as u64,
        resume: resume.map(|r| r as u64),
        skipped: (resume.unwrap_or(data.len()) - offset) as u64,
        kind,
        error,
    }
}

/// The first gzip member header at or after `from` that inflates: the magic bytes, deflate,
/// no reserved flags, and then 64 KiB (or the whole member) inflated without error.
/// Linear in the bytes searched: candidates are rare (three fixed bytes and a flag check) and
/// a false one fails within a few bytes of inflating.
pub fn next_member(data: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    let mut out = vec![0u8; 16 << 10];
    while at < data.len() {
        let p = at + memchr::memmem::find(&data[at..], &[0x1f, 0x8b, 0x08])?;
        if data.get(p + 3).is_some_and(|f| f & 0xe0 == 0) && inflates(&data[p..], &mut out) {
            return Some(p);
        }
        at = p + 1;
    }
    None
}

fn inflates(member: &[u8], out: &mut [u8]) -> bool {
    let mut dec = GzDecoder::new(member);
    let mut total = 0;
    while total < VERIFY_BYTES {
        match dec.read(out) {
            Ok(0) => return true,
            Ok(n) => total += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    true
}

/// A member seen in this shard: where its inflated bytes start in the stream, and where it lies
/// in the file.
#[derive(Clone, Copy)]
struct Member {
    inflated_start: u64,
    /// Where its inflated bytes end, once the member has ended.
    inflated_end: Option<u64>,
    offset: u64,
    length: u64,
}

/// The WARC parser's view of the inflated stream: a window of inflated bytes not yet parsed,
/// its place in the stream, the members seen so far, and the parser's state.
struct Window<'s> {
    parser: Parser,
    max_record: usize,
    /// Inflated bytes not yet handed on.
    bytes: Vec<u8>,
    /// Inflated stream position of `bytes[0]`.
    base: u64,
    /// Inflated stream position after the last byte received.
    inflated: u64,
    members: Vec<Member>,
    /// Set while an oversized record is being passed over.
    dropping: Option<Rest>,
    /// The next bytes are the first of a member.
    fresh: bool,
    /// The most bytes the window held at once.
    peak: usize,
    shard: u32,
    sink: &'s mut dyn Sink,
}

impl Window<'_> {
    /// Hands every complete record in the window to the sink and drops the bytes it used;
    /// at `eof`, what remains is the end of the stream.
    fn drain(&mut self, eof: bool) {
        let mut pos = 0usize;
        while pos < self.bytes.len() && self.dropping.is_none() {
            let stream_pos = self.base + pos as u64;
            match self.parser.next(&self.bytes[pos..], eof) {
                Step::Record(rec) => {
                    let rec_pos = stream_pos + rec.start as u64;
                    let m = member_at(&self.members, rec_pos);
                    // The member holds this record and nothing else: it began where the
                    // record (with any whitespace before it) begins, and ended where the
                    // record's closing line breaks end.
                    let alone = stream_pos == m.inflated_start
                        && m.inflated_end == Some(stream_pos + rec.consumed as u64)
                        && m.length > 0;
                    let loc = SourceLoc {
                        offset: m.offset,
                        length: m.length,
                        inner: rec_pos - m.inflated_start,
                        shard: self.shard,
                        kind: if alone {
                            SourceLoc::GZIP_ALONE
                        } else {
                            SourceLoc::GZIP
                        },
                    };
                    warc::deliver(&rec, loc, m.offset, self.sink);
                    pos += rec.consumed;
                }
                Step::Skip(n, reason) => {
                    if let Some(r) = reason {
                        let m = member_at(&self.members, stream_pos);
                        self.sink.skip(r, m.offset, warc::skip_detail(r));
                    }
                    pos += n.max(1);
                }
                Step::TooLarge(rest) => {
                    let m = member_at(&self.members, stream_pos);
                    self.sink
                        .skip(Skip::TooLarge, m.offset, warc::skip_detail(Skip::TooLarge));
                    pos = match rest {
                        Rest::Bytes(_) => self.bytes.len(),
                        Rest::ToRecordLine => self.bytes.len() - KEEP_TAIL.min(self.bytes.len()),
                    };
                    self.dropping = Some(rest);
                }
                Step::NeedMore | Step::End => break,
            }
        }
        self.consume(pos.min(self.bytes.len()));
        if matches!(self.dropping, Some(Rest::Bytes(0))) {
            self.dropping = None;
        }
    }

    /// Drops the first `n` bytes of the window.
    fn consume(&mut self, n: usize) {
        self.bytes.drain(..n);
        self.base += n as u64;
    }

    /// A member begins with a record line: whatever the window still holds that is not the
    /// start of a record (the rest of an oversized record that declared more than its member
    /// held, or junk) ends here, instead of swallowing the record that follows. `at` is the
    /// stream position of the member's first byte.
    fn member_boundary(&mut self, at: u64) {
        let held = self.bytes.trim_ascii_start();
        if self.dropping.is_some() || (!held.is_empty() && !warc::is_version_line(held)) {
            if self.dropping.is_none() && !self.parser.in_junk() {
                let m = member_at(&self.members, self.base);
                self.sink
                    .skip(Skip::Garbage, m.offset, warc::skip_detail(Skip::Garbage));
            }
            self.bytes.clear();
            self.base = at;
            self.dropping = None;
            self.parser = Parser::new(self.max_record);
        }
    }

    /// Passes over incoming bytes of an oversized record; returns what is left of `data`.
    fn pass_over<'d>(&mut self, data: &'d [u8]) -> &'d [u8] {
        match self.dropping {
            Some(Rest::Bytes(n)) => {
                let k = n.min(data.len() as u64) as usize;
                self.base += k as u64;
                self.dropping = (n > k as u64).then_some(Rest::Bytes(n - k as u64));
                &data[k..]
            }
            Some(Rest::ToRecordLine) => {
                self.bytes.extend_from_slice(data);
                match warc::next_record_line(&self.bytes) {
                    Some(q) => {
                        self.consume(q);
                        self.dropping = None;
                    }
                    None => self.consume(self.bytes.len().saturating_sub(KEEP_TAIL)),
                }
                &[]
            }
            None => data,
        }
    }
}

impl Members for Window<'_> {
    fn member_start(&mut self, offset: u64) {
        self.members.push(Member {
            inflated_start: self.inflated,
            inflated_end: None,
            offset,
            length: 0,
        });
        self.fresh = true;
    }

    fn data(&mut self, data: &[u8]) {
        self.inflated += data.len() as u64;
        if std::mem::take(&mut self.fresh) && warc::is_version_line(data) {
            self.member_boundary(self.inflated - data.len() as u64);
        }
        let rest = self.pass_over(data);
        if !rest.is_empty() {
            self.bytes.extend_from_slice(rest);
        }
        self.peak = self.peak.max(self.bytes.len());
        if self.dropping.is_none() && self.bytes.len() >= DRAIN_AT {
            self.drain(false);
        }
        if self.bytes.len() > self.max_record.saturating_add(DRAIN_AT + CHUNK) {
            // Unreachable by the parser's own limits; kept so memory stays bounded whatever.
            self.bytes.clear();
            self.base = self.inflated;
            self.parser = Parser::new(self.max_record);
        }
    }

    fn member_end(&mut self, length: u64) {
        if let Some(m) = self.members.last_mut() {
            m.length = length;
            m.inflated_end = Some(self.inflated);
        }
        if self.dropping.is_none() {
            self.drain(false);
        }
    }

    fn damaged(&mut self, d: &Damage) {
        // The member's bytes not yet handed on (a partial record, or records its CRC no
        // longer vouches for) go with it.
        self.bytes.clear();
        self.base = self.inflated;
        self.dropping = None;
        self.parser = Parser::new(self.max_record);
        self.sink.skip(d.skip(), d.offset, &d.describe());
        self.sink.bytes_skipped(d.skipped);
    }
}

/// Reads a gzip WARC shard (always one work unit).
pub fn read_warc_gz(
    shard: &Shard,
    unit: &WorkUnit,
    max_record: usize,
    sink: &mut dyn Sink,
) -> Result<()> {
    let map = mmap::map(&shard.path)?;
    read_members_passing(&map, unit.shard, max_record, sink, &|pos| {
        map.release_before(pos)
    });
    Ok(())
}

/// Parses the WARC records of gzip `data` (the bytes of a shard) into `sink`; returns the most
/// inflated bytes the window held at once, which the record limit bounds.
pub fn read_members(data: &[u8], shard: u32, max_record: usize, sink: &mut dyn Sink) -> usize {
    read_members_passing(data, shard, max_record, sink, &|_| {})
}

/// [`read_members`], with `passed` called as [`inflate_passing`] calls it.
fn read_members_passing(
    data: &[u8],
    shard: u32,
    max_record: usize,
    sink: &mut dyn Sink,
    passed: &dyn Fn(usize),
) -> usize {
    let mut w = Window {
        parser: Parser::new(max_record),
        max_record,
        bytes: Vec::with_capacity(CHUNK * 2),
        base: 0,
        inflated: 0,
        members: Vec::new(),
        dropping: None,
        fresh: false,
        peak: 0,
        shard,
        sink,
    };
    inflate_passing(data, &mut w, passed);
    if w.dropping.is_none() {
        w.drain(true);
    }
    w.peak
}

fn member_at(members: &[Member], stream_pos: u64) -> Member {
    let i = members.partition_point(|m| m.inflated_start <= stream_pos);
    members.get(i.saturating_sub(1)).copied().unwrap_or(Member {
        inflated_start: 0,
        inflated_end: None,
        offset: 0,
        length: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[derive(Default)]
    struct Log {
        members: Vec<u64>,
        data: Vec<u8>,
        damage: Vec<(u64, Option<u64>, DamageKind)>,
    }

    impl Members for Log {
        fn member_start(&mut self, offset: u64) {
            self.members.push(offset);
        }
        fn data(&mut self, bytes: &[u8]) {
            self.data.extend_from_slice(bytes);
        }
        fn member_end(&mut self, _: u64) {}
        fn damaged(&mut self, d: &Damage) {
            self.damage.push((d.offset, d.resume, d.kind));
        }
    }

    #[derive(Default)]
    struct Count {
        ids: Vec<String>,
        skips: Vec<(Skip, u64)>,
        bytes_skipped: u64,
    }

    impl Sink for Count {
        fn document(&mut self, doc: super::super::Document<'_>) {
            self.ids.push(doc.id.into_owned());
        }
        fn skip(&mut self, skip: Skip, offset: u64, _: &str) {
            self.skips.push((skip, offset));
        }
        fn bytes_skipped(&mut self, n: u64) {
            self.bytes_skipped += n;
        }
    }

    /// Every call a [`Members`] receives, the data between two other calls joined (the fast
    /// and the streaming path cut it into different pieces).
    #[derive(Default, Debug, PartialEq)]
    struct Events(Vec<String>);

    impl Events {
        fn push_data(&mut self, bytes: &[u8]) {
            let text = format!("data {}", String::from_utf8_lossy(bytes));
            match self.0.last_mut() {
                Some(last) if last.starts_with("data ") => last.push_str(&text[5..]),
                _ => self.0.push(text),
            }
        }
    }

    impl Members for Events {
        fn member_start(&mut self, offset: u64) {
            self.0.push(format!("start {offset}"));
        }
        fn data(&mut self, bytes: &[u8]) {
            self.push_data(bytes);
        }
        fn member_end(&mut self, length: u64) {
            self.0.push(format!("end {length}"));
        }
        fn damaged(&mut self, d: &Damage) {
            self.0.push(format!("damage {}", d.describe()));
        }
    }

    /// The whole-member fast path against the streaming decoder alone, on shards of random
    /// members (empty, small, larger than the buffer's first size and than its cap) with
    /// random damage: the same calls, the same bytes, the same damage and offsets.
    #[test]
    fn the_fast_path_matches_the_streaming_decoder() {
        let mut rng = crate::base::rng::SplitMix64(56);
        let mut fast = Fast {
            inflater: Inflater::new().unwrap(),
            out: vec![0u8; 1 << 10],
            max: 64 << 10,
        };
        for case in 0..300 {
            let mut file = Vec::new();
            for m in 0..1 + rng.below(6) {
                let len = match rng.below(4) {
                    0 => rng.below(3) as usize,
                    1 => rng.below(2_000) as usize,
                    2 => 2_000 + rng.below(30_000) as usize,
                    _ => 60_000 + rng.below(40_000) as usize,
                };
                let text: Vec<u8> = (0..len)
                    .map(|i| b"abcdefgh ij\n"[(i * 7 + (m as usize) + rng.below(3) as usize) % 12])
                    .collect();
                file.extend(gz(&text));
            }
            for _ in 0..rng.below(4) {
                if file.is_empty() {
                    break;
                }
                let at = rng.below(file.len() as u64) as usize;
                match rng.below(3) {
                    0 => file[at] ^= 1 << rng.below(8),
                    1 => file.truncate(at),
                    _ => file.splice(at..at, b"junk".iter().copied()).for_each(drop),
                }
            }
            let (mut slow, mut quick) = (Events::default(), Events::default());
            inflate_with(&file, &mut slow, &|_| {}, None);
            inflate_with(&file, &mut quick, &|_| {}, Some(&mut fast));
            assert_eq!(quick, slow, "case {case}");
        }
        assert_eq!(fast.out.len(), 64 << 10, "the buffer grew to its cap");
    }

    fn record(id: &str, len: Option<usize>, body: &[u8]) -> Vec<u8> {
        let mut r =
            format!("WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <{id}>\r\n").into_bytes();
        if let Some(n) = len {
            r.extend_from_slice(format!("Content-Length: {n}\r\n").as_bytes());
        }
        r.extend_from_slice(b"\r\n");
        r.extend_from_slice(body);
        r.extend_from_slice(b"\r\n\r\n");
        r
    }

    /// Oversized records and long junk stream through a window that never holds more than the
    /// limit and a few chunks; without the limit the window grew to the largest record (and
    /// junk without newlines was rescanned on every chunk, in quadratic time).
    #[test]
    fn oversized_records_and_junk_pass_in_bounded_memory() {
        let max = 1 << 20;
        let big = vec![b'x'; 8 << 20];
        let file = [
            gz(&record("urn:a", Some(5), b"small")),
            // 32 MiB of NUL bytes inside one member, after a record.
            gz(&[record("urn:b", Some(5), b"small"), vec![0; 32 << 20]].concat()),
            // Declared 8 MiB.
            gz(&record("urn:big1", Some(big.len()), &big)),
            // No length: runs to the next record line.
            gz(&record("urn:big2", None, &big)),
            // Declared more than it holds: the member's end ends it.
            gz(&record("urn:big3", Some(64 << 20), &big)),
            gz(&record("urn:c", Some(5), b"small")),
        ]
        .concat();
        let mut sink = Count::default();
        let peak = read_members(&file, 0, max, &mut sink);
        assert_eq!(sink.ids, ["urn:a", "urn:b", "urn:c"]);
        let reasons: Vec<Skip> = sink.skips.iter().map(|s| s.0).collect();
        assert_eq!(
            reasons,
            [
                Skip::Garbage,
                Skip::TooLarge,
                Skip::TooLarge,
                Skip::TooLarge
            ]
        );
        assert!(
            peak <= max + DRAIN_AT + 2 * CHUNK,
            "window held {peak} bytes"
        );
        // The same file in one gzip member: the declared length carries the skip.
        let single = gz(&[
            record("urn:a", Some(5), b"small"),
            record("urn:big1", Some(big.len()), &big),
            record("urn:big2", None, &big),
            record("urn:c", Some(5), b"small"),
        ]
        .concat());
        let mut sink = Count::default();
        let peak = read_members(&single, 0, max, &mut sink);
        assert_eq!(sink.ids, ["urn:a", "urn:c"]);
        assert_eq!(sink.skips.len(), 2);
        assert!(
            peak <= max + DRAIN_AT + 2 * CHUNK,
            "window held {peak} bytes"
        );
    }

    #[test]
    fn a_corrupt_record_member_is_one_skip_and_the_rest_is_read() {
        let members: Vec<Vec<u8>> = (0..10)
            .map(|i| {
                gz(&record(
                    &format!("urn:{i}"),
                    Some(2000),
                    &[b'a' + i as u8; 2000],
                ))
            })
            .collect();
        let at = members[..4].iter().map(Vec::len).sum::<usize>();
        let mut file = members.concat();
        file[at + members[4].len() / 2] ^= 0xff;
        let mut sink = Count::default();
        read_members(&file, 0, 1 << 20, &mut sink);
        let want: Vec<String> = [0, 1, 2, 3, 5, 6, 7, 8, 9]
            .iter()
            .map(|i| format!("urn:{i}"))
            .collect();
        assert_eq!(sink.ids, want);
        assert_eq!(sink.skips, [(Skip::CorruptGzip, at as u64)]);
        assert_eq!(sink.bytes_skipped, members[4].len() as u64);
    }

    #[test]
    fn a_corrupt_member_costs_itself_alone() {
        let parts: Vec<Vec<u8>> = (0..4)
            .map(|i| gz(format!("member {i} ").repeat(500).as_bytes()))
            .collect();
        let starts: Vec<usize> = parts
            .iter()
            .scan(0, |at, p| {
                let s = *at;
                *at += p.len();
                Some(s)
            })
            .collect();
        let mut file = parts.concat();
        // Damage the second member's deflate data.
        for k in 0..4 {
            file[starts[1] + 20 + k] ^= 0x5a;
        }
        let mut log = Log::default();
        inflate(&file, &mut log);
        assert_eq!(
            log.damage,
            vec![(
                starts[1] as u64,
                Some(starts[2] as u64),
                DamageKind::Corrupt
            )]
        );
        let text = String::from_utf8_lossy(&log.data);
        for i in [0, 2, 3] {
            assert!(text.contains(&format!("member {i} ").repeat(500)), "{i}");
        }
    }

    #[test]
    fn a_damaged_header_is_not_called_trailing_garbage() {
        let a = gz(b"first member");
        let b = gz(b"second member");
        let c = gz(b"third member");
        let mut file = [a.clone(), b, c].concat();
        file[a.len()] = b'x';
        let mut log = Log::default();
        inflate(&file, &mut log);
        assert_eq!(log.damage.len(), 1);
        let (at, resume, kind) = log.damage[0];
        assert_eq!((at, kind), (a.len() as u64, DamageKind::NotAMember));
        assert!(resume.is_some());
        assert_eq!(log.data, b"first memberthird member");
    }

    #[test]
    fn a_cut_off_file_is_truncated_and_zero_padding_is_not_damage() {
        let mut file = [gz(b"one"), gz(&b"two ".repeat(10_000))].concat();
        let full = file.len();
        file.truncate(full - 30);
        let mut log = Log::default();
        inflate(&file, &mut log);
        assert_eq!(log.damage.len(), 1);
        assert_eq!(log.damage[0].2, DamageKind::Truncated);

        let mut padded = gz(b"one");
        padded.extend_from_slice(&[0; 100]);
        let mut log = Log::default();
        inflate(&padded, &mut log);
        assert!(log.damage.is_empty());
        assert_eq!(log.data, b"one");
    }
}
