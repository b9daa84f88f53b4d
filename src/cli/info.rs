//! `neardup info`: what a store holds and how it was made.

use super::args::InfoArgs;
use super::Outcome;
use crate::fingerprint::store::{flags, open_many, Manifest, Store};

/// One line per skip reason and per notable count.
pub fn skip_summary(m: &Manifest) -> String {
    let s = &m.stats;
    let mut out = String::new();
    let skipped: u64 = s.skipped.values().sum();
    out.push_str(&format!("skipped records: {skipped}"));
    for (k, v) in &s.skipped {
        out.push_str(&format!("\n  {k:<18} {v}"));
    }
    out.push_str(&format!(
        "\nshort documents (kept, excluded from joins): {}\ndocuments without features: {}\nduplicate ids: {}\nnon-document records: {}\nContent-Length repaired: {}",
        s.short, s.no_features, s.duplicate_ids, s.other_records, s.length_repaired
    ));
    if !s.failed_shards.is_empty() {
        out.push_str(&format!("\nshards not read: {}", s.failed_shards.len()));
        for f in &s.failed_shards {
            out.push_str(&format!("\n  {f}"));
        }
    }
    out
}

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
        "store {}\n  written by {}\n  documents: {} ({} joinable)\n  shards: {} ({:.1} MB)\n  features: {:?}, ngrams {:?}, {:?}, seed {}, hash {}\n  filters: status 200 only {}, HTML/text only {}, min HTML length {}, min terms {}, English only {}\n{}",
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
        skip_summary(m)
    )
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
