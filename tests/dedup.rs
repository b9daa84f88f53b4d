//! The `dedup`, `sweep`, `cluster` and `demo` commands end to end: every output is written and
//! consistent with the others, a reused join gives what a fresh one gives, and documents too
//! short to join are listed, not lost.

use std::path::{Path, PathBuf};

use crate::common::{nd, stderr, summary_json};
use neardup::report::summary::{Command, Summary};

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn lines(p: &Path) -> Vec<String> {
    read(p).lines().map(str::to_string).collect()
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample")
}

#[test]
fn dedup_writes_every_output_and_later_commands_reuse_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    nd(
        "-q dedup {} -o {} --tau 3 --tau-max 6 --no-verify",
        &[&sample(), &out],
    )
    .ok();
    for f in [
        "store/manifest.json",
        "pairs.bin",
        "sweep.tsv",
        "sweep.json",
        "sweep.svg",
        "distances.tsv",
        "distances.svg",
        "cluster_sizes.tsv",
        "cluster_sizes.svg",
        "clusters.tsv",
        "keep.txt",
        "remove.tsv",
        "excluded.tsv",
        "summary.json",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    for svg in ["sweep.svg", "distances.svg", "cluster_sizes.svg"] {
        let body = read(&out.join(svg));
        assert!(
            body.starts_with("<svg") && (body.contains("<path") || body.contains("<polyline")),
            "{svg}"
        );
        assert!(!body.contains("plot failed"), "{svg}");
    }
    let summary = summary_json(&out);
    let docs = summary["documents"].as_u64().unwrap();
    assert!(docs >= 90, "{docs}");
    let sweep = lines(&out.join("sweep.tsv"));
    assert_eq!(
        sweep[0],
        "tau\tdocs_kept\tkept_ratio\tmax_cluster\tmax_cluster_ratio\tpairs\tdocs_in_clusters\tremoved_by_star"
    );
    assert_eq!(sweep.len(), 8);
    let row3: Vec<&str> = sweep[4].split('\t').collect();
    assert_eq!(row3[0], "3");
    // The lists at tau 3 agree with the sweep's row for tau 3.
    let keep = lines(&out.join("keep.txt"));
    let remove = lines(&out.join("remove.tsv"));
    let clusters = lines(&out.join("clusters.tsv"));
    // Removal by stars: the sweep's count, never more than the components remove.
    assert_eq!((remove.len() - 1).to_string(), row3[7]);
    let kept_components: u64 = row3[1].parse().unwrap();
    assert!(keep.len() as u64 >= kept_components);
    assert_eq!((keep.len() + remove.len() - 1) as u64, docs);
    assert_eq!((clusters.len() - 1) as u64, docs);
    assert!(remove.len() > 1, "the sample has planted duplicates");
    assert_eq!(
        summary["clusters"]["keep"].as_u64().unwrap(),
        keep.len() as u64
    );
    // Every removed document's kept one is kept, within tau 3 of it (no verification here:
    // no score), and in the same cluster.
    let cluster_of: std::collections::HashMap<&str, &str> = clusters[1..]
        .iter()
        .map(|r| {
            let f: Vec<&str> = r.split('\t').collect();
            (f[0], f[1])
        })
        .collect();
    for r in &remove[1..] {
        let f: Vec<&str> = r.split('\t').collect();
        assert!(keep.iter().any(|k| k == f[1]), "{} not kept", f[1]);
        assert!(f[2].parse::<u32>().unwrap() <= 3, "{r}");
        assert_eq!(f[3], "-", "{r}");
        assert_eq!(cluster_of[f[0]], cluster_of[f[1]], "{r}");
    }
    // clusters.tsv's last column is the kept document: the member itself when kept.
    for row in &clusters[1..] {
        let f: Vec<&str> = row.split('\t').collect();
        assert_eq!(f[3] == f[0], keep.iter().any(|k| k == f[0]), "{row}");
    }
    // The default representative is the lowest id of its cluster.
    for row in &clusters[1..] {
        let f: Vec<&str> = row.split('\t').collect();
        assert!(f[1] <= f[0], "{row}");
    }
    // sweep and cluster with the saved pairs give the same tables as dedup.
    let store = out.join("store");
    let pairs = out.join("pairs.bin");
    let again = dir.path().join("again");
    nd(
        "-q sweep {} --pairs {} --tau-max 6 -o {}",
        &[&store, &pairs, &again],
    )
    .ok();
    assert_eq!(read(&again.join("sweep.tsv")), read(&out.join("sweep.tsv")));
    let fresh = dir.path().join("fresh");
    nd("-q sweep {} --tau-max 6 -o {}", &[&store, &fresh]).ok();
    assert_eq!(read(&fresh.join("sweep.tsv")), read(&out.join("sweep.tsv")));
    let cl = dir.path().join("cl");
    nd(
        "-q cluster {} --pairs {} --tau 3 -o {}",
        &[&store, &pairs, &cl],
    )
    .ok();
    assert_eq!(read(&cl.join("keep.txt")), read(&out.join("keep.txt")));
    assert_eq!(
        read(&cl.join("clusters.tsv")),
        read(&out.join("clusters.tsv"))
    );
    // One typed schema for the three commands' summaries (unknown fields are refused), each
    // with the parts its command makes and the join's run only where it joined.
    let read_summary = |d: &Path| Summary::read(d).unwrap_or_else(|e| panic!("{e}"));
    let (d, sw, fr, c) = (
        read_summary(&out),
        read_summary(&again),
        read_summary(&fresh),
        read_summary(&cl),
    );
    assert_eq!(
        (d.command, sw.command, c.command),
        (Command::Dedup, Command::Sweep, Command::Cluster)
    );
    assert!(d.fingerprint.is_some() && d.sweep.is_some() && d.clusters.is_some());
    assert!(sw.fingerprint.is_none() && sw.sweep.is_some() && sw.clusters.is_none());
    assert!(c.fingerprint.is_none() && c.sweep.is_none() && c.clusters.is_some());
    assert_eq!(d.pairs_file.as_deref(), Some(pairs.as_path()));
    assert_eq!(sw.pairs_file.as_deref(), Some(pairs.as_path()));
    assert!(d.join.ran.is_some() && fr.join.ran.is_some());
    assert!(
        sw.join.ran.is_none() && c.join.ran.is_none(),
        "read, not joined"
    );
    assert_eq!(d.join.pairs, sw.join.pairs);
    assert_eq!(d.sweep, fr.sweep);
    assert_eq!(d.clusters, c.clusters);
    assert_eq!(d.join.method, neardup::join::plan::Method::Exact);
    assert!(read(&out.join("summary.json")).contains("\"method\": \"exact\""));
    // A pairs file joined at tau 6 cannot serve tau 7.
    let o = nd(
        "-q cluster {} --pairs {} --tau 7 -o {}",
        &[&store, &pairs, &cl],
    )
    .output();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("up to tau 6"), "{}", stderr(&o));
    // ... nor another corpus.
    let other = dir.path().join("other");
    let shard = sample().join("synth-00000.warc.gz");
    nd("-q fingerprint {} -o {}", &[&shard, &other]).ok();
    let o = nd(
        "-q sweep {} --pairs {} -o {}",
        &[&other, &pairs, &dir.path().join("sweep-other")],
    )
    .output();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("other stores"), "{}", stderr(&o));
    // The 128-bit sweep at a fixed tau has one row per tau128.
    let s128 = dir.path().join("s128");
    nd(
        "-q sweep {} --tau 6 --tau128-max 16 -o {}",
        &[&store, &s128],
    )
    .ok();
    let rows = lines(&s128.join("sweep.tsv"));
    assert_eq!(rows.len(), 18);
    assert!(rows[0].starts_with("tau128\t"));
    let last: Vec<&str> = rows[17].split('\t').collect();
    assert!(
        last[5].parse::<u64>().unwrap() <= sweep[7].split('\t').nth(5).unwrap().parse().unwrap()
    );
}

