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
    runs_in(docs, keys, fp64, fp128, KeyRange::ALL).runs
}

/// A share of every band's key space: the keys whose top 16 bits `t` have
/// `t * parts / 2^16 == part`, so the parts are contiguous key ranges in key order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRange {
    part: u32,
    parts: u32,
}

impl KeyRange {
    /// Every key.
    pub const ALL: KeyRange = KeyRange { part: 0, parts: 1 };

    /// Part `part` of `parts` (1 to 65 536 parts), or None.
    pub fn new(part: u32, parts: u32) -> Option<KeyRange> {
        ((1..=1 << 16).contains(&parts) && part < parts).then_some(KeyRange { part, parts })
    }

    /// The part of `parts` that holds `key` (`parts` from 1 to 65 536).
    #[inline]
    pub fn part_of(key: u64, parts: u32) -> u32 {
        (((key >> 48) * u64::from(parts)) >> 16) as u32
    }

    /// Whether `key` is in this part.
    #[inline]
    pub fn contains(&self, key: u64) -> bool {
        KeyRange::part_of(key, self.parts) == self.part
    }
}

/// The runs of one [`KeyRange`], with how many runs each band gave, so that the parts can be
/// put back together band by band ([`merge_parts`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartRuns {
    /// The runs whose key is in the range (units as [`runs`] numbers them: every part has
    /// the same units).
    pub runs: Runs,
    /// Runs of each band, in band order.
    pub per_band: Vec<u64>,
}

/// The parts' runs in one: band by band, each band's runs part after part. For the parts
/// `0..n` of `n` in order, this is [`runs`] of the whole key space, run for run: a band's runs
/// come out in ascending key order, and the parts are ascending key ranges.
pub fn merge_parts(parts: Vec<PartRuns>) -> Runs {
    let mut out = Runs {
        run_starts: vec![0],
        ..Runs::default()
    };
    let Some(first) = parts.first() else {
        return out;
    };
    out.members = first.runs.members.clone();
    out.starts = first.runs.starts.clone();
    let bands = first.per_band.len();
    let mut at = vec![0usize; parts.len()];
    for b in 0..bands {
        for (p, part) in parts.iter().enumerate() {
            let n = part.per_band.get(b).copied().unwrap_or(0) as usize;
            for r in at[p]..at[p] + n {
                let run = part.runs.run(r);
                out.units.extend_from_slice(run);
                out.run_starts.push(out.units.len() as u64);
            }
            at[p] += n;
        }
    }
    out
}

