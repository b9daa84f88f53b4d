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

use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::base::rng::mix64 as mix;

/// Most bins for which fast densification's outcome is read from a [`FirstThrows`] table
/// (4 bytes a bin squared: 1 MiB at 512 bins); more bins are densified by throwing.
const MAX_TABLE_BINS: usize = 512;

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

/// Per-worker signature state.
#[derive(Clone, Debug)]
pub struct Minhasher {
    p: MinhashParams,
    bins: Vec<u64>,
    /// The bins the shingles filled, in the order they were first filled (the first `count`
    /// entries; room for every bin and one more, so that one is recorded without a branch).
    touched: Vec<u32>,
    /// The bins before densification (empty but for the filled ones), made only where they are
    /// read while empty bins are filled: the target lists' walk, the throws and the probes.
    filled: Vec<u64>,
    /// The values of the bins the shingles filled (fast densification's sources), and each
    /// one's stream of throws.
    sources: Vec<u64>,
    streams: Vec<u64>,
    /// Fast densification's throws, made once for the parameters (None past
    /// [`MAX_TABLE_BINS`] or for optimal densification).
    first: Option<Arc<FirstThrows>>,
    /// Each bin's earliest throw among the page's sources, as its rank in the bin's list of
    /// sources, while one is chosen ([`FirstThrows::stride`] long), and the source.
    best: Vec<u16>,
    chosen: Vec<u16>,
}

/// Fast densification's throws made once for a seed and a number of bins `n`: for source bin
/// `j` and target bin `t`, the first throw of `j`'s stream that lands on `t`, as
/// `round << 10 | j` (rounds below 16 n, bins below 1 024; `u32::MAX` when none does). Throws within a round come
/// from sources in ascending order, so the smallest entry among a page's sources names the
/// throw that fills `t` when `t` is empty: the page's densification is a minimum over its
/// sources' rows, n operations a source that vectorise, instead of about n ln n throws one
/// after another. The same keys as [`Minhasher::throw`] (a test holds the two equal).
///
/// The same throws, by target: `order[t * n..(t + 1) * n]` lists the sources in the order
/// their first throws reach `t` ([`NO_SOURCE`] after the last that does), so an empty bin of
/// a page with many sources finds its source after about n / sources steps.
///
/// What is kept of the entries is their order: `ranks[j * stride + t]` is where source `j`
/// stands in `t`'s list ([`NO_RANK`] if no throw of `j` reaches `t`), 16 bits where the entry
/// takes 32, so that a page's minimum reads half the bytes, 32 bins an AVX-512 instruction;
/// the source with the smallest rank among a page's sources is the one with the smallest
/// entry. Each row is padded with [`NO_RANK`] to `stride`, a multiple of 32 bins, so the
/// minimum has no partial step.
#[derive(Debug)]
struct FirstThrows {
    n: usize,
    stride: usize,
    ranks: Vec<u16>,
    order: Vec<u16>,
}

/// A page walks its empty bins' lists ([`FirstThrows::walk`]) when `WALK x empty <
/// sources^2`, else takes its sources' earliest ranks ([`FirstThrows::fill`]): walking costs
/// about n / sources steps an empty bin, the ranks n / 32 vector steps a source. Measured
/// (`cargo bench --bench fingerprint -- band_keys`, 280 bins): the ranks are faster up to
/// about 250 shingles (1.7 against 3.4 us at 120), the walk from about 300 (2.4 against 3.0).
const WALK: usize = 250;

/// The end of a target's list in [`FirstThrows::order`].
const NO_SOURCE: u16 = u16::MAX;

/// No throw of the source reaches the target, in [`FirstThrows::ranks`].
const NO_RANK: u16 = u16::MAX;

/// Bins an AVX-512 register holds as 16-bit ranks: [`FirstThrows::stride`] is a multiple.
const RANK_LANES: usize = 32;

