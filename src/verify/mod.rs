//! Verification: the candidate pairs of a join, scored on the documents' own text.
//!
//! SimHash finds candidates; what users mean by a near-duplicate is decided on the text, as
//! CopyCat does it: word 8-gram shingles ([`shingle`]) and S3 >= 0.82 ([`measure`]). The
//! documents of the pairs are read again from their shards ([`reread`]), each shard once.
//!
//! Memory: a document's shingle set takes 8 bytes per distinct shingle (a page of 10 KB of
//! text has about 1 500 terms, so about 12 KB). Pairs are verified a batch of whole connected
//! components of the candidate graph at a time, batches filled up to a budget
//! (`VerifySpec::memory`, estimated from the documents' text lengths) and their sets dropped
//! after. A component larger than the budget on its own is cut into blocks of half the
//! budget, and the edges between each two blocks are scored with those two blocks' sets held
//! (every pair compared there, whatever [`Compare`] says). So the sets held at once take at
//! most the budget (plus one document's set, where a single text is larger than half of it).
//! Each document is read once, except in blocks of an oversized component: a block is read
//! once for each block it has edges to.

pub mod evaluate;
pub mod measure;
pub mod reread;
pub mod shingle;

use std::collections::HashMap;

use rayon::prelude::*;

use crate::base::dsu::SeqDsu;
use crate::fingerprint::early_sets::EarlySets;
use crate::fingerprint::own::{self, SiteBlocks};
use crate::fingerprint::store::StoreSet;
use crate::join::graph::{Edge, PairGraph};
use crate::join::pairs_file::EdgeScores;
use crate::join::Pair;
use crate::{Error, Result};
pub use measure::{Measure, Overlap};

/// How pairs are verified.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifySpec {
    /// Terms per shingle.
    pub k: usize,
    /// The measure that decides.
    pub measure: Measure,
    /// Its threshold: a pair is a near-duplicate when the measure is at least this.
    pub min: f64,
    /// Where to look for shards that are no longer where the store recorded them.
    pub shard_dir: Option<std::path::PathBuf>,
    /// Bytes of shingle sets to hold at once (see the module's notes on memory).
    pub memory: u64,
    /// The blocks that are their site's, when pages are compared on their own content.
    pub own: Option<OwnContent>,
    /// Shingle sets kept by the fingerprinting of this run, taken instead of reading those
    /// pages again.
    pub early: Option<Early>,
}

/// The sets a run's fingerprinting kept (shared; equal when the same).
#[derive(Clone, Debug)]
pub struct Early(pub std::sync::Arc<EarlySets>);

impl PartialEq for Early {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The site blocks verification sets aside (shared; equal when the same count).
#[derive(Clone, Debug)]
pub struct OwnContent(pub std::sync::Arc<SiteBlocks>);

impl PartialEq for OwnContent {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A document's shingle set as verification compares it (sorted, without repeats): made here,
/// or kept by fingerprinting ([`EarlySets`]) and read where it was written.
#[derive(Clone, Debug)]
pub enum Set {
    /// Made by verification (read again, or from a store).
    Made(Vec<u64>),
    /// Kept by this run's fingerprinting.
    Kept(crate::fingerprint::early_sets::Kept),
}

impl std::ops::Deref for Set {
    type Target = [u64];

