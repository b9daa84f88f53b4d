//! Charikar's SimHash over 128-bit feature hashes, 64 and 128 bits at once.
//!
//! Bit j of the fingerprint is set when more than half of the (weighted) features have bit j
//! set, i.e. when the sum of +w / -w is positive; a tie gives 0 (as the python `simhash`
//! package). The hot loop counts bits eight at a time: each feature byte indexes a table of
//! 64-bit words holding eight byte-wide 0/1 counters, so a feature costs 16 table loads and
//! adds; the byte counters are flushed to 32-bit totals every 255 features.

/// Spreads the 8 bits of a byte into the low bit of 8 bytes.
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

static SPREAD: [u64; 256] = spread_table();

/// Accumulates features into bit counts.
#[derive(Clone)]
pub struct Accumulator {
    lanes: [u64; 16],
    pending: u32,
    counts: [u64; 128],
    total: u64,
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            lanes: [0; 16],
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
        let (lo, hi) = (h as u64, (h >> 64) as u64);
        for k in 0..8 {
            self.lanes[k] += SPREAD[((lo >> (8 * k)) & 0xff) as usize];
            self.lanes[8 + k] += SPREAD[((hi >> (8 * k)) & 0xff) as usize];
        }
        self.pending += 1;
        self.total += 1;
        if self.pending == 255 {
            self.flush();
        }
    }

    /// Adds one feature with weight `w`.
    pub fn add_weighted(&mut self, h: u128, w: u64) {
        for (j, c) in self.counts.iter_mut().enumerate() {
            *c += w * ((h >> j) & 1) as u64;
        }
        self.total += w;
    }

    fn flush(&mut self) {
        for (k, lane) in self.lanes.iter_mut().enumerate() {
            for i in 0..8 {
                self.counts[8 * k + i] += (*lane >> (8 * i)) & 0xff;
            }
            *lane = 0;
        }
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
    use crate::synth::SplitMix64;

    #[test]
    fn fast_path_matches_reference() {
        let mut s = SplitMix64(7);
        for n in [0usize, 1, 2, 3, 254, 255, 256, 1000, 5000] {
            let feats: Vec<u128> = (0..n)
                .map(|_| (s.next_u64() as u128) << 64 | s.next_u64() as u128)
                .collect();
            let mut acc = Accumulator::default();
            feats.iter().for_each(|f| acc.add(*f));
            assert_eq!(acc.finish(), reference(&feats), "n = {n}");
        }
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
