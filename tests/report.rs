//! The report page and `neardup explain`: every `dedup` writes `report.html`, whose sample
//! pairs are lines of `remove.tsv` with the diff of their texts; `neardup report` writes the
//! same page again; `explain` answers for removed, kept, excluded and unknown ids as the lists
//! say; and a real browser (headless Chromium) runs the page's script without an error and
//! draws the sample and the audit from it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::common::{nd, stderr};

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The JSON block of a report page.
fn page_data(html: &str) -> serde_json::Value {
    let start = html
        .find("<script type=\"application/json\" id=\"data\">")
        .unwrap()
        + 42;
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

/// remove.tsv as removed id -> (kept id, score).
fn removals(out: &Path) -> BTreeMap<String, (String, String)> {
    read(&out.join("remove.tsv"))
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), (f[1].to_string(), f[3].to_string()))
        })
        .collect()
}

/// A web-shaped synthetic crawl (planted groups, template sites) deduplicated, with short
/// pages excluded by `--min-terms`.
fn run(dir: &Path) -> std::path::PathBuf {
    let crawl = dir.join("crawl");
    let out = dir.join("out");
    nd(
        "synth-crawl --docs 1200 --shape web --shards 2 -q -o {}",
        &[&crawl],
    )
    .ok();
    nd("dedup {} -o {} -q --min-terms 120", &[&crawl, &out]).ok();
    out
}

#[test]
fn every_dedup_writes_a_page_whose_pairs_are_the_lists_and_explain_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path());
    let html = read(&out.join("report.html"));
    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    assert_eq!(summary["report"]["bytes"].as_u64(), Some(html.len() as u64));
    let stages: Vec<&str> = summary["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(stages[0], "fingerprint");
    assert!(
        stages.contains(&"candidates and verification"),
        "{stages:?}"
    );
    let data = page_data(&html);
    let removed = removals(&out);
    let samples = data["samples"].as_array().unwrap();
    assert!(samples.len() >= 20, "{} pairs", samples.len());
    assert_eq!(
        summary["report"]["pairs"].as_u64(),
        Some(samples.len() as u64)
    );
    let mut whys = BTreeSet::new();
    for s in samples {
        let id = s["id"].as_str().unwrap();
        let (kept, score) = &removed[id];
        assert_eq!(s["kept"].as_str().unwrap(), kept, "{id}");
        let listed: f64 = score.parse().unwrap();
        assert!((s["score"].as_f64().unwrap() - listed).abs() < 1e-6, "{id}");
        let d = &s["diff"];
        assert!(d["shared_words"].as_u64().unwrap() > 0, "{id}: {d}");
        for w in s["why"].as_array().unwrap() {
            whys.insert(w.as_str().unwrap().to_string());
        }
    }
    for w in ["borderline", "large group", "site", "spread"] {
        assert!(whys.contains(w), "no {w} in {whys:?}");
    }
    // The sites table holds the flagged sites first.
    let sites = data["sites"].as_array().unwrap();
    assert!(!sites.is_empty());
    let flags: Vec<bool> = sites
        .iter()
        .map(|s| s["flagged"].as_bool().unwrap())
        .collect();
    assert!(
        flags.windows(2).all(|w| w[0] || !w[1]),
        "flagged sites not first"
    );
    // The page is self-contained: nothing is fetched.
    for fetch in ["src=\"http", "href=\"http://", "<link", "@import", "url("] {
        assert!(!html.replace("a.href = url", "").contains(fetch), "{fetch}");
    }

    // Written again by `neardup report`: the same page.
    std::fs::remove_file(out.join("report.html")).unwrap();
    nd("report {} -q", &[&out]).ok();
    let again = read(&out.join("report.html"));
    let at = again.bytes().zip(html.bytes()).position(|(a, b)| a != b);
    assert!(
        again == html,
        "the page written again differs from byte {at:?}"
    );

    // explain: a removed page names its kept page, the shared band keys and the diff.
    let (id, (kept, _)) = removed.iter().next().unwrap();
    let e: serde_json::Value =
        serde_json::from_str(&nd("explain {} {} --json", &[&out, id]).ok()).unwrap();
    assert_eq!(e["status"], "removed");
    assert_eq!(e["kept"].as_str().unwrap(), kept);
    assert!(!e["candidates"]["shared_bands"]
        .as_array()
        .unwrap()
        .is_empty());
    assert!(e["diff"]["shared_words"].as_u64().unwrap() > 0);
    let text = nd("explain {} {}", &[&out, id]).ok();
    assert!(text.contains(&format!("kept:    {kept} ")), "{text}");
    assert!(text.contains("MinHash band keys shared"), "{text}");
    // A kept page lists the pages removed for it, as remove.tsv does.
    let for_kept: BTreeSet<&str> = removed
        .iter()
        .filter(|(_, (k, _))| k == kept)
        .map(|(r, _)| r.as_str())
        .collect();
    let e: serde_json::Value =
        serde_json::from_str(&nd("explain {} {} --json", &[&out, kept]).ok()).unwrap();
    assert_eq!(e["status"], "kept");
    let listed: BTreeSet<&str> = e["removed_for_it"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, for_kept);
    // An excluded page says why.
    let excluded = read(&out.join("excluded.tsv"));
    let (ex_id, reason) = excluded
        .lines()
        .nth(1)
        .expect("a page excluded")
        .split_once('\t')
        .unwrap();
    let e: serde_json::Value =
        serde_json::from_str(&nd("explain {} {} --json", &[&out, &ex_id]).ok()).unwrap();
    assert_eq!(e["status"], "excluded");
    assert_eq!(e["reason"], reason);
    // An id that is not in the run is an error saying so.
    let err = nd("explain {} no-such-page", &[&out]).fails();
    assert!(err.contains("not a document of the run"), "{err}");
    // A directory that is not a dedup output is named as such.
    let crawl = dir.path().join("crawl");
    for cmd in ["report {}", "explain {} x"] {
        let err = nd(cmd, &[&crawl]).fails();
        assert!(
            err.contains("not the output of a finished `neardup dedup` run"),
            "{err}"
        );
    }
}

