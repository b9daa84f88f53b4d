//! Blind discovery: the chunks a corpus repeats more than a threshold number of times.
//!
//! Every chunk hash of every store is counted exactly ([`super::count`], the stores as one
//! corpus); a chunk seen more than `min_count` times is labeled unless it is a stop chunk.
//! With the automatic rule on, a labeled chunk seen on at least `stop_sites` distinct sites is
//! moved to the automatic stop chunks instead: a paragraph that many unrelated sites repeat is
//! infrastructure (a widget, a licence line, a theme's footer), not one party copying another.
//! One more pass over the documents finds, for each labeled chunk, its distinct sites and the
//! first document holding it (where its sample text is read).

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::count::{self, Blocks, Slices};
use super::neighbourhood;
use super::stop::StopChunks;
use crate::fingerprint::store::StoreSet;

/// What to discover.
#[derive(Clone)]
pub struct DiscoverConfig {
    /// A chunk is labeled when seen more than this many times.
    pub min_count: u64,
    /// Memory for counting, in bytes (sets the number of passes).
    pub memory: u64,
    /// Stop chunks, never labeled.
    pub stop: StopChunks,
    /// The automatic rule: a frequent chunk on at least this many distinct sites is a stop
    /// chunk (None: off).
    pub stop_sites: Option<u64>,
}

/// One frequent chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frequent {
    /// The chunk's hash.
    pub hash: u128,
    /// Occurrences in the corpus.
    pub count: u64,
    /// Distinct sites it occurs on (at most `SITES_CAP` counted).
    pub sites: u64,
    /// The first document holding it (index into the store set).
    pub first_doc: u32,
}

impl Frequent {
    /// A chunk seen `count` times, not yet located (no sites, no first document).
    pub fn counted(hash: u128, count: u64) -> Frequent {
        Frequent {
            hash,
            count,
            sites: 0,
            first_doc: u32::MAX,
        }
    }
}

/// Sites counted per chunk before counting stops (the rule only asks "at least N").
const SITES_CAP: usize = 100_000;

/// What discovery found.
#[derive(Clone, Debug, Default)]
pub struct Discovery {
    /// Labeled chunks, most frequent first (ties by hash).
    pub labeled: Vec<Frequent>,
    /// Frequent chunks the automatic rule made stop chunks, most frequent first.
    pub auto_stop: Vec<Frequent>,
    /// Frequent chunks on the given stop list (built-in or file), most frequent first.
    pub listed_stop: Vec<Frequent>,
    /// The frequency-occurrence distribution: for each count, how many distinct chunks were
    /// seen that many times.
    pub histogram: BTreeMap<u64, u64>,
    /// Chunks in the corpus (with repeats).
    pub chunks: u64,
    /// Distinct chunks.
    pub distinct: u64,
    /// Counting passes made.
    pub passes: usize,
}

/// The chunk columns of every store, or the names of those without one.
pub fn chunk_slices(stores: &StoreSet) -> Result<Vec<&[u128]>, Vec<String>> {
    let mut slices = Vec::new();
    let mut missing = Vec::new();
    for s in stores.stores() {
        match s.chunks() {
            Some(c) => slices.push(c.hashes),
            None => missing.push(s.path().display().to_string()),
        }
    }
    if missing.is_empty() {
        Ok(slices)
    } else {
        Err(missing)
    }
}

/// Counts every chunk of `src` and keeps those seen more than `min_count` times that are not
/// stop chunks (`labeled`), and those that are (`listed_stop`), with the distribution.
pub fn frequent(src: &dyn Blocks, cfg: &DiscoverConfig) -> Discovery {
    let passes = count::passes_for(src.total(), cfg.memory);
    let mut d = Discovery {
        passes,
        ..Discovery::default()
    };
    count::count(src, passes, |h, c| {
        d.chunks += c;
        d.distinct += 1;
        *d.histogram.entry(c).or_default() += 1;
        if c > cfg.min_count {
            if cfg.stop.contains(h) {
                d.listed_stop.push(Frequent::counted(h, c));
            } else {
                d.labeled.push(Frequent::counted(h, c));
            }
        }
    });
    for list in [&mut d.labeled, &mut d.listed_stop] {
        list.sort_unstable_by(|a, b| b.count.cmp(&a.count).then(a.hash.cmp(&b.hash)));
    }
    d
}

