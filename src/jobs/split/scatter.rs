//! The scatter stage: one store's keys, each sent to the partition owning its key range.
//!
//! A document's keys are those that make one box's candidates: its MinHash band keys, its
//! pair of fingerprints (documents of identical fingerprints are one unit there), and, with
//! canonical links, its canonical URL (every document's: one naming a URL makes that URL a
//! class) or its own normalised URL. Keys of different kinds and bands are mixed apart. Its
//! id's hash goes to a file of its own, to find ids repeated across stores.

use std::path::PathBuf;

use super::plan::{Plan, TaskStats};
use super::records::{self, mix, Buckets};
use crate::fingerprint::store::{flags, set::suspect};
use crate::join::lsh::KeyRange;
use crate::text::canonical::normal_url;

/// Kinds of keys, mixed into them (bands take 0..bands).
const FINGERPRINT: u64 = 1 << 32;
const CANONICAL: u64 = (1 << 32) + 1;
/// Own lines, mixed into their (host, block) keys in the groups stage.
pub const OWN_LINE: u64 = (1 << 32) + 2;

/// Store `s`'s directory of the stage.
pub fn dir(plan: &Plan, s: usize) -> PathBuf {
    plan.work.join("scatter").join(format!("s{s:05}"))
}

/// The file of store `s`'s keys, partitioned ([`records::Buckets`]).
pub fn keys(plan: &Plan, s: usize) -> PathBuf {
    dir(plan, s).join("keys.bin")
}

/// The file of store `s`'s id hashes, partitioned.
pub fn ids(plan: &Plan, s: usize) -> PathBuf {
    dir(plan, s).join("ids.bin")
}

/// The file of store `s`'s counted blocks with their pages' titles, partitioned by (host,
/// block) key (own content).
pub fn block_titles(plan: &Plan, s: usize) -> PathBuf {
    dir(plan, s).join("blocks.bin")
}

/// The file of store `s`'s counted blocks with their hosts, partitioned as [`block_titles`].
pub fn block_hosts(plan: &Plan, s: usize) -> PathBuf {
    dir(plan, s).join("block-hosts.bin")
}

/// The file of store `s`'s joinable pages' lines of [`own::OWN_LINE_WORDS`] words or more,
/// as (host, block) keys with their documents, partitioned as [`block_titles`]: the lines
/// that are not their site's make candidates (decided in the groups stage).
///
/// [`own::OWN_LINE_WORDS`]: crate::fingerprint::own::OWN_LINE_WORDS
pub fn block_docs(plan: &Plan, s: usize) -> PathBuf {
    dir(plan, s).join("block-docs.bin")
}

/// The file of the pages each host counts in store `s` (one partition).
pub fn host_pages(plan: &Plan, s: usize) -> PathBuf {
    dir(plan, s).join("hosts.bin")
}

/// Store `s`'s documents whose id could clash with a name made for a repeated id.
pub fn suspects(plan: &Plan, s: usize) -> PathBuf {
    dir(plan, s).join("suspects.json")
}