    fn deref(&self) -> &[u64] {
        match self {
            Set::Made(v) => v,
            Set::Kept(k) => k,
        }
    }
}

impl Default for Set {
    fn default() -> Set {
        Set::Made(Vec::new())
    }
}

impl Set {
    /// The set as a vector of its own (a kept set copied).
    pub fn into_vec(self) -> Vec<u64> {
        match self {
            Set::Made(v) => v,
            Set::Kept(k) => k.to_vec(),
        }
    }
}

/// The shingle sets of documents, by document.
pub type Sets = HashMap<u32, Set>;

/// The default budget of shingle sets held at once: 2 GiB.
pub const DEFAULT_MEMORY: u64 = 2 << 30;

impl Default for VerifySpec {
    fn default() -> Self {
        VerifySpec {
            k: shingle::DEFAULT_K,
            measure: Measure::S3,
            min: 0.82,
            shard_dir: None,
            memory: DEFAULT_MEMORY,
            own: None,
            early: None,
        }
    }
}

impl VerifySpec {
    /// Whether `o` passes.
    pub fn passes(&self, o: &Overlap) -> bool {
        let min = if o.whole {
            self.min.max(measure::WHOLE_MIN)
        } else {
            self.min
        };
        o.score(self.measure) >= min
    }
}

/// What verification read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyStats {
    /// Documents read again.
    pub documents: u64,
    /// Their payload (HTML or text) as read, in bytes.
    pub payload_bytes: u64,
    /// Their text, in bytes.
    pub text_bytes: u64,
    /// Shingles held, summed over documents.
    pub shingles: u64,
    /// Shingle sets taken from the stores (kept by fingerprinting), not read again.
    pub kept_sets: u64,
    /// Shingle sets taken from this run's fingerprinting ([`EarlySets`]), not read again.
    pub early_sets: u64,
}

impl VerifyStats {
    /// Adds what another read took.
    pub fn add(&mut self, o: &VerifyStats) {
        self.documents += o.documents;
        self.payload_bytes += o.payload_bytes;
        self.text_bytes += o.text_bytes;
        self.shingles += o.shingles;
        self.kept_sets += o.kept_sets;
        self.early_sets += o.early_sets;
    }

