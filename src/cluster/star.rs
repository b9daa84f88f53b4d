//! Removal by stars: a document is removed only when it is a near-duplicate (an edge of the
//! graph, or a member of the same unit) of a document that is kept, and it names that one.
//!
//! Clusters are connected components, and components chain: A ~ B and B ~ C put A and C
//! together though they may share little, so removing every member but one representative
//! removes documents that duplicate nothing kept. Here the documents are visited in the order
//! of the representative rule ([`ranking`]), best first; a document not yet removed is kept, and
//! every neighbour of it not yet decided is removed for it. So a removed document always has an
//! edge to its kept one, and no two kept documents are neighbours. A document is removed
//! exactly when some kept document that ranks before it is its neighbour (the greedy pass over
//! the ground truth that removal recall is measured against), and it names the best-ranked one.
//!
//! Components are independent, so they are assigned in parallel, batches of whole components
//! each ranked and assigned by one worker: the result does not depend on the thread count.
//! Only documents with a neighbour take part (the others are kept); [`StarGraph`] numbers
//! them locally, grouped by component with an integer sort, each component sorted by the rule
//! on its own (ids compared only within components), so the assignment's state is sized to
//! them and not to the corpus. A sweep prepares once, at its largest threshold, and assigns
//! every threshold on that preparation. Work is one visit of each kept document's unit and
//! adjacent units: O(documents with a neighbour + edges) plus the sorts, with the largest
//! component the longest sequential part.

use rayon::prelude::*;

use super::policy::KeepPolicy;
use super::{Representative, SeqDsu};
use crate::join::graph::{Edge, PairGraph};

/// Which documents the remove list names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RemoveBy {
    /// Only near-duplicates of a kept document, each for that one (this module).
    #[default]
    Star,
    /// Every member of a cluster but its representative (Chuweb21D's rule).
    Component,
    /// Every document of a star of two or more, its kept document too: no copy of a
    /// near-duplicated text is kept (the stars are [`RemoveBy::Star`]'s; a star's centre
    /// names its first near-duplicate).
    All,
}

impl RemoveBy {
    /// Whether the removals follow stars (`star` and `all`), which need every verified pair.
    pub fn by_stars(self) -> bool {
        matches!(self, RemoveBy::Star | RemoveBy::All)
    }
}

/// `via` of a document that is kept, or removed for a member of its own unit.
pub const NO_EDGE: u32 = u32::MAX;

const UNSET: u32 = u32::MAX;

/// The star assignment of a graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stars {
    /// Each document's kept document: itself when kept (documents outside the graph's units
    /// are kept).
    pub kept: Vec<u32>,
    /// For a document removed for a document of another unit, the index (in the graph's
    /// edges) of the edge between their units; else [`NO_EDGE`].
    pub via: Vec<u32>,
}

impl Stars {
    /// Documents removed.
    pub fn removed(&self) -> u64 {
        self.kept
            .iter()
            .enumerate()
            .filter(|(d, k)| **k != *d as u32)
            .count() as u64
    }
}

/// Each document's neighbours over the edges `keep` admits (the other members of its unit and
/// the members of adjacent units): the `central` rule's measure. 0 outside the units.
pub fn degrees(g: &PairGraph, keep: impl Fn(&Edge) -> bool + Sync) -> Vec<u32> {
    let mut across = vec![0u32; g.units()];
    for e in g.edges.iter().filter(|e| keep(e)) {
        across[e.u as usize] += g.unit(e.v).len() as u32;
        across[e.v as usize] += g.unit(e.u).len() as u32;
    }
    let mut out = vec![0u32; g.docs as usize];
    for u in 0..g.units() as u32 {
        let m = g.unit(u);
        for d in m {
            out[*d as usize] = m.len() as u32 - 1 + across[u as usize];
        }
    }
    out
}

