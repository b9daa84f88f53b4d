//! `neardup verify`: every candidate pair's scores equal a brute-force re-extraction of both
//! documents (string shingles of the plain term list), for every input format and thread
//! count; a shard that moved or changed is an error naming it.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::*;
use neardup::corpus::{discover, read_unit, Document, ReadOptions, Sink, Skip};
use neardup::text::extract::payload_text;
use neardup::text::tokenize::terms;
use neardup::text::TokenOptions;

pub(crate) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Texts by id, read with the library's own readers.
struct Texts(HashMap<String, String>);

impl Sink for Texts {
    fn document(&mut self, doc: Document<'_>) {
        let html = match doc.kind {
            neardup::corpus::PayloadKind::Html => Some(true),
            neardup::corpus::PayloadKind::Text => Some(false),
            neardup::corpus::PayloadKind::Unknown => None,
        };
        let mut text = String::new();
        payload_text(
            &doc.payload,
            doc.charset.as_deref(),
            html,
            Default::default(),
            &doc.url,
            &mut text,
        );
        self.0.insert(doc.id.into_owned(), text);
    }
    fn skip(&mut self, _: Skip, _: u64, _: &str) {}
}

pub(crate) fn texts(input: &Path) -> HashMap<String, String> {
    let opts = ReadOptions::default();
    let found = discover(&[input.to_path_buf()], &opts);
    let mut t = Texts(HashMap::new());
    for u in &found.units {
        read_unit(u, &found.shards, &opts, &mut t).unwrap();
    }
    t.0
}

pub(crate) fn shingles(text: &str, k: usize) -> BTreeSet<String> {
    let t = terms(text, TokenOptions::default());
    if t.is_empty() {
        return BTreeSet::new();
    }
    t.windows(k.min(t.len())).map(|w| w.join(" ")).collect()
}

/// Pages in families: a base page and copies with a few words changed, so the candidates at a
/// wide tau have S3 from low to 1.
fn pages() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for fam in 0..6 {
        let base: Vec<String> = page(fam, 300).split(' ').map(String::from).collect();
        for copy in 0..4 {
            let mut words = base.clone();
            for k in 0..copy * 6 {
                let at = (k * 37 + copy * 11) % words.len();
                words[at] = format!("edit{fam}x{copy}x{k}");
            }
            out.push((format!("d{fam}-{copy}"), words.join(" ")));
        }
    }
    out
}

/// The same pages in every format neardup reads; returns (name, input path).
pub(crate) fn inputs(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let docs = pages();
    let html = |body: &str| format!("<html><body><p>{body}</p></body></html>");
    let warc: Vec<u8> = docs
        .iter()
        .flat_map(|(id, body)| response(id, "http://x/", &html(body)))
        .collect();
    let gz_members: Vec<u8> = docs
        .iter()
        .flat_map(|(id, body)| gz(&response(id, "http://x/", &html(body))))
        .collect();
    let jsonl: String = docs
        .iter()
        .map(|(id, body)| format!("{{\"id\": \"{id}\", \"text\": \"{body}\"}}\n"))
        .collect();
    let mut out = Vec::new();
    let mut put = |name: &'static str, file: &str, bytes: &[u8]| {
        let d = dir.join(name);
        fs::create_dir(&d).unwrap();
        fs::write(d.join(file), bytes).unwrap();
        out.push((name, d));
    };
    put("warc", "a.warc", &warc);
    put("warc-gz", "a.warc.gz", &gz_members);
    put("warc-gz-stream", "a.warc.gz", &gz(&warc));
    put("jsonl", "a.jsonl", jsonl.as_bytes());
    put("jsonl-gz", "a.jsonl.gz", &gz(jsonl.as_bytes()));
    let files = dir.join("files");
    fs::create_dir(&files).unwrap();
    for (id, body) in &docs {
        fs::write(files.join(format!("{id}.html")), html(body)).unwrap();
    }
    out.push(("files", files));
    out
}

