//! `neardup substrings`: the spans removed are the repeated ones, on word boundaries, the
//! first copy kept (or none with `--all-copies`), among the documents of a keep list when one
//! is given; the summary counts what the table lists.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{jsonl_rows, nd};

/// A JSON row's id and text.
fn id_text(v: &serde_json::Value) -> (String, String) {
    (
        v["id"].as_str().unwrap().to_string(),
        v["text"].as_str().unwrap().to_string(),
    )
}

/// A written corpus's texts by id.
fn texts_by_id(corpus: &Path) -> BTreeMap<String, String> {
    jsonl_rows(corpus).iter().map(id_text).collect()
}

/// Writes `jsonl` to `d/c.jsonl` and fingerprints it (as text) into the store `d/s`.
fn store_of(d: &Path, jsonl: &str) -> std::path::PathBuf {
    std::fs::write(d.join("c.jsonl"), jsonl).unwrap();
    let store = d.join("s");
    nd(
        "-q fingerprint {} -o {} --text-format text",
        &[&d.join("c.jsonl"), &store],
    )
    .ok();
    store
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
    let store = store_of(d, &jsonl);
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

/// A corpus of a few thousand documents that share spans of many lengths (boilerplate, quoted
/// passages, a document repeated whole), read with memory for the whole set of windows and
/// with memory for a few dozen at a time: the same table; the texts the passes read are set
/// aside in OUT and gone at the end; the tokens written for suffix-array tools map back to the
/// words.
#[test]
fn passes_in_little_memory_find_the_same_and_tokens_map_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let passages: Vec<String> = (0..12)
        .map(|p| {
            (0..8 + 10 * p)
                .map(|i| format!("p{p}x{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let mut jsonl = String::new();
    for doc in 0..3000 {
        let mut parts = Vec::new();
        for _ in 0..1 + next(4) {
            parts.push(
                (0..next(30))
                    .map(|_| format!("u{}", next(5000)))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
            parts.push(passages[next(12) as usize].clone());
        }
        jsonl += &format!("{{\"id\":\"d{doc}\",\"text\":\"{}\"}}\n", parts.join(", "));
    }
    let store = store_of(d, &jsonl);
    for all in ["", "--all-copies"] {
        let (big, small) = (d.join(format!("big{all}")), d.join(format!("small{all}")));
        nd(
            &format!("-q substrings {{}} -o {{}} --min-tokens 20 {all}"),
            &[&store, &big],
        )
        .ok();
        nd(
            &format!("-q substrings {{}} -o {{}} --min-tokens 20 --memory 1M {all}"),
            &[&store, &small],
        )
        .ok();
        let table = read(&big.join("removed.tsv"));
        assert!(table.lines().count() > 100, "{all}: too few spans to tell");
        assert_eq!(read(&small.join("removed.tsv")), table, "{all}");
        let summary = |o: &Path| -> serde_json::Value {
            serde_json::from_str(&read(&o.join("summary.json"))).unwrap()
        };
        assert_eq!(summary(&big)["passes"], 2);
        assert!(summary(&small)["passes"].as_u64().unwrap() > 2);
        for o in [&big, &small] {
            let mut names: Vec<String> = std::fs::read_dir(o)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            assert_eq!(
                names,
                [".neardup-owned.json", "removed.tsv", "summary.json"],
                "the texts set aside are gone"
            );
        }
    }
    // The tokens: four bytes a word, ids equal exactly when the words are, a document's own
    // token after it.
    let tok = d.join("tok");
    nd("-q substrings {} -o {} --write-tokens", &[&store, &tok]).ok();
    let tokens = std::fs::read(tok.join("tokens.bin")).unwrap();
    let words: Vec<u32> = std::fs::read(tok.join("tokens.words.bin"))
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let names: Vec<String> = read(&tok.join("tokens.docs.txt"))
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(names.len(), 3000);
    assert_eq!(tokens.len() / 4, words.len() / 3);
    let texts = texts_by_id_jsonl(&jsonl);
    let mut by_word = std::collections::HashMap::new();
    let mut ends = std::collections::HashSet::new();
    for (t, w) in tokens.chunks(4).zip(words.chunks(3)) {
        assert_eq!(t[0], 0xFF);
        assert!(t[1..].iter().all(|&b| b < 0xFF));
        if w[0] == u32::MAX {
            assert!(ends.insert(t.to_vec()), "a document's end token is its own");
            continue;
        }
        let word = &texts[&names[w[0] as usize]][w[1] as usize..w[2] as usize];
        assert!(!word.is_empty() && !word.contains([' ', ',']));
        let id = by_word.entry(word.to_string()).or_insert(t.to_vec());
        assert_eq!(id, t, "{word}: one id a word");
    }
    assert_eq!(ends.len(), 3000);
    let ids: std::collections::HashSet<_> = by_word.values().collect();
    assert_eq!(ids.len(), by_word.len(), "one word an id");
    assert!(ids.iter().all(|i| !ends.contains(*i)));
}

/// The texts of JSON lines by id.
fn texts_by_id_jsonl(jsonl: &str) -> BTreeMap<String, String> {
    jsonl
        .lines()
        .map(|l| id_text(&serde_json::from_str(l).unwrap()))
        .collect()
}

/// A corpus of `n` short documents, each of its own words and one shared passage.
fn small_corpus(d: &Path, n: usize) -> std::path::PathBuf {
    let shared = (0..30)
        .map(|i| format!("s{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut jsonl = String::new();
    for doc in 0..n {
        let own = (0..20)
            .map(|i| format!("w{doc}x{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        jsonl += &format!("{{\"id\":\"d{doc}\",\"text\":\"{own} {shared}\"}}\n");
    }
    store_of(d, &jsonl)
}

/// Budgets below the floor are refused before anything is read; a keep list naming ids no
/// store has is refused as `write --keep` refuses it.
#[test]
fn tiny_budgets_and_unknown_keep_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = small_corpus(d, 40);
    let o = d.join("o");
    let e = nd("substrings {} -o {} --memory 1K", &[&store, &o]).fails();
    assert!(
        e.contains("--memory") && e.contains("at least 1 MiB"),
        "{e}"
    );
    assert!(!o.exists(), "a refused run made its output");
    let keep = d.join("keep.txt");
    std::fs::write(&keep, "d1\nnot-a-document\nd2\nnor-this\n").unwrap();
    let e = nd("substrings {} -o {} --keep {}", &[&store, &o, &keep]).fails();
    assert!(
        e.contains("2 ids are in none") && e.contains("line 2"),
        "{e}"
    );
    assert!(!o.join("summary.json").exists());
    std::fs::write(&keep, "d1\nd2\n").unwrap();
    nd(
        "-q substrings {} -o {} --keep {} --min-tokens 5",
        &[&store, &o, &keep],
    )
    .ok();
    let s: serde_json::Value = serde_json::from_str(&read(&o.join("summary.json"))).unwrap();
    assert_eq!(s["documents"], 2);
}

/// Documents whose source entries were zeroed (in a store of an earlier version, which has
/// no checksums to catch it) are counted one by one, and the run writes no summary.json.
#[test]
fn documents_not_found_are_counted_and_the_run_is_not_marked_finished() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = small_corpus(d, 40);
    // As a store written before the checksums.
    let mpath = store.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_str(&read(&mpath)).unwrap();
    m.as_object_mut().unwrap().remove("checksums");
    std::fs::write(&mpath, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    // Nor had they an ownership record of their own.
    let _ = std::fs::remove_file(store.join(".neardup-owned.json"));
    let loc = store.join("source.loc");
    let mut bytes = std::fs::read(&loc).unwrap();
    let width = bytes.len() / 40;
    for doc in 1..=10 {
        bytes[doc * width..(doc + 1) * width].fill(0);
    }
    std::fs::write(&loc, &bytes).unwrap();
    let o = d.join("o");
    let e = nd("substrings {} -o {} --min-tokens 5", &[&store, &o]).fails();
    // The zeroed entries name the first record's place: it cannot be told which of the 11
    // documents naming it is there, and none is read as another's.
    assert!(e.contains("11 of 40 documents were not found"), "{e}");
    assert!(
        !o.join("summary.json").exists(),
        "a failing run marked finished"
    );
}