/// How `rule` ranks two documents (`Less`: `a` is kept first): the lowest id; the first in
/// corpus order; the longest text; or the most neighbours (`degree`, from [`degrees`]). Ties
/// go to the first in corpus order.
pub fn ranking<'a, 'd>(
    rule: Representative,
    id: impl Fn(u32) -> &'a str + Sync + 'd,
    text_len: impl Fn(u32) -> u32 + Sync + 'd,
    degree: &'d [u32],
) -> impl Fn(u32, u32) -> std::cmp::Ordering + Sync + 'd {
    use std::cmp::Reverse;
    move |a, b| {
        match rule {
            Representative::LowestId => id(a).cmp(id(b)),
            Representative::First => std::cmp::Ordering::Equal,
            Representative::Longest => Reverse(text_len(a)).cmp(&Reverse(text_len(b))),
            Representative::Central => {
                Reverse(degree[a as usize]).cmp(&Reverse(degree[b as usize]))
            }
        }
        .then(a.cmp(&b))
    }
}

/// The documents the star assignment visits, prepared once for the edges `keep` admits: those
/// with a neighbour (over those edges, or in their unit), numbered locally, grouped by
/// component, each component in the rank's order. Any subset of those edges (a sweep's smaller
/// thresholds) is assigned on the same preparation: its components lie within these, and the
/// order within a component is all the greedy pass reads. State is sized to these documents
/// (2 M of 10 M in the synthetic benchmark), not to the corpus.
pub struct StarGraph {
    /// Local document -> document.
    docs: Vec<u32>,
    /// Local document -> local unit.
    unit_of: Vec<u32>,
    /// Local unit `u`'s local documents: `members[mstart[u]..mstart[u + 1]]`.
    mstart: Vec<u32>,
    members: Vec<u32>,
    /// Local unit `u`'s adjacent local units with the edge's index in the graph:
    /// `adj[astart[u]..astart[u + 1]]`.
    astart: Vec<u32>,
    adj: Vec<(u32, u32)>,
    /// Component boundaries in local documents, ascending, from 0 to the count.
    comps: Vec<u32>,
    /// Boundaries of batches of whole components (a subset of `comps`), the parallel work.
    batches: Vec<u32>,
    /// Documents from this index on are kept whatever their neighbours, and ranked before the
    /// others (a collection deduplicated against: only the new one loses documents).
    protect: u32,
}

/// Local documents per parallel batch (whole components, so a batch may be larger).
const BATCH: u32 = 1 << 14;

