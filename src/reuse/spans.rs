//! Repeated spans below the paragraph (exact-substring dedup): every run of at least `k`
//! words that occurs more than once among the documents, each occurrence but the first (in
//! document order, then position) marked for removal, or every occurrence with `all_copies`
//! (Lee et al., 2022).
//!
//! Words are the Unicode word segments of a document's normalised text
//! ([`crate::text::tokenize::for_each_word`]); two spans are the same when their words are,
//! byte for byte. A span of `n >= k` words occurs again exactly when each of its `n - k + 1`
//! windows of `k` words does, so the windows are what is found. Each window is hashed (a
//! rolling polynomial over 64-bit word hashes), the windows are sorted by hash, and each hash
//! class is checked against the text: every window of a class is compared, word by word, with
//! the class's first window (a window whose left neighbour matched its first window's left
//! neighbour compares one word), and the windows that differ from it are split into classes of
//! equal words. A hash collision therefore never marks a window. A document's marked windows,
//! merged, are its removed byte ranges: each starts at a word's first byte and ends at a word's
//! last, so no range splits a word or a UTF-8 character.
//!
//! Memory is bounded by `memory`, plus a cost per document. The texts are read in blocks
//! ([`Texts`]: a [`Spool`] on disk, at the job's scale) as often as the passes need. As they
//! are first read, every window's hash is noted in a table of two bits a slot ([`Seen`]: seen
//! once, seen twice; half of `memory` at most, a slot for every two bytes of text at most).
//! The passes then take only the windows whose slot was seen twice (every repeated window is
//! among them, with the few that share a slot by chance), each pass the windows of one range
//! of hashes, as many passes as keep a pass within the other half ([`WINDOW_BYTES`] a window).
//! The cost per document is the spool's place (16 bytes), its block's entry (4), and its list
//! of removed ranges (24, and 8 a range).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use crate::base::spool::Spool;
use crate::text::features::fmix64 as mix;
use crate::text::tokenize::for_each_word;
use crate::Result;

/// A document's words as byte ranges of its text.
pub fn words(text: &str) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    words_into(text, &mut out);
    out
}

/// The byte ranges of the word ranges `r` (first and last word, inclusive) of `text`, from
/// one walk over its words: what [`words`] would give, without holding a place for every
/// word.
fn word_bytes(text: &str, r: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut wanted: Vec<u32> = r.iter().flat_map(|&(a, b)| [a, b]).collect();
    wanted.sort_unstable();
    wanted.dedup();
    let mut at = vec![(0u32, 0u32); wanted.len()];
    let base = text.as_ptr() as usize;
    let (mut i, mut next) = (0u32, 0usize);
    for_each_word(text, false, |w| {
        if next < wanted.len() && wanted[next] == i {
            let s = w.as_ptr() as usize - base;
            at[next] = (s as u32, (s + w.len()) as u32);
            next += 1;
        }
        i += 1;
    });
    let find = |x: u32| at[wanted.binary_search(&x).expect("a range's own word")];
    r.iter().map(|&(a, b)| (find(a).0, find(b).1)).collect()
}

fn words_into(text: &str, out: &mut Vec<(u32, u32)>) {
    let base = text.as_ptr() as usize;
    out.clear();
    for_each_word(text, false, |w| {
        let s = w.as_ptr() as usize - base;
        out.push((s as u32, (s + w.len()) as u32));
    });
}

/// Where the texts come from: documents numbered from 0, read in blocks (each pass reads
/// them all) or one at a time (the check against the text).
pub trait Texts: Sync {
    /// Number of documents.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes of text in all.
    fn bytes(&self) -> u64;
    /// Number of blocks.
    fn blocks(&self) -> usize;
    /// Calls `f(doc, text)` for each document of block `b` (read into `buf` if need be).
    fn block(&self, b: usize, buf: &mut Vec<u8>, f: &mut dyn FnMut(u32, &str)) -> Result<()>;
    /// Document `doc`'s text (read into `buf` if need be).
    fn get<'a>(&'a self, doc: u32, buf: &'a mut Vec<u8>) -> Result<&'a str>;
}

/// Documents a block of texts held in memory has.
const MEMORY_BLOCK: usize = 64;

