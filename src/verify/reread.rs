//! Documents read again from their shards, found by the source locations the store kept.
//!
//! The documents wanted are grouped by shard; each shard is read once, front to back, by the
//! same reader that fingerprinted it (with the reader settings the manifest kept), shards in
//! parallel, and a shard read by seeking (WARC, JSONL, WARC.gz of one member per record) in
//! parts of consecutive records, also in parallel. A record whose location is wanted has its text extracted the way fingerprinting
//! did it ([`crate::text::extract`]); every other record is passed over without extraction.
//! A shard that is gone, or whose size is not the one fingerprinted, is an error naming it, and
//! so is a text read again that is not the one fingerprinted (its content hash differs).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::base::mmap;
use crate::corpus::{
    gzip, read_unit, Document, ReadOptions, Shard, ShardFormat, Sink, Skip, WorkUnit,
};
use crate::fingerprint::store::{shard_checksum, StoreSet};
use crate::text::extract;
use crate::{Error, Result};

/// A record's place in its shard (offset, inner offset, kind), and the document it is with the
/// record's (or its gzip member's) length.
type Wanted = HashMap<(u64, u64, u32), (u32, u64)>;

/// Records of a shard read by one task, when the shard is read by seeking.
const PART: usize = 256;

/// The texts found, and the documents that were not found where the store said.
pub struct Found<T> {
    /// `(document, value)` for every document found.
    pub values: Vec<(u32, T)>,
    /// Documents whose record was not found again.
    pub missing: Vec<u32>,
    /// Payload (HTML or text) bytes of the documents found.
    pub payload_bytes: u64,
}

/// Reads the documents `docs` (indices into `stores`) again and calls `f(state, doc, text)`
/// for each, with one `state` per shard made by `init`. Shards are looked for where the store
/// recorded them (absolute, then as given), then in `shard_dir` by file name.
pub fn for_each_text<S, T: Send>(
    stores: &StoreSet,
    docs: &[u32],
    shard_dir: Option<&Path>,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, u32, &str) -> T + Sync,
) -> Result<Found<T>> {
    for_each_text_and_full(
        stores,
        docs,
        shard_dir,
        Also::Nothing,
        init,
        |s, d, text, _| f(s, d, text),
    )
}

/// A second text of each page that [`for_each_text_and_full`] reads beside the one
/// fingerprinted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Also {
    /// None: the text again.
    Nothing,
    /// Its full text (`--text full`'s, the whole page whatever the store's mode).
    Full,
    /// Its main content however short (as [`extract::payload_main_text`] gives it; none for a
    /// page not read as HTML): the words of its own of a page read whole.
    Main,
}

/// [`for_each_text`], with a second text of each page as `also` says: `f(state, doc, text,
/// other)`.
pub fn for_each_text_and_full<S, T: Send>(
    stores: &StoreSet,
    docs: &[u32],
    shard_dir: Option<&Path>,
    also: Also,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, u32, &str, &str) -> T + Sync,
) -> Result<Found<T>> {
    // Every text read again is checked against the content hash the store kept: a shard
    // edited in place where its sampled checksum does not look is caught here.
    let changed = std::sync::Mutex::new(Vec::new());
    let found = for_each_record(
        stores,
        docs,
        shard_dir,
        || (init(), String::new(), String::new()),
        |(state, text, whole), d, doc| {
            let html = doc.kind.is_html();
            let mode = stores.stores()[stores.position(d).0].manifest.params.text;
            // A page read whole wants its main content too: read with its text, in one pass.
            let main_too = also == Also::Main && mode == extract::TextMode::Main;
            if main_too {
                extract::payload_text_and_main(
                    &doc.payload,
                    doc.charset.as_deref(),
                    html,
                    &doc.url,
                    text,
                    whole,
                );
            } else {
                extract::payload_text(
                    &doc.payload,
                    doc.charset.as_deref(),
                    html,
                    mode,
                    &doc.url,
                    text,
                );
            }
            let h = xxhash_rust::xxh3::xxh3_128(text.as_bytes());
            if [h as u64, (h >> 64) as u64] != stores.content_hash(d) {
                changed.lock().unwrap().push(d);
            }
            match also {
                Also::Full if mode != extract::TextMode::Full => {
                    extract::payload_text(
                        &doc.payload,
                        doc.charset.as_deref(),
                        html,
                        extract::TextMode::Full,
                        &doc.url,
                        whole,
                    );
                    f(state, d, text, whole)
                }
                Also::Main if main_too => f(state, d, text, whole),
                Also::Main => {
                    whole.clear();
                    if html.unwrap_or_else(|| extract::looks_like_html(&doc.payload)) {
                        extract::payload_main_text(&doc.payload, doc.charset.as_deref(), whole);
                    }
                    f(state, d, text, whole)
                }
                _ => f(state, d, text, text),
            }
        },
    )?;
    let changed = changed.into_inner().unwrap();
    if let Some(&d) = changed.iter().min() {
        let (si, row) = stores.position(d);
        let store = &stores.stores()[si];
        let shard = store.source()[row].shard as usize;
        let path = store
            .manifest
            .shards
            .get(shard)
            .map_or_else(String::new, |s| s.path.clone());
        return Err(Error::Config(format!(
            "{} documents read again from their shards are not the text that was fingerprinted (the first, {:?}, in {path}): the shards changed since; fingerprint them again",
            changed.len(),
            stores.id(d)
        )));
    }
    Ok(found)
}

