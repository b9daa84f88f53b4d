//! How alike two documents' shingle sets are.
//!
//! Sets are sorted, deduplicated `u64` shingle hashes ([`super::shingle`]). One merge counts
//! the shared shingles; the measures are ratios of that count:
//! - S3 (Bernstein and Zobel, CopyCat's verification): |A and B| / ((|A| + |B|) / 2);
//! - Jaccard: |A and B| / |A or B|;
//! - containment: |A and B| / min(|A|, |B|).
//!
//! Two empty sets share nothing: every measure is 0 for them (a document with no terms is
//! nobody's near-duplicate; such documents are not joined in the first place).

/// The sizes of two sets and of their intersection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overlap {
    /// |A|.
    pub a: u32,
    /// |B|.
    pub b: u32,
    /// |A and B|.
    pub common: u32,
    /// The counts are of the two pages' whole texts, not of their own content: the pair is
    /// judged as near-identical copies, at S3 >= [`WHOLE_MIN`] ([`Overlap::of`]).
    pub whole: bool,
}

/// The last element of a set of three parts: a page's own content's shingles, its whole
/// page's (its full text), and its own content's words (`[own..., whole..., words..., own length, whole
/// length, WHOLE]`, `fingerprint::own`); never a shingle (verification's shingles stop below
/// it).
pub const WHOLE: u64 = u64::MAX;

/// The S3 at which two pages' whole texts make them near-duplicates whatever their own
/// content's shingles: near-identical copies, whose own words (a set of single terms) are
/// alike too (S3 >= [`OWN_WORDS_MIN`]), so that two forms of one template with different
/// words of their own (a login page, a sign-up page) are not copies.
pub const WHOLE_MIN: f64 = 0.95;

/// The S3 of two pages' own words (single terms) that a whole-text match needs.
pub const OWN_WORDS_MIN: f64 = 0.8;

/// The set of three parts that `parts` reads back ([`Overlap::of`] compares them): `own` (a
/// page's own content's shingles, possibly none), then `whole` (its whole page's) and `words`
/// (its own words), their lengths and the [`WHOLE`] mark.
pub fn with_parts(mut own: Vec<u64>, whole: &[u64], words: &[u64]) -> Vec<u64> {
    let n = own.len() as u64;
    own.reserve(whole.len() + words.len() + 3);
    own.extend_from_slice(whole);
    own.extend_from_slice(words);
    own.extend([n, whole.len() as u64, WHOLE]);
    own
}

/// A set's own shingles, whole shingles and own words (None for a plain set, whose own
/// content is its whole text).
fn parts(s: &[u64]) -> (&[u64], &[u64], Option<&[u64]>) {
    match s {
        [rest @ .., own, whole, WHOLE] if (*own + *whole) as usize <= rest.len() => {
            let (own, whole) = (*own as usize, *whole as usize);
            (
                &rest[..own],
                &rest[own..own + whole],
                Some(&rest[own + whole..]),
            )
        }
        _ => (s, s, None),
    }
}

/// What [`Overlap::of`] weighs for two sets with parts ([`with_parts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parted {
    /// Their own contents' shingles (a page with under 20 words of its own has none).
    pub own: Overlap,
    /// Their whole pages' shingles.
    pub whole: Overlap,
    /// Their own words (single terms); None where a set is plain.
    pub words: Option<Overlap>,
}

impl Parted {
    /// Whether the own words are alike ([`OWN_WORDS_MIN`]; two pages without own words are).
    pub fn words_alike(&self) -> bool {
        match self.words {
            Some(w) if !(w.a == 0 && w.b == 0) => w.score(Measure::S3) >= OWN_WORDS_MIN,
            _ => true,
        }
    }

    /// Whether the whole pages make the pair near-identical copies: S3 >= [`WHOLE_MIN`], the
    /// own words alike.
    pub fn whole_passes(&self) -> bool {
        self.whole.score(Measure::S3) >= WHOLE_MIN && self.words_alike()
    }
}

/// A similarity measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Measure {
    /// |A and B| / ((|A| + |B|) / 2).
    S3,
    /// |A and B| / |A or B|.
    Jaccard,
    /// |A and B| / min(|A|, |B|).
    Containment,
}

impl Measure {
    /// The measure's name, as the command line and the outputs spell it.
    pub fn name(self) -> &'static str {
        match self {
            Measure::S3 => "s3",
            Measure::Jaccard => "jaccard",
            Measure::Containment => "containment",
        }
    }

    /// Parses a name.
    pub fn parse(s: &str) -> Option<Measure> {
        [Measure::S3, Measure::Jaccard, Measure::Containment]
            .into_iter()
            .find(|m| m.name() == s)
    }
}

