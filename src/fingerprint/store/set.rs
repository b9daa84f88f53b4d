//! Several stores seen as one array of documents, as every command after `fingerprint` sees
//! them.
//!
//! Document `i` of the corpus is document `i - base[s]` of store `s`. With one store the
//! fingerprint columns are the mapped files themselves; with several they are gathered once
//! into memory (24 bytes a document), so the join sees contiguous arrays either way.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::{flags, open_many, Store};
use crate::base::paths::resolve;
use crate::{Error, Result};

/// Whether an id could clash with a name made for a repeated id (`ID#N`, `old:ID`).
pub fn suspect(id: &str) -> bool {
    id.contains('#') || id.starts_with("old:")
}

/// The names of the documents whose id repeats in a corpus: `groups` holds each repeated id
/// with its documents (ascending positions in the corpus), `old` the first document of an
/// older collection, `suspects` every document whose own id could clash with a name made
/// here ([`suspect`]). Repeated ids are qualified by position (`ID#N`), or, against an older
/// collection, by collection first (the old document is `old:ID`, the new one keeps its id);
/// a name made here that is some other document's own id qualifies that one too, until no
/// name is taken twice. The one rule for a store set and for a corpus split across tasks.
pub fn qualify(
    groups: &[(String, Vec<u64>)],
    old: Option<u64>,
    suspects: &[(u64, String)],
) -> HashMap<u64, String> {
    let mut names = HashMap::new();
    let is_old = |d: u64| old.is_some_and(|o| d >= o);
    for (id, group) in groups.iter().filter(|g| g.1.len() > 1) {
        if old.is_none() {
            for d in group {
                names.insert(*d, format!("{id}#{d}"));
            }
            continue;
        }
        // Per collection: repeated within a side, by position; old ones prefixed.
        let olds = group.iter().filter(|d| is_old(**d)).count();
        let news = group.len() - olds;
        for d in group {
            let name = match (is_old(*d), news, olds) {
                (false, 1, _) => continue,
                (false, _, _) => format!("{id}#{d}"),
                (true, _, 1) => format!("old:{id}"),
                (true, _, _) => format!("old:{id}#{d}"),
            };
            names.insert(*d, name);
        }
    }
    // A name made here may be some other document's own id ("a#3"): qualify that one too,
    // until no name is taken twice. Names made here end in their own position, so they
    // never clash with each other.
    loop {
        let taken: HashSet<&str> = names.values().map(String::as_str).collect();
        let clashes: Vec<(u64, String)> = suspects
            .iter()
            .filter(|(d, id)| !names.contains_key(d) && taken.contains(id.as_str()))
            .map(|(d, id)| (*d, format!("{id}#{d}")))
            .collect();
        if clashes.is_empty() {
            break;
        }
        names.extend(clashes);
    }
    names
}

/// Stores opened together.
pub struct StoreSet {
    stores: Vec<Store>,
    /// Global index of each store's first document.
    base: Vec<u32>,
    /// Gathered columns; empty when there is a single store.
    fp64: Vec<u64>,
    fp128: Vec<[u64; 2]>,
    /// The names of documents whose id is not unique in the set (found when first asked).
    names: OnceLock<HashMap<u32, String>>,
    /// Each document's host key (found for every document when first asked, 8 bytes a
    /// document: own content reads it many times a document).
    hosts: OnceLock<Vec<u64>>,
    /// The first document of an older collection the others are deduplicated against, if any
    /// ([`StoreSet::against`]).
    old: Option<u32>,
}

/// Refuses a store given twice in `paths` (however spelled: `S`, `./S/`, a link to it): its
/// documents would pair with themselves under the same ids. Every path that opens stores
/// together (one box, the split run) asks this.
pub fn distinct(paths: &[PathBuf]) -> Result<()> {
    let resolved: Vec<PathBuf> = paths.iter().map(|p| resolve(p)).collect();
    for (i, r) in resolved.iter().enumerate() {
        if let Some(j) = resolved[..i].iter().position(|q| q == r) {
            return Err(Error::Config(format!(
                "the store {} is given twice (as {} and {}); give each store once",
                r.display(),
                paths[j].display(),
                paths[i].display()
            )));
        }
    }
    Ok(())
}

impl StoreSet {
    /// Opens `paths` (they must share fingerprint parameters, and none may be given twice:
    /// its documents would pair with themselves under the same ids).
    pub fn open(paths: &[PathBuf]) -> Result<StoreSet> {
        distinct(paths)?;
        StoreSet::new(open_many(paths)?)
    }

    /// The corpus of already opened stores.
    pub fn new(stores: Vec<Store>) -> Result<StoreSet> {
        let total: usize = stores.iter().map(Store::len).sum();
        if total >= u32::MAX as usize {
            return Err(Error::Config(format!(
                "{total} documents: at most 4 billion documents can be joined together"
            )));
        }
        let mut base = Vec::new();
        let mut n = 0u32;
        for s in &stores {
            base.push(n);
            n += s.len() as u32;
        }
        let (mut fp64, mut fp128) = (Vec::new(), Vec::new());
        if stores.len() > 1 {
            fp64.reserve_exact(total);
            fp128.reserve_exact(total);
            for s in &stores {
                fp64.extend_from_slice(s.fp64());
                fp128.extend_from_slice(s.fp128());
            }
        }
        Ok(StoreSet {
            stores,
            base,
            fp64,
            fp128,
            names: OnceLock::new(),
            hosts: OnceLock::new(),
            old: None,
        })
    }

