//! The structural index of an HTML page: where its `<`, `&` and `>` are, found 64 bytes at a
//! time in one pass before the page is scanned (as simdjson's first stage finds a document's
//! structure), so that the tag scanners walk bits instead of starting a search of the bytes
//! again at each tag and each text run.
//!
//! One 64-bit mask a class a 64-byte block: bit `j` of block `k` is byte `64 k + j`. The
//! classes are what the scanners ask for: the next `<` (a tag, a literal, or in raw text the
//! end tag), the next `&` inside a text run (a character reference) and the next `>` (the end
//! of a comment-like `<!...>`). A tag's own end is found byte by byte (`html::tag_end`):
//! walking masks of `>`, `=` and quotes from attribute to attribute was measured slower on
//! documentation pages, whose tags are short and full of quoted values.
//!
//! Three builders give the same masks: AVX-512BW (one compare a class a block), AVX2 (two) and
//! a portable one, eight bytes at a time in a 64-bit word; a test holds the three to the
//! masks made byte by byte through a class table on random bytes. `NEARDUP_NO_AVX512` turns the AVX-512 path off (as everywhere);
//! `NEARDUP_NO_AVX2` the AVX2 path too, for measuring them against the portable one.

use crate::base::simd::Bytes64;

/// The classes of bytes a block's masks mark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Masks {
    /// `<`.
    lt: u64,
    /// `&`.
    amp: u64,
    /// `>`.
    gt: u64,
}

/// The masks of one page (kept by the caller for the next page, so a thread allocates once).
#[derive(Default)]
pub struct Index {
    blocks: Vec<Masks>,
    len: usize,
}

impl Index {
    /// The index of `b`, replacing what `self` held.
    pub fn build(&mut self, b: &[u8]) {
        self.build_with(b, crate::base::simd::bytes64());
    }

    fn build_with(&mut self, b: &[u8], path: Bytes64) {
        let whole = b.len() / 64;
        self.blocks.clear();
        self.blocks.reserve(whole + 1);
        self.len = b.len();
        match path {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Bytes64::Avx512` is chosen only where the CPU has AVX-512F and AVX-512BW.
            Bytes64::Avx512 => unsafe { build_avx512(&b[..whole * 64], &mut self.blocks) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Bytes64::Avx2` is chosen only where the CPU has AVX2.
            Bytes64::Avx2 => unsafe { build_avx2(&b[..whole * 64], &mut self.blocks) },
            _ => {
                for block in b[..whole * 64].chunks_exact(64) {
                    self.blocks.push(eight_at_a_time(block));
                }
            }
        }
        // The last partial block, byte by byte (its masks have no bits past the end).
        if whole * 64 < b.len() {
            self.blocks.push(byte_by_byte(&b[whole * 64..]));
        }
    }

    /// The first position at or after `from` whose bit `class` sets, or `len`.
    #[inline]
    fn next(&self, from: usize, class: impl Fn(&Masks) -> u64) -> usize {
        self.next_before(from, self.len, class)
    }

    /// The first position at or after `from` whose bit `class` sets, or `to` (or `len`, when
    /// smaller) where none is before it: the blocks past `to` are not looked at.
    #[inline]
    fn next_before(&self, from: usize, to: usize, class: impl Fn(&Masks) -> u64) -> usize {
        let to = to.min(self.len);
        let mut k = from / 64;
        let Some(first) = self.blocks.get(k) else {
            return to;
        };
        let mut m = class(first) & (u64::MAX << (from % 64));
        loop {
            if m != 0 {
                return (k * 64 + m.trailing_zeros() as usize).min(to);
            }
            k += 1;
            if k * 64 >= to {
                return to;
            }
            m = class(&self.blocks[k]);
        }
    }

    /// The first `<` at or after `from`, or `len`.
    #[inline]
    pub fn next_lt(&self, from: usize) -> usize {
        self.next(from, |m| m.lt)
    }

    /// The first `&` at or after `from` and before `to`, or `to` (`len` when smaller).
    #[inline]
    pub fn next_amp(&self, from: usize, to: usize) -> usize {
        self.next_before(from, to, |m| m.amp)
    }

    /// The first `>` at or after `from`, or `len`.
    #[inline]
    pub fn next_gt(&self, from: usize) -> usize {
        self.next(from, |m| m.gt)
    }
}

/// The class bits of each byte: 1 `<`, 2 `&`, 4 `>`.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'<' as usize] = 1;
    t[b'&' as usize] = 2;
    t[b'>' as usize] = 4;
    t
};

/// The masks of up to 64 bytes, byte by byte: the last partial block's, and the reference the
/// builders are tested against.
fn byte_by_byte(block: &[u8]) -> Masks {
    let mut m = Masks::default();
    for (j, &c) in block.iter().enumerate() {
        let c = u64::from(CLASS[c as usize]);
        m.lt |= (c & 1) << j;
        m.amp |= ((c >> 1) & 1) << j;
        m.gt |= ((c >> 2) & 1) << j;
    }
    m
}

