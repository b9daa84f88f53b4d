//! `neardup substrings`: the spans removed are the repeated ones, on word boundaries, the
//! first copy kept (or none with `--all-copies`), among the documents of a keep list when one
//! is given; the summary counts what the table lists.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{jsonl_rows, nd};

/// A written corpus's texts by id.
fn texts_by_id(corpus: &Path) -> BTreeMap<String, String> {
    jsonl_rows(corpus)
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap().to_string(),
                v["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// (id, start, end) rows of removed.tsv.
fn removed(out: &Path) -> Vec<(String, usize, usize)> {
    read(&out.join("removed.tsv"))
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(
                f[3].parse::<usize>().unwrap(),
                f[2].parse::<usize>().unwrap() - f[1].parse::<usize>().unwrap()
            );
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn repeated_spans_are_removed_but_their_first_copy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let words = |from: usize, n: usize| -> String {
        (from..from + n)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    // A 60-word boilerplate span in three documents (b and c repeat a's), a 30-word one in
    // two (shorter than --min-tokens 50), unique text around them.
    let boiler = words(1000, 60);
    let short = words(5000, 30);
    let docs = [
        ("a", format!("{} {boiler} {}", words(0, 20), words(100, 20))),
        ("b", format!("{} {boiler} {short}", words(200, 20))),
        ("c", format!("{boiler} {}", words(300, 70))),
        ("d", format!("{} {short}", words(400, 60))),
    ];
    let jsonl: String = docs
        .iter()
        .map(|(id, t)| format!("{{\"id\":\"{id}\",\"text\":\"{t}\"}}\n"))
        .collect();
    std::fs::write(d.join("c.jsonl"), &jsonl).unwrap();
    let store = d.join("s");
    nd(
        "-q fingerprint {} -o {} --text-format text",
        &[&d.join("c.jsonl"), &store],
    )
    .ok();
    let text: BTreeMap<&str, &str> = docs.iter().map(|(i, t)| (*i, t.as_str())).collect();
    let first = d.join("first");
    nd("-q substrings {} -o {}", &[&store, &first]).ok();
    let got = removed(&first);
    let ids: Vec<&str> = got.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        ids,
        ["b", "c"],
        "a keeps the first copy; the 30-word span stays"
    );
    for (id, s, e) in &got {
        assert_eq!(&text[id.as_str()][*s..*e], boiler);
    }
    let summary: serde_json::Value =
        serde_json::from_str(&read(&first.join("summary.json"))).unwrap();
    assert_eq!(summary["documents"], 4);
    assert_eq!(summary["documents_touched"], 2);
    assert_eq!(
        summary["bytes_removed"].as_u64().unwrap() as usize,
        2 * boiler.len()
    );
    assert_eq!(summary["top"][0]["count"], 3);
    assert_eq!(summary["top"][0]["id"], "a");
    assert!(boiler.starts_with(summary["top"][0]["sample"].as_str().unwrap()));
    // Every copy, and a shorter threshold that reaches the 30-word span.
    let all = d.join("all");
    nd(
        "-q substrings {} -o {} --all-copies --min-tokens 30",
        &[&store, &all],
    )
    .ok();
    let got = removed(&all);
    let spans: Vec<(&str, &str)> = got
        .iter()
        .map(|(i, s, e)| (i.as_str(), &text[i.as_str()][*s..*e]))
        .collect();
    assert_eq!(
        spans,
        [
            ("a", boiler.as_str()),
            ("b", format!("{boiler} {short}").as_str()),
            ("c", boiler.as_str()),
            ("d", short.as_str())
        ]
    );
    // The corpus written with the spans cut: b and c lose the boilerplate, a keeps it.
    let w = d.join("written");
    nd(
        "-q substrings {} -o {} --write-corpus jsonl.gz",
        &[&store, &w],
    )
    .ok();
    let rows = texts_by_id(&w.join("corpus"));
    assert_eq!(rows["a"], text["a"]);
    assert_eq!(rows["b"], format!("{} {short}", words(200, 20)));
    assert_eq!(rows["c"], words(300, 70));
    assert_eq!(rows["d"], text["d"]);
    // The same from dedup: its kept documents (none of these is a near-duplicate), the spans
    // in substrings.tsv, the corpus written with them cut.
    let dd = d.join("dedup");
    nd(
        "-q dedup {} -o {} --substrings 50 --write-corpus jsonl.gz",
        &[&d.join("c.jsonl"), &dd],
    )
    .ok();
    assert_eq!(
        read(&dd.join("substrings.tsv")),
        read(&first.join("removed.tsv"))
    );
    let spans: serde_json::Value =
        serde_json::from_str(&read(&dd.join("substrings.json"))).unwrap();
    assert_eq!(spans["documents_touched"], 2);
    assert_eq!(texts_by_id(&dd.join("corpus")), rows);
    let e = nd(
        "-q substrings {} -o {} --write-corpus warc.gz",
        &[&store, &d.join("warc")],
    )
    .fails();
    assert!(e.contains("jsonl.gz or parquet"), "{e}");
    // Only the documents of a keep list.
    std::fs::write(d.join("keep.txt"), "b\nd\n").unwrap();
    let kept = d.join("kept");
    nd(
        "-q substrings {} -o {} --keep {} --min-tokens 30",
        &[&store, &kept, &d.join("keep.txt")],
    )
    .ok();
    let got = removed(&kept);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, "d");
    assert_eq!(&text["d"][got[0].1..got[0].2], short);
}