/// Discovery over the chunk columns of `stores`: counts, sites and first documents (of the
/// labels and of the frequent listed stop chunks), and the automatic stop rule. `Err` names the stores built without `--chunks`.
pub fn discover(stores: &StoreSet, cfg: &DiscoverConfig) -> Result<Discovery, Vec<String>> {
    let slices = chunk_slices(stores)?;
    let mut d = frequent(&Slices::new(&slices), cfg);
    // Labels and listed stop chunks located in one pass over the documents.
    let labeled = d.labeled.len();
    let mut all = std::mem::take(&mut d.labeled);
    all.append(&mut d.listed_stop);
    locate(stores, &mut all);
    d.listed_stop = all.split_off(labeled);
    d.labeled = all;
    if let Some(min_sites) = cfg.stop_sites {
        let (stop, keep): (Vec<Frequent>, Vec<Frequent>) =
            d.labeled.into_iter().partition(|f| f.sites >= min_sites);
        d.labeled = keep;
        d.auto_stop = stop;
    }
    Ok(d)
}

/// Fills in each chunk's distinct sites and first document, in one parallel pass over the
/// documents.
pub fn locate(stores: &StoreSet, found: &mut [Frequent]) {
    let index: HashMap<u128, usize> = found.iter().enumerate().map(|(i, f)| (f.hash, i)).collect();
    if index.is_empty() {
        return;
    }
    // A few ranges of documents per thread, each with a sparse map of what it saw, merged.
    let parts: Vec<HashMap<usize, (u32, HashSet<u64>)>> = super::doc_ranges(stores.len())
        .map(|range| {
            let mut seen: HashMap<usize, (u32, HashSet<u64>)> = HashMap::new();
            for doc in range.start as u32..range.end as u32 {
                let (si, row) = stores.position(doc);
                let Some(chunks) = stores.stores()[si].chunks() else {
                    continue;
                };
                let site = neighbourhood::site(stores.url(doc)).map(|s| xxh3_64(s.as_bytes()));
                for h in chunks.doc(row) {
                    if let Some(&i) = index.get(h) {
                        let e = seen.entry(i).or_insert_with(|| (doc, HashSet::new()));
                        if let Some(site) = site {
                            if e.1.len() < SITES_CAP {
                                e.1.insert(site);
                            }
                        }
                    }
                }
            }
            seen
        })
        .collect();
    let mut sites: Vec<HashSet<u64>> = vec![HashSet::new(); found.len()];
    let mut first = vec![u32::MAX; found.len()];
    for part in parts {
        for (i, (doc, s)) in part {
            first[i] = first[i].min(doc);
            if sites[i].len() < SITES_CAP {
                sites[i].extend(s);
            }
        }
    }
    for (i, f) in found.iter_mut().enumerate() {
        f.sites = sites[i].len() as u64;
        f.first_doc = first[i];
    }
}
/// The `n` most frequent chunks of `src`, stop chunks included (the caller marks them).
pub fn top(src: &dyn Blocks, n: usize, memory: u64) -> Vec<(u128, u64)> {
    let passes = count::passes_for(src.total(), memory);
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, std::cmp::Reverse<u128>)>> =
        std::collections::BinaryHeap::new();
    count::count(src, passes, |h, c| {
        heap.push(std::cmp::Reverse((c, std::cmp::Reverse(h))));
        if heap.len() > n {
            heap.pop();
        }
    });
    let mut out: Vec<(u128, u64)> = heap.into_iter().map(|r| (r.0 .1 .0, r.0 .0)).collect();
    out.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}
