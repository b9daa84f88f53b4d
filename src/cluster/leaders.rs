//! Star removal verified in one pass over the candidates' runs, linear in a group's size.
//!
//! The star removal ([`crate::cluster::star`]) keeps a document unless a kept document that
//! ranks before it is a verified near-duplicate of it, and names the best-ranked such one. So
//! a document needs comparing only with documents that are kept ("leaders"): one that a
//! leader's verification removed is never compared again. Here the texts are visited in the
//! representative rule's order, and each is compared with the leaders of the runs of equal
//! band keys it is in ([`crate::join::lsh::Runs`]), best-ranked first, until one verifies it;
//! when none does, it becomes a leader of each of its runs. The result is the star removal
//! over every verified candidate pair, without listing the pairs: a group of n near-duplicates
//! of one text costs n comparisons, not n(n - 1)/2.
//!
//! Candidates are the all-pairs join's ([`crate::join::candidates`]): two fingerprint units
//! whose first members share a band key, the texts of one fingerprint unit, and (when given)
//! canonical classes or listed pairs; each is a *group* of fingerprint units here, and a text's leaders are the leaders of its unit's
//! groups. Two texts are near-duplicates when the pair is within the thresholds and the
//! verification passes, as in the all-pairs path.
//!
//! Where a group's members are not near-duplicates of each other (pages of one site sharing
//! their boilerplate), leaders multiply. A group lists at most `max_leaders` of them: a
//! leader found later is not listed there (it is in its other groups), and [`LeaderStats`]
//! counts what the bound left out.
//!
//! Work is parallel over connected components of the groups (each visited in rank order by
//! one worker), a batch of whole components within the memory budget at a time; a component
//! larger than the budget on its own is visited in blocks of half the budget, the sets of
//! listed leaders held between blocks. The result does not depend on the thread count.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use super::policy::KeepPolicy;
use super::star::{id_prefix, ranking};
use super::{Representative, SeqDsu};
use crate::base::hamming::{dist128, dist64};
use crate::fingerprint::store::StoreSet;
use crate::join::candidates::CandidateGraph;
use crate::join::graph::{Edge, PairGraph};
use crate::join::lsh::BandKeys;
use crate::verify::{
    shingle_sets, split_texts, Overlap, Rows, ScoredGraph, Texts, VerifySpec, VerifyStats,
};
use crate::Result;

/// The band keys of a store set, band by band from its band files, each handed back to the
/// kernel once read: the runs' pass holds one band's pages at a time.
pub struct StoreBands<'a> {
    stores: &'a StoreSet,
    bands: usize,
}

impl<'a> StoreBands<'a> {
    /// The `bands` bands of `stores` (their `minhash_params`).
    pub fn new(stores: &'a StoreSet, bands: usize) -> StoreBands<'a> {
        StoreBands { stores, bands }
    }
}

impl BandKeys for StoreBands<'_> {
    fn bands(&self) -> usize {
        self.bands
    }

    fn band(&self, b: usize) -> std::borrow::Cow<'_, [u64]> {
        self.stores
            .minhash_band(b)
            .expect("every store has the band keys (checked by minhash_params)")
    }

    fn done(&self, b: usize) {
        self.stores.release_minhash_band(b);
    }
}

/// What the pass decides with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaderRules {
    /// 64-bit threshold: a pair further apart is no near-duplicate.
    pub tau: u32,
    /// 128-bit threshold, if any.
    pub tau128: Option<u32>,
    /// The representative rule that orders the visit (not `central`, whose order depends on
    /// every pair).
    pub rule: Representative,
    /// Documents from this index on (an older collection) are never removed and ranked first.
    pub protect: Option<u32>,
    /// Leaders listed per group at most; 0: no bound.
    pub max_leaders: usize,
}

/// Bytes a document of the stores that `dedup`'s stages after fingerprinting hold at most:
/// the store's columns they read (fingerprints, flags, lengths, one band of MinHash keys at a
/// time), each document's host key (own content, 8 bytes), the units, runs and texts here,
/// and the sweep's and lists' per-document arrays.
/// Measured (BENCHMARKS.md, "Memory by the formula"): 168 MB peak at 300 000 documents and
/// 332 MB at a million (a planted group of 200 000 among them) with `--verify-memory 64M`,
/// about 235 bytes a document between the two.
pub const BYTES_PER_DOCUMENT: u64 = 256;

