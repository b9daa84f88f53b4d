//! Shingle sets kept from fingerprinting for the pages verification will compare, so that the
//! default `dedup` does not read, inflate and extract most of them a second time.
//!
//! Which pages verification reads is known only once every page's band keys are: a page is
//! read when it shares a key with another. But a page that shares a key with one fingerprinted
//! *before* it is known to be a candidate as soon as its own keys are made. So, as the workers
//! fingerprint, every page's keys of a few bands ([`SEEN_BANDS`] of them, spread over the
//! signature) set two bits each in a bitmap the workers share; a page one of whose keys finds
//! its bits set already keeps its shingle set (sorted, without repeats: what verification
//! compares) under its text's content hash. A group of near-duplicates is then read again only
//! for its first page, or not at all where a later page has the same text (equal content
//! hashes are equal texts, so equal sets). Bits set by other keys only keep a set that is not read. Which
//! page of a group comes first depends on the workers' timing, but the sets do not: the lists
//! are the same whichever pages were kept here.
//!
//! Memory is bounded: the bitmap (a word for every 16 bytes of input, at most an eighth of the
//! budget) and the sets kept share a budget of bytes (a part of `--verify-memory`); once it is
//! spent, no more sets are kept, and the pages after are read again as they always were. The
//! bitmap is dropped when fingerprinting ends ([`EarlySets::finish`]); verification takes each
//! set ([`EarlySets::take`]), handed over as a view of where it lies, not copied.
//!
//! The sets are written one after another into chunks of [`CHUNK`] words, one chunk filled at
//! a time by each of [`ARENAS`] arenas (a worker writes to its own: rayon's thread index), not
//! one allocation a set: a million pages keep some 130 000 sets, whose allocations and frees
//! the allocator's bookkeeping made a measurable part of `dedup`'s own work. A chunk is freed
//! once every set in it has been taken and dropped.

use std::collections::hash_map::Entry;
use std::ops::Deref;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use foldhash::{HashMap, HashMapExt};

use crate::base::rng::mix64;

/// Bands whose keys say that a page has a candidate fingerprinted before it: on a web-shaped
/// crawl of 250 000 pages, 8 bands leave 9 100 texts of 44 700 to read again, all 40 would
/// leave 2 500 but cost five times the bits (and their cache misses) on every page.
pub const SEEN_BANDS: usize = 8;

/// Bytes a kept set is counted at beyond its shingles (the map's entry and the allocation).
const SET_OVERHEAD: u64 = 64;

/// Locks the sets are split over, so that workers seldom wait for each other.
const SHARDS: usize = 64;

/// Words of a chunk the sets are written into: 2 MiB. A set larger than a chunk gets one of
/// its own.
pub const CHUNK: usize = 1 << 18;

/// Chunks filled at once, each by the workers whose thread index it is modulo this.
pub const ARENAS: usize = 8;

/// The largest value a kept set holds: verification marks a whole text's part of a set with
/// `u64::MAX` (`verify::measure::WHOLE`), so a shingle of that hash is brought under it, as
/// verification does for the sets it reads.
pub const MAX_SHINGLE: u64 = u64::MAX - 1;

/// One arena's chunks.
#[derive(Debug, Default)]
struct Arena {
    /// Chunks closed (full, or at [`EarlySets::finish`]), shared with the sets' views.
    done: Vec<Arc<Vec<u64>>>,
    /// The chunk being filled (capacity [`CHUNK`], never grown); it will be `done[done.len()]`.
    open: Vec<u64>,
}

/// Where a kept set lies: its arena, the chunk there, the words in the chunk.
#[derive(Clone, Copy, Debug)]
struct Loc {
    arena: u32,
    chunk: u32,
    start: usize,
    len: usize,
}

/// A kept set, as verification reads it (sorted, without repeats, under `u64::MAX`): a view of
/// the chunk it was written into, which it keeps alive.
#[derive(Clone, Debug)]
pub struct Kept {
    chunk: Arc<Vec<u64>>,
    start: usize,
    len: usize,
}