impl Overlap {
    /// The overlap of a pair that was not compared (no measure applies to it).
    pub const NOT_COMPARED: Overlap = Overlap {
        a: 0,
        b: 0,
        common: u32::MAX,
        whole: false,
    };

    /// The overlap of two documents of identical text: every measure 1.
    pub const IDENTICAL: Overlap = Overlap {
        a: 1,
        b: 1,
        common: 1,
        whole: false,
    };

    /// Whether the pair was compared.
    pub fn is_compared(&self) -> bool {
        self.common != u32::MAX
    }

    /// Counts the shingles `a` and `b` share (both sorted and deduplicated).
    ///
    /// Where a set has parts (a page with blocks of its site set aside), the own parts
    /// are compared and so are the whole texts; the whole texts' overlap is the answer
    /// (marked [`Overlap::whole`]) when their S3 is at least [`WHOLE_MIN`] and above the own
    /// parts', and the own words are alike ([`OWN_WORDS_MIN`]).
    pub fn of(a: &[u64], b: &[u64]) -> Overlap {
        let Some(p) = Overlap::parted(a, b) else {
            return Overlap::merge(a, b);
        };
        let mut whole = p.whole;
        if p.whole_passes() && whole.score(Measure::S3) > p.own.score(Measure::S3) {
            whole.whole = true;
            whole
        } else {
            p.own
        }
    }

    /// The parts [`Overlap::of`] weighs, where a set has parts: the own contents', the whole
    /// pages' and the own words' overlaps. None for two plain sets.
    pub fn parted(a: &[u64], b: &[u64]) -> Option<Parted> {
        if a.last() != Some(&WHOLE) && b.last() != Some(&WHOLE) {
            return None;
        }
        let ((own_a, whole_a, words_a), (own_b, whole_b, words_b)) = (parts(a), parts(b));
        Some(Parted {
            own: Overlap::merge(own_a, own_b),
            whole: Overlap::merge(whole_a, whole_b),
            words: match (words_a, words_b) {
                (Some(x), Some(y)) => Some(Overlap::merge(x, y)),
                _ => None,
            },
        })
    }

    /// The overlap of two sorted, deduplicated sets.
    fn merge(a: &[u64], b: &[u64]) -> Overlap {
        Overlap {
            a: a.len() as u32,
            b: b.len() as u32,
            common: common(a, b),
            whole: false,
        }
    }

    /// The value of `m` (0 when both sets are empty).
    pub fn score(&self, m: Measure) -> f64 {
        let (a, b, c) = (f64::from(self.a), f64::from(self.b), f64::from(self.common));
        let denominator = match m {
            Measure::S3 => (a + b) / 2.0,
            Measure::Jaccard => a + b - c,
            Measure::Containment => a.min(b),
        };
        if denominator > 0.0 {
            c / denominator
        } else {
            0.0
        }
    }
}

/// How many elements two sorted, deduplicated sets share: eight against eight at a time
/// where the CPU has AVX-512F, one against one otherwise (the same count).
fn common(a: &[u64], b: &[u64]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if a.len() >= BLOCK && b.len() >= BLOCK && crate::base::simd::avx512().dwords {
        // SAFETY: the CPU has AVX-512F (checked just above).
        return unsafe { common_avx512(a, b) };
    }
    common_from(a, b, 0, 0, 0)
}

/// Elements a block intersection compares at once.
#[cfg(target_arch = "x86_64")]
const BLOCK: usize = 8;

/// `common` plus the elements `a[i..]` and `b[j..]` share: a branch-free merge, in which
/// which side advances is data, not control flow (a merge of two random sets mispredicts
/// every other branch otherwise; about twice as fast as the branching merge).
fn common_from(a: &[u64], b: &[u64], mut i: usize, mut j: usize, mut common: u32) -> u32 {
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        common += u32::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    common
}