    /// Where the sets came from, for a message: "N documents read again (X MB of payload)",
    /// "N shingle sets kept in the store", or both.
    pub fn describe(&self) -> String {
        let read = format!(
            "{} documents read again ({:.1} MB of payload)",
            self.documents,
            self.payload_bytes as f64 / 1e6
        );
        let read = match self.early_sets {
            0 => read,
            s => format!("{s} shingle sets kept from fingerprinting, {read}"),
        };
        match (self.kept_sets, self.documents) {
            (0, _) => read,
            (k, 0) => format!("{k} shingle sets kept in the store"),
            (k, _) => format!("{k} shingle sets kept in the store, {read}"),
        }
    }
}

/// The shingle sets of `docs`: those the stores keep when every store keeps them (made alike,
/// with `spec.k`), else read again from their shards. With own content (`spec.own`), a page
/// with blocks that are its site's is read again and its set has three parts
/// ([`measure::WHOLE`]): its own text's shingles (none when it has under
/// [`own::MIN_OWN_WORDS`] words of its own), its whole page's (its full text), and its own
/// words. So has a page read whole because its main content is under
/// [`crate::text::extract::MIN_MAIN_WORDS`] words (a login form, an API stub): it has no
/// own content, and its own words are its main content's.
pub fn shingle_sets(
    stores: &StoreSet,
    docs: &[u32],
    spec: &VerifySpec,
) -> Result<(Sets, VerifyStats)> {
    let Some(own) = &spec.own else {
        return plain_sets(stores, docs, spec);
    };
    let mut with_site = Vec::new();
    let mut read_whole = Vec::new();
    let mut rest = Vec::new();
    for &d in docs {
        if read_whole_page(stores, d) {
            read_whole.push(d);
        } else if own.0.has_site_blocks(stores, d) {
            with_site.push(d);
        } else {
            rest.push(d);
        }
    }
    let (mut sets, mut stats) = plain_sets(stores, &rest, spec)?;
    for (docs, parts) in [
        (with_site, Parts::Own(&own.0)),
        (read_whole, Parts::ReadWhole),
    ] {
        if !docs.is_empty() {
            let (more, s) = read_sets(stores, &docs, spec, parts)?;
            sets.extend(more);
            stats.add(&s);
        }
    }
    Ok((sets, stats))
}

/// The sets of `docs`' texts as fingerprinting read them.
fn plain_sets(stores: &StoreSet, docs: &[u32], spec: &VerifySpec) -> Result<(Sets, VerifyStats)> {
    if stores.has_shingles(spec.k) {
        return kept_sets(stores, docs);
    }
    let Some(early) = spec.early.as_ref().filter(|s| s.0.k() == spec.k) else {
        return read_sets(stores, docs, spec, Parts::Plain);
    };
    // A text's set is its content hash's, whichever page of that text fingerprinting kept;
    // each is handed over as it was written there (already a verification set), not copied.
    let found: Vec<(u32, Option<Set>)> = docs
        .par_iter()
        .map(|&d| {
            let [lo, hi] = stores.content_hash(d);
            let set = early
                .0
                .take(u128::from(lo) | u128::from(hi) << 64)
                .map(Set::Kept);
            (d, set)
        })
        .collect();
    let mut sets = HashMap::with_capacity(found.len());
    let mut rest = Vec::new();
    let mut shingles = 0;
    for (d, set) in found {
        match set {
            Some(set) => {
                shingles += set.len() as u64;
                sets.insert(d, set);
            }
            None => rest.push(d),
        }
    }
    let (more, mut stats) = read_sets(stores, &rest, spec, Parts::Plain)?;
    stats.early_sets = sets.len() as u64;
    stats.shingles += shingles;
    sets.extend(more);
    Ok((sets, stats))
}

/// Whether document `d` was read whole where its main content was asked for (under
/// [`crate::text::extract::MIN_MAIN_WORDS`] words of it, or none): a page with no content of
/// its own, a near-duplicate only as a near-identical copy of a whole page.
pub fn read_whole_page(stores: &StoreSet, d: u32) -> bool {
    stores.flags(d) & crate::fingerprint::store::flags::FULL_TEXT != 0
}

/// What a set read again holds.
#[derive(Clone, Copy)]
enum Parts<'a> {
    /// The text's shingles.
    Plain,
    /// Its own content's, with these blocks its site's, its whole page's and its own words
    /// ([`measure::WHOLE`]).
    Own(&'a SiteBlocks),
    /// No own content (a page read whole, [`read_whole_page`]): its whole page's shingles, and
    /// its main content's words as its own.
    ReadWhole,
}

/// The sets of `docs` read again from their shards, as `parts` says.
fn read_sets(
    stores: &StoreSet,
    docs: &[u32],
    spec: &VerifySpec,
    parts: Parts<'_>,
) -> Result<(Sets, VerifyStats)> {
    if docs.is_empty() {
        return Ok((HashMap::new(), VerifyStats::default()));
    }
    let params = &stores.stores()[0].manifest.params;
    let (opts, seed) = (params.tokens, params.seed);
    let also = match parts {
        Parts::Plain => reread::Also::Nothing,
        Parts::Own(_) => reread::Also::Full,
        Parts::ReadWhole => reread::Also::Main,
    };
    let found = reread::for_each_text_and_full(
        stores,
        docs,
        spec.shard_dir.as_deref(),
        also,
        || {
            (
                shingle::Shingler::new(spec.k, opts, seed),
                String::new(),
                shingle::Shingler::new(1, opts, seed),
            )
        },
        |(s, buf, words), d, text, other| {
            let mut out = Vec::new();
            let (mut whole, mut own_words) = (Vec::new(), Vec::new());
            match parts {
                Parts::Own(own) => {
                    if own.own_text(stores, d, text, buf).words_kept >= own::MIN_OWN_WORDS {
                        s.shingles(buf, &mut out);
                    }
                    // The whole page: its full text (`other`), not only its main content (two
                    // pages whose main content is all their site's are copies only if their
                    // whole pages are).
                    s.shingles(other, &mut whole);
                    words.shingles(buf, &mut own_words);
                    out = measure::with_parts(out, &whole, &own_words);
                }
                Parts::ReadWhole => {
                    // The text fingerprinted is the full text; `other` its main content.
                    s.shingles(text, &mut whole);
                    words.shingles(other, &mut own_words);
                    out = measure::with_parts(out, &whole, &own_words);
                }
                Parts::Plain => s.shingles(text, &mut out),
            }
            (text.len() as u64, out)
        },
    )?;
    if let Some(d) = found.missing.first() {
        return Err(Error::Config(format!(
            "{} documents were not found again in their shards (the first is {}): were the shards rewritten in place? fingerprint them again",
            found.missing.len(),
            stores.raw_id(*d)
        )));
    }
    let mut stats = VerifyStats {
        payload_bytes: found.payload_bytes,
        ..VerifyStats::default()
    };
    let sets = found
        .values
        .into_iter()
        .map(|(d, (bytes, set))| {
            stats.documents += 1;
            stats.text_bytes += bytes;
            stats.shingles += set.len() as u64;
            (d, Set::Made(set))
        })
        .collect();
    Ok((sets, stats))
}

/// The shingle sets the stores keep for `docs`, read from their column files in store order
/// (so the reads go front to back through each file), in parallel; nothing is read from the
/// shards.
fn kept_sets(stores: &StoreSet, docs: &[u32]) -> Result<(Sets, VerifyStats)> {
    let mut order = docs.to_vec();
    order.sort_unstable();
    order.dedup();
    let read: Vec<Vec<(u32, Vec<u64>)>> = order
        .par_chunks(1024)
        .map(|chunk| {
            let mut files: Vec<Option<std::fs::File>> =
                (0..stores.stores().len()).map(|_| None).collect();
            chunk
                .iter()
                .map(|&d| {
                    let (s, i) = stores.position(d);
                    let mut set = Vec::new();
                    stores.stores()[s].read_shingles(i, &mut files[s], &mut set)?;
                    Ok((d, set))
                })
                .collect::<Result<Vec<_>>>()
        })
        .collect::<Result<_>>()?;
    let mut stats = VerifyStats::default();
    let mut sets = HashMap::with_capacity(order.len());
    for (d, set) in read.into_iter().flatten() {
        stats.kept_sets += 1;
        stats.text_bytes += u64::from(stores.text_len(d));
        stats.shingles += set.len() as u64;
        sets.insert(d, Set::Made(set));
    }
    Ok((sets, stats))
}

/// Which candidate pairs are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// Every one.
    Every,
    /// Pairs in order of 64-bit distance, each unless its two texts are already joined by
    /// verified pairs at a distance no larger than its own. The clusters at every 64-bit
    /// threshold are the same as with [`Compare::Every`] (a skipped pair would join nothing
    /// new at any threshold that includes it); the pairs skipped stay unscored. Not for 128-bit
    /// thresholds, whose clusters would differ. In a component larger than the memory budget
    /// every pair is compared.
    SkipJoined,
}

