//! Gzip WARC shards, inflated member by member.
//!
//! Common Crawl writes one gzip member per record, so a record's location is the member's offset
//! and compressed length, which is what index tools use to fetch it again. Members are inflated
//! into one reused window that the WARC parser reads in place, so memory is bounded by the
//! largest record, not the shard; files compressed as a single stream work too (records then
//! share a member and carry their inflated offset in `SourceLoc::inner`). A corrupt or truncated
//! member ends the shard: every record before the cut is kept and the cut is reported with the
//! member's offset.

use std::io::Read;

use flate2::bufread::GzDecoder;

use super::warc::{self, Parser, Step};
use super::{Shard, Sink, Skip, SourceLoc, WorkUnit};
use crate::base::mmap;
use crate::Result;

/// How much to inflate between parser calls.
const CHUNK: usize = 256 << 10;

/// A member seen in this shard: where its inflated bytes start in the stream, and where it lies
/// in the file.
#[derive(Clone, Copy)]
struct Member {
    inflated_start: u64,
    offset: u64,
    length: u64,
}

/// The inflated stream as the parser sees it: a window of inflated bytes not yet parsed, its
/// place in the stream, the members seen so far, and the parser's state.
struct Window<'s> {
    parser: Parser,
    /// Inflated bytes not yet handed on.
    bytes: Vec<u8>,
    /// Inflated stream position of `bytes[0]`.
    base: u64,
    members: Vec<Member>,
    shard: u32,
    sink: &'s mut dyn Sink,
}

impl Window<'_> {
    /// Hands every complete record in the window to the sink and drops the bytes it used;
    /// at `eof`, what remains is the end of the stream.
    fn drain(&mut self, eof: bool) {
        let mut pos = 0usize;
        loop {
            let stream_pos = self.base + pos as u64;
            match self.parser.next(&self.bytes[pos..], eof) {
                Step::Record(rec) => {
                    let rec_pos = stream_pos + rec.start as u64;
                    let m = member_at(&self.members, rec_pos);
                    let loc = SourceLoc {
                        offset: m.offset,
                        length: m.length,
                        inner: rec_pos - m.inflated_start,
                        shard: self.shard,
                        kind: SourceLoc::GZIP,
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
                Step::NeedMore | Step::End => break,
            }
            if pos >= self.bytes.len() {
                break;
            }
        }
        self.bytes.drain(..pos.min(self.bytes.len()));
        self.base += pos as u64;
    }
}

/// Reads a gzip WARC shard (always one work unit).
pub fn read_warc_gz(shard: &Shard, unit: &WorkUnit, sink: &mut dyn Sink) -> Result<()> {
    let map = mmap::map(&shard.path)?;
    let data: &[u8] = &map;
    let mut w = Window {
        parser: Parser::default(),
        bytes: Vec::with_capacity(CHUNK * 2),
        base: 0,
        members: Vec::new(),
        shard: unit.shard,
        sink,
    };
    // Inflate target, zeroed once: zeroing per read would cost more than inflating.
    let mut chunk = vec![0u8; CHUNK];
    let mut pos = 0usize;
    let mut inflated = 0u64;

    while pos < data.len() {
        if !data[pos..].starts_with(&[0x1f, 0x8b]) {
            // Trailing zero padding is common; anything else is junk after the last member.
            if data[pos..].iter().any(|b| *b != 0) {
                w.sink.skip(
                    Skip::Garbage,
                    pos as u64,
                    "bytes after the last gzip member",
                );
            }
            break;
        }
        let member_start = pos;
        w.members.push(Member {
            inflated_start: inflated,
            offset: pos as u64,
            length: 0,
        });
        let mut dec = GzDecoder::new(&data[pos..]);
        let failure = loop {
            match dec.read(&mut chunk) {
                Ok(0) => break None,
                Ok(n) => {
                    w.bytes.extend_from_slice(&chunk[..n]);
                    inflated += n as u64;
                    w.drain(false);
                }
                Err(e) => break Some(e),
            }
        };
        if let Some(e) = failure {
            // Everything complete before the cut is delivered; the partial record is the skip.
            w.drain(false);
            w.sink.skip(
                Skip::Truncated,
                member_start as u64,
                &format!(
                    "truncated or corrupt gzip member ({e}); records before it were kept, the rest of the shard is lost"
                ),
            );
            return Ok(());
        }
        let rest = dec.into_inner();
        pos = data.len() - rest.len();
        if let Some(m) = w.members.last_mut() {
            m.length = (pos - member_start) as u64;
        }
    }
    w.drain(true);
    Ok(())
}

fn member_at(members: &[Member], stream_pos: u64) -> Member {
    let i = members.partition_point(|m| m.inflated_start <= stream_pos);
    members[i.saturating_sub(1)]
}
