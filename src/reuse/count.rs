//! Exact counts of every chunk hash in a corpus, in bounded memory.
//!
//! Discovery must see the whole corpus at once (a chunk seen 1 000 times in one crawl and 100
//! in another is seen 1 100 times), and a web-scale corpus holds more chunk hashes than memory.
//! So the hashes are counted in passes: pass `p` of `P` takes the hashes whose high 64 bits fall
//! in the `p`-th of `P` equal ranges, sorts them (in parallel) and counts the runs. Every hash
//! falls in exactly one pass, so each distinct hash is counted once, exactly, and a pass holds
//! about `n / P` hashes. `P` is the smallest that keeps a pass within the memory budget.
//! Sort-and-count, as the method's discovery does; the passes trade reads for memory (each
//! pass reads every hash, from memory-mapped stores or a generator).

use rayon::prelude::*;

/// Where hashes come from: numbered blocks, each readable any number of times, in parallel.
pub trait Blocks: Sync {
    /// Number of blocks.
    fn blocks(&self) -> usize;
    /// The hashes of block `b`, in `buf` when they must be made (a generator) or borrowed.
    fn block<'a>(&'a self, b: usize, buf: &'a mut Vec<u128>) -> &'a [u128];
    /// Total number of hashes.
    fn total(&self) -> u64;
}

/// Hashes held in slices (memory-mapped chunk columns), cut into blocks of at most `BLOCK`.
pub struct Slices<'a> {
    blocks: Vec<&'a [u128]>,
    total: u64,
}

/// Hashes per block of [`Slices`].
const BLOCK: usize = 1 << 20;

impl<'a> Slices<'a> {
    /// Blocks over `slices`, in order.
    pub fn new(slices: &[&'a [u128]]) -> Slices<'a> {
        let blocks: Vec<&[u128]> = slices.iter().flat_map(|s| s.chunks(BLOCK)).collect();
        let total = slices.iter().map(|s| s.len() as u64).sum();
        Slices { blocks, total }
    }
}

impl Blocks for Slices<'_> {
    fn blocks(&self) -> usize {
        self.blocks.len()
    }
    fn block<'b>(&'b self, b: usize, _: &'b mut Vec<u128>) -> &'b [u128] {
        self.blocks[b]
    }
    fn total(&self) -> u64 {
        self.total
    }
}

/// Synthetic chunk hashes, heavy-tailed like a web crawl's (the method's Figure 2): 40 % are
/// unique, the rest drawn from a hundred million distinct chunks with a probability falling as
/// one over their rank (log-uniform ranks, Zipf's law with exponent 1). Made again, the same,
/// on every read, so a billion hashes need no memory.
pub struct Synthetic {
    /// Hashes in all.
    pub n: u64,
    /// Seed.
    pub seed: u64,
}

/// Distinct repeated chunks of [`Synthetic`].
const SYNTHETIC_DISTINCT: f64 = 1e8;

impl Blocks for Synthetic {
    fn blocks(&self) -> usize {
        self.n.div_ceil(BLOCK as u64) as usize
    }
    fn block<'a>(&'a self, b: usize, buf: &'a mut Vec<u128>) -> &'a [u128] {
        let start = b as u64 * BLOCK as u64;
        let len = (self.n - start).min(BLOCK as u64) as usize;
        // Each block starts from a mixed state: states a multiple of SplitMix64's increment
        // apart would give the same stream shifted (every block nearly the same hashes).
        let start = crate::base::rng::SplitMix64(self.seed ^ ((b as u64) << 32)).next_u64();
        let mut rng = crate::base::rng::SplitMix64(start);
        buf.clear();
        let ln_k = SYNTHETIC_DISTINCT.ln();
        buf.extend((0..len).map(|_| {
            let r = rng.next_u64();
            if r % 10 < 4 {
                (u128::from(rng.next_u64()) << 64) | u128::from(r) | 1
            } else {
                let rank = (rng.unit() * ln_k).exp() as u64;
                // An odd multiplier is a bijection: distinct ranks, distinct even hashes.
                (u128::from(rank) << 1).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) & !1
            }
        }));
        buf
    }
    fn total(&self) -> u64 {
        self.n
    }
}

/// Bytes a pass needs per hash it holds: the hash, once gathered per block and once joined.
const BYTES_PER_HASH: u64 = 32;

/// The smallest memory budget counting accepts: a pass of 512 Ki hashes. Below it the
/// passes, each of which reads every hash, would make the count quadratic in the corpus.
pub const MIN_MEMORY: u64 = 16 << 20;

/// Passes needed to count `total` hashes within `memory` bytes (at least one).
pub fn passes_for(total: u64, memory: u64) -> usize {
    let per_pass = (memory / BYTES_PER_HASH).max(1);
    total.div_ceil(per_pass).max(1) as usize
}

