//! Keep policies: `--keep-by FIELD[:max|min]`, `--prefer STORE...` and `--remove-by all`
//! give the lists of a sequential star removal over the verified pairs in the policy's order
//! (a reference written here), on both verification paths; a store without the field's
//! numbers, and a preferred store that is not an input, are refused.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use crate::common::{jsonl_rows, nd};
use neardup::base::rng::SplitMix64;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Families of near-duplicates (copies and few-word edits) among unrelated pages, as JSON
/// lines with a `quality` number (missing on some, text on others) and a `date`.
fn corpus(seed: u64, prefix: &str) -> (String, HashMap<String, f64>, HashMap<String, f64>) {
    let mut rng = SplitMix64(seed);
    let words = |rng: &mut SplitMix64, n: usize| -> Vec<String> {
        (0..n).map(|_| format!("w{}", rng.below(5000))).collect()
    };
    let mut out = String::new();
    let (mut quality, mut date) = (HashMap::new(), HashMap::new());
    let mut i = 0;
    let mut line = |rng: &mut SplitMix64, text: &[String], out: &mut String| {
        let id = format!("{prefix}{:05x}-{i}", rng.below(1 << 20));
        i += 1;
        let q = rng.below(1000) as f64 / 10.0;
        let day = 1 + rng.below(28);
        let mut fields = format!("\"id\":\"{id}\",\"text\":\"{}\"", text.join(" "));
        match rng.below(5) {
            0 => {}
            1 => {
                let _ = write!(fields, ",\"quality\":\"{q}\"");
                quality.insert(id.clone(), q);
            }
            _ => {
                let _ = write!(fields, ",\"quality\":{q}");
                quality.insert(id.clone(), q);
            }
        }
        let _ = write!(fields, ",\"date\":\"2024-03-{day:02}T10:00:00Z\"");
        date.insert(id.clone(), f64::from(day as u32));
        writeln!(out, "{{{fields}}}").unwrap();
    };
    for _ in 0..25 {
        let n = 80 + rng.below(80) as usize;
        let base = words(&mut rng, n);
        let copies = 2 + rng.below(8);
        for _ in 0..copies {
            let mut t = base.clone();
            for _ in 0..rng.below(3) {
                let k = rng.below(t.len() as u64) as usize;
                t[k] = format!("e{}", rng.below(100_000));
            }
            line(&mut rng, &t, &mut out);
        }
    }
    for _ in 0..40 {
        let t = words(&mut rng, 60);
        line(&mut rng, &t, &mut out);
    }
    (out, quality, date)
}

/// The remove list as (removed, named) pairs.
fn removals(dir: &Path) -> BTreeMap<String, String> {
    read(&dir.join("remove.tsv"))
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[1].to_string())
        })
        .collect()
}

/// The star removal over `pairs`, documents in `order` (best first): each kept unless a kept
/// neighbour ranks before it, and then removed for the best-ranked such one.
fn reference(order: &[String], pairs: &[(String, String)]) -> BTreeMap<String, String> {
    reference_against(order, pairs, |_| false)
}

/// [`reference`] where the documents `old` admits are always kept.
fn reference_against(
    order: &[String],
    pairs: &[(String, String)],
    old: impl Fn(&str) -> bool,
) -> BTreeMap<String, String> {
    let rank: HashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, d)| (d.as_str(), i))
        .collect();
    let mut nb: HashMap<&str, Vec<&str>> = HashMap::new();
    for (a, b) in pairs {
        nb.entry(a).or_default().push(b);
        nb.entry(b).or_default().push(a);
    }
    let mut kept: BTreeSet<&str> = BTreeSet::new();
    let mut out = BTreeMap::new();
    for d in order {
        let best = nb
            .get(d.as_str())
            .into_iter()
            .flatten()
            .filter(|n| kept.contains(*n) && rank[*n] < rank[d.as_str()])
            .min_by_key(|n| rank[**n])
            .filter(|_| !old(d));
        match best {
            Some(k) => {
                out.insert(d.clone(), k.to_string());
            }
            None => {
                kept.insert(d);
            }
        }
    }
    out
}

/// The verified pairs of an all-pairs run (its typed pairs table).
fn verified(dir: &Path) -> Vec<(String, String)> {
    read(&dir.join("pairs.jsonl"))
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id_a"].as_str().unwrap().into(),
                v["id_b"].as_str().unwrap().into(),
            )
        })
        .collect()
}

