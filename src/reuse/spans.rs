//! Repeated spans below the paragraph (exact-substring dedup): every run of at least `k`
//! words that occurs more than once among the documents, each occurrence but the first (in
//! document order, then position) marked for removal, or every occurrence with `all_copies`
//! (Lee et al., 2022).
//!
//! Words are the Unicode word segments of a document's normalised text
//! ([`crate::text::tokenize::for_each_word`]); two spans are the same when their words are,
//! byte for byte. A span of `n >= k` words occurs again exactly when each of its `n - k + 1`
//! windows of `k` words does, so the windows are what is found: each window is hashed (a
//! rolling polynomial over 64-bit word hashes, two lanes), windows are sorted by hash, and the
//! windows of one hash are told apart by comparing their words, so a hash collision never
//! marks a window. A document's marked windows, merged, are its removed byte ranges: each
//! starts at a word's first byte and ends at a word's last, so no range splits a word or a
//! UTF-8 character.

use rayon::prelude::*;

use crate::text::tokenize::for_each_word;

/// A document's words as byte ranges of its text.
pub fn words(text: &str) -> Vec<(u32, u32)> {
    let base = text.as_ptr() as usize;
    let mut out = Vec::new();
    for_each_word(text, false, |w| {
        let s = w.as_ptr() as usize - base;
        out.push((s as u32, (s + w.len()) as u32));
    });
    out
}

/// A window's place: document, first word.
type Place = (u32, u32);

const B1: u64 = 0x9E37_79B9_7F4A_7C15;
const B2: u64 = 0xC2B2_AE3D_27D4_EB4F;

/// The hash of every window of `k` words of one document (`hashes` its word hashes).
fn windows(hashes: &[u64], k: usize) -> Vec<u128> {
    if hashes.len() < k || k == 0 {
        return Vec::new();
    }
    let (p1, p2) = (B1.wrapping_pow(k as u32), B2.wrapping_pow(k as u32));
    let (mut a, mut b) = (0u64, 0u64);
    let mut out = Vec::with_capacity(hashes.len() - k + 1);
    for (i, &h) in hashes.iter().enumerate() {
        a = a.wrapping_mul(B1).wrapping_add(h);
        b = b.wrapping_mul(B2).wrapping_add(h ^ 0x5555_5555_5555_5555);
        if i >= k {
            let old = hashes[i - k];
            a = a.wrapping_sub(old.wrapping_mul(p1));
            b = b.wrapping_sub((old ^ 0x5555_5555_5555_5555).wrapping_mul(p2));
        }
        if i + 1 >= k {
            out.push((u128::from(a) << 64) | u128::from(b));
        }
    }
    out
}

/// A span found repeated, for the summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repeated {
    /// Occurrences of its first window among the documents.
    pub count: u64,
    /// Where the first occurrence is: document and word.
    pub doc: u32,
    /// The first word of the first occurrence.
    pub word: u32,
}

/// What was found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spans {
    /// Per document, its removed byte ranges, ascending and disjoint.
    pub removed: Vec<Vec<(u32, u32)>>,
    /// Windows of `k` words among the documents.
    pub windows: u64,
    /// Windows marked.
    pub marked: u64,
    /// The most repeated windows (by occurrences, then first place), at most `top`.
    pub top: Vec<Repeated>,
}

/// Bytes a window takes while its pass sorts it.
pub const WINDOW_BYTES: u64 = 24;