impl Deref for Kept {
    type Target = [u64];

    fn deref(&self) -> &[u64] {
        &self.chunk[self.start..self.start + self.len]
    }
}

/// The sets kept for one fingerprinting run; shared by its workers, then by verification.
#[derive(Debug)]
pub struct EarlySets {
    /// Terms per shingle of the sets (the band keys' shingles; verification's `k` must match).
    k: usize,
    budget: u64,
    used: AtomicU64,
    /// Two bits of one word a key (a power of two of words), set by the first page with a key
    /// that lands there; emptied by [`EarlySets::finish`].
    seen: RwLock<Box<[AtomicU64]>>,
    sets: Vec<Mutex<HashMap<u128, Loc>>>,
    arenas: Vec<Mutex<Arena>>,
    kept: AtomicUsize,
    /// Pages that had a candidate fingerprinted before them but found the budget spent.
    refused: AtomicUsize,
    /// Whether the sets of pages read whole (main content under 20 words, or a sliver of the page) are kept:
    /// verification with own content compares those pages by sets of another shape.
    read_whole: bool,
}

impl EarlySets {
    /// An empty store of sets for shingles of `k` terms, holding at most `budget` bytes; its
    /// bitmap is made by [`EarlySets::prepare`].
    pub fn new(k: usize, budget: u64) -> EarlySets {
        EarlySets {
            k,
            budget,
            used: AtomicU64::new(0),
            seen: RwLock::new(Box::new([])),
            sets: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            arenas: (0..ARENAS).map(|_| Mutex::new(Arena::default())).collect(),
            kept: AtomicUsize::new(0),
            refused: AtomicUsize::new(0),
            read_whole: true,
        }
    }

    /// The same store, keeping the sets of pages read whole or not ([`EarlySets::keeps`]).
    pub fn keeping_read_whole(mut self, keep: bool) -> EarlySets {
        self.read_whole = keep;
        self
    }

    /// Whether a page is offered: every page, or only those not read whole.
    pub fn keeps(&self, read_whole: bool) -> bool {
        self.read_whole || !read_whole
    }

    /// Makes the bitmap for a crawl of `input_bytes`: a word for every 16 bytes of input (a
    /// page takes a few hundred bytes even compressed, so the 16 bits of its keys fill at most
    /// about 1/64 of it), at most an eighth of the budget, a power of two of words. A small
    /// crawl so gets a small bitmap, not one that costs its time and memory to clear.
    pub fn prepare(&self, input_bytes: u64) {
        let words = (input_bytes / 16).min(self.budget / 64).max(1);
        let words = 1u64 << (63 - words.leading_zeros());
        let mut bits = self.seen.write().unwrap_or_else(|e| e.into_inner());
        let before = 8 * bits.len() as u64;
        // Zeroed by the allocator (a fresh map for a large bitmap): its pages are cleared as
        // the workers first touch them, not by one thread before they start.
        *bits = bytemuck::allocation::zeroed_slice_box::<AtomicU64>(words as usize);
        self.used.fetch_add(8 * words, Ordering::Relaxed);
        self.used.fetch_sub(before, Ordering::Relaxed);
    }

    /// Terms per shingle of the sets kept.
    pub fn k(&self) -> usize {
        self.k
    }