#[test]
fn short_documents_are_listed_as_excluded_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut warc = Vec::new();
    let long = crate::common::page(1, 200);
    for i in 0..4 {
        warc.extend(crate::common::response(
            &format!("urn:long-{i}"),
            "http://a/",
            &long,
        ));
    }
    for i in 0..3 {
        warc.extend(crate::common::response(
            &format!("urn:short-{i}"),
            "http://b/",
            "<p>tiny page</p>",
        ));
    }
    let shard = dir.path().join("mix.warc");
    std::fs::write(&shard, &warc).unwrap();
    let out = dir.path().join("out");
    nd("-q dedup {} -o {} --tau 0", &[&shard, &out]).ok();
    let excluded = lines(&out.join("excluded.tsv"));
    assert_eq!(
        excluded[1..],
        [
            "urn:short-0\tshort",
            "urn:short-1\tshort",
            "urn:short-2\tshort"
        ]
    );
    let keep = lines(&out.join("keep.txt"));
    // One representative of the four identical long pages, and the three short ones.
    assert_eq!(
        keep,
        ["urn:long-0", "urn:short-0", "urn:short-1", "urn:short-2"]
    );
    let summary = summary_json(&out);
    assert_eq!(summary["excluded"], 3);
    assert_eq!(summary["joined"], 4);
    let sweep = lines(&out.join("sweep.tsv"));
    assert!(sweep[1].starts_with("0\t4\t"), "{}", sweep[1]);
}

