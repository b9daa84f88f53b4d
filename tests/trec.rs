//! `neardup trec`: runs and qrels deduplicated by a `dedup` output equal a plain reference over
//! its clusters.tsv, for both rules and both mappings; `inspect` equals a brute-force S3 over
//! every pair within a topic; outputs read back by pytrec_eval (trec_eval) as written; bad
//! lines, unknown ids and existing outputs are handled, not fatal or silent.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::Path;

use crate::common::*;
use crate::verify::{inputs, s, shingles, texts};
use neardup::base::rng::SplitMix64;

/// clusters.tsv as (id -> kept, id -> representative), read plainly.
fn clusters(out: &Path) -> (HashMap<String, String>, HashMap<String, String>) {
    let text = fs::read_to_string(out.join("clusters.tsv")).unwrap();
    let (mut kept, mut rep) = (HashMap::new(), HashMap::new());
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        rep.insert(f[0].to_string(), f[1].to_string());
        kept.insert(f[0].to_string(), f[3].to_string());
    }
    (kept, rep)
}

/// A run over `ids` with repeats, ties, unknown ids and one bad line (line 2).
fn make_run(ids: &[String], seed: u64) -> String {
    let mut rng = SplitMix64(seed);
    let mut s = String::from("t1 Q0 d0-0 1 9 tag\nt1 Q0 broken notanumber 1 tag\n\n");
    for q in ["t1", "t2", "t3"] {
        for r in 0..16 {
            let d = if rng.below(12) == 0 {
                format!("not-in-corpus-{}", rng.below(3))
            } else {
                ids[rng.below(ids.len() as u64) as usize].clone()
            };
            s.push_str(&format!("{q}\tQ0\t{d}\t{r}\t{}\trun extra\n", rng.below(8)));
        }
    }
    s
}

fn make_qrels(ids: &[String], seed: u64) -> String {
    let mut rng = SplitMix64(seed);
    let mut s = String::from("t1 0 x\n");
    for q in ["t1", "t2"] {
        for _ in 0..20 {
            let d = if rng.below(10) == 0 {
                "unjudged-elsewhere".to_string()
            } else {
                ids[rng.below(ids.len() as u64) as usize].clone()
            };
            s.push_str(&format!("{q} 0 {d} {}\n", rng.below(4)));
        }
    }
    s
}

/// (qid, docno, score) of a run's readable lines, by topic in order of first appearance and
/// in trec_eval's order within each.
fn ranked(run: &str) -> Vec<(String, String, f64, String)> {
    let mut rows: Vec<(usize, String, String, f64, String)> = Vec::new();
    let mut order: Vec<String> = Vec::new();
    for l in run.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 6 || f[3].parse::<i64>().is_err() {
            continue;
        }
        if !order.contains(&f[0].to_string()) {
            order.push(f[0].to_string());
        }
        let t = order.iter().position(|q| q == f[0]).unwrap();
        rows.push((
            t,
            f[0].into(),
            f[2].into(),
            f[4].parse().unwrap(),
            f[5].into(),
        ));
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0).then(b.3.total_cmp(&a.3)).then(b.2.cmp(&a.2)));
    rows.into_iter()
        .map(|(_, q, d, s, t)| (q, d, s, t))
        .collect()
}

fn run_reference(run: &str, group: &HashMap<String, String>, mark: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut rank: HashMap<String, usize> = HashMap::new();
    for (q, d, score, tag) in ranked(run) {
        let g = group.get(&d).cloned().unwrap_or(d.clone());
        let first = seen.insert((q.clone(), g.clone()));
        let docno = match (mark, first) {
            (false, false) => continue,
            (false, true) => g,
            (true, true) => d,
            (true, false) => format!("{d}#dup"),
        };
        let r = rank.entry(q.clone()).or_insert(0);
        *r += 1;
        out.push(format!("{q} Q0 {docno} {r} {score} {tag}"));
    }
    out
}