impl FirstThrows {
    /// The table of `n` bins under `seed`, made once a process and shared.
    fn shared(seed: u64, n: usize) -> Arc<FirstThrows> {
        type Cache = Mutex<Vec<(u64, usize, Arc<FirstThrows>)>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, _, t)) = c.iter().find(|(s, m, _)| *s == seed && *m == n) {
            return t.clone();
        }
        let t = Arc::new(FirstThrows::new(seed, n));
        c.push((seed, n, t.clone()));
        t
    }

    fn new(seed: u64, n: usize) -> FirstThrows {
        let mut rows = vec![u32::MAX; n * n];
        let seed = seed ^ THROW_SEED;
        for (j, row) in rows.chunks_mut(n).enumerate() {
            let mut state = stream_start(seed, j);
            let mut left = n;
            for round in 0..(16 * n) as u32 {
                state = next_throw(state);
                let t = bin_of(state, n);
                if row[t] == u32::MAX {
                    row[t] = round << SOURCE_BITS | j as u32;
                    left -= 1;
                    if left == 0 {
                        break;
                    }
                }
            }
        }
        let mut order = vec![NO_SOURCE; n * n];
        let stride = n.next_multiple_of(RANK_LANES);
        let mut ranks = vec![NO_RANK; n * stride];
        let mut column: Vec<u32> = Vec::with_capacity(n);
        for (t, out) in order.chunks_mut(n).enumerate() {
            column.clear();
            column.extend((0..n).map(|j| rows[j * n + t]).filter(|e| *e != u32::MAX));
            column.sort_unstable();
            for (rank, (o, e)) in out.iter_mut().zip(&column).enumerate() {
                let j = source_of(*e);
                *o = j as u16;
                ranks[j * stride + t] = rank as u16;
            }
        }
        FirstThrows {
            n,
            stride,
            ranks,
            order,
        }
    }

    /// Whether a page with `empty` of the n bins empty has its empty bins filled by walking
    /// their lists ([`Self::walk`]) rather than by its sources' ranks ([`Self::fill`]): see
    /// [`WALK`].
    fn walks(&self, empty: usize) -> bool {
        let sources = self.n - empty;
        WALK * empty < sources * sources
    }

    /// [`Minhasher::throw`]'s outcome for a page with few empty bins, whose bins before
    /// densification are `filled`, into `bins`: each empty bin takes the value of the first
    /// source in its list that the page filled; a bin no throw reaches is left empty for the
    /// probes, as there. Returns how many are left.
    fn walk(&self, bins: &mut [u64], filled: &[u64]) -> usize {
        let n = self.n;
        let mut left = 0;
        for (t, bin) in bins.iter_mut().enumerate() {
            if *bin == u64::MAX {
                for &j in &self.order[t * n..(t + 1) * n] {
                    if j == NO_SOURCE {
                        break;
                    }
                    let v = filled[usize::from(j)];
                    if v != u64::MAX {
                        *bin = v;
                        break;
                    }
                }
                left += usize::from(*bin == u64::MAX);
            }
        }
        left
    }

    /// [`Minhasher::throw`]'s outcome for a page with many empty bins (a short page), whose
    /// filled bins are `sources`, into `bins`: each empty bin takes the value of the source
    /// with the smallest rank in its list, found with the minimum over the sources' rows; a
    /// bin no throw reaches is left empty for the probes. A source's bin is never written, so
    /// its value is read from `bins` as it was filled. Returns how many bins are left empty.
    /// `best` and `chosen` are scratch.
    fn fill(
        &self,
        bins: &mut [u64],
        sources: &[u32],
        best: &mut Vec<u16>,
        chosen: &mut Vec<u16>,
    ) -> usize {
        let stride = self.stride;
        best.clear();
        best.resize(stride, NO_RANK);
        chosen.clear();
        chosen.resize(stride, 0);
        earliest(&self.ranks, stride, sources, best, chosen);
        take_chosen(bins, best, chosen)
    }
}

/// Bits of a [`FirstThrows`] entry that name its source bin (below them, the round).
const SOURCE_BITS: u32 = 10;
const _: () = assert!(MAX_TABLE_BINS <= 1 << SOURCE_BITS);