impl Texts for [&str] {
    fn len(&self) -> usize {
        <[&str]>::len(self)
    }
    fn bytes(&self) -> u64 {
        self.iter().map(|t| t.len() as u64).sum()
    }
    fn blocks(&self) -> usize {
        <[&str]>::len(self).div_ceil(MEMORY_BLOCK)
    }
    fn block(&self, b: usize, _: &mut Vec<u8>, f: &mut dyn FnMut(u32, &str)) -> Result<()> {
        let start = b * MEMORY_BLOCK;
        for (i, t) in self[start..(start + MEMORY_BLOCK).min(self.len())]
            .iter()
            .enumerate()
        {
            f((start + i) as u32, t);
        }
        Ok(())
    }
    fn get<'a>(&'a self, doc: u32, _: &'a mut Vec<u8>) -> Result<&'a str> {
        Ok(self[doc as usize])
    }
}

impl Texts for Spool {
    fn len(&self) -> usize {
        Spool::len(self)
    }
    fn bytes(&self) -> u64 {
        Spool::bytes(self)
    }
    fn blocks(&self) -> usize {
        Spool::blocks(self)
    }
    fn block(&self, b: usize, buf: &mut Vec<u8>, f: &mut dyn FnMut(u32, &str)) -> Result<()> {
        Spool::block(self, b, buf, f)
    }
    fn get<'a>(&'a self, doc: u32, buf: &'a mut Vec<u8>) -> Result<&'a str> {
        Spool::get(self, doc, buf)
    }
}

const B: u64 = 0x9E37_79B9_7F4A_7C15;

// The polynomial's high bits depend on every word, its low bits on the words' low bits only;
// mixed by MurmurHash3's finaliser (`mix`), every bit depends on every word.

/// Calls `f(position, hash)` for every window of `k` words of `text`, reading its words once:
/// `ring` holds the last `k` words' hashes only, so a document of millions of words costs
/// `k` hashes, not one a word.
fn for_each_window(text: &str, k: usize, ring: &mut Vec<u64>, mut f: impl FnMut(u32, u64)) {
    if k == 0 {
        return;
    }
    ring.clear();
    ring.resize(k, 0);
    let p = B.wrapping_pow(k as u32);
    let mut a = 0u64;
    let mut i = 0usize;
    for_each_word(text, false, |w| {
        let h = xxhash_rust::xxh3::xxh3_64(w.as_bytes());
        a = a.wrapping_mul(B).wrapping_add(h);
        // The slot of word i holds word i - k until now.
        let slot = &mut ring[i % k];
        if i >= k {
            a = a.wrapping_sub(slot.wrapping_mul(p));
        }
        *slot = h;
        if i + 1 >= k {
            f((i + 1 - k) as u32, mix(a));
        }
        i += 1;
    });
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
    /// Passes over the texts.
    pub passes: u32,
}

/// Bytes a window takes at most while its pass holds it: its hash and place (16, which its
/// check, its class and its mark take in turn, in place), its check's outcome (1), and room
/// for the passes' unevenness.
pub const WINDOW_BYTES: u64 = 20;

/// A window: its hash and place (document in the high half, word in the low).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Pod, Zeroable)]
struct Window {
    hash: u64,
    place: u64,
}

/// A check of a window against its class's first window: `(document, first's document)` and
/// `(word, first's word)`, so that sorted, a document's checks come together, grouped by the
/// document they compare with, in word order.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Pod, Zeroable)]
struct Check {
    docs: u64,
    words: u64,
}

fn place(doc: u32, word: u32) -> u64 {
    (u64::from(doc) << 32) | u64::from(word)
}

fn split(x: u64) -> (u32, u32) {
    ((x >> 32) as u32, x as u32)
}

impl Check {
    fn of(w: u64, first: u64) -> Check {
        let ((d, i), (e, j)) = (split(w), split(first));
        Check {
            docs: place(d, e),
            words: place(i, j),
        }
    }
    fn window(&self) -> u64 {
        place((self.docs >> 32) as u32, (self.words >> 32) as u32)
    }
    fn first(&self) -> u64 {
        place(self.docs as u32, self.words as u32)
    }
}

/// Which windows' hashes were seen once and which twice or more: two bits a slot, the pair of
/// a slot's 64 in one cache line. Every window seen twice (or more) has its slot seen twice,
/// so the windows whose slot was seen twice hold every repeated window, and a few others (a
/// slot shared by chance). Filled while the texts are first read ([`Seen::note`]), in
/// parallel.
pub struct Seen {
    words: Vec<AtomicU64>,
    shift: u32,
    k: usize,
    /// Hashes are cut to these bits (tests force collisions so).
    mask: u64,
    windows: AtomicU64,
    again: AtomicU64,
}

