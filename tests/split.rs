//! `dedup --partitions N` (the stages split into tasks, [`neardup::jobs::split`]) gives one
//! box's `keep.txt`, `remove.tsv`, `clusters.tsv` and `excluded.tsv` byte for byte, on a
//! web-shaped crawl with a large group, a template site and canonical links, under every keep
//! policy and rule, against an older collection, with ids repeated across stores; a task run
//! twice (as a retried one is) changes nothing; what a split run cannot do is refused.

use std::path::{Path, PathBuf};

use crate::common::{fingerprint, neardup, stderr};

const LISTS: [&str; 4] = ["keep.txt", "remove.tsv", "clusters.tsv", "excluded.tsv"];

/// A web-shaped crawl of six shards fingerprinted into stores: three of two shards each
/// (`s0`..`s2`), `s3` of shard 1 again (its ids repeat `s0`'s), `old` of shard 0 again (an
/// older collection), and `k0`..`k2` keeping WARC-Date's numbers.
fn corpus(d: &Path) -> PathBuf {
    let crawl = d.join("crawl");
    let out = neardup(&[
        "synth-crawl",
        "-q",
        "--docs",
        "2400",
        "--shards",
        "6",
        "--shape",
        "web",
        "--big-group",
        "150",
        "--big-site",
        "250",
        "-o",
        crawl.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let shard = |i: usize| crawl.join(format!("synth-{i:05}.warc.gz"));
    for i in 0..3 {
        let (a, b) = (shard(2 * i), shard(2 * i + 1));
        let o = fingerprint(&[&a, &b], &d.join(format!("s{i}")), &["--minhash"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let o = fingerprint(
            &[&a, &b],
            &d.join(format!("k{i}")),
            &["--minhash", "--keep-field", "WARC-Date"],
        );
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = fingerprint(&[&shard(1)], &d.join("s3"), &["--minhash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = fingerprint(&[&shard(0)], &d.join("old"), &["--minhash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    d.to_path_buf()
}

fn dedup(args: &[String], out: &Path, extra: &[&str]) -> String {
    let mut all: Vec<String> = vec!["dedup".into(), "-q".into()];
    all.extend(args.iter().cloned());
    all.extend(["-o".into(), out.to_string_lossy().into_owned()]);
    all.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let o = neardup(&refs);
    assert!(o.status.success(), "{all:?}: {}", stderr(&o));
    stderr(&o)
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every case's lists, one box against split runs.
#[test]
fn split_runs_give_one_box_lists_byte_for_byte() {
    let t = tempfile::tempdir().unwrap();
    let d = corpus(t.path());
    let p = |name: &str| d.join(name).to_string_lossy().into_owned();
    let args = |a: &str| -> Vec<String> {
        a.split_whitespace()
            .map(|w| match w.strip_prefix('@') {
                Some(name) => p(name),
                None => w.to_string(),
            })
            .collect()
    };
    let cases: Vec<(&str, Vec<String>, &[u32])> = vec![
        ("default", args("@s0 @s1 @s2"), &[1, 2, 4]),
        (
            "against, canonical, lowest-id",
            args("@s1 @s2 --against @old --canonical --representative lowest-id"),
            &[3],
        ),
        (
            "repeated ids, prefer, longest",
            args("@s0 @s1 @s2 @s3 --prefer @s3 @s1 --representative longest"),
            &[2],
        ),
        (
            "remove-by all, blocks, few leaders",
            args("@s0 @s1 @s2 --remove-by all --verify-memory 1M --max-leaders 4"),
            &[3],
        ),
        ("keep-by", args("@k0 @k1 @k2 --keep-by WARC-Date:min"), &[2]),
    ];
    for (name, a, parts) in cases {
        let one = t.path().join(format!("one-{}", name.len()));
        let one_said = dedup(&a, &one, &[]);
        let removed = read(&one.join("remove.tsv")).split(|b| *b == b'\n').count();
        assert!(removed > 300, "{name}: {removed} removal lines");
        for n in parts {
            let split = t.path().join(format!("split-{}-{n}", name.len()));
            let said = dedup(&a, &split, &["--partitions", &n.to_string()]);
            // Under -q, only what one box warns of (the bound's texts at risk).
            assert_eq!(said, one_said, "{name}, {n} partitions: said");
            for f in LISTS {
                assert!(
                    read(&one.join(f)) == read(&split.join(f)),
                    "{name}, {n} partitions: {f} differs"
                );
            }
            let s: serde_json::Value =
                serde_json::from_slice(&read(&split.join("summary.json"))).unwrap();
            assert_eq!(s["split"]["partitions"], *n);
            // The site blocks counted partition by partition are one box's.
            let o: serde_json::Value =
                serde_json::from_slice(&read(&one.join("summary.json"))).unwrap();
            let own = |v: &serde_json::Value, k: &str| v["verification"]["own_content"][k].clone();
            for k in ["hosts", "site_blocks", "pages_with_site_blocks"] {
                assert_eq!(own(&s, k), own(&o, k), "{name}, {n} partitions: {k}");
            }
            assert!(own(&o, "site_blocks").as_u64().unwrap() > 0, "{name}");
            // So are the counts of the visit of kept texts, the bound among them.
            let lead = |v: &serde_json::Value| v["verification"]["leaders"].clone();
            assert_eq!(lead(&s), lead(&o), "{name}, {n} partitions: leaders");
            assert!(lead(&o)["texts"].as_u64().unwrap() > 0, "{name}");
            assert_eq!(s["command"], "dedup");
            let stages = s["split"]["stages"].as_array().unwrap();
            assert_eq!(stages.len(), 5);
            let bound = &s["split"]["memory_per_task"];
            for (i, st) in stages.iter().enumerate() {
                assert!(st["tasks"].as_u64().unwrap() >= 1, "{st}");
                assert!(st["nodes"][0]["peak_rss"].as_u64().unwrap() > 0, "{st}");
                // A task's growth stays under its stage's bound by formula.
                assert_eq!(bound[i]["stage"], st["name"]);
                let grew = st["peak_growth_per_task"].as_u64().unwrap();
                assert!(
                    grew <= bound[i]["bytes"].as_u64().unwrap(),
                    "{st} {}",
                    bound[i]
                );
            }
            // The work directory is gone; what is left is the lists and the summary.
            assert!(!split.join("split").exists());
        }
    }
}

/// A task run again over what its first run wrote (a retried task after its worker died)
/// leaves the same lists.
#[test]
fn tasks_run_twice_change_nothing() {
    use neardup::jobs::split::{plan, run_task, Driver};
    let t = tempfile::tempdir().unwrap();
    let d = corpus(t.path());
    let one = t.path().join("one");
    let stores: Vec<String> = ["s0", "s1", "s2"]
        .iter()
        .map(|s| d.join(s).to_string_lossy().into_owned())
        .collect();
    dedup(&stores, &one, &["--canonical"]);
    let out = t.path().join("twice");
    let options = serde_json::json!({
        "inputs": stores,
        "output": out,
        "canonical": true,
    })
    .to_string();
    let pl = plan(&options, 3, true).unwrap();
    let mut driver = Driver::new(&pl.work);
    let mut reports = Vec::new();
    while let Some(next) = driver.next(std::mem::take(&mut reports)).unwrap() {
        for part in next.parts.iter().rev() {
            run_task(&pl.work, &next.stage, *part, next.step).unwrap();
            reports.push(run_task(&pl.work, &next.stage, *part, next.step).unwrap());
        }
    }
    driver.gather(true).unwrap();
    for f in LISTS {
        assert!(read(&one.join(f)) == read(&out.join(f)), "{f} differs");
    }
}

/// What a split run cannot do is refused before anything is written, naming why.
#[test]
fn split_runs_refuse_what_they_cannot_do() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    std::fs::write(
        d.join("a.jsonl"),
        "{\"id\":\"a\",\"text\":\"one two three\"}\n",
    )
    .unwrap();
    let o = fingerprint(&[&d.join("a.jsonl")], &d.join("plain"), &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let crawl = d.join("a.jsonl").to_string_lossy().into_owned();
    let plain = d.join("plain").to_string_lossy().into_owned();
    let out = d.join("out").to_string_lossy().into_owned();
    for (args, why) in [
        (vec![crawl.as_str()], "takes stores"),
        (vec![plain.as_str()], "no MinHash band keys"),
        (vec![plain.as_str(), "--no-verify"], "verified default"),
        (
            vec![plain.as_str(), "--tables", "parquet"],
            "writes the lists",
        ),
        (vec![plain.as_str(), "--partitions", "0"], "from 1 to 65536"),
    ] {
        let mut all = vec!["dedup", "-q", "-o", &out];
        all.extend(args);
        if !all.contains(&"--partitions") {
            all.extend(["--partitions", "2"]);
        }
        let o = neardup(&all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        assert!(stderr(&o).contains(why), "{all:?}: {}", stderr(&o));
        assert!(!d.join("out").join("keep.txt").exists());
    }
}

/// A store of some rows of another holds exactly those rows' columns, in order.
#[test]
fn a_store_of_some_rows_holds_their_columns() {
    use neardup::fingerprint::store::Store;
    let t = tempfile::tempdir().unwrap();
    let d = corpus(t.path());
    let whole = Store::open(&d.join("k1")).unwrap();
    let n = whole.len() as u32;
    let rows: Vec<u32> = vec![0, 3, 4, n / 2, n - 1];
    let part = whole.rows(&rows).unwrap();
    assert_eq!(part.len(), rows.len());
    assert_eq!(part.path(), whole.path());
    for (i, r) in rows.iter().map(|r| *r as usize).enumerate() {
        assert_eq!(part.fp64()[i], whole.fp64()[r]);
        assert_eq!(part.fp128()[i], whole.fp128()[r]);
        assert_eq!(part.content_hash()[i], whole.content_hash()[r]);
        assert_eq!(part.flags()[i], whole.flags()[r]);
        assert_eq!(part.text_len()[i], whole.text_len()[r]);
        assert_eq!(part.terms()[i], whole.terms()[r]);
        assert_eq!(part.id(i), whole.id(r));
        assert_eq!(part.url(i), whole.url(r));
        assert_eq!(part.canonical(i), whole.canonical(r));
        assert_eq!(
            part.values().unwrap()[i].to_bits(),
            whole.values().unwrap()[r].to_bits()
        );
        let (a, b) = (part.source()[i], whole.source()[r]);
        assert_eq!(bytemuck::bytes_of(&a), bytemuck::bytes_of(&b));
        for band in 0..whole.manifest.minhash.unwrap().bands as usize {
            assert_eq!(
                part.minhash_band(band).unwrap()[i],
                whole.minhash_band(band).unwrap()[r]
            );
        }
    }
}

/// A store changed between the stages of a run (fingerprinted again, other documents) is
/// refused by the next task that opens it, naming it, rather than read at rows it lacks.
#[test]
fn a_store_changed_during_a_run_is_refused() {
    use neardup::jobs::split::{plan, run_task, Driver};
    let t = tempfile::tempdir().unwrap();
    let d = corpus(t.path());
    let stores: Vec<String> = ["s0", "s1"]
        .iter()
        .map(|s| d.join(s).to_string_lossy().into_owned())
        .collect();
    let options = serde_json::json!({"inputs": stores, "output": t.path().join("out")}).to_string();
    let pl = plan(&options, 2, true).unwrap();
    let mut driver = Driver::new(&pl.work);
    let next = driver.next(Vec::new()).unwrap().unwrap();
    assert_eq!(next.stage, "scatter");
    for part in &next.parts {
        run_task(&pl.work, &next.stage, *part, next.step).unwrap();
    }
    // s1 made again with as many documents (its shards, another option): refused too, not
    // read as the store the plan counted (round 5: the lists mixed two stores, exit 0).
    let crawl = d.join("crawl");
    let o = fingerprint(
        &[
            &crawl.join("synth-00002.warc.gz"),
            &crawl.join("synth-00003.warc.gz"),
        ],
        &d.join("s1"),
        &["--minhash", "--keep-field", "WARC-Date"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let e = run_task(&pl.work, "lists", 1, 0).unwrap_err().to_string();
    assert!(
        e.contains("s1") && e.contains("not the store the run was planned with"),
        "{e}"
    );
    // s1 becomes a store of one shard (fewer documents).
    let shard = d.join("crawl").join("synth-00005.warc.gz");
    let o = fingerprint(&[&shard], &d.join("s1"), &["--minhash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let e = run_task(&pl.work, "lists", 1, 0).unwrap_err().to_string();
    assert!(
        e.contains("s1") && e.contains("changed during the run"),
        "{e}"
    );
}
