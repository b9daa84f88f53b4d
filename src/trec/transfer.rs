//! Relevance judgments transferred from an older crawl to a newer one (CopyCat, section 5, its
//! Table 6): a judged document's judgment goes to every page of the new crawl that is the same
//! page, found in stages:
//! 1. the same URL (compared parsed, without fragments);
//! 2. the same canonical class (the new page's canonical link is the judged page's URL or
//!    canonical link, or the new page's URL is the judged page's canonical link) and a
//!    near-duplicate on the text: canonical links alone are not enough (CopyCat found 65 % of
//!    canonical pairs near-duplicates, and sites that name their home page as every page's
//!    canonical link are common); a canonical link that more than [`MAX_CLASS`] new pages name
//!    is such a site-wide one and is not followed;
//! 3. a near-duplicate: candidates are pages sharing a MinHash band key with a judged page (a
//!    cross join of the judged pages against the new crawl, never a self-join of either), kept
//!    when the verification measure passes (S3 >= 0.82 by default) on their texts.
//!
//! A judgment counts at the first stage that transfers it. In a topic, a new page reached from
//! several judged pages gets the highest of their grades.

use crate::join::lsh::DocMajor;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use rayon::prelude::*;

use super::format::Qrel;
use crate::fingerprint::store::StoreSet;
use crate::text::canonical::normal_url;
use crate::verify::{shingle_sets, Overlap, VerifySpec};
use crate::{Error, Result};

/// New pages naming one canonical link beyond which the link is taken for a site-wide one.
pub const MAX_CLASS: usize = 64;

/// How a judgment was transferred.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The same URL.
    Url,
    /// The same canonical class.
    Canonical,
    /// A verified near-duplicate.
    NearDuplicate,
}

/// One relevance grade's judgments and what became of them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LevelRow {
    /// The grade.
    pub rel: i32,
    /// Judgments (records) of this grade.
    pub judgments: u64,
    /// Of those, whose document is not in the old stores.
    pub unknown: u64,
    /// Transferred at the URL stage.
    pub url: u64,
    /// Transferred at the canonical stage.
    pub canonical: u64,
    /// Transferred at the near-duplicate stage.
    pub near_duplicate: u64,
}

/// The transfer's result.
#[derive(Clone, Debug, Default)]
pub struct Transfer {
    /// The new crawl's qrels: one record per topic and new page.
    pub qrels: Vec<Qrel>,
    /// One row per grade, ascending.
    pub levels: Vec<LevelRow>,
    /// Candidate pairs compared on their text.
    pub compared: u64,
    /// Canonical links not followed: named by more than [`MAX_CLASS`] new pages.
    pub site_wide_links: u64,
}