impl Seen {
    /// A table for windows of `k` words of texts of `bytes` in all, within `memory`: half of
    /// it at most, and a slot for every two bytes of text at most (a word takes a byte and a
    /// space at least).
    pub fn new(k: usize, bytes: u64, memory: u64) -> Seen {
        Self::sized(k, (memory / 2).min(bytes / 2).max(1 << 12), u64::MAX)
    }

    fn sized(k: usize, bytes: u64, mask: u64) -> Seen {
        let pairs = (bytes / 16).max(1);
        let pairs = 1u64 << (63 - pairs.leading_zeros());
        Seen {
            words: (0..2 * pairs).map(|_| AtomicU64::new(0)).collect(),
            shift: 64 - pairs.trailing_zeros(),
            k,
            mask,
            windows: AtomicU64::new(0),
            again: AtomicU64::new(0),
        }
    }

    /// Bytes the table takes.
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    fn slot(&self, h: u64) -> (usize, u64) {
        let x = mix(h ^ 0x2545_F491_4F6C_DD1D);
        let pair = if self.shift == 64 { 0 } else { x >> self.shift };
        (2 * pair as usize, 1 << (x & 63))
    }

    /// Notes `h`; whether its slot was seen before.
    fn insert(&self, h: u64) -> bool {
        let (i, bit) = self.slot(h);
        if self.words[i].fetch_or(bit, Ordering::Relaxed) & bit == 0 {
            return false;
        }
        self.words[i + 1].fetch_or(bit, Ordering::Relaxed);
        true
    }

    /// Slots seen twice or more.
    fn slots_twice(&self) -> u64 {
        self.words
            .par_iter()
            .skip(1)
            .step_by(2)
            .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
            .sum()
    }

    fn twice(&self, h: u64) -> bool {
        let (i, bit) = self.slot(h);
        self.words[i + 1].load(Ordering::Relaxed) & bit != 0
    }

    /// Notes every window of `text` (`hashes` a buffer for the last words' hashes).
    pub fn note(&self, text: &str, hashes: &mut Vec<u64>) {
        let (mut n, mut again) = (0, 0);
        for_each_window(text, self.k, hashes, |_, h| {
            n += 1;
            again += u64::from(self.insert(h & self.mask));
        });
        self.windows.fetch_add(n, Ordering::Relaxed);
        self.again.fetch_add(again, Ordering::Relaxed);
    }
}

/// The words' hashes of `text`, in `hashes`.
/// Windows a worker gathers before it adds them to the pass's.
const BATCH: usize = 1 << 13;

/// One pass: the windows whose hash is in `range` and whose slot `seen` saw twice.
fn pass<T: Texts + ?Sized>(
    texts: &T,
    seen: &Seen,
    range: (u64, u64),
    expect: usize,
) -> Result<Vec<Window>> {
    // Room for the windows expected (a little more for the ranges' unevenness), so that the
    // list is not copied as it grows.
    let out = Mutex::new(Vec::with_capacity(expect + expect / 16 + BATCH));
    let flush = |batch: &mut Vec<Window>| {
        out.lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(batch);
        batch.clear();
    };
    (0..texts.blocks()).into_par_iter().try_for_each_init(
        || (Vec::new(), Vec::new(), Vec::with_capacity(BATCH)),
        |(buf, hashes, batch): &mut (Vec<u8>, Vec<u64>, Vec<Window>), b| {
            texts.block(b, buf, &mut |doc, text| {
                for_each_window(text, seen.k, hashes, |i, h| {
                    let h = h & seen.mask;
                    if (range.0..=range.1).contains(&h) && seen.twice(h) {
                        batch.push(Window {
                            hash: h,
                            place: place(doc, i),
                        });
                        if batch.len() == BATCH {
                            flush(batch);
                        }
                    }
                });
            })?;
            flush(batch);
            // A block that held a very large document leaves its buffer to the allocator.
            if buf.capacity() > CACHED {
                *buf = Vec::new();
            }
            Ok(())
        },
    )?;
    Ok(out.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// A document's text and words, for the checks.
struct Doc {
    doc: u32,
    text: Vec<u8>,
    words: Vec<(u32, u32)>,
}

impl Doc {
    fn word(&self, i: u32) -> &[u8] {
        let (s, e) = self.words[i as usize];
        &self.text[s as usize..e as usize]
    }
}

/// Bytes of documents a worker keeps at hand (the first windows of a crawl's boilerplate sit
/// in a few): their texts and words.
const CACHED: usize = 8 << 20;

/// Reads document `doc`.
fn load<T: Texts + ?Sized>(texts: &T, doc: u32) -> Result<Doc> {
    let mut buf = Vec::new();
    let t = texts.get(doc, &mut buf)?;
    let mut words = Vec::new();
    words_into(t, &mut words);
    Ok(Doc {
        doc,
        text: t.as_bytes().to_vec(),
        words,
    })
}

/// Document `doc` from `cache`, read on a miss (the least recently used one goes).
fn fetch<'c, T: Texts + ?Sized>(texts: &T, cache: &'c mut Vec<Doc>, doc: u32) -> Result<&'c Doc> {
    if let Some(i) = cache.iter().position(|d| d.doc == doc) {
        let d = cache.remove(i);
        cache.push(d);
    } else {
        let d = load(texts, doc)?;
        let size = |d: &Doc| d.text.len() + 8 * d.words.len();
        let mut held: usize = cache.iter().map(size).sum::<usize>() + size(&d);
        while held > CACHED && !cache.is_empty() {
            held -= size(&cache.remove(0));
        }
        cache.push(d);
    }
    Ok(cache.last().expect("just pushed"))
}