/// The repeated spans of at least `k` words among `texts` (in document order): see the
/// module's notes. `top` bounds the most repeated windows reported. The windows are sorted in
/// passes over equal ranges of their hash, each holding at most `memory` bytes of windows
/// (about): every window falls in one pass, so the result does not depend on the passes.
pub fn find(texts: &[&str], k: usize, all_copies: bool, top: usize, memory: u64) -> Spans {
    let words: Vec<Vec<(u32, u32)>> = texts.par_iter().map(|t| words(t)).collect();
    let word = |d: u32, i: u32| -> &[u8] {
        let (s, e) = words[d as usize][i as usize];
        &texts[d as usize].as_bytes()[s as usize..e as usize]
    };
    let total: u64 = words
        .iter()
        .map(|w| (w.len() + 1).saturating_sub(k) as u64)
        .sum();
    let passes = (total * WINDOW_BYTES).div_ceil(memory.max(1)).max(1);
    let same = |a: Place, b: Place| (0..k as u32).all(|j| word(a.0, a.1 + j) == word(b.0, b.1 + j));
    let mut marks: Vec<(Vec<Place>, Vec<Repeated>)> = Vec::new();
    for pass in 0..passes {
        // The pass takes the windows whose hash's top 64 bits fall in its range.
        let lo = ((u128::from(pass) << 64) / u128::from(passes)) as u64;
        let hi = ((u128::from(pass + 1) << 64) / u128::from(passes)).saturating_sub(1) as u64;
        let mut all: Vec<(u128, u32, u32)> = texts
            .par_iter()
            .zip(&words)
            .enumerate()
            .flat_map_iter(|(d, (t, w))| {
                let hashes: Vec<u64> = w
                    .iter()
                    .map(|&(s, e)| {
                        xxhash_rust::xxh3::xxh3_64(&t.as_bytes()[s as usize..e as usize])
                    })
                    .collect();
                windows(&hashes, k)
                    .into_iter()
                    .enumerate()
                    .filter(move |(_, h)| (lo..=hi).contains(&((h >> 64) as u64)))
                    .map(move |(i, h)| (h, d as u32, i as u32))
            })
            .collect();
        all.par_sort_unstable();
        // Each run of one hash, split into classes of equal words (first occurrence first).
        marks.extend(
            all.par_chunk_by(|x, y| x.0 == y.0)
                .filter(|run| run.len() > 1)
                .map(|run| {
                    let mut marked = Vec::new();
                    let mut reps = Vec::new();
                    let mut left: Vec<Place> = run.iter().map(|x| (x.1, x.2)).collect();
                    while !left.is_empty() {
                        let first = left[0];
                        let (class, rest): (Vec<Place>, Vec<Place>) =
                            left.iter().partition(|o| same(**o, first));
                        if class.len() > 1 {
                            let skip = usize::from(!all_copies);
                            marked.extend_from_slice(&class[skip..]);
                            reps.push(Repeated {
                                count: class.len() as u64,
                                doc: first.0,
                                word: first.1,
                            });
                        }
                        left = rest;
                    }
                    (marked, reps)
                })
                .collect::<Vec<_>>(),
        );
    }
    let mut per_doc: Vec<Vec<u32>> = vec![Vec::new(); texts.len()];
    let mut reps = Vec::new();
    let mut marked = 0u64;
    for (m, r) in marks {
        marked += m.len() as u64;
        for (d, i) in m {
            per_doc[d as usize].push(i);
        }
        reps.extend(r);
    }
    reps.sort_unstable_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then((a.doc, a.word).cmp(&(b.doc, b.word)))
    });
    reps.truncate(top);
    let removed = per_doc
        .into_par_iter()
        .enumerate()
        .map(|(d, mut starts)| {
            starts.sort_unstable();
            let w = &words[d];
            let mut out: Vec<(u32, u32)> = Vec::new();
            let mut cur: Option<(u32, u32)> = None;
            for s in starts {
                let e = s + k as u32 - 1;
                cur = match cur {
                    Some((a, b)) if s <= b + 1 => Some((a, b.max(e))),
                    Some((a, b)) => {
                        out.push((w[a as usize].0, w[b as usize].1));
                        Some((s, e))
                    }
                    None => Some((s, e)),
                };
            }
            if let Some((a, b)) = cur {
                out.push((w[a as usize].0, w[b as usize].1));
            }
            out
        })
        .collect();
    Spans {
        removed,
        windows: total,
        marked,
        top: reps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, by brute force: a window is marked when its words occur at an
    /// earlier place (or anywhere else, with `all_copies`); marked windows of adjacent or
    /// overlapping words merge.
    fn brute(texts: &[&str], k: usize, all_copies: bool) -> Vec<Vec<(u32, u32)>> {
        let ws: Vec<Vec<(u32, u32)>> = texts.iter().map(|t| words(t)).collect();
        let seq = |d: usize, i: usize| -> Vec<&str> {
            (i..i + k)
                .map(|j| &texts[d][ws[d][j].0 as usize..ws[d][j].1 as usize])
                .collect()
        };
        let mut places = Vec::new();
        for (d, w) in ws.iter().enumerate() {
            for i in 0..(w.len() + 1).saturating_sub(k) {
                places.push((d, i));
            }
        }
        let mut out = vec![Vec::new(); texts.len()];
        for &(d, i) in &places {
            let me = seq(d, i);
            let hit = places.iter().any(|&(e, j)| {
                (e, j) != (d, i) && (all_copies || (e, j) < (d, i)) && seq(e, j) == me
            });
            if hit {
                out[d].push(i);
            }
        }
        out.iter()
            .enumerate()
            .map(|(d, starts)| {
                let mut mark = vec![false; ws[d].len()];
                for &s in starts {
                    mark[s..s + k].iter_mut().for_each(|m| *m = true);
                }
                // Windows that overlap or touch make one range.
                let mut r: Vec<(u32, u32)> = Vec::new();
                let mut i = 0;
                while i < mark.len() {
                    if !mark[i] {
                        i += 1;
                        continue;
                    }
                    let s = i;
                    while i < mark.len() && mark[i] {
                        i += 1;
                    }
                    r.push((ws[d][s].0, ws[d][i - 1].1));
                }
                r
            })
            .collect()
    }

    #[test]
    fn spans_equal_the_brute_force() {
        let mut rng = crate::base::rng::SplitMix64(11);
        for round in 0..60 {
            let vocab = 2 + rng.below(6);
            let docs: Vec<String> = (0..1 + rng.below(6))
                .map(|_| {
                    (0..rng.below(40))
                        .map(|_| format!("w{}", rng.below(vocab)))
                        .collect::<Vec<_>>()
                        .join(if rng.below(3) == 0 { ",  " } else { " " })
                })
                .collect();
            let texts: Vec<&str> = docs.iter().map(String::as_str).collect();
            let k = 1 + rng.below(5) as usize;
            for all in [false, true] {
                let got = find(&texts, k, all, 5, u64::MAX);
                assert_eq!(
                    got.removed,
                    brute(&texts, k, all),
                    "round {round}, k {k}, all {all}"
                );
                // In passes of a few windows each: the same.
                let passes = find(&texts, k, all, 5, 3 * WINDOW_BYTES);
                assert_eq!(passes, got, "round {round}: passes");
            }
        }
    }

    #[test]
    fn ranges_end_on_words_and_keep_the_first_copy() {
        let a = "Löwe sagt: ein zwei drei vier fünf. Ende";
        let b = "anders ein zwei drei vier fünf und mehr";
        let s = find(&[a, b], 5, false, 3, u64::MAX);
        assert!(s.removed[0].is_empty());
        let (x, y) = s.removed[1][0];
        assert_eq!(&b[x as usize..y as usize], "ein zwei drei vier fünf");
        assert_eq!(s.top[0].count, 2);
        let all = find(&[a, b], 5, true, 3, u64::MAX);
        let (x, y) = all.removed[0][0];
        assert_eq!(&a[x as usize..y as usize], "ein zwei drei vier fünf");
        // Shorter than k: nothing.
        assert_eq!(find(&[a, b], 6, true, 3, u64::MAX).marked, 0);
    }
}