#[test]
fn join_writes_collapsed_groups_and_a_reusable_pairs_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut warc = Vec::new();
    for i in 0..4 {
        warc.extend(crate::common::response(
            &format!("urn:x-{i}"),
            "http://a/",
            &crate::common::page(9, 120),
        ));
    }
    warc.extend(crate::common::response(
        "urn:y",
        "http://a/",
        &crate::common::page(10, 120),
    ));
    let shard = dir.path().join("x.warc");
    std::fs::write(&shard, &warc).unwrap();
    let store = dir.path().join("s");
    nd("-q fingerprint {} -o {}", &[&shard, &store]).ok();
    let full = nd("-q join {} --tau 0 -o -", &[&store]).ok();
    assert_eq!(full.lines().count(), 1 + 6);
    let collapsed = nd("-q join {} --tau 0 --collapse-exact -o -", &[&store]).ok();
    let rows: Vec<&str> = collapsed.lines().skip(1).collect();
    assert_eq!(
        rows,
        [
            "urn:x-0\turn:x-1\t0\t0",
            "urn:x-0\turn:x-2\t0\t0",
            "urn:x-0\turn:x-3\t0\t0"
        ]
    );
    let bin = dir.path().join("p.bin");
    nd(
        "-q join {} --tau 0 --pairs-bin {} -o {}",
        &[&store, &bin, &dir.path().join("p.tsv")],
    )
    .ok();
    let cl = dir.path().join("cl");
    nd(
        "-q cluster {} --pairs {} --tau 0 -o {}",
        &[&store, &bin, &cl],
    )
    .ok();
    assert_eq!(lines(&cl.join("keep.txt")), ["urn:x-0", "urn:y"]);
}

#[test]
fn demo_runs_the_pipeline_and_scores_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = nd("-q demo --docs 400 --tau 4 -o {}", &[&dir.path()]).ok();
    assert!(out.contains("precision"), "{out}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| {
            l.trim_start().starts_with(char::is_numeric) && l.split_whitespace().count() == 14
        })
        .collect();
    assert_eq!(rows.len(), 5, "{out}");
    // Exact copies are always found, and nothing unrelated is paired at tau 0.
    let tau0: Vec<&str> = rows[0].split_whitespace().collect();
    assert_eq!(tau0[6], "1.0000", "candidates' precision at tau 0: {out}");
    assert_eq!(tau0[10], "1.0000", "verified precision at tau 0: {out}");
    assert_eq!(tau0[12], "1.0000", "copies found at tau 0: {out}");
    // Verified pairs are candidates that pass: never more of them, and precision 1 against
    // the S3 truth.
    for r in &rows {
        let f: Vec<&str> = r.split_whitespace().collect();
        assert!(
            f[9].parse::<u64>().unwrap() <= f[5].parse::<u64>().unwrap(),
            "{r}"
        );
    }
    assert!(out.contains("Against S3 >= 0.82 truth"), "{out}");
    // The default job comes first: its stages timed, its removal scored against both truths.
    let default = out
        .find("The default job")
        .expect("the default job's report");
    assert!(default < out.find("For context, SimHash").unwrap(), "{out}");
    for stage in [
        "fingerprint",
        "candidates and verification",
        "clusters and lists",
    ] {
        assert!(
            out.lines()
                .any(|l| l.trim_start().starts_with(stage) && l.ends_with(" s")),
            "{stage}: {out}"
        );
    }
    for truth in ["the planted truth |", "S3 truth on 400 pages |"] {
        let row = out.lines().find(|l| l.contains(truth)).expect(truth);
        let f: Vec<&str> = row.split('|').flat_map(|p| p.split_whitespace()).collect();
        let n = f.len();
        // removed, correct, precision | true pairs, both kept, recall
        let (removed, correct) = (
            f[n - 6].parse::<u64>().unwrap(),
            f[n - 5].parse::<u64>().unwrap(),
        );
        assert!(removed > 0 && correct <= removed, "{row}");
        let recall: f64 = f[n - 1].parse().unwrap();
        assert!((0.0..=1.0).contains(&recall), "{row}");
        if truth.starts_with("S3") {
            // Verified removals are near-duplicates by S3, compared again.
            assert_eq!(correct, removed, "{row}");
        }
    }
    assert!(dir.path().join("out/summary.json").is_file());
    assert!(dir.path().join("out-simhash/summary.json").is_file());
    assert!(dir.path().join("crawl").is_dir());
}

#[test]
fn an_empty_crawl_gives_empty_outputs_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::write(input.join("empty.warc"), b"").unwrap();
    let out = dir.path().join("out");
    nd("-q dedup {} -o {} --tau 4", &[&input, &out]).ok();
    let sweep = lines(&out.join("sweep.tsv"));
    assert_eq!(sweep.len(), 6);
    assert!(sweep[1..]
        .iter()
        .all(|r| r.starts_with(char::is_numeric) && r.split('\t').nth(1) == Some("0")));
    assert_eq!(lines(&out.join("keep.txt")), Vec::<String>::new());
    let store = out.join("store");
    nd("-q cluster {} -o {}", &[&store, &dir.path().join("cl")]).ok();
    assert_eq!(
        nd("-q join {} -o - --backend cpu", &[&store]).ok(),
        "id_a\tid_b\thamming64\thamming128\n"
    );
}