/// Whether window `a` (of `da`) and window `b` (of `db`) have the same `k` words.
fn same(da: &Doc, a: u32, db: &Doc, b: u32, k: u32) -> bool {
    (0..k).all(|j| da.word(a + j) == db.word(b + j))
}

/// Checks each window of `checks` (sorted) against its class's first: whether their words
/// are the same.
fn check<T: Texts + ?Sized>(texts: &T, checks: &[Check], k: u32) -> Result<Vec<bool>> {
    let parts: Vec<Vec<bool>> = checks
        .par_chunk_by(|x, y| x.docs >> 32 == y.docs >> 32)
        .map_init(Vec::new, |cache: &mut Vec<Doc>, run| {
            let mut out = Vec::with_capacity(run.len());
            let doc = (run[0].docs >> 32) as u32;
            let me = load(texts, doc)?;
            for with in run.chunk_by(|x, y| x.docs == y.docs) {
                let e = with[0].docs as u32;
                let other = if e == doc {
                    &me
                } else {
                    fetch(texts, cache, e)?
                };
                let mut last: Option<(u32, u32)> = None;
                for c in with {
                    let (i, j) = split(c.words);
                    let ok = match last {
                        // The windows one word to the left are the same: one word more.
                        Some((pi, pj)) if pi + 1 == i && pj + 1 == j => {
                            me.word(i + k - 1) == other.word(j + k - 1)
                        }
                        _ => same(&me, i, other, j, k),
                    };
                    last = ok.then_some((i, j));
                    out.push(ok);
                }
            }
            Ok(out)
        })
        .collect::<Result<_>>()?;
    Ok(parts.concat())
}

