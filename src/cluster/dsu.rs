//! Union-find over document indices: a lock-free parallel one and the sequential reference.
//!
//! Both link the larger root under the smaller, so the root of every set is its smallest
//! member whatever order the unions arrive in and however threads interleave: the partition
//! *and* its labels are deterministic. The concurrent version keeps parents in `AtomicU32`s,
//! links with compare-and-swap (retrying when another thread moved a root first) and halves
//! paths on the way up with relaxed stores, which may be lost without harm: a parent only ever
//! moves to another ancestor, never out of the set.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

pub use crate::base::dsu::SeqDsu;

/// The lock-free union-find: `find` and `union` take `&self` and may run on any threads.
#[derive(Debug)]
pub struct Dsu {
    parent: Vec<AtomicU32>,
}

impl Dsu {
    /// `n` singletons.
    pub fn new(n: usize) -> Self {
        Dsu {
            parent: (0..n as u32).into_par_iter().map(AtomicU32::new).collect(),
        }
    }

    /// Elements.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The current root of `x`'s set (its smallest member once no union is in flight).
    #[inline]
    pub fn find(&self, mut x: u32) -> u32 {
        loop {
            let p = self.parent[x as usize].load(Relaxed);
            if p == x {
                return x;
            }
            let g = self.parent[p as usize].load(Relaxed);
            if g != p {
                // Path halving. A racing store may overwrite a newer parent with this older
                // ancestor; both lie in the same set, so only the shortcut is lost.
                self.parent[x as usize].store(g, Relaxed);
            }
            x = g;
        }
    }

    /// Joins the sets of `a` and `b`; true when this call joined two sets (so the number of
    /// true results equals the number of merges, whatever the interleaving).
    #[inline]
    pub fn union(&self, a: u32, b: u32) -> bool {
        let (mut ra, mut rb) = (self.find(a), self.find(b));
        loop {
            if ra == rb {
                return false;
            }
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            // Only a root may be linked: the CAS fails if `hi` gained a parent meanwhile.
            match self.parent[hi as usize].compare_exchange_weak(hi, lo, Relaxed, Relaxed) {
                Ok(_) => return true,
                Err(_) => {
                    ra = self.find(lo);
                    rb = self.find(hi);
                }
            }
        }
    }

    /// Applies every union in parallel; returns the number of merges.
    pub fn union_all(&self, pairs: &[(u32, u32)]) -> u64 {
        pairs
            .par_iter()
            .with_min_len(4096)
            .map(|&(a, b)| u64::from(self.union(a, b)))
            .sum()
    }

    /// Flattens every path so each parent is the set's smallest member, and returns those
    /// labels. Call only when no union is in flight.
    pub fn labels(&self) -> Vec<u32> {
        (0..self.parent.len() as u32)
            .into_par_iter()
            .with_min_len(4096)
            .map(|x| {
                let r = self.find(x);
                self.parent[x as usize].store(r, Relaxed);
                r
            })
            .collect()
    }

    /// Sizes of the sets by root (zero for non-roots). Call only when no union is in flight.
    pub fn sizes(&self) -> Vec<u32> {
        let counts: Vec<AtomicU32> = (0..self.parent.len()).map(|_| AtomicU32::new(0)).collect();
        (0..self.parent.len() as u32)
            .into_par_iter()
            .with_min_len(4096)
            .for_each(|x| {
                counts[self.find(x) as usize].fetch_add(1, Relaxed);
            });
        counts.into_iter().map(AtomicU32::into_inner).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;

    #[test]
    fn roots_are_smallest_members() {
        let d = Dsu::new(6);
        assert!(d.union(5, 3));
        assert!(d.union(3, 4));
        assert!(!d.union(4, 5));
        assert!(d.union(1, 5));
        assert_eq!(d.labels(), vec![0, 1, 2, 1, 1, 1]);
        assert_eq!(d.sizes(), vec![1, 4, 1, 0, 0, 0]);
        let mut s = SeqDsu::new(6);
        for (a, b) in [(5, 3), (3, 4), (4, 5), (1, 5)] {
            s.union(a, b);
        }
        assert_eq!(s.labels(), d.labels());
    }

    #[test]
    fn merges_are_counted_once_under_contention() {
        let mut rng = SplitMix64(3);
        let n = 20_000u32;
        let pairs: Vec<(u32, u32)> = (0..200_000)
            .map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32))
            .collect();
        let d = Dsu::new(n as usize);
        let merges = d.union_all(&pairs);
        let mut s = SeqDsu::new(n as usize);
        let seq_merges = pairs.iter().filter(|(a, b)| s.union(*a, *b)).count() as u64;
        assert_eq!(merges, seq_merges);
        assert_eq!(d.labels(), s.labels());
    }
}
