//! The report page of a `dedup` output (`OUT/report.html`, written by every `dedup` and by
//! `neardup report OUT` for an earlier run): the run's facts from `summary.json`, the audit
//! from `sites.tsv`, the plots beside them, and a sample of removals shown beside the kept
//! page each names, with the texts verification compared read again from the shards.
//!
//! The sample is drawn so that it shows what a person must check, not only the easy copies:
//! the lowest scores (the borderline), removals from the largest groups, from the sites removed
//! the most, and a seeded spread of the rest. Its size, the audit rows and each diff's words
//! are bounded, so the page is bounded whatever the crawl's size ([`LIMITS`]).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::base::claim::OutDir;
use crate::base::tsv::tsv_value;
use crate::fingerprint::store::StoreSet;
use crate::report::diff::{self, Shape};
use crate::report::lists::{self, read_excluded, read_removals, Removal};
use crate::report::page::{self, Page, Sample, Site};
use crate::report::sites;
use crate::report::summary::{ReportSummary, Summary};
use crate::{Error, Result};

/// Bytes of an id, a URL, a site or a reason the page shows at most (cut with an ellipsis).
pub const MAX_STRING: usize = 1000;

/// How much the page holds at most.
pub struct Limits {
    /// Removals with the lowest scores.
    pub borderline: usize,
    /// The largest groups, and removals shown from each.
    pub groups: usize,
    pub per_group: usize,
    /// The sites removed the most, and removals shown from each.
    pub sites: usize,
    pub per_site: usize,
    /// Removals drawn evenly from the rest.
    pub spread: usize,
    /// Rows of the audit table (flagged sites first, then the most removed).
    pub site_rows: usize,
}

/// The page's bounds: at most 40 + 8 x 3 + 8 x 3 + 40 = 128 pairs of at most 4 000 words
/// shown each, and 2 000 sites.
pub const LIMITS: Limits = Limits {
    borderline: 40,
    groups: 8,
    per_group: 3,
    sites: 8,
    per_site: 3,
    spread: 40,
    site_rows: 2000,
};

/// `sites.tsv`'s rows as the page shows them (flagged by the run's rule).
fn read_sites(path: &Path, flagged: &[String]) -> Result<Vec<Site>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(path, e)),
    };
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 5 {
            continue;
        }
        let site = tsv_value(f[0]).into_owned();
        out.push(Site {
            flagged: flagged.contains(&site),
            site: diff::bounded(&site, MAX_STRING).into_owned(),
            documents: f[1].parse().unwrap_or(0),
            removed: f[2].parse().unwrap_or(0),
            rate: f[3].parse().unwrap_or(0.0),
            kept_on: diff::bounded(f[4], MAX_STRING).into_owned(),
            full_text: f.get(5).and_then(|v| v.parse().ok()).unwrap_or(0),
            words_aside: f.get(7).and_then(|v| v.parse().ok()).unwrap_or(0),
        });
    }
    Ok(out)
}