#[test]
fn verified_scores_equal_a_brute_force_re_extraction() {
    let dir = tempfile::tempdir().unwrap();
    for (name, input) in inputs(dir.path()) {
        let store = dir.path().join(format!("{name}.store"));
        nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
        let truth = texts(&input);
        let mut outputs = Vec::new();
        for threads in ["1", "3"] {
            let out = nd(
                "-q --threads {} verify {} --tau 24 -o -",
                &[&threads, &store],
            )
            .ok();
            outputs.push(out);
        }
        assert_eq!(outputs[0], outputs[1], "{name}: thread counts differ");
        // The shingle sets kept by fingerprinting give the scores of reading the texts again.
        let kept = dir.path().join(format!("{name}.kept"));
        nd("-q fingerprint {} -o {} --shingles", &[&input, &kept]).ok();
        assert!(kept.join("shingles.u64").exists(), "{name}");
        let from_sets = nd("-q --threads 3 verify {} --tau 24 -o -", &[&kept]).ok();
        assert_eq!(
            from_sets, outputs[0],
            "{name}: the kept sets score otherwise"
        );
        let lines: Vec<&str> = outputs[0].lines().skip(1).collect();
        assert!(lines.len() >= 36, "{name}: {} pairs", lines.len());
        let mut passed = 0;
        for l in lines {
            let f: Vec<&str> = l.split('\t').collect();
            let (a, b) = (shingles(&truth[f[0]], 8), shingles(&truth[f[1]], 8));
            let common = a.intersection(&b).count() as f64;
            let s3 = common / ((a.len() + b.len()) as f64 / 2.0);
            let got: f64 = f[4].parse().unwrap();
            assert!((got - s3).abs() < 1e-5, "{name} {l}: brute force {s3}");
            let jaccard = common / a.union(&b).count() as f64;
            assert!(
                (f[5].parse::<f64>().unwrap() - jaccard).abs() < 1e-5,
                "{name} {l}"
            );
            assert_eq!(f[7] == "1", got >= 0.82, "{name} {l}");
            passed += usize::from(f[7] == "1");
        }
        assert!(passed > 0, "{name}: no pair verified");
    }
}

#[test]
fn moved_or_changed_shards_are_errors_that_name_them() {
    let dir = tempfile::tempdir().unwrap();
    let (_, input) = inputs(dir.path()).remove(1);
    let store = dir.path().join("s");
    nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
    let verify = |extra: &[&str]| {
        let mut args = vec!["-q", "verify", s(&store), "--tau", "24", "-o", "-"];
        args.extend(extra);
        neardup(&args)
    };
    let whole = verify(&[]);
    assert!(whole.status.success(), "{}", stderr(&whole));
    // Moved: an error naming the shard, until --shard-dir says where it went.
    let shard = input.join("a.warc.gz");
    let elsewhere = dir.path().join("moved");
    fs::create_dir(&elsewhere).unwrap();
    fs::rename(&shard, elsewhere.join("a.warc.gz")).unwrap();
    let o = verify(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("a.warc.gz") && stderr(&o).contains("--shard-dir"),
        "{}",
        stderr(&o)
    );
    let o = verify(&["--shard-dir", s(&elsewhere)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, whole.stdout);
    // Changed, same size (a byte in the middle) or not: refused.
    let mut bytes = fs::read(elsewhere.join("a.warc.gz")).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    fs::write(&shard, &bytes).unwrap();
    let o = verify(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("has changed"), "{}", stderr(&o));
    bytes[mid] ^= 0x20;
    bytes.extend_from_slice(&gz(b"WARC/1.0\r\n\r\n"));
    fs::write(&shard, &bytes).unwrap();
    let o = verify(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("has changed"), "{}", stderr(&o));
}

/// `dedup --verify` clusters by verified pairs only: its partition equals the connected
/// components of the candidate pairs whose brute-force S3 is at least 0.82, exact duplicates
/// (compared without reading) included, and its counts are the brute force's.
#[test]
fn verified_dedup_clusters_are_the_components_of_verified_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let mut docs = pages();
    // Exact copies: identical text, compared by content hash alone.
    docs.push(("copy-a".into(), docs[0].1.clone()));
    docs.push(("copy-b".into(), docs[0].1.clone()));
    let jsonl: String = docs
        .iter()
        .map(|(id, body)| format!("{{\"id\": \"{id}\", \"text\": \"{body}\"}}\n"))
        .collect();
    let input = dir.path().join("docs.jsonl");
    fs::write(&input, jsonl).unwrap();
    let out = dir.path().join("out");
    nd(
        "-q dedup {} -o {} --candidates simhash --tau 24",
        &[&input, &out],
    )
    .ok();
    let truth = texts(&input);
    let pairs = nd("-q join {} --tau 24 -o -", &[&out.join("store")]).ok();
    let ids: Vec<&String> = docs.iter().map(|d| &d.0).collect();
    let index: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, d)| (d.as_str(), i))
        .collect();
    let mut parent: Vec<usize> = (0..ids.len()).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        if p[x] != x {
            let r = find(p, p[x]);
            p[x] = r;
        }
        p[x]
    }
    let (mut candidates, mut verified) = (0, 0);
    for l in pairs.lines().skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        candidates += 1;
        let (a, b) = (shingles(&truth[f[0]], 8), shingles(&truth[f[1]], 8));
        let s3 = a.intersection(&b).count() as f64 / ((a.len() + b.len()) as f64 / 2.0);
        if s3 >= 0.82 {
            verified += 1;
            let (x, y) = (
                find(&mut parent, index[f[0]]),
                find(&mut parent, index[f[1]]),
            );
            parent[x] = y;
        }
    }
    assert!(
        verified > 0 && verified < candidates,
        "{verified} of {candidates}"
    );
    let clusters = fs::read_to_string(out.join("clusters.tsv")).unwrap();
    let rep: HashMap<&str, &str> = clusters
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0], f[1])
        })
        .collect();
    for a in 0..ids.len() {
        for b in a + 1..ids.len() {
            let same_truth = find(&mut parent, a) == find(&mut parent, b);
            let same_out = rep[ids[a].as_str()] == rep[ids[b].as_str()];
            assert_eq!(same_truth, same_out, "{} {}", ids[a], ids[b]);
        }
    }
    let summary = fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(
        summary.contains(&format!("\"candidate_pairs\": {candidates}")),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("\"verified_pairs\": {verified}")),
        "{summary}"
    );
}

