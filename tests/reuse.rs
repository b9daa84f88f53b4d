//! Content reuse end to end: a crawl where one site's paragraphs are copied onto other sites,
//! wrapped in their own ads; `fingerprint --chunks`, `reuse discover`, `detect` and `top`
//! checked against counts made here from the same HTML.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use neardup::text::extract::payload_text;
use neardup::text::paragraphs::{chunk_hash, chunks};

use crate::common::{fingerprint, nd, response, stderr};

/// (url, html) of every page: an original site, copiers, and unrelated sites; every page has
/// the navigation idioms "Home" and "Next" (stop chunks).
fn crawl() -> Vec<(String, String)> {
    let para = |site: usize, p: usize, i: usize| {
        format!("Paragraph {i} of page {p} on site {site}, with words of its own: w{site}x{p}y{i}.")
    };
    let mut pages = Vec::new();
    let original: Vec<Vec<String>> = (0..8)
        .map(|p| (0..3 + p % 4).map(|i| para(0, p, i)).collect())
        .collect();
    for (p, paras) in original.iter().enumerate() {
        let body: String = paras.iter().map(|t| format!("<p>{t}</p>")).collect();
        pages.push((
            format!("https://orig.example/blog/{p}.html"),
            format!("<html><body><ul><li>Home</li><li>Next</li></ul>{body}</body></html>"),
        ));
    }
    for c in 0..14 {
        for (p, paras) in original.iter().enumerate() {
            // Each copier takes most pages, and wraps them in an ad of its own per page.
            if (c + p) % 5 == 0 {
                continue;
            }
            let body: String = paras.iter().map(|t| format!("<div>{t}</div>")).collect();
            pages.push((
                format!("http://copier{c}.example/mirror/{p}"),
                format!(
                    "<html><body><ul><li>Home</li><li>Next</li></ul><p>Buy widget {c}-{p} today!</p>{body}<p>Sponsored {c}/{p}</p></body></html>"
                ),
            ));
        }
    }
    for s in 1..200 {
        for p in 0..3 {
            let body: String = (0..4)
                .map(|i| format!("<p>{}</p>", para(s, p, i)))
                .collect();
            pages.push((
                format!("https://site{s}.example/docs/{p}"),
                format!("<html><body><ul><li>Home</li><li>Next</li></ul>{body}<p>Footer of site {s}</p></body></html>"),
            ));
        }
    }
    pages
}

fn write_crawl(dir: &Path, pages: &[(String, String)]) -> std::path::PathBuf {
    let mut warc = Vec::new();
    for (i, (url, html)) in pages.iter().enumerate() {
        warc.extend(response(&format!("d{i}"), url, html));
    }
    let path = dir.join("crawl.warc");
    fs::write(&path, warc).unwrap();
    path
}

/// Every chunk's count, made here from the HTML.
fn brute_counts(pages: &[(String, String)]) -> BTreeMap<u128, (u64, String)> {
    let mut counts: BTreeMap<u128, (u64, String)> = BTreeMap::new();
    let mut text = String::new();
    for (_, html) in pages {
        payload_text(
            html.as_bytes(),
            None,
            Some(true),
            Default::default(),
            "",
            &mut text,
        );
        for c in chunks(&text) {
            let e = counts.entry(chunk_hash(c)).or_insert((0, c.to_string()));
            e.0 += 1;
        }
    }
    counts
}

fn tsv(path: &Path) -> Vec<Vec<String>> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

#[test]
fn discovery_counts_equal_a_brute_force_count_and_stop_chunks_are_never_labeled() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pages = crawl();
    let warc = write_crawl(d, &pages);
    let store = d.join("store");
    let o = fingerprint(&[&warc], &store, &["--chunks"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info = nd("info {}", &[&store]).ok();
    assert!(info.contains("paragraph chunks ("), "{info}");
    let out = d.join("reuse");
    let min = 10u64;
    // A budget too small to work in is refused before anything is read (the passes, tested
    // many to a count in reuse::count's unit tests, would multiply without end).
    let e = nd("reuse discover {} --memory 1 -o {}", &[&store, &out]).output();
    assert!(
        !e.status.success() && stderr(&e).contains("below the 16 MiB"),
        "{}",
        stderr(&e)
    );
    for memory in ["4G", "16M"] {
        nd(
            "-q reuse discover {} --min-count {} -o {} --force --memory {}",
            &[&store, &min.to_string(), &out, &memory],
        )
        .ok();
        let want = brute_counts(&pages);
        let labeled: BTreeMap<u128, (u64, String)> = tsv(&out.join("labeled.tsv"))
            .into_iter()
            .map(|r| {
                (
                    u128::from_str_radix(&r[0], 16).unwrap(),
                    (r[1].parse().unwrap(), r[3].clone()),
                )
            })
            .collect();
        let stop = ["Home", "Next"];
        let expected: BTreeMap<u128, (u64, String)> = want
            .iter()
            .filter(|(_, (c, t))| *c > min && !stop.contains(&t.as_str()))
            .map(|(h, v)| (*h, v.clone()))
            .collect();
        assert!(!expected.is_empty());
        assert_eq!(labeled, expected, "--memory {memory}");
        // The idioms were frequent, and are reported as stop chunks instead.
        assert!(want[&chunk_hash("Home")].0 > min);
        let stop_rows = tsv(&out.join("stop.tsv"));
        assert!(
            stop_rows.iter().any(|r| r[4] == "Home" && r[3] == "list"),
            "{stop_rows:?}"
        );
        // The distribution counts every distinct chunk once.
        let freq: u64 = tsv(&out.join("frequency.tsv"))
            .iter()
            .map(|r| r[1].parse::<u64>().unwrap())
            .sum();
        assert_eq!(freq, want.len() as u64);
        let labels = fs::read(out.join("labels.bin")).unwrap();
        assert_eq!(labels.len(), 16 * expected.len());
        let summary = fs::read_to_string(out.join("summary.json")).unwrap();
        assert!(
            summary.contains("\"command\": \"reuse discover\""),
            "{summary}"
        );
        assert!(fs::read_to_string(out.join("frequency.svg"))
            .unwrap()
            .contains("<svg"));
    }
    // The automatic rule: the copied paragraphs are on 12+ sites, so 5 sites stop them all.
    nd(
        "-q reuse discover {} --min-count 10 -o {} --force --auto-stop --stop-sites 5",
        &[&store, &out],
    )
    .ok();
    assert!(tsv(&out.join("labeled.tsv")).is_empty());
    assert!(tsv(&out.join("stop.tsv")).iter().any(|r| r[3] == "auto"));
    // Top: the idioms first (on every page), marked as stop chunks.
    let top = nd("-q reuse top {} -n 3", &[&store]).ok();
    let rows: Vec<Vec<&str>> = top
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0][1], pages.len().to_string());
    assert_eq!(rows[0][3], "1");
    assert!(["Home", "Next"].contains(&rows[0][5]), "{top}");
}