fn qrels_reference(qrels: &str, group: &HashMap<String, String>) -> Vec<String> {
    let mut order: Vec<(String, String)> = Vec::new();
    let mut best: HashMap<(String, String), i32> = HashMap::new();
    for l in qrels.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 4 {
            continue;
        }
        let g = group.get(f[2]).cloned().unwrap_or(f[2].to_string());
        let key = (f[0].to_string(), g);
        let rel: i32 = f[3].parse().unwrap();
        match best.get_mut(&key) {
            Some(b) => *b = (*b).max(rel),
            None => {
                best.insert(key.clone(), rel);
                order.push(key);
            }
        }
    }
    // Topics in order of first appearance, groups in order within each.
    let mut topics: Vec<String> = Vec::new();
    for (q, _) in &order {
        if !topics.contains(q) {
            topics.push(q.clone());
        }
    }
    topics
        .iter()
        .flat_map(|t| order.iter().filter(move |(q, _)| q == t))
        .map(|k| format!("{} 0 {} {}", k.0, k.1, best[k]))
        .collect()
}

#[test]
fn runs_and_qrels_equal_a_reference_over_clusters_tsv() {
    let dir = tempfile::tempdir().unwrap();
    let (_, input) = inputs(dir.path()).remove(3);
    let out = dir.path().join("out");
    nd("-q dedup {} -o {}", &[&input, &out]).ok();
    let (kept, rep) = clusters(&out);
    assert!(
        kept.iter().any(|(d, k)| d != k),
        "the crawl has near-duplicates to remove"
    );
    let mut ids: Vec<String> = kept.keys().cloned().collect();
    ids.sort();
    for seed in 1..4u64 {
        let run_path = dir.path().join(format!("bm25-{seed}.run"));
        let run = make_run(&ids, seed);
        fs::write(&run_path, &run).unwrap();
        for (rule, by, group) in [
            ("chuweb21d", "star", &kept),
            ("mark", "star", &kept),
            ("chuweb21d", "component", &rep),
        ] {
            let rd = dir.path().join(format!("runs-{seed}-{rule}-{by}"));
            let o = nd(
                "trec run {} --clusters {} --rule {} --by {} -o {}",
                &[&run_path, &out, &rule, &by, &rd],
            )
            .output();
            // The bad line makes the run partial (exit 2), named by file and line.
            assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
            assert!(stderr(&o).contains("line 2:"), "{}", stderr(&o));
            let got = fs::read_to_string(rd.join(run_path.file_name().unwrap())).unwrap();
            let got: Vec<&str> = got.lines().collect();
            assert_eq!(
                got,
                run_reference(&run, group, rule == "mark"),
                "{seed} {rule} {by}"
            );
            let json: serde_json::Value =
                serde_json::from_str(&fs::read_to_string(rd.join("trec.json")).unwrap()).unwrap();
            let unknown = ranked(&run)
                .iter()
                .filter(|(_, d, _, _)| !kept.contains_key(d))
                .count();
            assert_eq!(json["runs"][0]["stats"]["unknown"], unknown as u64);
            assert_eq!(json["runs"][0]["bad_lines"][0]["line"], 2);
        }
        let qrels_path = dir.path().join(format!("qrels-{seed}.txt"));
        let qrels = make_qrels(&ids, seed + 10);
        fs::write(&qrels_path, &qrels).unwrap();
        let q_out = dir.path().join(format!("qrels-{seed}.dedup"));
        let o = nd(
            "trec qrels {} --clusters {} -o {}",
            &[&qrels_path, &out, &q_out],
        )
        .output();
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let got = fs::read_to_string(&q_out).unwrap();
        assert_eq!(
            got.lines().collect::<Vec<_>>(),
            qrels_reference(&qrels, &kept),
            "{seed}"
        );
        // An existing output is not replaced without --force; an input never is.
        let again = nd(
            "trec qrels {} --clusters {} -o {}",
            &[&qrels_path, &out, &q_out],
        )
        .output();
        assert_ne!(again.status.code(), Some(0));
        assert!(stderr(&again).contains("--force"), "{}", stderr(&again));
        let onto = nd(
            "trec qrels {} --clusters {} -o {} --force",
            &[&qrels_path, &out, &qrels_path],
        )
        .output();
        assert_ne!(onto.status.code(), Some(0));
        assert_eq!(
            fs::read_to_string(&qrels_path).unwrap(),
            qrels,
            "the input is untouched"
        );
    }
}

