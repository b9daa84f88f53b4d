//! Clusters at one threshold, and the document that represents each.
//!
//! The representative depends only on the partition and the documents, never on the order in
//! which pairs were merged, so a run is reproducible whatever the thread schedule: by default
//! the alphanumerically lowest id (CopyCat), or the first in corpus order, or the longest
//! normalised text, or the one with the most neighbours in the graph (ties go to the first in
//! corpus order).

use super::Dsu;
use crate::join::graph::{Edge, PairGraph};

/// How a cluster's representative is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Representative {
    /// The alphanumerically lowest document id.
    #[default]
    LowestId,
    /// The first document in corpus order (store order, stores in the order given).
    First,
    /// The document with the longest normalised text.
    Longest,
    /// The document with the most near-duplicates (verified neighbours).
    Central,
}

/// A partition of the corpus's documents with one representative per cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clusters {
    /// Each document's cluster, named by its smallest member.
    pub root: Vec<u32>,
    /// Cluster size, indexed by root (0 for documents that are not roots).
    pub size: Vec<u32>,
    /// Each document's representative.
    pub rep: Vec<u32>,
}

/// Merges the units of `g` and the edges that `keep` accepts.
pub fn clusters_at(g: &PairGraph, keep: impl Fn(&Edge) -> bool + Sync) -> Dsu {
    let dsu = Dsu::new(g.docs as usize);
    let mut links: Vec<(u32, u32)> = g.unit_links().collect();
    links.extend(g.edges.iter().filter(|e| keep(e)).map(|e| g.edge_link(e)));
    dsu.union_all(&links);
    dsu
}

impl Clusters {
    /// Labels the partition in `dsu` and picks representatives. `id`, `text_len` and
    /// `degree` (its neighbours, [`super::star::degrees`]) describe document `i` of the
    /// corpus.
    pub fn new<'a>(
        dsu: &Dsu,
        rule: Representative,
        policy: &super::policy::KeepPolicy<'_>,
        id: impl Fn(u32) -> &'a str,
        text_len: impl Fn(u32) -> u32,
        degree: impl Fn(u32) -> u32,
    ) -> Clusters {
        let root = dsu.labels();
        let mut size = vec![0u32; root.len()];
        for r in &root {
            size[*r as usize] += 1;
        }
        // Start from the root (the first member in corpus order) and improve.
        let mut best: Vec<u32> = (0..root.len() as u32).collect();
        if rule != Representative::First || !policy.is_none() {
            for (d, r) in root.iter().enumerate() {
                let (d, r) = (d as u32, *r as usize);
                if size[r] < 2 || d == r as u32 {
                    continue;
                }
                let b = best[r];
                let (pd, pb) = (policy.key(d), policy.key(b));
                let better = pd < pb
                    || pd == pb
                        && match rule {
                            Representative::LowestId => id(d) < id(b),
                            Representative::Longest => text_len(d) > text_len(b),
                            Representative::Central => degree(d) > degree(b),
                            Representative::First => false,
                        };
                if better {
                    best[r] = d;
                }
            }
        }
        let rep = root.iter().map(|r| best[*r as usize]).collect();
        Clusters { root, size, rep }
    }

    /// Documents.
    pub fn len(&self) -> usize {
        self.root.len()
    }

    /// True when there are no documents.
    pub fn is_empty(&self) -> bool {
        self.root.is_empty()
    }

    /// Size of document `d`'s cluster.
    pub fn cluster_size(&self, d: u32) -> u32 {
        self.size[self.root[d as usize] as usize]
    }

    /// Clusters, singletons included.
    pub fn count(&self) -> usize {
        self.size.iter().filter(|s| **s > 0).count()
    }
}