#[test]
fn keep_by_and_prefer_give_the_reference_star_removal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, qa, da) = corpus(1, "a");
    // The second source repeats the first's texts under other ids (a mirror), plus its own.
    let (b0, qb, db) = corpus(1, "b");
    std::fs::write(d.join("a.jsonl"), &a).unwrap();
    std::fs::write(d.join("b.jsonl"), &b0).unwrap();
    let (sa, sb) = (d.join("sa"), d.join("sb"));
    nd(
        "-q fingerprint {} -o {} --minhash --keep-field quality",
        &[&d.join("a.jsonl"), &sa],
    )
    .ok();
    nd(
        "-q fingerprint {} -o {} --minhash --keep-field quality",
        &[&d.join("b.jsonl"), &sb],
    )
    .ok();
    let quality: HashMap<String, f64> = qa.into_iter().chain(qb).collect();
    let ids: Vec<String> = a
        .lines()
        .chain(b0.lines())
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    // (options, the policy's order of ids).
    let by_quality = |max: bool| {
        let mut o = ids.clone();
        o.sort_by(|x, y| {
            let key = |i: &String| match quality.get(i) {
                Some(q) if max => (0, -q),
                Some(q) => (0, *q),
                None => (1, 0.0),
            };
            key(x).partial_cmp(&key(y)).unwrap().then(x.cmp(y))
        });
        o
    };
    let prefer_b = {
        let mut o = by_quality(true);
        o.sort_by_key(|i| !i.starts_with('b'));
        o
    };
    let sb_s = sb.to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, Vec<String>)> = vec![
        (vec!["--keep-by".into(), "quality".into()], by_quality(true)),
        (
            vec!["--keep-by".into(), "quality:min".into()],
            by_quality(false),
        ),
        (
            vec![
                "--keep-by".into(),
                "quality".into(),
                "--prefer".into(),
                sb_s.clone(),
            ],
            prefer_b,
        ),
    ];
    for (i, (opts, order)) in cases.iter().enumerate() {
        let all = d.join(format!("all{i}"));
        let lin = d.join(format!("lin{i}"));
        let mut c = nd(
            "-q dedup {} {} -o {} --all-pairs --tables jsonl",
            &[&sa, &sb, &all],
        );
        for o in opts {
            c = c.arg(o);
        }
        c.ok();
        let mut c = nd("-q dedup {} {} -o {}", &[&sa, &sb, &lin]);
        for o in opts {
            c = c.arg(o);
        }
        c.ok();
        let want = reference(order, &verified(&all));
        assert!(want.len() > 50, "{opts:?}: the corpus has near-duplicates");
        assert_eq!(removals(&all), want, "{opts:?}: all pairs");
        assert_eq!(removals(&lin), want, "{opts:?}: against kept texts");
    }
    // --remove-by all: every member of a star of two or more, the kept one too.
    let star = removals(&d.join("lin0"));
    let every = d.join("every");
    nd(
        "-q dedup {} {} -o {} --keep-by quality --remove-by all",
        &[&sa, &sb, &every],
    )
    .ok();
    let gone = removals(&every);
    let centres: BTreeSet<&String> = star.values().collect();
    let want: BTreeSet<&String> = star.keys().chain(centres.iter().copied()).collect();
    assert_eq!(gone.keys().collect::<BTreeSet<_>>(), want);
    for c in &centres {
        assert_eq!(
            star.get(&gone[*c]),
            Some(*c),
            "a centre names a near-duplicate of its star"
        );
    }
    let kept: BTreeSet<String> = read(&every.join("keep.txt"))
        .lines()
        .map(String::from)
        .collect();
    assert!(kept.iter().all(|k| !gone.contains_key(k)));
    assert_eq!(kept.len() + gone.len(), ids.len());
    // WARC-Date-like dates as ISO text: --keep-by date:min keeps the oldest.
    let dates: HashMap<String, f64> = da.into_iter().chain(db).collect();
    let crawl = d.join("ab.jsonl");
    std::fs::write(&crawl, format!("{a}{b0}")).unwrap();
    let old = d.join("oldest");
    nd("-q dedup {} -o {} --keep-by date:min", &[&crawl, &old]).ok();
    for (r, k) in removals(&old) {
        assert!(dates[&k] <= dates[&r], "{r} removed for the later {k}");
    }
    // Refusals: a store without the numbers, a preferred store that is no input.
    let plain = d.join("plain");
    nd(
        "-q fingerprint {} -o {} --minhash",
        &[&d.join("a.jsonl"), &plain],
    )
    .ok();
    let e = nd(
        "-q dedup {} -o {} --keep-by quality",
        &[&plain, &d.join("x")],
    )
    .fails();
    assert!(e.contains("--keep-field quality"), "{e}");
    let e = nd("-q dedup {} -o {} --prefer {}", &[&sa, &d.join("y"), &sb]).fails();
    assert!(e.contains("not one of the stores given"), "{e}");
}