/// `evaluate` equals a brute force over every pair: candidates by Hamming distance from the
/// exported fingerprints, truth by string shingles, at every tau.
#[test]
fn evaluate_equals_a_brute_force_over_every_pair() {
    let dir = tempfile::tempdir().unwrap();
    let (_, input) = inputs(dir.path()).remove(3);
    let store = dir.path().join("s");
    nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
    let out = dir.path().join("eval");
    nd("-q evaluate {} --tau-max 30 -o {}", &[&store, &out]).ok();
    let truth = texts(&input);
    let rows: Vec<(String, u64)> = export_tsv(&store)
        .into_iter()
        .map(|r| (r[0].clone(), u64::from_str_radix(&r[2], 16).unwrap()))
        .collect();
    let mut cand = [0u64; 65];
    let mut hit = [0u64; 65];
    for i in 0..rows.len() {
        for j in i + 1..rows.len() {
            let d = (rows[i].1 ^ rows[j].1).count_ones() as usize;
            cand[d] += 1;
            let (a, b) = (
                shingles(&truth[&rows[i].0], 8),
                shingles(&truth[&rows[j].0], 8),
            );
            let s3 = a.intersection(&b).count() as f64 / ((a.len() + b.len()) as f64 / 2.0);
            if s3 >= 0.82 {
                hit[d] += 1;
            }
        }
    }
    let table = fs::read_to_string(out.join("evaluate.tsv")).unwrap();
    let (mut c, mut t) = (0, 0);
    let total: u64 = hit.iter().sum();
    assert!(total > 0);
    let simhash: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("simhash\t"))
        .collect();
    assert_eq!(simhash.len(), 31);
    for (tau, line) in simhash.into_iter().enumerate() {
        c += cand[tau];
        t += hit[tau];
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f[1], tau.to_string());
        assert_eq!(
            (f[2], f[3]),
            (c.to_string().as_str(), t.to_string().as_str()),
            "tau {tau}"
        );
        let recall: f64 = f[5].parse().unwrap();
        assert!((recall - t as f64 / total as f64).abs() < 1e-4, "tau {tau}");
    }
    assert!(fs::read_to_string(out.join("evaluate.svg"))
        .unwrap()
        .contains("MinHash 40x7 recall"));
    // MinHash-LSH's row, on a store with the band keys: its candidates are the pairs that
    // `dedup --candidates minhash` reports (read back through `verify`), its true positives
    // those of them whose string shingles pass.
    let mh = dir.path().join("mh");
    nd("-q fingerprint {} -o {} --minhash", &[&input, &mh]).ok();
    let eval_mh = dir.path().join("eval_mh");
    nd("-q evaluate {} -o {}", &[&mh, &eval_mh]).ok();
    let lsh = dir.path().join("lsh");
    nd(
        "-q dedup {} --candidates minhash --no-verify -o {}",
        &[&mh, &lsh],
    )
    .ok();
    let pairs = nd(
        "-q verify {} --pairs {} --tau 64 -o -",
        &[&mh, &lsh.join("pairs.bin")],
    )
    .ok();
    let (mut candidates, mut true_pos) = (0u64, 0u64);
    for l in pairs.lines().skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        let (a, b) = (shingles(&truth[f[0]], 8), shingles(&truth[f[1]], 8));
        let s3 = a.intersection(&b).count() as f64 / ((a.len() + b.len()) as f64 / 2.0);
        candidates += 1;
        true_pos += u64::from(s3 >= 0.82);
    }
    assert!(candidates > 0 && true_pos > 0);
    let table = fs::read_to_string(eval_mh.join("evaluate.tsv")).unwrap();
    let row = table
        .lines()
        .find(|l| l.starts_with("minhash\t"))
        .expect("a minhash row");
    let f: Vec<&str> = row.split('\t').collect();
    assert_eq!(f[1], "40x7");
    assert_eq!(
        (f[2], f[3]),
        (
            candidates.to_string().as_str(),
            true_pos.to_string().as_str()
        ),
        "{table}"
    );
    // A sample is a subset, reproducible by its seed.
    nd(
        "-q evaluate {} --sample 10 -o {}",
        &[&store, &dir.path().join("e1")],
    )
    .ok();
    nd(
        "-q evaluate {} --sample 10 -o {}",
        &[&store, &dir.path().join("e2")],
    )
    .ok();
    let a = fs::read_to_string(dir.path().join("e1/evaluate.tsv")).unwrap();
    assert_eq!(
        a,
        fs::read_to_string(dir.path().join("e2/evaluate.tsv")).unwrap()
    );
    let json = fs::read_to_string(dir.path().join("e1/evaluate.json")).unwrap();
    assert!(json.contains("\"sample\": 10"), "{json}");
}