/// The masks of a whole block, eight bytes at a time in a 64-bit word (exactly, byte by
/// byte: no carry crosses a byte), for CPUs without the vector builders.
fn eight_at_a_time(block: &[u8]) -> Masks {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    // The bytes of `w` equal to `c`, one bit each (bit k for byte k): a byte's high bit after
    // the exact zero-byte test, gathered by a multiplication whose partial products do not
    // overlap.
    let equal = |w: u64, c: u8| {
        let x = w ^ (ONES * u64::from(c));
        let zero = !(((x & LOW) + LOW) | x) & HIGH;
        (zero >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
    };
    let mut m = Masks::default();
    for (k, word) in block.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        m.lt |= equal(w, b'<') << (8 * k);
        m.amp |= equal(w, b'&') << (8 * k);
        m.gt |= equal(w, b'>') << (8 * k);
    }
    m
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
fn build_avx512(b: &[u8], out: &mut Vec<Masks>) {
    use std::arch::x86_64::*;
    let lt = _mm512_set1_epi8(b'<' as i8);
    let amp = _mm512_set1_epi8(b'&' as i8);
    let gt = _mm512_set1_epi8(b'>' as i8);
    for block in b.chunks_exact(64) {
        // SAFETY: `block` is 64 bytes: one unaligned 64-byte load in bounds.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        out.push(Masks {
            lt: _mm512_cmpeq_epi8_mask(v, lt),
            amp: _mm512_cmpeq_epi8_mask(v, amp),
            gt: _mm512_cmpeq_epi8_mask(v, gt),
        });
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn build_avx2(b: &[u8], out: &mut Vec<Masks>) {
    use std::arch::x86_64::*;
    let lt = _mm256_set1_epi8(b'<' as i8);
    let amp = _mm256_set1_epi8(b'&' as i8);
    let gt = _mm256_set1_epi8(b'>' as i8);
    // The 32 bits of a byte mask of `v`.
    let bits = |v: __m256i| u64::from(_mm256_movemask_epi8(v) as u32);
    for block in b.chunks_exact(64) {
        // SAFETY: `block` is 64 bytes: two unaligned 32-byte loads in bounds.
        let (lo, hi) = unsafe {
            (
                _mm256_loadu_si256(block.as_ptr().cast()),
                _mm256_loadu_si256(block.as_ptr().add(32).cast()),
            )
        };
        let class =
            |c: __m256i| bits(_mm256_cmpeq_epi8(lo, c)) | bits(_mm256_cmpeq_epi8(hi, c)) << 32;
        out.push(Masks {
            lt: class(lt),
            amp: class(amp),
            gt: class(gt),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::Index;
    use crate::base::rng::SplitMix64;
    use crate::base::simd::Bytes64;

    /// Random bytes, most of them the classes' own and ASCII whitespace.
    fn random(rng: &mut SplitMix64, n: usize) -> Vec<u8> {
        let alphabet = b"<>&=\"' \t\nab/!-";
        (0..n)
            .map(|_| {
                if rng.below(4) == 0 {
                    rng.below(256) as u8
                } else {
                    alphabet[rng.below(alphabet.len() as u64) as usize]
                }
            })
            .collect()
    }

    /// Every builder this CPU can run (the portable one first).
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    fn paths() -> Vec<Bytes64> {
        let mut p = vec![Bytes64::Portable];
        #[cfg(target_arch = "x86_64")]
        if !cfg!(miri) {
            if is_x86_feature_detected!("avx2") {
                p.push(Bytes64::Avx2);
            }
            if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
                p.push(Bytes64::Avx512);
            }
        }
        p
    }

    #[test]
    fn every_builder_gives_the_byte_by_byte_masks() {
        let mut rng = SplitMix64(5);
        let mut index = Index::default();
        for round in 0..300 {
            let b = random(&mut rng, round * 7 % 700);
            let reference: Vec<_> = b.chunks(64).map(super::byte_by_byte).collect();
            for p in paths() {
                index.build_with(&b, p);
                assert_eq!(index.blocks, reference, "{p:?}, {} bytes", b.len());
                assert_eq!(index.len, b.len());
            }
        }
    }

    #[test]
    fn the_searches_equal_the_byte_by_byte_ones() {
        let mut rng = SplitMix64(9);
        let mut index = Index::default();
        for round in 0..400 {
            let b = random(&mut rng, round % 300);
            for p in paths() {
                index.build_with(&b, p);
                for from in 0..=b.len() {
                    let find = |c: u8| {
                        b[from..]
                            .iter()
                            .position(|x| *x == c)
                            .map_or(b.len(), |e| from + e)
                    };
                    assert_eq!(index.next_lt(from), find(b'<'));
                    assert_eq!(index.next_amp(from, b.len()), find(b'&'));
                    let to = from + (b.len() - from) / 2;
                    assert_eq!(index.next_amp(from, to), find(b'&').min(to));
                    assert_eq!(index.next_gt(from), find(b'>'));
                }
            }
        }
    }
}