/// The verified default: its sweep has the quality columns, and `sweep` and `cluster` with
/// `--verify` on its pairs.bin (scores reused) give the same tables and lists; without
/// `--verify` they see the candidates again.
#[test]
fn verified_dedup_outputs_are_reproduced_from_its_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    nd("-q dedup {} -o {} --tau 6 --all-pairs", &[&sample(), &out]).ok();
    let sweep = lines(&out.join("sweep.tsv"));
    assert!(sweep[0].ends_with("\tcandidate_pairs\tknown_pairs\tverified_pairs\tprecision\tprecision_low\tprecision_high\tsampled_pairs\tremoved_by_star"), "{}", sweep[0]);
    assert_eq!(sweep.len(), 8);
    for row in &sweep[1..] {
        let f: Vec<&str> = row.split('\t').collect();
        // Every candidate is compared by default: the precision is exact.
        assert_eq!(f[7], f[8], "{row}");
        assert_eq!(f[11], f[12], "{row}");
        assert_eq!(f[5], f[9], "clustered pairs are the verified ones: {row}");
    }
    let summary = summary_json(&out);
    assert_eq!(summary["verification"]["measure"], "s3");
    assert_eq!(summary["verification"]["not_compared_pairs"], 0);
    let (store, pairs) = (out.join("store"), out.join("pairs.bin"));
    let again = dir.path().join("again");
    nd(
        "-q sweep {} --pairs {} --tau-max 6 --verify s3:0.82 -o {}",
        &[&store, &pairs, &again],
    )
    .ok();
    assert_eq!(read(&again.join("sweep.tsv")), read(&out.join("sweep.tsv")));
    let cl = dir.path().join("cl");
    nd(
        "-q cluster {} --pairs {} --tau 6 --verify s3:0.82 -o {}",
        &[&store, &pairs, &cl],
    )
    .ok();
    assert_eq!(
        read(&cl.join("clusters.tsv")),
        read(&out.join("clusters.tsv"))
    );
    // Without --verify, the candidates: as a SimHash-only run makes them.
    let plain = dir.path().join("plain");
    nd(
        "-q dedup {} -o {} --tau 6 --no-verify",
        &[&sample(), &plain],
    )
    .ok();
    let cand = dir.path().join("cand");
    nd(
        "-q sweep {} --pairs {} --tau-max 6 -o {}",
        &[&store, &pairs, &cand],
    )
    .ok();
    assert_eq!(
        read(&cand.join("sweep.tsv")),
        read(&plain.join("sweep.tsv"))
    );
    // A sampled sweep draws pairs and brackets the exact precision at every threshold.
    let est = dir.path().join("est");
    nd(
        "-q sweep {} --pairs {} --tau-max 6 --verify s3:0.82 --verify-sample 5 -o {}",
        &[&store, &pairs, &est],
    )
    .ok();
    let est = lines(&est.join("sweep.tsv"));
    for (e, x) in est[1..].iter().zip(&sweep[1..]) {
        let (e, x): (Vec<&str>, Vec<&str>) = (e.split('\t').collect(), x.split('\t').collect());
        assert_eq!(e[7], x[7], "candidates");
        let p: f64 = x[10].parse().unwrap();
        let (lo, hi): (f64, f64) = (e[11].parse().unwrap(), e[12].parse().unwrap());
        // Exact where a distance has no more pairs than drawn; a 95 % interval elsewhere
        // (seeded, so this is a fixed draw that covers).
        assert!(lo <= p + 1e-9 && p <= hi + 1e-9, "{p} outside [{lo}, {hi}]");
    }
}

