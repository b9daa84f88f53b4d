//! Canonical links: read from the page head and the HTTP `Link` header into the store,
//! resolved against the page URL; version 1 stores (no column) still read; `dedup --canonical`
//! adds the pages of a canonical class as candidates and verifies them like any other.

use std::fs;

use crate::common::*;
use neardup::fingerprint::store::Store;

/// Page `base` with the words at `edits` replaced.
fn edited(base: &[String], edits: &[usize], tag: &str) -> String {
    let mut w = base.to_vec();
    for (k, at) in edits.iter().enumerate() {
        w[*at] = format!("edit{tag}{k}");
    }
    w.join(" ")
}

fn with_link(id: &str, url: &str, link: &str, html: &str) -> Vec<u8> {
    let link = format!("<{link}>; rel=\"canonical\"");
    let headers = [("Content-Type", "text/html"), ("Link", link.as_str())];
    response_headers(id, url, 200, &headers, html.as_bytes())
}

#[test]
fn canonical_links_are_stored_and_their_classes_verified_as_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let base: Vec<String> = (0..300)
        .map(|i| format!("w{}x{}", (i * 7919) % 5003, i % 13))
        .collect();
    let other: Vec<String> = (0..300)
        .map(|i| format!("q{}y{}", (i * 104729) % 4001, i % 7))
        .collect();
    let head =
        |canon: &str| format!("<html><head><link rel=\"canonical\" href=\"{canon}\"></head>");
    let body = |t: &str| format!("<body><p>{t}</p></body></html>");
    let mut warc = Vec::new();
    // a names /main in its head; b is /main; c names it in its Link header; d names it with a
    // fragment but its text is another page; e copies the text but names nothing.
    warc.extend(response(
        "a",
        "http://e.org/dir/a",
        &(head("/main") + &body(&edited(&base, &[10, 20], "a"))),
    ));
    warc.extend(response("b", "http://e.org/main", &body(&base.join(" "))));
    warc.extend(with_link(
        "c",
        "http://e.org/c",
        "http://e.org/main",
        &body(&edited(&base, &[200, 210], "c")),
    ));
    warc.extend(response(
        "d",
        "http://e.org/d",
        &(head("http://E.org/main#x") + &body(&other.join(" "))),
    ));
    warc.extend(response(
        "e",
        "http://e.org/e",
        &body(&edited(&base, &[150], "e")),
    ));
    let crawl = dir.path().join("c.warc");
    fs::write(&crawl, &warc).unwrap();
    let out = dir.path().join("out");
    let o = nd("dedup {} -o {} --canonical", &[&crawl, &out]).output();
    assert!(o.status.success(), "{}", stderr(&o));
    let store = Store::open(&out.join("store")).unwrap();
    let got: Vec<(String, String)> = (0..store.len())
        .map(|i| (store.id(i).to_string(), store.canonical(i).to_string()))
        .collect();
    let main = "http://e.org/main".to_string();
    assert_eq!(
        got,
        [
            ("a".into(), main.clone()),
            ("b".into(), String::new()),
            ("c".into(), main.clone()),
            ("d".into(), main.clone()),
            ("e".into(), String::new()),
        ]
    );
    // The class {a, b, c, d} gives 6 pairs. a, b, c and e are near-duplicates that MinHash
    // finds anyway; d's text is another page's, so only the canonical class makes it a
    // candidate (with a, b and c: 3 more candidates), and verification rejects it.
    let with = summary_json(&out);
    assert_eq!(with["canonical"]["classes"], 1);
    assert_eq!(with["canonical"]["pairs"], 6);
    assert_eq!(with["canonical"]["documents_with_link"], 3);
    let removed: Vec<String> = fs::read_to_string(out.join("remove.tsv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split('\t').take(2).collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(removed, ["b a", "c a", "e a"]);
    let plain = dir.path().join("plain");
    nd("-q dedup {} -o {}", &[&crawl, &plain]).ok();
    let without = summary_json(&plain);
    assert!(without.get("canonical").is_none());
    // d is compared with the kept a only through its class, and rejected.
    let compared = |v: &serde_json::Value| v["verification"]["comparisons"].as_u64().unwrap();
    assert_eq!(compared(&with), compared(&without) + 1);
    assert_eq!(
        fs::read_to_string(plain.join("remove.tsv")).unwrap(),
        fs::read_to_string(out.join("remove.tsv")).unwrap()
    );

    // A version 1 store (no canonical column) still reads, with no canonical links.
    let v1 = dir.path().join("v1");
    fs::create_dir(&v1).unwrap();
    for e in fs::read_dir(out.join("store")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        if !name.starts_with("canonical.") {
            fs::copy(e.path(), v1.join(&name)).unwrap();
        }
    }
    let m = fs::read_to_string(v1.join("manifest.json")).unwrap();
    let m = m.replacen("\"version\": 2", "\"version\": 1", 1);
    assert!(m.contains("\"version\": 1"));
    // Version 1 stores were written before the columns' checksums.
    let mut m: serde_json::Value = serde_json::from_str(&m).unwrap();
    m.as_object_mut().unwrap().remove("checksums");
    fs::write(
        v1.join("manifest.json"),
        serde_json::to_vec_pretty(&m).unwrap(),
    )
    .unwrap();
    let old = Store::open(&v1).unwrap();
    assert!(!old.has_canonical());
    assert_eq!(old.canonical(0), "");
    nd("info {}", &[&v1]).ok();
}