impl StarGraph {
    /// Prepares the documents with a neighbour over the edges of `g` that `keep` admits (and
    /// its units), each component in `rule`'s order ([`ranking`]; `id` and `text_len`
    /// describe a document). The central rule's order depends on the edges assigned, so it is
    /// prepared in corpus order and ordered per assignment ([`Self::central_order`]).
    ///
    /// Documents are ranked on a key read once each, in corpus order (near-sequential reads of
    /// the store): the rule's measure, or for ids their first 16 bytes, compared in full only
    /// where those tie. Sorting on ids read at random from a 10 M-document store cost more
    /// than the assignment itself.
    ///
    /// Documents from `protect` on (None: none) are kept whatever their neighbours and ranked
    /// before all others, each group in the rule's order: what is deduplicated against an
    /// older collection loses only its own documents, each for the best-ranked old document
    /// it duplicates where there is one.
    pub fn new<'a>(
        g: &PairGraph,
        keep: impl Fn(&Edge) -> bool + Sync,
        rule: Representative,
        policy: &KeepPolicy<'_>,
        id: impl Fn(u32) -> &'a str + Sync,
        text_len: impl Fn(u32) -> u32 + Sync,
        protect: Option<u32>,
    ) -> StarGraph {
        let protect = protect.unwrap_or(u32::MAX);
        let admitted: Vec<u32> = (0..g.edges.len() as u32)
            .into_par_iter()
            .filter(|i| keep(&g.edges[*i as usize]))
            .collect();
        // Local units: those the admitted edges touch, then units of several documents.
        // `local[u]` is the local number + 1 (0: not local), zeroed lazily by the allocator.
        let mut local = vec![0u32; g.units()];
        let mut units: Vec<u32> = Vec::new();
        let mut add = |u: u32| {
            if local[u as usize] == 0 {
                units.push(u);
                local[u as usize] = units.len() as u32;
            }
        };
        for i in &admitted {
            let e = &g.edges[*i as usize];
            add(e.u);
            add(e.v);
        }
        for u in g.multi_units() {
            add(u);
        }
        let place = |u: u32| local[u as usize] - 1;
        let mut dsu = SeqDsu::new(units.len());
        let mut astart = vec![0u32; units.len() + 1];
        for i in &admitted {
            let e = &g.edges[*i as usize];
            let (a, b) = (place(e.u), place(e.v));
            dsu.union(a, b);
            astart[a as usize + 1] += 1;
            astart[b as usize + 1] += 1;
        }
        for u in 1..astart.len() {
            astart[u] += astart[u - 1];
        }
        let mut fill = astart.clone();
        let mut adj = vec![(0u32, 0u32); *astart.last().unwrap_or(&0) as usize];
        for &i in &admitted {
            let e = &g.edges[i as usize];
            let (a, b) = (place(e.u), place(e.v));
            for (x, y) in [(a, b), (b, a)] {
                adj[fill[x as usize] as usize] = (y, i);
                fill[x as usize] += 1;
            }
        }
        drop(local);
        // (document, local unit, component) in corpus order, for the keys; then
        // (component, key, document, local unit) sorted, ties of the id prefix by the ids.
        let labels = dsu.labels();
        let mut by_doc: Vec<(u32, u32, u32)> = units
            .iter()
            .zip(&labels)
            .enumerate()
            .flat_map(|(l, (u, c))| g.unit(*u).iter().map(move |d| (*d, l as u32, *c)))
            .collect();
        by_doc.par_sort_unstable_by_key(|x| x.0);
        let key = |d: u32| -> u128 {
            match rule {
                Representative::LowestId => id_prefix(id(d)),
                Representative::Longest => u128::from(u32::MAX - text_len(d)),
                Representative::First | Representative::Central => 0,
            }
        };
        let mut keyed: Vec<(u32, bool, u128, u32, u32)> = by_doc
            .par_iter()
            .map(|&(d, l, c)| (c, d < protect, key(d), d, l))
            .collect();
        drop(by_doc);
        keyed.par_sort_unstable();
        if rule == Representative::LowestId {
            keyed
                .par_chunk_by_mut(|a, b| (a.0, a.1, a.2) == (b.0, b.1, b.2))
                .filter(|run| run.len() > 1)
                .for_each(|run| run.sort_by(|a, b| id(a.3).cmp(id(b.3)).then(a.3.cmp(&b.3))));
        }
        if !policy.is_none() {
            // The policy ranks before the rule: a stable sort by it keeps the rule's order
            // among equal keys, and without a policy no document carries a wider key.
            keyed.par_sort_by_cached_key(|x| (x.0, x.1, policy.key(x.3)));
        }
        let grouped: Vec<(u32, u32, u32)> =
            keyed.into_iter().map(|(c, _, _, d, l)| (c, l, d)).collect();
        let n = grouped.len();
        let mut mstart = vec![0u32; units.len() + 1];
        let (mut comps, mut batches) = (vec![0u32], vec![0u32]);
        for (i, x) in grouped.iter().enumerate() {
            mstart[x.1 as usize + 1] += 1;
            if i + 1 == n || grouped[i + 1].0 != x.0 {
                let end = i as u32 + 1;
                comps.push(end);
                if end - batches.last().unwrap() >= BATCH || i + 1 == n {
                    batches.push(end);
                }
            }
        }
        for u in 1..mstart.len() {
            mstart[u] += mstart[u - 1];
        }
        let mut fill = mstart.clone();
        let mut members = vec![0u32; n];
        for (i, x) in grouped.iter().enumerate() {
            members[fill[x.1 as usize] as usize] = i as u32;
            fill[x.1 as usize] += 1;
        }
        StarGraph {
            docs: grouped.iter().map(|x| x.2).collect(),
            unit_of: grouped.iter().map(|x| x.1).collect(),
            mstart,
            members,
            astart,
            adj,
            comps,
            batches,
            protect,
        }
    }

    /// Documents with a neighbour (the local documents).
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether no document has a neighbour.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    fn unit(&self, u: u32) -> &[u32] {
        &self.members[self.mstart[u as usize] as usize..self.mstart[u as usize + 1] as usize]
    }

    fn adjacent(&self, u: u32) -> &[(u32, u32)] {
        &self.adj[self.astart[u as usize] as usize..self.astart[u as usize + 1] as usize]
    }

    /// Work split into batches of whole components: (first local document, the batch's
    /// slices of each array), disjoint, so every batch is written by one worker.
    fn split<'a, T>(&self, mut rest: &'a mut [T]) -> Vec<(u32, &'a mut [T])> {
        let mut out = Vec::with_capacity(self.batches.len());
        for w in self.batches.windows(2) {
            let (a, b) = std::mem::take(&mut rest).split_at_mut((w[1] - w[0]) as usize);
            out.push((w[0], a));
            rest = b;
        }
        out
    }

    /// The `central` rule's order for the edges `admit` takes (by index in the graph): each
    /// component's local documents by most neighbours, then corpus order.
    pub fn central_order(&self, admit: impl Fn(u32) -> bool + Sync) -> Vec<u32> {
        let size = |u: u32| self.mstart[u as usize + 1] - self.mstart[u as usize];
        let degree: Vec<u32> = (0..self.mstart.len() as u32 - 1)
            .into_par_iter()
            .map(|u| {
                let across: u32 = self
                    .adjacent(u)
                    .iter()
                    .filter(|(_, e)| admit(*e))
                    .map(|(v, _)| size(*v))
                    .sum();
                size(u) - 1 + across
            })
            .collect();
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        self.split(&mut order).into_par_iter().for_each(|(lo, o)| {
            let hi = lo + o.len() as u32;
            let first = self.comps.partition_point(|c| *c < lo);
            for w in self.comps[first..].windows(2).take_while(|w| w[0] < hi) {
                o[(w[0] - lo) as usize..(w[1] - lo) as usize].sort_unstable_by_key(|i| {
                    let i = *i as usize;
                    let d = self.docs[i];
                    (
                        d < self.protect,
                        std::cmp::Reverse(degree[self.unit_of[i] as usize]),
                        d,
                    )
                });
            }
        });
        order
    }

    /// The greedy pass over the edges `admit` takes (by index in the graph; a subset of those
    /// prepared), local documents visited in `order` (a permutation within each component;
    /// None: the prepared rank). Returns each local document's kept local document and the
    /// edge it was removed over ([`NO_EDGE`] when kept or removed within its unit).
    pub fn assign(
        &self,
        admit: impl Fn(u32) -> bool + Sync,
        order: Option<&[u32]>,
    ) -> (Vec<u32>, Vec<u32>) {
        let n = self.len();
        let (mut kept, mut via) = (vec![UNSET; n], vec![NO_EDGE; n]);
        let parts: Vec<_> = self
            .split(&mut kept)
            .into_iter()
            .zip(self.split(&mut via))
            .collect();
        parts.into_par_iter().for_each(|((lo, kept), (_, via))| {
            let at = |i: u32| (i - lo) as usize;
            for p in lo..lo + kept.len() as u32 {
                let d = order.map_or(p, |o| o[p as usize]);
                if kept[at(d)] != UNSET {
                    continue;
                }
                kept[at(d)] = d;
                let u = self.unit_of[d as usize];
                // Protected documents are never taken: each keeps itself when visited.
                let open = |m: u32, kept: &[u32]| {
                    kept[at(m)] == UNSET && self.docs[m as usize] < self.protect
                };
                for m in self.unit(u) {
                    if open(*m, kept) {
                        kept[at(*m)] = d;
                    }
                }
                for (v, e) in self.adjacent(u) {
                    if !admit(*e) {
                        continue;
                    }
                    for m in self.unit(*v) {
                        if open(*m, kept) {
                            kept[at(*m)] = d;
                            via[at(*m)] = *e;
                        }
                    }
                }
            }
        });
        (kept, via)
    }

    /// Documents the greedy pass over the edges `admit` takes removes (see [`Self::assign`]).
    pub fn removed(&self, admit: impl Fn(u32) -> bool + Sync, order: Option<&[u32]>) -> u64 {
        let (kept, _) = self.assign(admit, order);
        kept.par_iter()
            .enumerate()
            .filter(|(i, k)| **k != *i as u32)
            .count() as u64
    }

    /// The star assignment over the edges `admit` takes, in `order` (see [`Self::assign`]),
    /// over the corpus's `docs` documents.
    pub fn stars(
        &self,
        docs: u32,
        admit: impl Fn(u32) -> bool + Sync,
        order: Option<&[u32]>,
    ) -> Stars {
        let (k, v) = self.assign(admit, order);
        let mut kept: Vec<u32> = (0..docs).collect();
        let mut via = vec![NO_EDGE; docs as usize];
        for (i, d) in self.docs.iter().enumerate() {
            kept[*d as usize] = self.docs[k[i] as usize];
            via[*d as usize] = v[i];
        }
        Stars { kept, via }
    }
}