/// The source bin a [`FirstThrows`] entry names.
fn source_of(entry: u32) -> usize {
    (entry & ((1 << SOURCE_BITS) - 1)) as usize
}

/// For each bin t below `stride`, the smallest rank among the rows of `sources` in `ranks`
/// (`stride` ranks a source) into `best[t]`, and the source that has it into `chosen[t]`
/// (both as they were where no source's rank is smaller: [`NO_RANK`] and 0 from
/// [`FirstThrows::fill`]): with AVX-512BW 32 bins at a time, the sources' rows met with the
/// 32 bins' minimum and choice held in registers (chosen at run time), else one source's row
/// at a time as the compiler vectorises it. The same result: a bin's ranks differ from
/// source to source, so its smallest names one source.
fn earliest(ranks: &[u16], stride: usize, sources: &[u32], best: &mut [u16], chosen: &mut [u16]) {
    assert!(stride.is_multiple_of(RANK_LANES) && best.len() == stride && chosen.len() == stride);
    assert!(sources
        .iter()
        .all(|&j| (j as usize + 1) * stride <= ranks.len()));
    #[cfg(target_arch = "x86_64")]
    if crate::base::simd::avx512().bytes {
        // SAFETY: the CPU has AVX-512F and AVX-512BW (checked just above); the lengths the
        // function reads and writes within were asserted above.
        unsafe { earliest_avx512(ranks, stride, sources, best, chosen) };
        return;
    }
    earliest_portable(ranks, stride, sources, best, chosen);
}

/// [`earliest`] one source's row at a time, as the compiler vectorises it.
fn earliest_portable(
    ranks: &[u16],
    stride: usize,
    sources: &[u32],
    best: &mut [u16],
    chosen: &mut [u16],
) {
    for &j in sources {
        let row = &ranks[j as usize * stride..(j as usize + 1) * stride];
        for ((b, c), &r) in best.iter_mut().zip(chosen.iter_mut()).zip(row) {
            let earlier = r < *b;
            *b = if earlier { r } else { *b };
            *c = if earlier { j as u16 } else { *c };
        }
    }
}

/// [`earliest`] with AVX-512BW. Safety: the CPU has AVX-512F and AVX-512BW; `stride` is a
/// multiple of [`RANK_LANES`], `best` and `chosen` are `stride` long, and every source's row
/// `ranks[j * stride..(j + 1) * stride]` is within `ranks`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn earliest_avx512(
    ranks: &[u16],
    stride: usize,
    sources: &[u32],
    best: &mut [u16],
    chosen: &mut [u16],
) {
    use std::arch::x86_64::*;
    for t in (0..stride).step_by(RANK_LANES) {
        // SAFETY: t + 32 <= stride = both scratch lengths, and j * stride + t + 32 <=
        // (j + 1) * stride <= ranks.len() for every source (the caller's promise): 32
        // readable 16-bit values each load, 32 writable ones each store (unaligned).
        unsafe {
            let mut b = _mm512_loadu_si512(best.as_ptr().add(t).cast());
            let mut c = _mm512_loadu_si512(chosen.as_ptr().add(t).cast());
            for &j in sources {
                let r = _mm512_loadu_si512(ranks.as_ptr().add(j as usize * stride + t).cast());
                let earlier = _mm512_cmplt_epu16_mask(r, b);
                b = _mm512_min_epu16(r, b);
                c = _mm512_mask_mov_epi16(c, earlier, _mm512_set1_epi16(j as u16 as i16));
            }
            _mm512_storeu_si512(best.as_mut_ptr().add(t).cast(), b);
            _mm512_storeu_si512(chosen.as_mut_ptr().add(t).cast(), c);
        }
    }
}

