//! A page's own content: what it does not share with its whole site.
//!
//! A site repeats blocks on its pages: menus, footers, sidebars, cookie notices, and sections
//! shown on every page of a kind (a trait's provided methods on the page of every type that
//! implements it, an author's biography under every post). Main-content extraction drops
//! most of the frame but cannot tell a repeated section inside the main region from the page's
//! own text, page by page; counting the blocks over the whole crawl can. A block (a line of
//! the page's text, [`crate::text::blocks`]) is the site's when the pages of its host that
//! carry it are about at least [`threshold`] different things — pages with distinct titles —
//! for the host's number of pages: at least [`MIN_REPEAT`], growing as the square root of the
//! host's size (a section on 1 % of a 50 000-page site is the site's; a paragraph on 3 of 40
//! pages is not). Copies of one page share their title, so a copied text is never made the
//! site's by its own copies, however many.
//!
//! The counts run over every store of the run (with `--against`, the older crawl's pages
//! count too), in passes over ranges of the (host, block) key that each fit the memory
//! budget: a sort and a count of (key, title) pairs, 24 bytes a block of a page. A split run
//! counts the same pairs partitioned by key ([`site_keys`], the groups stage's share).

use std::collections::{HashMap, HashSet};

use foldhash::{HashMap as FastMap, HashSet as FastSet};
use rayon::prelude::*;

use super::store::StoreSet;
use crate::text::blocks::{self, WORD_BITS};

/// The rule, as `summary.json` states it.
pub const RULE: &str = "a block (a line of the page's text) is its site's when pages of its host with at least max(5, ceil(sqrt(host pages) / 2)) distinct titles carry it; two pages are near-duplicates too when their whole pages' (full texts') S3 >= 0.95 and their own words' S3 >= 0.8 (a page with under 20 words of its own, or read whole for a main content under 20 words or a sliver of the page, is a near-duplicate only so)";

/// The fewest distinct pages (titles) of a host on which a block is the site's.
pub const MIN_REPEAT: u32 = 5;

/// Words of an own line that makes the pages carrying it candidates of one another (a line
/// of at least one word 8-gram).
pub const OWN_LINE_WORDS: u32 = 8;

/// Below this many words of its own, a page has no own content: it is a near-duplicate only
/// as a near-identical copy of a page's whole text ([`crate::verify::measure::WHOLE_MIN`]).
pub const MIN_OWN_WORDS: u32 = 20;

/// The distinct titles of a host of `pages` pages on which a block is the site's:
/// max([`MIN_REPEAT`], ceil(sqrt(pages) / 2)).
pub fn threshold(pages: u64) -> u32 {
    let t = ((pages as f64).sqrt() / 2.0).ceil() as u32;
    t.max(MIN_REPEAT)
}

/// The distinct titles a block needs to be its site's on a host of `pages` pages: None for a
/// host of fewer than [`MIN_REPEAT`] pages (it sets nothing aside), else [`threshold`].
fn limit_of(pages: u64) -> Option<u32> {
    (pages >= u64::from(MIN_REPEAT)).then(|| threshold(pages))
}

/// Passes over key ranges that keep `total` pairs of `pair` bytes within `memory` (at least
/// 1 MiB), and whether key `k` falls in pass `p` of `passes`.
fn passes_for(total: u64, pair: u64, memory: u64) -> u64 {
    (total * pair).div_ceil(memory.max(1 << 20)).max(1)
}

#[inline]
fn in_pass(k: u64, passes: u64, p: u64) -> bool {
    ((u128::from(k) * u128::from(passes)) >> 64) as u64 == p
}

/// A page's title key and blocks when it counts (it has a host and a title), from its host
/// key and its block keys (title first).
pub fn counted(host: u64, keys: &[u64]) -> Option<(u64, &[u64])> {
    let (title, blocks) = keys.split_first()?;
    (host != 0 && *title != 0).then_some((*title, blocks))
}

