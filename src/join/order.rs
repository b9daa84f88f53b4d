//! Parallel two-level counting sorts: the order each table of a join is scanned in, and the
//! grouping of identical fingerprints, are both built from these.
//!
//! Pass 1 ([`partition`]) scatters the items into up to 4096 groups by the top bits of their
//! key: each input chunk counts its groups, and every (group, chunk) pair gets its own slice
//! of the output, so the chunks scatter at once without sharing a slice, and within a group
//! items keep their input order. Pass 2 ([`sort_region`]), the caller's, runs per group in
//! parallel: a group is a region small enough for the cache, sorted by the rest of its key
//! with one more counting sort and, where keys still tie, a comparison sort. Callers do their
//! work on a region while it is still in cache (compare a table's runs, find units).

use rayon::prelude::*;

/// Gathers the bits of a mask into a dense key (a software `pext` over the mask's runs of
/// consecutive bits; pigeonhole masks have one run per block).
pub(crate) struct KeyBits {
    /// (shift, run mask, output shift) per run.
    runs: Vec<(u32, u64, u32)>,
    /// Bits in the key.
    pub bits: u32,
}

impl KeyBits {
    pub fn new(mask: u64) -> Self {
        let mut runs = Vec::new();
        let (mut bit, mut out) = (0u32, 0u32);
        while bit < 64 {
            if mask >> bit & 1 == 0 {
                bit += 1;
                continue;
            }
            let len = (mask >> bit).trailing_ones();
            let run = if len == 64 {
                u64::MAX
            } else {
                (1u64 << len) - 1
            };
            runs.push((bit, run, out));
            out += len;
            bit += len;
        }
        KeyBits { runs, bits: out }
    }

    /// The key of `v`.
    #[inline]
    pub fn key(&self, v: u64) -> u64 {
        self.runs.iter().fold(0, |acc, &(shift, run, out)| {
            acc | ((v >> shift) & run) << out
        })
    }

    /// (shift, mask) when the mask is one run of bits (every single-block table): the key is
    /// then `v >> shift & mask`, which callers use to build a specialised loop.
    pub fn single(&self) -> Option<(u32, u64)> {
        match self.runs[..] {
            [(shift, run, _)] => Some((shift, run)),
            _ => None,
        }
    }
}

/// Group bits for `n` items and a key of `bits` bits: groups of about eight thousand items
/// (128 KiB of 16-byte items, in a core's L2 cache with the pass-2 copy), at most 4096 groups.
/// Fewer, larger groups make pass 1's scatter write to fewer places at once; at 1 M items
/// they measured 3 % faster than groups of a thousand for 16-bit keys and for pairs of 8-bit
/// blocks alike.
pub(crate) fn group_bits(n: usize, bits: u32) -> u32 {
    let log = usize::BITS - n.leading_zeros();
    log.saturating_sub(13).clamp(1, 12).min(bits)
}

/// Fewest items in one chunk of pass 1; under Miri, small inputs still make several chunks.
const MIN_CHUNK: usize = if cfg!(miri) { 64 } else { 1 << 14 };