/// The policies with `--against` (old documents first, never removed, pairs within the old
/// collection not formed), in the sweep's star counts, and with the corpus writer: the
/// reference again, the sweep's `removed_by_star` equal to the list, the corpus the keep list.
#[test]
fn policies_hold_against_an_old_collection_in_the_sweep_and_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, qa, _) = corpus(2, "a");
    // The new collection: copies of the old one's pages, and families of its own.
    let (b1, qb1, _) = corpus(2, "b");
    let (b2, qb2, _) = corpus(3, "bb");
    let b = format!("{b1}{b2}");
    let qb: HashMap<String, f64> = qb1.into_iter().chain(qb2).collect();
    std::fs::write(d.join("a.jsonl"), &a).unwrap();
    std::fs::write(d.join("b.jsonl"), &b).unwrap();
    let (old, new) = (d.join("old"), d.join("new"));
    nd(
        "-q fingerprint {} -o {} --minhash --keep-field quality",
        &[&d.join("a.jsonl"), &old],
    )
    .ok();
    nd(
        "-q fingerprint {} -o {} --minhash --keep-field quality",
        &[&d.join("b.jsonl"), &new],
    )
    .ok();
    let quality: HashMap<String, f64> = qa.into_iter().chain(qb).collect();
    let ids = |text: &str| -> Vec<String> {
        text.lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    // Old documents first, each collection by quality (largest first), then by id.
    let mut order: Vec<String> = ids(&a).into_iter().chain(ids(&b)).collect();
    order.sort_by(|x, y| {
        let key = |i: &String| {
            (
                !i.starts_with('a'),
                quality.get(i).map_or((1, 0.0), |q| (0, -q)),
            )
        };
        key(x).partial_cmp(&key(y)).unwrap().then(x.cmp(y))
    });
    let all = d.join("all");
    nd(
        "-q dedup {} -o {} --against {} --keep-by quality --all-pairs --tables jsonl",
        &[&new, &all, &old],
    )
    .ok();
    let lin = d.join("lin");
    nd(
        "-q dedup {} -o {} --against {} --keep-by quality",
        &[&new, &lin, &old],
    )
    .ok();
    let want: BTreeMap<String, String> =
        reference_against(&order, &verified(&all), |d| d.starts_with('a'))
            .into_iter()
            .filter(|(r, _)| r.starts_with('b'))
            .collect();
    assert!(want.values().any(|k| k.starts_with('a')) && want.values().any(|k| k.starts_with('b')));
    assert_eq!(removals(&all), want, "all pairs, against");
    assert_eq!(removals(&lin), want, "against kept texts, against");
    // The sweep counts the same star removal at the lists' threshold.
    let summary: serde_json::Value =
        serde_json::from_str(&read(&lin.join("summary.json"))).unwrap();
    let levels = summary["sweep"]["levels"].as_array().unwrap();
    let at = levels.last().unwrap();
    assert_eq!(at["removed_by_star"].as_u64().unwrap() as usize, want.len());
    // --remove-by all with the corpus writer: the corpus is the keep list.
    let out = d.join("corpus-all");
    nd(
        "-q dedup {} -o {} --keep-by quality --remove-by all --write-corpus jsonl.gz",
        &[&new, &out],
    )
    .ok();
    let keep: Vec<String> = read(&out.join("keep.txt"))
        .lines()
        .map(String::from)
        .collect();
    let mut written: Vec<String> = jsonl_rows(&out.join("corpus"))
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect();
    written.sort();
    let mut keep_sorted = keep.clone();
    keep_sorted.sort();
    assert_eq!(written, keep_sorted);
    assert!(
        removals(&out).len() > removals(&lin).len() - want.len(),
        "all removes the centres too"
    );
}

