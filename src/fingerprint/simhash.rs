//! Charikar's SimHash over 128-bit feature hashes, 64 and 128 bits at once.
//!
//! Bit j of the fingerprint is set when more than half of the (weighted) features have bit j
//! set, i.e. when the sum of +w / -w is positive; a tie gives 0 (as the python `simhash`
//! package). The hot loop counts bits in 128 byte-wide counters, flushed to 64-bit totals
//! every 255 features. On x86-64 with SSSE3 (every build from this repository targets
//! x86-64-v2) a feature is 8 x (shuffle, and, compare, subtract) on 16-byte registers, each
//! register counting 16 bits; elsewhere each feature byte indexes a table of 64-bit words
//! holding eight byte counters (16 table loads and adds). Both are compiled on x86-64 and
//! tested against each other and against the per-bit reference. A whole document's features
//! ([`Accumulator::add_features`]) are counted with AVX-512BW where the CPU has it, chosen at
//! run time: two masked byte adds a feature on counters held in registers, tested equal; with
//! AVX-512DQ too, the features' hashes are made eight n-grams at a time (64-bit multiplies on
//! eight lanes), the same hashes as [`features::ngram_hash`] makes one at a time.

use crate::text::features;

/// Spreads the 8 bits of a byte into the low bit of 8 bytes.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "ssse3"),
    allow(dead_code)
)]
const fn spread_table() -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut v = 0u64;
        let mut i = 0;
        while i < 8 {
            if b & (1 << i) != 0 {
                v |= 1 << (8 * i);
            }
            i += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
}

#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "ssse3"),
    allow(dead_code)
)]
static SPREAD: [u64; 256] = spread_table();

/// 128 byte-wide bit counters, counted through the spread table (any target).
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "ssse3"),
    allow(dead_code)
)]
#[derive(Clone, Copy, Default)]
pub(crate) struct TableLanes([u64; 16]);

#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "ssse3"),
    allow(dead_code)
)]
impl TableLanes {
    /// Counts the bits of (lo, hi), bit j of the 128 into counter j.
    #[inline]
    pub fn add(&mut self, lo: u64, hi: u64) {
        for k in 0..8 {
            self.0[k] += SPREAD[((lo >> (8 * k)) & 0xff) as usize];
            self.0[8 + k] += SPREAD[((hi >> (8 * k)) & 0xff) as usize];
        }
    }

    /// Adds the counters to `counts` and clears them.
    pub fn drain(&mut self, counts: &mut [u64; 128]) {
        for (k, lane) in self.0.iter_mut().enumerate() {
            for i in 0..8 {
                counts[8 * k + i] += (*lane >> (8 * i)) & 0xff;
            }
            *lane = 0;
        }
    }
}

/// 128 byte-wide bit counters in eight SSE registers of 16 (counter j: register j / 16,
/// byte j % 16).
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
#[derive(Clone, Copy)]
pub(crate) struct SseLanes([std::arch::x86_64::__m128i; 8]);