    /// A page fingerprinted: `keys` its band keys (all bands), `content_hash` its text's,
    /// `shingles` its shingles of [`EarlySets::k`] terms (in any order, repeats allowed).
    /// Records its keys, and keeps its set if one of them was recorded before. Two pages of the
    /// same keys offered at the same moment may both be kept (each finds a key's bits set by
    /// the other): a set more than needed, never one fewer.
    pub fn offer(&self, keys: &[u64], content_hash: u128, shingles: &[u64]) {
        if keys.is_empty() {
            return;
        }
        let step = (keys.len() / SEEN_BANDS).max(1);
        let mut seen = false;
        {
            let bits = self.seen.read().unwrap_or_else(|e| e.into_inner());
            if !bits.is_empty() {
                let mask = bits.len() as u64 - 1;
                // Each key's word and its two bits, then every word read before any is
                // written: the reads are independent, so their cache misses overlap, where a
                // read-modify-write of one word waits for its line before the next is asked.
                let mut at = [0usize; SEEN_BANDS];
                let mut two = [0u64; SEEN_BANDS];
                let mut n = 0;
                for (band, &key) in keys.iter().step_by(step).take(SEEN_BANDS).enumerate() {
                    // The band in the key, so that equal keys of different bands are not
                    // taken for a shared one.
                    let h = mix64(key ^ (band as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                    // Two bits of one word (a blocked Bloom filter of two hashes): a key met
                    // before finds both set, another key both with the square of the fill.
                    at[n] = (h & mask) as usize;
                    two[n] = 1u64 << (h >> 52 & 63) | 1u64 << (h >> 58);
                    n += 1;
                }
                let mut had = [0u64; SEEN_BANDS];
                for (h, &a) in had.iter_mut().zip(&at[..n]) {
                    *h = bits[a].load(Ordering::Relaxed);
                }
                for ((&a, &t), &h) in at[..n].iter().zip(&two[..n]).zip(&had[..n]) {
                    // Bits set already need no write to their line.
                    if h & t == t || bits[a].fetch_or(t, Ordering::Relaxed) & t == t {
                        seen = true;
                    }
                }
            }
        }
        if !seen {
            return;
        }
        let shard = self.shard(content_hash);
        if lock(shard).contains_key(&content_hash) {
            return;
        }
        let bytes = 8 * shingles.len() as u64 + SET_OVERHEAD;
        if self.used.load(Ordering::Relaxed) + bytes > self.budget {
            self.refused.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let arena = rayon::current_thread_index().unwrap_or(0) % ARENAS;
        let loc = self.write(arena, shingles);
        let bytes = 8 * loc.len as u64 + SET_OVERHEAD;
        if let Entry::Vacant(e) = lock(shard).entry(content_hash) {
            e.insert(loc);
            self.used.fetch_add(bytes, Ordering::Relaxed);
            self.kept.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Writes `shingles` into `arena`'s open chunk (a chunk of their own if they would fill
    /// more than one) as a set: under `u64::MAX`, sorted, without repeats. Where another worker
    /// kept the same text at the same moment, the words written here are left unused.
    fn write(&self, arena: usize, shingles: &[u64]) -> Loc {
        let mut a = lock(&self.arenas[arena]);
        let a = &mut *a;
        if a.open.len() + shingles.len() > CHUNK && !a.open.is_empty() {
            let full = std::mem::take(&mut a.open);
            a.done.push(Arc::new(full));
        }
        let big = shingles.len() > CHUNK;
        if a.open.capacity() == 0 && !big {
            a.open = Vec::with_capacity(CHUNK);
        }
        let mut own = Vec::new();
        let to = if big { &mut own } else { &mut a.open };
        let start = to.len();
        to.extend(shingles.iter().map(|&s| s.min(MAX_SHINGLE)));
        let set = &mut to[start..];
        set.sort_unstable();
        let len = dedup_sorted(set);
        to.truncate(start + len);
        let chunk = a.done.len() as u32;
        if big {
            a.done.push(Arc::new(own));
        }
        Loc {
            arena: arena as u32,
            chunk,
            start,
            len,
        }
    }

    /// Fingerprinting is over: the bitmap is dropped (its bytes given back to the budget), and
    /// no page offered later is kept.
    pub fn finish(&self) {
        let mut bits = self.seen.write().unwrap_or_else(|e| e.into_inner());
        self.used
            .fetch_sub(8 * bits.len() as u64, Ordering::Relaxed);
        *bits = Box::new([]);
        // The open chunks closed: no set is written after this.
        for a in &self.arenas {
            let mut a = lock(a);
            if !a.open.is_empty() {
                let mut last = std::mem::take(&mut a.open);
                last.shrink_to_fit();
                a.done.push(Arc::new(last));
            }
        }
    }

    /// The set kept for a text of this content hash, if any, handed over as a view of its
    /// chunk (not copied): it is no longer held here, and its bytes are given back to the
    /// budget (its chunk is freed once the chunk's every set taken is dropped). Verification
    /// takes each text's set once; a text asked for again is read again from its shard.
    pub fn take(&self, content_hash: u128) -> Option<Kept> {
        let loc = lock(self.shard(content_hash)).remove(&content_hash)?;
        self.used
            .fetch_sub(8 * loc.len as u64 + SET_OVERHEAD, Ordering::Relaxed);
        let a = lock(&self.arenas[loc.arena as usize]);
        let (chunk, start) = match a.done.get(loc.chunk as usize) {
            Some(c) => (Arc::clone(c), loc.start),
            // Taken before fingerprinting finished: a copy of its words in the open chunk.
            None => (Arc::new(a.open[loc.start..loc.start + loc.len].to_vec()), 0),
        };
        Some(Kept {
            chunk,
            start,
            len: loc.len,
        })
    }

    /// The part of the map that holds the set of a text of this content hash.
    fn shard(&self, content_hash: u128) -> &Mutex<HashMap<u128, Loc>> {
        &self.sets[(content_hash >> 122) as usize % SHARDS]
    }

    /// Sets kept.
    pub fn kept(&self) -> usize {
        self.kept.load(Ordering::Relaxed)
    }

    /// Pages whose set was not kept because the budget was spent.
    pub fn refused(&self) -> usize {
        self.refused.load(Ordering::Relaxed)
    }

    /// Bytes held now (sets, and the bitmap until [`EarlySets::finish`]).
    pub fn bytes(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }
}

/// Moves the distinct values of sorted `s` to its front and returns how many there are.
fn dedup_sorted(s: &mut [u64]) -> usize {
    if s.is_empty() {
        return 0;
    }
    let mut n = 1;
    for i in 1..s.len() {
        if s[i] != s[n - 1] {
            s[n] = s[i];
            n += 1;
        }
    }
    n
}

/// A shard's lock; a worker that panicked while holding it left the map whole (every change
/// is one insertion), so its data is used as it is.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(base: u64) -> Vec<u64> {
        (0..40).map(|b| base * 1000 + b).collect()
    }

    #[test]
    fn a_page_keeps_its_set_only_when_a_key_was_seen_before() {
        let s = EarlySets::new(8, 1 << 20);
        s.prepare(u64::MAX);
        s.offer(&keys(1), 11, &[5, 3, 5, 1]);
        assert!(
            s.take(11).is_none(),
            "the first page of its keys is not kept"
        );
        // Shares one key of a seen band (band 0) with the first page.
        let mut k = keys(2);
        k[0] = keys(1)[0];
        s.offer(&k, 22, &[9, 7, 7]);
        assert_eq!(
            s.take(22).as_deref(),
            Some(&[7, 9][..]),
            "sorted, without repeats"
        );
        assert!(s.take(22).is_none(), "a set is handed over once");
        // A key equal to another band's key is not a shared key.
        let mut k = keys(3);
        k[5] = keys(1)[0];
        s.offer(&k, 33, &[1]);
        assert!(s.take(33).is_none());
        // Nor is a key of a band that is not looked at (band 1).
        let mut k = keys(4);
        k[1] = keys(1)[1];
        s.offer(&k, 44, &[1]);
        assert!(s.take(44).is_none());
        assert_eq!(s.kept(), 1);
    }

    #[test]
    fn the_budget_bounds_what_is_kept_and_finish_drops_the_bitmap() {
        let s = EarlySets::new(8, 8192);
        s.prepare(1 << 20);
        assert_eq!(s.bytes(), 1024, "an eighth of the budget");
        let big: Vec<u64> = (0..800).collect();
        s.offer(&keys(1), 1, &big);
        s.offer(&keys(1), 2, &big);
        assert_eq!(s.kept(), 1);
        assert_eq!(s.bytes(), 1024 + 8 * 800 + SET_OVERHEAD);
        s.offer(&keys(1), 3, &big);
        assert_eq!(s.kept(), 1, "over the budget");
        assert_eq!(s.refused(), 1);
        s.finish();
        assert_eq!(s.bytes(), 8 * 800 + SET_OVERHEAD);
        // The bitmap is gone: no page is known to have had a key before it.
        s.offer(&keys(1), 4, &[1]);
        assert!(s.take(4).is_none());
        assert!(s.take(3).is_none());
        assert_eq!(s.take(2).as_deref(), Some(&big[..]));
        assert_eq!(s.bytes(), 0, "a set taken is no longer held");
    }

    /// Sets written into chunks read back as the sets they are (sorted, without repeats, under
    /// `u64::MAX`): across chunk boundaries, a set larger than a chunk, sets offered by many
    /// workers at once, taken before and after fingerprinting finished.
    #[test]
    fn sets_in_chunks_are_the_sets_offered() {
        let s = EarlySets::new(8, 1 << 32);
        s.prepare(1 << 20);
        let mut rng = crate::base::rng::SplitMix64(7);
        let sizes: Vec<usize> = (0..400)
            .map(|i| match i {
                17 => CHUNK + 5,
                18 => CHUNK,
                _ => (rng.next_u64() % 3000) as usize,
            })
            .collect();
        let sets: Vec<Vec<u64>> = sizes
            .iter()
            .map(|&n| {
                let mut v: Vec<u64> = (0..n).map(|_| rng.next_u64() % 5000).collect();
                if n > 3 {
                    v[1] = u64::MAX;
                    v[2] = u64::MAX - 1;
                }
                v
            })
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(ARENAS + 3)
            .build()
            .expect("a pool");
        let shared = keys(9);
        // The first page alone: pages offered at the same moment may each find the bits of
        // one key set by the other (each then keeps its set), so which are kept when all race
        // is not fixed, only that every later page is.
        s.offer(&shared, 1000, &sets[0]);
        pool.install(|| {
            use rayon::prelude::*;
            sets.par_iter().enumerate().skip(1).for_each(|(i, set)| {
                s.offer(&shared, 1000 + i as u128, set);
            });
        });
        // The first offer of the shared keys set their bits; it was not kept.
        assert_eq!(s.kept(), sets.len() - 1);
        let before: Vec<Option<Kept>> = (0..3).map(|i| s.take(1000 + i as u128)).collect();
        s.finish();
        for (i, set) in sets.iter().enumerate() {
            let got = match i {
                0..=2 => before[i].clone(),
                _ => s.take(1000 + i as u128),
            };
            let Some(got) = got else {
                continue;
            };
            let mut want: Vec<u64> = set.iter().map(|&x| x.min(MAX_SHINGLE)).collect();
            want.sort_unstable();
            want.dedup();
            assert_eq!(&*got, &want[..], "set {i} of {} shingles", set.len());
        }
        assert_eq!(s.bytes(), 0, "every set taken");
    }

    #[test]
    fn a_small_crawl_gets_a_small_bitmap() {
        let s = EarlySets::new(8, 1 << 30);
        s.prepare(100_000);
        assert_eq!(
            s.bytes(),
            8 * 4096,
            "a word for every 16 bytes, a power of two"
        );
        s.prepare(1 << 40);
        assert_eq!(s.bytes(), (1 << 30) / 8, "at most an eighth of the budget");
        // Before it is made, no page is kept.
        let t = EarlySets::new(8, 1 << 20);
        t.offer(&keys(1), 1, &[1]);
        t.offer(&keys(1), 2, &[1]);
        assert_eq!(t.kept(), 0);
    }
}
