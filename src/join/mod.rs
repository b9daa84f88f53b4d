//! Hamming joins: all pairs of fingerprints within a distance.
//!
//! [`plan`] decides which key bits each table groups by (exact pigeonhole plans, or randomized
//! bit samples); [`cpu`] runs a plan with rayon and holds the brute-force reference; [`gpu`]
//! runs the same plan with the comparisons on a GPU. Pairs are
//! document indices into the joined fingerprint arrays.

pub mod cpu;
pub mod gpu;
pub mod graph;
pub(crate) mod order;
pub mod pairs_file;
pub mod plan;

/// One near-duplicate pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    /// The lower document index.
    pub a: u32,
    /// The higher document index.
    pub b: u32,
    /// 64-bit Hamming distance.
    pub d64: u8,
    /// 128-bit Hamming distance (0 when 128-bit fingerprints were not given).
    pub d128: u8,
}

impl Pair {
    /// The pair of documents `a` and `b` (in either order) with its distances.
    pub fn new(a: u32, b: u32, d64: u8, d128: u8) -> Pair {
        Pair {
            a: a.min(b),
            b: a.max(b),
            d64,
            d128,
        }
    }
}

/// What a join did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JoinStats {
    /// Documents joined.
    pub documents: u64,
    /// Distinct 64-bit fingerprints among them.
    pub distinct: u64,
    /// Tables in the plan.
    pub tables: u64,
    /// Fingerprint pairs compared.
    pub comparisons: u64,
    /// Largest run of equal keys in any table.
    pub largest_run: u64,
    /// Pairs reported.
    pub pairs: u64,
    /// Of which identical 64-bit fingerprints.
    pub exact_pairs: u64,
}

impl JoinStats {
    /// Counts a run of `len` equal keys: its comparisons, and the largest run.
    pub(crate) fn add_run(&mut self, len: u64) {
        self.comparisons += len * len.saturating_sub(1) / 2;
        self.largest_run = self.largest_run.max(len);
    }
}