/// The star assignment over the edges of `g` that `keep` admits (and its units), documents
/// visited best first by `rule` ([`ranking`]): [`StarGraph`] prepared and assigned once.
pub fn stars<'a>(
    g: &PairGraph,
    keep: impl Fn(&Edge) -> bool + Sync,
    rule: Representative,
    id: impl Fn(u32) -> &'a str + Sync,
    text_len: impl Fn(u32) -> u32 + Sync,
    protect: Option<u32>,
) -> Stars {
    let central = rule == Representative::Central;
    let sg = StarGraph::new(g, &keep, rule, &KeepPolicy::NONE, id, text_len, protect);
    let admit = |e: u32| keep(&g.edges[e as usize]);
    let order = central.then(|| sg.central_order(admit));
    sg.stars(g.docs, admit, order.as_deref())
}

/// The first 16 bytes of an id as a number (zero-padded): ordered as the ids are where they
/// differ in those bytes, equal where they do not.
pub(crate) fn id_prefix(id: &str) -> u128 {
    let mut b = [0u8; 16];
    let n = id.len().min(16);
    b[..n].copy_from_slice(&id.as_bytes()[..n]);
    u128::from_be_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;
    use std::collections::BTreeSet;

    /// The plain greedy pass over documents: in rank order, a document is removed for the
    /// first kept document (in rank order) among its neighbours, else kept.
    /// Documents from `protect` on are always kept (`order` must rank them first).
    fn reference(
        g: &PairGraph,
        keep: impl Fn(&Edge) -> bool,
        order: &[u32],
        protect: u32,
    ) -> Vec<u32> {
        let n = g.docs as usize;
        let mut nb: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); n];
        let mut link = |a: u32, b: u32| {
            nb[a as usize].insert(b);
            nb[b as usize].insert(a);
        };
        for u in 0..g.units() as u32 {
            let m = g.unit(u);
            for i in 0..m.len() {
                for j in i + 1..m.len() {
                    link(m[i], m[j]);
                }
            }
        }
        for e in g.edges.iter().filter(|e| keep(e)) {
            for a in g.unit(e.u) {
                for b in g.unit(e.v) {
                    link(*a, *b);
                }
            }
        }
        let mut kept: Vec<u32> = (0..n as u32).collect();
        let mut kept_at: Vec<Option<usize>> = vec![None; n];
        for (pos, &d) in order.iter().enumerate() {
            let best = nb[d as usize]
                .iter()
                .filter_map(|m| kept_at[*m as usize].map(|p| (p, *m)))
                .min();
            match best {
                Some((_, k)) if d < protect => kept[d as usize] = k,
                _ => kept_at[d as usize] = Some(pos),
            }
        }
        kept
    }

    fn random_graph(rng: &mut SplitMix64) -> PairGraph {
        let docs = 1 + rng.below(60) as u32;
        let mut perm: Vec<u32> = (0..docs).collect();
        rng.shuffle(&mut perm);
        // Units: most single documents, some of two or three; a few documents left out.
        let (mut members, mut starts) = (Vec::new(), vec![0u32]);
        let mut i = 0;
        while i < perm.len() {
            if rng.below(10) == 0 {
                i += 1;
                continue;
            }
            let len = match rng.below(10) {
                0 => 3,
                1 | 2 => 2,
                _ => 1,
            }
            .min(perm.len() - i);
            let mut unit = perm[i..i + len].to_vec();
            unit.sort_unstable();
            members.extend(unit);
            starts.push(members.len() as u32);
            i += len;
        }
        let units = starts.len() as u32 - 1;
        let mut edges = BTreeSet::new();
        if units > 1 {
            for _ in 0..rng.below(u64::from(units) * 2) {
                let (a, b) = (
                    rng.below(units.into()) as u32,
                    rng.below(units.into()) as u32,
                );
                if a != b {
                    edges.insert((a.min(b), a.max(b), rng.below(8) as u8));
                }
            }
        }
        PairGraph {
            docs,
            members,
            starts,
            edges: edges
                .into_iter()
                .map(|(u, v, d)| Edge::new(u, v, d, 0))
                .collect(),
        }
    }

    /// Stars equal the plain greedy pass on random graphs, for every rule and thread count;
    /// every removed document has an edge (or its unit) to its kept one, and no kept document
    /// neighbours another.
    #[test]
    fn stars_equal_the_greedy_reference() {
        let mut rng = SplitMix64(11);
        // Short ids, and long ones that tie on the 16-byte prefix the sort keys hold.
        let ids: Vec<String> = (0..64)
            .map(|i| match i % 3 {
                0 => format!("id{:03}", (i * 37) % 64),
                _ => format!("https://example.org/{:03}", (i * 37) % 64),
            })
            .collect();
        for round in 0..300 {
            let g = random_graph(&mut rng);
            let tau = rng.below(8) as u32;
            // Half the rounds protect the documents from a random index on (an older
            // collection deduplicated against).
            let protect = (round % 2 == 1).then(|| rng.below(u64::from(g.docs) + 1) as u32);
            let p = protect.unwrap_or(u32::MAX);
            let keep = |e: &Edge| u32::from(e.d64) <= tau;
            let len = |d: u32| (d * 7919) % 13;
            let degree = degrees(&g, keep);
            for rule in [
                Representative::LowestId,
                Representative::First,
                Representative::Longest,
                Representative::Central,
            ] {
                let rank = ranking(rule, |d| ids[d as usize].as_str(), len, &degree);
                let mut o = g.members.clone();
                o.sort_by(|a, b| (*a < p).cmp(&(*b < p)).then(rank(*a, *b)));
                let want = reference(&g, keep, &o, p);
                // Prepared at the largest threshold, assigned at this one (a sweep's way).
                let id = |d: u32| ids[d as usize].as_str();
                let all = StarGraph::new(
                    &g,
                    |e| e.d64 <= 7,
                    rule,
                    &KeepPolicy::NONE,
                    id,
                    len,
                    protect,
                );
                let admit = |e: u32| keep(&g.edges[e as usize]);
                let order = (rule == Representative::Central).then(|| all.central_order(admit));
                let (k, _) = all.assign(admit, order.as_deref());
                let mut swept: Vec<u32> = (0..g.docs).collect();
                for (i, d) in all.docs.iter().enumerate() {
                    swept[*d as usize] = all.docs[k[i] as usize];
                }
                assert_eq!(
                    swept, want,
                    "round {round} {rule:?} prepared at the largest threshold"
                );
                let removed = want
                    .iter()
                    .enumerate()
                    .filter(|(d, k)| **k != *d as u32)
                    .count();
                assert_eq!(
                    all.removed(admit, order.as_deref()),
                    removed as u64,
                    "round {round}"
                );
                for threads in [1, 3] {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    let s = pool.install(|| stars(&g, keep, rule, id, len, protect));
                    assert_eq!(s.kept, want, "round {round} {rule:?} {threads} threads");
                    for (d, k) in s.kept.iter().enumerate() {
                        let e = s.via[d];
                        if *k == d as u32 {
                            assert_eq!(e, NO_EDGE);
                        } else if e == NO_EDGE {
                            let u = (0..g.units() as u32).find(|u| g.unit(*u).contains(k));
                            assert!(g.unit(u.unwrap()).contains(&(d as u32)), "round {round}");
                        } else {
                            let e = g.edges[e as usize];
                            assert!(keep(&e));
                            let (a, b) = (g.unit(e.u), g.unit(e.v));
                            assert!(
                                (a.contains(k) && b.contains(&(d as u32)))
                                    || (b.contains(k) && a.contains(&(d as u32))),
                                "round {round}"
                            );
                        }
                    }
                }
            }
        }
    }
}