/// The site's blocks among one share of the (host, block) keys, as a partitioned count
/// decides them: `titles` holds (key, title) for every counted page's block, `hosts` (key,
/// host), and `pages` the pages each host counts. A key is its site's when its host has
/// [`MIN_REPEAT`] pages or more and pages with at least [`threshold`] distinct titles carry
/// it: the rule [`SiteBlocks::count`] applies. Ascending.
pub fn site_keys(
    mut titles: Vec<[u64; 2]>,
    mut hosts: Vec<[u64; 2]>,
    pages: &HashMap<u64, u64>,
) -> Vec<u64> {
    titles.par_sort_unstable();
    titles.dedup();
    hosts.par_sort_unstable();
    hosts.dedup_by_key(|x| x[0]);
    let mut out = Vec::new();
    for run in titles.chunk_by(|a, b| a[0] == b[0]) {
        let key = run[0][0];
        let Ok(at) = hosts.binary_search_by_key(&key, |x| x[0]) else {
            continue;
        };
        let p = pages.get(&hosts[at][1]).copied().unwrap_or(0);
        if limit_of(p).is_some_and(|l| run.len() as u64 >= u64::from(l)) {
            out.push(key);
        }
    }
    out
}

/// Groups of the documents `docs` that share a key of `keys_of`, each group once, in order;
/// the (key, document) pairs sorted in `passes` passes over ranges of the keys.
fn groups_sharing<I: Iterator<Item = u64>>(
    docs: &[u32],
    keys_of: impl Fn(u32) -> I + Sync,
    passes: u64,
) -> Vec<Vec<u32>> {
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for p in 0..passes {
        let mut pairs: Vec<(u64, u32)> = docs
            .par_iter()
            .flat_map_iter(|&d| {
                keys_of(d)
                    .filter(move |k| in_pass(*k, passes, p))
                    .map(move |k| (k, d))
            })
            .collect();
        pairs.par_sort_unstable();
        pairs.dedup();
        groups.par_extend(
            pairs
                .par_chunk_by(|a, b| a.0 == b.0)
                .filter(|r| r.len() > 1)
                .map(|r| r.iter().map(|x| x.1).collect::<Vec<u32>>()),
        );
    }
    groups.par_sort_unstable();
    groups.dedup();
    groups
}

/// A block of a host, as one key.
#[inline]
pub fn site_key(host: u64, block: u64) -> u64 {
    let x = host.rotate_left(29) ^ (block >> WORD_BITS);
    // SplitMix64's finaliser: the keys spread evenly over the passes' ranges.
    let x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// What the count found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OwnStats {
    /// Hosts with enough pages for a block to be the site's.
    pub hosts: u64,
    /// Distinct blocks found to be their site's.
    pub site_blocks: u64,
    /// Pages with at least one of them.
    pub pages_with_site_blocks: u64,
    /// Passes over the block keys the count took.
    pub passes: u32,
}

/// The blocks that are their site's, over a run's stores.
pub struct SiteBlocks {
    /// The (host, block) keys that are their site's. A document's host is read from its URL,
    /// so the set serves any store set holding the counted documents (a split run's batches).
    aside: FastSet<u64>,
    /// What the count found.
    pub stats: OwnStats,
    /// The memory budget the count had, bytes: the own-line groups keep to it too.
    memory: u64,
}

impl std::fmt::Debug for SiteBlocks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SiteBlocks({:?})", self.stats)
    }
}

/// A document's block keys (its title key first), empty in a store without them.
fn keys(stores: &StoreSet, d: u32) -> &[u64] {
    let (s, i) = stores.position(d);
    stores.stores()[s].blocks().map_or(&[], |b| b.doc(i))
}

