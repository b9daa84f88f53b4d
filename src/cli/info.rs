//! `neardup info`: what a store holds and how it was made.

use super::args::InfoArgs;
use super::Outcome;
use crate::fingerprint::store::{flags, open_many, Manifest, Store};
use crate::report::skips::skip_summary;

fn describe(store: &Store) -> String {
    let m = &store.manifest;
    let p = &m.params;
    let f = &m.filters;
    let joinable = store
        .flags()
        .iter()
        .filter(|x| **x & (flags::SHORT | flags::NO_FEATURES) == 0)
        .count();
    format!(
        "store {}\n  written by {}\n  documents: {} ({} joinable)\n  shards: {} ({:.1} MB)\n  features: {:?}, ngrams {:?}, {:?}, seed {}, hash {}\n  filters: status 200 only {}, HTML/text only {}, min HTML length {}, min terms {}, English only {}\n  also stored: {}\n{}",
        store.path().display(),
        m.created_by,
        m.docs,
        joinable,
        m.shards.len(),
        m.stats.input_bytes as f64 / 1e6,
        p.features,
        p.ngrams,
        p.tokens,
        p.seed,
        p.hash,
        f.status_200_only,
        f.html_text_only,
        f.min_html_len,
        f.min_terms,
        f.english_only,
        extras(store),
        skip_summary(m)
    )
}

/// The optional columns a store has: MinHash band keys, paragraph chunks.
fn extras(store: &Store) -> String {
    let m = &store.manifest;
    let mut out = Vec::new();
    if let Some(p) = &m.minhash {
        out.push(format!(
            "MinHash band keys ({} bands x {} rows)",
            p.bands, p.rows
        ));
    }
    if let Some(c) = store.chunks() {
        out.push(format!(
            "paragraph chunks ({}, {:.1} per document)",
            c.hashes.len(),
            c.hashes.len() as f64 / store.len().max(1) as f64
        ));
    }
    if out.is_empty() {
        "nothing optional".into()
    } else {
        out.join(", ")
    }
}

/// Runs the command.
pub fn run(a: InfoArgs) -> anyhow::Result<Outcome> {
    let stores = open_many(&a.stores)?;
    if a.json {
        let all: Vec<&Manifest> = stores.iter().map(|s| &s.manifest).collect();
        println!("{}", serde_json::to_string_pretty(&all)?);
        return Ok(Outcome::Clean);
    }
    for s in &stores {
        println!("{}", describe(s));
    }
    if stores.len() > 1 {
        let total: usize = stores.iter().map(Store::len).sum();
        println!("corpus: {} stores, {total} documents", stores.len());
    }
    Ok(Outcome::Clean)
}