/// S3 over word 8-grams of two texts, brute force.
fn s3(a: &str, b: &str) -> f64 {
    let (a, b) = (shingles(a, 8), shingles(b, 8));
    a.intersection(&b).count() as f64 / ((a.len() + b.len()) as f64 / 2.0)
}

#[test]
fn inspect_equals_a_brute_force_over_every_pair_within_a_topic() {
    let dir = tempfile::tempdir().unwrap();
    let (_, input) = inputs(dir.path()).remove(3);
    let store = dir.path().join("store");
    nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
    let text = texts(&input);
    let mut ids: Vec<String> = text.keys().cloned().collect();
    ids.sort();
    let run = make_run(&ids, 7);
    let qrels = make_qrels(&ids, 8);
    let (run_path, qrels_path) = (dir.path().join("a.run"), dir.path().join("a.qrels"));
    fs::write(&run_path, &run).unwrap();
    fs::write(&qrels_path, &qrels).unwrap();
    let report = dir.path().join("report");
    let o = nd(
        "-q trec inspect {} {} --store {} --top 10 -o {}",
        &[&run_path, &qrels_path, &store, &report],
    )
    .output();
    assert_eq!(
        o.status.code(),
        Some(2),
        "bad lines make it partial: {}",
        stderr(&o)
    );
    // Reference: an entry is a near-duplicate when an entry before it in its topic (run: the
    // top 10 in trec_eval's order; qrels: file order) has S3 >= 0.82 with it or the same id.
    let dup = |list: &[String], j: usize| {
        text.contains_key(&list[j])
            && (0..j).any(|i| {
                text.contains_key(&list[i])
                    && (list[i] == list[j] || s3(&text[&list[i]], &text[&list[j]]) >= 0.82)
            })
    };
    let mut want: HashMap<(String, String), (usize, usize)> = HashMap::new();
    let mut by_topic: HashMap<String, Vec<String>> = HashMap::new();
    for (q, d, _, _) in ranked(&run) {
        by_topic.entry(q).or_default().push(d);
    }
    for (q, list) in &by_topic {
        let list: Vec<String> = list.iter().take(10).cloned().collect();
        let n = (0..list.len()).filter(|j| dup(&list, *j)).count();
        want.insert(("a.run".into(), q.clone()), (n, 0));
    }
    let mut q_topics: HashMap<String, Vec<(String, i32)>> = HashMap::new();
    for l in qrels.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() >= 4 {
            q_topics
                .entry(f[0].into())
                .or_default()
                .push((f[2].into(), f[3].parse().unwrap()));
        }
    }
    for (q, recs) in &q_topics {
        let list: Vec<String> = recs.iter().map(|r| r.0.clone()).collect();
        let dups: Vec<usize> = (0..list.len()).filter(|j| dup(&list, *j)).collect();
        let rel = dups.iter().filter(|j| recs[**j].1 > 0).count();
        want.insert(("a.qrels".into(), q.clone()), (dups.len(), rel));
    }
    let tsv = fs::read_to_string(report.join("inspect.tsv")).unwrap();
    let mut got = HashMap::new();
    for l in tsv.lines().skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        let file = Path::new(f[0])
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let rel = f[8].parse().unwrap_or(0);
        got.insert(
            (file, f[2].to_string()),
            (f[5].parse::<usize>().unwrap(), rel),
        );
    }
    assert_eq!(got, want);
    assert!(
        want.values().any(|v| v.0 > 0),
        "the test has near-duplicates to find"
    );
}

