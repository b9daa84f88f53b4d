//! MinHash-LSH candidates: documents that share a band key in any band
//! ([`crate::fingerprint::minhash`]), as runs of equal keys that `candidates` turns into a
//! `PairGraph` with both Hamming distances, so
//! verification, sweeps and clusters read them as they read a SimHash join.
//!
//! Units are documents with identical 64- and 128-bit fingerprints, grouped by the join's own
//! collapse. Only one document per unit takes part (its members have the same text or the
//! same fingerprints), so a page repeated a thousand times is not a million candidates. Each
//! band's keys are ordered with the join's two-pass counting sort (`order.rs`): units
//! scattered by the top bits of their key into regions of about eight thousand, each region
//! sorted in cache and in parallel by the rest; every two units in a run of equal keys are a
//! candidate. Band keys are hashes, so the regions are even.

use std::borrow::Cow;

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use super::collapse::collapse;
use super::order;

/// A unit with its key in one band, as the band's sort orders them.
#[repr(C)]
#[derive(Clone, Copy, Default, Pod, Zeroable)]
struct Keyed {
    key: u64,
    unit: u32,
    pad: u32,
}

/// Where the band keys come from: band `b`'s key of every document of the corpus, band by
/// band, so that a pass over one band reads its keys in order and can hand them back after.
pub trait BandKeys {
    /// Bands.
    fn bands(&self) -> usize;
    /// Band `b`'s key of every document, corpus order.
    fn band(&self, b: usize) -> Cow<'_, [u64]>;
    /// Band `b` will not be read again (its pages may be handed back).
    fn done(&self, _b: usize) {}
}

/// Keys held document by document: `bands` keys per document.
pub struct DocMajor<'a> {
    /// The keys.
    pub keys: &'a [u64],
    /// Keys per document.
    pub bands: usize,
}

impl<'a> DocMajor<'a> {
    /// Document `d`'s keys, one per band.
    pub fn of(&self, d: u32) -> &'a [u64] {
        &self.keys[d as usize * self.bands..(d as usize + 1) * self.bands]
    }

    /// Whether documents `x` and `y` share a band key (the same key in the same band): they
    /// are MinHash-LSH candidates.
    pub fn share(&self, x: u32, y: u32) -> bool {
        self.of(x).iter().zip(self.of(y)).any(|(a, b)| a == b)
    }
}

impl BandKeys for DocMajor<'_> {
    fn bands(&self) -> usize {
        self.bands
    }

    fn band(&self, b: usize) -> Cow<'_, [u64]> {
        Cow::Owned(
            self.keys
                .iter()
                .skip(b)
                .step_by(self.bands)
                .copied()
                .collect(),
        )
    }
}

/// Runs of equal band keys: the candidates without their pairs. Two units are candidates
/// exactly when some run holds both, so a group of n near-duplicates costs n entries per band
/// here, where its pairs would be n(n - 1)/2 (`CandidateGraph::listed` lists them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Runs {
    /// Documents grouped into units of identical 64- and 128-bit fingerprints; each unit's
    /// members ascending.
    pub members: Vec<u32>,
    /// Unit `u` is `members[starts[u]..starts[u + 1]]`.
    pub starts: Vec<u32>,
    /// Run `r` is `units[run_starts[r]..run_starts[r + 1]]`: two or more units whose first
    /// members share the key of one band, ascending; runs band by band.
    pub run_starts: Vec<u64>,
    /// The runs' units.
    pub units: Vec<u32>,
}

impl Runs {
    /// Runs.
    pub fn len(&self) -> usize {
        self.run_starts.len().saturating_sub(1)
    }

    /// Whether no two units share a key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Units of run `r`.
    pub fn run(&self, r: usize) -> &[u32] {
        &self.units[self.run_starts[r] as usize..self.run_starts[r + 1] as usize]
    }

    /// Units (of identical fingerprints).
    pub fn unit_count(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }
}

/// The runs of equal band keys among `docs` (ascending document indices): `keys` gives the
/// band keys of every document of the corpus, `fp64` and `fp128` its fingerprints.
///
/// Units are documents with identical 64- and 128-bit fingerprints, grouped by the join's own
/// collapse; only a unit's first member's keys take part (its members have the same text or
/// the same fingerprints). Each band's keys are ordered with the join's two-pass counting sort
/// (`order.rs`): units scattered by the top bits of their key into regions of about eight
/// thousand, each region sorted in cache and in parallel by the rest. Band keys are hashes, so
/// the regions are even. Units are scattered in the order of their first members, so each
/// band's column is read front to back.
pub fn runs(docs: &[u32], keys: &impl BandKeys, fp64: &[u64], fp128: &[[u64; 2]]) -> Runs {
    let c = collapse(fp64, fp128, docs.to_vec(), &mut Vec::new());
    let reps: Vec<u32> = c.starts[..c.starts.len() - 1]
        .iter()
        .map(|s| c.members[*s as usize])
        .collect();
    let mut units: Vec<u32> = (0..reps.len() as u32).collect();
    units.par_sort_unstable_by_key(|u| reps[*u as usize]);
    let gbits = order::group_bits(units.len(), 64);
    let low = 64 - gbits;
    let lowmask = (1u64 << low) - 1;
    let mut buffer: Vec<Keyed> = vec![Keyed::default(); units.len()];
    let mut out = Runs {
        members: c.members,
        starts: c.starts,
        run_starts: vec![0],
        units: Vec::new(),
    };
    for b in 0..keys.bands() {
        let column = keys.band(b);
        let key = |u: u32| column[reps[u as usize] as usize];
        let starts = order::partition(
            &units,
            &mut buffer,
            gbits,
            |u| (key(*u) >> low) as usize,
            |u| Keyed {
                key: key(*u),
                unit: *u,
                pad: 0,
            },
        );
        let found: Vec<(Vec<u32>, Vec<u32>)> = order::regions(&mut buffer, &starts)
            .into_par_iter()
            .map_init(order::Scratch::default, |s, (_, r)| {
                order::sort_region(
                    r,
                    s,
                    low,
                    |k| k.key & lowmask,
                    |t| t.sort_unstable_by_key(|k| (k.key, k.unit)),
                );
                let (mut lens, mut members) = (Vec::new(), Vec::new());
                for run in r.chunk_by(|x, y| x.key == y.key).filter(|r| r.len() > 1) {
                    lens.push(run.len() as u32);
                    let at = members.len();
                    members.extend(run.iter().map(|k| k.unit));
                    members[at..].sort_unstable();
                }
                (lens, members)
            })
            .collect();
        drop(column);
        keys.done(b);
        for (lens, members) in found {
            for l in lens {
                let last = *out.run_starts.last().expect("a start");
                out.run_starts.push(last + u64::from(l));
            }
            out.units.extend(members);
        }
    }
    out
}
