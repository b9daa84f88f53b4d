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
    /// The removed page's first distinct lines set aside (at most 5, each cut to 200 characters).
    pub site_lines: Vec<String>,
    /// The removed page, and the kept page, were read whole (main content under 20 words, or
    /// a sliver of the page):
    /// pages with no own content, compared as whole pages only.
    pub removed_read_whole: bool,
    pub kept_read_whole: bool,
}

/// One page of a pair, as the run left it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairPage {
    pub id: String,
    pub url: String,
    /// `removed`, `kept` or `excluded`.
    pub status: String,
    /// The kept page it was removed for, where it was removed.
    pub removed_for: Option<String>,
    /// Why it took no part in the join, where it was excluded.
    pub reason: Option<String>,
}

/// The scores of the parts verification weighs, where the run compared own content.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PartScores {
    /// S3 of the two pages' own contents (0 where one has under 20 words of its own).
    pub own_s3: f64,
    /// S3 of their whole pages (full texts): near-identical copies at 0.95.
    pub whole_s3: f64,
    /// S3 of their own words (single terms), which a whole-page match needs at 0.8.
    pub own_words_s3: Option<f64>,
    /// Shingles of each page's own content (none under 20 words of its own).
    pub own_shingles: [u32; 2],
}

/// Two pages of a run side by side: what became of each, and what verification makes of
/// the pair, whether or not the run compared them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairAnswer {
    pub first: PairPage,
    pub second: PairPage,
    /// The run put the two together: one removed for the other, or both for one kept page.
    pub together: bool,
    pub candidates: Candidates,
    /// The run's rule (`s3 >= 0.82`), or the default verification's where the run did not
    /// verify.
    pub rule: String,
    /// The score verification gives the pair (of the parts it weighs, the one that decides).
    pub score: f64,
    /// The pair passes the rule.
    pub near_duplicates: bool,
    /// What the score is of: `own content`, `whole texts` (near-identical copies) or
    /// `texts`.
    pub compared: String,
    /// The parts' scores, where the run compared own content.
    pub parts: Option<PartScores>,
    /// Why the pair passes or fails, in words.
    pub why: String,
    /// What each page set aside as its site's (`removed_*` is the first page, `kept_*` the
    /// second), where the run compared own content.
    pub own_content: Option<OwnCompared>,
    /// The texts compared, the first page against the second.
    pub diff: Option<Diff>,
    /// Why there is no diff, where there is none.
    pub note: Option<String>,
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
    /// Two pages side by side (`explain OUT ID OTHER`).
    Pair(Box<PairAnswer>),
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
    let (id, doc) = match resolve(&stores, &names, id)? {
        Ok(found) => found,
        Err(unknown) => return Ok(unknown),
    };
    let url = stores.url(doc).to_string();
    let removals = read_removals(&dir.join(lists::REMOVE))?;
    if let Some(r) = removals.iter().find(|r| r.id == id) {
        let own = run_own_content(&stores, &summary);
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

/// Explains the pair of pages `id` and `other` of the `dedup` run in `dir`: what the run did
/// with each, how they became candidates or did not, and what verification makes of the
/// pair as the run would compare it (its measure and threshold, its own content), with the
/// diff of the texts compared. An id that names no document is answered as
/// [`Explanation::Unknown`].
pub fn explain_pair(
    dir: &Path,
    id: &str,
    other: &str,
    shard_dir: Option<&Path>,
) -> anyhow::Result<Explanation> {
    let summary = finished_run(dir)?;
    let stores = open_run_stores(dir, &summary)?;
    let names = ids_of(&stores);
    let mut found = Vec::with_capacity(2);
    for i in [id, other] {
        match resolve(&stores, &names, i)? {
            Ok(f) => found.push(f),
            Err(unknown) => return Ok(unknown),
        }
    }
    let ((ida, a), (idb, b)) = (found[0].clone(), found[1].clone());
    anyhow::ensure!(a != b, "{ida:?} and {idb:?} are one document of the run");
    let removals = read_removals(&dir.join(lists::REMOVE))?;
    let excluded = read_excluded(&dir.join(lists::EXCLUDED))?;
    let page = |id: &str, d: u32| {
        let removed_for = removals.iter().find(|r| r.id == id).map(|r| r.kept.clone());
        let reason = excluded
            .iter()
            .find(|(e, _)| e == id)
            .map(|(_, r)| r.clone());
        PairPage {
            id: id.to_string(),
            url: stores.url(d).to_string(),
            status: if removed_for.is_some() {
                "removed"
            } else if reason.is_some() {
                "excluded"
            } else {
                "kept"
            }
            .into(),
            removed_for,
            reason,
        }
    };
    let (first, second) = (page(&ida, a), page(&idb, b));
    let group = |p: &PairPage| p.removed_for.clone().unwrap_or_else(|| p.id.clone());
    let together = (first.removed_for.is_some() || second.removed_for.is_some())
        && group(&first) == group(&second);
    // Verification as the run made it: its measure and threshold, and its own content counted
    // again from the same stores.
    let defaults = crate::verify::VerifySpec::default();
    let (measure, min) =
        summary
            .verification
            .as_ref()
            .map_or((defaults.measure, defaults.min), |v| {
                (
                    crate::verify::Measure::parse(&v.measure).unwrap_or(defaults.measure),
                    v.min,
                )
            });
    let run_own = run_own_content(&stores, &summary).map(std::sync::Arc::new);
    // A run that did not verify is answered by the default verification, which sets the
    // site's blocks aside wherever the stores keep them (main content).
    let verified = summary.verification.is_some();
    let own = if verified {
        run_own.clone()
    } else {
        SiteBlocks::count(&stores, crate::verify::DEFAULT_MEMORY).map(std::sync::Arc::new)
    };
    let spec = crate::verify::VerifySpec {
        measure,
        min,
        shard_dir: shard_dir.map(Path::to_path_buf),
        own: own.clone().map(crate::verify::OwnContent),
        ..defaults
    };
    let candidates = candidates_of(&stores, &summary, run_own.as_deref(), a, Some(b));
    let (sets, _) = crate::verify::shingle_sets(&stores, &[a, b], &spec)?;
    let (sa, sb) = (
        sets.get(&a).map_or(&[][..], |s| &s[..]),
        sets.get(&b).map_or(&[][..], |s| &s[..]),
    );
    let overlap = crate::verify::Overlap::of(sa, sb);
    let parted = crate::verify::Overlap::parted(sa, sb);
    let score = overlap.score(measure);
    let near_duplicates = spec.passes(&overlap);
    let rule = format!("{} >= {}", measure.name(), min);
    let compared = match (&parted, overlap.whole) {
        (_, true) => "whole texts",
        (Some(_), false) => "own content",
        (None, false) => "texts",
    };
    let s3 = |o: &crate::verify::Overlap| o.score(crate::verify::Measure::S3);
    let parts = parted.map(|p| PartScores {
        own_s3: s3(&p.own),
        whole_s3: s3(&p.whole),
        own_words_s3: p.words.map(|w| s3(&w)),
        own_shingles: [p.own.a, p.own.b],
    });
    let why = why(&parted, &overlap, (measure, min), near_duplicates);
    // A run made with `--no-verify` kept its candidates' pairs unread: the verdict is the
    // default verification's, and the sentence says so.
    let why = if verified {
        why
    } else {
        format!("the run did not verify (--no-verify), so this is the default verification's verdict: {why}")
    };
    let (mut own_content, mut diff, mut note) = (None, None, None);
    match read_two(&stores, (a, b), shard_dir, own.is_some()) {
        Ok([(ta, full_a), (tb, full_b)]) => {
            diff = Some(match own.as_deref() {
                Some(o) => {
                    let (mut shown, (oa, ob)) = own_compared(&stores, o, (a, &ta), (b, &tb));
                    shown.compared = compared.to_string();
                    own_content = Some(shown);
                    if overlap.whole {
                        diff::diff(&full_a, &full_b, SHAPE)
                    } else if parted.is_some() {
                        diff::diff(&oa, &ob, SHAPE)
                    } else {
                        diff::diff(&ta, &tb, SHAPE)
                    }
                }
                None => diff::diff(&ta, &tb, SHAPE),
            });
        }
        Err(n) => note = Some(n),
    }
    Ok(Explanation::Pair(Box::new(PairAnswer {
        first,
        second,
        together,
        candidates,
        rule,
        score,
        near_duplicates,
        compared: compared.into(),
        parts,
        why,
        own_content,
        diff,
        note,
    })))
}

/// Why a pair passes or fails verification's rule (`min` of `measure`), in words.
fn why(
    parted: &Option<crate::verify::measure::Parted>,
    o: &crate::verify::Overlap,
    (measure, min): (crate::verify::Measure, f64),
    passes: bool,
) -> String {
    use crate::verify::measure::{OWN_WORDS_MIN, WHOLE_MIN};
    let m = measure.name();
    let Some(p) = parted else {
        let s = o.score(measure);
        return if passes {
            format!("their texts' {m} {s:.4} >= {min}")
        } else {
            format!("their texts' {m} {s:.4} < {min}")
        };
    };
    let own = p.own.score(measure);
    let whole = p.whole.score(crate::verify::Measure::S3);
    if passes && o.whole {
        return format!(
            "near-identical copies: their whole pages' s3 {whole:.4} >= {WHOLE_MIN}, their own words alike"
        );
    }
    if passes {
        return format!("their own content's {m} {own:.4} >= {min}");
    }
    let own_part = if p.own.a == 0 || p.own.b == 0 {
        let which = match (p.own.a, p.own.b) {
            (0, 0) => "neither page has",
            (0, _) => "the first page has not",
            _ => "the second page has not",
        };
        format!(
            "{which} 20 words of its own (or it was read whole), so there is no own content to compare"
        )
    } else {
        format!("their own content's {m} {own:.4} < {min}")
    };
    let whole_part = if whole < WHOLE_MIN {
        format!(
            "their whole pages' s3 {whole:.4} < {WHOLE_MIN}, so they are not near-identical copies"
        )
    } else if !p.words_alike() {
        let words = p.words.map_or(0.0, |w| w.score(crate::verify::Measure::S3));
        format!(
            "their whole pages' s3 {whole:.4} >= {WHOLE_MIN}, but their own words' s3 {words:.4} < {OWN_WORDS_MIN} (two forms of one template with words of their own are not copies)"
        )
    } else {
        format!(
            "their whole pages' {m} {:.4} < {}",
            p.whole.score(measure),
            min.max(WHOLE_MIN)
        )
    };
    format!("{own_part}; {whole_part}")
}

/// The document an id names, as the lists escape it or as it is given, with the id as the
/// run writes it; or the [`Explanation::Unknown`] answer for an id that names none.
fn resolve(
    stores: &StoreSet,
    names: &super::corpus::Ids<'_>,
    id: &str,
) -> anyhow::Result<Result<(String, u32), Explanation>> {
    // As the lists escape it, then as given; where both readings name documents, and not
    // the same one, the id is ambiguous.
    let unescaped = crate::base::tsv::tsv_value(id).into_owned();
    Ok(match (names.get(unescaped.as_str()), names.get(id)) {
        (Some(a), Some(b)) if a != b => anyhow::bail!(
            "{id:?} is ambiguous: read as remove.tsv escapes ids it is {unescaped:?}, read as \
             given it is {id:?}, and both are documents of the run; give the id as the lists \
             write it (a backslash doubled) to mean the one with the backslash"
        ),
        (Some(d), _) => Ok((unescaped, *d)),
        (None, Some(d)) => Ok((id.to_string(), *d)),
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
            Err(Explanation::Unknown {
                id: id.to_string(),
                names: repeated,
            })
        }
    })
}