/// The outputs read back by pytrec_eval (trec_eval's own reader) as written: P@5 per topic
/// from pytrec_eval equals the count over the written files. Runs where the python package
/// is installed; CI installs it and sets NEARDUP_REQUIRE_PYTREC=1, which makes its absence a
/// failure.
#[test]
fn outputs_are_read_by_pytrec_eval() {
    if !crate::common::python_has("pytrec_eval", "NEARDUP_REQUIRE_PYTREC") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (_, input) = inputs(dir.path()).remove(3);
    let out = dir.path().join("out");
    nd("-q dedup {} -o {}", &[&input, &out]).ok();
    let (kept, _) = clusters(&out);
    let mut ids: Vec<String> = kept.keys().cloned().collect();
    ids.sort();
    let (run_path, qrels_path) = (dir.path().join("r.run"), dir.path().join("q.txt"));
    fs::write(&run_path, make_run(&ids, 3)).unwrap();
    fs::write(&qrels_path, make_qrels(&ids, 4)).unwrap();
    let rd = dir.path().join("rd");
    let q_out = dir.path().join("q.dedup");
    nd(
        "-q trec run {} --clusters {} -o {}",
        &[&run_path, &out, &rd],
    )
    .output();
    nd(
        "-q trec qrels {} --clusters {} -o {}",
        &[&qrels_path, &out, &q_out],
    )
    .output();
    let run_out = rd.join("r.run");
    let script = r#"
import sys, pytrec_eval
with open(sys.argv[1]) as f: qrel = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
ev = pytrec_eval.RelevanceEvaluator(qrel, {'P_5'})
for q, m in sorted(ev.evaluate(run).items()):
    print(q, len(run[q]), round(m['P_5'] * 5))
"#;
    let o = crate::common::python(script, &[s(&q_out), s(&run_out)]);
    // Our own count: relevant among the first 5 of each topic, as written.
    let rels: HashMap<(String, String), i32> = fs::read_to_string(&q_out)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            ((f[0].to_string(), f[2].to_string()), f[3].parse().unwrap())
        })
        .collect();
    let written = fs::read_to_string(&run_out).unwrap();
    let mut mine: Vec<String> = Vec::new();
    let mut topics: Vec<String> = Vec::new();
    for l in written.lines() {
        let q = l.split(' ').next().unwrap().to_string();
        if !topics.contains(&q) {
            topics.push(q);
        }
    }
    let judged: HashSet<&String> = rels.keys().map(|k| &k.0).collect();
    topics.sort();
    for q in topics.iter().filter(|q| judged.contains(q)) {
        let lines: Vec<Vec<&str>> = written
            .lines()
            .map(|l| l.split(' ').collect::<Vec<_>>())
            .filter(|f| f[0] == q)
            .collect();
        let hits = lines[..lines.len().min(5)]
            .iter()
            .filter(|f| {
                rels.get(&(q.clone(), f[2].to_string()))
                    .is_some_and(|r| *r > 0)
            })
            .count();
        mine.push(format!("{q} {} {hits}", lines.len()));
    }
    let theirs: Vec<String> = o.lines().map(String::from).collect();
    assert_eq!(theirs, mine);
}

