//! Verification: the candidate pairs of a join, scored on the documents' own text.
//!
//! SimHash finds candidates; what users mean by a near-duplicate is decided on the text, as
//! CopyCat does it: word 8-gram shingles ([`shingle`]) and S3 >= 0.82 ([`measure`]). The
//! documents of the pairs are read again from their shards ([`reread`]), each shard once.
//!
//! Memory: the shingle sets of every document in some pair are held at once, 8 bytes per
//! distinct shingle (a 10 KB page has about 1 500 terms, so about 12 KB).

pub mod evaluate;
pub mod measure;
pub mod reread;
pub mod shingle;

use std::collections::HashMap;

use rayon::prelude::*;

use crate::fingerprint::store::StoreSet;
use crate::join::graph::{Edge, PairGraph};
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
}

impl Default for VerifySpec {
    fn default() -> Self {
        VerifySpec {
            k: shingle::DEFAULT_K,
            measure: Measure::S3,
            min: 0.82,
            shard_dir: None,
        }
    }
}

impl VerifySpec {
    /// Whether `o` passes.
    pub fn passes(&self, o: &Overlap) -> bool {
        o.score(self.measure) >= self.min
    }
}

/// A candidate pair with its overlap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scored {
    /// The pair and its distances.
    pub pair: Pair,
    /// The shingle overlap of its documents.
    pub overlap: Overlap,
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
}

/// The shingle sets of `docs`, read again from their shards.
pub fn shingle_sets(
    stores: &StoreSet,
    docs: &[u32],
    spec: &VerifySpec,
) -> Result<(HashMap<u32, Vec<u64>>, VerifyStats)> {
    let params = &stores.stores()[0].manifest.params;
    let (opts, seed) = (params.tokens, params.seed);
    let found = reread::for_each_text(
        stores,
        docs,
        spec.shard_dir.as_deref(),
        || shingle::Shingler::new(spec.k, opts, seed),
        |s, _, text| {
            let mut out = Vec::new();
            s.shingles(text, &mut out);
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
            (d, set)
        })
        .collect();
    Ok((sets, stats))
}

/// Every pair of `g`, scored.
pub fn score(
    stores: &StoreSet,
    g: &PairGraph,
    spec: &VerifySpec,
) -> Result<(Vec<Scored>, VerifyStats)> {
    let pairs = g.pairs_where(|_, _| true);
    let mut docs: Vec<u32> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    docs.par_sort_unstable();
    docs.dedup();
    let (sets, stats) = shingle_sets(stores, &docs, spec)?;
    let scored = pairs
        .par_iter()
        .map(|p| Scored {
            pair: *p,
            overlap: Overlap::of(&sets[&p.a], &sets[&p.b]),
        })
        .collect();
    Ok((scored, stats))
}

/// A candidate graph reduced to its verified pairs, with counts of document pairs.
pub struct Verified {
    /// Units of identical text (within one candidate unit), and the verified edges between
    /// them; clustering and sweeps read it as they read a join.
    pub graph: PairGraph,
    /// Candidate document pairs.
    pub candidates: u64,
    /// Of them, verified (the measure at least its threshold).
    pub verified: u64,
    /// Text comparisons made (one per pair of distinct texts).
    pub compared: u64,
    /// What was read.
    pub stats: VerifyStats,
}

/// Keeps the pairs of `g` that pass `spec`. Documents with identical normalised text (equal
/// content hashes inside one unit of identical fingerprints) score 1 without being read;
/// every other pair of distinct texts is compared once, by one document of each text, so a
/// template repeated a thousand times costs one comparison per neighbour, not a million.
pub fn verified_graph(stores: &StoreSet, g: &PairGraph, spec: &VerifySpec) -> Result<Verified> {
    // Sub-units: the members of a unit grouped by content hash.
    let mut subs: Vec<Vec<u32>> = Vec::new();
    let mut unit_subs: Vec<std::ops::Range<u32>> = Vec::with_capacity(g.units());
    for u in 0..g.units() as u32 {
        let mut m: Vec<([u64; 2], u32)> = g
            .unit(u)
            .iter()
            .map(|d| (stores.content_hash(*d), *d))
            .collect();
        m.sort_unstable();
        let first = subs.len() as u32;
        for group in m.chunk_by(|a, b| a.0 == b.0) {
            subs.push(group.iter().map(|x| x.1).collect());
        }
        unit_subs.push(first..subs.len() as u32);
    }
    let size = |s: u32| subs[s as usize].len() as u64;
    // Candidate pairs of sub-units, with their distances.
    let mut cand: Vec<(u32, u32, u8, u8)> = Vec::new();
    let (mut candidates, mut verified) = (0u64, 0u64);
    for r in &unit_subs {
        for i in r.clone() {
            let n = size(i);
            candidates += n * (n - 1) / 2;
            verified += n * (n - 1) / 2;
            for j in i + 1..r.end {
                cand.push((i, j, 0, 0));
            }
        }
    }
    for e in &g.edges {
        for i in unit_subs[e.u as usize].clone() {
            for j in unit_subs[e.v as usize].clone() {
                cand.push((i, j, e.d64, e.d128));
            }
        }
    }
    let rep = |s: u32| subs[s as usize][0];
    let mut docs: Vec<u32> = cand.iter().flat_map(|c| [rep(c.0), rep(c.1)]).collect();
    docs.par_sort_unstable();
    docs.dedup();
    let (sets, stats) = shingle_sets(stores, &docs, spec)?;
    let pass: Vec<bool> = cand
        .par_iter()
        .map(|c| spec.passes(&Overlap::of(&sets[&rep(c.0)], &sets[&rep(c.1)])))
        .collect();
    for (c, ok) in cand.iter().zip(&pass) {
        let n = size(c.0) * size(c.1);
        candidates += n;
        verified += if *ok { n } else { 0 };
    }
    // The verified graph: sub-units in order of their first member.
    let mut order: Vec<u32> = (0..subs.len() as u32).collect();
    order.sort_unstable_by_key(|s| rep(*s));
    let mut rank = vec![0u32; subs.len()];
    let (mut members, mut starts) = (Vec::new(), vec![0u32]);
    for (r, s) in order.iter().enumerate() {
        rank[*s as usize] = r as u32;
        members.extend_from_slice(&subs[*s as usize]);
        starts.push(members.len() as u32);
    }
    let mut edges: Vec<Edge> = cand
        .iter()
        .zip(&pass)
        .filter(|(_, ok)| **ok)
        .map(|(c, _)| Edge::new(rank[c.0 as usize], rank[c.1 as usize], c.2, u32::from(c.3)))
        .collect();
    edges.sort_unstable();
    Ok(Verified {
        graph: PairGraph {
            docs: g.docs,
            members,
            starts,
            edges,
        },
        candidates,
        verified,
        compared: cand.len() as u64,
        stats,
    })
}
