//! The one form every candidate generator gives: [`CandidateGraph`]. The SimHash join lists
//! pairs of fingerprint units with their distances; MinHash-LSH gives runs of units sharing a
//! band key ([`super::lsh::Runs`]); canonical links give classes of pages
//! ([`super::canonical`]). Each is a block of the same graph over the same units, and the
//! graph is consumed in one of two ways:
//!
//! - [`CandidateGraph::listed`]: every candidate pair listed ([`PairGraph`]), for the
//!   all-pairs verification, the sweeps and `pairs.bin`. A group costs its pairs here.
//! - [`CandidateGraph::groups`]: the groups as they are, a listed pair a group of two, for
//!   the star removal verified against kept texts (`cluster::leaders`), whose cost is linear
//!   in a group's size.
//!
//! Both forms hold the same candidates: two units are candidates exactly when a pair is
//! listed between them or a group holds both (a star group: its first unit and another); the
//! texts of one unit are always candidates of each other.

use rayon::prelude::*;

use super::graph::{Edge, PairGraph};
use super::lsh::Runs;
use crate::base::hamming::{dist128, dist64};

/// How a block's groups are listed as pairs by [`CandidateGraph::listed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// Every two units of the group.
    AllPairs,
    /// The group's first unit with each other: a group that would list too many pairs
    /// (a site whose every page names its home page as canonical).
    Star,
}

/// Groups of units whose every two units are candidates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Groups {
    /// Group `g` is `units[starts[g]..starts[g + 1]]`.
    pub starts: Vec<u64>,
    /// The groups' units.
    pub units: Vec<u32>,
    /// How the groups become pairs when listed.
    pub listing: Listing,
}

impl Groups {
    /// No groups yet, listed as `listing` says.
    pub fn new(listing: Listing) -> Groups {
        Groups {
            starts: vec![0],
            units: Vec::new(),
            listing,
        }
    }

    /// Groups.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Whether there is no group.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Units of group `g`.
    pub fn group(&self, g: usize) -> &[u32] {
        &self.units[self.starts[g] as usize..self.starts[g + 1] as usize]
    }

    /// Appends a group.
    pub fn push(&mut self, units: &[u32]) {
        self.units.extend_from_slice(units);
        self.starts.push(self.units.len() as u64);
    }

    /// The unit pairs the group `g` lists, lower unit first, a unit never with itself.
    fn pairs(&self, g: usize, out: &mut Vec<(u32, u32)>) {
        let m = self.group(g);
        match self.listing {
            Listing::AllPairs => {
                for (j, &u) in m.iter().enumerate() {
                    for &v in &m[j + 1..] {
                        if u != v {
                            out.push((u.min(v), u.max(v)));
                        }
                    }
                }
            }
            Listing::Star => {
                if let Some((&c, rest)) = m.split_first() {
                    out.extend(
                        rest.iter()
                            .filter(|v| **v != c)
                            .map(|&v| (c.min(v), c.max(v))),
                    );
                }
            }
        }
    }
}

/// The candidates of a corpus: units of documents with identical fingerprints, pairs of units
/// listed with their distances, and blocks of groups.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CandidateGraph {
    /// Documents in the corpus (the ones outside every unit are no candidate).
    pub docs: u32,
    /// Units' documents, each unit's ascending.
    pub members: Vec<u32>,
    /// Unit `u` is `members[starts[u]..starts[u + 1]]`.
    pub starts: Vec<u32>,
    /// Listed unit pairs (the SimHash join's).
    pub edges: Vec<Edge>,
    /// Blocks of groups, one per generator that gives groups, in the order added.
    pub blocks: Vec<Groups>,
}

impl CandidateGraph {
    /// The SimHash join's pairs.
    pub fn from_pairs(g: PairGraph) -> CandidateGraph {
        CandidateGraph {
            docs: g.docs,
            members: g.members,
            starts: g.starts,
            edges: g.edges,
            blocks: Vec::new(),
        }
    }

    /// MinHash-LSH's runs over a corpus of `docs` documents, each run a group listed all
    /// pairs.
    pub fn from_runs(docs: u32, r: Runs) -> CandidateGraph {
        CandidateGraph {
            docs,
            members: r.members,
            starts: r.starts,
            edges: Vec::new(),
            blocks: vec![Groups {
                starts: r.run_starts,
                units: r.units,
                listing: Listing::AllPairs,
            }],
        }
    }

