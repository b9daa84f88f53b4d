//! MinHash signatures of a document's shingles, cut into LSH bands: the candidates of
//! `--candidates minhash`.
//!
//! One-permutation hashing (Li, Owen and Zhang 2012): each shingle (word k-grams of the store's
//! terms, the same shingles verification compares, [`crate::text::features::shingles`]) is
//! hashed once; the hash picks one of `bands x rows` bins and the bin keeps its smallest hash.
//! Empty bins are filled by fast densification (Mai, Rao, Kapilevich, Rossi, Abbasi-Yadkori and
//! Sinha 2020; [`Densification::Fast`]), in time that does not grow as bins^2 / shingles on a
//! short page, or, in stores made before it, by optimal densification (Shrivastava 2017): bin
//! i takes the value of the first non-empty bin in an order of bins drawn from a hash alone,
//! so two documents agree on a bin with probability their Jaccard similarity J, as with
//! independent permutations. A band is `rows` consecutive bins hashed to one 64-bit key; two documents are
//! candidates when they share a key in any band, with probability 1 - (1 - J^rows)^bands
//! ([`candidate_probability`]).

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// How empty bins are filled; recorded in the store's manifest (stores of different schemes
/// have different band keys, and are not joined together).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Densification {
    /// Shrivastava 2017: an empty bin probes bins drawn from (bin, attempt) until it meets a
    /// filled one: about bins / filled probes each, bins^2 / shingles for a short page. What
    /// stores written before the field have.
    #[default]
    Optimal,
    /// Mai et al. 2020's fast densification: in rounds, every filled bin throws its value at
    /// the next bin of a stream of its own, which takes it if still empty; about bins x ln(bins)
    /// throws whatever the page's length, then optimal densification's probes for a bin no
    /// throw reached in 16 x bins rounds.
    Fast,
}

/// How signatures are made; recorded in the store's manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MinhashParams {
    /// Terms per shingle.
    pub shingle: u32,
    /// Bands (keys per document).
    pub bands: u32,
    /// Bins per band.
    pub rows: u32,
    /// Seed of the shingle hash and of densification.
    pub seed: u64,
    /// How empty bins are filled (absent in stores written before `fast`: `optimal`).
    #[serde(default)]
    pub densification: Densification,
}

impl Default for MinhashParams {
    /// 8-term shingles (verification's), 40 bands of 7 rows: a pair at S3 0.82 (Jaccard 0.695)
    /// is a candidate with probability 0.96, one at Jaccard 0.8 with 0.9999, one at 0.5 with
    /// 0.27, one at 0.3 with 0.009. Chosen on two crawls (BENCHMARKS.md): against 20 bands of
    /// 5, recall 0.998 instead of 0.999 on OpenJDK and 1.0 instead of 0.992 on Boost, with 46 %
    /// fewer candidates to verify on OpenJDK.
    fn default() -> Self {
        MinhashParams {
            shingle: 8,
            bands: 40,
            rows: 7,
            seed: 0x6d69_6e68_6173_6800,
            densification: Densification::Fast,
        }
    }
}