/// Scatters store `s`'s keys.
pub fn run(plan: &Plan, s: usize, stats: &mut TaskStats) -> anyhow::Result<()> {
    let store = plan.open_store(s, true)?;
    let ps = &plan.stores[s];
    records::dir(dir(plan, s))?;
    let parts = plan.partitions;
    let part = |k: u64| KeyRange::part_of(k, parts);
    let mut keyed = Buckets::create(parts, &keys(plan, s))?;
    let mut ids_out = Buckets::create(parts, &ids(plan, s))?;
    let fl = store.flags();
    let joinable = |i: usize| fl[i] & (flags::SHORT | flags::NO_FEATURES) == 0;
    let doc = |i: usize| ps.first + i as u64;
    let mut sent = 0u64;
    for b in 0..plan.bands as usize {
        let column = store
            .minhash_band(b)
            .ok_or_else(|| anyhow::anyhow!("{}: no band {b} of MinHash keys", ps.path.display()))?;
        for (i, k) in column.iter().enumerate().filter(|(i, _)| joinable(*i)) {
            let key = mix(b as u64, *k);
            keyed.push(part(key), [key, doc(i)])?;
            sent += 1;
        }
        drop(column);
        store.release_minhash_band(b);
    }
    let (fp64, fp128) = (store.fp64(), store.fp128());
    let mut suspect_ids = Vec::new();
    for i in 0..store.len() {
        if joinable(i) {
            let key = mix(FINGERPRINT ^ fp64[i], mix(fp128[i][0], fp128[i][1]));
            keyed.push(part(key), [key, doc(i)])?;
            sent += 1;
        }
        if plan.canonical {
            let c = store.canonical(i);
            let named = if !c.is_empty() {
                Some(xxhash_rust::xxh3::xxh3_64(c.as_bytes()))
            } else if joinable(i) && !store.url(i).is_empty() {
                Some(xxhash_rust::xxh3::xxh3_64(
                    normal_url(store.url(i)).as_bytes(),
                ))
            } else {
                None
            };
            if let Some(h) = named {
                let key = mix(CANONICAL, h);
                keyed.push(part(key), [key, doc(i)])?;
                sent += 1;
            }
        }
        let id = store.id(i);
        let h = xxhash_rust::xxh3::xxh3_64(id.as_bytes());
        ids_out.push(part(h), [h, doc(i)])?;
        if suspect(id) {
            suspect_ids.push((doc(i), id.to_string()));
        }
    }
    keyed.commit()?;
    ids_out.commit()?;
    if plan.own {
        own_blocks(plan, s, &store, stats)?;
    }
    crate::base::atomic::write_unscanned(
        &suspects(plan, s),
        serde_json::to_string(&suspect_ids)?.as_bytes(),
    )?;
    stats.counts.insert("keys".into(), sent.into());
    stats.counts.insert("documents".into(), ps.docs.into());
    Ok(())
}

/// Sends every counted page's blocks (a page with a host and a title; every page of the
/// store, as one box counts them) to the partitions owning their (host, block) keys, twice:
/// with the page's title, and with its host; and writes the pages each host counts here.
fn own_blocks(
    plan: &Plan,
    s: usize,
    store: &crate::fingerprint::store::Store,
    stats: &mut TaskStats,
) -> anyhow::Result<()> {
    use crate::fingerprint::own;
    let parts = plan.partitions;
    let mut titles = Buckets::create(parts, &block_titles(plan, s))?;
    let mut hosts = Buckets::create(parts, &block_hosts(plan, s))?;
    let mut docs = Buckets::create(parts, &block_docs(plan, s))?;
    let fl = store.flags();
    let first = plan.stores[s].first;
    let mut pages: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    let mut sent = 0u64;
    if let Some(blocks) = store.blocks() {
        for (i, f) in fl.iter().enumerate() {
            let h = crate::base::host::key(store.url(i), store.id(i));
            let Some((title, keys)) = own::counted(h, blocks.doc(i)) else {
                continue;
            };
            *pages.entry(h).or_insert(0) += 1;
            let joinable = f & (flags::SHORT | flags::NO_FEATURES) == 0;
            for b in keys {
                let k = own::site_key(h, *b);
                let p = KeyRange::part_of(k, parts);
                titles.push(p, [k, title])?;
                hosts.push(p, [k, h])?;
                if joinable && crate::text::blocks::words(*b) >= own::OWN_LINE_WORDS {
                    docs.push(p, [k, first + i as u64])?;
                }
                sent += 1;
            }
        }
    }
    titles.commit()?;
    hosts.commit()?;
    docs.commit()?;
    let mut counts = Buckets::create(1, &host_pages(plan, s))?;
    let mut pages: Vec<[u64; 2]> = pages.into_iter().map(|(h, n)| [h, n]).collect();
    pages.sort_unstable();
    for x in pages {
        counts.push(0, x)?;
    }
    counts.commit()?;
    stats.counts.insert("blocks".into(), sent.into());
    Ok(())
}