    /// Marks the stores from `store` on as an older collection the others are deduplicated
    /// against: an id found on both sides is qualified by collection rather than by position
    /// (the old document is named `old:ID`; the new one keeps its id), and ids repeated within
    /// one side are qualified as usual (`ID#N`, old ones `old:ID#N`).
    pub fn against(mut self, store: usize) -> StoreSet {
        self.old = self.base.get(store).copied();
        self.names = OnceLock::new();
        self
    }

    /// The first document of the older collection, if any ([`StoreSet::against`]).
    pub fn old_from(&self) -> Option<u32> {
        self.old
    }

    /// The stores.
    pub fn stores(&self) -> &[Store] {
        &self.stores
    }

    /// Documents in all stores.
    pub fn len(&self) -> usize {
        self.stores.iter().map(Store::len).sum()
    }

    /// True when there are no documents.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Global index of store `s`'s first document (`len()` past the last store).
    pub fn base(&self, s: usize) -> u32 {
        self.base.get(s).copied().unwrap_or(self.len() as u32)
    }

    /// SimHash-64 of every document.
    pub fn fp64(&self) -> &[u64] {
        match self.stores.as_slice() {
            [one] => one.fp64(),
            _ => &self.fp64,
        }
    }

    /// SimHash-128 of every document.
    pub fn fp128(&self) -> &[[u64; 2]] {
        match self.stores.as_slice() {
            [one] => one.fp128(),
            _ => &self.fp128,
        }
    }

    fn locate(&self, doc: u32) -> (&Store, usize) {
        let (s, i) = self.position(doc);
        (&self.stores[s], i)
    }

    /// The store holding document `doc`, and its row there.
    pub fn position(&self, doc: u32) -> (usize, usize) {
        let s = self.base.partition_point(|b| *b <= doc) - 1;
        (s, (doc - self.base[s]) as usize)
    }

    /// The name of document `doc` in every list and table: its id, or, where the id is not
    /// unique among the stores given together, `ID#N` with N the document's position in the
    /// set (its row in `neardup export` of the same stores, from 0). Every occurrence of a
    /// repeated id is qualified, so a list line always means one document.
    pub fn id(&self, doc: u32) -> &str {
        let names = self.names.get_or_init(|| self.repeated_names());
        if !names.is_empty() {
            if let Some(n) = names.get(&doc) {
                return n;
            }
        }
        self.raw_id(doc)
    }

    /// The id of document `doc` as its store holds it.
    pub fn raw_id(&self, doc: u32) -> &str {
        let (s, i) = self.locate(doc);
        s.id(i)
    }

    /// How many documents are named `ID#N` because their id is not unique.
    pub fn qualified(&self) -> usize {
        self.names.get_or_init(|| self.repeated_names()).len()
    }

    /// Names for the documents whose id repeats. One store without duplicate ids (the common
    /// case) costs nothing; otherwise every id is hashed once and only repeated hashes are
    /// compared as strings.
    fn repeated_names(&self) -> HashMap<u32, String> {
        let n = self.len() as u32;
        let clean = |s: &Store| s.manifest.stats.duplicate_ids == 0;
        if n < 2 || (self.stores.len() == 1 && self.stores.iter().all(clean)) {
            return HashMap::new();
        }
        let hash = |d: u32| xxh3_64(self.raw_id(d).as_bytes());
        let mut hashes: Vec<u64> = (0..n).into_par_iter().map(hash).collect();
        hashes.par_sort_unstable();
        let twice: HashSet<u64> = hashes
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect();
        drop(hashes);
        if twice.is_empty() {
            return HashMap::new();
        }
        let mut candidates: Vec<(&str, u32)> = (0..n)
            .into_par_iter()
            .filter(|d| twice.contains(&hash(*d)))
            .map(|d| (self.raw_id(d), d))
            .collect();
        candidates.sort_unstable();
        let groups: Vec<(String, Vec<u64>)> = candidates
            .chunk_by(|a, b| a.0 == b.0)
            .filter(|g| g.len() > 1)
            .map(|g| {
                (
                    g[0].0.to_string(),
                    g.iter().map(|x| u64::from(x.1)).collect(),
                )
            })
            .collect();
        drop(candidates);
        let suspects: Vec<(u64, String)> = (0..n)
            .filter(|d| suspect(self.raw_id(*d)))
            .map(|d| (u64::from(d), self.raw_id(d).to_string()))
            .collect();
        qualify(&groups, self.old.map(u64::from), &suspects)
            .into_iter()
            .map(|(d, name)| (d as u32, name))
            .collect()
    }

