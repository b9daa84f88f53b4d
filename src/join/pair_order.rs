//! The document pairs of a [`PairGraph`] in (a, b) order, a batch at a time.
//!
//! A unit of k identical texts stands for k(k-1)/2 pairs, so a table of every pair can be far
//! larger than the graph (a site's 20 000 identical error pages are 200 million pairs). Listing
//! them with [`PairGraph::pairs`] holds them all, and sorts them, at once; [`PairOrder`] instead
//! makes the pairs whose lower document falls in a range of documents, ranges in order, each
//! range's pairs made in parallel and in order: memory holds the graph, 8 bytes a document and
//! one batch of pairs, whatever the number of pairs.

use std::ops::Range;

use rayon::prelude::*;

use super::graph::PairGraph;
use super::types::Pair;

/// A unit next to another: the edge's far unit and its distances.
#[derive(Clone, Copy, Debug)]
struct Near {
    unit: u32,
    d64: u8,
    d128: u8,
}

/// The pairs of a graph by their lower document (see the module doc).
pub struct PairOrder<'g> {
    g: &'g PairGraph,
    /// The unit of each document; `u32::MAX` outside every unit.
    unit_of: Vec<u32>,
    /// Unit `u`'s neighbours are `near[near_starts[u]..near_starts[u + 1]]`.
    near_starts: Vec<usize>,
    near: Vec<Near>,
}

/// No unit.
const NONE: u32 = u32::MAX;