/// The probability that two documents of Jaccard similarity `j` share a band key.
pub fn candidate_probability(j: f64, bands: u32, rows: u32) -> f64 {
    1.0 - (1.0 - j.powi(rows as i32)).powi(bands as i32)
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Per-worker signature state.
#[derive(Clone, Debug)]
pub struct Minhasher {
    p: MinhashParams,
    bins: Vec<u64>,
    /// The bins before densification, read while empty bins are filled.
    filled: Vec<u64>,
    /// The values of the bins the shingles filled (fast densification's sources), and each
    /// one's stream of throws.
    sources: Vec<u64>,
    streams: Vec<u64>,
}

impl Minhasher {
    /// A signer for `p` (at least one band of one row).
    pub fn new(p: MinhashParams) -> Minhasher {
        assert!(p.bands > 0 && p.rows > 0, "a signature has a band of a row");
        Minhasher {
            p,
            bins: vec![u64::MAX; (p.bands * p.rows) as usize],
            filled: Vec::new(),
            sources: Vec::new(),
            streams: Vec::new(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> MinhashParams {
        self.p
    }

    /// The band keys of a document whose shingles are `shingles` (repeats allowed), into
    /// `out` (cleared first, `bands` keys). A document without shingles gets all keys 0.
    pub fn sign(&mut self, shingles: &[u64], out: &mut Vec<u64>) {
        out.clear();
        if shingles.is_empty() {
            out.resize(self.p.bands as usize, 0);
            return;
        }
        let n = self.bins.len() as u64;
        self.bins.fill(u64::MAX);
        for s in shingles {
            let h = mix(s ^ self.p.seed);
            let bin = ((u128::from(h) * u128::from(n)) >> 64) as usize;
            self.bins[bin] = self.bins[bin].min(h);
        }
        // Sources are read as they were before any filling, from a buffer kept between
        // documents (no allocation per document); most long pages have no empty bin at all.
        if self.bins.contains(&u64::MAX) {
            self.filled.clear();
            self.filled.extend_from_slice(&self.bins);
            if self.p.densification == Densification::Fast {
                self.throw();
            }
        }
        // Optimal densification (and fast densification's last resort): an empty bin borrows
        // from bins drawn by (bin, attempt).
        let filled = &self.filled;
        for (i, b) in self.bins.iter_mut().enumerate() {
            let mut attempt = 1u64;
            while *b == u64::MAX {
                let r = mix(self.p.seed ^ ((i as u64) << 32) ^ attempt);
                let j = ((u128::from(r) * u128::from(n)) >> 64) as usize;
                *b = filled[j];
                attempt += 1;
            }
        }
        let rows = self.p.rows as usize;
        for (band, chunk) in self.bins.chunks(rows).enumerate() {
            out.push(xxh3_64_with_seed(bytemuck::cast_slice(chunk), band as u64));
        }
    }

    /// Fast densification's rounds: in round t, each bin j filled by the shingles (ascending)
    /// throws its value at the t-th bin of its stream, which keeps the first value thrown at it
    /// while empty.
    /// Which source fills a bin is thus the first in an order of sources fixed by the hash
    /// alone (by round, then by bin), as optimal densification's probe order is: two
    /// documents agree on an empty bin with the probability that bin's first source filled
    /// in either holds their shared minimum. Stops when no bin is empty, or after 16 x bins
    /// rounds (left to the probes).
    ///
    /// Each source's throws are a stream of its own: a 64-bit linear congruential generator
    /// started from a hash of (seed, bin), its high bits picking the target, so that a throw
    /// costs two multiplications rather than a hash.
    fn throw(&mut self) {
        let n = self.bins.len();
        self.sources.clear();
        self.streams.clear();
        let seed = self.p.seed ^ 0x7468_726f_7773_0000;
        for j in 0..n {
            if self.filled[j] != u64::MAX {
                self.sources.push(self.filled[j]);
                self.streams.push(mix(seed ^ ((j as u64) << 32)));
            }
        }
        let mut empty = n - self.sources.len();
        for _ in 0..16 * n {
            for (&value, state) in self.sources.iter().zip(self.streams.iter_mut()) {
                *state = state
                    .wrapping_mul(0x5851_f42d_4c95_7f2d)
                    .wrapping_add(0x1405_7b7e_f767_814f);
                let t = ((u128::from(*state) * n as u128) >> 64) as usize;
                // Without a branch: whether a throw lands on an empty bin is a coin the
                // predictor cannot call while the bins fill.
                let bin = &mut self.bins[t];
                let landed = *bin == u64::MAX;
                *bin = if landed { value } else { *bin };
                empty -= usize::from(landed);
            }
            if empty == 0 {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;

    #[test]
    fn equal_sets_share_every_band_and_order_does_not_matter() {
        let mut m = Minhasher::new(MinhashParams::default());
        let s: Vec<u64> = (0..300).map(|i| i * 7919).collect();
        let mut r = s.clone();
        r.reverse();
        r.extend_from_slice(&s[..50]);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        m.sign(&s, &mut a);
        m.sign(&r, &mut b);
        assert_eq!(a, b);
        assert_eq!(a.len(), 40);
        m.sign(&[], &mut a);
        assert_eq!(a, vec![0; 40]);
    }

    /// Over `trials` random pairs of sets sharing `shared` shingles, each with `own` of its
    /// own: how many band keys agree in all.
    fn agreeing(
        m: &mut Minhasher,
        rng: &mut SplitMix64,
        shared: u64,
        own: u64,
        trials: u64,
    ) -> u64 {
        let mut hits = 0u64;
        let (mut ka, mut kb) = (Vec::new(), Vec::new());
        for _ in 0..trials {
            let base: Vec<u64> = (0..shared).map(|_| rng.next_u64()).collect();
            let mut a = base.clone();
            let mut b = base;
            a.extend((0..own).map(|_| rng.next_u64()));
            b.extend((0..own).map(|_| rng.next_u64()));
            m.sign(&a, &mut ka);
            m.sign(&b, &mut kb);
            hits += ka.iter().zip(&kb).filter(|(x, y)| x == y).count() as u64;
        }
        hits
    }

    /// Bins agree at the rate of the Jaccard similarity, and band collisions at the rate the
    /// formula gives, over many random pairs (a short set forces densification).
    #[test]
    fn collisions_follow_jaccard() {
        let p = MinhashParams {
            bands: 64,
            rows: 2,
            ..MinhashParams::default()
        };
        let mut m = Minhasher::new(p);
        let mut rng = SplitMix64(5);
        for (shared, own) in [(60u64, 20u64), (30, 30), (10, 2)] {
            let j = shared as f64 / (shared + 2 * own) as f64;
            let trials = 400u64;
            let hits = agreeing(&mut m, &mut rng, shared, own, trials);
            let rate = hits as f64 / (trials * 64) as f64;
            let want = j * j;
            assert!(
                (rate - want).abs() < 0.03,
                "J {j}: band rate {rate}, J^2 {want}"
            );
        }
        assert!((candidate_probability(0.695, 20, 5) - 0.97).abs() < 0.01);
    }

    /// Short sets (1 to 50 shingles in 280 bins: nearly every bin densified) under both
    /// schemes: a bin agrees at the rate of the Jaccard similarity, equal sets give equal
    /// keys, and the two schemes give other keys (stores of both are never joined).
    #[test]
    fn short_sets_agree_at_the_jaccard_rate_under_both_schemes() {
        let mut rng = SplitMix64(11);
        for scheme in [Densification::Fast, Densification::Optimal] {
            let p = MinhashParams {
                bands: 280,
                rows: 1,
                densification: scheme,
                ..MinhashParams::default()
            };
            let mut m = Minhasher::new(p);
            for (shared, own) in [(1u64, 0u64), (1, 1), (3, 2), (10, 5), (20, 10), (40, 10)] {
                let j = shared as f64 / (shared + 2 * own) as f64;
                let trials = 300u64;
                let hits = agreeing(&mut m, &mut rng, shared, own, trials);
                if own == 0 {
                    assert_eq!(hits, trials * 280, "equal sets, equal keys");
                }
                let rate = hits as f64 / (trials * 280) as f64;
                assert!(
                    (rate - j).abs() < 0.03,
                    "{scheme:?}, {shared} shared, {own} own each: bin rate {rate}, J {j}"
                );
            }
        }
        let set: Vec<u64> = (0..5).map(|i| i * 7919).collect();
        let (mut fast, mut optimal) = (Vec::new(), Vec::new());
        Minhasher::new(MinhashParams::default()).sign(&set, &mut fast);
        Minhasher::new(MinhashParams {
            densification: Densification::Optimal,
            ..MinhashParams::default()
        })
        .sign(&set, &mut optimal);
        assert_ne!(fast, optimal);
    }
}