/// Which removals the page shows, and why each: indices into `removals` in the order shown
/// (borderline first), each with its reasons. `site` gives a removal's site; `top_sites`
/// are the sites to draw from, most removed first.
pub fn draw(
    removals: &[Removal],
    site: &[String],
    top_sites: &[String],
    limits: &Limits,
) -> Vec<(usize, Vec<&'static str>)> {
    let mut why: BTreeMap<usize, Vec<&'static str>> = BTreeMap::new();
    let mut order: Vec<usize> = Vec::new();
    let mut add = |i: usize, w: &'static str, why: &mut BTreeMap<usize, Vec<&'static str>>| {
        let e = why.entry(i).or_default();
        if e.is_empty() {
            order.push(i);
        }
        if !e.contains(&w) {
            e.push(w);
        }
    };
    // The lowest scores below 1 (the nearest to the threshold), ties by id.
    let by_score = |a: &usize, b: &usize| {
        let (x, y) = (&removals[*a], &removals[*b]);
        x.score
            .unwrap_or(1.0)
            .total_cmp(&y.score.unwrap_or(1.0))
            .then_with(|| x.id.cmp(&y.id))
    };
    let mut scored: Vec<usize> = (0..removals.len())
        .filter(|i| removals[*i].score.is_some_and(|s| s < 1.0))
        .collect();
    scored.sort_by(by_score);
    for &i in scored.iter().take(limits.borderline) {
        add(i, "borderline", &mut why);
    }
    // The largest groups (the kept page with the most removed for it), ties by kept id;
    // from each, its lowest scores.
    let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in removals.iter().enumerate() {
        groups.entry(r.kept.as_str()).or_default().push(i);
    }
    let mut big: Vec<(&str, Vec<usize>)> = groups.into_iter().collect();
    big.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(b.0)));
    for (_, members) in big.iter_mut().take(limits.groups) {
        members.sort_by(by_score);
        for &i in members.iter().take(limits.per_group) {
            add(i, "large group", &mut why);
        }
    }
    // The sites removed the most.
    for s in top_sites.iter().take(limits.sites) {
        let mut members: Vec<usize> = (0..removals.len()).filter(|i| &site[*i] == s).collect();
        members.sort_by(by_score);
        for &i in members.iter().take(limits.per_site) {
            add(i, "site", &mut why);
        }
    }
    // A seeded spread: the removals whose id hashes lowest.
    let mut rest: Vec<(u64, usize)> = (0..removals.len())
        .map(|i| (xxhash_rust::xxh3::xxh3_64(removals[i].id.as_bytes()), i))
        .collect();
    rest.sort_unstable();
    for &(_, i) in rest.iter().take(limits.spread) {
        add(i, "spread", &mut why);
    }
    order
        .into_iter()
        .map(|i| (i, why.remove(&i).unwrap_or_default()))
        .collect()
}

/// The options that decided the lists, as the page names them.
fn options(s: &Summary) -> Vec<(String, String)> {
    let name = |v: serde_json::Result<serde_json::Value>| match v {
        Ok(serde_json::Value::String(s)) => s,
        Ok(v) => v.to_string(),
        Err(_) => String::new(),
    };
    let mut o = Vec::new();
    if let Some(f) = &s.fingerprint {
        o.push((
            "text read".into(),
            name(serde_json::to_value(f.params.text)),
        ));
    }
    if let Some(ran) = &s.join.ran {
        o.push(("candidates".into(), ran.plan.clone()));
    }
    match &s.verification {
        Some(v) => o.push((
            "verified".into(),
            format!("{} >= {} over word {}-grams", v.measure, v.min, v.shingle),
        )),
        None => o.push(("verified".into(), "no (SimHash distance only)".into())),
    }
    if let Some(c) = &s.clusters {
        o.push(("SimHash tau".into(), c.tau.to_string()));
        o.push((
            "kept page".into(),
            name(serde_json::to_value(c.representative)),
        ));
        o.push(("removal".into(), name(serde_json::to_value(c.remove_by))));
        if let Some(p) = &c.policy {
            if let Some(k) = &p.keep_by {
                o.push((
                    "keep by".into(),
                    format!("{k} ({})", name(serde_json::to_value(p.order))),
                ));
            }
            if !p.prefer.is_empty() {
                let stores: Vec<String> =
                    p.prefer.iter().map(|p| p.display().to_string()).collect();
                o.push(("preferred stores".into(), stores.join(", ")));
            }
        }
    }
    if let Some(a) = &s.against {
        o.push((
            "against".into(),
            format!("{} older documents, never removed", a.old_documents),
        ));
    }
    o
}

/// A plot of the output directory, without its XML prolog; None where there is none.
fn plot(dir: &Path, name: &str) -> Option<String> {
    let svg = std::fs::read_to_string(dir.join(name)).ok()?;
    let at = svg.find("<svg")?;
    Some(svg[at..].to_string())
}

