//! WARC.gz output: every kept document as a WARC record in a gzip member of its own.
//!
//! - A record that was alone in its gzip member of a WARC.gz shard is that member, copied byte
//!   for byte. That it is alone is checked, not assumed: the member's header is inflated up
//!   to the end of the WARC header, and the member's stated inflated size (its gzip trailer)
//!   must be that header plus the declared Content-Length plus the closing CRLFs.
//! - A record that shared its member with others (a WARC.gz compressed as one stream, or with
//!   request and response in one member) is cut out of the inflated member, and a record of a
//!   plain WARC or WET shard out of the file; either is compressed as a member of its own.
//! - A document from JSONL, Parquet or a plain file becomes a WARC/1.1 `resource` record of
//!   its original payload, with `WARC-TREC-ID` holding its id, so that neardup reads it back
//!   under the same id.
//!
//! Shards are planned from the records' sizes (exact for copied members, the source size for
//! the rest) and written in parallel, each shard's records prepared in parallel batches and
//! written in order.

use std::collections::HashMap;
use std::io::{Read, Write};

use flate2::write::GzEncoder;
use rayon::prelude::*;

use super::{manifest, shard_name, Config, Kept, Manifest, ShardEntry};
use crate::base::atomic::AtomicFile;
use crate::base::mmap::{self, Mapped};
use crate::corpus::warc::{header_field, Parser, Step};
use crate::corpus::{Document, PayloadKind, ShardFormat, SourceLoc};
use crate::fingerprint::store::StoreSet;
use crate::verify::reread;
use crate::Result;

/// Records prepared at a time, per shard.
const BATCH: usize = 4096;

/// How one record gets into the output.
enum Piece {
    /// A gzip member copied as it is: the input (store, shard) and the byte range.
    Copy((usize, u32), u64, u64),
    /// A member made here.
    Made(Vec<u8>, How),
    /// Not found where the store said.
    Missing,
}

#[derive(Clone, Copy)]
enum How {
    Recompressed,
    Built,
}

/// The input shards the kept documents come from, mapped.
struct Inputs {
    maps: HashMap<(usize, u32), Mapped>,
    mtimes: HashMap<(usize, u32), String>,
}

/// Writes the WARC.gz shards of `kept`.
pub fn write(stores: &StoreSet, kept: &[Kept], cfg: &Config) -> Result<Manifest> {
    let mut wanted: Vec<(usize, u32)> = kept
        .iter()
        .map(|k| {
            let (si, row) = stores.position(k.doc);
            (si, stores.stores()[si].source()[row].shard)
        })
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut inputs = Inputs {
        maps: HashMap::new(),
        mtimes: HashMap::new(),
    };
    for (si, shard) in wanted {
        let path = reread::locate_shard(stores, si, shard, cfg.shard_dir.as_deref())?;
        let mtime = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        inputs.maps.insert((si, shard), mmap::map(&path)?);
        inputs.mtimes.insert((si, shard), warc_date(mtime));
    }
    // Shards planned on the records' sizes: a member's length, or the source's for the rest
    // (compressed, they come out smaller: such shards end below the target).
    let size = |k: &Kept| {
        let (si, row) = stores.position(k.doc);
        stores.stores()[si].source()[row].length.max(1)
    };
    let mut plan: Vec<&[Kept]> = Vec::new();
    let (mut from, mut acc) = (0usize, 0u64);
    for (i, k) in kept.iter().enumerate() {
        let s = size(k);
        if i > from && acc + s > cfg.shard_size {
            plan.push(&kept[from..i]);
            from = i;
            acc = 0;
        }
        acc += s;
    }
    if from < kept.len() || kept.is_empty() {
        plan.push(&kept[from..]);
    }
    let written: Vec<Result<(ShardEntry, Counts)>> = plan
        .par_iter()
        .enumerate()
        .map(|(i, docs)| write_shard(stores, &inputs, docs, cfg, i))
        .collect();
    let mut m = manifest(super::Format::WarcGz);
    for w in written {
        let (entry, c) = w?;
        m.documents += entry.documents;
        m.bytes += entry.bytes;
        m.copied += c.copied;
        m.recompressed += c.recompressed;
        m.built += c.built;
        m.missing.extend(c.missing);
        m.shards.push(entry);
    }
    Ok(m)
}

