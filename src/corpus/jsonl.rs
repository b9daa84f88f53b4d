//! JSON lines shards (plain or gzip): one JSON object per line.
//!
//! The id, text and URL fields are configurable. A line that is not an object, or lacks the
//! text, is skipped and counted; invalid UTF-8 inside a line is decoded lossily first so one bad
//! byte does not lose a document. Gzip shards are inflated as a stream (a single member or
//! many), holding one line at a time.

use std::borrow::Cow;
use std::io::{BufRead, BufReader};

use serde_json::{Map, Value};

use super::WorkUnit;
use super::{Document, ReadOptions, Shard, ShardFormat, Sink, Skip, SourceLoc};
use crate::base::mmap;
use crate::Result;

/// Reads a JSONL work unit.
pub fn read(shard: &Shard, unit: &WorkUnit, opts: &ReadOptions, sink: &mut dyn Sink) -> Result<()> {
    let map = mmap::map(&shard.path)?;
    if shard.format == ShardFormat::JsonlGz {
        return read_gz(shard, unit, &map, opts, sink);
    }
    let start = (unit.start as usize).min(map.len());
    let end = (unit.end as usize).min(map.len());
    let mut pos = start;
    while pos < end {
        let nl = memchr::memchr(b'\n', &map[pos..end]).map_or(end, |p| pos + p);
        let loc = SourceLoc {
            offset: pos as u64,
            length: (nl - pos) as u64,
            inner: 0,
            shard: unit.shard,
            kind: SourceLoc::PLAIN,
        };
        line(&map[pos..nl], loc, pos as u64, shard, opts, sink);
        pos = nl + 1;
    }
    Ok(())
}

fn read_gz(
    shard: &Shard,
    unit: &WorkUnit,
    data: &[u8],
    opts: &ReadOptions,
    sink: &mut dyn Sink,
) -> Result<()> {
    let mut reader = BufReader::with_capacity(1 << 20, flate2::bufread::MultiGzDecoder::new(data));
    let mut buf = Vec::new();
    let mut inflated = 0u64;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                let text = buf.strip_suffix(b"\n").unwrap_or(&buf);
                let loc = SourceLoc {
                    offset: 0,
                    length: text.len() as u64,
                    inner: inflated,
                    shard: unit.shard,
                    kind: SourceLoc::GZIP,
                };
                line(text, loc, inflated, shard, opts, sink);
                inflated += n as u64;
            }
            Err(e) => {
                sink.skip(
                    Skip::Truncated,
                    inflated,
                    &format!(
                        "gzip stream cannot be inflated after {inflated} inflated bytes ({e}); lines before it were kept"
                    ),
                );
                return Ok(());
            }
        }
    }
}

fn line(
    raw: &[u8],
    loc: SourceLoc,
    offset: u64,
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
        _ => format!("{}@{}", shard.rel, offset),
    };
    let url = match obj.remove(&opts.url_field) {
        Some(Value::String(s)) => s,
        _ => String::new(),
    };
    sink.document(Document {
        id: Cow::Owned(id),
        url: Cow::Owned(url),
        loc,
        http_status: None,
        content_type: None,
        charset: Some(Cow::Borrowed("utf-8")),
        kind: opts.jsonl_kind,
        payload: Cow::Owned(body.into_bytes()),
    });
}
