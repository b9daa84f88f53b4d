//! Hamming distances of 64- and 128-bit fingerprints: one XOR and one popcount per word, what
//! the join, the graph and the kernels' references all compare with.

/// Hamming distance of two 64-bit fingerprints.
#[inline]
pub fn dist64(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

/// Hamming distance of 128-bit fingerprints stored as (low, high).
#[inline]
pub fn dist128(a: [u64; 2], b: [u64; 2]) -> u32 {
    (a[0] ^ b[0]).count_ones() + (a[1] ^ b[1]).count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_count_differing_bits() {
        assert_eq!(dist64(0, 0), 0);
        assert_eq!(dist64(0, u64::MAX), 64);
        assert_eq!(dist64(0b1011, 0b0110), 3);
        assert_eq!(dist128([0, 0], [u64::MAX, 1]), 65);
        assert_eq!(dist128([5, 9], [5, 9]), 0);
    }
}