    /// Units.
    pub fn units(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// Unit `u`'s documents.
    pub fn unit(&self, u: u32) -> &[u32] {
        &self.members[self.starts[u as usize] as usize..self.starts[u as usize + 1] as usize]
    }

    /// Each document's unit, `u32::MAX` for one in none.
    pub fn unit_of(&self) -> Vec<u32> {
        let mut of = vec![u32::MAX; self.docs as usize];
        for u in 0..self.units() as u32 {
            for d in self.unit(u) {
                of[*d as usize] = u;
            }
        }
        of
    }

    /// Adds groups of documents (canonical classes) as groups of their units: a group of up
    /// to `all_pairs` documents lists all its pairs, a larger one its first document's unit
    /// with each other. Documents in no unit are left out.
    pub fn add_document_groups(&mut self, groups: &[Vec<u32>], all_pairs: usize) {
        let of = self.unit_of();
        let mut small = Groups::new(Listing::AllPairs);
        let mut large = Groups::new(Listing::Star);
        let mut us = Vec::new();
        for g in groups {
            us.clear();
            us.extend(g.iter().map(|d| of[*d as usize]));
            // The first document's unit leads the group (the centre of a star).
            let (first, rest) = us.split_first_mut().expect("a group has documents");
            let first = *first;
            rest.sort_unstable();
            let mut out: Vec<u32> = Vec::with_capacity(us.len());
            out.push(first);
            let mut last = None;
            for &u in &us[1..] {
                if u != first && Some(u) != last {
                    out.push(u);
                }
                last = Some(u);
            }
            out.retain(|u| *u != u32::MAX);
            if g.len() <= all_pairs {
                small.push(&out);
            } else if first != u32::MAX {
                large.push(&out);
            }
        }
        self.blocks.push(small);
        self.blocks.push(large);
    }

    /// Every candidate pair listed: the groups' pairs added to the listed ones, one edge per
    /// unit pair, with the distances of the units' fingerprints (`fp64`, `fp128` of the whole
    /// corpus). Returns the graph and the edges each block added that were not there before.
    /// With no block, the listed pairs stay in their order.
    pub fn listed(self, fp64: &[u64], fp128: &[[u64; 2]]) -> (PairGraph, Vec<u64>) {
        let reps: Vec<u32> = (0..self.units() as u32)
            .map(|u| self.members[self.starts[u as usize] as usize])
            .collect();
        let mut edges = self.edges;
        let mut added = Vec::with_capacity(self.blocks.len());
        for b in &self.blocks {
            let before = edges.len();
            let found: Vec<Vec<Edge>> = (0..b.len())
                .into_par_iter()
                .map_init(Vec::new, |links, g| {
                    links.clear();
                    b.pairs(g, links);
                    links
                        .iter()
                        .map(|&(u, v)| {
                            let (x, y) = (reps[u as usize] as usize, reps[v as usize] as usize);
                            Edge::new(
                                u,
                                v,
                                dist64(fp64[x], fp64[y]) as u8,
                                dist128(fp128[x], fp128[y]),
                            )
                        })
                        .collect()
                })
                .collect();
            edges.reserve(found.iter().map(Vec::len).sum());
            for f in found {
                edges.extend(f);
            }
            edges.par_sort_unstable();
            // One edge per unit pair (the distances of a unit pair are the same on every edge).
            edges.dedup_by(|a, b| (a.u, a.v) == (b.u, b.v));
            added.push((edges.len() - before) as u64);
        }
        (
            PairGraph {
                docs: self.docs,
                members: self.members,
                starts: self.starts,
                edges,
            },
            added,
        )
    }

    /// Every group as it is (a star's as groups of two: its first unit with each other),
    /// then each listed pair as a group of two: the form the star removal against kept texts
    /// takes, with the candidates [`CandidateGraph::listed`] lists. Returns the units
    /// (`members`, `starts`) and the groups.
    pub fn groups(self) -> (Vec<u32>, Vec<u32>, Vec<Groups>) {
        let mut blocks = Vec::with_capacity(self.blocks.len() + 1);
        for b in self.blocks {
            match b.listing {
                Listing::AllPairs => blocks.push(b),
                Listing::Star => {
                    let mut pairs = Groups::new(Listing::AllPairs);
                    let mut found = Vec::new();
                    for g in 0..b.len() {
                        found.clear();
                        b.pairs(g, &mut found);
                        for (u, v) in &found {
                            pairs.push(&[*u, *v]);
                        }
                    }
                    blocks.push(pairs);
                }
            }
        }
        if !self.edges.is_empty() {
            let mut pairs = Groups::new(Listing::AllPairs);
            for e in &self.edges {
                pairs.push(&[e.u, e.v]);
            }
            blocks.push(pairs);
        }
        (self.members, self.starts, blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::lsh::{BandKeys, DocMajor};

    /// The candidates among `docs` (ascending document indices): `keys` holds `bands` band keys
    /// per document of the corpus, `fp64` and `fp128` its fingerprints; `n` documents in all.
    /// Every two units of a run ([`runs`]) are a candidate: the all-pairs form, whose size is the
    /// square of a group's.
    fn candidates(
        n: u32,
        docs: &[u32],
        keys: &impl BandKeys,
        fp64: &[u64],
        fp128: &[[u64; 2]],
    ) -> PairGraph {
        let r = super::super::lsh::runs(docs, keys, fp64, fp128);
        CandidateGraph::from_runs(n, r).listed(fp64, fp128).0
    }

    /// Every pair of documents sharing a key in some band, and only those, is a candidate;
    /// documents with identical fingerprints form units.
    #[test]
    fn candidates_are_the_pairs_sharing_a_band_key() {
        let bands = 3;
        let keys: Vec<u64> = vec![
            1, 10, 100, // 0
            2, 10, 101, // 1: shares band 1 with 0
            3, 11, 102, // 2
            3, 12, 103, // 3: shares band 0 with 2
            4, 13, 104, // 4: alone
            5, 14, 105, // 5: same fingerprints as 4
        ];
        let fp64 = [0u64, 1, 3, 7, 15, 15];
        let fp128 = [[0u64, 0], [1, 0], [3, 0], [7, 0], [15, 1], [15, 1]];
        let docs: Vec<u32> = (0..6).collect();
        let g = candidates(6, &docs, &DocMajor { keys: &keys, bands }, &fp64, &fp128);
        let mut pairs: Vec<(u32, u32)> = g.pairs().iter().map(|p| (p.a, p.b)).collect();
        pairs.sort_unstable();
        assert_eq!(pairs, vec![(0, 1), (2, 3), (4, 5)]);
        let p = g.pairs();
        assert_eq!((p[0].d64, p[1].d64, p[2].d64), (1, 1, 0));
    }

    /// On random corpora with repeated fingerprints and few distinct keys (long runs), the
    /// candidates are exactly the brute force: two documents of one unit, or two whose units'
    /// first members share a key in some band.
    #[test]
    fn candidates_equal_a_brute_force() {
        let mut rng = crate::base::rng::SplitMix64(7);
        for round in 0..20 {
            let n = 1 + rng.below(300) as usize;
            let bands = 1 + rng.below(4) as usize;
            let alphabet = 1 + rng.below(40);
            let keys: Vec<u64> = (0..n * bands)
                .map(|_| rng.below(alphabet) << (round % 64))
                .collect();
            let fp64: Vec<u64> = (0..n).map(|_| rng.below(50)).collect();
            let fp128: Vec<[u64; 2]> = (0..n).map(|_| [rng.below(2), 0]).collect();
            let docs: Vec<u32> = (0..n as u32).filter(|_| rng.below(8) != 0).collect();
            let dm = DocMajor { keys: &keys, bands };
            let g = candidates(n as u32, &docs, &dm, &fp64, &fp128);
            let mut got: Vec<(u32, u32)> = g.pairs().iter().map(|p| (p.a, p.b)).collect();
            got.sort_unstable();
            let same = |a: u32, b: u32| {
                fp64[a as usize] == fp64[b as usize] && fp128[a as usize] == fp128[b as usize]
            };
            let rep = |a: u32| *docs.iter().find(|d| same(**d, a)).unwrap() as usize;
            let mut want = Vec::new();
            for (i, &a) in docs.iter().enumerate() {
                for &b in &docs[i + 1..] {
                    let (ra, rb) = (rep(a), rep(b));
                    let shared = (0..bands).any(|k| keys[ra * bands + k] == keys[rb * bands + k]);
                    if same(a, b) || shared {
                        want.push((a, b));
                    }
                }
            }
            assert_eq!(got, want, "round {round}: {n} documents, {bands} bands");
        }
    }

    /// A small corpus: units {0,1}, {2}, {3}, {4}, {5} with fingerprints far apart.
    fn graph() -> (CandidateGraph, Vec<u64>, Vec<[u64; 2]>) {
        let fp64 = vec![1u64, 1, 3, 7, 15, 31];
        let fp128 = vec![[1u64, 0], [1, 0], [3, 0], [7, 0], [15, 0], [31, 0]];
        let g = CandidateGraph {
            docs: 6,
            members: vec![0, 1, 2, 3, 4, 5],
            starts: vec![0, 2, 3, 4, 5, 6],
            edges: Vec::new(),
            blocks: Vec::new(),
        };
        (g, fp64, fp128)
    }

    fn pairs(g: &PairGraph) -> Vec<(u32, u32)> {
        g.edges.iter().map(|e| (e.u, e.v)).collect()
    }

    /// Document groups become unit groups: a small one lists all its unit pairs, a large one
    /// its first document's unit with each other; each unit pair once, with its distances,
    /// and each block's new edges counted.
    #[test]
    fn document_groups_list_as_the_rule_says() {
        let (mut g, fp64, fp128) = graph();
        g.edges.push(Edge::new(1, 2, 1, 1));
        g.add_document_groups(&[vec![0, 1, 2, 3], vec![3, 0, 4]], 3);
        // Documents 0 and 1 share unit 0; document d > 1 is unit d - 1.
        assert_eq!(g.blocks[0].group(0), &[2, 0, 3]);
        assert_eq!(g.blocks[1].group(0), &[0, 1, 2]);
        let (p, added) = g.listed(&fp64, &fp128);
        // Small: all pairs of units 2, 0, 3. Large: 0 with 1 and 2 (0-2 already there).
        assert_eq!(pairs(&p), vec![(0, 1), (0, 2), (0, 3), (1, 2), (2, 3)]);
        assert_eq!(added, vec![3, 1]);
        let e = p.edges.iter().find(|e| (e.u, e.v) == (0, 3)).unwrap();
        assert_eq!((e.d64, e.d128), (3, 3));
    }

    /// A document outside every unit is left out of its group; a large group whose first
    /// document is in no unit lists nothing.
    #[test]
    fn documents_in_no_unit_are_left_out() {
        let (mut g, fp64, fp128) = graph();
        g.members = vec![0, 1, 2, 3];
        g.starts = vec![0, 2, 3, 4];
        g.add_document_groups(&[vec![0, 2, 5], vec![4, 0, 2, 3]], 3);
        let (p, _) = g.listed(&fp64, &fp128);
        assert_eq!(pairs(&p), vec![(0, 1)]);
    }

    /// The listed form and the groups' form hold the same candidates: every pair a group
    /// holds is listed, and only those (random groups, all-pairs listing).
    #[test]
    fn listed_pairs_are_the_groups_pairs() {
        let mut rng = crate::base::rng::SplitMix64(3);
        for _ in 0..20 {
            let n = 2 + rng.below(40) as u32;
            let fp64: Vec<u64> = (0..n as u64).collect();
            let fp128: Vec<[u64; 2]> = (0..n as u64).map(|x| [x, 0]).collect();
            let mut g = CandidateGraph {
                docs: n,
                members: (0..n).collect(),
                starts: (0..=n).collect(),
                edges: Vec::new(),
                blocks: vec![Groups::new(Listing::AllPairs)],
            };
            let mut want = std::collections::BTreeSet::new();
            for _ in 0..rng.below(10) {
                let mut m: Vec<u32> = (0..n).filter(|_| rng.below(4) == 0).collect();
                m.dedup();
                for (i, &a) in m.iter().enumerate() {
                    for &b in &m[i + 1..] {
                        want.insert((a, b));
                    }
                }
                g.blocks[0].push(&m);
            }
            let (p, added) = g.clone().listed(&fp64, &fp128);
            assert_eq!(pairs(&p), want.iter().copied().collect::<Vec<_>>());
            assert_eq!(added, vec![want.len() as u64]);
            let (_, _, blocks) = g.groups();
            assert_eq!(blocks.len(), 1);
        }
    }

    /// The groups' form holds the pairs the listed form lists, star groups included.
    #[test]
    fn the_groups_form_holds_the_listed_pairs() {
        let (mut g, fp64, fp128) = graph();
        g.edges.push(Edge::new(3, 4, 1, 1));
        g.add_document_groups(&[vec![0, 2, 3], vec![2, 0, 4, 5]], 3);
        let (p, _) = g.clone().listed(&fp64, &fp128);
        let (_, _, blocks) = g.groups();
        let mut held = std::collections::BTreeSet::new();
        for b in &blocks {
            assert_eq!(b.listing, Listing::AllPairs);
            for i in 0..b.len() {
                let m = b.group(i);
                for (j, &u) in m.iter().enumerate() {
                    for &v in &m[j + 1..] {
                        held.insert((u.min(v), u.max(v)));
                    }
                }
            }
        }
        assert_eq!(held.into_iter().collect::<Vec<_>>(), pairs(&p));
    }
}