/// Builds the page of the run in `dir` (its `summary` and the `stores` it read) and writes
/// `dir/report.html`. Texts are read again from the shards (where the store recorded them,
/// else in `shard_dir`); a shard that cannot be read leaves its pairs without texts, said on
/// the page, never a failed run.
pub fn write_page(
    dir: &Path,
    summary: &Summary,
    stores: &StoreSet,
    shard_dir: Option<&Path>,
) -> Result<ReportSummary> {
    let started = Instant::now();
    let removals = read_removals(&dir.join(lists::REMOVE))?;
    let excluded = read_excluded(&dir.join(lists::EXCLUDED))?;
    let flagged: Vec<String> = summary
        .sites
        .as_ref()
        .map(|s| s.flagged.iter().map(|r| r.site.clone()).collect())
        .unwrap_or_default();
    let mut site_rows = read_sites(&dir.join(sites::SITES), &flagged)?;
    let sites_total = site_rows.len() as u64;
    // The most removed first; flagged ones before all.
    site_rows.sort_by(|a, b| {
        b.flagged
            .cmp(&a.flagged)
            .then(b.removed.cmp(&a.removed))
            .then_with(|| a.site.cmp(&b.site))
    });
    let top_sites: Vec<String> = site_rows
        .iter()
        .filter(|r| r.removed > 0)
        .map(|r| r.site.clone())
        .collect();
    site_rows.truncate(LIMITS.site_rows);

    let names = super::corpus::ids_of(stores);
    let doc = |id: &str| names.get(id).copied();
    let site_of = |id: &str| {
        doc(id)
            .and_then(|d| sites::site_of(stores.url(d)))
            .unwrap_or_else(|| "-".into())
    };
    let removed_sites: Vec<String> = removals.iter().map(|r| site_of(&r.id)).collect();
    let drawn = draw(&removals, &removed_sites, &top_sites, &LIMITS);
    let mut group: HashMap<&str, u64> = HashMap::new();
    for r in &removals {
        *group.entry(r.kept.as_str()).or_insert(1) += 1;
    }

    // The texts of the pairs shown, read again in one pass over their shards.
    let mut wanted: Vec<u32> = drawn
        .iter()
        .flat_map(|(i, _)| [doc(&removals[*i].id), doc(&removals[*i].kept)])
        .flatten()
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let (texts, text_error): (HashMap<u32, String>, Option<String>) =
        match crate::verify::reread::for_each_text(
            stores,
            &wanted,
            shard_dir,
            || (),
            |_, _, t| t.to_string(),
        ) {
            Ok(found) => (found.values.into_iter().collect(), None),
            Err(e) => (HashMap::new(), Some(e.to_string())),
        };
    // Each diff is bounded in time (`report::diff`); the pairs are diffed in parallel.
    let samples: Vec<Sample> = drawn
        .par_iter()
        .map(|(i, why)| {
            let r = &removals[*i];
            let (a, b) = (doc(&r.id), doc(&r.kept));
            let url = |d: Option<u32>| d.map(|d| stores.url(d).to_string()).unwrap_or_default();
            let pair = a
                .and_then(|a| texts.get(&a))
                .zip(b.and_then(|b| texts.get(&b)));
            let (diff, note) = match pair {
                Some((ta, tb)) => (Some(diff::diff(ta, tb, Shape::default())), None),
                None => {
                    let why = match (&text_error, a.zip(b)) {
                        (_, None) => "a document of this pair is not in the run's stores".into(),
                        (Some(e), _) => format!("the texts could not be read again: {e}"),
                        (None, _) => {
                            "the texts were not found where the store recorded them".into()
                        }
                    };
                    (None, Some(why))
                }
            };
            // Every string the page holds is bounded (ids and URLs of 300 kB exist).
            let b_ = |s: &str| diff::bounded(s, MAX_STRING).into_owned();
            Sample {
                id: b_(&r.id),
                url: b_(&url(a)),
                site: b_(&removed_sites[*i]),
                kept: b_(&r.kept),
                kept_url: b_(&url(b)),
                score: r.score,
                hamming64: r.hamming64,
                group: group.get(r.kept.as_str()).copied().unwrap_or(1),
                why: why.iter().map(|w| w.to_string()).collect(),
                diff,
                note,
            }
        })
        .collect();

    let mut reasons: BTreeMap<String, u64> = BTreeMap::new();
    for (_, why) in &excluded {
        *reasons.entry(why.clone()).or_default() += 1;
    }
    let clusters = summary.clusters.as_ref();
    let title = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string());
    let mut plots = Vec::new();
    for (head, file) in [
        ("Removal rate per site", sites::PLOT),
        (
            "Documents kept and largest cluster by threshold",
            "sweep.svg",
        ),
        ("Cluster sizes", "cluster_sizes.svg"),
    ] {
        if let Some(svg) = plot(dir, file) {
            plots.push((head.to_string(), svg));
        }
    }
    let page = Page {
        title,
        created_by: summary.created_by.clone(),
        run: page::Run {
            documents: summary.documents,
            kept: clusters.map_or(0, |c| c.keep),
            removed: clusters.map_or(removals.len() as u64, |c| c.remove),
            excluded: reasons.into_iter().collect(),
            seconds: summary.seconds,
            stages: summary.stages.clone(),
            options: options(summary),
        },
        sites: site_rows,
        sites_total,
        crawl_rate: summary.sites.as_ref().map_or(0.0, |s| s.removal_rate),
        samples,
        removed_total: removals.len() as u64,
        plots,
    };
    let html = page::render(&page);
    crate::base::atomic::write(&dir.join(page::NAME), html.as_bytes())?;
    Ok(ReportSummary {
        bytes: html.len() as u64,
        pairs: page.samples.len() as u64,
        pairs_without_text: page.samples.iter().filter(|s| s.diff.is_none()).count() as u64,
        sites: page.sites.len() as u64,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The stores a finished run read (its own, then an `--against` run's older ones), found
/// again: as `summary.json` names them (absolute paths), or where the output directory was
/// moved with its store in it, inside `dir`. A relative path (a summary of an earlier version)
/// is found inside `dir` first, never in the directory this command runs from before that.
pub fn run_stores(dir: &Path, s: &Summary) -> Result<Vec<PathBuf>> {
    s.stores
        .iter()
        .map(|p| {
            let inside = p.file_name().map(|n| dir.join(n)).filter(|q| q.exists());
            let found = if p.is_absolute() {
                Some(p.clone()).filter(|p| p.exists()).or(inside)
            } else {
                inside.or_else(|| Some(p.clone()).filter(|p| p.exists()))
            };
            found.ok_or_else(|| {
                Error::Config(format!(
                    "{}: the run's store {} is not there (stores are found as summary.json names them, or in the output directory)",
                    dir.display(),
                    p.display()
                ))
            })
        })
        .collect()
}

/// The stores of the finished run `s` in `dir` opened as the run opened them (an older
/// collection after the new one, as `--against` set them apart), and refused where they are not
/// the stores the run read (their fingerprints differ from the digest `summary.json` keeps).
pub fn open_run_stores(dir: &Path, s: &Summary) -> Result<StoreSet> {
    let paths = run_stores(dir, s)?;
    let mut stores = StoreSet::open(&paths)?;
    if let Some(a) = &s.against {
        stores = stores.against(s.stores.len().saturating_sub(a.old_stores.len()));
    }
    if let Some(want) = &s.stores_digest {
        let got = format!("{:016x}", stores.digest());
        if &got != want {
            return Err(Error::Config(format!(
                "{}: {} is not the store the run read (its fingerprints' digest is {got}, summary.json says {want}): it was made again or replaced since; run dedup again",
                dir.display(),
                paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    Ok(stores)
}

/// The `summary.json` of the finished `dedup` run in `dir`; an error that says so where
/// `dir` is not one (no summary: another directory, or a run that did not finish).
pub fn finished_run(dir: &Path) -> anyhow::Result<Summary> {
    if !dir.join("summary.json").is_file() {
        anyhow::bail!(
            "{}: not the output of a finished `neardup dedup` run (it has no summary.json)",
            dir.display()
        );
    }
    // Another command's summary (`substrings`, `reuse`) is named as such, not as a schema
    // error.
    #[derive(serde::Deserialize)]
    struct Head {
        command: Option<String>,
    }
    let path = dir.join("summary.json");
    let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    if let Ok(Head { command: Some(c) }) = serde_json::from_slice::<Head>(&bytes) {
        if !matches!(c.as_str(), "dedup" | "sweep" | "cluster") {
            anyhow::bail!(
                "{}: the output of `neardup {c}`, not of `neardup dedup`: report and explain read a dedup run's lists",
                dir.display()
            );
        }
    }
    Ok(Summary::read(dir)?)
}

/// `neardup report OUT`: the page of an earlier `dedup` run, written again (its summary and
/// lists as they are; texts read again from the shards, or from `shard_dir`).
pub fn report(dir: &Path, shard_dir: Option<&Path>) -> anyhow::Result<ReportSummary> {
    let summary = finished_run(dir)?;
    if summary.command != crate::report::summary::Command::Dedup {
        anyhow::bail!(
            "{}: the output of another command than `neardup dedup`: a report page is made of a dedup run's lists",
            dir.display()
        );
    }
    let paths = run_stores(dir, &summary)?;
    let stores = open_run_stores(dir, &summary)?;
    let claimed = OutDir::claim_for(dir, &paths, "dedup", None)?;
    let r = write_page(dir, &summary, &stores, shard_dir)?;
    claimed.finish()?;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn removal(id: &str, kept: &str, score: f64) -> Removal {
        Removal {
            id: id.into(),
            kept: kept.into(),
            hamming64: Some(3),
            score: Some(score),
        }
    }

    #[test]
    fn the_sample_shows_the_borderline_the_large_groups_the_sites_and_a_spread() {
        let mut removals = Vec::new();
        let mut site = Vec::new();
        // One large group on site a, small groups elsewhere, a few borderline scores.
        for i in 0..30 {
            removals.push(removal(
                &format!("big{i:02}"),
                "k0",
                0.99 - i as f64 * 0.001,
            ));
            site.push("a.example".to_string());
        }
        for i in 0..200 {
            let score = if i % 50 == 0 { 0.83 } else { 1.0 };
            removals.push(removal(
                &format!("d{i:03}"),
                &format!("k{}", 1 + i / 2),
                score,
            ));
            site.push(format!("s{}.example", i % 20));
        }
        let limits = Limits {
            borderline: 3,
            groups: 2,
            per_group: 2,
            sites: 1,
            per_site: 2,
            spread: 5,
            site_rows: 10,
        };
        let drawn = draw(&removals, &site, &["s7.example".to_string()], &limits);
        let ids = |w: &str| -> Vec<&str> {
            drawn
                .iter()
                .filter(|(_, why)| why.contains(&w))
                .map(|(i, _)| removals[*i].id.as_str())
                .collect()
        };
        // The four scores of 0.83 are the lowest; three of them, by id.
        assert_eq!(ids("borderline"), ["d000", "d050", "d100"]);
        // The largest group is k0's (30 removed): its two lowest scores; and k1's two (one
        // of them borderline too, so listed first).
        assert_eq!(ids("large group"), ["d000", "big29", "big28", "d001"]);
        assert_eq!(ids("site").len(), 2);
        assert!(ids("site")
            .iter()
            .all(|id| site[removals.iter().position(|r| r.id == *id).unwrap()] == "s7.example"));
        assert_eq!(ids("spread").len(), 5);
        // No removal twice; the same draw every time.
        let mut seen: Vec<usize> = drawn.iter().map(|(i, _)| *i).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), drawn.len());
        assert_eq!(
            drawn,
            draw(&removals, &site, &["s7.example".to_string()], &limits)
        );
    }
}