impl<'g> PairOrder<'g> {
    /// The order of `g`'s pairs.
    pub fn new(g: &'g PairGraph) -> PairOrder<'g> {
        let mut unit_of = vec![NONE; g.docs as usize];
        for u in 0..g.units() as u32 {
            for &d in g.unit(u) {
                unit_of[d as usize] = u;
            }
        }
        let mut near_starts = vec![0usize; g.units() + 1];
        for e in &g.edges {
            near_starts[e.u as usize + 1] += 1;
            near_starts[e.v as usize + 1] += 1;
        }
        for i in 1..near_starts.len() {
            near_starts[i] += near_starts[i - 1];
        }
        let mut fill = near_starts.clone();
        let mut near = vec![
            Near {
                unit: 0,
                d64: 0,
                d128: 0
            };
            near_starts[g.units()]
        ];
        for e in &g.edges {
            for (from, to) in [(e.u, e.v), (e.v, e.u)] {
                near[fill[from as usize]] = Near {
                    unit: to,
                    d64: e.d64,
                    d128: e.d128,
                };
                fill[from as usize] += 1;
            }
        }
        PairOrder {
            g,
            unit_of,
            near_starts,
            near,
        }
    }

    /// The neighbours of unit `u`.
    fn near(&self, u: u32) -> &[Near] {
        &self.near[self.near_starts[u as usize]..self.near_starts[u as usize + 1]]
    }

    /// Whether document `d` is in some pair: a member of a unit of two or more, or of a unit
    /// with an edge.
    pub fn paired(&self, d: u32) -> bool {
        match self.unit_of[d as usize] {
            NONE => false,
            u => self.g.unit(u).len() > 1 || !self.near(u).is_empty(),
        }
    }

    /// Pairs whose lower document is `a`.
    pub fn count(&self, a: u32) -> u64 {
        let u = match self.unit_of[a as usize] {
            NONE => return 0,
            u => u,
        };
        let above = |m: &[u32]| (m.len() - m.partition_point(|&d| d <= a)) as u64;
        above(self.g.unit(u))
            + self
                .near(u)
                .iter()
                .map(|n| above(self.g.unit(n.unit)))
                .sum::<u64>()
    }

    /// Appends the pairs whose lower document is `a`, by their higher document.
    pub fn pairs_of(&self, a: u32, out: &mut Vec<Pair>) {
        let u = match self.unit_of[a as usize] {
            NONE => return,
            u => u,
        };
        let start = out.len();
        let above = |m: &'g [u32]| &m[m.partition_point(|&d| d <= a)..];
        out.extend(above(self.g.unit(u)).iter().map(|&b| Pair::new(a, b, 0, 0)));
        let mut sorted = true;
        for n in self.near(u) {
            let from = out.len();
            out.extend(
                above(self.g.unit(n.unit))
                    .iter()
                    .map(|&b| Pair::new(a, b, n.d64, n.d128)),
            );
            sorted &= from == start || from == out.len() || out[from - 1].b < out[from].b;
        }
        // Each unit's members ascend; the runs of several units interleave in general.
        if !sorted {
            out[start..].sort_unstable_by_key(|p| p.b);
        }
    }

    /// Calls `f` with the pairs whose lower document is below `limit` (every pair with
    /// `g.docs`; with an older collection starting at `old`, the pairs not within it), in (a, b)
    /// order, in slices of `batch` pairs (the last may be shorter). Each range's pairs are made
    /// in parallel; memory holds about one batch of pairs beyond the order itself. Returns the
    /// pairs passed.
    pub fn for_each_batch<E>(
        &self,
        limit: u32,
        batch: usize,
        mut f: impl FnMut(&[Pair]) -> Result<(), E>,
    ) -> Result<u64, E> {
        let batch = batch.max(1);
        let limit = limit.min(self.g.docs);
        let counts = self.counts(limit);
        let pieces = rayon::current_num_threads().max(1) * 4;
        let (mut pending, mut a, mut passed) = (Vec::<Pair>::new(), 0u32, 0u64);
        while a < limit {
            // The documents whose pairs fill the batch (at least one document).
            let want = (batch - pending.len()) as u64;
            let (mut end, mut got) = (a, 0u64);
            while end < limit && (got < want || end == a) {
                got += u64::from(counts[end as usize]);
                end += 1;
            }
            let made: Vec<Vec<Pair>> = cut(&counts, a..end, got.div_ceil(pieces as u64))
                .into_par_iter()
                .map(|r| {
                    let mut out = Vec::new();
                    for d in r {
                        self.pairs_of(d, &mut out);
                    }
                    out
                })
                .collect();
            for m in made {
                pending.extend_from_slice(&m);
            }
            let mut at = 0;
            while pending.len() - at >= batch {
                f(&pending[at..at + batch])?;
                at += batch;
            }
            passed += at as u64;
            pending.drain(..at);
            a = end;
        }
        if !pending.is_empty() {
            f(&pending)?;
            passed += pending.len() as u64;
        }
        Ok(passed)
    }

    /// [`PairOrder::count`] of each document below `limit`, in parallel.
    fn counts(&self, limit: u32) -> Vec<u32> {
        let mut counts = vec![0u32; limit as usize];
        counts
            .par_chunks_mut(1 << 14)
            .enumerate()
            .for_each(|(i, c)| {
                let first = (i << 14) as u32;
                for (j, n) in c.iter_mut().enumerate() {
                    // Fewer partners than documents, so it fits.
                    *n = self.count(first + j as u32) as u32;
                }
            });
        counts
    }
}

/// `docs` cut into consecutive ranges of about `per` pairs each (by `counts`), none empty.
fn cut(counts: &[u32], docs: Range<u32>, per: u64) -> Vec<Range<u32>> {
    let mut out = Vec::new();
    let (mut start, mut got) = (docs.start, 0u64);
    for d in docs.clone() {
        got += u64::from(counts[d as usize]);
        if got >= per.max(1) {
            out.push(start..d + 1);
            (start, got) = (d + 1, 0);
        }
    }
    if start < docs.end {
        out.push(start..docs.end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::graph::{not_within_old, Edge};

    /// A graph of `docs` documents in random units (some left out) with random edges.
    fn graph(docs: u32, seed: u64) -> PairGraph {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move |n: u32| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % u64::from(n.max(1))) as u32
        };
        // Documents shuffled into units of 1 to 6 members (a few large), every third left out.
        let mut order: Vec<u32> = (0..docs).filter(|d| d % 3 != 1).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, next(i as u32 + 1) as usize);
        }
        let (mut members, mut starts) = (Vec::new(), vec![0u32]);
        let mut rest = &order[..];
        while !rest.is_empty() {
            let k = if next(10) == 0 { 20 } else { 1 + next(6) } as usize;
            let (m, r) = rest.split_at(k.min(rest.len()));
            let mut m = m.to_vec();
            m.sort_unstable();
            members.extend(m);
            starts.push(members.len() as u32);
            rest = r;
        }
        let units = starts.len() as u32 - 1;
        let mut edges = Vec::new();
        for _ in 0..units * 2 {
            let (u, v) = (next(units), next(units));
            if u != v {
                edges.push(Edge::new(u, v, next(7) as u8, next(15)));
            }
        }
        edges.sort_unstable();
        edges.dedup_by_key(|e| (e.u, e.v));
        PairGraph {
            docs,
            members,
            starts,
            edges,
        }
    }

    #[test]
    fn batches_concatenate_to_every_pair_in_order() {
        for seed in 0..12 {
            let g = graph(200 + seed as u32 * 37, seed);
            let order = PairOrder::new(&g);
            for batch in [1, 7, 64, 1000, 1 << 20] {
                let (mut got, mut sizes) = (Vec::new(), Vec::new());
                let n = order
                    .for_each_batch(g.docs, batch, |b| {
                        sizes.push(b.len());
                        got.extend_from_slice(b);
                        Ok::<(), ()>(())
                    })
                    .unwrap();
                assert_eq!(got, g.pairs(), "seed {seed}, batch {batch}");
                assert_eq!(n, got.len() as u64);
                assert_eq!(n, g.pair_count());
                // Every batch full but the last.
                if let Some((last, full)) = sizes.split_last() {
                    assert!(full.iter().all(|&s| s == batch), "seed {seed}: {sizes:?}");
                    assert!(*last >= 1 && *last <= batch);
                }
            }
        }
    }

    #[test]
    fn a_limit_leaves_out_the_pairs_within_the_older_collection() {
        let g = graph(500, 99);
        let order = PairOrder::new(&g);
        for old in [0, 1, 100, 333, 499, 500] {
            let mut got = Vec::new();
            order
                .for_each_batch(old, 50, |b| {
                    got.extend_from_slice(b);
                    Ok::<(), ()>(())
                })
                .unwrap();
            assert_eq!(got, g.pairs_where(|a, b| not_within_old(Some(old), a, b)));
        }
    }

    #[test]
    fn paired_documents_are_those_of_some_pair() {
        let g = graph(400, 5);
        let order = PairOrder::new(&g);
        let mut want = vec![false; 400];
        for p in g.pairs() {
            want[p.a as usize] = true;
            want[p.b as usize] = true;
        }
        for d in 0..400 {
            assert_eq!(order.paired(d), want[d as usize], "doc {d}");
        }
    }

    #[test]
    fn an_error_stops_the_batches() {
        let g = graph(300, 3);
        let mut calls = 0;
        let r = PairOrder::new(&g).for_each_batch(g.docs, 5, |_| {
            calls += 1;
            if calls == 3 {
                Err("stop")
            } else {
                Ok(())
            }
        });
        assert_eq!(r, Err("stop"));
        assert_eq!(calls, 3);
    }
}
