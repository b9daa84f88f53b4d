//! The removal audit: `sites.tsv` (and `stores.tsv` with several stores) equals a reference
//! computed from the remove list and the pages' URLs; a mirror site whose every page copies
//! another site's is flagged in `summary.json` and named on the terminal.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::common::{nd, page};

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// JSON lines: origin.example's 40 pages, mirror.example's 20 copies of the first 20 (ids
/// after the origin's, so the origin's are kept), self.example's 6 pages each twice, and 30
/// sites of 3 unrelated pages.
fn crawl() -> (String, String) {
    let mut a = String::new();
    let mut b = String::new();
    let line = |out: &mut String, id: &str, url: &str, text: &str| {
        writeln!(
            out,
            "{{\"id\":\"{id}\",\"url\":\"{url}\",\"text\":\"{text}\"}}"
        )
        .unwrap();
    };
    for i in 0..40 {
        line(
            &mut a,
            &format!("a{i:03}"),
            &format!("https://Origin.example/p{i}"),
            &page(i, 120),
        );
    }
    for i in 0..20 {
        line(
            &mut b,
            &format!("z{i:03}"),
            &format!("http://mirror.example:8080/p{i}"),
            &page(i, 120),
        );
    }
    for i in 0..6 {
        for c in 0..2 {
            line(
                &mut b,
                &format!("s{i:03}{c}"),
                &format!("http://self.example/{i}/{c}"),
                &page(1000 + i, 120),
            );
        }
    }
    for s in 0..30 {
        for p in 0..3 {
            let out = if s % 2 == 0 { &mut a } else { &mut b };
            line(
                out,
                &format!("o{s:03}{p}"),
                &format!("http://site{s}.example/{p}"),
                &page(2000 + 3 * s + p, 120),
            );
        }
    }
    (a, b)
}

/// Per host: (documents, removed), from the remove list and each id's URL.
fn reference(
    dir: &Path,
    urls: &BTreeMap<String, String>,
    of: impl Fn(&str) -> String,
) -> BTreeMap<String, (u64, u64)> {
    let mut t: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for url in urls.values() {
        t.entry(of(url)).or_default().0 += 1;
    }
    for l in read(&dir.join("remove.tsv")).lines().skip(1) {
        let id = l.split('\t').next().unwrap();
        t.get_mut(&of(&urls[id])).unwrap().1 += 1;
    }
    t
}

fn table(p: &Path) -> BTreeMap<String, (u64, u64)> {
    read(p)
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let (d, r): (u64, u64) = (f[1].parse().unwrap(), f[2].parse().unwrap());
            let rate: f64 = f[3].parse().unwrap();
            assert!((rate - r as f64 / d as f64).abs() < 1e-6, "{l}");
            (f[0].to_string(), (d, r))
        })
        .collect()
}

#[test]
fn sites_and_stores_equal_the_reference_and_a_mirror_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = crawl();
    let (fa, fb) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    std::fs::write(&fa, &a).unwrap();
    std::fs::write(&fb, &b).unwrap();
    let mut urls = BTreeMap::new();
    let mut store_of = BTreeMap::new();
    for (text, store) in [(&a, "A"), (&b, "B")] {
        for l in text.lines() {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let id = v["id"].as_str().unwrap().to_string();
            urls.insert(id.clone(), v["url"].as_str().unwrap().to_string());
            store_of.insert(id, store.to_string());
        }
    }
    let host = |u: &str| {
        let rest = &u[u.find("://").unwrap() + 3..];
        let h = rest.split(['/', ':']).next().unwrap();
        h.to_ascii_lowercase()
    };
    // One crawl: sites.tsv, its typed table, the flag and the warning.
    let out = dir.path().join("one");
    let said = nd("dedup {} {} -o {} --tables jsonl", &[&fa, &fb, &out]).output();
    assert!(said.status.success());
    let stderr = String::from_utf8_lossy(&said.stderr);
    assert_eq!(table(&out.join("sites.tsv")), reference(&out, &urls, host));
    assert!(!out.join("stores.tsv").exists(), "one store: no stores.tsv");
    let mirror = read(&out.join("sites.tsv"))
        .lines()
        .find(|l| l.starts_with("mirror.example\t"))
        .unwrap()
        .to_string();
    assert_eq!(
        mirror,
        "mirror.example\t20\t20\t1.000000\torigin.example=20\t0\t0\t0"
    );
    assert_eq!(read(&out.join("sites.jsonl")).lines().count(), 33);
    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let flagged: Vec<&str> = summary["sites"]["flagged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["site"].as_str().unwrap())
        .collect();
    assert_eq!(flagged, ["mirror.example"], "{}", summary["sites"]);
    assert!(
        stderr.contains("mirror.example (20 of 20 removed"),
        "{stderr}"
    );
    assert!(read(&out.join("sites.svg")).contains("<svg"));
    // Two stores: stores.tsv per store, the same sites.
    let (sa, sb) = (dir.path().join("sa"), dir.path().join("sb"));
    nd("-q fingerprint {} -o {} --minhash", &[&fa, &sa]).ok();
    nd("-q fingerprint {} -o {} --minhash", &[&fb, &sb]).ok();
    let two = dir.path().join("two");
    nd("-q dedup {} {} -o {}", &[&sa, &sb, &two]).ok();
    assert_eq!(table(&two.join("sites.tsv")), reference(&two, &urls, host));
    let by_store = reference(&two, &urls, |u| {
        let id = urls.iter().find(|(_, v)| v.as_str() == u).unwrap().0;
        if store_of[id] == "A" {
            sa.display().to_string()
        } else {
            sb.display().to_string()
        }
    });
    assert_eq!(table(&two.join("stores.tsv")), by_store);
}
