//! The seeded random numbers of the crate: random plans, synthetic data and tests draw from
//! here, so the same seed gives the same tables and the same bytes on every machine and in
//! every version.

/// SplitMix64's finaliser: 64 bits mixed so that every input bit moves every output bit (the
/// crate's hash of a value that is already a hash, or of a counter).
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64: tiny, fast, and fixed forever (unlike `rand`'s `StdRng`).
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }
    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
    /// Shuffles `items` (Fisher-Yates, from the last place down: the order every shuffle of
    /// the crate has drawn in, so the data made from a seed stays the same).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i as u64 + 1) as usize);
        }
    }
    /// Puts a uniform sample of `n` of `items` (all where `n` is larger) in its first places,
    /// in random order (a partial Fisher-Yates shuffle from the first place up).
    pub fn sample_front<T>(&mut self, items: &mut [T], n: usize) {
        let len = items.len();
        for i in 0..n.min(len) {
            let j = i + self.below((len - i) as u64) as usize;
            items.swap(i, j);
        }
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