/// Pass 1: writes `item(s)` of every `s` in `src` to `dst` (same length), grouped by
/// `group(s)` (below `1 << gbits`), keeping input order within a group. Returns the group
/// boundaries: group `g` is `dst[starts[g]..starts[g + 1]]`.
pub(crate) fn partition<S: Sync, T: Copy + Send>(
    src: &[S],
    dst: &mut [T],
    gbits: u32,
    group: impl Fn(&S) -> usize + Sync,
    item: impl Fn(&S) -> T + Sync,
) -> Vec<usize> {
    assert_eq!(
        src.len(),
        dst.len(),
        "partition needs an output of the input's length"
    );
    let n = src.len();
    let ng = 1usize << gbits;
    let chunk = n.div_ceil(rayon::current_num_threads() * 4).max(MIN_CHUNK);
    let hist: Vec<Vec<u32>> = src
        .par_chunks(chunk)
        .map(|c| {
            let mut h = vec![0u32; ng];
            for s in c {
                h[group(s)] += 1;
            }
            h
        })
        .collect();
    let mut starts = vec![0usize; ng + 1];
    for g in 0..ng {
        starts[g + 1] = starts[g] + hist.iter().map(|h| h[g] as usize).sum::<usize>();
    }
    // Output slices in (group, chunk) order, handed to each chunk as one slice per group.
    let mut per_chunk: Vec<Vec<&mut [T]>> =
        (0..hist.len()).map(|_| Vec::with_capacity(ng)).collect();
    let mut rest = dst;
    for g in 0..ng {
        for (c, h) in hist.iter().enumerate() {
            let (head, tail) = rest.split_at_mut(h[g] as usize);
            per_chunk[c].push(head);
            rest = tail;
        }
    }
    src.par_chunks(chunk)
        .zip(per_chunk.into_par_iter())
        .for_each(|(c, mut outs)| {
            // The next free place and the end of each group's slice, as pointers taken from
            // the slices' own mutable borrows: one load and one store of the cursor per item.
            // The end bounds every write, so a `group` that disagreed with its count could
            // only stop the scatter, never write outside.
            let (mut at, end): (Vec<*mut T>, Vec<*mut T>) = outs
                .iter_mut()
                .map(|o| {
                    let r = o.as_mut_ptr_range();
                    (r.start, r.end)
                })
                .unzip();
            for s in c {
                let g = group(s);
                let p = at[g];
                assert!(p < end[g], "partition: group sizes changed between passes");
                // SAFETY: `p` was derived from the mutable borrow of group g's slice of this
                // chunk, a slice no other chunk holds, and lies below that slice's end
                // (checked above); `outs` keeps the slices borrowed, and is not touched again,
                // until the scatter is done.
                unsafe {
                    p.write(item(s));
                    at[g] = p.add(1);
                }
            }
            drop(outs);
        });
    starts
}

/// The groups of `dst` after [`partition`], with their offsets, ready for a parallel pass.
pub(crate) fn regions<'a, T>(dst: &'a mut [T], starts: &[usize]) -> Vec<(usize, &'a mut [T])> {
    let mut out = Vec::with_capacity(starts.len().saturating_sub(1));
    let mut rest = dst;
    for w in starts.windows(2) {
        let (head, tail) = rest.split_at_mut(w[1] - w[0]);
        out.push((w[0], head));
        rest = tail;
    }
    out
}

/// Scratch space of one worker for [`sort_region`].
pub(crate) struct Scratch<T> {
    tmp: Vec<T>,
    fill: Vec<u32>,
}

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch {
            tmp: Vec::new(),
            fill: Vec::new(),
        }
    }
}

/// Pass 2: sorts `region` by `sub(item)`, a key of `low` bits: a counting sort on its top bits
/// (as many as the region's size calls for, at most 16), then `tie` on each bucket of two or
/// more items if bits remain below those. With no bits left the sort is stable.
pub(crate) fn sort_region<T: Copy>(
    region: &mut [T],
    s: &mut Scratch<T>,
    low: u32,
    sub: impl Fn(&T) -> u64,
    mut tie: impl FnMut(&mut [T]),
) {
    let len = region.len();
    if len < 2 || low == 0 {
        return;
    }
    let sbits = low.min(16).min(usize::BITS - len.leading_zeros() + 1);
    let shift = low - sbits;
    let nb = 1usize << sbits;
    s.fill.clear();
    s.fill.resize(nb + 1, 0);
    for v in region.iter() {
        s.fill[(sub(v) >> shift) as usize + 1] += 1;
    }
    for i in 1..s.fill.len() {
        s.fill[i] += s.fill[i - 1];
    }
    s.tmp.clear();
    s.tmp.extend_from_slice(region);
    for v in s.tmp.iter() {
        let b = (sub(v) >> shift) as usize;
        region[s.fill[b] as usize] = *v;
        s.fill[b] += 1;
    }
    if shift > 0 {
        // `fill[b]` is now the end of bucket b, and the start of bucket b + 1.
        let mut start = 0;
        for b in 0..nb {
            let end = s.fill[b] as usize;
            if end - start > 1 {
                tie(&mut region[start..end]);
            }
            start = end;
        }
    }
}