/// `--candidates minhash`: the store gains its band keys (20 per document), and the verified
/// pairs are the LSH candidates that pass, never more than the candidates.
#[test]
fn minhash_candidates_are_verified_like_simhash_ones() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    nd("-q dedup {} -o {} --candidates minhash", &[&sample(), &out]).ok();
    let manifest: serde_json::Value =
        serde_json::from_str(&read(&out.join("store/manifest.json"))).unwrap();
    assert_eq!(manifest["minhash"]["bands"], 40);
    let docs = manifest["docs"].as_u64().unwrap();
    // One file per band, a key per document.
    let bands: Vec<Vec<u8>> = (0..40)
        .map(|b| std::fs::read(out.join(format!("store/minhash.{b:03}.u64"))).unwrap())
        .collect();
    assert!(bands.iter().all(|k| k.len() as u64 == docs * 8));
    assert!(!out.join("store/minhash.u64").exists());
    // A store made before the band files (one column, 40 keys a document) reads the same.
    let old = dir.path().join("old-store");
    std::fs::create_dir(&old).unwrap();
    for e in std::fs::read_dir(out.join("store")).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().into_string().unwrap();
        if !name.starts_with("minhash.") && !name.starts_with('.') {
            std::fs::copy(e.path(), old.join(&name)).unwrap();
        }
    }
    let mut column = Vec::with_capacity(bands.len() * bands[0].len());
    for d in 0..docs as usize {
        for k in &bands {
            column.extend_from_slice(&k[8 * d..8 * d + 8]);
        }
    }
    std::fs::write(old.join("minhash.u64"), column).unwrap();
    // Stores of that layout were written before the columns' checksums.
    let mpath = old.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_str(&read(&mpath)).unwrap();
    m.as_object_mut().unwrap().remove("checksums");
    std::fs::write(&mpath, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    // Nor had they an ownership record of their own.
    let _ = std::fs::remove_file(old.join(".neardup-owned.json"));
    let (from_new, from_old) = (dir.path().join("from-new"), dir.path().join("from-old"));
    nd("-q dedup {} -o {}", &[&out.join("store"), &from_new]).ok();
    nd("-q dedup {} -o {}", &[&old, &from_old]).ok();
    for f in ["remove.tsv", "keep.txt", "clusters.tsv"] {
        assert_eq!(read(&from_new.join(f)), read(&from_old.join(f)), "{f}");
    }
    assert!(lines(&from_new.join("remove.tsv")).len() > 1);
    let summary = summary_json(&out);
    let v = &summary["verification"];
    let (c, p) = (
        v["candidate_pairs"].as_u64().unwrap(),
        v["verified_pairs"].as_u64().unwrap(),
    );
    assert!(p > 0 && p <= c, "{v}");
    assert_eq!(lines(&out.join("sweep.tsv")).len(), 66, "tau 0..=64");
    // The SimHash default verifies pairs on the same sample too.
    let sim = dir.path().join("sim");
    nd("-q dedup {} -o {}", &[&sample(), &sim]).ok();
    let s2 = summary_json(&sim);
    assert!(s2["verification"]["verified_pairs"].as_u64().unwrap() > 0);
}

/// Stores fingerprinted before are dedup inputs as they are: the outputs equal those of the
/// run that fingerprints the crawl itself, and nothing is fingerprinted again. Stores and
/// crawls together are refused.
#[test]
fn dedup_takes_stores_as_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    nd("-q fingerprint {} -o {} --minhash", &[&sample(), &store]).ok();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    nd("-q dedup {} -o {}", &[&sample(), &a]).ok();
    nd("-q dedup {} -o {}", &[&store, &b]).ok();
    for f in ["clusters.tsv", "remove.tsv", "keep.txt", "sweep.tsv"] {
        assert_eq!(read(&a.join(f)), read(&b.join(f)), "{f}");
    }
    assert!(!b.join("store").exists(), "no store written");
    let summary = summary_json(&b);
    assert!(summary["fingerprint"].is_null(), "{summary}");
    let mixed = nd(
        "-q dedup {} {} -o {}",
        &[&store, &sample(), &dir.path().join("c")],
    )
    .output();
    assert_eq!(mixed.status.code(), Some(2));
    assert!(
        stderr(&mixed).contains("is a store and"),
        "{}",
        stderr(&mixed)
    );
    assert!(!dir.path().join("c").exists());
}

/// `--remove-by component` keeps one document per cluster (the sweep's `docs_kept`); the
/// default star removal keeps at least as many, removes only documents with a verified score
/// of at least 0.82 against a kept one, and leaves the clusters themselves unchanged.
#[test]
fn removal_by_stars_and_by_component() {
    let dir = tempfile::tempdir().unwrap();
    let (star, comp) = (dir.path().join("star"), dir.path().join("comp"));
    nd("-q dedup {} -o {}", &[&sample(), &star]).ok();
    let store = star.join("store");
    nd(
        "-q cluster {} --pairs {} --tau 64 --verify s3:0.82 --remove-by component -o {}",
        &[&store, &star.join("pairs.bin"), &comp],
    )
    .ok();
    let first3 = |p: &Path| -> Vec<String> {
        lines(&p.join("clusters.tsv"))
            .iter()
            .map(|l| l.split('\t').take(3).collect::<Vec<_>>().join("\t"))
            .collect()
    };
    assert_eq!(first3(&star), first3(&comp));
    let sweep = lines(&star.join("sweep.tsv"));
    let last: Vec<&str> = sweep.last().unwrap().split('\t').collect();
    let kept_components = last[1].to_string();
    assert_eq!(
        (lines(&comp.join("keep.txt")).len()).to_string(),
        kept_components
    );
    let keep = lines(&star.join("keep.txt"));
    let remove = lines(&star.join("remove.tsv"));
    assert!(keep.len() >= kept_components.parse::<usize>().unwrap());
    assert_eq!((remove.len() - 1).to_string(), *last.last().unwrap());
    assert!(remove.len() > 1);
    for r in &remove[1..] {
        let f: Vec<&str> = r.split('\t').collect();
        assert!(keep.iter().any(|k| k == f[1]), "{r}");
        assert!(f[3].parse::<f64>().unwrap() >= 0.82, "{r}");
    }
    let summary = summary_json(&comp);
    assert_eq!(summary["clusters"]["remove_by"], "component");
}