/// `trec transfer`: judgments reach the new crawl by URL, canonical class and verified
/// near-duplicate, each counted at its first stage; CopyCat's table per grade.
#[test]
fn transfer_moves_judgments_by_url_canonical_link_and_near_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        |p: &str| -> Vec<String> { (0..300).map(|i| format!("{p}w{i}z{}", i % 11)).collect() };
    let body = |w: &[String]| format!("<html><body><p>{}</p></body></html>", w.join(" "));
    let canon = |href: &str, w: &[String]| {
        format!(
            "<html><head><link rel=\"canonical\" href=\"{href}\"></head><body><p>{}</p></body></html>",
            w.join(" ")
        )
    };
    let mut edited = text("p3");
    edited[100] = "changed".into();
    edited[200] = "again".into();
    let old: Vec<u8> = [
        response("o1", "http://e.org/1", &body(&text("p1"))),
        response("o2", "http://e.org/2", &body(&text("p2"))),
        response("o3", "http://e.org/3", &body(&text("p3"))),
        response("o4", "http://e.org/4", &body(&text("p4"))),
        response("o5", "http://e.org/5", &canon("/c5", &text("p5"))),
    ]
    .concat();
    let new: Vec<u8> = [
        response("n1", "http://e.org/1#top", &body(&text("q1"))),
        // Names o2's URL as canonical and is its near-duplicate: the canonical stage.
        response(
            "n2",
            "http://e.org/new2",
            &canon("http://e.org/2", &text("p2")),
        ),
        // Names the same canonical link but is another page: not transferred.
        response(
            "n7",
            "http://e.org/new7",
            &canon("http://e.org/2", &text("q7")),
        ),
        response("n3", "http://x.org/moved3", &body(&edited)),
        // Its URL is o5's canonical link, and its text o5's.
        response("n5", "http://e.org/c5", &body(&text("p5"))),
        response("n6", "http://e.org/6", &body(&text("q6"))),
    ]
    .concat();
    let (old_w, new_w) = (dir.path().join("old.warc"), dir.path().join("new.warc"));
    fs::write(&old_w, old).unwrap();
    fs::write(&new_w, new).unwrap();
    let (old_s, new_s) = (dir.path().join("old.store"), dir.path().join("new.store"));
    nd("-q fingerprint {} --minhash -o {}", &[&old_w, &old_s]).ok();
    nd("-q fingerprint {} --minhash -o {}", &[&new_w, &new_s]).ok();
    let qrels = dir.path().join("q.txt");
    fs::write(
        &qrels,
        "1 0 o1 2\n1 0 o2 1\n1 0 o3 0\n1 0 o4 1\n1 0 o5 2\n1 0 gone 1\n2 0 o3 2\n2 0 o1 0\n",
    )
    .unwrap();
    let out = dir.path().join("new.qrels");
    nd(
        "-q trec transfer {} --from {} --to {} -o {}",
        &[&qrels, &old_s, &new_s, &out],
    )
    .ok();
    assert_eq!(
        fs::read_to_string(&out).unwrap(),
        "1 0 n1 2\n1 0 n2 1\n1 0 n3 0\n1 0 n5 2\n2 0 n3 2\n2 0 n1 0\n"
    );
    let table = fs::read_to_string(dir.path().join("new.qrels.tsv")).unwrap();
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(
        rows,
        [
            "0\t2\t0\t1\t0\t1\t2\t1.0000",
            "1\t3\t1\t0\t1\t0\t1\t0.3333",
            "2\t3\t0\t1\t1\t1\t3\t1.0000",
            "all\t8\t1\t2\t2\t2\t6\t0.7500",
        ]
    );
    // Never over the input.
    let o = nd(
        "trec transfer {} --from {} --to {} -o {} --force",
        &[&qrels, &old_s, &new_s, &qrels],
    )
    .output();
    assert_ne!(o.status.code(), Some(0));
}