impl Compare {
    /// The one rule of which pairs are compared for clusters and lists: pairs whose texts are
    /// already joined are skipped only where `skip` is asked for, the thresholds are 64-bit
    /// only (`tau128` None) and the lists are the clusters' components (`stars` false): a
    /// star removal needs every edge (a text kept for lack of a skipped pair to a kept text
    /// would otherwise stay).
    pub fn for_lists(skip: bool, tau128: Option<u32>, stars: bool) -> Compare {
        if skip && tau128.is_none() && !stars {
            Compare::SkipJoined
        } else {
            Compare::Every
        }
    }
}

/// A candidate graph whose units are texts, with the overlap of every edge's two texts.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredGraph {
    /// Units of identical text (one fingerprint unit's members with equal content hashes);
    /// edges are every candidate pair of two texts.
    pub graph: PairGraph,
    /// One per edge: the shingle overlap of its two texts, or [`Overlap::NOT_COMPARED`].
    pub overlaps: Vec<Overlap>,
    /// Terms per shingle.
    pub k: usize,
    /// Texts compared by this run.
    pub compared: u64,
    /// What this run read.
    pub stats: VerifyStats,
}

/// Document pairs of a scored graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairCounts {
    /// Candidates.
    pub candidates: u64,
    /// Candidates whose verdict is known: identical texts and compared pairs.
    pub known: u64,
    /// Of those, near-duplicates.
    pub verified: u64,
}

impl ScoredGraph {
    /// Whether edge `i` passes `spec` (false when not compared).
    pub fn passes(&self, i: usize, spec: &VerifySpec) -> bool {
        self.overlaps[i].is_compared() && spec.passes(&self.overlaps[i])
    }

    /// The graph of verified pairs: every text unit (identical texts are near-duplicates of
    /// each other) and the edges that pass `spec`.
    pub fn verified(&self, spec: &VerifySpec) -> PairGraph {
        let edges = (0..self.graph.edges.len())
            .filter(|i| self.passes(*i, spec))
            .map(|i| self.graph.edges[i])
            .collect();
        PairGraph {
            docs: self.graph.docs,
            members: self.graph.members.clone(),
            starts: self.graph.starts.clone(),
            edges,
        }
    }

    /// The score under `spec` of each edge of [`ScoredGraph::verified`], in its order.
    pub fn verified_scores(&self, spec: &VerifySpec) -> Vec<f64> {
        (0..self.graph.edges.len())
            .filter(|i| self.passes(*i, spec))
            .map(|i| self.overlaps[i].score(spec.measure))
            .collect()
    }