/// `dedup NEW --against OLD`: the lists name new documents only, each removed one for a
/// document it is a verified near-duplicate of; a page present on both sides under the same id
/// is removed for the old copy, named `old:ID`; old documents are never removed.
#[test]
fn dedup_against_an_older_collection_removes_only_new_documents() {
    use std::collections::{HashMap, HashSet};
    let dir = tempfile::tempdir().unwrap();
    let crawl = dir.path().join("crawl");
    nd("-q synth-crawl --docs 600 -o {}", &[&crawl]).ok();
    let shard0 = crawl.join("synth-00000.warc.gz");
    // The old collection is shard 0; the new one is both shards, so every page of shard 0 is
    // on both sides under the same id.
    let old = dir.path().join("old");
    nd("-q fingerprint {} --minhash -o {}", &[&shard0, &old]).ok();
    let out = dir.path().join("out");
    let o = nd(
        "dedup {} --against {} -o {} --tables jsonl",
        &[&crawl, &old, &out],
    )
    .output();
    assert!(o.status.success(), "{}", stderr(&o));
    // The typed remove list holds the TSV's rows, its kept_in column included.
    let typed: Vec<serde_json::Value> = lines(&out.join("remove.jsonl"))
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let tsv = lines(&out.join("remove.tsv"));
    assert_eq!(tsv[0], "id\tkept\thamming64\tscore\tkept_in");
    assert_eq!(typed.len(), tsv.len() - 1);
    for (r, l) in typed.iter().zip(&tsv[1..]) {
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(
            (r["id"].as_str(), r["kept_in"].as_str()),
            (Some(f[0]), Some(f[4]))
        );
        assert_eq!(r["score"].as_f64(), f[3].parse::<f64>().ok(), "{l}");
    }
    let new_ids: Vec<String> = crate::common::export_tsv(&out.join("store"))
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    let old_ids: HashSet<String> = crate::common::export_tsv(&old)
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    let keep: HashSet<String> = lines(&out.join("keep.txt")).into_iter().collect();
    let removed: HashMap<String, Vec<String>> = lines(&out.join("remove.tsv"))
        .into_iter()
        .skip(1)
        .map(|l| {
            let f: Vec<String> = l.split('\t').map(String::from).collect();
            (f[0].clone(), f)
        })
        .collect();
    assert_eq!(keep.len() + removed.len(), new_ids.len());
    for id in &new_ids {
        assert!(
            keep.contains(id) != removed.contains_key(id),
            "{id}: kept or removed"
        );
    }
    let texts = crate::verify::texts(&crawl);
    let s3 = |a: &str, b: &str| {
        let (a, b) = (
            crate::verify::shingles(&texts[a], 8),
            crate::verify::shingles(&texts[b], 8),
        );
        a.intersection(&b).count() as f64 / ((a.len() + b.len()) as f64 / 2.0)
    };
    for (id, f) in &removed {
        let (kept, kept_in) = (&f[1], f[4].as_str());
        match kept.strip_prefix("old:") {
            Some(raw) => {
                assert_eq!(kept_in, "old", "{f:?}");
                assert!(old_ids.contains(raw), "{f:?}");
                assert!(s3(id, raw) >= 0.82, "{f:?}");
            }
            None => {
                assert!(keep.contains(kept), "{f:?}: its kept document is kept");
                assert_eq!(kept_in, if old_ids.contains(kept) { "old" } else { "new" });
                assert!(s3(id, kept) >= 0.82, "{f:?}");
            }
        }
    }
    // Every page of shard 0 is a copy of its old self: removed, for an old document (the
    // best-ranked old one among its near-duplicates: its own copy, named old:ID, unless an
    // old page with a lower id duplicates it too).
    let mut own = 0;
    for id in &old_ids {
        let f = &removed[id];
        assert_eq!(f[4], "old", "{f:?}");
        if f[1] == format!("old:{id}") {
            assert_eq!((f[2].as_str(), f[3].as_str()), ("0", "1.000000"), "{f:?}");
            own += 1;
        }
    }
    assert!(
        own > old_ids.len() / 2,
        "{own} of {} removed for their own copy",
        old_ids.len()
    );
    let summary = summary_json(&out);
    let a = &summary["against"];
    assert_eq!(a["new_documents"], new_ids.len() as u64);
    assert_eq!(a["old_documents"], old_ids.len() as u64);
    let for_old = removed.values().filter(|f| f[4] == "old").count();
    assert_eq!(a["removed_for_old"], for_old as u64);
    assert!(a["cross_pairs"].as_u64().unwrap() >= old_ids.len() as u64);
    // The component rule cannot honour the old side: refused.
    let o = nd(
        "dedup {} --against {} -o {} --remove-by component",
        &[&crawl, &old, &dir.path().join("c")],
    )
    .output();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--against"), "{}", stderr(&o));
}

