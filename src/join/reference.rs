//! The brute-force join: every pair of documents compared one by one. Slow and obviously
//! right; every fast path (the CPU scan, the GPU driver, the collapse and the graph) is tested
//! against it.

use super::types::Pair;
use crate::base::hamming::{dist128, dist64};

/// Every pair of `docs` within `tau` (and `tau128`, when given), sorted by (a, b), a < b.
pub fn brute_force(
    fp64: &[u64],
    fp128: &[[u64; 2]],
    docs: &[u32],
    tau: u32,
    tau128: Option<u32>,
) -> Vec<Pair> {
    let mut out = Vec::new();
    for (i, &a) in docs.iter().enumerate() {
        for &b in &docs[i + 1..] {
            let (a, b) = (a as usize, b as usize);
            let d = dist64(fp64[a], fp64[b]);
            let d128 = dist128(fp128[a], fp128[b]);
            if d <= tau && tau128.is_none_or(|t| d128 <= t) {
                out.push(Pair::new(a as u32, b as u32, d as u8, d128 as u8));
            }
        }
    }
    out.sort_unstable();
    out
}
