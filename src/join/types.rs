//! The join's named types, what travels between its parts and out of it: document pairs,
//! value pairs, the input, the spec that ties a plan to the distance it may run at, and the
//! statistics.

use super::plan::Plan;

/// One near-duplicate pair of documents.
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

/// Two distinct 64-bit fingerprints within tau, as a table's scan finds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ValuePair {
    /// One fingerprint.
    pub x: u64,
    /// The other.
    pub y: u64,
    /// Their Hamming distance.
    pub d64: u8,
}

/// Two distinct 64-bit fingerprints within tau, by their places among the join's sorted
/// distinct values (`x < y`), as the graph takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct DistinctPair {
    /// The lower place.
    pub x: u32,
    /// The higher place.
    pub y: u32,
    /// The values' Hamming distance.
    pub d64: u8,
}

/// What a join reads: the corpus's fingerprint columns and the documents to join.
#[derive(Clone, Debug)]
pub struct JoinInput<'a> {
    /// 64-bit fingerprints, by document.
    pub fp64: &'a [u64],
    /// 128-bit fingerprints (low, high), by document.
    pub fp128: &'a [[u64; 2]],
    /// The documents to join (indices into the columns; others are left out), owned: the
    /// collapse reuses the list as its members.
    pub docs: Vec<u32>,
}

impl<'a> JoinInput<'a> {
    /// Every document of the columns.
    pub fn all(fp64: &'a [u64], fp128: &'a [[u64; 2]]) -> Self {
        JoinInput {
            fp64,
            fp128,
            docs: (0..fp64.len() as u32).collect(),
        }
    }
}

/// What a join looks for: the plan, and the distances a pair must be within.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinSpec {
    plan: Plan,
    tau: u32,
    tau128: Option<u32>,
}

impl JoinSpec {
    /// Pairs within `tau` on 64 bits (and `tau128` on 128 bits, when given) found with `plan`;
    /// refused when the plan was made for a smaller distance than `tau` (it would miss pairs
    /// without a word) or a distance exceeds the fingerprint's width.
    pub fn new(plan: Plan, tau: u32, tau128: Option<u32>) -> crate::Result<JoinSpec> {
        if tau > plan.tau {
            return Err(crate::Error::Config(format!(
                "a plan made for tau {} cannot join at tau {tau}: it would miss pairs",
                plan.tau
            )));
        }
        if tau > 64 || tau128.is_some_and(|t| t > 128) {
            return Err(crate::Error::Config(
                "thresholds above the fingerprint's width mean nothing".into(),
            ));
        }
        Ok(JoinSpec { plan, tau, tau128 })
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Largest 64-bit distance of a pair.
    pub fn tau(&self) -> u32 {
        self.tau
    }

    /// Largest 128-bit distance of a pair, when filtered.
    pub fn tau128(&self) -> Option<u32> {
        self.tau128
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

    /// Adds the run counts of `other` (comparisons, largest run).
    pub(crate) fn add_runs(&mut self, other: &JoinStats) {
        self.comparisons += other.comparisons;
        self.largest_run = self.largest_run.max(other.largest_run);
    }
}