/// Bytes held whatever the crawl's size (the program, thread stacks, buffers).
pub const BYTES_FIXED: u64 = 96 << 20;

/// The peak resident memory of `dedup`'s stages after fingerprinting over `docs` documents
/// with a verification budget of `verify_memory` bytes, at most.
pub fn memory_bound(docs: u64, verify_memory: u64) -> u64 {
    BYTES_FIXED + BYTES_PER_DOCUMENT * docs + verify_memory
}

/// Leaders a text is compared with at once, on every core, once its first has not passed
/// and at least this many are left ([`Walk::visit`]).
const PARALLEL: usize = 8;

/// The default bound on leaders listed per group.
pub const DEFAULT_MAX_LEADERS: usize = 32;

/// What the pass did, for `summary.json`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderStats {
    /// Groups of candidates: runs of equal band keys, fingerprint units of several texts and
    /// canonical classes.
    pub groups: u64,
    /// Fingerprint units listed in them, summed over groups.
    pub group_entries: u64,
    /// Connected components of the groups.
    pub components: u64,
    /// Texts in the largest component.
    pub largest_component: u64,
    /// Texts visited (distinct texts in some group).
    pub texts: u64,
    /// Of them, leaders (kept texts).
    pub leaders: u64,
    /// Texts removed for a leader.
    pub removed: u64,
    /// Text comparisons made.
    pub comparisons: u64,
    /// The bound on leaders per group (0: none).
    pub max_leaders: u64,
    /// Groups that reached the bound.
    pub capped_groups: u64,
    /// Leaders not listed in a group because it was full (once per group).
    pub leaders_not_listed: u64,
    /// Visits of a full group by a text: each may have missed a leader not listed there.
    pub capped_visits: u64,
    /// Texts compared and kept after visiting a group that had left a leader unlisted: only
    /// these could have been removed without the bound. When there are none, the bound
    /// changed no text's fate: the same texts are kept and removed as without it (a removed
    /// text may name another of its kept near-duplicates).
    #[serde(default)]
    pub kept_after_full: u64,
}

impl LeaderStats {
    /// Adds the counts of a disjoint part of the texts (another batch of components, another
    /// partition): every count is summed; the largest component and the bound are the
    /// larger of the two.
    pub fn add(&mut self, o: &LeaderStats) {
        self.groups += o.groups;
        self.group_entries += o.group_entries;
        self.components += o.components;
        self.largest_component = self.largest_component.max(o.largest_component);
        self.texts += o.texts;
        self.max_leaders = self.max_leaders.max(o.max_leaders);
        self.leaders += o.leaders;
        self.removed += o.removed;
        self.comparisons += o.comparisons;
        self.capped_groups += o.capped_groups;
        self.leaders_not_listed += o.leaders_not_listed;
        self.capped_visits += o.capped_visits;
        self.kept_after_full += o.kept_after_full;
    }
}

/// One removal: text `text` for leader `leader`, with their overlap (sets in that order).
#[derive(Clone, Copy, Debug)]
struct Removal {
    text: u32,
    leader: u32,
    overlap: Overlap,
}

/// What the visit of the texts reads.
struct Ctx<'a> {
    texts: &'a Texts,
    /// Fingerprint unit -> its groups.
    groups_of: &'a Rows,
    rank: &'a [u32],
    /// A text ranked with the older collection (never removed).
    old: &'a [bool],
    /// A text with members of the new collection.
    has_new: &'a [bool],
    /// Each fingerprint unit's fingerprints.
    fp64: &'a [u64],
    fp128: &'a [[u64; 2]],
    spec: &'a VerifySpec,
    rules: &'a LeaderRules,
}

/// The state of one component's visit: the leaders listed per group.
#[derive(Default)]
struct Walk {
    leaders: HashMap<u32, Vec<u32>>,
    /// Groups that reached the bound.
    full: HashSet<u32>,
    removals: Vec<Removal>,
    stats: LeaderStats,
    candidates: Vec<u32>,
}