/// Each empty bin of `bins` (`u64::MAX`) with a rank in `best` takes the value of the bin
/// `chosen` names (a filled one, never written here); returns how many empty bins have none
/// (left for the probes). `best` and `chosen` are at least as long as `bins`. With AVX-512F
/// eight bins at a time, the chosen values gathered under a mask of the empty bins that have
/// a rank (chosen at run time), else bin by bin. The same result.
fn take_chosen(bins: &mut [u64], best: &[u16], chosen: &[u16]) -> usize {
    assert!(best.len() >= bins.len() && chosen.len() >= bins.len());
    #[cfg(target_arch = "x86_64")]
    if crate::base::simd::avx512().dwords {
        // SAFETY: the CPU has AVX-512F (checked just above); the lengths were asserted above.
        return unsafe { take_chosen_avx512(bins, best, chosen) };
    }
    take_chosen_portable(bins, best, chosen, 0)
}

/// [`take_chosen`] bin by bin, from bin `from` on.
fn take_chosen_portable(bins: &mut [u64], best: &[u16], chosen: &[u16], from: usize) -> usize {
    let mut left = 0;
    for t in from..bins.len() {
        if bins[t] == u64::MAX {
            if best[t] != NO_RANK {
                bins[t] = bins[usize::from(chosen[t])];
            } else {
                left += 1;
            }
        }
    }
    left
}

/// [`take_chosen`] with AVX-512F. Safety: the CPU has AVX-512F; `best` and `chosen` are at
/// least as long as `bins` (a chosen index past the bins is held to the last bin: the
/// portable path's bounds check panics there instead).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn take_chosen_avx512(bins: &mut [u64], best: &[u16], chosen: &[u16]) -> usize {
    use std::arch::x86_64::*;
    let n = bins.len();
    let whole = n - n % 8;
    let last = _mm512_set1_epi64(n as i64 - 1);
    let mut left = 0;
    for t in (0..whole).step_by(8) {
        // SAFETY: t + 8 <= whole <= n <= the lengths of `best` and `chosen`: eight readable
        // and writable 64-bit bins, eight readable 16-bit ranks and choices from t; the
        // gather reads `bins` at the chosen indices, each held below n first.
        unsafe {
            let v = _mm512_loadu_si512(bins.as_ptr().add(t).cast());
            let empty = _mm512_cmpeq_epi64_mask(v, _mm512_set1_epi64(-1));
            if empty == 0 {
                continue;
            }
            let rank = _mm512_cvtepu16_epi64(_mm_loadu_si128(best.as_ptr().add(t).cast()));
            let has = _mm512_cmpneq_epi64_mask(rank, _mm512_set1_epi64(i64::from(NO_RANK)));
            let at = _mm512_min_epu64(
                _mm512_cvtepu16_epi64(_mm_loadu_si128(chosen.as_ptr().add(t).cast())),
                last,
            );
            let v = _mm512_mask_i64gather_epi64::<8>(v, empty & has, at, bins.as_ptr().cast());
            _mm512_storeu_si512(bins.as_mut_ptr().add(t).cast(), v);
            left += (empty & !has).count_ones() as usize;
        }
    }
    left + take_chosen_portable(bins, best, chosen, whole)
}

/// The bins as the shingles filled them (the bins `touched` names), empty elsewhere, into
/// `filled`: densification never writes a filled bin, so `bins` gives their values before,
/// during and after it.
fn keep_filled(filled: &mut Vec<u64>, bins: &[u64], touched: &[u32]) {
    filled.clear();
    filled.resize(bins.len(), u64::MAX);
    for &j in touched {
        filled[j as usize] = bins[j as usize];
    }
}

/// Mixed into the seed of fast densification's streams.
const THROW_SEED: u64 = 0x7468_726f_7773_0000;

/// The state source bin `j`'s stream of throws starts from.
fn stream_start(seed: u64, j: usize) -> u64 {
    mix(seed ^ ((j as u64) << 32))
}

/// The next state of a stream of throws (a 64-bit linear congruential generator).
fn next_throw(state: u64) -> u64 {
    state
        .wrapping_mul(0x5851_f42d_4c95_7f2d)
        .wrapping_add(0x1405_7b7e_f767_814f)
}

/// The bin of `n` a state's high bits pick.
fn bin_of(state: u64, n: usize) -> usize {
    ((u128::from(state) * n as u128) >> 64) as usize
}