    /// Document pairs of the edges `keep` admits (and of the text units).
    pub fn counts(&self, spec: &VerifySpec, keep: impl Fn(&Edge) -> bool) -> PairCounts {
        let g = &self.graph;
        let exact = g.exact_pairs();
        let mut c = PairCounts {
            candidates: exact,
            known: exact,
            verified: exact,
        };
        for (i, e) in g.edges.iter().enumerate().filter(|(_, e)| keep(e)) {
            let n = g.edge_pairs(e);
            c.candidates += n;
            if self.overlaps[i].is_compared() {
                c.known += n;
                c.verified += if spec.passes(&self.overlaps[i]) { n } else { 0 };
            }
        }
        c
    }

    /// Every document pair with its overlap, sorted by (a, b); two documents of one text
    /// unit have [`Overlap::IDENTICAL`].
    pub fn pairs(&self) -> Vec<(Pair, Overlap)> {
        let g = &self.graph;
        let mut out: Vec<(Pair, Overlap)> = Vec::new();
        for u in 0..g.units() as u32 {
            let m = g.unit(u);
            for i in 0..m.len() {
                for b in &m[i + 1..] {
                    out.push((Pair::new(m[i], *b, 0, 0), Overlap::IDENTICAL));
                }
            }
        }
        for (e, o) in g.edges.iter().zip(&self.overlaps) {
            for a in g.unit(e.u) {
                for b in g.unit(e.v) {
                    out.push((Pair::new(*a, *b, e.d64, e.d128), *o));
                }
            }
        }
        out.par_sort_unstable_by_key(|x| x.0);
        out
    }

    /// The scores as `pairs.bin` keeps them.
    pub fn edge_scores(&self) -> EdgeScores {
        EdgeScores {
            shingle: self.k as u32,
            // A whole-text pair keeps its mark in the top bit of `a` (a set has fewer than
            // 2^31 shingles; `common` is all ones for a pair not compared).
            overlaps: self
                .overlaps
                .iter()
                .map(|o| [o.common, o.a | (u32::from(o.whole) << 31), o.b])
                .collect(),
        }
    }

    /// A graph of text units read from `pairs.bin` with its scores.
    pub fn from_file(graph: PairGraph, s: &EdgeScores) -> ScoredGraph {
        let overlaps = s
            .overlaps
            .iter()
            .map(|[common, a, b]| Overlap {
                a: *a & !(1 << 31),
                b: *b,
                common: *common,
                whole: *a >> 31 == 1,
            })
            .collect();
        ScoredGraph {
            graph,
            overlaps,
            k: s.shingle as usize,
            compared: 0,
            stats: VerifyStats::default(),
        }
    }
}

/// Compressed rows: row `i` is `items[starts[i]..starts[i + 1]]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rows {
    pub(crate) starts: Vec<u64>,
    pub(crate) items: Vec<u32>,
}

impl Rows {
    pub(crate) fn row(&self, i: u32) -> &[u32] {
        &self.items[self.starts[i as usize] as usize..self.starts[i as usize + 1] as usize]
    }

