//! Hamming joins: all pairs of fingerprints within a distance.
//!
//! [`plan`] decides which key bits each table groups by (exact pigeonhole plans, or randomized
//! bit samples); [`cpu`] runs a plan with rayon and holds the brute-force reference; [`gpu`]
//! runs the same plan with the comparisons on a GPU. Pairs are
//! document indices into the joined fingerprint arrays.

pub(crate) mod buffer;
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