impl Walk {
    /// Visits text `t` (after every text ranked before it in its component); `set` gives a
    /// text's shingle set (of `t` and of every listed leader). Returns whether `t` is listed
    /// as a leader somewhere (its set is then needed later).
    fn visit<'s>(&mut self, t: u32, c: &Ctx, set: impl Fn(u32) -> &'s [u64] + Sync) -> bool {
        let u = c.texts.unit[t as usize];
        let groups = c.groups_of.row(u);
        let cap = c.rules.max_leaders;
        // Whether a group of `t` left a leader unlisted before `t` came.
        let mut met_unlisted = false;
        let compared = !c.old[t as usize] || c.has_new[t as usize];
        let found = if !compared {
            None
        } else {
            self.candidates.clear();
            for g in groups {
                if let Some(l) = self.leaders.get(g) {
                    self.candidates.extend_from_slice(l);
                    if cap > 0 && l.len() >= cap {
                        self.stats.capped_visits += 1;
                        met_unlisted |= self.full.contains(g);
                    }
                }
            }
            self.candidates
                .sort_unstable_by_key(|l| c.rank[*l as usize]);
            self.candidates.dedup();
            // Those within the thresholds, in rank order; the first whose overlap passes is
            // the text's leader.
            self.candidates.retain(|&l| {
                let v = c.texts.unit[l as usize];
                let d64 = dist64(c.fp64[u as usize], c.fp64[v as usize]);
                let d128 = dist128(c.fp128[u as usize], c.fp128[v as usize]);
                d64 <= c.rules.tau && c.rules.tau128.is_none_or(|x| d128 <= x)
            });
            let overlap = |l: u32| {
                let (a, b) = (l.min(t), l.max(t));
                Overlap::of(set(a), set(b))
            };
            let mut found = None;
            let mut at = 0;
            while at < self.candidates.len() && found.is_none() {
                // The first alone (a copy's first leader is mostly its leader), then, where
                // many are left (a text that leads in a large component), a few at a time
                // on every core: the same first passing leader and the same count of
                // comparisons as one at a time, at most PARALLEL - 1 more computed.
                let n = if at == 0 || self.candidates.len() - at < PARALLEL {
                    1
                } else {
                    PARALLEL
                };
                let part = &self.candidates[at..at + n];
                let mut got = [Overlap::default(); PARALLEL];
                if n == 1 {
                    got[0] = overlap(part[0]);
                } else {
                    got[..n]
                        .par_iter_mut()
                        .zip(part)
                        .for_each(|(o, &l)| *o = overlap(l));
                }
                for (&l, &o) in part.iter().zip(&got[..n]) {
                    self.stats.comparisons += 1;
                    if c.spec.passes(&o) {
                        found = Some(Removal {
                            text: t,
                            leader: l,
                            overlap: o,
                        });
                        break;
                    }
                }
                at += n;
            }
            found
        };
        let leads = c.old[t as usize] || found.is_none();
        // The first text whose fate the bound changes is one of these: a text that meets no
        // unlisted leader sees every leader of its groups, and one removed by a listed leader
        // is removed without the bound too.
        if compared && found.is_none() && met_unlisted {
            self.stats.kept_after_full += 1;
        }
        if let Some(r) = found {
            self.removals.push(r);
            self.stats.removed += 1;
        }
        if !leads {
            return false;
        }
        self.stats.leaders += 1;
        let mut listed = false;
        for g in groups {
            let l = self.leaders.entry(*g).or_default();
            if cap == 0 || l.len() < cap {
                l.push(t);
                listed = true;
            } else {
                if self.full.insert(*g) {
                    self.stats.capped_groups += 1;
                }
                self.stats.leaders_not_listed += 1;
            }
        }
        listed
    }
}