    pub(crate) fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The transpose over `n` columns: column `c`'s rows, ascending.
    pub(crate) fn transpose(&self, n: usize) -> Rows {
        let mut starts = vec![0u64; n + 1];
        for c in &self.items {
            starts[*c as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut fill = starts.clone();
        let mut items = vec![0u32; self.items.len()];
        for r in 0..self.len() as u32 {
            for c in self.row(r) {
                items[fill[*c as usize] as usize] = r;
                fill[*c as usize] += 1;
            }
        }
        Rows { starts, items }
    }
}

/// A fingerprint unit's members split by text (content hash): the texts, ordered by their
/// first member, with each text's unit and each unit's texts.
pub(crate) struct Texts {
    pub(crate) members: Vec<u32>,
    pub(crate) starts: Vec<u32>,
    /// Text -> fingerprint unit.
    pub(crate) unit: Vec<u32>,
    /// Fingerprint unit -> its texts.
    pub(crate) of_unit: Rows,
}

/// What tells document `d`'s text from others': its content hash; with own content, a page
/// with no own content (its text all its site's but under [`own::MIN_OWN_WORDS`] words) is a
/// text of its own, compared as a whole page, never one with every page whose main content
/// is the same section of their site.
pub(crate) fn text_key(stores: &StoreSet, spec: &VerifySpec, d: u32) -> [u64; 2] {
    if let Some(own) = &spec.own {
        let o = own.0.own_of(stores, d);
        if o.blocks_aside > 0 && o.words_kept < own::MIN_OWN_WORDS {
            return [u64::MAX, u64::from(d)];
        }
    }
    stores.content_hash(d)
}

pub(crate) fn split_texts(
    members: &[u32],
    starts: &[u32],
    hash: impl Fn(u32) -> [u64; 2] + Sync,
) -> Texts {
    let units = starts.len().saturating_sub(1);
    let unit = |u: usize| &members[starts[u] as usize..starts[u + 1] as usize];
    // (first member, unit, members) of each text, per unit in parallel.
    let parts: Vec<Vec<(u32, u32, Vec<u32>)>> = (0..units)
        .into_par_iter()
        .map(|u| {
            let m = unit(u);
            if m.len() == 1 {
                return vec![(m[0], u as u32, Vec::new())];
            }
            let mut keyed: Vec<([u64; 2], u32)> = m.iter().map(|d| (hash(*d), *d)).collect();
            keyed.sort_unstable();
            if keyed.first().map(|k| k.0) == keyed.last().map(|k| k.0) {
                return vec![(m[0], u as u32, Vec::new())];
            }
            keyed
                .chunk_by(|a, b| a.0 == b.0)
                .map(|g| {
                    let mut docs: Vec<u32> = g.iter().map(|x| x.1).collect();
                    docs.sort_unstable();
                    (docs[0], u as u32, docs)
                })
                .collect()
        })
        .collect();
    let mut texts: Vec<(u32, u32, Vec<u32>)> = parts.into_iter().flatten().collect();
    texts.par_sort_unstable_by_key(|t| t.0);
    let mut out = Vec::with_capacity(members.len());
    let mut text_starts = Vec::with_capacity(texts.len() + 1);
    text_starts.push(0u32);
    let mut of = vec![0u32; texts.len()];
    for (i, (_, u, docs)) in texts.iter().enumerate() {
        if docs.is_empty() {
            // The whole unit is one text.
            out.extend_from_slice(unit(*u as usize));
        } else {
            out.extend_from_slice(docs);
        }
        text_starts.push(out.len() as u32);
        of[i] = *u;
    }
    let by_text = Rows {
        starts: (0..=texts.len() as u64).collect(),
        items: of.clone(),
    };
    Texts {
        members: out,
        starts: text_starts,
        of_unit: by_text.transpose(units),
        unit: of,
    }
}

/// `g` with its units split by text: the members of a unit with equal content hashes (equal
/// normalised text) become one text unit, units ordered by their first member. Every
/// candidate edge becomes an edge between each text unit of one side and each of the other,
/// and the text units of one fingerprint unit are joined at distance (0, 0). A graph of text
/// units comes back as it is.
pub fn text_units(stores: &StoreSet, g: &PairGraph, spec: &VerifySpec) -> PairGraph {
    let t = split_texts(&g.members, &g.starts, |d| text_key(stores, spec, d));
    let mut edges = Vec::with_capacity(g.edges.len());
    for u in 0..g.units() as u32 {
        let texts = t.of_unit.row(u);
        for (i, a) in texts.iter().enumerate() {
            for b in &texts[i + 1..] {
                edges.push(Edge::new(*a, *b, 0, 0));
            }
        }
    }
    for e in &g.edges {
        for a in t.of_unit.row(e.u) {
            for b in t.of_unit.row(e.v) {
                edges.push(Edge::new(*a, *b, e.d64, u32::from(e.d128)));
            }
        }
    }
    edges.par_sort_unstable();
    PairGraph {
        docs: g.docs,
        members: t.members,
        starts: t.starts,
        edges,
    }
}

/// Scores the edges of `g` (a graph of text units, [`text_units`]) that `prior` does not
/// already score (`prior` is one overlap per edge, or empty for none), comparing as `mode`
/// says. One document of each text is read again; see the module's notes for the memory.
pub fn score_graph(
    stores: &StoreSet,
    g: PairGraph,
    prior: Vec<Overlap>,
    spec: &VerifySpec,
    mode: Compare,
) -> Result<ScoredGraph> {
    let mut overlaps = if prior.is_empty() {
        vec![Overlap::NOT_COMPARED; g.edges.len()]
    } else {
        assert_eq!(prior.len(), g.edges.len(), "one prior overlap per edge");
        prior
    };
    let units = g.units();
    // Connected components of the candidate graph, packed into batches up to the budget.
    let mut dsu = SeqDsu::new(units);
    for e in &g.edges {
        dsu.union(e.u, e.v);
    }
    let root = dsu.labels();
    let mut needed = vec![false; units];
    for (e, o) in g.edges.iter().zip(&overlaps) {
        if !o.is_compared() {
            needed[e.u as usize] = true;
            needed[e.v as usize] = true;
        }
    }
    let rep = |u: u32| g.unit(u)[0];
    let unit_bytes = |u: u32| 2 * u64::from(stores.text_len(rep(u))) + 64;
    let mut component_bytes: HashMap<u32, u64> = HashMap::new();
    for u in (0..units as u32).filter(|u| needed[*u as usize]) {
        *component_bytes.entry(root[u as usize]).or_default() += unit_bytes(u);
    }
    let mut components: Vec<(u32, u64)> = component_bytes.into_iter().collect();
    components.sort_unstable();
    let mut batch_of: HashMap<u32, usize> = HashMap::new();
    let (mut batches, mut filled) = (0usize, u64::MAX);
    for (c, bytes) in components {
        if filled.saturating_add(bytes) > spec.memory {
            batches += 1;
            filled = 0;
        }
        filled += bytes;
        batch_of.insert(c, batches - 1);
    }
    let mut batch_units: Vec<Vec<u32>> = vec![Vec::new(); batches];
    for u in (0..units as u32).filter(|u| needed[*u as usize]) {
        batch_units[batch_of[&root[u as usize]]].push(u);
    }
    let mut batch_edges: Vec<Vec<usize>> = vec![Vec::new(); batches];
    for (i, e) in g.edges.iter().enumerate() {
        if let Some(b) = batch_of.get(&root[e.u as usize]) {
            batch_edges[*b].push(i);
        }
    }
    let mut stats = VerifyStats::default();
    let mut compared = 0u64;
    // The skip rule's union-find over units, fed in order of distance.
    let mut joined = SeqDsu::new(if mode == Compare::SkipJoined {
        units
    } else {
        0
    });
    for (units_b, mut edges_b) in batch_units.into_iter().zip(batch_edges) {
        let bytes: u64 = units_b.iter().map(|u| unit_bytes(*u)).sum();
        if bytes > spec.memory && units_b.len() > 1 {
            // One component larger than the budget: its units in blocks of half the budget,
            // every pair of blocks with edges between them held at once.
            let mut block_of: HashMap<u32, usize> = HashMap::new();
            let mut blocks: Vec<Vec<u32>> = vec![Vec::new()];
            let mut filled = 0u64;
            for u in units_b {
                let b = unit_bytes(u);
                if filled > 0 && filled + b > spec.memory / 2 {
                    blocks.push(Vec::new());
                    filled = 0;
                }
                filled += b;
                block_of.insert(u, blocks.len() - 1);
                blocks.last_mut().expect("a block").push(u);
            }
            let mut by_blocks: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
            for i in edges_b.into_iter().filter(|i| !overlaps[*i].is_compared()) {
                let e = &g.edges[i];
                let (x, y) = (block_of[&e.u], block_of[&e.v]);
                by_blocks.entry((x.min(y), x.max(y))).or_default().push(i);
            }
            let mut pairs: Vec<((usize, usize), Vec<usize>)> = by_blocks.into_iter().collect();
            pairs.sort_unstable();
            let mut rows: Option<(usize, Sets)> = None;
            for ((x, y), edges) in pairs {
                if rows.as_ref().map(|r| r.0) != Some(x) {
                    let docs: Vec<u32> = blocks[x].iter().map(|u| rep(*u)).collect();
                    let (sets, s) = shingle_sets(stores, &docs, spec)?;
                    stats.add(&s);
                    rows = Some((x, sets));
                }
                let row = &rows.as_ref().expect("the row block").1;
                let column = if y == x {
                    HashMap::new()
                } else {
                    let docs: Vec<u32> = blocks[y].iter().map(|u| rep(*u)).collect();
                    let (sets, s) = shingle_sets(stores, &docs, spec)?;
                    stats.add(&s);
                    sets
                };
                let set = |d: u32| row.get(&d).or_else(|| column.get(&d)).expect("a set");
                let got: Vec<Overlap> = edges
                    .par_iter()
                    .map(|i| {
                        let e = &g.edges[*i];
                        Overlap::of(set(rep(e.u)), set(rep(e.v)))
                    })
                    .collect();
                compared += got.len() as u64;
                for (i, o) in edges.iter().zip(got) {
                    overlaps[*i] = o;
                }
            }
            continue;
        }
        let docs: Vec<u32> = units_b.iter().map(|u| rep(*u)).collect();
        let (sets, s) = shingle_sets(stores, &docs, spec)?;
        stats.add(&s);
        let overlap = |i: usize| {
            let e = &g.edges[i];
            Overlap::of(&sets[&rep(e.u)], &sets[&rep(e.v)])
        };
        match mode {
            Compare::Every => {
                edges_b.retain(|i| !overlaps[*i].is_compared());
                let got: Vec<Overlap> = edges_b.par_iter().map(|i| overlap(*i)).collect();
                compared += got.len() as u64;
                for (i, o) in edges_b.iter().zip(got) {
                    overlaps[*i] = o;
                }
            }
            Compare::SkipJoined => {
                edges_b.sort_unstable_by_key(|i| (g.edges[*i].d64, *i));
                // Chunks small enough that a chunk's own unions rarely matter, large enough to
                // keep the threads busy.
                for chunk in edges_b.chunks(SKIP_CHUNK) {
                    let todo: Vec<usize> = chunk
                        .iter()
                        .copied()
                        .filter(|i| {
                            let e = &g.edges[*i];
                            !overlaps[*i].is_compared() && joined.find(e.u) != joined.find(e.v)
                        })
                        .collect();
                    let got: Vec<Overlap> = todo.par_iter().map(|i| overlap(*i)).collect();
                    compared += got.len() as u64;
                    for (i, o) in todo.iter().zip(got) {
                        overlaps[*i] = o;
                    }
                    for i in chunk {
                        if overlaps[*i].is_compared() && spec.passes(&overlaps[*i]) {
                            joined.union(g.edges[*i].u, g.edges[*i].v);
                        }
                    }
                }
            }
        }
    }
    Ok(ScoredGraph {
        graph: g,
        overlaps,
        k: spec.k,
        compared,
        stats,
    })
}

/// Edges decided together by [`Compare::SkipJoined`].
const SKIP_CHUNK: usize = 2048;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprint::{Fingerprinter, Params};
    use crate::text::features;

    /// A set kept by fingerprinting is the set a page read again gets: from the fingerprint's
    /// terms and the band keys' shingles, as from the text analysed again.
    #[test]
    fn an_early_set_is_the_set_read_again() {
        let texts = [
            "The quick brown fox jumps over the lazy dog, and the dog sleeps on in the sun.",
            "Roses are red; violets are blue. Sugar is sweet, and so are you, said the card.",
            "short text",
            "",
            "Garden's roses grow, growing, grown: the gardener's gardens grew in 1999 and 2001.",
        ];
        let params = Params::default();
        let mut fp = Fingerprinter::new(params.clone());
        let mut again = shingle::Shingler::new(8, params.tokens, params.seed);
        let early = EarlySets::new(8, 1 << 20);
        early.prepare(1 << 20);
        for (i, text) in texts.iter().enumerate() {
            let hash = fp.fingerprint(text).content_hash;
            let mut shingles = Vec::new();
            features::shingles(fp.terms(), 8, &mut shingles);
            // Offered twice with the same keys: the second offer keeps the set.
            let keys = vec![i as u64; 40];
            early.offer(&keys, hash, &shingles);
            early.offer(&keys, hash, &shingles);
            let kept = early.take(hash).expect("kept");
            let mut read = Vec::new();
            again.shingles(text, &mut read);
            assert_eq!(&*kept, &read[..], "{text}");
        }
        // Shingles at the top of the range are brought under the whole-text mark as read, and
        // as kept.
        let mut top = vec![1, measure::WHOLE - 1, measure::WHOLE];
        shingle::into_set(&mut top);
        assert_eq!(top, vec![1, measure::WHOLE - 1]);
        assert_eq!(
            crate::fingerprint::early_sets::MAX_SHINGLE,
            measure::WHOLE - 1
        );
    }
}