/// The run's own content, counted again as it counted it (the same stores, the same rule):
/// what its verification compared. None where it compared pages on their text as read.
fn run_own_content(stores: &StoreSet, summary: &Summary) -> Option<SiteBlocks> {
    summary
        .verification
        .as_ref()
        .and_then(|v| v.own_content.as_ref())
        .and_then(|_| SiteBlocks::count(stores, crate::verify::DEFAULT_MEMORY))
}

/// How page `a` and page `b` (None: not in the run's stores) became candidates in the run.
fn candidates_of(
    stores: &StoreSet,
    summary: &Summary,
    own: Option<&SiteBlocks>,
    a: u32,
    b: Option<u32>,
) -> Candidates {
    let fp = stores.fp64();
    Candidates {
        shared_bands: b.and_then(|b| shared_bands(stores, a, b)),
        bands: stores.minhash_params().map(|p| p.bands),
        simhash64_distance: b.map_or(64, |b| (fp[a as usize] ^ fp[b as usize]).count_ones()),
        plan: summary
            .join
            .ran
            .as_ref()
            .map_or_else(String::new, |r| r.plan.clone()),
        own_lines_shared: own.zip(b).map(|(o, b)| o.own_lines_shared(stores, a, b)),
    }
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
    let candidates = candidates_of(stores, summary, own, a, b);
    let mut own_content = None;
    let (diff, note) = match b {
        None => (
            None,
            Some("the kept page is not in the run's stores".to_string()),
        ),
        Some(b) => match read_two(stores, (a, b), shard_dir, own.is_some()) {
            Ok([(ta, full_a), (tb, full_b)]) => {
                let d = match own.map(|o| own_compared(stores, o, (a, &ta), (b, &tb))) {
                    Some((shown, (oa, ob))) => {
                        let own_texts = shown.compared == "own content";
                        own_content = Some(shown);
                        if own_texts {
                            diff::diff(&oa, &ob, SHAPE)
                        } else {
                            diff::diff(&full_a, &full_b, SHAPE)
                        }
                    }
                    None => diff::diff(&ta, &tb, SHAPE),
                };
                (Some(d), None)
            }
            Err(note) => (None, Some(note)),
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

/// How a diff of two pages is shown in an answer.
const SHAPE: Shape = Shape {
    context: 12,
    budget: 3000,
};

/// The texts of pages `a` and `b` read again (each its text as fingerprinted, and its full
/// text where `full`), or why they could not be.
fn read_two(
    stores: &StoreSet,
    (a, b): (u32, u32),
    shard_dir: Option<&Path>,
    full: bool,
) -> Result<[(String, String); 2], String> {
    let found = crate::verify::reread::for_each_text_and_full(
        stores,
        &[a, b],
        shard_dir,
        if full {
            crate::verify::reread::Also::Full
        } else {
            crate::verify::reread::Also::Nothing
        },
        || (),
        |_, d, t, f| (d, t.to_string(), f.to_string()),
    )
    .map_err(|e| format!("the texts could not be read again: {e}"))?;
    let texts = |d: u32| {
        found
            .values
            .iter()
            .find(|v| v.0 == d)
            .map(|v| (v.1 .1.clone(), v.1 .2.clone()))
    };
    match (texts(a), texts(b)) {
        (Some(x), Some(y)) => Ok([x, y]),
        _ => Err("the texts were not found where the store recorded them".into()),
    }
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
    // The first five distinct lines set aside.
    let mut site_lines: Vec<String> = Vec::new();
    for l in ta
        .split('\n')
        .filter(|l| !l.is_empty() && own.is_site(h, crate::text::blocks::key(l)))
    {
        let l = diff::bounded(l, 200).into_owned();
        if !site_lines.contains(&l) {
            site_lines.push(l);
            if site_lines.len() == 5 {
                break;
            }
        }
    }
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