/// The pass of `h` among `passes`: equal ranges of the high 64 bits.
#[inline]
fn pass_of(h: u128, passes: usize) -> usize {
    (((h >> 64) as u64 as u128 * passes as u128) >> 64) as usize
}

/// Counts every distinct hash of `src` in `passes` passes and calls `f(hash, count)` once for
/// each, pass after pass (in hash order within a pass, so in hash order overall).
pub fn count(src: &dyn Blocks, passes: usize, mut f: impl FnMut(u128, u64)) {
    let passes = passes.max(1);
    for p in 0..passes {
        let parts: Vec<Vec<u128>> = (0..src.blocks())
            .into_par_iter()
            .map_init(Vec::new, |buf, b| {
                let hashes = src.block(b, buf);
                if passes == 1 {
                    hashes.to_vec()
                } else {
                    let mut v: Vec<u128> = hashes
                        .iter()
                        .copied()
                        .filter(|h| pass_of(*h, passes) == p)
                        .collect();
                    // A collected vector may hold up to twice its length: give it back, so
                    // that a pass stays within its budget.
                    v.shrink_to_fit();
                    v
                }
            })
            .collect();
        let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
        for part in parts {
            all.extend_from_slice(&part);
        }
        all.par_sort_unstable();
        let mut i = 0;
        while i < all.len() {
            let h = all[i];
            let mut j = i + 1;
            while j < all.len() && all[j] == h {
                j += 1;
            }
            f(h, (j - i) as u64);
            i = j;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;
    use std::collections::BTreeMap;

    #[test]
    fn counts_equal_a_brute_force_count_for_any_number_of_passes() {
        let mut rng = SplitMix64(5);
        // Heavy-tailed: a few hashes very often, most once; some hashes share their high bits.
        let mut data: Vec<u128> = Vec::new();
        for _ in 0..50_000 {
            let r = rng.next_u64();
            let h = match r % 10 {
                0..=3 => rng.next_u64() as u128 | ((1u128 << 64) * (r as u128 % 7)),
                4..=6 => (rng.below(100) as u128) << 64 | 3,
                _ => (rng.below(5000) as u128)
                    .wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835),
            };
            data.push(h);
        }
        let mut want: BTreeMap<u128, u64> = BTreeMap::new();
        for h in &data {
            *want.entry(*h).or_default() += 1;
        }
        let (a, b) = data.split_at(12_345);
        let src = Slices::new(&[a, b, &[]]);
        assert_eq!(src.total(), data.len() as u64);
        for passes in [1, 2, 3, 7, 64] {
            let mut got = Vec::new();
            count(&src, passes, |h, c| got.push((h, c)));
            let want: Vec<(u128, u64)> = want.iter().map(|(h, c)| (*h, *c)).collect();
            assert_eq!(got, want, "{passes} passes");
        }
        let mut none = 0;
        count(&Slices::new(&[]), 3, |_, _| none += 1);
        assert_eq!(none, 0);
    }

    #[test]
    fn synthetic_hashes_are_the_same_on_every_read_and_heavy_tailed() {
        let src = Synthetic {
            n: 3 * BLOCK as u64 + 5,
            seed: 9,
        };
        assert_eq!(src.blocks(), 4);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        assert_eq!(src.block(3, &mut a).len(), 5);
        let first = src.block(1, &mut a).to_vec();
        assert_eq!(src.block(1, &mut b), &first[..]);
        let unique = first.iter().filter(|h| *h & 1 == 1).count() as f64 / first.len() as f64;
        assert!((0.38..0.42).contains(&unique), "{unique}");
        // Blocks are independent: the unique hashes of two blocks never meet.
        let other: foldhash::HashSet<u128> = src.block(2, &mut b).iter().copied().collect();
        assert!(first
            .iter()
            .filter(|h| *h & 1 == 1)
            .all(|h| !other.contains(h)));
        let (mut top, mut distinct) = (0, 0u64);
        count(&src, 2, |_, c| {
            top = top.max(c);
            distinct += 1;
        });
        // 40 % unique, and the repeated draws spread over many ranks.
        assert!(distinct as f64 > 0.5 * src.n as f64, "{distinct}");
        // Rank 1 takes about ln 2 / ln 1e8 of the repeated draws: about 1.9 M x 0.6 x 0.038.
        assert!(top > 30_000, "{top}");
    }

    #[test]
    fn passes_keep_each_within_the_budget() {
        assert_eq!(passes_for(0, 1 << 30), 1);
        assert_eq!(passes_for(1_000_000_000, 4 << 30), 8);
        let p = passes_for(1_000_000_000, 1 << 30);
        assert!(1_000_000_000u64.div_ceil(p as u64) * BYTES_PER_HASH <= 1 << 30);
    }
}