/// The web-shaped synthetic crawl (power-law groups, template sites, canonical links) through
/// `dedup` on the main content (the default) and on the full text: every removal is right by
/// the planted truth, every exact copy is removed, and no template page is removed for its
/// site's other pages. The planted near copies are edited anywhere on the page, so on the
/// main content alone some of them are further apart: at least 90 % of them are removed on
/// the full text, 85 % on the main content.
#[test]
fn a_web_shaped_crawl_is_deduplicated_by_its_planted_truth() {
    let dir = tempfile::tempdir().unwrap();
    let crawl = dir.path().join("crawl");
    let out = dir.path().join("out");
    nd("-q synth-crawl --docs 4000 --shape web -o {}", &[&crawl]).ok();
    for (mode, share) in [("main", 85), ("full", 90)] {
        let out = out.join(mode);
        nd("-q dedup {} -o {} --text", &[&crawl, &out])
            .arg(mode)
            .ok();
        let truth: Vec<Vec<String>> = lines(&crawl.join("truth.tsv"))
            .iter()
            .skip(1)
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect();
        let mut root: std::collections::HashMap<String, String> = std::collections::HashMap::new();
        for t in &truth {
            let r = match t[1].as_str() {
                "exact" | "near" => root[&t[2]].clone(),
                _ => t[0].clone(),
            };
            root.insert(t[0].clone(), r);
        }
        assert!(truth.iter().any(|t| t[1] == "template"));
        let removed: Vec<Vec<String>> = lines(&out.join("remove.tsv"))
            .iter()
            .skip(1)
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect();
        let wrong: Vec<_> = removed
            .iter()
            .filter(|r| root[&r[0]] != root[&r[1]])
            .collect();
        assert!(
            wrong.is_empty(),
            "{} wrong removals, e.g. {:?}",
            wrong.len(),
            wrong[0]
        );
        let gone: std::collections::HashSet<&str> = removed.iter().map(|r| r[0].as_str()).collect();
        for t in truth.iter().filter(|t| t[1] == "exact") {
            assert!(
                gone.contains(t[0].as_str()),
                "the exact copy {} was kept",
                t[0]
            );
        }
        let planted = truth
            .iter()
            .filter(|t| t[1] == "exact" || t[1] == "near")
            .count();
        assert!(
            removed.len() * 100 >= planted * share,
            "--text {mode}: {} of {planted}",
            removed.len()
        );
    }
}

/// With `--keep-shingles` verification compares the shingle sets kept in the store, and the
/// lists are those of the default (which keeps the sets of pages with a candidate
/// fingerprinted before them and reads the others again) and of reading every candidate's
/// record again (a store given without the sets, or given with one that lacks them).
#[test]
fn verification_from_kept_shingle_sets_lists_what_reading_again_lists() {
    let dir = tempfile::tempdir().unwrap();
    let crawl = dir.path().join("crawl");
    nd(
        "-q synth-crawl --docs 3000 --shape web --shards 3 -o {}",
        &[&crawl],
    )
    .ok();
    let (kept, again) = (dir.path().join("kept"), dir.path().join("again"));
    nd("-q dedup {} -o {} --keep-shingles", &[&crawl, &kept]).ok();
    nd("-q dedup {} -o {}", &[&crawl, &again]).ok();
    let lists = [
        "remove.tsv",
        "keep.txt",
        "clusters.tsv",
        "sweep.tsv",
        "sites.tsv",
    ];
    for f in lists {
        assert_eq!(read(&kept.join(f)), read(&again.join(f)), "{f}");
    }
    let (a, b) = (summary_json(&kept), summary_json(&again));
    let v = |s: &serde_json::Value, k: &str| s["verification"][k].as_u64().unwrap();
    assert!(v(&a, "sets_from_store") > 100, "{a}");
    // Only pages with blocks of their site are read again (their own content is compared).
    assert!(
        v(&a, "documents_read") * 10 < v(&a, "sets_from_store"),
        "{a}"
    );
    assert_eq!(v(&b, "sets_from_store"), 0, "{b}");
    // Without sets in the store, fingerprinting kept those of the pages with a candidate
    // fingerprinted before them: most groups are read again for their first page only.
    assert_eq!(
        v(&b, "documents_read") + v(&b, "sets_from_fingerprinting"),
        v(&a, "sets_from_store") + v(&a, "documents_read"),
        "{b}"
    );
    assert!(
        v(&b, "documents_read") * 2 < v(&b, "sets_from_fingerprinting"),
        "{b}"
    );
    assert_eq!(v(&a, "sets_from_fingerprinting"), 0, "{a}");
    assert!(kept.join("store/shingles.u64").exists());
    assert!(!again.join("store/shingles.u64").exists());
    // Stores: with the sets (from the store), without (read again), and the two together.
    let plain = dir.path().join("plain");
    nd("-q fingerprint {} -o {} --minhash", &[&crawl, &plain]).ok();
    let from_plain = dir.path().join("from-plain");
    nd("-q dedup {} -o {}", &[&plain, &from_plain]).ok();
    let from_kept = dir.path().join("from-kept");
    nd("-q dedup {} -o {}", &[&kept.join("store"), &from_kept]).ok();
    for f in lists {
        assert_eq!(read(&kept.join(f)), read(&from_plain.join(f)), "{f}");
        assert_eq!(read(&kept.join(f)), read(&from_kept.join(f)), "{f}");
    }
    // From a store, nothing was kept by this run's fingerprinting: every page is read again.
    let p = summary_json(&from_plain);
    assert_eq!(
        v(&p, "sets_from_store") + v(&p, "sets_from_fingerprinting"),
        0
    );
    assert_eq!(
        v(&p, "documents_read"),
        v(&a, "sets_from_store") + v(&a, "documents_read"),
        "{p}"
    );
    assert!(v(&summary_json(&from_kept), "sets_from_store") > 100);
    // Split into two stores, one keeping the sets and one not: everything is read again.
    let shards: Vec<PathBuf> = (0..3)
        .map(|i| crawl.join(format!("synth-{i:05}.warc.gz")))
        .collect();
    let (s1, s2) = (dir.path().join("s1"), dir.path().join("s2"));
    nd(
        "-q fingerprint {} -o {} --minhash --shingles",
        &[&shards[0], &s1],
    )
    .ok();
    nd(
        "-q fingerprint {} {} -o {} --minhash",
        &[&shards[1], &shards[2], &s2],
    )
    .ok();
    let mixed = dir.path().join("mixed");
    nd("-q dedup {} {} -o {}", &[&s1, &s2, &mixed]).ok();
    assert_eq!(v(&summary_json(&mixed), "sets_from_store"), 0);
    assert!(v(&summary_json(&mixed), "documents_read") > 100);
    assert_eq!(
        read(&kept.join("remove.tsv")),
        read(&mixed.join("remove.tsv"))
    );
}

