//! `neardup explain OUT ID`: why one page of a `dedup` run was removed or kept. For a removed
//! page: the kept page it names, the score, how the two became candidates (the MinHash band
//! keys they share, and their SimHash distance) and the word diff of the texts verification
//! compared; for a kept page: the pages removed for it; for an excluded page: why it took no
//! part. Ids are taken as the lists write them (TSV-escaped) or as they are.

use std::path::Path;

use serde::Serialize;

use super::corpus::ids_of;
use super::report::{finished_run, open_run_stores};
use crate::fingerprint::own::SiteBlocks;
use crate::fingerprint::store::StoreSet;
use crate::report::diff::{self, Diff, Shape};
use crate::report::lists::{self, read_excluded, read_removals, Removal};
use crate::report::summary::Summary;

/// How a removed page and its kept page became candidates.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidates {
    /// The MinHash bands whose keys the two share (numbered from 0), where the stores have
    /// band keys: one shared band makes a pair a candidate.
    pub shared_bands: Option<Vec<u32>>,
    /// Bands per document.
    pub bands: Option<u32>,
    /// The Hamming distance of their 64-bit SimHash fingerprints.
    pub simhash64_distance: u32,
    /// The run's candidate plan, as `summary.json` names it.
    pub plan: String,
    /// Lines of their own (of at least 8 words, not their site's) the two pages share, where
    /// the run compared own content: one makes them candidates.
    pub own_lines_shared: Option<u32>,
}

/// A page removed for another, in a kept page's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RemovedFor {
    pub id: String,
    pub url: String,
    pub score: Option<f64>,
    pub hamming64: Option<u32>,
}

/// A removed page's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RemovedPage {
    pub id: String,
    pub url: String,
    pub kept: String,
    pub kept_url: String,
    pub score: Option<f64>,
    /// The measure and threshold the score passed (`s3 >= 0.82`), where the run verified.
    pub rule: Option<String>,
    pub hamming64: Option<u32>,
    /// Pages in the kept page's group (it and every page removed for it).
    pub group: u64,
    pub candidates: Candidates,
    /// The texts verification compared, removed against kept.
    pub diff: Option<Diff>,
    /// Why there is no diff, where there is none.
    pub note: Option<String>,
    /// What each page set aside as its site's, where the run compared own content.
    pub own_content: Option<OwnCompared>,
}

/// What verification compared of a pair, where the run compared pages on their own content.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OwnCompared {
    /// `own content` (the lines that are not the site's: what the diff shows) or `whole
    /// texts` (near-identical copies: the diff shows the whole pages' full texts).
    pub compared: String,
    /// The removed page's lines (blocks) set aside as its site's, and their words.
    pub removed_lines_aside: u32,
    pub removed_words_aside: u32,
    /// The kept page's.
    pub kept_lines_aside: u32,
    pub kept_words_aside: u32,
    /// The removed page's first lines set aside (at most 5, each cut to 200 characters).
    pub site_lines: Vec<String>,
    /// The removed page, and the kept page, were read whole (main content under 20 words, or
    /// a sliver of the page):
    /// pages with no own content, compared as whole pages only.
    pub removed_read_whole: bool,
    pub kept_read_whole: bool,
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Explanation {
    /// Removed: `kept` is the page it duplicates.
    Removed(Box<RemovedPage>),
    /// Kept, with the pages removed for it.
    Kept {
        id: String,
        url: String,
        removed_for_it: Vec<RemovedFor>,
    },
    /// Kept without taking part in the join.
    Excluded {
        id: String,
        url: String,
        reason: String,
    },
    /// Not a document of the run; `names` are the run's names of the documents whose own id
    /// `id` is (`ID#N`, `old:ID`), where it repeats.
    Unknown {
        id: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        names: Vec<String>,
    },
}

