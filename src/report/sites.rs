//! The removal audit: per site (the host of a document's URL) and per input store, the
//! documents, the documents removed, the removal rate, and the sites their kept documents are
//! on (`sites.tsv`, `stores.tsv`, `sites.svg`). A site whose removal rate is far above the
//! crawl's is flagged ([`flagged`], the rule there), so a source that dedup emptied is seen
//! before the text is used. It reads only what the run has: each document's URL (or its id
//! when that is a URL) and its kept document.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::base::tsv::tsv_field;
use crate::fingerprint::own::SiteBlocks;
use crate::fingerprint::store::{flags, StoreSet};
use crate::report::typed::{TableFormat, Writer};
use crate::text::blocks::Own;
use crate::Result;

/// The audit's file names in an output directory.
pub const SITES: &str = "sites.tsv";
/// Per input store (written when several are given).
pub const STORES: &str = "stores.tsv";
/// The plot of removal rate against site size.
pub const PLOT: &str = "sites.svg";

/// How many sites of kept documents a row names.
pub const KEPT_ON: usize = 3;
/// The rule's least documents for a site to be flagged.
pub const FLAG_MIN_DOCUMENTS: u64 = 10;
/// The rule's least removal rate for a site to be flagged.
pub const FLAG_MIN_RATE: f64 = 0.5;
/// The rule's least standard deviations above the crawl's rate.
pub const FLAG_SIGMAS: f64 = 4.0;

/// The rule a flagged site meets, as `summary.json` states it.
pub const FLAG_RULE: &str = "at least 10 documents, a removal rate of at least 0.5 and at least twice the crawl's, and at least 4 binomial standard deviations above the crawl's rate";

/// One row: a site (or a store) and what dedup removed there.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Row {
    /// The host (lower case, no port, no user), `-` where a document has no URL; or the
    /// store's path.
    pub site: String,
    /// Documents that could be removed (with `--against`, the new collection's).
    pub documents: u64,
    /// Documents removed.
    pub removed: u64,
    /// `removed / documents`.
    pub removal_rate: f64,
    /// The sites of the kept documents the removed ones duplicate, most first, with counts
    /// (at most [`KEPT_ON`]).
    pub kept_on: Vec<(String, u64)>,
    /// Documents compared on their full text under `--text main`: no main content was
    /// found, or it was too short to compare (a login or contact page).
    #[serde(default)]
    pub full_text: u64,
    /// Blocks set aside as their site's (own content, `dedup --site-blocks aside`), summed
    /// over the documents.
    #[serde(default)]
    pub blocks_aside: u64,
    /// Their words.
    #[serde(default)]
    pub words_aside: u64,
}

/// The audit of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Audit {
    /// Per site, most documents first (ties by name).
    pub sites: Vec<Row>,
    /// Per input store, in the order given; empty with a single store.
    pub stores: Vec<Row>,
    /// The crawl's removal rate.
    pub rate: f64,
    /// Documents audited.
    pub documents: u64,
    /// Documents removed.
    pub removed: u64,
}

pub use crate::base::host::site_of;
use crate::base::host::{host, normal};

/// The site of document `d`: of its URL, else of its id when that is a URL, else `-`;
/// borrowed from the store unless it has upper-case letters.
fn site(stores: &StoreSet, d: u32) -> Cow<'_, str> {
    match host(stores.url(d)).or_else(|| host(stores.raw_id(d))) {
        Some(h) => normal(h),
        None => Cow::Borrowed("-"),
    }
}

/// Documents looked at together on every core in the audit (what they hold is bounded).
const CHUNK: usize = 1 << 16;

/// Counts per key: documents, removed, and kept documents' keys.
#[derive(Default)]
struct Tally {
    documents: u64,
    removed: u64,
    full_text: u64,
    blocks_aside: u64,
    words_aside: u64,
    kept_on: HashMap<u32, u64>,
}

impl Tally {
    /// One document: `full` whether its text is its whole page, `aside` what its own content
    /// set aside, and the site of the document kept for it where it was removed.
    fn add(&mut self, full: bool, aside: Own, removed_for: Option<u32>) {
        self.documents += 1;
        self.full_text += u64::from(full);
        self.blocks_aside += u64::from(aside.blocks_aside);
        self.words_aside += u64::from(aside.words_aside);
        if let Some(site) = removed_for {
            self.removed += 1;
            *self.kept_on.entry(site).or_default() += 1;
        }
    }
}

fn rows(names: &[String], tallies: Vec<Tally>, site_names: &[String]) -> Vec<Row> {
    names
        .iter()
        .zip(tallies)
        .map(|(name, t)| {
            let mut on: Vec<(String, u64)> = t
                .kept_on
                .into_iter()
                .map(|(s, n)| (site_names[s as usize].clone(), n))
                .collect();
            on.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            on.truncate(KEPT_ON);
            Row {
                site: name.clone(),
                documents: t.documents,
                removed: t.removed,
                removal_rate: if t.documents == 0 {
                    0.0
                } else {
                    t.removed as f64 / t.documents as f64
                },
                kept_on: on,
                full_text: t.full_text,
                blocks_aside: t.blocks_aside,
                words_aside: t.words_aside,
            }
        })
        .collect()
}