#[test]
fn copiers_are_found_page_by_page_and_as_neighbourhoods() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pages = crawl();
    let warc = write_crawl(d, &pages);
    let store = d.join("store");
    assert!(fingerprint(&[&warc], &store, &["--chunks"])
        .status
        .success());
    let found = d.join("found");
    nd(
        "-q reuse discover {} --min-count 10 -o {}",
        &[&store, &found],
    )
    .ok();
    let out = d.join("detect");
    nd(
        "-q reuse detect {} --labels {} -o {}",
        &[&store, &found, &out],
    )
    .ok();
    let targets: Vec<String> = tsv(&out.join("pages.tsv"))
        .into_iter()
        .filter(|r| r[5] == "1")
        .map(|r| r[1].clone())
        .collect();
    assert!(
        targets.iter().filter(|u| u.contains("copier")).count() > 80,
        "{targets:?}"
    );
    assert!(targets.iter().all(|u| !u.contains("site")), "{targets:?}");
    let bad: Vec<String> = tsv(&out.join("neighbourhoods.tsv"))
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    for c in 0..14 {
        assert!(bad.contains(&format!("copier{c}.example/")), "{bad:?}");
        assert!(
            bad.contains(&format!("copier{c}.example/mirror/")),
            "{bad:?}"
        );
    }
    assert!(bad.iter().all(|p| !p.starts_with("site")), "{bad:?}");
    let members = tsv(&out.join("neighbourhood-pages.tsv"));
    assert!(members.iter().any(|r| r[0] == "copier3.example/"));

    // Expert labels: a store of the original site alone.
    let orig: Vec<(String, String)> = pages
        .iter()
        .filter(|(u, _)| u.contains("orig."))
        .cloned()
        .collect();
    let ref_dir = d.join("ref");
    fs::create_dir(&ref_dir).unwrap();
    let ref_warc = write_crawl(&ref_dir, &orig);
    let ref_store = d.join("ref-store");
    assert!(fingerprint(&[&ref_warc], &ref_store, &["--chunks"])
        .status
        .success());
    let out2 = d.join("detect2");
    nd(
        "-q reuse detect {} --labels {} -o {} --no-builtin-stop --containment 0.5",
        &[&store, &ref_store, &out2],
    )
    .ok();
    let rows = tsv(&out2.join("pages.tsv"));
    let copier_targets = rows
        .iter()
        .filter(|r| r[1].contains("copier") && r[5] == "1")
        .count();
    let copier_pages = pages.iter().filter(|(u, _)| u.contains("copier")).count();
    assert_eq!(copier_targets, copier_pages);
}

#[test]
fn reuse_outputs_are_refused_where_they_would_replace_a_users_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let warc = write_crawl(d, &crawl());
    let plain = d.join("plain");
    assert!(fingerprint(&[&warc], &plain, &[]).status.success());
    let o = nd("reuse discover {} -o {}", &[&plain, &d.join("x")]).output();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--chunks"), "{}", stderr(&o));
    let store = d.join("store");
    assert!(fingerprint(&[&warc], &store, &["--chunks"])
        .status
        .success());
    let mine = d.join("mine");
    fs::create_dir(&mine).unwrap();
    fs::write(mine.join("notes.txt"), "mine").unwrap();
    let o = nd("reuse discover {} -o {} --force", &[&store, &mine]).output();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did not write there (notes.txt)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read_to_string(mine.join("notes.txt")).unwrap(), "mine");
    let out = d.join("out");
    nd("-q reuse discover {} -o {}", &[&store, &out]).ok();
    let o = nd("reuse discover {} -o {}", &[&store, &out]).output();
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    nd("-q reuse discover {} -o {} --force", &[&store, &out]).ok();
    let o = nd(
        "reuse detect {} --labels {} -o {}",
        &[&store, &plain, &d.join("y")],
    )
    .output();
    assert!(stderr(&o).contains("--chunks"), "{}", stderr(&o));
}