/// Transfers `qrels` from the documents before `split` in `stores` (the old crawl) to those
/// from `split` on (the new crawl).
pub fn transfer(
    stores: &StoreSet,
    split: u32,
    qrels: &[Qrel],
    spec: &VerifySpec,
) -> Result<Transfer> {
    let n = stores.len() as u32;
    // Judged documents of the old crawl, by id.
    let wanted: HashSet<&str> = qrels.iter().map(|q| q.docno.as_str()).collect();
    let old_of: HashMap<String, u32> = (0..split)
        .into_par_iter()
        .filter_map(|d| {
            let id = stores.raw_id(d);
            wanted.contains(id).then(|| (id.to_string(), d))
        })
        .collect();
    let mut judged: Vec<u32> = old_of.values().copied().collect();
    judged.sort_unstable();
    // Stages 1 and 2: URLs and canonical links of the judged pages.
    let (mut by_url, mut by_canon): (HashMap<String, Vec<u32>>, HashMap<String, Vec<u32>>) =
        Default::default();
    for &j in &judged {
        let u = stores.url(j);
        if !u.is_empty() {
            by_url.entry(normal_url(u)).or_default().push(j);
        }
        let c = stores.canonical(j);
        if !c.is_empty() {
            by_canon.entry(c.to_string()).or_default().push(j);
        }
    }
    // New pages per canonical link: a link more of them name is a site-wide one.
    let mut named: HashMap<&str, usize> = HashMap::new();
    for d in split..n {
        let c = stores.canonical(d);
        if !c.is_empty() {
            *named.entry(c).or_default() += 1;
        }
    }
    let site_wide = named.values().filter(|k| **k > MAX_CLASS).count() as u64;
    let found: Vec<(u32, u32, Stage)> = (split..n)
        .into_par_iter()
        .flat_map_iter(|d| {
            let mut out = Vec::new();
            let u = stores.url(d);
            let u = (!u.is_empty()).then(|| normal_url(u));
            let c = stores.canonical(d);
            if let Some(js) = u.as_ref().and_then(|u| by_url.get(u)) {
                out.extend(js.iter().map(|j| (*j, d, Stage::Url)));
            }
            let mut canon: Vec<&u32> = Vec::new();
            if !c.is_empty() && named.get(c).is_some_and(|k| *k <= MAX_CLASS) {
                canon.extend(by_url.get(c).into_iter().flatten());
                canon.extend(by_canon.get(c).into_iter().flatten());
            }
            if let Some(js) = u.as_ref().and_then(|u| by_canon.get(u)) {
                canon.extend(js);
            }
            out.extend(canon.into_iter().map(|j| (*j, d, Stage::Canonical)));
            out
        })
        .collect();
    // URL matches stand; canonical ones are verified with the band-key candidates.
    let mut matches: HashMap<(u32, u32), Stage> = HashMap::new();
    let mut canonical: HashSet<(u32, u32)> = HashSet::new();
    for (j, d, s) in found {
        if s == Stage::Url {
            matches.insert((j, d), Stage::Url);
        } else {
            canonical.insert((j, d));
        }
    }
    let (keys, p) = stores.minhash().ok_or_else(|| {
        Error::Config(
            "the stores have no MinHash band keys (or different ones): fingerprint both crawls with --minhash".into(),
        )
    })?;
    let keys = DocMajor {
        keys: &keys,
        bands: p.bands as usize,
    };
    let mut band_of: HashMap<(usize, u64), Vec<u32>> = HashMap::new();
    for &j in &judged {
        for (b, k) in keys.of(j).iter().enumerate() {
            band_of.entry((b, *k)).or_default().push(j);
        }
    }
    let mut candidates: Vec<(u32, u32)> = (split..n)
        .into_par_iter()
        .flat_map_iter(|d| {
            let mut c: Vec<(u32, u32)> = keys
                .of(d)
                .iter()
                .enumerate()
                .filter_map(|(b, k)| band_of.get(&(b, *k)))
                .flatten()
                .map(|j| (*j, d))
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        })
        .collect();
    candidates.extend(canonical.iter().copied());
    candidates.sort_unstable();
    candidates.dedup();
    candidates.retain(|p| !matches.contains_key(p));
    let mut docs: Vec<u32> = candidates.iter().flat_map(|(j, d)| [*j, *d]).collect();
    docs.sort_unstable();
    docs.dedup();
    let (sets, _) = shingle_sets(stores, &docs, spec)?;
    let near: Vec<(u32, u32)> = candidates
        .par_iter()
        .filter(|(j, d)| match (sets.get(j), sets.get(d)) {
            (Some(a), Some(b)) => spec.passes(&Overlap::of(a, b)),
            _ => false,
        })
        .copied()
        .collect();
    for (j, d) in near {
        let stage = if canonical.contains(&(j, d)) {
            Stage::Canonical
        } else {
            Stage::NearDuplicate
        };
        matches.insert((j, d), stage);
    }
    // Per judged page: its new pages and the best stage.
    let mut to: HashMap<u32, Vec<(u32, Stage)>> = HashMap::new();
    for ((j, d), s) in &matches {
        to.entry(*j).or_default().push((*d, *s));
    }
    for v in to.values_mut() {
        v.sort_unstable();
    }
    let mut levels: HashMap<i32, LevelRow> = HashMap::new();
    let mut out: Vec<Qrel> = Vec::new();
    let mut at: HashMap<(String, u32), usize> = HashMap::new();
    for q in qrels {
        let row = levels.entry(q.rel).or_insert_with(|| LevelRow {
            rel: q.rel,
            ..LevelRow::default()
        });
        row.judgments += 1;
        let Some(j) = old_of.get(&q.docno) else {
            row.unknown += 1;
            continue;
        };
        let Some(news) = to.get(j) else { continue };
        match news.iter().map(|x| x.1).min() {
            Some(Stage::Url) => row.url += 1,
            Some(Stage::Canonical) => row.canonical += 1,
            Some(Stage::NearDuplicate) => row.near_duplicate += 1,
            None => {}
        }
        for (d, _) in news {
            match at.get(&(q.qid.clone(), *d)) {
                Some(&k) => out[k].rel = out[k].rel.max(q.rel),
                None => {
                    at.insert((q.qid.clone(), *d), out.len());
                    out.push(Qrel {
                        qid: q.qid.clone(),
                        iter: q.iter.clone(),
                        docno: stores.raw_id(*d).to_string(),
                        rel: q.rel,
                    });
                }
            }
        }
    }
    let mut levels: Vec<LevelRow> = levels.into_values().collect();
    levels.sort_by_key(|r| r.rel);
    Ok(Transfer {
        qrels: out,
        levels,
        compared: candidates.len() as u64,
        site_wide_links: site_wide,
    })
}