/// Chromium, where it is installed; with NEARDUP_REQUIRE_BROWSER set (CI installs it), it
/// must be.
fn chromium() -> Option<&'static str> {
    for c in ["chromium", "chromium-browser", "google-chrome"] {
        if Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return Some(c);
        }
    }
    assert!(
        std::env::var_os("NEARDUP_REQUIRE_BROWSER").is_none(),
        "NEARDUP_REQUIRE_BROWSER is set but no chromium was found"
    );
    eprintln!("SKIPPED: no chromium; install Debian's chromium to run the report in a browser");
    None
}

#[test]
fn a_browser_runs_the_page_without_an_error_and_draws_the_sample_and_the_audit() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path());
    let html = read(&out.join("report.html"));
    let data = page_data(&html);
    let profile = dir.path().join("profile");
    let o = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", out.join("report.html").display()))
        .output()
        .expect("run chromium");
    assert!(o.status.success(), "{}", stderr(&o));
    let dom = String::from_utf8_lossy(&o.stdout);
    // The script ran to its end, and no error reached the page's error box.
    assert!(
        dom.contains("data-ready=\"1\""),
        "the script did not finish: {}",
        stderr(&o)
    );
    assert!(
        dom.contains("<pre id=\"errors\" hidden=\"\"></pre>"),
        "script errors on the page"
    );
    // Every sampled pair is drawn, with its two ids, and every audit row.
    let samples = data["samples"].as_array().unwrap();
    assert_eq!(
        dom.matches("<article class=\"pair\"").count(),
        samples.len()
    );
    for s in samples {
        for k in ["id", "kept"] {
            let id = s[k].as_str().unwrap();
            assert!(
                dom.contains(&format!("<code>{id}</code>")),
                "{id} not drawn"
            );
        }
    }
    let table = &dom[dom.find("id=\"sitetable\"").unwrap()..];
    let tbody = &table[table.find("<tbody>").unwrap()..table.find("</tbody>").unwrap()];
    assert_eq!(
        tbody.matches("<tr").count(),
        data["sites"].as_array().unwrap().len()
    );
    assert!(dom.contains("<del>") && dom.contains("<ins>") || dom.contains("shared words"));
}

#[test]
fn explain_takes_ids_as_the_lists_escape_them_and_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let crawl = dir.path().join("c.jsonl");
    let text = crate::common::page(7, 150);
    // Two copies whose ids hold a tab and a backslash; the lists write them escaped.
    let mut lines = String::new();
    for id in ["a\\tkept", "b\\\\tab\\tcopy"] {
        lines.push_str(&format!(
            "{{\"id\":\"{id}\",\"url\":\"https://x.example/{}\",\"text\":\"{text}\"}}\n",
            id.len()
        ));
    }
    std::fs::write(&crawl, lines).unwrap();
    let out = dir.path().join("out");
    nd("dedup {} -o {} -q", &[&crawl, &out]).ok();
    let remove = read(&out.join("remove.tsv"));
    let line = remove.lines().nth(1).expect("the copy removed");
    assert_eq!(
        line.split('\t').next().unwrap(),
        "b\\\\tab\\tcopy",
        "{remove}"
    );
    // As remove.tsv writes it, and as the id is.
    for given in ["b\\\\tab\\tcopy", "b\\tab\tcopy"] {
        let e: serde_json::Value =
            serde_json::from_str(&nd("explain {} {} --json", &[&out, &given]).ok()).unwrap();
        assert_eq!(e["status"], "removed", "{given:?}");
        assert_eq!(e["id"], "b\\tab\tcopy");
        assert_eq!(e["kept"], "a\tkept");
    }
    let page = page_data(&read(&out.join("report.html")));
    assert_eq!(page["samples"][0]["id"], "b\\tab\tcopy");
}