/// Explains the page `id` of the `dedup` run in `dir` (texts read again from the shards, or
/// from `shard_dir`).
pub fn explain(dir: &Path, id: &str, shard_dir: Option<&Path>) -> anyhow::Result<Explanation> {
    let summary = finished_run(dir)?;
    let stores = open_run_stores(dir, &summary)?;
    let names = ids_of(&stores);
    // As the lists escape it, then as given; where both readings name documents, and not
    // the same one, the id is ambiguous.
    let unescaped = crate::base::tsv::tsv_value(id).into_owned();
    let (id, doc) = match (names.get(unescaped.as_str()), names.get(id)) {
        (Some(a), Some(b)) if a != b => anyhow::bail!(
            "{id:?} is ambiguous: read as remove.tsv escapes ids it is {unescaped:?}, read as \
             given it is {id:?}, and both are documents of the run; give the id as the lists \
             write it (a backslash doubled) to mean the one with the backslash"
        ),
        (Some(d), _) => (unescaped, *d),
        (None, Some(d)) => (id.to_string(), *d),
        (None, None) => {
            // The run's names of the documents whose own id this is (`ID#N`, `old:ID`).
            let mut repeated: Vec<String> = (0..stores.len() as u32)
                .filter(|&d| {
                    let raw = stores.raw_id(d);
                    (raw == id || raw == unescaped) && stores.id(d) != raw
                })
                .map(|d| stores.id(d).to_string())
                .collect();
            repeated.sort();
            repeated.dedup();
            return Ok(Explanation::Unknown {
                id: id.to_string(),
                names: repeated,
            });
        }
    };
    let url = stores.url(doc).to_string();
    let removals = read_removals(&dir.join(lists::REMOVE))?;
    if let Some(r) = removals.iter().find(|r| r.id == id) {
        // The run's own content, counted again as it counted it (the same stores, the same
        // rule): what verification compared.
        let own = summary
            .verification
            .as_ref()
            .and_then(|v| v.own_content.as_ref())
            .and_then(|_| SiteBlocks::count(&stores, crate::verify::DEFAULT_MEMORY));
        return Ok(removed(
            &stores,
            &names,
            &summary,
            &removals,
            r,
            shard_dir,
            own.as_ref(),
        ));
    }
    if let Some((_, reason)) = read_excluded(&dir.join(lists::EXCLUDED))?
        .into_iter()
        .find(|(e, _)| *e == id)
    {
        return Ok(Explanation::Excluded { id, url, reason });
    }
    let removed_for_it = removals
        .iter()
        .filter(|r| r.kept == id)
        .map(|r| RemovedFor {
            url: names
                .get(r.id.as_str())
                .map_or_else(String::new, |d| stores.url(*d).to_string()),
            id: r.id.clone(),
            score: r.score,
            hamming64: r.hamming64,
        })
        .collect();
    Ok(Explanation::Kept {
        id,
        url,
        removed_for_it,
    })
}

fn removed(
    stores: &StoreSet,
    names: &super::corpus::Ids<'_>,
    summary: &Summary,
    removals: &[Removal],
    r: &Removal,
    shard_dir: Option<&Path>,
    own: Option<&SiteBlocks>,
) -> Explanation {
    let a = names[r.id.as_str()];
    let b = names.get(r.kept.as_str()).copied();
    let fp = stores.fp64();
    let candidates = Candidates {
        shared_bands: b.and_then(|b| shared_bands(stores, a, b)),
        bands: stores.minhash_params().map(|p| p.bands),
        simhash64_distance: b.map_or(64, |b| (fp[a as usize] ^ fp[b as usize]).count_ones()),
        plan: summary
            .join
            .ran
            .as_ref()
            .map_or_else(String::new, |r| r.plan.clone()),
        own_lines_shared: own.zip(b).map(|(o, b)| o.own_lines_shared(stores, a, b)),
    };
    let mut own_content = None;
    let (diff, note) = match b {
        None => (
            None,
            Some("the kept page is not in the run's stores".to_string()),
        ),
        Some(b) => match crate::verify::reread::for_each_text_and_full(
            stores,
            &[a, b],
            shard_dir,
            if own.is_some() {
                crate::verify::reread::Also::Full
            } else {
                crate::verify::reread::Also::Nothing
            },
            || (),
            |_, d, t, f| (d, t.to_string(), f.to_string()),
        ) {
            Ok(found) => {
                // A page's text and its full text, as read again.
                let texts = |d: u32| {
                    found
                        .values
                        .iter()
                        .find(|v| v.0 == d)
                        .map(|v| (v.1 .1.as_str(), v.1 .2.as_str()))
                };
                match (texts(a), texts(b)) {
                    (Some((ta, full_a)), Some((tb, full_b))) => {
                        let shape = Shape {
                            context: 12,
                            budget: 3000,
                        };
                        let d = match own.map(|o| own_compared(stores, o, (a, ta), (b, tb))) {
                            Some((shown, (oa, ob))) => {
                                let own_texts = shown.compared == "own content";
                                own_content = Some(shown);
                                if own_texts {
                                    diff::diff(&oa, &ob, shape)
                                } else {
                                    diff::diff(full_a, full_b, shape)
                                }
                            }
                            None => diff::diff(ta, tb, shape),
                        };
                        (Some(d), None)
                    }
                    _ => (
                        None,
                        Some("the texts were not found where the store recorded them".into()),
                    ),
                }
            }
            Err(e) => (
                None,
                Some(format!("the texts could not be read again: {e}")),
            ),
        },
    };
    Explanation::Removed(Box::new(RemovedPage {
        id: r.id.clone(),
        url: stores.url(a).to_string(),
        kept: r.kept.clone(),
        kept_url: b.map_or_else(String::new, |b| stores.url(b).to_string()),
        score: r.score,
        rule: summary.verification.as_ref().map(|v| {
            if own_content
                .as_ref()
                .is_some_and(|o| o.compared == "whole texts")
            {
                format!(
                    "{} >= {} on the whole pages, own words alike",
                    v.measure,
                    crate::verify::measure::WHOLE_MIN
                )
            } else {
                format!("{} >= {}", v.measure, v.min)
            }
        }),
        hamming64: r.hamming64,
        group: 1 + removals.iter().filter(|o| o.kept == r.kept).count() as u64,
        candidates,
        diff,
        note,
        own_content,
    }))
}