impl Minhasher {
    /// A signer for `p` (at least one band of one row).
    pub fn new(p: MinhashParams) -> Minhasher {
        assert!(p.bands > 0 && p.rows > 0, "a signature has a band of a row");
        Minhasher {
            p,
            bins: vec![u64::MAX; (p.bands * p.rows) as usize],
            // One more than the bins: the slot a shingle is written to is the one past the last
            // filled bin, also once every bin is filled.
            touched: vec![0; (p.bands * p.rows) as usize + 1],
            filled: Vec::new(),
            sources: Vec::new(),
            streams: Vec::new(),
            first: (p.densification == Densification::Fast
                && (p.bands * p.rows) as usize <= MAX_TABLE_BINS)
                .then(|| FirstThrows::shared(p.seed, (p.bands * p.rows) as usize)),
            best: Vec::new(),
            chosen: Vec::new(),
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
        out.reserve(self.p.bands as usize);
        if shingles.is_empty() {
            out.resize(self.p.bands as usize, 0);
            return;
        }
        let n = self.bins.len();
        self.bins.fill(u64::MAX);
        // The bins filled, each recorded when first filled (without a branch: whether a
        // shingle lands on an empty bin is a coin the predictor cannot call).
        let mut count = 0;
        for s in shingles {
            let h = mix(s ^ self.p.seed);
            let bin = bin_of(h, n);
            let b = &mut self.bins[bin];
            self.touched[count] = bin as u32;
            count += usize::from(*b == u64::MAX);
            *b = (*b).min(h);
        }
        // Most long pages have no empty bin at all.
        let empty = n - count;
        if empty > 0 {
            let left = match (self.p.densification, &self.first) {
                (Densification::Fast, Some(first)) if first.walks(empty) => {
                    keep_filled(&mut self.filled, &self.bins, &self.touched[..count]);
                    first.walk(&mut self.bins, &self.filled)
                }
                (Densification::Fast, Some(first)) => first.fill(
                    &mut self.bins,
                    &self.touched[..count],
                    &mut self.best,
                    &mut self.chosen,
                ),
                (Densification::Fast, None) => {
                    keep_filled(&mut self.filled, &self.bins, &self.touched[..count]);
                    self.throw()
                }
                (Densification::Optimal, _) => empty,
            };
            if left > 0 {
                // The bins filled before densification (the probes borrow only from those),
                // recorded again where the walk or the throws did already: that is rare.
                keep_filled(&mut self.filled, &self.bins, &self.touched[..count]);
                self.probe();
            }
        }
        let rows = self.p.rows as usize;
        for (band, chunk) in self.bins.chunks(rows).enumerate() {
            out.push(xxh3_64_with_seed(bytemuck::cast_slice(chunk), band as u64));
        }
    }

    /// Optimal densification (and fast densification's last resort): an empty bin borrows
    /// from bins drawn by (bin, attempt).
    fn probe(&mut self) {
        let n = self.bins.len() as u64;
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
    }

    /// Fast densification's rounds: in round t, each bin j filled by the shingles (ascending)
    /// throws its value at the t-th bin of its stream, which keeps the first value thrown at it
    /// while empty.
    /// Which source fills a bin is thus the first in an order of sources fixed by the hash
    /// alone (by round, then by bin), as optimal densification's probe order is: two
    /// documents agree on an empty bin with the probability that bin's first source filled
    /// in either holds their shared minimum. Stops when no bin is empty, or after 16 x bins
    /// rounds (left to the probes). Returns how many bins are left empty.
    ///
    /// Each source's throws are a stream of its own: a 64-bit linear congruential generator
    /// started from a hash of (seed, bin), its high bits picking the target, so that a throw
    /// costs two multiplications rather than a hash.
    fn throw(&mut self) -> usize {
        let n = self.bins.len();
        self.sources.clear();
        self.streams.clear();
        let seed = self.p.seed ^ THROW_SEED;
        for j in 0..n {
            if self.filled[j] != u64::MAX {
                self.sources.push(self.filled[j]);
                self.streams.push(stream_start(seed, j));
            }
        }
        let mut empty = n - self.sources.len();
        for _ in 0..16 * n {
            for (&value, state) in self.sources.iter().zip(self.streams.iter_mut()) {
                *state = next_throw(*state);
                let t = bin_of(*state, n);
                // Without a branch: whether a throw lands on an empty bin is a coin the
                // predictor cannot call while the bins fill.
                let bin = &mut self.bins[t];
                let landed = *bin == u64::MAX;
                *bin = if landed { value } else { *bin };
                empty -= usize::from(landed);
            }
            if empty == 0 {
                return 0;
            }
        }
        empty
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
        // Every bin filled well before the last shingle.
        let long: Vec<u64> = (0..20_000).map(|i| i * 7919).collect();
        let mut back = long.clone();
        back.reverse();
        m.sign(&long, &mut a);
        m.sign(&back, &mut b);
        assert_eq!(a, b);
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

    /// The table of first throws gives the keys the throws give, on sets of every size from
    /// one shingle to more than the bins (both of its ways: few and many empty bins), and for
    /// bins past and within a round's reach (few bins: some are reached by no throw).
    #[test]
    fn first_throws_give_the_keys_of_the_throws() {
        let mut rng = SplitMix64(17);
        for (bands, rows) in [(40u32, 7u32), (3, 1), (16, 2), (64, 8)] {
            let p = MinhashParams {
                bands,
                rows,
                ..MinhashParams::default()
            };
            let mut table = Minhasher::new(p);
            let mut thrown = Minhasher::new(p);
            assert!(table.first.is_some());
            thrown.first = None;
            let n = (bands * rows) as usize;
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for len in (1..n + n / 2).step_by((n / 60).max(1)) {
                for _ in 0..3 {
                    let set: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
                    table.sign(&set, &mut a);
                    thrown.sign(&set, &mut b);
                    assert_eq!(a, b, "{bands} x {rows} bins, {len} shingles");
                }
            }
        }
    }

    /// The vector paths of a short page's densification give what the portable ones give:
    /// the earliest source of each bin over random rank rows (distinct ranks a bin, some
    /// bins reached by no source), then the empty bins' values taken from the chosen ones.
    #[test]
    fn vector_densification_equals_the_portable_one() {
        let mut rng = SplitMix64(23);
        for n in [280usize, 7, 33, 512] {
            let stride = n.next_multiple_of(RANK_LANES);
            // A random permutation of ranks a bin, then some taken away.
            let mut ranks = vec![NO_RANK; n * stride];
            for t in 0..n {
                let mut r: Vec<u16> = (0..n as u16).collect();
                rng.shuffle(&mut r);
                for j in 0..n {
                    if !rng.next_u64().is_multiple_of(8) {
                        ranks[j * stride + t] = r[j];
                    }
                }
            }
            for count in [1usize, 2, 5, 20, n / 2, n] {
                let mut sources: Vec<u32> = (0..n as u32).collect();
                rng.shuffle(&mut sources);
                sources.truncate(count.min(n));
                let fresh = || (vec![NO_RANK; stride], vec![0u16; stride]);
                let (mut b1, mut c1) = fresh();
                let (mut b2, mut c2) = fresh();
                earliest(&ranks, stride, &sources, &mut b1, &mut c1);
                earliest_portable(&ranks, stride, &sources, &mut b2, &mut c2);
                assert_eq!((&b1, &c1), (&b2, &c2), "{n} bins, {count} sources");
                let mut bins = vec![u64::MAX; n];
                for &j in &sources {
                    bins[j as usize] = rng.next_u64() >> 1;
                }
                let mut other = bins.clone();
                let left = take_chosen(&mut bins, &b1, &c1);
                assert_eq!(left, take_chosen_portable(&mut other, &b1, &c1, 0));
                assert_eq!(bins, other, "{n} bins, {count} sources");
                assert_eq!(left, bins.iter().filter(|b| **b == u64::MAX).count());
            }
        }
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
