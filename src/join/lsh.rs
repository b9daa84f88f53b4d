//! MinHash-LSH candidates: documents that share a band key in any band
//! ([`crate::fingerprint::minhash`]), as a [`PairGraph`] with both Hamming distances, so
//! verification, sweeps and clusters read them as they read a SimHash join.
//!
//! Units are documents with identical 64- and 128-bit fingerprints, as in a join. Each band's
//! keys are sorted with their documents; every two documents in a run of equal keys are a
//! candidate. Only one document per unit takes part (its members have the same text or the
//! same fingerprints), so a page repeated a thousand times is not a million candidates.

use rayon::prelude::*;

use super::graph::{Edge, PairGraph};
use crate::base::hamming::{dist128, dist64};

/// The candidates among `docs` (ascending document indices): `keys` holds `bands` band keys
/// per document of the corpus, `fp64` and `fp128` its fingerprints; `n` documents in all.
pub fn candidates(
    n: u32,
    docs: &[u32],
    keys: &[u64],
    bands: usize,
    fp64: &[u64],
    fp128: &[[u64; 2]],
) -> PairGraph {
    // Units: documents by (fp64, fp128), members ascending; units ordered by first member.
    let mut by_fp: Vec<u32> = docs.to_vec();
    by_fp.par_sort_unstable_by_key(|d| (fp64[*d as usize], fp128[*d as usize], *d));
    let mut groups: Vec<&[u32]> = by_fp
        .chunk_by(|a, b| {
            fp64[*a as usize] == fp64[*b as usize] && fp128[*a as usize] == fp128[*b as usize]
        })
        .collect();
    groups.sort_unstable_by_key(|g| g[0]);
    let (mut members, mut starts) = (Vec::with_capacity(docs.len()), vec![0u32]);
    for g in &groups {
        members.extend_from_slice(g);
        starts.push(members.len() as u32);
    }
    let reps: Vec<u32> = groups.iter().map(|g| g[0]).collect();
    // Per band: (key, unit) sorted; runs of equal keys give unit pairs.
    let mut links: Vec<(u32, u32)> = (0..bands)
        .into_par_iter()
        .flat_map_iter(|b| {
            let mut k: Vec<(u64, u32)> = reps
                .iter()
                .enumerate()
                .map(|(u, d)| (keys[*d as usize * bands + b], u as u32))
                .collect();
            k.sort_unstable();
            let mut out = Vec::new();
            for run in k.chunk_by(|x, y| x.0 == y.0).filter(|r| r.len() > 1) {
                for i in 0..run.len() {
                    for j in i + 1..run.len() {
                        out.push((run[i].1.min(run[j].1), run[i].1.max(run[j].1)));
                    }
                }
            }
            out.into_iter()
        })
        .collect();
    links.par_sort_unstable();
    links.dedup();
    let edges: Vec<Edge> = links
        .par_iter()
        .map(|&(u, v)| {
            let (a, b) = (reps[u as usize] as usize, reps[v as usize] as usize);
            let d128 = dist128(fp128[a], fp128[b]);
            Edge::new(u, v, dist64(fp64[a], fp64[b]) as u8, d128)
        })
        .collect();
    PairGraph {
        docs: n,
        members,
        starts,
        edges,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair of documents sharing a key in some band, and only those, is a candidate;
    /// documents with identical fingerprints form units.
    #[test]
    fn candidates_are_the_pairs_sharing_a_band_key() {
        let bands = 3;
        let keys: Vec<u64> = vec![
            1, 10, 100, // 0
            2, 10, 101, // 1: shares band 1 with 0
            3, 11, 102, // 2
            3, 12, 103, // 3: shares band 0 with 2
            4, 13, 104, // 4: alone
            5, 14, 105, // 5: same fingerprints as 4
        ];
        let fp64 = [0u64, 1, 3, 7, 15, 15];
        let fp128 = [[0u64, 0], [1, 0], [3, 0], [7, 0], [15, 1], [15, 1]];
        let docs: Vec<u32> = (0..6).collect();
        let g = candidates(6, &docs, &keys, bands, &fp64, &fp128);
        let mut pairs: Vec<(u32, u32)> = g.pairs().iter().map(|p| (p.a, p.b)).collect();
        pairs.sort_unstable();
        assert_eq!(pairs, vec![(0, 1), (2, 3), (4, 5)]);
        let p = g.pairs();
        assert_eq!((p[0].d64, p[1].d64, p[2].d64), (1, 1, 0));
    }
}