/// The audit of the documents below `limit` (all of them, or the new collection's with
/// `--against`): `kept[d]` is document `d`'s kept document (itself when kept); with `own`,
/// the blocks and words each site's pages set aside.
pub fn audit(
    stores: &StoreSet,
    kept: &[u32],
    limit: Option<u32>,
    own: Option<&SiteBlocks>,
) -> Audit {
    let n = limit.unwrap_or(kept.len() as u32).min(kept.len() as u32);
    // Every document's site, kept documents of the old collection included (they are named
    // in kept_on): found on every core a chunk at a time (the chunk's names held, not every
    // document's), numbered in order on one.
    let mut index: foldhash::HashMap<String, u32> = foldhash::HashMap::default();
    let mut site_ids: Vec<u32> = Vec::with_capacity(kept.len());
    for first in (0..kept.len() as u32).step_by(CHUNK) {
        let end = (first + CHUNK as u32).min(kept.len() as u32);
        let found: Vec<Cow<'_, str>> = (first..end)
            .into_par_iter()
            .map(|d| site(stores, d))
            .collect();
        for s in found {
            let next = index.len() as u32;
            let id = match index.get(s.as_ref()) {
                Some(id) => *id,
                None => {
                    index.insert(s.into_owned(), next);
                    next
                }
            };
            site_ids.push(id);
        }
    }
    let mut names = vec![String::new(); index.len()];
    for (s, i) in index {
        names[i as usize] = s;
    }
    let mut by_site: Vec<Tally> = (0..names.len()).map(|_| Tally::default()).collect();
    let several = stores.stores().len() > 1;
    let mut by_store: Vec<Tally> = (0..if several { stores.stores().len() } else { 0 })
        .map(|_| Tally::default())
        .collect();
    let mut removed = 0u64;
    // What each document's own content set aside, on every core a chunk at a time; the
    // counting is a few additions a document.
    for first in (0..n).step_by(CHUNK) {
        let end = (first + CHUNK as u32).min(n);
        let aside: Vec<Own> = (first..end)
            .into_par_iter()
            .map(|d| own.map(|o| o.own_of(stores, d)).unwrap_or_default())
            .collect();
        for d in first..end {
            let k = kept[d as usize];
            let gone = k != d;
            removed += u64::from(gone);
            let full = stores.flags(d) & flags::FULL_TEXT != 0;
            let aside = aside[(d - first) as usize];
            let removed_for = gone.then(|| site_ids[k as usize]);
            by_site[site_ids[d as usize] as usize].add(full, aside, removed_for);
            if several {
                by_store[stores.position(d).0].add(full, aside, removed_for);
            }
        }
    }
    let mut sites = rows(&names, by_site, &names);
    sites.retain(|r| r.documents > 0);
    sites.sort_unstable_by(|a, b| {
        b.documents
            .cmp(&a.documents)
            .then_with(|| a.site.cmp(&b.site))
    });
    let store_names: Vec<String> = stores
        .stores()
        .iter()
        .map(|s| s.path().display().to_string())
        .collect();
    let stores_rows = if several {
        rows(&store_names, by_store, &names)
    } else {
        Vec::new()
    };
    Audit {
        sites,
        stores: stores_rows,
        rate: if n == 0 {
            0.0
        } else {
            removed as f64 / f64::from(n)
        },
        documents: u64::from(n),
        removed,
    }
}

/// Whether `r` is removed far above the crawl's rate `p`: at least
/// [`FLAG_MIN_DOCUMENTS`] documents, a removal rate of at least [`FLAG_MIN_RATE`] and twice
/// `p`, and at least [`FLAG_SIGMAS`] binomial standard deviations above `p` (so a small site
/// needs a rate further above the crawl's than a large one).
pub fn is_flagged(r: &Row, p: f64) -> bool {
    if r.documents < FLAG_MIN_DOCUMENTS || r.removal_rate < FLAG_MIN_RATE.max(2.0 * p) {
        return false;
    }
    let sd = (p * (1.0 - p) / r.documents as f64).sqrt();
    r.removal_rate - p >= FLAG_SIGMAS * sd
}

/// The sites flagged by [`is_flagged`], most removed first.
pub fn flagged(a: &Audit) -> Vec<&Row> {
    let mut f: Vec<&Row> = a.sites.iter().filter(|r| is_flagged(r, a.rate)).collect();
    f.sort_by(|x, y| y.removed.cmp(&x.removed).then_with(|| x.site.cmp(&y.site)));
    f
}

/// The header of `sites.tsv` and `stores.tsv`.
pub const HEADER: [&str; 8] = [
    "site",
    "documents",
    "removed",
    "removal_rate",
    "kept_on",
    "full_text",
    "blocks_aside",
    "words_aside",
];

fn kept_on_text(on: &[(String, u64)]) -> String {
    let mut t = String::new();
    for (i, (s, n)) in on.iter().enumerate() {
        if i > 0 {
            t.push(' ');
        }
        let _ = write!(t, "{s}={n}");
    }
    t
}