/// Boundaries cutting sorted `values` into about `pieces` parts without splitting a run of
/// equal masked bits: `[0, .., values.len()]`.
pub(crate) fn cuts(values: &[u64], mask: u64, pieces: usize) -> Vec<usize> {
    let n = values.len();
    let mut out = vec![0];
    for p in 1..pieces {
        let mut at = (n * p / pieces).max(*out.last().unwrap_or(&0));
        while at > 0 && at < n && (values[at] ^ values[at - 1]) & mask == 0 {
            at += 1;
        }
        if at > *out.last().unwrap_or(&0) && at < n {
            out.push(at);
        }
    }
    out.push(n);
    out
}

/// Positions of values in a sorted slice, found through an index of the values' top bits:
/// a lookup reads one index entry and a few neighbouring values, not the twenty scattered ones
/// of a binary search.
pub(crate) struct Positions<'a, T> {
    values: &'a [T],
    /// Bits below the indexed top bits of the width the largest value uses.
    shift: u32,
    /// Values whose top bits are below `t` come before `first[t]`.
    first: Vec<u32>,
}

impl<'a, T: Copy + Ord + Into<u64> + Sync> Positions<'a, T> {
    /// The index of sorted `values`, with an entry per eight values or so (a cache line of
    /// `u64`; at most 2^24 entries) over the bits the largest value uses, built in parallel:
    /// each part of the index walks the values of its own span once.
    pub fn new(values: &'a [T]) -> Self {
        assert!(values.len() < u32::MAX as usize, "positions are u32");
        let width = values
            .last()
            .map_or(0, |v| 64 - (*v).into().leading_zeros());
        let k = (usize::BITS - values.len().leading_zeros())
            .saturating_sub(3)
            .clamp(1, 24)
            .min(width);
        let shift = width - k;
        let top = move |v: T| (v.into() >> shift) as usize;
        let mut first = vec![0u32; (1 << k) + 1];
        const PART: usize = 1 << 12;
        first.par_chunks_mut(PART).enumerate().for_each(|(c, out)| {
            let t0 = c * PART;
            let mut i = values.partition_point(|v| top(*v) < t0);
            for (t, f) in (t0..).zip(out.iter_mut()) {
                while i < values.len() && top(values[i]) < t {
                    i += 1;
                }
                *f = i as u32;
            }
        });
        Positions {
            values,
            shift,
            first,
        }
    }