/// Sorts a pass's windows into classes and checks them against the text; the windows marked
/// go to `ranges` (as [`add_marks`]), the classes' sizes (with their first window) to
/// `classes` (the `top` largest kept). Returns the number of windows marked. Beyond the
/// windows, each check takes a byte and nothing else but the (rare) windows that differ from
/// their class's first.
fn sort_and_check<T: Texts + ?Sized>(
    texts: &T,
    mut windows: Vec<Window>,
    k: u32,
    all_copies: bool,
    ranges: &mut [Vec<(u32, u32)>],
    classes: &mut Vec<(u64, u64)>,
    top: usize,
) -> Result<u64> {
    windows.par_sort_unstable();
    // Each window of a class of two or more becomes a check against the class's first, in
    // place (a check takes no more than the window it replaces, and is written no further on
    // than the window it comes from).
    let mut n = 0;
    let mut start = 0;
    while start < windows.len() {
        let hash = windows[start].hash;
        let mut end = start + 1;
        while end < windows.len() && windows[end].hash == hash {
            end += 1;
        }
        let first = windows[start].place;
        for r in start + 1..end {
            let c = Check::of(windows[r].place, first);
            windows[n] = Window {
                hash: c.docs,
                place: c.words,
            };
            n += 1;
        }
        start = end;
    }
    windows.truncate(n);
    let checks: &mut [Check] = bytemuck::cast_slice_mut(&mut windows);
    checks.par_sort_unstable();
    let ok = check(texts, checks, k)?;
    // The checks that hold become (first, window) pairs, in place; the others are set aside.
    let mut differ: Vec<(u64, u64)> = Vec::new();
    let mut held = 0;
    for i in 0..checks.len() {
        let (w, f) = (checks[i].window(), checks[i].first());
        if ok[i] {
            checks[held] = Check { docs: f, words: w };
            held += 1;
        } else {
            differ.push((f, w));
        }
    }
    drop(ok);
    let pairs = &mut checks[..held];
    pairs.par_sort_unstable();
    // Each class's size: its first window and the windows found the same.
    let mut firsts = 0;
    for run in pairs.chunk_by(|a, b| a.docs == b.docs) {
        add_class(classes, (run.len() as u64 + 1, run[0].docs), top);
        firsts += 1;
    }
    // The marked windows, in place: the pairs' windows, then (every copy marked) each class's
    // first.
    let places: &mut [u64] = bytemuck::cast_slice_mut(pairs);
    let mut last = u64::MAX;
    let mut at = 2 * held;
    for i in (0..held).rev() {
        let (f, w) = (places[2 * i], places[2 * i + 1]);
        if all_copies && f != last {
            at -= 1;
            places[at] = f;
            last = f;
        }
        at -= 1;
        places[at] = w;
    }
    let mut marked: Vec<u64> = Vec::new();
    let places = &mut places[at..];
    debug_assert_eq!(places.len(), held + if all_copies { firsts } else { 0 });
    // Windows that differ from their class's first (a hash collision): split by their words.
    differ.sort_unstable();
    let mut cache = Vec::new();
    for run in differ.chunk_by(|a, b| a.0 == b.0) {
        let mut left: Vec<u64> = run.iter().map(|x| x.1).collect();
        while !left.is_empty() {
            let (d, i) = split(left[0]);
            let pivot = load(texts, d)?;
            let mut class = Vec::new();
            let mut rest = Vec::new();
            for &w in &left {
                let (e, j) = split(w);
                let other = fetch(texts, &mut cache, e)?;
                if same(&pivot, i, other, j, k) {
                    class.push(w);
                } else {
                    rest.push(w);
                }
            }
            if class.len() > 1 {
                add_class(classes, (class.len() as u64, class[0]), top);
                marked.extend_from_slice(&class[usize::from(!all_copies)..]);
            }
            left = rest;
        }
    }
    drop(differ);
    places.par_sort_unstable();
    marked.sort_unstable();
    let n = (places.len() + marked.len()) as u64;
    add_marks(ranges, places, k);
    add_marks(ranges, &marked, k);
    Ok(n)
}

/// Adds class `c` (size, first window) to `classes`, which keeps the `top` largest (by size,
/// then first place) once it grows past twice that.
fn add_class(classes: &mut Vec<(u64, u64)>, c: (u64, u64), top: usize) {
    classes.push(c);
    if classes.len() > 2 * top + 64 {
        keep_top(classes, top);
    }
}

/// Adds the marked windows `marked` (sorted places) to the documents' word ranges `ranges`
/// (inclusive, ascending; windows that overlap or touch make one range).
fn add_marks(ranges: &mut [Vec<(u32, u32)>], marked: &[u64], k: u32) {
    for run in marked.chunk_by(|a, b| a >> 32 == b >> 32) {
        let doc = (run[0] >> 32) as usize;
        let mut new: Vec<(u32, u32)> = Vec::new();
        for &m in run {
            let s = m as u32;
            push_range(&mut new, (s, s + k - 1));
        }
        let old = std::mem::take(&mut ranges[doc]);
        let mut merged = Vec::with_capacity(old.len() + new.len());
        let (mut a, mut b) = (old.into_iter().peekable(), new.into_iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x <= y => a.next(),
                (Some(_), Some(_)) | (None, Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, None) => break,
            };
            push_range(&mut merged, next.expect("peeked"));
        }
        ranges[doc] = merged;
    }
}

/// Appends `r` to ascending ranges `v`, merged with the last when they overlap or touch.
fn push_range(v: &mut Vec<(u32, u32)>, r: (u32, u32)) {
    match v.last_mut() {
        Some(last) if r.0 <= last.1 + 1 => last.1 = last.1.max(r.1),
        _ => v.push(r),
    }
}