fn tsv(rows: &[Row]) -> String {
    let mut t = HEADER.join("\t");
    t.push('\n');
    for r in rows {
        let _ = writeln!(
            t,
            "{}\t{}\t{}\t{:.6}\t{}\t{}\t{}\t{}",
            tsv_field(&r.site),
            r.documents,
            r.removed,
            r.removal_rate,
            tsv_field(&kept_on_text(&r.kept_on)),
            r.full_text,
            r.blocks_aside,
            r.words_aside
        );
    }
    t
}

fn typed(stem: &Path, rows: &[Row], format: TableFormat) -> Result<PathBuf> {
    let mut w = Writer::create(stem, format, &HEADER)?;
    let mut cols = w.columns(rows.len());
    for r in rows {
        cols[0].push_str(&r.site);
        cols[1].push_int(Some(r.documents as i64));
        cols[2].push_int(Some(r.removed as i64));
        // As the TSV writes it (six decimals), so the two read the same.
        cols[3].push_float(Some((r.removal_rate * 1e6).round() / 1e6));
        cols[4].push_str(&kept_on_text(&r.kept_on));
        cols[5].push_int(Some(r.full_text as i64));
        cols[6].push_int(Some(r.blocks_aside as i64));
        cols[7].push_int(Some(r.words_aside as i64));
    }
    w.write(cols)?;
    w.finish()
}

/// Writes `sites.tsv`, `stores.tsv` (with several stores) and their typed tables in
/// `formats` into `dir`; returns the typed files. (The plot, `sites.svg`, is drawn by
/// `report::plot`, which reads the audit.)
pub fn write(dir: &Path, a: &Audit, formats: &[TableFormat]) -> Result<Vec<PathBuf>> {
    crate::base::atomic::write(&dir.join(SITES), tsv(&a.sites).as_bytes())?;
    if !a.stores.is_empty() {
        crate::base::atomic::write(&dir.join(STORES), tsv(&a.stores).as_bytes())?;
    }
    let mut files = Vec::new();
    for f in formats {
        files.push(typed(&dir.join("sites"), &a.sites, *f)?);
        if !a.stores.is_empty() {
            files.push(typed(&dir.join("stores"), &a.stores, *f)?);
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_are_hosts_without_user_port_or_case() {
        assert_eq!(
            site_of("https://User@WWW.Example.org:8080/a?b").as_deref(),
            Some("www.example.org")
        );
        assert_eq!(
            site_of("http://example.org.").as_deref(),
            Some("example.org")
        );
        assert_eq!(site_of("http://[::1]:80/x").as_deref(), Some("[::1]"));
        assert_eq!(site_of("http://a.b#frag").as_deref(), Some("a.b"));
        assert_eq!(site_of("urn:uuid:123"), None);
        // One site however its name is written: Unicode or its ASCII form, percent-encoded.
        for u in [
            "http://bücher.example/a",
            "http://xn--bcher-kva.example/b",
            "http://B%C3%BCcher.example/",
            "http://XN--BCHER-KVA.EXAMPLE./",
        ] {
            assert_eq!(site_of(u).as_deref(), Some("xn--bcher-kva.example"), "{u}");
        }
        assert_eq!(site_of("http://%41.example/").as_deref(), Some("a.example"));
        assert_eq!(site_of("http://0x7f.1/").as_deref(), Some("127.0.0.1"));
        assert_eq!(site_of("http:///path"), None);
    }

    /// Every field of `sites.tsv` is one field whatever a host holds.
    #[test]
    fn kept_on_is_escaped() {
        let mut r = row(4, 2);
        r.kept_on = vec![("a\tb\nc".into(), 2)];
        let t = tsv(&[r]);
        let line = t.lines().nth(1).unwrap();
        assert_eq!(t.lines().count(), 2, "{t:?}");
        assert_eq!(line.split('\t').count(), HEADER.len(), "{line:?}");
        assert!(line.ends_with("a\\tb\\nc=2\t0\t0\t0"), "{line:?}");
    }

    fn row(documents: u64, removed: u64) -> Row {
        Row {
            site: "s".into(),
            documents,
            removed,
            removal_rate: removed as f64 / documents as f64,
            kept_on: Vec::new(),
            full_text: 0,
            blocks_aside: 0,
            words_aside: 0,
        }
    }

    /// The rule: enough documents, a high rate, twice the crawl's, and far above it for the
    /// site's size.
    #[test]
    fn the_flag_rule() {
        assert!(is_flagged(&row(100, 95), 0.1));
        assert!(!is_flagged(&row(9, 9), 0.1), "too small");
        assert!(!is_flagged(&row(100, 40), 0.1), "below 0.5");
        assert!(!is_flagged(&row(100, 70), 0.4), "not twice the crawl's");
        // 10 documents at 0.6 against 0.25: 2.6 standard deviations only.
        assert!(!is_flagged(&row(10, 6), 0.25));
        assert!(is_flagged(&row(1000, 600), 0.25));
        // A crawl where nothing else is removed: any site of 10 removed at 0.5 stands out.
        assert!(is_flagged(&row(10, 5), 0.0));
    }
}