#[derive(Default)]
struct Counts {
    copied: u64,
    recompressed: u64,
    built: u64,
    missing: Vec<String>,
}

fn write_shard(
    stores: &StoreSet,
    inputs: &Inputs,
    docs: &[Kept],
    cfg: &Config,
    index: usize,
) -> Result<(ShardEntry, Counts)> {
    let name = shard_name(index, super::Format::WarcGz);
    let path = cfg.dir.join(&name);
    let mut out = AtomicFile::create(&path)?;
    let mut c = Counts::default();
    let mut bytes = 0u64;
    let mut documents = 0u64;
    // Members copied from consecutive places of one input are written as one range.
    let mut run: Option<((usize, u32), u64, u64)> = None;
    let flush = |run: &mut Option<((usize, u32), u64, u64)>, out: &mut AtomicFile| match run.take()
    {
        Some((key, start, end)) => out.put(&inputs.maps[&key][start as usize..end as usize]),
        None => Ok(()),
    };
    for batch in docs.chunks(BATCH) {
        let pieces = prepare(stores, inputs, batch, cfg)?;
        for (k, p) in batch.iter().zip(&pieces) {
            let b: &[u8] = match p {
                Piece::Copy(key, start, end) => {
                    c.copied += 1;
                    documents += 1;
                    bytes += end - start;
                    match &mut run {
                        Some((k0, _, e0)) if k0 == key && e0 == start => *e0 = *end,
                        _ => {
                            flush(&mut run, &mut out)?;
                            run = Some((*key, *start, *end));
                        }
                    }
                    continue;
                }
                Piece::Made(b, How::Recompressed) => {
                    c.recompressed += 1;
                    b
                }
                Piece::Made(b, How::Built) => {
                    c.built += 1;
                    b
                }
                Piece::Missing => {
                    c.missing.push(stores.id(k.doc).to_string());
                    continue;
                }
            };
            flush(&mut run, &mut out)?;
            out.put(b)?;
            bytes += b.len() as u64;
            documents += 1;
        }
    }
    flush(&mut run, &mut out)?;
    if bytes == 0 {
        // No record (an empty keep list, or every record missing): an empty gzip member, so
        // that the shard is still a file every gzip and WARC reader opens.
        let empty = gzip(&[]);
        out.put(&empty)?;
        bytes += empty.len() as u64;
    }
    out.commit()?;
    Ok((
        ShardEntry {
            name,
            documents,
            bytes,
        },
        c,
    ))
}

/// The pieces of one batch, in its order: records of other formats read again together,
/// WARC records cut or checked in parallel.
fn prepare(stores: &StoreSet, inputs: &Inputs, batch: &[Kept], cfg: &Config) -> Result<Vec<Piece>> {
    let format = |d: u32| {
        let (si, row) = stores.position(d);
        let s = &stores.stores()[si];
        let loc = s.source()[row];
        (si, loc, s.manifest.shards[loc.shard as usize].format)
    };
    let others: Vec<u32> = batch
        .iter()
        .map(|k| k.doc)
        .filter(|d| !matches!(format(*d).2, ShardFormat::Warc | ShardFormat::WarcGz))
        .collect();
    let mut built: HashMap<u32, Vec<u8>> = HashMap::new();
    if !others.is_empty() {
        let found = reread::for_each_record(
            stores,
            &others,
            cfg.shard_dir.as_deref(),
            || (),
            |_, d, doc| {
                let (si, loc, _) = format(d);
                let date = &inputs.mtimes[&(si, loc.shard)];
                gzip(&resource(stores.id(d), doc, date))
            },
        )?;
        built.extend(found.values);
    }
    let single: Vec<bool> = batch
        .par_iter()
        .map(|k| {
            let (si, loc, f) = format(k.doc);
            f == ShardFormat::WarcGz && alone(inputs, si, &loc)
        })
        .collect();
    // One multi-record member is inflated once for the records of the batch it holds.
    let mut shared: HashMap<(usize, u32, u64), Vec<u8>> = HashMap::new();
    for (k, one) in batch.iter().zip(&single) {
        let (si, loc, f) = format(k.doc);
        if f == ShardFormat::WarcGz && !one {
            let key = (si, loc.shard, loc.offset);
            if let std::collections::hash_map::Entry::Vacant(e) = shared.entry(key) {
                let data = &inputs.maps[&(si, loc.shard)];
                let end = if loc.length == 0 {
                    data.len()
                } else {
                    (loc.offset + loc.length) as usize
                };
                e.insert(inflate(data.get(loc.offset as usize..end).unwrap_or(&[])));
            }
        }
    }
    let mut pieces: Vec<Piece> = batch
        .par_iter()
        .zip(&single)
        .map(|(k, one)| {
            let (si, loc, f) = format(k.doc);
            let data: &[u8] = inputs.maps.get(&(si, loc.shard)).map_or(&[], |m| &m[..]);
            match f {
                ShardFormat::WarcGz if *one => {
                    Piece::Copy((si, loc.shard), loc.offset, loc.offset + loc.length)
                }
                ShardFormat::WarcGz => {
                    let stream = &shared[&(si, loc.shard, loc.offset)];
                    match record_at(stream, loc.inner as usize) {
                        Some(r) => Piece::Made(gzip(r), How::Recompressed),
                        None => Piece::Missing,
                    }
                }
                ShardFormat::Warc => {
                    let end = (loc.offset + loc.length) as usize;
                    match data.get(loc.offset as usize..end) {
                        Some(r) if r.starts_with(b"WARC/") => {
                            Piece::Made(gzip(r), How::Recompressed)
                        }
                        _ => Piece::Missing,
                    }
                }
                _ => Piece::Missing,
            }
        })
        .collect();
    for (k, p) in batch.iter().zip(pieces.iter_mut()) {
        if let Some(b) = built.remove(&k.doc) {
            *p = Piece::Made(b, How::Built);
        }
    }
    Ok(pieces)
}