/// [`common`] eight elements of each set at a time: a block of `a` is compared with the
/// eight rotations of a block of `b` (all 64 pairs), and the block with the smaller last
/// element is passed (both when they end alike), so every pair of blocks that can share an
/// element meets exactly once; the last blocks, under eight elements, are merged one by one
/// from where the blocks stopped. A merge step is a dependent load, compare and add; a block
/// step is 16 independent vector operations for 8 to 16 elements.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn common_avx512(a: &[u64], b: &[u64]) -> u32 {
    use std::arch::x86_64::*;
    let (mut i, mut j, mut common) = (0usize, 0usize, 0u32);
    while i + BLOCK <= a.len() && j + BLOCK <= b.len() {
        // SAFETY: `i + 8 <= a.len()` and `j + 8 <= b.len()`: two unaligned loads of eight
        // `u64` each, in bounds.
        let (x, y) = unsafe {
            (
                _mm512_loadu_si512(a.as_ptr().add(i).cast()),
                _mm512_loadu_si512(b.as_ptr().add(j).cast()),
            )
        };
        // Lane k of `x` against every lane of `y`: the eight rotations of `y`. Within a set
        // the elements are distinct, so a lane of `x` meets at most one equal lane.
        let mut hit = _mm512_cmpeq_epi64_mask(x, y);
        hit |= _mm512_cmpeq_epi64_mask(x, _mm512_alignr_epi64::<1>(y, y));
        hit |= _mm512_cmpeq_epi64_mask(x, _mm512_alignr_epi64::<2>(y, y));
        hit |= _mm512_cmpeq_epi64_mask(x, _mm512_alignr_epi64::<3>(y, y));
        hit |= _mm512_cmpeq_epi64_mask(x, _mm512_alignr_epi64::<4>(y, y));
        hit |= _mm512_cmpeq_epi64_mask(x, _mm512_alignr_epi64::<5>(y, y));
        hit |= _mm512_cmpeq_epi64_mask(x, _mm512_alignr_epi64::<6>(y, y));
        hit |= _mm512_cmpeq_epi64_mask(x, _mm512_alignr_epi64::<7>(y, y));
        common += hit.count_ones();
        let (last_a, last_b) = (a[i + BLOCK - 1], b[j + BLOCK - 1]);
        i += BLOCK * usize::from(last_a <= last_b);
        j += BLOCK * usize::from(last_b <= last_a);
    }
    // What the blocks did not compare: the rest of each set against the other's rest. An
    // element of `a[i..]` equal to one of `b[..j]` was counted already (the block of `b`
    // that held it was passed against `a`'s block `i`, or ended below it).
    common_from(a, b, i, j, common)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn reference(a: &BTreeSet<u64>, b: &BTreeSet<u64>, m: Measure) -> f64 {
        let common = a.intersection(b).count() as f64;
        let union = a.union(b).count() as f64;
        let (x, y) = (a.len() as f64, b.len() as f64);
        let d = match m {
            Measure::S3 => (x + y) / 2.0,
            Measure::Jaccard => union,
            Measure::Containment => x.min(y),
        };
        if d == 0.0 {
            0.0
        } else {
            common / d
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Every measure equals a set-library reference, empty and one-element sets included
        /// (small values make overlaps likely).
        #[test]
        fn measures_equal_the_reference(
            a in prop::collection::btree_set(0u64..40, 0..30),
            b in prop::collection::btree_set(0u64..40, 0..30),
        ) {
            let (va, vb): (Vec<u64>, Vec<u64>) = (a.iter().copied().collect(), b.iter().copied().collect());
            let o = Overlap::of(&va, &vb);
            prop_assert_eq!(o, Overlap::of(&vb, &va).swapped());
            for m in [Measure::S3, Measure::Jaccard, Measure::Containment] {
                let want = reference(&a, &b, m);
                prop_assert!((o.score(m) - want).abs() < 1e-12, "{:?}: {} vs {}", m, o.score(m), want);
            }
        }
    }

    impl Overlap {
        fn swapped(self) -> Overlap {
            Overlap {
                a: self.b,
                b: self.a,
                common: self.common,
                whole: self.whole,
            }
        }
    }

    /// The block intersection counts what the one-by-one merge and a naive count count, on
    /// sets of every size around the block's (dense values, so that blocks end alike and
    /// interleave, and sparse ones); `common` takes the blocks where the CPU has AVX-512F,
    /// and the blocks are also called directly there.
    #[test]
    fn the_block_intersection_counts_what_the_merge_counts() {
        let mut rng = crate::base::rng::SplitMix64(5);
        for round in 0..20_000 {
            let spread = [20u64, 60, 400, 1 << 40][round % 4];
            let set = |rng: &mut crate::base::rng::SplitMix64| -> Vec<u64> {
                let n = rng.below(70) as usize;
                let s: BTreeSet<u64> = (0..n).map(|_| rng.below(spread)).collect();
                s.into_iter().collect()
            };
            let (a, b) = (set(&mut rng), set(&mut rng));
            let want = common_from(&a, &b, 0, 0, 0);
            let naive = a.iter().filter(|x| b.contains(x)).count() as u32;
            assert_eq!(want, naive);
            assert_eq!(common(&a, &b), want, "{a:?} {b:?}");
            assert_eq!(common(&b, &a), want, "{a:?} {b:?}");
            #[cfg(target_arch = "x86_64")]
            if crate::base::simd::avx512().dwords && a.len() >= BLOCK && b.len() >= BLOCK {
                // SAFETY: the CPU has AVX-512F (checked just above).
                assert_eq!(unsafe { common_avx512(&a, &b) }, want, "{a:?} {b:?}");
            }
        }
        // A set against itself and against a shifted copy of itself.
        let s: Vec<u64> = (0..1000).map(|x| x * 3).collect();
        assert_eq!(common(&s, &s), 1000);
        assert_eq!(common(&s, &s[5..]), 995);
    }

    /// `parted` gives the three overlaps of the parts, and `of` picks from them as the rule
    /// says, written out plainly here: the whole pages where S3 >= 0.95, the own words alike
    /// (S3 >= 0.8, or none on either side) and the whole above the own; else the own content.
    #[test]
    fn a_pair_of_sets_with_parts_is_scored_by_the_rule_over_its_parts() {
        let plain = [1u64, 2, 3];
        assert_eq!(Overlap::parted(&plain, &plain), None);
        let s3 = |a: &[u64], b: &[u64]| Overlap::merge(a, b).score(Measure::S3);
        let whole_a: Vec<u64> = (0..100).collect();
        let mut rng = crate::base::rng::SplitMix64(11);
        for round in 0..2_000 {
            // Whole pages sharing 90-100 of 100 shingles; own parts and words drawn small.
            let cut = 90 + rng.below(11);
            let whole_b: Vec<u64> = (0..cut).chain(1000..1000 + (100 - cut)).collect();
            let draw = |rng: &mut crate::base::rng::SplitMix64, n: u64| -> Vec<u64> {
                let mut v: Vec<u64> = (0..rng.below(n)).map(|_| 200 + rng.below(30)).collect();
                v.sort_unstable();
                v.dedup();
                v
            };
            let (own_a, own_b) = (draw(&mut rng, 20), draw(&mut rng, 20));
            let (words_a, words_b) = (draw(&mut rng, 8), draw(&mut rng, 8));
            let a = with_parts(own_a.clone(), &whole_a, &words_a);
            let b = with_parts(own_b.clone(), &whole_b, &words_b);
            let p = Overlap::parted(&a, &b).unwrap();
            assert_eq!(p.own, Overlap::merge(&own_a, &own_b), "{round}");
            assert_eq!(p.whole, Overlap::merge(&whole_a, &whole_b), "{round}");
            assert_eq!(p.words, Some(Overlap::merge(&words_a, &words_b)), "{round}");
            let alike = (words_a.is_empty() && words_b.is_empty())
                || s3(&words_a, &words_b) >= OWN_WORDS_MIN;
            let whole = s3(&whole_a, &whole_b);
            let o = Overlap::of(&a, &b);
            if whole >= WHOLE_MIN && alike && whole > s3(&own_a, &own_b) {
                assert!(o.whole, "{round}");
                assert_eq!(o.score(Measure::S3), whole, "{round}");
            } else {
                assert!(!o.whole, "{round}");
                assert_eq!(o.score(Measure::S3), s3(&own_a, &own_b), "{round}");
            }
        }
    }

    #[test]
    fn sets_of_parts_read_back_as_written() {
        let (own, whole, words) = (vec![1, 5, 9], vec![2, 3, 5, 7, 11], vec![4, 8]);
        let s = with_parts(own.clone(), &whole, &words);
        assert_eq!(parts(&s), (&own[..], &whole[..], Some(&words[..])));
        let s = with_parts(Vec::new(), &whole, &[]);
        assert_eq!(parts(&s), (&[][..], &whole[..], Some(&[][..])));
    }

    #[test]
    fn equal_sets_score_one_and_empty_ones_zero() {
        let s = [1u64, 5, 9];
        for m in [Measure::S3, Measure::Jaccard, Measure::Containment] {
            assert_eq!(Overlap::of(&s, &s).score(m), 1.0);
            assert_eq!(Overlap::of(&[], &[]).score(m), 0.0);
            assert_eq!(Overlap::of(&s, &[]).score(m), 0.0);
            assert_eq!(Measure::parse(m.name()), Some(m));
        }
        // CopyCat's threshold on a pair sharing 41 of 50 shingles each: S3 0.82.
        let a: Vec<u64> = (0..50).collect();
        let b: Vec<u64> = (9..59).collect();
        assert!((Overlap::of(&a, &b).score(Measure::S3) - 0.82).abs() < 1e-12);
    }
}
