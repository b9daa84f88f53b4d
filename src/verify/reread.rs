//! Documents read again from their shards, found by the source locations the store kept.
//!
//! The documents wanted are grouped by shard; each shard is read once, front to back, by the
//! same reader that fingerprinted it (with the reader settings the manifest kept), shards in
//! parallel. A record whose location is wanted has its text extracted the way fingerprinting
//! did it ([`crate::text::extract`]); every other record is passed over without extraction.
//! A shard that is gone, or whose size is not the one fingerprinted, is an error naming it.

use std::collections::HashMap;
use std::path::PathBuf;

use rayon::prelude::*;

use crate::corpus::{read_unit, Document, PayloadKind, Shard, Sink, Skip, WorkUnit};
use crate::fingerprint::store::StoreSet;
use crate::text::extract;
use crate::{Error, Result};

/// A record's place in its shard (offset, inner offset, kind) and the document it is.
type Wanted = HashMap<(u64, u64, u32), u32>;

/// The texts found, and the documents that were not found where the store said.
pub struct Found<T> {
    /// `(document, value)` for every document found.
    pub values: Vec<(u32, T)>,
    /// Documents whose record was not found again.
    pub missing: Vec<u32>,
}

/// Reads the documents `docs` (indices into `stores`) again and calls `f(state, doc, text)`
/// for each, with one `state` per shard made by `init`.
pub fn for_each_text<S, T: Send>(
    stores: &StoreSet,
    docs: &[u32],
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, u32, &str) -> T + Sync,
) -> Result<Found<T>> {
    // (store, shard) -> the wanted locations in that shard.
    let mut groups: HashMap<(usize, u32), Wanted> = HashMap::new();
    for &d in docs {
        let si = (0..stores.stores().len())
            .rfind(|s| stores.base(*s) <= d)
            .unwrap_or(0);
        let store = &stores.stores()[si];
        let loc = store.source()[(d - stores.base(si)) as usize];
        groups
            .entry((si, loc.shard))
            .or_default()
            .insert((loc.offset, loc.inner, loc.kind), d);
    }
    let mut groups: Vec<_> = groups.into_iter().collect();
    groups.sort_by_key(|(k, _)| *k);
    for ((si, shard), _) in &groups {
        check_shard(stores, *si, *shard)?;
    }
    let parts: Vec<Result<Found<T>>> = groups
        .into_par_iter()
        .map(|((si, shard), wanted)| {
            let store = &stores.stores()[si];
            let m = &store.manifest;
            let opts = m.reading.as_ref().map(|r| r.options()).unwrap_or_default();
            let shards: Vec<Shard> = m
                .shards
                .iter()
                .map(|s| Shard {
                    path: PathBuf::from(&s.path),
                    rel: s.path.clone(),
                    format: s.format,
                    size: s.bytes,
                })
                .collect();
            let unit = WorkUnit {
                shard,
                start: 0,
                end: m.shards[shard as usize].bytes,
            };
            let mut sink = Collect {
                wanted,
                state: init(),
                f: &f,
                text: String::new(),
                values: Vec::new(),
            };
            read_unit(&unit, &shards, &opts, &mut sink)?;
            let mut missing: Vec<u32> = sink.wanted.into_values().collect();
            missing.sort_unstable();
            Ok(Found {
                values: sink.values,
                missing,
            })
        })
        .collect();
    let mut all = Found {
        values: Vec::new(),
        missing: Vec::new(),
    };
    for p in parts {
        let p = p?;
        all.values.extend(p.values);
        all.missing.extend(p.missing);
    }
    all.missing.sort_unstable();
    Ok(all)
}

/// The shard must be where the manifest says, with the size it had.
fn check_shard(stores: &StoreSet, si: usize, shard: u32) -> Result<()> {
    let store = &stores.stores()[si];
    let Some(info) = store.manifest.shards.get(shard as usize) else {
        return Err(Error::store(
            store.path(),
            format!("a document names shard {shard}, which the manifest does not list"),
        ));
    };
    let meta = std::fs::metadata(&info.path).map_err(|e| {
        Error::Config(format!(
            "the shard {} of store {} cannot be read again ({e}); the documents' text is needed to verify their pairs",
            info.path,
            store.path().display()
        ))
    })?;
    if meta.len() != info.bytes {
        return Err(Error::Config(format!(
            "the shard {} of store {} has changed since it was fingerprinted ({} bytes, then {}): fingerprint it again",
            info.path,
            store.path().display(),
            meta.len(),
            info.bytes
        )));
    }
    Ok(())
}

struct Collect<'f, S, T, F> {
    wanted: Wanted,
    state: S,
    f: &'f F,
    text: String,
    values: Vec<(u32, T)>,
}

impl<S, T, F: Fn(&mut S, u32, &str) -> T> Sink for Collect<'_, S, T, F> {
    fn document(&mut self, doc: Document<'_>) {
        let key = (doc.loc.offset, doc.loc.inner, doc.loc.kind);
        let Some(d) = self.wanted.remove(&key) else {
            return;
        };
        let html = match doc.kind {
            PayloadKind::Html => Some(true),
            PayloadKind::Text => Some(false),
            PayloadKind::Unknown => None,
        };
        extract::payload_text(&doc.payload, doc.charset.as_deref(), html, &mut self.text);
        let v = (self.f)(&mut self.state, d, &self.text);
        self.values.push((d, v));
    }

    fn skip(&mut self, _: Skip, _: u64, _: &str) {}
}