/// Reads the documents `docs` again as [`for_each_text`] does, and calls `f(state, doc,
/// record)` with each record as its reader delivers it (payload not extracted).
pub fn for_each_record<S, T: Send>(
    stores: &StoreSet,
    docs: &[u32],
    shard_dir: Option<&Path>,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, u32, &Document<'_>) -> T + Sync,
) -> Result<Found<T>> {
    // Documents of stores held in memory are read from there, in parallel; the rest from
    // their shards.
    let (memory, docs): (Vec<u32>, std::borrow::Cow<'_, [u32]>) =
        if stores.stores().iter().any(|s| s.memory().is_some()) {
            let in_memory = |d: &u32| stores.stores()[stores.position(*d).0].memory().is_some();
            let (m, f): (Vec<u32>, Vec<u32>) = docs.iter().partition(|d| in_memory(d));
            (m, f.into())
        } else {
            (Vec::new(), docs.into())
        };
    let from_memory = if memory.is_empty() {
        None
    } else {
        Some(read_memory(stores, &memory, &init, &f)?)
    };
    // (store, shard) -> the wanted locations in that shard.
    let mut groups: HashMap<(usize, u32), Wanted> = HashMap::new();
    // Documents whose location another document of the store names too (a damaged source
    // column): one record cannot be both, so all but one are not found, and counted so.
    let mut shared = Vec::new();
    for &d in docs.iter() {
        let (si, row) = stores.position(d);
        let loc = stores.stores()[si].source()[row];
        let before = groups
            .entry((si, loc.shard))
            .or_default()
            .insert((loc.offset, loc.inner, loc.match_kind()), (d, loc.length));
        shared.extend(before.map(|b| b.0));
    }
    let mut groups: Vec<_> = groups.into_iter().collect();
    groups.sort_by_key(|(k, _)| *k);
    let mut paths = HashMap::new();
    for ((si, shard), _) in &groups {
        paths.insert((*si, *shard), locate_shard(stores, *si, *shard, shard_dir)?);
    }
    // A shard whose records are read by seeking is cut into parts of consecutive records,
    // read in parallel (a crawl of one large shard would otherwise be read on one thread).
    let groups: Vec<((usize, u32), Wanted)> = groups
        .into_iter()
        .flat_map(|((si, shard), wanted)| {
            let format = stores.stores()[si].manifest.shards[shard as usize].format;
            let seekable = match format {
                ShardFormat::Warc | ShardFormat::Jsonl | ShardFormat::Parquet => true,
                ShardFormat::WarcGz => wanted.values().all(|v| v.1 > 0),
                _ => false,
            };
            if !seekable || wanted.len() <= PART {
                return vec![((si, shard), wanted)];
            }
            let mut records: Vec<_> = wanted.into_iter().collect();
            records.sort_unstable_by_key(|r| r.0);
            let mut parts = Vec::new();
            while !records.is_empty() {
                // A part never splits the records of one gzip member or WARC record.
                let mut cut = records.len().min(PART);
                while cut < records.len() && records[cut].0 .0 == records[cut - 1].0 .0 {
                    cut += 1;
                }
                let rest = records.split_off(cut);
                parts.push(((si, shard), records.into_iter().collect::<Wanted>()));
                records = rest;
            }
            parts
        })
        .collect();
    // Each worker's state (its term cache above all) serves every part it reads, not one
    // part of 256 records only.
    let parts: Vec<Result<Found<T>>> = groups
        .into_par_iter()
        .map_init(&init, |state, ((si, shard), wanted)| {
            let store = &stores.stores()[si];
            let m = &store.manifest;
            let opts = m.reading.as_ref().map(|r| r.options()).unwrap_or_default();
            let shards: Vec<Shard> = m
                .shards
                .iter()
                .enumerate()
                .map(|(i, s)| Shard {
                    path: paths
                        .get(&(si, i as u32))
                        .cloned()
                        .unwrap_or_else(|| PathBuf::from(&s.path)),
                    rel: s.path.clone(),
                    format: s.format,
                    size: s.bytes,
                })
                .collect();
            let mut sink = Collect {
                wanted,
                state,
                f: &f,
                values: Vec::new(),
                payload_bytes: 0,
            };
            read_wanted(&shards, shard, &opts, &mut sink)?;
            let mut missing: Vec<u32> = sink.wanted.into_values().map(|v| v.0).collect();
            missing.sort_unstable();
            Ok(Found {
                values: sink.values,
                missing,
                payload_bytes: sink.payload_bytes,
            })
        })
        .collect();
    let mut all = from_memory.unwrap_or(Found {
        values: Vec::new(),
        missing: Vec::new(),
        payload_bytes: 0,
    });
    all.missing.extend(shared);
    for p in parts {
        let p = p?;
        all.values.extend(p.values);
        all.missing.extend(p.missing);
        all.payload_bytes += p.payload_bytes;
    }
    all.missing.sort_unstable();
    Ok(all)
}

/// The documents `docs` of stores made from tables (held in memory, or scanned again), read
/// from there in chunks, each chunk's documents in parallel with one `state` per task.
fn read_memory<S, T: Send>(
    stores: &StoreSet,
    docs: &[u32],
    init: &(impl Fn() -> S + Sync),
    f: &(impl Fn(&mut S, u32, &Document<'_>) -> T + Sync),
) -> Result<Found<T>> {
    let mut all = Found {
        values: Vec::with_capacity(docs.len()),
        missing: Vec::new(),
        payload_bytes: 0,
    };
    let mut by_store: HashMap<usize, Vec<(u32, crate::corpus::SourceLoc)>> = HashMap::new();
    for &d in docs {
        let (si, row) = stores.position(d);
        by_store
            .entry(si)
            .or_default()
            .push((d, stores.stores()[si].source()[row]));
    }
    let mut found = std::collections::HashSet::new();
    for (si, wanted) in by_store {
        let Some(m) = stores.stores()[si].memory() else {
            continue;
        };
        m.read(&wanted, &mut |chunk| {
            let per = chunk
                .len()
                .div_ceil(4 * rayon::current_num_threads())
                .max(16);
            let parts: Vec<(Vec<(u32, T)>, u64)> = chunk
                .par_chunks(per)
                .map(|part| {
                    let mut state = init();
                    let bytes = part.iter().map(|(_, doc)| doc.payload.len() as u64).sum();
                    let values = part
                        .iter()
                        .map(|(d, doc)| (*d, f(&mut state, *d, doc)))
                        .collect();
                    (values, bytes)
                })
                .collect();
            for (values, bytes) in parts {
                found.extend(values.iter().map(|v| v.0));
                all.values.extend(values);
                all.payload_bytes += bytes;
            }
        })?;
    }
    all.missing = docs
        .iter()
        .copied()
        .filter(|d| !found.contains(d))
        .collect();
    Ok(all)
}

/// Reads the wanted records of shard `shard` into `sink`, seeking to them where the format
/// allows: a plain WARC or JSONL record at its offset, a gzip member by its offset and length
/// (so a shard's other members are not inflated); a single-stream gzip shard, or a store
/// that did not keep member lengths, is read whole.
fn read_wanted<S, T, F: Fn(&mut S, u32, &Document<'_>) -> T>(
    shards: &[Shard],
    shard: u32,
    opts: &ReadOptions,
    sink: &mut Collect<'_, '_, S, T, F>,
) -> Result<()> {
    let info = &shards[shard as usize];
    let mut targets: Vec<(u64, u64)> = sink.wanted.iter().map(|(k, v)| (k.0, v.1)).collect();
    targets.sort_unstable();
    targets.dedup();
    let unit = |start: u64, end: u64| WorkUnit { shard, start, end };
    match info.format {
        ShardFormat::Warc => {
            for (offset, _) in targets {
                read_unit(&unit(offset, offset + 1), shards, opts, sink)?;
            }
        }
        ShardFormat::Jsonl => {
            for (offset, length) in targets {
                read_unit(&unit(offset, offset + length + 1), shards, opts, sink)?;
            }
        }
        // A Parquet row is read with its row group, named by its byte range.
        ShardFormat::Parquet => {
            for (offset, length) in targets {
                read_unit(&unit(offset, offset + length), shards, opts, sink)?;
            }
        }
        ShardFormat::WarcGz => {
            let map = mmap::map(&info.path)?;
            let fits = |(o, l): &(u64, u64)| *l > 0 && o.saturating_add(*l) <= map.len() as u64;
            if targets.iter().all(fits) {
                for (offset, length) in targets {
                    let member = &map[offset as usize..(offset + length) as usize];
                    let mut shifted = Shifted {
                        base: offset,
                        sink: &mut *sink,
                    };
                    gzip::read_members(member, shard, opts.max_record, &mut shifted);
                }
            } else {
                read_unit(&unit(0, info.size), shards, opts, sink)?;
            }
        }
        _ => read_unit(&unit(0, info.size), shards, opts, sink)?,
    }
    Ok(())
}

/// Passes documents read from a slice of a shard on with their offsets in the whole shard.
struct Shifted<'s> {
    base: u64,
    sink: &'s mut dyn Sink,
}

impl Sink for Shifted<'_> {
    fn document(&mut self, mut doc: Document<'_>) {
        doc.loc.offset += self.base;
        self.sink.document(doc);
    }
    fn skip(&mut self, _: Skip, _: u64, _: &str) {}
}

/// Where shard `shard` of store `si` is now: the first of its recorded absolute path, its path
/// as given, and `shard_dir` joined with its file name that exists; it must have the size and
/// checksum it had when fingerprinted.
pub fn locate_shard(
    stores: &StoreSet,
    si: usize,
    shard: u32,
    shard_dir: Option<&Path>,
) -> Result<PathBuf> {
    let store = &stores.stores()[si];
    let Some(info) = store.manifest.shards.get(shard as usize) else {
        return Err(Error::store(
            store.path(),
            format!("a document names shard {shard}, which the manifest does not list"),
        ));
    };
    let given = PathBuf::from(&info.path);
    let mut tried: Vec<PathBuf> = info.absolute.iter().map(PathBuf::from).collect();
    tried.push(given.clone());
    if let (Some(dir), Some(name)) = (shard_dir, given.file_name()) {
        tried.push(dir.join(name));
    }
    let Some(path) = tried.iter().find(|p| p.is_file()).cloned() else {
        let hint = if shard_dir.is_some() {
            ""
        } else {
            "; if the shards moved, --shard-dir DIR says where they are now"
        };
        return Err(Error::Config(format!(
            "the shard {} of store {} is not there any more (looked at {}){hint}: its documents' text is needed to verify their pairs",
            info.path,
            store.path().display(),
            tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        )));
    };
    let data = mmap::map(&path)?;
    let changed = data.len() as u64 != info.bytes
        || info
            .checksum
            .as_ref()
            .is_some_and(|c| *c != shard_checksum(&data));
    if changed {
        return Err(Error::Config(format!(
            "the shard {} of store {} has changed since it was fingerprinted (recorded {} bytes, now {}; checksum {}): fingerprint it again",
            path.display(),
            store.path().display(),
            info.bytes,
            data.len(),
            if data.len() as u64 == info.bytes { "differs" } else { "not compared" }
        )));
    }
    Ok(path)
}

struct Collect<'f, 's, S, T, F> {
    wanted: Wanted,
    state: &'s mut S,
    f: &'f F,
    values: Vec<(u32, T)>,
    payload_bytes: u64,
}

impl<S, T, F: Fn(&mut S, u32, &Document<'_>) -> T> Sink for Collect<'_, '_, S, T, F> {
    fn document(&mut self, doc: Document<'_>) {
        let key = (doc.loc.offset, doc.loc.inner, doc.loc.match_kind());
        let Some((d, _)) = self.wanted.remove(&key) else {
            return;
        };
        self.payload_bytes += doc.payload.len() as u64;
        let v = (self.f)(self.state, d, &doc);
        self.values.push((d, v));
    }

    fn skip(&mut self, _: Skip, _: u64, _: &str) {}
}