impl SiteBlocks {
    /// Counts the blocks of every store of `stores` with at most `memory` bytes of pairs held
    /// at once; None when no store keeps block keys (full text, or stores made before them).
    pub fn count(stores: &StoreSet, memory: u64) -> Option<SiteBlocks> {
        if stores.stores().iter().all(|s| s.blocks().is_none()) {
            return None;
        }
        let n = stores.len() as u32;
        let hosts = stores.host_keys();
        // Pages per host: a host's threshold. Counted on every core, each worker's counts
        // merged into one map.
        let pages: FastMap<u64, u64> = (0..n)
            .into_par_iter()
            .fold(FastMap::default, |mut m, d| {
                let h = hosts[d as usize];
                if counted(h, keys(stores, d)).is_some() {
                    *m.entry(h).or_default() += 1;
                }
                m
            })
            .reduce(FastMap::default, |a, b| {
                let (mut a, b) = if a.len() < b.len() { (b, a) } else { (a, b) };
                for (h, p) in b {
                    *a.entry(h).or_default() += p;
                }
                a
            });
        let limit: FastMap<u64, u32> = pages
            .iter()
            .filter_map(|(h, p)| Some((*h, limit_of(*p)?)))
            .collect();
        let of_doc = |d: u32| -> Option<(u32, u64, &[u64])> {
            let h = hosts[d as usize];
            let limit = *limit.get(&h)?;
            let (title, blocks) = counted(h, keys(stores, d))?;
            Some((limit, title, blocks))
        };
        let total: u64 = (0..n)
            .into_par_iter()
            .map(|d| of_doc(d).map_or(0, |c| c.2.len() as u64))
            .sum();
        let passes = passes_for(total, 24, memory);
        let mut aside = FastSet::default();
        for p in 0..passes {
            // Collected in pieces and copied once into one vector of the exact size (a fold
            // and a reduce of vectors copied the growing halves again at every join).
            let mut pairs: Vec<(u64, u64, u32)> = (0..n)
                .into_par_iter()
                .flat_map_iter(|d| {
                    let h = hosts[d as usize];
                    of_doc(d)
                        .into_iter()
                        .flat_map(move |(limit, title, blocks)| {
                            blocks
                                .iter()
                                .map(move |b| site_key(h, *b))
                                .filter(move |k| in_pass(*k, passes, p))
                                .map(move |k| (k, title, limit))
                        })
                })
                .collect();
            pairs.par_sort_unstable();
            pairs.dedup_by_key(|x| (x.0, x.1));
            for run in pairs.chunk_by(|a, b| a.0 == b.0) {
                if run.len() as u64 >= u64::from(run[0].2) {
                    aside.insert(run[0].0);
                }
            }
        }
        let mut own = SiteBlocks {
            aside,
            memory,
            stats: OwnStats {
                hosts: limit.len() as u64,
                passes: passes as u32,
                ..OwnStats::default()
            },
        };
        own.stats.site_blocks = own.aside.len() as u64;
        own.stats.pages_with_site_blocks = (0..n)
            .into_par_iter()
            .filter(|d| own.any_site(hosts[*d as usize], keys(stores, *d)))
            .count() as u64;
        Some(own)
    }

    /// The set a partitioned count decided ([`site_keys`] over every share), for a run over
    /// `hosts` hosts of [`MIN_REPEAT`] pages or more, with a memory budget of `memory` bytes;
    /// pages with site blocks not counted (0).
    pub fn from_keys(aside: FastSet<u64>, hosts: u64, passes: u32, memory: u64) -> SiteBlocks {
        SiteBlocks {
            memory,
            stats: OwnStats {
                hosts,
                site_blocks: aside.len() as u64,
                pages_with_site_blocks: 0,
                passes,
            },
            aside,
        }
    }

    /// The pages of `stores` with at least one of the site's blocks.
    pub fn pages_with_site_blocks(&self, stores: &StoreSet) -> u64 {
        (0..stores.len() as u32)
            .into_par_iter()
            .filter(|d| self.any_site(stores.host_key(*d), keys(stores, *d)))
            .count() as u64
    }

    /// Groups of the documents `docs` (ascending) that share an own line of at least
    /// [`OWN_LINE_WORDS`] words with another page of their host (a line that is not the
    /// site's), each group once, in order: candidates that the main content's band keys miss
    /// when pages alike in their own content differ in what their site repeats inside it.
    ///
    /// The (line, page) pairs are sorted in passes over ranges of the (host, line) key, each
    /// within the memory budget the count had (16 bytes a pair), as the count's are.
    pub fn own_groups(&self, stores: &StoreSet, docs: &[u32]) -> Vec<Vec<u32>> {
        let lines = |d: u32| {
            let h = stores.host_key(d);
            self.own_lines(h, keys(stores, d))
                .map(move |b| site_key(h, b))
        };
        let total: u64 = docs.par_iter().map(|&d| lines(d).count() as u64).sum();
        groups_sharing(docs, lines, passes_for(total, 16, self.memory))
    }

