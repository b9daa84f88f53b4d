//! The components stage: large-star and small-star steps in turn (Kiveris, Lattanzi,
//! Mirrokni, Rastogi, Vassilvitskii: "Connected Components in MapReduce and Beyond", 2014)
//! over edges between 64-bit document numbers. A step is a task per partition; the partition
//! owning a document ([`super::records::owner`]) holds the document's edges, each edge held
//! by both ends' partitions.
//!
//! - Large-star: each document `u` links every larger neighbour to the smallest of `u` and
//!   its neighbours.
//! - Small-star: each document `u` with smaller neighbours links them and itself to the
//!   smallest of them.
//!
//! Neither changes the components. When a large-star and a small-star step both leave the
//! edges as they found them, every component is a star around its smallest document, which
//! the verify stage takes whole. A step reports the [`Signature`] of its input, so the driver
//! sees the fixed point without reading edges.

use std::path::PathBuf;

use rayon::prelude::*;

use super::plan::{Plan, TaskStats};
use super::records::{self, owner, read_parts, Buckets, Signature};

/// The file of step `step`'s edges from partition `from`, partitioned by the partition that
/// holds them ([`records::Buckets`]): a task writes one file a step, and reads its share of
/// every partition's.
pub fn file(plan: &Plan, step: u32, from: u32) -> PathBuf {
    plan.work
        .join("components")
        .join(format!("step{step:05}"))
        .join(format!("from{from:05}.bin"))
}

/// Sends the undirected `edges` from partition `from` as step `step`'s input: each edge to
/// both ends' partitions.
pub fn send(
    plan: &Plan,
    step: u32,
    from: u32,
    edges: impl Iterator<Item = [u64; 2]>,
) -> anyhow::Result<()> {
    let parts = plan.partitions;
    let path = file(plan, step, from);
    records::dir(path.parent().expect("a step directory").into())?;
    let mut out = Buckets::create(parts, &path)?;
    for [a, b] in edges {
        out.push(owner(a, parts), [a, b])?;
        out.push(owner(b, parts), [b, a])?;
    }
    out.commit()?;
    Ok(())
}

/// Step `step`'s edges held by partition `p`: (document of `p`, neighbour), distinct,
/// ascending.
pub fn input(plan: &Plan, step: u32, p: u32) -> anyhow::Result<Vec<[u64; 2]>> {
    let files: Vec<PathBuf> = (0..plan.partitions)
        .map(|from| file(plan, step, from))
        .collect();
    let mut e = read_parts(&files, p)?;
    e.par_sort_unstable();
    e.dedup();
    Ok(e)
}

/// A large-star step over the edges of some documents (each document's neighbours
/// ascending): the undirected edges it makes.
pub fn large_star(edges: &[[u64; 2]]) -> Vec<[u64; 2]> {
    let mut out = Vec::new();
    for n in edges.chunk_by(|a, b| a[0] == b[0]) {
        let u = n[0][0];
        let m = u.min(n[0][1]);
        out.extend(n.iter().filter(|e| e[1] > u).map(|e| [e[1], m]));
    }
    out
}

/// A small-star step (see [`large_star`]).
pub fn small_star(edges: &[[u64; 2]]) -> Vec<[u64; 2]> {
    let mut out = Vec::new();
    for n in edges.chunk_by(|a, b| a[0] == b[0]) {
        let u = n[0][0];
        let m = n[0][1];
        if m > u {
            continue;
        }
        out.push([u, m]);
        out.extend(n[1..].iter().filter(|e| e[1] < u).map(|e| [e[1], m]));
    }
    out
}

/// The components whose smallest document partition `p` owns, from the edges of the last
/// step (stars around their smallest documents): each its documents, ascending.
pub fn stars(edges: &[[u64; 2]]) -> Vec<Vec<u64>> {
    edges
        .chunk_by(|a, b| a[0] == b[0])
        .filter(|n| n[0][1] > n[0][0])
        .map(|n| {
            std::iter::once(n[0][0])
                .chain(n.iter().map(|e| e[1]))
                .collect()
        })
        .collect()
}

/// Runs step `step` for partition `p`: large-star on even steps, small-star on odd ones.
pub fn run(plan: &Plan, p: u32, step: u32, stats: &mut TaskStats) -> anyhow::Result<()> {
    let e = input(plan, step, p)?;
    stats.signature = Some(Signature::of(&e));
    stats.counts.insert("edges".into(), e.len().into());
    stats.counts.insert("step".into(), step.into());
    let made = if step.is_multiple_of(2) {
        large_star(&e)
    } else {
        small_star(&e)
    };
    drop(e);
    send(plan, step + 1, p, made.into_iter())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;
    use std::collections::BTreeSet;

    /// Both directions of `edges`, ascending, distinct.
    fn directed(edges: &[[u64; 2]]) -> Vec<[u64; 2]> {
        let mut d: Vec<[u64; 2]> = edges
            .iter()
            .flat_map(|e| [[e[0], e[1]], [e[1], e[0]]])
            .filter(|e| e[0] != e[1])
            .collect();
        d.sort_unstable();
        d.dedup();
        d
    }

    /// The components by a plain union-find, each ascending.
    fn reference(edges: &[[u64; 2]]) -> BTreeSet<Vec<u64>> {
        let mut docs: Vec<u64> = edges.iter().flatten().copied().collect();
        docs.sort_unstable();
        docs.dedup();
        let at = |d: u64| docs.binary_search(&d).unwrap() as u32;
        let mut dsu = crate::base::dsu::SeqDsu::new(docs.len());
        for e in edges {
            dsu.union(at(e[0]), at(e[1]));
        }
        let label = dsu.labels();
        let mut by: std::collections::BTreeMap<u32, Vec<u64>> = Default::default();
        for (i, d) in docs.iter().enumerate() {
            by.entry(label[i]).or_default().push(*d);
        }
        by.into_values().collect()
    }

    /// The steps in turn to their fixed point give stars whose documents are the
    /// components, on paths (the worst case for label propagation), random graphs and one
    /// giant star.
    #[test]
    fn alternating_steps_end_in_the_components_as_stars() {
        let mut rng = SplitMix64(4);
        let mut cases: Vec<Vec<[u64; 2]>> = vec![
            (0..500u64).map(|i| [i * 7 + 3, i * 7 + 10]).collect(),
            (1..300u64).map(|i| [0, i]).collect(),
            (0..200u64).rev().map(|i| [i + 1, i]).collect(),
        ];
        for n in [50u64, 2000] {
            cases.push(
                (0..n)
                    .map(|_| [rng.below(n * 2) << 33, rng.below(n * 2) << 33])
                    .collect(),
            );
        }
        for mut edges in cases {
            edges.retain(|e| e[0] != e[1]);
            let want = reference(&edges);
            let mut e = directed(&edges);
            let mut steps = 0u32;
            let mut seen: Vec<Signature> = Vec::new();
            loop {
                seen.push(Signature::of(&e));
                let k = seen.len();
                if k >= 3 && seen[k - 1] == seen[k - 2] && seen[k - 2] == seen[k - 3] {
                    break;
                }
                let made = if steps.is_multiple_of(2) {
                    large_star(&e)
                } else {
                    small_star(&e)
                };
                e = directed(&made);
                steps += 1;
                assert!(steps < 200, "no fixed point");
            }
            let got: BTreeSet<Vec<u64>> = stars(&e).into_iter().collect();
            assert_eq!(got, want);
        }
    }
}