/// Whether the record at `loc` of a WARC.gz shard is alone in its gzip member, which can
/// then be copied as it is.
fn alone(inputs: &Inputs, si: usize, loc: &SourceLoc) -> bool {
    if loc.kind == SourceLoc::GZIP_ALONE {
        return true;
    }
    // A store made before records alone in their member were marked: checked here.
    if loc.kind != SourceLoc::GZIP || loc.length == 0 || loc.inner != 0 {
        return false;
    }
    let Some(data) = inputs.maps.get(&(si, loc.shard)) else {
        return false;
    };
    let end = loc.offset.saturating_add(loc.length);
    match data.get(loc.offset as usize..end as usize) {
        Some(member) => single_record(member),
        None => false,
    }
}

/// Whether gzip `member` inflates to exactly one WARC record: the header inflated up to its
/// end, the member's trailer (inflated size modulo 2^32) equal to the header, the declared
/// Content-Length and the closing CRLF CRLF.
pub fn single_record(member: &[u8]) -> bool {
    if member.len() < 20 {
        return false;
    }
    let n = member.len();
    let isize = u32::from_le_bytes([member[n - 4], member[n - 3], member[n - 2], member[n - 1]]);
    let mut d = flate2::read::GzDecoder::new(member);
    let mut head = Vec::with_capacity(4096);
    let mut buf = [0u8; 4096];
    const MAX_HEADER: usize = 1 << 20;
    let end = loop {
        let got = match d.read(&mut buf) {
            Ok(0) | Err(_) => return false,
            Ok(k) => k,
        };
        let from = head.len().saturating_sub(3);
        head.extend_from_slice(&buf[..got]);
        if let Some(p) = memchr::memmem::find(&head[from..], b"\r\n\r\n") {
            break from + p + 4;
        }
        if head.len() > MAX_HEADER {
            return false;
        }
    };
    if !head.starts_with(b"WARC/") {
        return false;
    }
    let Some(len) = content_length(&head[..end]) else {
        return false;
    };
    (end as u64 + len + 4) as u32 == isize
}

/// The declared Content-Length of a WARC header.
fn content_length(header: &[u8]) -> Option<u64> {
    std::str::from_utf8(header_field(header, "Content-Length")?)
        .ok()?
        .parse()
        .ok()
}

/// The whole inflated stream of gzip data (as much as inflates).
fn inflate(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = flate2::read::MultiGzDecoder::new(data).read_to_end(&mut out);
    out
}

/// The WARC record that begins at `at` of an inflated stream, its closing CRLFs included.
fn record_at(stream: &[u8], at: usize) -> Option<&[u8]> {
    let rest = stream.get(at..)?;
    match Parser::new(usize::MAX).next(rest, true) {
        Step::Record(r) => Some(&rest[r.start..r.consumed]),
        _ => None,
    }
}

