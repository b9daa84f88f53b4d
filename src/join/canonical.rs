//! Candidates from canonical links (CopyCat, section 3): pages in the same canonical class,
//! that is with the same canonical URL, or one whose URL is the other's canonical URL. They
//! are added to a join's graph as candidates and verified like every other: CopyCat found
//! canonical links alone insufficient (65 % of its canonical pairs were near-duplicates).
//! The classes join the candidates as groups ([`super::candidates::CandidateGraph`]).
//!
//! A class of up to [`ALL_PAIRS`] joined pages gives all its pairs; a larger one (a site
//! whose every page names its home page) gives each member paired with the class's first
//! page only, so a class costs pairs linear in its size.

use std::collections::{HashMap, HashSet};

use crate::fingerprint::store::StoreSet;
use crate::text::canonical::normal_url;

/// Classes up to this size give all their pairs.
pub const ALL_PAIRS: usize = 64;

/// What the canonical links added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CanonicalStats {
    /// Documents naming a canonical URL.
    pub documents_with_link: u64,
    /// Classes of two or more joined documents.
    pub classes: u64,
    /// Document pairs the classes gave.
    pub pairs: u64,
    /// Edges added to the graph (pairs whose units were not already joined).
    pub new_edges: u64,
}

/// The canonical classes of `stores` (two or more documents each, ascending), among the
/// documents `joined` admits.
pub fn classes(stores: &StoreSet, joined: impl Fn(u32) -> bool) -> (Vec<Vec<u32>>, u64) {
    let n = stores.len() as u32;
    let mut named: HashSet<&str> = HashSet::new();
    let mut with_link = 0u64;
    for c in (0..n)
        .map(|d| stores.canonical(d))
        .filter(|c| !c.is_empty())
    {
        named.insert(c);
        with_link += 1;
    }
    let mut by: HashMap<String, Vec<u32>> = HashMap::new();
    for d in (0..n).filter(|d| joined(*d)) {
        let c = stores.canonical(d);
        let key = if !c.is_empty() {
            c.to_string()
        } else {
            let u = stores.url(d);
            if u.is_empty() {
                continue;
            }
            let u = normal_url(u);
            if !named.contains(u.as_str()) {
                continue;
            }
            u
        };
        by.entry(key).or_default().push(d);
    }
    let mut out: Vec<Vec<u32>> = by.into_values().filter(|c| c.len() > 1).collect();
    out.sort_unstable();
    (out, with_link)
}

/// The canonical classes among the documents `docs` of `stores` (see [`classes`]).
pub fn classes_among(stores: &StoreSet, docs: &[u32]) -> (Vec<Vec<u32>>, u64) {
    let mut joined = vec![false; stores.len()];
    for d in docs {
        joined[*d as usize] = true;
    }
    classes(stores, |d| joined[d as usize])
}

/// The candidate pairs a class gives: all its pairs up to [`ALL_PAIRS`] members, else each
/// member with the first.
pub fn class_pairs(class: &[u32]) -> u64 {
    let n = class.len() as u64;
    if class.len() <= ALL_PAIRS {
        n * n.saturating_sub(1) / 2
    } else {
        n - 1
    }
}
