//! JSON lines shards (plain or gzip): one JSON object per line.
//!
//! The id, text and URL fields are configurable. A line that is not an object, or lacks the
//! text, is skipped and counted; invalid UTF-8 inside a line is decoded lossily first so one bad
//! byte does not lose a document. Gzip shards are inflated member by member (a single member or
//! many), holding one line at a time; a damaged member costs its own lines and reading resumes
//! at the next member. A line longer than `--max-record-size` is skipped and counted without
//! being held whole.

use serde_json::{Map, Value};
use std::borrow::Cow;

use super::{gzip, WorkUnit};
use super::{Document, ReadOptions, Shard, ShardFormat, Sink, Skip, SourceLoc};
use crate::base::mmap;
use crate::Result;

/// Reads a JSONL work unit.
pub fn read(shard: &Shard, unit: &WorkUnit, opts: &ReadOptions, sink: &mut dyn Sink) -> Result<()> {
    let map = mmap::map(&shard.path)?;
    if shard.format == ShardFormat::JsonlGz {
        let mut lines = Lines {
            line: Vec::new(),
            over: false,
            line_at: (0, 0, 0),
            member: (0, 0),
            inflated: 0,
            shard,
            unit,
            opts,
            sink,
        };
        gzip::inflate_passing(&map, &mut lines, &|pos| map.release_before(pos));
        lines.end_line();
        return Ok(());
    }
    let start = (unit.start as usize).min(map.len());
    let end = (unit.end as usize).min(map.len());
    let mut pos = start;
    while pos < end {
        let nl = memchr::memchr(b'\n', &map[pos..end]).map_or(end, |p| pos + p);
        if nl - pos > opts.max_record {
            too_large(
                sink,
                pos as u64,
                &format!("{} bytes", nl - pos),
                opts.max_record,
            );
        } else {
            let loc = SourceLoc {
                offset: pos as u64,
                length: (nl - pos) as u64,
                inner: 0,
                shard: unit.shard,
                kind: SourceLoc::PLAIN,
            };
            line(
                &map[pos..nl],
                loc,
                pos as u64,
                pos as u64,
                shard,
                opts,
                sink,
            );
        }
        pos = nl + 1;
    }
    Ok(())
}

fn too_large(sink: &mut dyn Sink, offset: u64, len: &str, max: usize) {
    sink.skip(
        Skip::TooLarge,
        offset,
        &format!("a line of {len} is longer than --max-record-size ({max} bytes)"),
    );
}

/// Lines of a gzip JSONL shard as its members inflate: one line is held at a time, and a line
/// longer than the record limit is passed over as it streams.
struct Lines<'a> {
    line: Vec<u8>,
    /// The current line passed the limit; its bytes are dropped until its end.
    over: bool,
    /// Where the current line starts: its member's file offset, its offset inside the member's
    /// inflated bytes, and its offset in the whole inflated stream.
    line_at: (u64, u64, u64),
    /// The current member: file offset and the inflated offset where it starts.
    member: (u64, u64),
    inflated: u64,
    shard: &'a Shard,
    unit: &'a WorkUnit,
    opts: &'a ReadOptions,
    sink: &'a mut dyn Sink,
}

impl Lines<'_> {
    fn take(&mut self, part: &[u8]) {
        if self.line.is_empty() && !self.over {
            self.line_at = (self.member.0, self.inflated - self.member.1, self.inflated);
        }
        self.inflated += part.len() as u64;
        if self.over {
            return;
        }
        if self.line.len() + part.len() > self.opts.max_record {
            self.over = true;
            self.line = Vec::new();
        } else {
            self.line.extend_from_slice(part);
        }
    }

    fn end_line(&mut self) {
        let (member, inner, stream) = self.line_at;
        if std::mem::take(&mut self.over) {
            too_large(self.sink, member, "more bytes", self.opts.max_record);
        } else if !self.line.is_empty() {
            let loc = SourceLoc {
                offset: member,
                length: self.line.len() as u64,
                inner,
                shard: self.unit.shard,
                kind: SourceLoc::GZIP,
            };
            line(
                &self.line, loc, member, stream, self.shard, self.opts, self.sink,
            );
        }
        self.line.clear();
    }
}

impl gzip::Members for Lines<'_> {
    fn member_start(&mut self, offset: u64) {
        self.member = (offset, self.inflated);
    }

    fn data(&mut self, mut bytes: &[u8]) {
        while let Some(p) = memchr::memchr(b'\n', bytes) {
            self.take(&bytes[..p]);
            self.inflated += 1;
            self.end_line();
            bytes = &bytes[p + 1..];
        }
        if !bytes.is_empty() {
            self.take(bytes);
        }
    }

    fn member_end(&mut self, _length: u64) {}

    fn damaged(&mut self, d: &gzip::Damage) {
        // A line cut by the damage is incomplete: it goes with the damaged bytes.
        self.line.clear();
        self.over = false;
        self.sink.skip(d.skip(), d.offset, &d.describe());
        self.sink.bytes_skipped(d.skipped);
    }
}

/// One line: `offset` is where messages say it is, `id_at` the position a missing id is made of.
fn line(
    raw: &[u8],
    loc: SourceLoc,
    offset: u64,
    id_at: u64,
    shard: &Shard,
    opts: &ReadOptions,
    sink: &mut dyn Sink,
) {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    if raw.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let text = String::from_utf8_lossy(raw);
    let mut obj: Map<String, Value> = match serde_json::from_str(&text) {
        Ok(Value::Object(o)) => o,
        Ok(_) => return sink.skip(Skip::MalformedJson, offset, "line is not a JSON object"),
        Err(e) => return sink.skip(Skip::MalformedJson, offset, &e.to_string()),
    };
    let Some(Value::String(body)) = obj.remove(&opts.text_field) else {
        return sink.skip(
            Skip::MissingText,
            offset,
            &format!("no string field {:?}", opts.text_field),
        );
    };
    let id = match obj.remove(&opts.id_field) {
        Some(Value::String(s)) => s,
        Some(Value::Number(n)) => n.to_string(),
        _ => format!("{}@{}", shard.rel, id_at),
    };
    let url = match obj.remove(&opts.url_field) {
        Some(Value::String(s)) => s,
        _ => String::new(),
    };
    let mut doc = Document::row(
        Cow::Owned(id),
        Cow::Owned(url),
        loc,
        opts.jsonl_kind,
        Cow::Owned(body.into_bytes()),
    );
    if let Some(f) = &opts.value_field {
        doc.value = match obj.get(f) {
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::String(s)) => super::number_of(s),
            Some(Value::Bool(b)) => Some(f64::from(u8::from(*b))),
            _ => None,
        };
    }
    sink.document(doc);
}
