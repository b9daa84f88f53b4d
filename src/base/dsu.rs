//! The sequential union-find over document indices: the reference the lock-free one in
//! `cluster::dsu` is tested against, and the one verification and the linear removal use for
//! what is already joined. The larger root is linked under the smaller, so a set's root is its
//! smallest member whatever order the unions arrive in.

/// The sequential reference: plain parents, path halving, link by index.
#[derive(Clone, Debug)]
pub struct SeqDsu {
    parent: Vec<u32>,
}

impl SeqDsu {
    /// `n` singletons.
    pub fn new(n: usize) -> Self {
        SeqDsu {
            parent: (0..n as u32).collect(),
        }
    }

    /// The smallest member of `x`'s set.
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let g = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = g;
            x = g;
        }
        x
    }

    /// Joins the sets of `a` and `b`; true when they were apart.
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent[hi as usize] = lo;
        true
    }

    /// The smallest member of each element's set.
    pub fn labels(&mut self) -> Vec<u32> {
        (0..self.parent.len() as u32)
            .map(|x| self.find(x))
            .collect()
    }
}