/// A component larger than `--verify-memory` is scored block pair by block pair: the scores
/// are those of the run that holds it whole, and its blocks are read more than once.
#[test]
fn a_component_over_the_memory_budget_is_scored_by_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let base: Vec<String> = page(3, 1500).split(' ').map(String::from).collect();
    let docs = 160;
    let jsonl: String = (0..docs)
        .map(|copy| {
            let mut words = base.clone();
            for k in 0..copy % 9 {
                let at = (k * 131 + copy * 17) % words.len();
                words[at] = format!("edit{copy}x{k}");
            }
            format!(
                "{{\"id\": \"c{copy}\", \"text\": \"{}\"}}\n",
                words.join(" ")
            )
        })
        .collect();
    let input = dir.path().join("a.jsonl");
    fs::write(&input, jsonl).unwrap();
    let store = dir.path().join("s");
    nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
    let run = |extra: &[&str]| {
        let mut args = vec!["verify", s(&store), "--tau", "24", "-o", "-"];
        args.extend_from_slice(extra);
        let out = neardup(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let err = stderr(&out);
        let read: u64 = err
            .split(" documents read again")
            .next()
            .and_then(|h| h.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{err}"));
        (String::from_utf8(out.stdout).unwrap(), read)
    };
    let (whole, read_whole) = run(&[]);
    let (blocks, read_blocks) = run(&["--verify-memory", "1M"]);
    assert!(
        whole.lines().count() > 1000,
        "{} pairs",
        whole.lines().count()
    );
    assert_eq!(whole, blocks);
    assert!(
        read_whole <= docs as u64,
        "each text read once when held whole"
    );
    assert!(
        read_blocks > read_whole,
        "{read_blocks} documents read by blocks"
    );
}