/// The repeated spans of at least `k` words among `texts` (in document order): see the
/// module's notes. `top` bounds the most repeated windows reported; `memory` bounds the
/// table of seen hashes and the windows held at once, in bytes. The result does not depend on
/// `memory`.
pub fn find<T: Texts + ?Sized>(
    texts: &T,
    k: usize,
    all_copies: bool,
    top: usize,
    memory: u64,
) -> Result<Spans> {
    let seen = Seen::new(k, texts.bytes(), memory);
    note_all(texts, &seen)?;
    find_seen(texts, seen, all_copies, top, memory, &|_, _, _| ())
}

/// Notes every window of `texts` in `seen` (a pass over the texts).
fn note_all<T: Texts + ?Sized>(texts: &T, seen: &Seen) -> Result<()> {
    (0..texts.blocks()).into_par_iter().try_for_each_init(
        || (Vec::new(), Vec::new()),
        |(buf, hashes): &mut (Vec<u8>, Vec<u64>), b| {
            texts.block(b, buf, &mut |_, text| seen.note(text, hashes))
        },
    )
}

/// A pass's start, for progress: its number (from 1), the passes in all, the windows it takes
/// (about).
pub type Progress<'a> = &'a (dyn Fn(u64, u64, u64) + Sync);

/// [`find`] with the windows of `texts` already noted in `seen` (as the texts were read,
/// say); `memory` as [`find`]'s, the table included (freed after the last pass). `progress`
/// hears of each pass.
pub fn find_seen<T: Texts + ?Sized>(
    texts: &T,
    seen: Seen,
    all_copies: bool,
    top: usize,
    memory: u64,
    progress: Progress<'_>,
) -> Result<Spans> {
    let k = seen.k as u32;
    let mut ranges: Vec<Vec<(u32, u32)>> = vec![Vec::new(); texts.len()];
    let mut classes: Vec<(u64, u64)> = Vec::new();
    let mut marked = 0u64;
    let windows = seen.windows.load(Ordering::Relaxed);
    let again = seen.again.load(Ordering::Relaxed);
    // The windows taken: each seen in a slot seen before, or the first in a slot seen twice.
    let taken = again + seen.slots_twice();
    let cap = (memory.saturating_sub(seen.bytes()) / WINDOW_BYTES).max(1);
    let passes = taken.div_ceil(cap).max(1);
    for r in 0..passes {
        progress(r + 1, passes, taken / passes);
        let lo = ((u128::from(r) << 64) / u128::from(passes)) as u64;
        let hi = ((u128::from(r + 1) << 64) / u128::from(passes)).saturating_sub(1) as u64;
        let got = pass(texts, &seen, (lo, hi), (taken / passes) as usize)?;
        marked += sort_and_check(texts, got, k, all_copies, &mut ranges, &mut classes, top)?;
    }
    drop(seen);
    keep_top(&mut classes, top);
    // Word ranges to byte ranges, each document read once more (its words walked, not held).
    let removed = ranges
        .into_par_iter()
        .enumerate()
        .map_init(Vec::new, |buf, (d, r)| -> Result<Vec<(u32, u32)>> {
            if r.is_empty() {
                return Ok(r);
            }
            let bytes = word_bytes(texts.get(d as u32, buf)?, &r);
            if buf.capacity() > CACHED {
                *buf = Vec::new();
            }
            Ok(bytes)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Spans {
        removed,
        windows,
        marked,
        top: classes
            .into_iter()
            .map(|(count, p)| {
                let (doc, word) = split(p);
                Repeated { count, doc, word }
            })
            .collect(),
        passes: passes as u32 + 1,
    })
}

/// [`find`] with the windows' hashes cut to the bits of `mask` and a table of `table` bytes
/// (tests force collisions and shared slots so).
#[cfg(test)]
fn find_masked<T: Texts + ?Sized>(
    texts: &T,
    k: usize,
    all_copies: bool,
    top: usize,
    memory: u64,
    table: u64,
    mask: u64,
) -> Result<Spans> {
    let seen = Seen::sized(k, table, mask);
    note_all(texts, &seen)?;
    find_seen(texts, seen, all_copies, top, memory, &|_, _, _| ())
}

/// Keeps the `top` largest classes (by size, then first place).
fn keep_top(classes: &mut Vec<(u64, u64)>, top: usize) {
    let order = |a: &(u64, u64), b: &(u64, u64)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
    if classes.len() > top {
        classes.select_nth_unstable_by(top, order);
        classes.truncate(top);
    }
    classes.sort_unstable_by(order);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streaming windows and byte ranges equal the ones from every word held: the hashes
    /// of the polynomial over all the words' hashes, and the words' own places.
    #[test]
    fn streaming_windows_and_ranges_equal_the_held_words() {
        let mut rng = crate::base::rng::SplitMix64(13);
        let mut ring = Vec::new();
        for round in 0..200 {
            let n = rng.below(40) as usize;
            let text: String = (0..n)
                .map(|_| format!("w{} ", rng.below(6)))
                .collect::<String>()
                + if round % 3 == 0 { "  , tail" } else { "" };
            let k = 1 + rng.below(6) as usize;
            let hashes: Vec<u64> = words(&text)
                .iter()
                .map(|&(a, b)| xxhash_rust::xxh3::xxh3_64(&text.as_bytes()[a as usize..b as usize]))
                .collect();
            let mut want = Vec::new();
            if hashes.len() >= k {
                let p = B.wrapping_pow(k as u32);
                let mut a = 0u64;
                for (i, &h) in hashes.iter().enumerate() {
                    a = a.wrapping_mul(B).wrapping_add(h);
                    if i >= k {
                        a = a.wrapping_sub(hashes[i - k].wrapping_mul(p));
                    }
                    if i + 1 >= k {
                        want.push(((i + 1 - k) as u32, mix(a)));
                    }
                }
            }
            let mut got = Vec::new();
            for_each_window(&text, k, &mut ring, |i, h| got.push((i, h)));
            assert_eq!(got, want, "round {round}");
            let w = words(&text);
            if w.is_empty() {
                continue;
            }
            let r: Vec<(u32, u32)> = (0..3)
                .map(|_| {
                    let a = rng.below(w.len() as u64) as u32;
                    (a, a + rng.below(w.len() as u64 - u64::from(a)) as u32)
                })
                .collect();
            let held: Vec<(u32, u32)> = r
                .iter()
                .map(|&(a, b)| (w[a as usize].0, w[b as usize].1))
                .collect();
            assert_eq!(word_bytes(&text, &r), held, "round {round}");
        }
    }

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
                let got = find(&texts[..], k, all, 5, u64::MAX).unwrap();
                assert_eq!(
                    got.removed,
                    brute(&texts, k, all),
                    "round {round}, k {k}, all {all}"
                );
                assert_eq!(got.passes, 2, "the table's pass, then one");
                // Passes of a window or two each: the same.
                let mut passes = find(&texts[..], k, all, 5, 6 * WINDOW_BYTES).unwrap();
                if got.marked > 0 {
                    assert!(passes.passes > 2, "round {round}: one pass");
                }
                passes.passes = 2;
                assert_eq!(passes, got, "round {round}: passes");
                // One slot for every hash: every window is taken.
                let mut one = find_masked(&texts[..], k, all, 5, u64::MAX, 16, u64::MAX).unwrap();
                one.passes = 2;
                assert_eq!(one, got, "round {round}: one slot");
                // Hashes cut to two bits: collisions everywhere, split by the words.
                let mut cut = find_masked(&texts[..], k, all, 5, u64::MAX, 1 << 12, 3).unwrap();
                cut.passes = 2;
                assert_eq!(cut, got, "round {round}: collisions");
                let mut both = find_masked(&texts[..], k, all, 5, 6 * WINDOW_BYTES, 16, 3).unwrap();
                both.passes = 2;
                assert_eq!(both, got, "round {round}: collisions in passes");
            }
        }
    }

    #[test]
    fn ranges_end_on_words_and_keep_the_first_copy() {
        let a = "Löwe sagt: ein zwei drei vier fünf. Ende";
        let b = "anders ein zwei drei vier fünf und mehr";
        let s = find(&[a, b][..], 5, false, 3, u64::MAX).unwrap();
        assert!(s.removed[0].is_empty());
        let (x, y) = s.removed[1][0];
        assert_eq!(&b[x as usize..y as usize], "ein zwei drei vier fünf");
        assert_eq!(s.top[0].count, 2);
        let all = find(&[a, b][..], 5, true, 3, u64::MAX).unwrap();
        let (x, y) = all.removed[0][0];
        assert_eq!(&a[x as usize..y as usize], "ein zwei drei vier fünf");
        // Shorter than k: nothing.
        assert_eq!(find(&[a, b][..], 6, true, 3, u64::MAX).unwrap().marked, 0);
    }
}