/// `--skip-joined` leaves comparisons out and the lists as they were: with components it is
/// taken (and skips some pairs here), with stars it is refused, since a star removal needs
/// every pair.
#[test]
fn skip_joined_gives_the_lists_of_every_pair_compared() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let crawl = d.join("crawl");
    nd(
        "-q synth-crawl --docs 1500 --shards 2 --near-share 0.5 -o {}",
        &[&crawl],
    )
    .ok();
    let (every, skip) = (d.join("every"), d.join("skip"));
    let line = "-q dedup {} -o {} --text full --candidates simhash --tau 12 --remove-by component";
    nd(line, &[&crawl, &every]).ok();
    nd(line, &[&crawl, &skip]).arg("--skip-joined").ok();
    for f in ["clusters.tsv", "keep.txt", "remove.tsv"] {
        assert_eq!(read(&skip.join(f)), read(&every.join(f)), "{f}");
    }
    let skipped = summary_json(&skip)["verification"]["not_compared_pairs"]
        .as_u64()
        .unwrap();
    assert!(skipped > 0, "nothing skipped: the test would not tell");
    assert_eq!(
        summary_json(&every)["verification"]["not_compared_pairs"],
        0
    );
    let e = nd(
        "-q dedup {} -o {} --skip-joined",
        &[&crawl, &d.join("star")],
    )
    .fails();
    assert!(e.contains("--remove-by component"), "{e}");
}

/// A crawl deduplicated against a store made before fast densification is fingerprinted the
/// older store's way, so the two are joined; stores of the two schemes given together are
/// refused, naming the store.
#[test]
fn a_crawl_against_a_store_of_optimal_densification_is_read_its_way() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old");
    nd("-q fingerprint {} --minhash -o {}", &[&sample(), &old]).ok();
    let mpath = old.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_str(&read(&mpath)).unwrap();
    assert_eq!(m["minhash"]["densification"], "fast");
    m["minhash"]
        .as_object_mut()
        .unwrap()
        .remove("densification");
    std::fs::write(&mpath, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let out = dir.path().join("out");
    nd("-q dedup {} --against {} -o {}", &[&sample(), &old, &out]).ok();
    let made: serde_json::Value =
        serde_json::from_str(&read(&out.join("store/manifest.json"))).unwrap();
    assert_eq!(made["minhash"]["densification"], "optimal");
    let fast = dir.path().join("fast");
    nd("-q fingerprint {} --minhash -o {}", &[&sample(), &fast]).ok();
    let err = nd(
        "-q dedup {} --against {} -o {}",
        &[&fast, &old, &dir.path().join("o2")],
    )
    .fails();
    assert!(err.contains("old"), "{err}");
}