/// The star removal over the verified pairs of `candidates` (their groups as they are: any
/// generator's, [`CandidateGraph::groups`]), visited as [`LeaderRules`] says; the candidates
/// are among the joinable documents of `stores`. Returns the scored graph of the removals (the texts as units, one
/// edge per removed text to its leader, with its overlap) and what the pass did.
pub fn remove(
    stores: &StoreSet,
    candidates: CandidateGraph,
    spec: &VerifySpec,
    rules: &LeaderRules,
    policy: &KeepPolicy<'_>,
) -> Result<(ScoredGraph, LeaderStats)> {
    let (members, starts, blocks) = candidates.groups();
    let texts = split_texts(&members, &starts, |d| {
        crate::verify::text_key(stores, spec, d)
    });
    let units = starts.len().saturating_sub(1);
    let protect = rules.protect.unwrap_or(u32::MAX);
    let first = |u: u32| members[starts[u as usize] as usize];
    let fp64: Vec<u64> = (0..units as u32)
        .map(|u| stores.fp64()[first(u) as usize])
        .collect();
    let fp128: Vec<[u64; 2]> = (0..units as u32)
        .map(|u| stores.fp128()[first(u) as usize])
        .collect();
    // Groups: every block's groups holding two texts or more (the first block taken whole:
    // MinHash-LSH's runs hold two units each), and the units of several texts.
    let mut groups = Rows {
        starts: vec![0],
        items: Vec::new(),
    };
    let push = |g: &mut Rows, items: &[u32]| {
        g.items.extend_from_slice(items);
        g.starts.push(g.items.len() as u64);
    };
    for (i, b) in blocks.into_iter().enumerate() {
        if i == 0 && groups.items.is_empty() {
            groups = Rows {
                starts: b.starts,
                items: b.units,
            };
            continue;
        }
        for g in 0..b.len() {
            let us = b.group(g);
            let n: usize = us.iter().map(|u| texts.of_unit.row(*u).len()).sum();
            if n > 1 {
                push(&mut groups, us);
            }
        }
    }
    for u in 0..units as u32 {
        if texts.of_unit.row(u).len() > 1 {
            push(&mut groups, &[u]);
        }
    }
    let groups_of = groups.transpose(units);
    let mut stats = LeaderStats {
        groups: groups.len() as u64,
        group_entries: groups.items.len() as u64,
        max_leaders: rules.max_leaders as u64,
        ..LeaderStats::default()
    };
    // Components of the groups over units.
    let mut dsu = SeqDsu::new(units);
    for g in 0..groups.len() as u32 {
        let row = groups.row(g);
        for w in row.windows(2) {
            dsu.union(w[0], w[1]);
        }
    }
    let label = dsu.labels();
    // The texts visited, each ranked by its best member (the older collection's first).
    let nt = texts.unit.len();
    let member = |t: u32| {
        &texts.members[texts.starts[t as usize] as usize..texts.starts[t as usize + 1] as usize]
    };
    let rule = ranking(rules.rule, |d| stores.id(d), |d| stores.text_len(d), &[]);
    let cmp = |a: u32, b: u32| -> Ordering {
        (a < protect)
            .cmp(&(b < protect))
            .then(policy.key(a).cmp(&policy.key(b)))
            .then(rule(a, b))
    };
    let active: Vec<u32> = (0..nt as u32)
        .filter(|t| !groups_of.row(texts.unit[*t as usize]).is_empty())
        .collect();
    let best: Vec<u32> = active
        .par_iter()
        .map(|t| {
            *member(*t)
                .iter()
                .min_by(|a, b| cmp(**a, **b))
                .expect("a text has members")
        })
        .collect();
    let key = |d: u32| -> u128 {
        match rules.rule {
            Representative::LowestId => id_prefix(stores.id(d)),
            Representative::Longest => u128::from(u32::MAX - stores.text_len(d)),
            Representative::First | Representative::Central => 0,
        }
    };
    let mut keyed: Vec<(bool, u128, u32, u32)> = active
        .par_iter()
        .zip(&best)
        .map(|(t, d)| (*d < protect, key(*d), *d, *t))
        .collect();
    keyed.par_sort_unstable();
    if rules.rule == Representative::LowestId {
        keyed
            .par_chunk_by_mut(|a, b| (a.0, a.1) == (b.0, b.1))
            .filter(|r| r.len() > 1)
            .for_each(|r| r.sort_by(|a, b| cmp(a.2, b.2)));
    }
    if !policy.is_none() {
        // The policy ranks before the rule: a stable sort by it keeps the rule's order among
        // equal keys, and without a policy no text carries a wider key.
        keyed.par_sort_by_cached_key(|x| (x.0, policy.key(x.2)));
    }
    let mut rank = vec![u32::MAX; nt];
    let mut old = vec![false; nt];
    let mut has_new = vec![false; nt];
    for (i, x) in keyed.iter().enumerate() {
        rank[x.3 as usize] = i as u32;
        old[x.3 as usize] = !x.0;
        has_new[x.3 as usize] = member(x.3)[0] < protect;
    }
    // Texts grouped by component, each in rank order.
    let mut order: Vec<(u32, u32, u32)> = keyed
        .iter()
        .enumerate()
        .map(|(r, x)| (label[texts.unit[x.3 as usize] as usize], r as u32, x.3))
        .collect();
    drop(keyed);
    order.par_sort_unstable();
    let comps: Vec<&[(u32, u32, u32)]> = order.chunk_by(|a, b| a.0 == b.0).collect();
    stats.components = comps.len() as u64;
    stats.largest_component = comps.iter().map(|c| c.len()).max().unwrap_or(0) as u64;
    stats.texts = order.len() as u64;
    let ctx = Ctx {
        texts: &texts,
        groups_of: &groups_of,
        rank: &rank,
        old: &old,
        has_new: &has_new,
        fp64: &fp64,
        fp128: &fp128,
        spec,
        rules,
    };
    let rep = |t: u32| member(t)[0];
    let bytes = |t: u32| 2 * u64::from(stores.text_len(rep(t))) + 64;
    let mut read = VerifyStats::default();
    let mut removals: Vec<Removal> = Vec::new();
    let mut batch: Vec<&[(u32, u32, u32)]> = Vec::new();
    let mut filled = 0u64;
    let run_batch = |batch: &mut Vec<&[(u32, u32, u32)]>,
                     read: &mut VerifyStats,
                     removals: &mut Vec<Removal>,
                     stats: &mut LeaderStats|
     -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let docs: Vec<u32> = batch
            .iter()
            .flat_map(|c| c.iter().map(|x| rep(x.2)))
            .collect();
        let (sets, s) = shingle_sets(stores, &docs, spec)?;
        read.add(&s);
        let done: Vec<Walk> = batch
            .par_iter()
            .map(|comp| {
                let mut w = Walk::default();
                for x in comp.iter() {
                    w.visit(x.2, &ctx, |t| &sets[&rep(t)]);
                }
                w
            })
            .collect();
        for w in done {
            stats.add(&w.stats);
            removals.extend(w.removals);
        }
        batch.clear();
        Ok(())
    };
    for comp in comps {
        let b: u64 = comp.iter().map(|x| bytes(x.2)).sum();
        if b > spec.memory && comp.len() > 1 {
            // Larger than the budget alone: in blocks of half of it, in rank order, the
            // sets of the leaders listed held from block to block.
            let mut w = Walk::default();
            let mut held: crate::verify::Sets = HashMap::new();
            let mut start = 0;
            while start < comp.len() {
                let mut end = start;
                let mut f = 0u64;
                while end < comp.len()
                    && (end == start || f + bytes(comp[end].2) <= spec.memory / 2)
                {
                    f += bytes(comp[end].2);
                    end += 1;
                }
                let docs: Vec<u32> = comp[start..end].iter().map(|x| rep(x.2)).collect();
                let (mut sets, s) = shingle_sets(stores, &docs, spec)?;
                read.add(&s);
                for x in &comp[start..end] {
                    let listed = w.visit(x.2, &ctx, |t| {
                        let d = rep(t);
                        sets.get(&d).or_else(|| held.get(&d)).expect("a set")
                    });
                    if listed {
                        let d = rep(x.2);
                        let s = sets.remove(&d).expect("the visited text's set");
                        held.insert(d, s);
                    }
                }
                start = end;
            }
            stats.add(&w.stats);
            removals.extend(w.removals);
            continue;
        }
        if filled + b > spec.memory {
            run_batch(&mut batch, &mut read, &mut removals, &mut stats)?;
            filled = 0;
        }
        filled += b;
        batch.push(comp);
    }
    run_batch(&mut batch, &mut read, &mut removals, &mut stats)?;
    // One edge per removal, between the two texts, with their distances and overlap.
    let mut scored: Vec<(Edge, Overlap)> = removals
        .par_iter()
        .map(|r| {
            let (u, v) = (texts.unit[r.text as usize], texts.unit[r.leader as usize]);
            let d64 = dist64(fp64[u as usize], fp64[v as usize]) as u8;
            let d128 = dist128(fp128[u as usize], fp128[v as usize]);
            (Edge::new(r.text, r.leader, d64, d128), r.overlap)
        })
        .collect();
    scored.par_sort_unstable_by_key(|x| x.0);
    let (edges, overlaps): (Vec<Edge>, Vec<Overlap>) = scored.into_iter().unzip();
    let compared = stats.comparisons;
    let graph = PairGraph {
        docs: stores.len() as u32,
        members: texts.members,
        starts: texts.starts,
        edges,
    };
    Ok((
        ScoredGraph {
            graph,
            overlaps,
            k: spec.k,
            compared,
            stats: read,
        },
        stats,
    ))
}