    /// The position of the first value not below `v` (of `v` itself, where present).
    #[inline]
    pub fn of(&self, v: T) -> usize {
        let t = (v.into() >> self.shift) as usize;
        if t >= self.first.len() - 1 {
            // Above the largest value's top bits: after every value.
            return self.values.len();
        }
        let (s, e) = (self.first[t] as usize, self.first[t + 1] as usize);
        s + self.values[s..e].partition_point(|x| *x < v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(n: usize, seed: u64) -> Vec<u64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                x ^ x >> 29
            })
            .collect()
    }

    #[test]
    fn key_bits_gather_the_masked_bits_in_order() {
        let mask = 0xF0F0_0000_0000_00FFu64;
        let kb = KeyBits::new(mask);
        assert_eq!(kb.bits, 16);
        assert_eq!(kb.key(0xA0B0_0000_0000_00CD), 0xAB_CD);
        assert_eq!(kb.single(), None);
        let one = KeyBits::new(0x0000_FFFF_0000_0000);
        assert_eq!(one.single(), Some((32, 0xFFFF)));
        assert_eq!(one.key(0x1234_5678_9ABC_DEF0), 0x5678);
        assert_eq!(KeyBits::new(u64::MAX).key(0x1234), 0x1234);
        assert_eq!(KeyBits::new(0).key(u64::MAX), 0);
    }

    #[test]
    fn two_passes_sort_like_a_plain_sort() {
        // Sizes around the chunk and group thresholds, keys narrow (many ties) and wide.
        let sizes: &[(usize, u32)] = if cfg!(miri) {
            &[(0, 16), (1, 16), (300, 4), (700, 16), (1001, 64)]
        } else {
            &[(0, 16), (1, 16), (5000, 4), (40_000, 16), (70_001, 64)]
        };
        for &(n, bits) in sizes {
            let values = lcg(n, n as u64 + 1);
            let mask = if bits == 64 {
                u64::MAX
            } else {
                ((1u64 << bits) - 1) << 20
            };
            let kb = KeyBits::new(mask);
            let gbits = group_bits(n, kb.bits);
            let low = kb.bits - gbits;
            let lowmask = (1u64 << low) - 1;
            let mut dst = vec![0u64; n];
            let starts = partition(
                &values,
                &mut dst,
                gbits,
                |v| (kb.key(*v) >> low) as usize,
                |v| *v,
            );
            let mut s = Scratch::default();
            for (_, r) in regions(&mut dst, &starts) {
                sort_region(
                    r,
                    &mut s,
                    low,
                    |v| kb.key(*v) & lowmask,
                    |t| t.sort_unstable_by_key(|v| kb.key(*v)),
                );
            }
            let mut want = values.clone();
            want.sort_by_key(|v| kb.key(*v));
            let keys = |v: &[u64]| v.iter().map(|x| kb.key(*x)).collect::<Vec<_>>();
            assert_eq!(keys(&dst), keys(&want), "n {n} bits {bits}");
            let (mut a, mut b) = (dst.clone(), values.clone());
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "same multiset, n {n}");
        }
    }

    #[test]
    fn cuts_never_split_a_run() {
        let mut v = lcg(if cfg!(miri) { 500 } else { 10_000 }, 3);
        v.sort_unstable();
        let mask = 0xFFF0_0000_0000_0000;
        for pieces in [1, 2, 7, 64, 20_000] {
            let c = cuts(&v, mask, pieces);
            assert_eq!((c[0], *c.last().unwrap()), (0, v.len()));
            for w in c.windows(2) {
                assert!(w[0] < w[1]);
            }
            for &at in &c[1..c.len() - 1] {
                assert_ne!(v[at] & mask, v[at - 1] & mask, "cut inside a run at {at}");
            }
        }
        assert_eq!(cuts(&[], mask, 4), vec![0, 0]);
    }

    #[test]
    fn positions_agree_with_a_binary_search() {
        let sizes: &[usize] = if cfg!(miri) {
            &[0, 1, 2, 300]
        } else {
            &[0, 1, 2, 1000, 70_001]
        };
        for &n in sizes {
            let mut v = lcg(n, n as u64 + 9);
            // Clustered values too: many share their top bits.
            v.iter_mut().step_by(3).for_each(|x| *x &= 0x00FF_FFFF);
            v.sort_unstable();
            let p = Positions::new(&v);
            let probes = v.iter().copied().chain(lcg(50, 5)).chain([0, u64::MAX]);
            for x in probes {
                assert_eq!(p.of(x), v.partition_point(|y| *y < x), "n {n} probe {x:#x}");
            }
        }
        // Small values (document numbers) are indexed over the bits they use.
        let docs: Vec<u32> = (0..if cfg!(miri) { 500 } else { 5000 })
            .map(|i| i * 7 + 3)
            .collect();
        let p = Positions::new(&docs);
        assert!(p.shift < 10, "index over the used bits, shift {}", p.shift);
        for d in [0, 3, 4, 10, 34_996, 34_997, 34_999, 1 << 16, u32::MAX] {
            assert_eq!(p.of(d), docs.partition_point(|y| *y < d), "doc {d}");
        }
    }
}