#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
impl Default for SseLanes {
    fn default() -> Self {
        SseLanes(bytemuck::Zeroable::zeroed())
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
impl SseLanes {
    /// Counts the bits of (lo, hi), bit j of the 128 into counter j.
    #[inline]
    pub fn add(&mut self, lo: u64, hi: u64) {
        // SAFETY: this type exists only in builds that enable SSSE3 for the whole crate
        // (`cfg(target_feature = "ssse3")`), which run only on CPUs that have it.
        unsafe { sse_add(&mut self.0, lo, hi) }
    }

    /// Adds the counters to `counts` and clears them.
    pub fn drain(&mut self, counts: &mut [u64; 128]) {
        for (r, lane) in self.0.iter_mut().enumerate() {
            let bytes: [u8; 16] = bytemuck::cast(*lane);
            for (i, b) in bytes.iter().enumerate() {
                counts[16 * r + i] += u64::from(*b);
            }
            *lane = bytemuck::Zeroable::zeroed();
        }
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
#[target_feature(enable = "ssse3")]
#[inline]
fn sse_add(lanes: &mut [std::arch::x86_64::__m128i; 8], lo: u64, hi: u64) {
    use std::arch::x86_64::*;
    const ONES: i64 = 0x0101_0101_0101_0101;
    let h = _mm_set_epi64x(hi as i64, lo as i64);
    // Byte i of each register tests bit i % 8.
    let bits = _mm_set1_epi64x(0x8040_2010_0804_0201_u64 as i64);
    for (r, lane) in lanes.iter_mut().enumerate() {
        // Register r counts bits 16r..16r+16: bytes 2r and 2r + 1 of h, each 8 times.
        let pick = _mm_set_epi64x((2 * r as i64 + 1) * ONES, 2 * r as i64 * ONES);
        let b = _mm_shuffle_epi8(h, pick);
        let set = _mm_cmpeq_epi8(_mm_and_si128(b, bits), bits);
        // `set` is -1 where the bit is set: subtracting it adds one.
        *lane = _mm_sub_epi8(*lane, set);
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
type Lanes = SseLanes;
#[cfg(not(all(target_arch = "x86_64", target_feature = "ssse3")))]
type Lanes = TableLanes;

/// Accumulates features into bit counts.
#[derive(Clone)]
pub struct Accumulator {
    lanes: Lanes,
    pending: u32,
    counts: [u64; 128],
    total: u64,
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            lanes: Lanes::default(),
            pending: 0,
            counts: [0; 128],
            total: 0,
        }
    }
}

impl Accumulator {
    /// Starts a new document.
    pub fn reset(&mut self) {
        *self = Accumulator::default();
    }

    /// Adds one feature with weight 1.
    #[inline]
    pub fn add(&mut self, h: u128) {
        // Two u64 halves: shifting a u128 costs more than two u64 shifts.
        self.lanes.add(h as u64, (h >> 64) as u64);
        self.pending += 1;
        self.total += 1;
        if self.pending == 255 {
            self.flush();
        }
    }

    /// Adds every feature of a term sequence, as [`features::for_each_feature`] makes them.
    /// With AVX-512BW (chosen at run time) a feature is two masked byte adds on counters held
    /// in two registers for the whole document; elsewhere [`Accumulator::add`] each. Both give
    /// the same counts.
    pub fn add_features(&mut self, terms: &[u64], ngrams: &[usize], seed: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let simd = crate::base::simd::avx512();
            if simd.quads {
                // SAFETY: the CPU has AVX-512F, AVX-512BW and AVX-512DQ (checked just above).
                unsafe { self.add_features_avx512dq(terms, ngrams, seed) };
                return;
            }
            if simd.bytes {
                // SAFETY: the CPU has AVX-512F and AVX-512BW (checked just above).
                unsafe { self.add_features_avx512(terms, ngrams, seed) };
                return;
            }
        }
        features::for_each_feature(terms, ngrams, seed, |h| self.add(h));
    }

    /// [`Accumulator::add_features`] on 128 byte counters in two AVX-512 registers
    /// ([`WideCounts`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn add_features_avx512(&mut self, terms: &[u64], ngrams: &[usize], seed: u64) {
        let mut wide = WideCounts::new();
        features::for_each_feature(terms, ngrams, seed, |h| {
            wide.add(h as u64, (h >> 64) as u64, &mut self.counts)
        });
        wide.finish(self);
    }

    /// [`Accumulator::add_features_avx512`] with the features' hashes made eight n-grams at a
    /// time: [`features::ngram_hash`]'s two multiply-xorshift lanes and finalisers on eight
    /// 64-bit lanes each (AVX-512DQ's multiplies), over eight windows that start one term
    /// apart; the windows left over (fewer than eight of an n), and a text shorter than every
    /// n, are hashed one at a time. The same features, so the same counts.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512dq")]
    fn add_features_avx512dq(&mut self, terms: &[u64], ngrams: &[usize], seed: u64) {
        use std::arch::x86_64::*;
        #[inline]
        #[target_feature(enable = "avx512f,avx512dq")]
        fn fmix(k: __m512i) -> __m512i {
            let [m1, m2] = features::FMIX_MUL.map(|m| _mm512_set1_epi64(m as i64));
            let k = _mm512_xor_si512(k, _mm512_srli_epi64::<33>(k));
            let k = _mm512_mullo_epi64(k, m1);
            let k = _mm512_xor_si512(k, _mm512_srli_epi64::<33>(k));
            let k = _mm512_mullo_epi64(k, m2);
            _mm512_xor_si512(k, _mm512_srli_epi64::<33>(k))
        }
        let mut wide = WideCounts::new();
        let counts = &mut self.counts;
        features::for_each_ngram_size(terms, ngrams, |terms, n| {
            let windows = terms.len() - n + 1;
            let (a0, b0) = features::ngram_start(n, seed);
            let (a0, b0) = (_mm512_set1_epi64(a0 as i64), _mm512_set1_epi64(b0 as i64));
            let mut start = 0;
            while start + 8 <= windows {
                let (mut a, mut b) = (a0, b0);
                for i in 0..n {
                    // SAFETY: terms start + i .. start + i + 8 lie inside `terms`, as
                    // start + 7 + (n - 1) < windows + n - 1 = terms.len().
                    let t = unsafe { _mm512_loadu_si512(terms.as_ptr().add(start + i).cast()) };
                    a = _mm512_mullo_epi64(
                        _mm512_xor_si512(a, t),
                        _mm512_set1_epi64(features::MUL_LO[i] as i64),
                    );
                    a = _mm512_xor_si512(a, _mm512_srli_epi64::<32>(a));
                    b = _mm512_mullo_epi64(
                        _mm512_xor_si512(b, _mm512_rol_epi64::<23>(t)),
                        _mm512_set1_epi64(features::MUL_HI[i] as i64),
                    );
                    b = _mm512_xor_si512(b, _mm512_srli_epi64::<29>(b));
                }
                let (mut lo, mut hi) = ([0u64; 8], [0u64; 8]);
                // SAFETY: `lo` and `hi` are 64 writable bytes each; unaligned stores.
                unsafe {
                    _mm512_storeu_si512(lo.as_mut_ptr().cast(), fmix(a));
                    _mm512_storeu_si512(hi.as_mut_ptr().cast(), fmix(b));
                }
                for (&l, &h) in lo.iter().zip(&hi) {
                    wide.add(l, h, counts);
                }
                start += 8;
            }
            for w in terms[start..].windows(n) {
                let h = features::ngram_hash(w, seed);
                wide.add(h as u64, (h >> 64) as u64, counts);
            }
        });
        wide.finish(self);
    }

    /// Adds one feature with weight `w`.
    pub fn add_weighted(&mut self, h: u128, w: u64) {
        for (j, c) in self.counts.iter_mut().enumerate() {
            *c += w * ((h >> j) & 1) as u64;
        }
        self.total += w;
    }

    fn flush(&mut self) {
        self.lanes.drain(&mut self.counts);
        self.pending = 0;
    }

    /// Number of features (summed weights) added.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The 128-bit fingerprint; its low 64 bits are the 64-bit fingerprint.
    pub fn finish(&mut self) -> u128 {
        self.flush();
        let mut v = 0u128;
        for (j, c) in self.counts.iter().enumerate() {
            if 2 * c > self.total {
                v |= 1 << j;
            }
        }
        v
    }
}

/// 128 byte counters in two AVX-512 registers for a whole document: byte j of the pair counts
/// bit j, a feature's 64-bit halves are the masks of its two adds, and the bytes are drained
/// to the accumulator's counts every 255 features.
#[cfg(target_arch = "x86_64")]
struct WideCounts {
    lanes: [std::arch::x86_64::__m512i; 2],
    pending: u32,
    total: u64,
}

#[cfg(target_arch = "x86_64")]
impl WideCounts {
    #[target_feature(enable = "avx512f")]
    fn new() -> WideCounts {
        WideCounts {
            lanes: [std::arch::x86_64::_mm512_setzero_si512(); 2],
            pending: 0,
            total: 0,
        }
    }

    /// Counts one feature, its halves `lo` and `hi`; drains into `counts` every 255.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn add(&mut self, lo: u64, hi: u64, counts: &mut [u64; 128]) {
        use std::arch::x86_64::*;
        let one = _mm512_set1_epi8(1);
        self.lanes[0] = _mm512_mask_add_epi8(self.lanes[0], lo, self.lanes[0], one);
        self.lanes[1] = _mm512_mask_add_epi8(self.lanes[1], hi, self.lanes[1], one);
        self.pending += 1;
        self.total += 1;
        if self.pending == 255 {
            self.drain(counts);
        }
    }

    /// Adds the byte counters to `counts` and empties them.
    #[target_feature(enable = "avx512f")]
    fn drain(&mut self, counts: &mut [u64; 128]) {
        use std::arch::x86_64::*;
        let mut bytes = [0u8; 128];
        // SAFETY: `bytes` is 128 writable bytes, two unaligned 64-byte stores.
        unsafe {
            _mm512_storeu_si512(bytes.as_mut_ptr().cast(), self.lanes[0]);
            _mm512_storeu_si512(bytes.as_mut_ptr().add(64).cast(), self.lanes[1]);
        }
        for (c, b) in counts.iter_mut().zip(bytes) {
            *c += u64::from(b);
        }
        self.lanes = [_mm512_setzero_si512(); 2];
        self.pending = 0;
    }

    /// The document's counts and features added to `acc`.
    #[target_feature(enable = "avx512f")]
    fn finish(mut self, acc: &mut Accumulator) {
        self.drain(&mut acc.counts);
        acc.total += self.total;
    }
}

/// A plain per-bit reference: sum +1/-1 per feature, set the bit where the sum is positive.
pub fn reference(features: &[u128]) -> u128 {
    let mut v = 0u128;
    for j in 0..128 {
        let sum: i64 = features
            .iter()
            .map(|h| if (h >> j) & 1 == 1 { 1 } else { -1 })
            .sum();
        if sum > 0 {
            v |= 1 << j;
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;

    /// A document's features counted by [`Accumulator::add_features`] (AVX-512 where the CPU
    /// has it) and one feature at a time: the same fingerprint and total, on term sequences
    /// long enough to drain the byte counters several times.
    #[test]
    fn features_added_at_once_equal_one_at_a_time() {
        let mut s = SplitMix64(12);
        let lens: &[usize] = if cfg!(miri) {
            &[0, 3, 40]
        } else {
            &[0, 1, 3, 5, 7, 8, 12, 13, 254, 300, 2000]
        };
        for &n in lens {
            let terms: Vec<u64> = (0..n).map(|_| s.next_u64() % 50).collect();
            for ngrams in [&[3usize, 5][..], &[1], &[8], &[2, 4, 6, 7]] {
                let mut wide = Accumulator::default();
                wide.add_features(&terms, ngrams, 9);
                let mut one = Accumulator::default();
                features::for_each_feature(&terms, ngrams, 9, |h| one.add(h));
                assert_eq!(wide.total(), one.total(), "{n} {ngrams:?}");
                let want = one.finish();
                assert_eq!(wide.finish(), want, "{n} {ngrams:?}");
                // Where the CPU has the hashes eight at a time, the byte counters alone too.
                #[cfg(target_arch = "x86_64")]
                if crate::base::simd::avx512().bytes {
                    let mut bytes = Accumulator::default();
                    // SAFETY: the CPU has AVX-512F and AVX-512BW (checked just above).
                    unsafe { bytes.add_features_avx512(&terms, ngrams, 9) };
                    assert_eq!(bytes.finish(), want, "{n} {ngrams:?}, byte counters");
                }
            }
        }
    }

    #[test]
    fn fast_path_matches_reference() {
        let mut s = SplitMix64(7);
        let sizes: &[usize] = if cfg!(miri) {
            &[0, 1, 2, 3, 254, 255, 256, 300]
        } else {
            &[0, 1, 2, 3, 254, 255, 256, 1000, 5000]
        };
        for &n in sizes {
            let feats: Vec<u128> = (0..n)
                .map(|_| (s.next_u64() as u128) << 64 | s.next_u64() as u128)
                .collect();
            let mut acc = Accumulator::default();
            feats.iter().for_each(|f| acc.add(*f));
            assert_eq!(acc.finish(), reference(&feats), "n = {n}");
        }
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    #[test]
    fn sse_lanes_count_like_the_table_lanes() {
        let mut s = SplitMix64(11);
        let (mut sse, mut table) = (SseLanes::default(), TableLanes::default());
        let (mut a, mut b) = ([0u64; 128], [0u64; 128]);
        // Single bits, all ones, and random values, up to a full 255 before each drain.
        let mut feats = vec![(0, 0), (u64::MAX, u64::MAX), (1, 0), (0, 1 << 63)];
        let n = if cfg!(miri) { 300 } else { 1000 };
        feats.extend((0..n).map(|_| (s.next_u64(), s.next_u64())));
        for chunk in feats.chunks(255) {
            for &(lo, hi) in chunk {
                sse.add(lo, hi);
                table.add(lo, hi);
            }
            sse.drain(&mut a);
            table.drain(&mut b);
            assert_eq!(a, b);
        }
        let want: Vec<u64> = (0..128)
            .map(|j| {
                feats
                    .iter()
                    .filter(|(lo, hi)| (u128::from(*hi) << 64 | u128::from(*lo)) >> j & 1 == 1)
                    .count() as u64
            })
            .collect();
        assert_eq!(a.to_vec(), want);
    }

    #[test]
    fn weights_equal_repetition() {
        let mut a = Accumulator::default();
        let mut b = Accumulator::default();
        for (h, w) in [(0xF0u128, 3u64), (0x0F, 2), (0xFF00, 1)] {
            a.add_weighted(h, w);
            for _ in 0..w {
                b.add(h);
            }
        }
        assert_eq!(a.finish(), b.finish());
    }

    #[test]
    fn identical_features_give_the_feature() {
        let mut a = Accumulator::default();
        for _ in 0..1000 {
            a.add(0xDEAD_BEEF_u128 << 64 | 0x1234);
        }
        assert_eq!(a.finish(), 0xDEAD_BEEF_u128 << 64 | 0x1234);
    }
}