/// What verification compared of the removed page `a` and the kept page `b` (their texts as
/// read): their own texts, and which of own content and whole texts passed.
fn own_compared(
    stores: &StoreSet,
    own: &SiteBlocks,
    (a, ta): (u32, &str),
    (b, tb): (u32, &str),
) -> (OwnCompared, (String, String)) {
    let (mut oa, mut ob) = (String::new(), String::new());
    let ra = own.own_text(stores, a, ta, &mut oa);
    let rb = own.own_text(stores, b, tb, &mut ob);
    let params = &stores.stores()[0].manifest.params;
    let mut sh = crate::verify::shingle::Shingler::new(
        crate::verify::shingle::DEFAULT_K,
        params.tokens,
        params.seed,
    );
    // A page read whole (its main content under 20 words, or a sliver of the page) has no own
    // content to compare.
    let whole_a = crate::verify::read_whole_page(stores, a);
    let whole_b = crate::verify::read_whole_page(stores, b);
    let set = |sh: &mut crate::verify::shingle::Shingler, t: &str, words: u32, whole: bool| {
        let mut v = Vec::new();
        if words >= crate::fingerprint::own::MIN_OWN_WORDS && !whole {
            sh.shingles(t, &mut v);
        }
        v
    };
    let (sa, sb) = (
        set(&mut sh, &oa, ra.words_kept, whole_a),
        set(&mut sh, &ob, rb.words_kept, whole_b),
    );
    let own_passes = crate::verify::Overlap::of(&sa, &sb).score(crate::verify::Measure::S3)
        >= crate::verify::VerifySpec::default().min;
    let h = stores.host_key(a);
    let site_lines = ta
        .split('\n')
        .filter(|l| !l.is_empty() && own.is_site(h, crate::text::blocks::key(l)))
        .take(5)
        .map(|l| diff::bounded(l, 200).into_owned())
        .collect();
    (
        OwnCompared {
            compared: if own_passes
                || (ra.blocks_aside == 0 && rb.blocks_aside == 0 && !whole_a && !whole_b)
            {
                "own content".into()
            } else {
                "whole texts".into()
            },
            removed_lines_aside: ra.blocks_aside,
            removed_words_aside: ra.words_aside,
            kept_lines_aside: rb.blocks_aside,
            kept_words_aside: rb.words_aside,
            site_lines,
            removed_read_whole: whole_a,
            kept_read_whole: whole_b,
        },
        (oa, ob),
    )
}

/// The bands whose keys documents `a` and `b` share; None without band keys.
fn shared_bands(stores: &StoreSet, a: u32, b: u32) -> Option<Vec<u32>> {
    let p = stores.minhash_params()?;
    let (sa, ra) = stores.position(a);
    let (sb, rb) = stores.position(b);
    let mut shared = Vec::new();
    for band in 0..p.bands as usize {
        let ka = stores.stores()[sa].minhash_band(band)?[ra];
        let kb = stores.stores()[sb].minhash_band(band)?[rb];
        if ka == kb {
            shared.push(band as u32);
        }
    }
    Some(shared)
}