/// `bytes` compressed as one gzip member.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(
        Vec::with_capacity(bytes.len() / 3 + 64),
        flate2::Compression::default(),
    );
    e.write_all(bytes).expect("writing to memory");
    e.finish().expect("writing to memory")
}

/// A header value on one line.
fn one_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// A WARC/1.1 `resource` record of `doc`'s payload under id `id`.
pub fn resource(id: &str, doc: &Document<'_>, date: &str) -> Vec<u8> {
    let h = xxhash_rust::xxh3::xxh3_128(id.as_bytes()).to_be_bytes();
    // A name-based UUID (version 8) from the id, so the output is the same on every run.
    let uuid = format!(
        "{:08x}-{:04x}-8{:03x}-{:04x}-{:012x}",
        u32::from_be_bytes([h[0], h[1], h[2], h[3]]),
        u16::from_be_bytes([h[4], h[5]]),
        u16::from_be_bytes([h[6], h[7]]) & 0x0fff,
        (u16::from_be_bytes([h[8], h[9]]) & 0x3fff) | 0x8000,
        u64::from_be_bytes([0, 0, h[10], h[11], h[12], h[13], h[14], h[15]])
    );
    let media = match doc.kind {
        PayloadKind::Html => "text/html",
        PayloadKind::Text => "text/plain",
        PayloadKind::Unknown => {
            let head = &doc.payload[..doc.payload.len().min(1024)];
            let lower = head.to_ascii_lowercase();
            if memchr::memmem::find(&lower, b"<html").is_some()
                || memchr::memmem::find(&lower, b"<!doctype html").is_some()
            {
                "text/html"
            } else {
                "text/plain"
            }
        }
    };
    let charset = doc.charset.as_deref().unwrap_or("utf-8");
    let target = if doc.url.is_empty() {
        format!("urn:neardup:{}", one_line(id).replace(' ', "%20"))
    } else {
        one_line(&doc.url)
    };
    let mut r = format!(
        "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{uuid}>\r\nWARC-Date: {date}\r\nWARC-Target-URI: {target}\r\nWARC-TREC-ID: {}\r\nContent-Type: {media}; charset={}\r\nContent-Length: {}\r\n\r\n",
        one_line(id),
        one_line(charset),
        doc.payload.len()
    )
    .into_bytes();
    r.extend_from_slice(&doc.payload);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// `secs` since the Unix epoch as a WARC-Date (`YYYY-MM-DDThh:mm:ssZ`).
pub fn warc_date(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The number of WARC records in `data` (a WARC.gz file), or where its inflated stream stops
/// being records: a check of what the writer made.
pub fn count_records(data: &[u8]) -> std::result::Result<u64, String> {
    let stream = inflate(data);
    let mut p = Parser::new(usize::MAX);
    let (mut at, mut n) = (0usize, 0u64);
    loop {
        match p.next(&stream[at..], true) {
            Step::Record(r) => {
                n += 1;
                at += r.consumed;
            }
            Step::End => return Ok(n),
            Step::Skip(k, None) => at += k,
            s => return Err(format!("at {at} of the inflated stream: {s:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warc_dates_match_known_days() {
        assert_eq!(warc_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(warc_date(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(warc_date(1_796_083_199), "2026-11-30T23:59:59Z");
    }

    fn record(body: &str) -> Vec<u8> {
        format!(
            "WARC/1.0\r\nWARC-Type: response\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
            body.len()
        )
        .into_bytes()
    }

    #[test]
    fn a_member_is_alone_only_when_it_inflates_to_its_one_record() {
        let one = record("hello");
        assert!(single_record(&gzip(&one)));
        let mut two = one.clone();
        two.extend_from_slice(&record("more"));
        assert!(!single_record(&gzip(&two)));
        // A record whose block is longer than declared is not taken as alone.
        let mut long = one.clone();
        long.extend_from_slice(b"xx");
        assert!(!single_record(&gzip(&long)));
        assert!(!single_record(&gzip(b"not a warc record at all\r\n\r\n")));
        assert!(!single_record(b"\x1f\x8b junk that does not inflate"));
        assert_eq!(record_at(&two, one.len()), Some(&record("more")[..]));
    }
}