/// A synthetic TREC collection from the synthetic crawl: runs whose topics hold planted
/// originals at known ranks and their planted copies (exact and near, from `truth.tsv`, the
/// generator's record, not neardup's) below them. After `dedup` and `trec run`, every exact
/// copy and nearly every near copy is gone, the original stays at its place in the order, and
/// no original is lost; the output still equals the plain reference over clusters.tsv.
#[test]
fn planted_copies_in_runs_are_removed_below_their_originals() {
    let dir = tempfile::tempdir().unwrap();
    let crawl = dir.path().join("crawl");
    nd("-q synth-crawl --docs 1500 -o {}", &[&crawl]).ok();
    let out = dir.path().join("out");
    nd("-q dedup {} -o {}", &[&crawl, &out]).ok();
    let truth = fs::read_to_string(crawl.join("truth.tsv")).unwrap();
    let mut copies: HashMap<String, Vec<(String, String)>> = HashMap::new();
    let mut originals = Vec::new();
    for l in truth.lines().skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        match f[1] {
            "original" => originals.push(f[0].to_string()),
            kind => copies
                .entry(f[2].to_string())
                .or_default()
                .push((f[0].to_string(), kind.to_string())),
        }
    }
    let with_copies: Vec<&String> = originals
        .iter()
        .filter(|o| copies.contains_key(*o))
        .collect();
    let alone: Vec<&String> = originals
        .iter()
        .filter(|o| !copies.contains_key(*o))
        .collect();
    assert!(with_copies.len() > 40 && alone.len() > 40);
    // Topic t: originals with copies at ranks 1, 4, 7, ..., their copies right after them,
    // and originals without copies in between.
    let mut run = String::new();
    let mut planted: Vec<(String, String, String)> = Vec::new(); // (qid, copy, kind)
    for t in 0..4 {
        let q = format!("q{t}");
        let mut rank = 0;
        let mut line = |d: &str| {
            rank += 1;
            run.push_str(&format!("{q} Q0 {d} {rank} {} syn\n", 1000 - rank));
        };
        for k in 0..10 {
            let o = with_copies[t * 10 + k];
            line(o);
            for (c, kind) in &copies[o.as_str()] {
                line(c);
                planted.push((q.clone(), c.clone(), kind.clone()));
            }
            line(alone[t * 10 + k]);
        }
    }
    let run_path = dir.path().join("syn.run");
    fs::write(&run_path, &run).unwrap();
    let rd = dir.path().join("rd");
    nd(
        "-q trec run {} --clusters {} -o {}",
        &[&run_path, &out, &rd],
    )
    .ok();
    let got = fs::read_to_string(rd.join("syn.run")).unwrap();
    let (kept, _) = clusters(&out);
    assert_eq!(
        got.lines().collect::<Vec<_>>(),
        run_reference(&run, &kept, false)
    );
    let written: HashSet<(String, String)> = got
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (f[0].to_string(), f[2].to_string())
        })
        .collect();
    // Copies are gone: exact ones all...
    let left = |kind: &str| {
        let of_kind: Vec<_> = planted.iter().filter(|p| p.2 == kind).collect();
        let n = of_kind
            .iter()
            .filter(|(q, c, _)| written.contains(&(q.clone(), c.clone())))
            .count();
        (n, of_kind.len())
    };
    let (exact_left, exact) = left("exact");
    assert!(exact > 0);
    assert_eq!(exact_left, 0, "every exact copy is removed");
    // Near copies are planted at several edit levels; those that are near-duplicates by the
    // truth's measure (S3 >= 0.82 by brute force) are nearly all removed.
    let text = texts(&crawl);
    let original_of: HashMap<&str, &str> = copies
        .iter()
        .flat_map(|(o, cs)| cs.iter().map(move |(c, _)| (c.as_str(), o.as_str())))
        .collect();
    let close: Vec<_> = planted
        .iter()
        .filter(|p| p.2 == "near" && s3(&text[&p.1], &text[original_of[p.1.as_str()]]) >= 0.82)
        .collect();
    let close_left = close
        .iter()
        .filter(|(q, c, _)| written.contains(&(q.clone(), c.clone())))
        .count();
    assert!(
        close.len() > 10,
        "{} near copies above the threshold",
        close.len()
    );
    assert!(
        close_left * 10 <= close.len(),
        "{close_left} of {} left",
        close.len()
    );
    // ...and every topic keeps one entry per original, written as the group's kept document.
    for t in 0..4 {
        let q = format!("q{t}");
        for k in 0..10 {
            for o in [with_copies[t * 10 + k], alone[t * 10 + k]] {
                let k = kept.get(o).unwrap_or(o);
                assert!(written.contains(&(q.clone(), k.clone())), "{q} {o}");
            }
        }
    }
}