    /// The lines of their own ([`OWN_LINE_WORDS`] words or more, not their site's) that
    /// documents `a` and `b` of one host share: one makes them candidates
    /// ([`own_groups`](Self::own_groups)).
    pub fn own_lines_shared(&self, stores: &StoreSet, a: u32, b: u32) -> u32 {
        let h = stores.host_key(a);
        if h == 0 || h != stores.host_key(b) {
            return 0;
        }
        let own = |d: u32| -> HashSet<u64> { self.own_lines(h, keys(stores, d)).collect() };
        own(a).intersection(&own(b)).count() as u32
    }

    /// The block keys among `k` (a title key, then blocks) of a page of host `h` that make it
    /// a candidate of the pages sharing one: lines of [`OWN_LINE_WORDS`] words or more that
    /// are not the site's (none for a page without a host).
    fn own_lines<'k>(&'k self, h: u64, k: &'k [u64]) -> impl Iterator<Item = u64> + 'k {
        let k = if h == 0 { &[] } else { k };
        k.iter()
            .skip(1)
            .filter(move |b| blocks::words(**b) >= OWN_LINE_WORDS && !self.is_site(h, **b))
            .copied()
    }

    /// Whether block `key` of a page of host `host` is the site's.
    #[inline]
    pub fn is_site(&self, host: u64, key: u64) -> bool {
        host != 0 && self.aside.contains(&site_key(host, key))
    }

    /// Whether document `d` has a block that is its site's.
    pub fn has_site_blocks(&self, stores: &StoreSet, d: u32) -> bool {
        let k = keys(stores, d);
        k.len() >= 2 && self.any_site(stores.host_key(d), k)
    }

    /// Whether the keys `k` (a title key, then blocks) of a page of host `h` hold a block
    /// that is its site's.
    fn any_site(&self, h: u64, k: &[u64]) -> bool {
        h != 0 && k.iter().skip(1).any(|k| self.is_site(h, *k))
    }

    /// What document `d`'s own content is, from its keys alone (nothing read): the blocks and
    /// words set aside and the words kept.
    pub fn own_of(&self, stores: &StoreSet, d: u32) -> blocks::Own {
        let h = stores.host_key(d);
        let mut own = blocks::Own::default();
        for k in keys(stores, d).iter().skip(1) {
            if self.is_site(h, *k) {
                own.blocks_aside += 1;
                own.words_aside += blocks::words(*k);
            } else {
                own.words_kept += blocks::words(*k);
            }
        }
        own
    }

    /// Own content of document `d` read from its text (as fingerprinting made it): into
    /// `out`, the lines that are not its site's.
    pub fn own_text(&self, stores: &StoreSet, d: u32, text: &str, out: &mut String) -> blocks::Own {
        let h = stores.host_key(d);
        blocks::own_text(text, |k| self.is_site(h, k), out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;

    /// Groups found in many passes over key ranges are those of one pass, and each is the
    /// documents that share a key, ascending, once.
    #[test]
    fn groups_in_passes_equal_groups_in_one() {
        let mut rng = SplitMix64(9);
        // 2 000 documents, 6 keys each from a pool of 3 000 (many shared), spread over u64.
        let pool: Vec<u64> = (0..3000).map(|_| rng.next_u64()).collect();
        let keys: Vec<Vec<u64>> = (0..2000)
            .map(|_| (0..6).map(|_| pool[rng.below(3000) as usize]).collect())
            .collect();
        let docs: Vec<u32> = (0..2000).collect();
        let of = |d: u32| keys[d as usize].clone().into_iter();
        let one = groups_sharing(&docs, of, 1);
        assert!(one.len() > 500);
        for passes in [2, 7, 64] {
            assert_eq!(groups_sharing(&docs, of, passes), one, "{passes} passes");
        }
        // Plainly: every key carried by two documents or more gives its documents.
        let mut want: Vec<Vec<u32>> = pool
            .iter()
            .map(|k| {
                docs.iter()
                    .copied()
                    .filter(|d| keys[*d as usize].contains(k))
                    .collect::<Vec<u32>>()
            })
            .filter(|g| g.len() > 1)
            .collect();
        want.sort_unstable();
        want.dedup();
        assert_eq!(one, want);
    }
}