/// Three copies of one page, each with its own `score`: which one `dedup --keep-by score` keeps
/// (the others are removed for it), and what the run said on its standard error.
fn kept_of(dir: &Path, name: &str, scores: [&str; 3], extra: &[&str]) -> (String, String) {
    let text = (0..120)
        .map(|i| format!("p{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut jsonl = String::new();
    for (i, s) in scores.iter().enumerate() {
        let score = if s.is_empty() {
            String::new()
        } else {
            format!(",\"score\":{s}")
        };
        writeln!(jsonl, "{{\"id\":\"c{i}\",\"text\":\"{text}\"{score}}}").unwrap();
    }
    // Unrelated pages, without a score.
    for i in 0..5 {
        let t = (0..120)
            .map(|j| format!("u{i}x{j}"))
            .collect::<Vec<_>>()
            .join(" ");
        writeln!(jsonl, "{{\"id\":\"u{i}\",\"text\":\"{t}\"}}").unwrap();
    }
    let input = dir.join(format!("{name}.jsonl"));
    std::fs::write(&input, jsonl).unwrap();
    let out = dir.join(name);
    let mut cmd = nd("dedup {} -o {} --text-format text", &[&input, &out]);
    for e in extra {
        cmd = cmd.arg(e);
    }
    let o = cmd.output();
    assert!(o.status.success(), "{name}: {}", crate::common::stderr(&o));
    let said = crate::common::stderr(&o);
    let kept: Vec<String> = read(&out.join("keep.txt"))
        .lines()
        .filter(|l| l.starts_with('c'))
        .map(str::to_string)
        .collect();
    assert_eq!(kept.len(), 1, "{name}: {kept:?}");
    (kept[0].clone(), said)
}

/// A field no document has is an error naming it; documents without one are counted, said
/// and recorded; the summary records the whole policy; -0.0 ties 0.0 (the id rule decides),
/// and infinities and numbers beyond f64 rank as numbers, not as missing.
#[test]
fn keep_by_is_never_silently_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("typo.jsonl");
    let text = (0..120)
        .map(|i| format!("p{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    std::fs::write(
        &input,
        format!("{{\"id\":\"a\",\"text\":\"{text}\",\"score\":1}}\n"),
    )
    .unwrap();
    let e = nd(
        "dedup {} -o {} --text-format text --keep-by scroe",
        &[&input, &d.join("typo")],
    )
    .fails();
    assert!(
        e.contains("--keep-by scroe") && e.contains("none of the"),
        "{e}"
    );
    // The largest kept; a copy without a score is counted and said.
    let (kept, said) = kept_of(d, "max", ["1", "", "7"], &["--keep-by", "score"]);
    assert_eq!(kept, "c2");
    assert!(said.contains("6 of 8 documents have no number"), "{said}");
    let s: serde_json::Value = serde_json::from_str(&read(&d.join("max/summary.json"))).unwrap();
    let p = &s["clusters"]["policy"];
    assert_eq!(p["keep_by"], "score");
    assert_eq!(p["order"], "max");
    assert_eq!(p["documents_without_value"], 6);
    assert_eq!(p["prefer"], serde_json::json!([]));
    // -0.0 and 0.0 tie: the lowest id decides, whichever is signed.
    for scores in [["-0.0", "0.0", "-1"], ["0.0", "-0.0", "-1"]] {
        assert_eq!(
            kept_of(d, "zero", scores, &["--keep-by", "score", "--force"]).0,
            "c0"
        );
    }
    // Infinities and 1e400 are numbers: the largest kept, the smallest with :min.
    let inf = ["1e300", "\"inf\"", "5"];
    assert_eq!(kept_of(d, "inf", inf, &["--keep-by", "score"]).0, "c1");
    let big = ["1e300", "\"1e400\"", "5"];
    assert_eq!(kept_of(d, "big", big, &["--keep-by", "score"]).0, "c1");
    let neg = ["\"-inf\"", "-1e300", "5"];
    assert_eq!(kept_of(d, "neg", neg, &["--keep-by", "score:min"]).0, "c0");
}

/// A Parquet decimal column is read as its values, not as missing.
#[test]
fn keep_by_reads_parquet_decimals() {
    if !crate::common::python_has("pyarrow", "NEARDUP_REQUIRE_PYIO") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("d.parquet");
    crate::common::python(
        r#"
import sys, decimal, pyarrow as pa, pyarrow.parquet as pq
text = " ".join(f"p{i}" for i in range(120))
others = [" ".join(f"u{k}x{j}" for j in range(120)) for k in range(4)]
ids = ["c0", "c1", "c2"] + [f"u{k}" for k in range(4)]
texts = [text] * 3 + others
price = [decimal.Decimal(x) for x in ["1.25", "9.75", "3.50", "0", "0", "0", "0"]]
pq.write_table(pa.table({"id": ids, "text": texts,
                         "price": pa.array(price, type=pa.decimal128(10, 2))}), sys.argv[1])
"#,
        &[p.to_str().unwrap()],
    );
    let out = dir.path().join("o");
    nd("-q dedup {} -o {} --keep-by price", &[&p, &out]).ok();
    let kept: Vec<String> = read(&out.join("keep.txt"))
        .lines()
        .filter(|l| l.starts_with('c'))
        .map(str::to_string)
        .collect();
    assert_eq!(kept, ["c1"], "the largest price is kept");
    let s: serde_json::Value = serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    assert_eq!(s["clusters"]["policy"]["documents_without_value"], 0);
}