/// [`runs`] of the keys in `range` only: what one task of a run split by key range finds.
pub fn runs_in(
    docs: &[u32],
    keys: &impl BandKeys,
    fp64: &[u64],
    fp128: &[[u64; 2]],
    range: KeyRange,
) -> PartRuns {
    let c = collapse(fp64, fp128, docs.to_vec(), &mut Vec::new());
    let reps: Vec<u32> = c.starts[..c.starts.len() - 1]
        .iter()
        .map(|s| c.members[*s as usize])
        .collect();
    let mut units: Vec<u32> = (0..reps.len() as u32).collect();
    units.par_sort_unstable_by_key(|u| reps[*u as usize]);
    let mut buffer: Vec<Keyed> = Vec::new();
    let mut out = Runs {
        members: c.members,
        starts: c.starts,
        run_starts: vec![0],
        units: Vec::new(),
    };
    let mut per_band = Vec::with_capacity(keys.bands());
    let mut mine: Vec<u32> = Vec::new();
    for b in 0..keys.bands() {
        let column = keys.band(b);
        let key = |u: u32| column[reps[u as usize] as usize];
        let units: &[u32] = if range == KeyRange::ALL {
            &units
        } else {
            mine.clear();
            mine.par_extend(
                units
                    .par_iter()
                    .copied()
                    .filter(|u| range.contains(key(*u))),
            );
            &mine
        };
        let gbits = order::group_bits(units.len(), 64);
        let low = 64 - gbits;
        let lowmask = (1u64 << low) - 1;
        buffer.resize(units.len(), Keyed::default());
        let before = out.len();
        let starts = order::partition(
            units,
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
        per_band.push((out.len() - before) as u64);
    }
    PartRuns {
        runs: out,
        per_band,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;

    /// A corpus of `n` documents with `bands` keys each, drawn from few enough values that
    /// runs of every length form all over the key space, and some documents with the same
    /// fingerprints (units of several members).
    fn corpus(n: usize, bands: usize, seed: u64) -> (Vec<u64>, Vec<u64>, Vec<[u64; 2]>) {
        let mut rng = SplitMix64(seed);
        let values: Vec<u64> = (0..n / 3).map(|_| rng.next_u64()).collect();
        let keys = (0..n * bands)
            .map(|_| values[rng.below(values.len() as u64) as usize])
            .collect();
        let fp64: Vec<u64> = (0..n).map(|_| rng.below(n as u64 / 2)).collect();
        let fp128 = fp64.iter().map(|f| [*f, f ^ 1]).collect();
        (keys, fp64, fp128)
    }

    /// Runs found part by part over key ranges, put back together band by band, are the
    /// runs of the whole key space, run for run; each part holds only keys of its range.
    #[test]
    fn runs_split_by_key_range_merge_to_the_whole() {
        for (n, bands, seed) in [(3000, 4, 1), (40_000, 3, 2), (7, 2, 3)] {
            let (keys, fp64, fp128) = corpus(n, bands, seed);
            let keys = DocMajor { keys: &keys, bands };
            // Every other document takes part, as excluded documents leave gaps.
            let docs: Vec<u32> = (0..n as u32).filter(|d| d % 5 != 3).collect();
            let whole = runs(&docs, &keys, &fp64, &fp128);
            assert!(whole.len() > 1 || n < 100, "{n}: {} runs", whole.len());
            for parts in [1, 2, 3, 7, 64] {
                let split: Vec<PartRuns> = (0..parts)
                    .map(|p| {
                        let range = KeyRange::new(p, parts).unwrap();
                        let part = runs_in(&docs, &keys, &fp64, &fp128, range);
                        // Each run's units share a key of the range in the run's band.
                        let mut r = 0;
                        for (b, n_runs) in part.per_band.iter().enumerate() {
                            let column = keys.band(b);
                            for _ in 0..*n_runs {
                                let run = part.runs.run(r);
                                let first = |u: u32| {
                                    part.runs.members[part.runs.starts[u as usize] as usize]
                                };
                                let k = column[first(run[0]) as usize];
                                assert!(range.contains(k));
                                assert!(run.iter().all(|u| column[first(*u) as usize] == k));
                                r += 1;
                            }
                        }
                        assert_eq!(r, part.runs.len());
                        part
                    })
                    .collect();
                assert_eq!(merge_parts(split), whole, "{n} documents, {parts} parts");
            }
        }
    }

    /// The parts cover the key space once, in key order.
    #[test]
    fn key_ranges_are_contiguous_and_cover_every_key() {
        assert_eq!(KeyRange::new(0, 0), None);
        assert_eq!(KeyRange::new(3, 3), None);
        assert_eq!(KeyRange::new(0, (1 << 16) + 1), None);
        let mut rng = SplitMix64(9);
        for parts in [1u32, 2, 5, 1000, 1 << 16] {
            let part_of = |k: u64| {
                let owners: Vec<u32> = (0..parts)
                    .filter(|p| KeyRange::new(*p, parts).unwrap().contains(k))
                    .collect();
                assert_eq!(owners.len(), 1, "key {k:#x}, {parts} parts");
                owners[0]
            };
            let mut ks: Vec<u64> = (0..200).map(|_| rng.next_u64()).collect();
            ks.extend([0, u64::MAX, 1 << 63, (1 << 48) - 1]);
            ks.sort_unstable();
            let owners: Vec<u32> = ks.iter().map(|k| part_of(*k)).collect();
            assert!(owners.windows(2).all(|w| w[0] <= w[1]));
            assert_eq!((owners[0], owners[owners.len() - 1]), (0, parts - 1));
        }
    }
}