    /// Names the documents as `names` says (document -> name) rather than by their ids: a
    /// split run's task opens some stores of the corpus, whose repeated ids were named over
    /// the whole corpus ([`qualify`]).
    pub fn set_names(&mut self, names: HashMap<u32, String>) {
        self.names = OnceLock::from(names);
    }

    /// Content hash (XXH3-128 of the normalised text) of document `doc`.
    pub fn content_hash(&self, doc: u32) -> [u64; 2] {
        let (s, i) = self.locate(doc);
        s.content_hash()[i]
    }

    /// Flags of document `doc`.
    pub fn flags(&self, doc: u32) -> u8 {
        let (s, i) = self.locate(doc);
        s.flags()[i]
    }

    /// Canonical URL of document `doc` (empty when it named none, or in a version 1 store).
    pub fn canonical(&self, doc: u32) -> &str {
        let (s, i) = self.locate(doc);
        s.canonical(i)
    }

    /// The keep field's number of document `doc` (NaN where it had none, or its store keeps
    /// no values).
    pub fn value(&self, doc: u32) -> f64 {
        let (s, i) = self.locate(doc);
        s.values().map_or(f64::NAN, |v| v[i])
    }

    /// URL of document `doc` (may be empty).
    pub fn url(&self, doc: u32) -> &str {
        let (s, i) = self.locate(doc);
        s.url(i)
    }

    /// The key of document `doc`'s host ([`crate::base::host::key`] of its URL and id; 0:
    /// none).
    pub fn host_key(&self, doc: u32) -> u64 {
        self.host_keys()[doc as usize]
    }

    /// Every document's host key ([`StoreSet::host_key`]), found on every core when first
    /// asked.
    pub fn host_keys(&self) -> &[u64] {
        self.hosts.get_or_init(|| {
            (0..self.len() as u32)
                .into_par_iter()
                .map(|d| {
                    let (s, i) = self.locate(d);
                    crate::base::host::key(s.url(i), s.id(i))
                })
                .collect()
        })
    }

    /// Normalised text length of document `doc`.
    pub fn text_len(&self, doc: u32) -> u32 {
        let (s, i) = self.locate(doc);
        s.text_len()[i]
    }

    /// Documents that take part in joins: not short, not featureless.
    pub fn joinable(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len());
        for (s, b) in self.stores.iter().zip(&self.base) {
            for (i, f) in s.flags().iter().enumerate() {
                if f & (flags::SHORT | flags::NO_FEATURES) == 0 {
                    out.push(b + i as u32);
                }
            }
        }
        out
    }

    /// How the MinHash band keys were made, when every store has them, made alike.
    pub fn minhash_params(&self) -> Option<crate::fingerprint::minhash::MinhashParams> {
        let p = self.stores.first()?.manifest.minhash?;
        self.stores
            .iter()
            .all(|s| s.manifest.minhash == Some(p))
            .then_some(p)
    }

    /// The MinHash band keys of every document (`bands` per document, store order) and how
    /// they were made; None unless every store has them, made alike.
    pub fn minhash(
        &self,
    ) -> Option<(
        std::borrow::Cow<'_, [u64]>,
        crate::fingerprint::minhash::MinhashParams,
    )> {
        let p = self.minhash_params()?;
        match self.stores.as_slice() {
            [one] => Some((one.minhash()?, p)),
            many => {
                let mut all = Vec::new();
                for s in many {
                    all.extend_from_slice(&s.minhash()?);
                }
                Some((std::borrow::Cow::Owned(all), p))
            }
        }
    }

    /// The keys of band `b` of every document, store order (see
    /// [`Store::minhash_band`](super::Store::minhash_band)); None unless every store has them,
    /// made alike.
    pub fn minhash_band(&self, b: usize) -> Option<std::borrow::Cow<'_, [u64]>> {
        self.minhash_params()?;
        match self.stores.as_slice() {
            [one] => one.minhash_band(b),
            many => {
                let mut all = Vec::with_capacity(self.len());
                for s in many {
                    all.extend_from_slice(&s.minhash_band(b)?);
                }
                Some(std::borrow::Cow::Owned(all))
            }
        }
    }

    /// Hands band `b`'s pages back to the kernel after a pass over it.
    pub fn release_minhash_band(&self, b: usize) {
        for s in &self.stores {
            s.release_minhash_band(b);
        }
    }

    /// Whether every store keeps the shingle sets of `k`-term shingles (hashed the way
    /// verification hashes them; a store whose manifest names them has opened their
    /// columns): verification then reads the sets, not the shards.
    pub fn has_shingles(&self, k: usize) -> bool {
        let want = Some(super::ShingleParams::new(k));
        !self.stores.is_empty() && self.stores.iter().all(|s| s.manifest.shingles == want)
    }

    /// A 64-bit digest of the corpus's fingerprints and their order, so a pairs file made from
    /// other stores is refused.
    pub fn digest(&self) -> u64 {
        let mut h = xxhash_rust::xxh3::Xxh3::with_seed(0);
        for s in &self.stores {
            h.update(bytemuck::cast_slice(s.fp64()));
            h.update(s.flags());
        }
        h.digest()
    }
}
