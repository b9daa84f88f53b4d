//! Nothing lost, round 5: what a hostile user found in the split run, `report` and `explain`,
//! files named like temporaries, terminal output and the main content. Each test here failed
//! on the build before its fix.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{nd, page, response, stderr};

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_neardup"))
}

/// The ids of remove.tsv.
fn removed(out: &Path) -> Vec<String> {
    read(&out.join("remove.tsv"))
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

/// A WARC of `pages` (id, url, html) in `dir`.
fn warc(dir: &Path, name: &str, pages: &[(String, String, String)]) -> PathBuf {
    let mut data = Vec::new();
    for (id, url, html) in pages {
        data.extend(response(id, url, html));
    }
    let p = dir.join(name);
    fs::write(&p, data).unwrap();
    p
}

/// A JSONL crawl of `docs` (id, text).
fn jsonl(dir: &Path, name: &str, docs: &[(&str, String)]) -> PathBuf {
    let mut s = String::new();
    for (i, (id, text)) in docs.iter().enumerate() {
        s.push_str(
            &serde_json::json!({"id": id, "url": format!("https://h{i}.example/p"), "text": text})
                .to_string(),
        );
        s.push('\n');
    }
    let p = dir.join(name);
    fs::write(&p, s).unwrap();
    p
}

/// The words of `page(seed, n)`, without its markup.
fn words(seed: usize, n: usize) -> String {
    page(seed, n)
        .replace("<html><body><p>", "")
        .replace("</p></body></html>", "")
}

/// Two copies and an unrelated page, as JSONL.
fn small_crawl(dir: &Path, name: &str, seed: usize) -> PathBuf {
    let text = words(seed, 150);
    jsonl(
        dir,
        name,
        &[
            ("kept", text.clone()),
            ("copy", text),
            ("other", words(seed + 1, 150)),
        ],
    )
}

/// [`small_crawl`] fingerprinted with band keys into `dir/S`.
fn small_store(dir: &Path, seed: usize) -> PathBuf {
    let crawl = small_crawl(dir, "c.jsonl", seed);
    let s = dir.join("S");
    nd("fingerprint -q --minhash {} -o {}", &[&crawl, &s]).ok();
    s
}

// 1. A declared main or article never loses to a sibling blurb.
#[test]
fn articles_and_main_never_lose_to_a_blurb() {
    let dir = tempfile::tempdir().unwrap();
    let blurb: String = (0..12)
        .map(|i| {
            format!("Welcome, friend, to our site, number {i}, read on, enjoy, share, smile. ")
        })
        .collect();
    let news = |s: usize| {
        format!(
            "<p>{} reported that the river rose again, and the council met at noon to decide.</p>",
            words(s, 40)
        )
    };
    let pages: Vec<(String, String, String)> = (0..2)
        .map(|i| {
            (
                format!("urn:news{i}"),
                format!("https://news.example/{i}"),
                format!(
                    "<html><body><div><p>{blurb}</p></div><article>{}</article><article>{}</article></body></html>",
                    news(10 * i + 1),
                    news(10 * i + 2)
                ),
            )
        })
        .chain((0..2).map(|i| {
            (
                format!("urn:main{i}"),
                format!("https://main.example/{i}"),
                format!(
                    "<html><body><div><p>{blurb}</p></div><main>{}</main></body></html>",
                    news(100 + i)
                ),
            )
        }))
        .collect();
    let crawl = warc(dir.path(), "c.warc", &pages);
    let out = dir.path().join("out");
    nd("dedup {} -o {} -q", &[&crawl, &out]).ok();
    assert!(
        removed(&out).is_empty(),
        "{}",
        read(&out.join("remove.tsv"))
    );
    let text = nd("text {}", &[&crawl]).ok();
    assert!(!text.contains("Welcome, friend"), "{text}");
}

// 2. report and explain read the run's own stores, wherever they are run from.
#[test]
fn report_and_explain_read_the_runs_own_store() {
    let dir = tempfile::tempdir().unwrap();
    for (sub, seed) in [("A", 1), ("B", 500)] {
        let d = dir.path().join(sub);
        fs::create_dir(&d).unwrap();
        small_crawl(&d, "c.jsonl", seed);
        let o = bin()
            .current_dir(&d)
            .args(["dedup", "c.jsonl", "-o", "out", "-q"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let a_out = dir.path().join("A/out");
    let here = nd("explain {} copy --json", &[&a_out]).ok();
    let b = dir.path().join("B");
    let o = bin()
        .current_dir(&b)
        .args(["explain", "../A/out", "copy", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), here);
    let page = read(&a_out.join("report.html"));
    let o = bin()
        .current_dir(&b)
        .args(["report", "../A/out", "-q"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let again = read(&a_out.join("report.html"));
    let strip = |s: &str| s.split("\"seconds\"").next().unwrap().to_string();
    assert_eq!(strip(&again), strip(&page));
    // The run's store replaced by another's: refused, not read.
    let store = a_out.join("store");
    fs::remove_dir_all(&store).unwrap();
    let o = bin()
        .args(["fingerprint", "-q", "--minhash"])
        .arg(b.join("c.jsonl"))
        .arg("-o")
        .arg(&store)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let err = nd("explain {} copy", &[&a_out]).fails();
    assert!(err.contains("not the store"), "{err}");
    let err = nd("report {}", &[&a_out]).fails();
    assert!(err.contains("not the store"), "{err}");
}

// 3. A user's files named like temporaries are the user's.
#[test]
fn files_named_like_temporaries_are_the_users() {
    let dir = tempfile::tempdir().unwrap();
    let store = small_store(dir.path(), 3);
    let crawl = dir.path().join("c.jsonl");
    let out = dir.path().join("out");
    nd("dedup {} -o {} -q", &[&store, &out]).ok();
    fs::write(out.join("keep.txt.old-1"), "my backup").unwrap();
    fs::create_dir(out.join("report.html.old-2024")).unwrap();
    fs::write(out.join("report.html.old-2024/notes"), "mine").unwrap();
    fs::create_dir(out.join("store.old-2023")).unwrap();
    fs::write(out.join("store.old-2023/README"), "mine").unwrap();
    // A plain rerun (from the run's own store), then one that replaces the store.
    nd("dedup {} -o {} -q", &[&store, &out]).ok();
    assert_eq!(read(&out.join("keep.txt.old-1")), "my backup");
    assert_eq!(read(&out.join("report.html.old-2024/notes")), "mine");
    nd("dedup {} -o {} -q --force", &[&crawl, &out]).ok();
    assert_eq!(read(&out.join("keep.txt.old-1")), "my backup");
    assert_eq!(read(&out.join("report.html.old-2024/notes")), "mine");
    assert_eq!(read(&out.join("store.old-2023/README")), "mine");
    // Outside an output directory: a folder named like a temporary file is the user's.
    let exp = dir.path().join("exp");
    fs::create_dir_all(exp.join(".fps.tsv.tmp-99996")).unwrap();
    fs::write(exp.join(".fps.tsv.tmp-99996/mine"), "x").unwrap();
    nd("export {} -o {}", &[&store, &exp.join("fps.tsv")]).ok();
    assert_eq!(read(&exp.join(".fps.tsv.tmp-99996/mine")), "x");
}

// 7. The same store twice is refused on every path.
#[test]
fn a_split_run_refuses_a_store_given_twice() {
    let dir = tempfile::tempdir().unwrap();
    let s = small_store(dir.path(), 4);
    let twice = format!("{}/./", s.display());
    let err = nd(
        "dedup {} {} -o {} --partitions 2 -q",
        &[&s, &twice, &dir.path().join("o")],
    )
    .fails();
    assert!(err.contains("given twice"), "{err}");
    assert!(!dir.path().join("o/keep.txt").exists());
}

/// A run whose ids, URL and text hold what a terminal obeys.
fn hostile_run(dir: &Path) -> PathBuf {
    let text = words(9, 150);
    let hostile = format!("{text} \u{1b}]0;owned\u{7} \u{202e}gnp.exe");
    let crawl = jsonl(
        dir,
        "c.jsonl",
        &[
            ("ok\u{1b}[2J", hostile.clone()),
            ("evil\u{1b}]0;x\u{7}\u{202e}", hostile),
        ],
    );
    let out = dir.join("out");
    nd("dedup {} -o {} -q", &[&crawl, &out]).ok();
    out
}

// 8. Nothing from the crawl reaches a terminal raw; 13. a closed pipe is no panic.
#[test]
fn explain_shows_escapes_and_survives_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let out = hostile_run(dir.path());
    let removed = removed(&out);
    assert_eq!(removed.len(), 1);
    for id in [removed[0].as_str(), "ok\\u{1b}[2J"] {
        let o = bin().arg("explain").arg(&out).arg(id).output().unwrap();
        let all = [o.stdout.as_slice(), o.stderr.as_slice()].concat();
        assert!(!all.contains(&0x1b), "{}", String::from_utf8_lossy(&all));
        assert!(!String::from_utf8_lossy(&all).contains('\u{202e}'));
    }
    // A broken pipe: exit 0, no panic.
    let mut child = bin()
        .arg("explain")
        .arg(&out)
        .arg(&removed[0])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    assert!(
        o.status.success() || o.status.code() == Some(0),
        "{}",
        stderr(&o)
    );
}

// 14. An id whose escaped and plain readings name two documents is ambiguous; 17. an unknown
// id fails with --json too, and a repeated id's raw form points at its names.
#[test]
fn explain_refuses_ambiguous_ids_and_fails_on_unknown_ones() {
    let dir = tempfile::tempdir().unwrap();
    let t = |s| words(s, 150);
    let crawl = jsonl(
        dir.path(),
        "c.jsonl",
        &[
            ("x\\ty", t(1)),
            ("x\ty", t(2)),
            ("rep", t(3)),
            ("rep", t(4)),
        ],
    );
    let out = dir.path().join("out");
    nd("dedup {} -o {} -q", &[&crawl, &out]).ok();
    let err = nd("explain {} {}", &[&out, &"x\\ty"]).fails();
    assert!(err.contains("ambiguous"), "{err}");
    let o = nd("explain {} no-such --json", &[&out]).output();
    assert_eq!(o.status.code(), Some(2));
    let err = nd("explain {} rep", &[&out]).fails();
    assert!(err.contains("rep#"), "{err}");
}

// 15. A store written with checksums must keep them.
#[test]
fn a_manifest_stripped_of_its_checksums_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let s = small_store(dir.path(), 5);
    let mpath = s.join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_str(&read(&mpath)).unwrap();
    for stripped in [serde_json::Value::Null, serde_json::json!({})] {
        match &stripped {
            serde_json::Value::Null => {
                m.as_object_mut().unwrap().remove("checksums");
            }
            v => m["checksums"] = v.clone(),
        }
        fs::write(&mpath, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
        let err = nd("info {}", &[&s]).fails();
        assert!(err.contains("checksums"), "{err}");
    }
}

/// A web-shaped crawl fingerprinted into two stores with band keys.
fn two_stores(dir: &Path, docs: usize) -> (PathBuf, PathBuf) {
    let crawl = dir.join("crawl");
    nd(
        "synth-crawl -q --docs {} --shards 2 --shape web -o {}",
        &[&docs.to_string(), &crawl],
    )
    .ok();
    let (a, b) = (dir.join("s0"), dir.join("s1"));
    for (i, s) in [&a, &b].iter().enumerate() {
        nd(
            "fingerprint -q --minhash {} -o {}",
            &[&crawl.join(format!("synth-0000{i}.warc.gz")), s],
        )
        .ok();
    }
    (a, b)
}

// 5. The output stays locked from the plan to the gather; 9. a killed split run's work
// directory is neardup's, and the next run removes it; 11. a split run writes the report
// page and a summary that report and explain read.
#[test]
fn a_split_run_holds_its_output_and_writes_what_one_box_writes() {
    use neardup::jobs::split::{plan, run_task, Driver};
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_stores(dir.path(), 600);
    let out = dir.path().join("out");
    let options = serde_json::json!({"inputs": [a, b], "output": out}).to_string();
    let pl = plan(&options, 3, true).unwrap();
    // A one-box run into the same output is refused while the split run holds it.
    let err = nd("dedup {} {} -o {} -q --force", &[&a, &b, &out]).fails();
    assert!(
        err.contains("being written by another neardup run"),
        "{err}"
    );
    let mut driver = Driver::new(&pl.work);
    let mut reports = Vec::new();
    while let Some(next) = driver.next(std::mem::take(&mut reports)).unwrap() {
        for part in &next.parts {
            reports.push(run_task(&pl.work, &next.stage, *part, next.step).unwrap());
        }
    }
    let summary = driver.gather(true).unwrap();
    assert!(!pl.work.exists());
    assert_eq!(summary.split.as_ref().unwrap().partitions, 3);
    let page = read(&out.join("report.html"));
    assert_eq!(summary.report.as_ref().unwrap().bytes, page.len() as u64);
    assert!(out.join("sites.tsv").is_file());
    // The lists are one box's, and report and explain read the split run's output.
    let one = dir.path().join("one");
    nd("dedup {} {} -o {} -q", &[&a, &b, &one]).ok();
    for f in ["keep.txt", "remove.tsv", "clusters.tsv", "excluded.tsv"] {
        assert_eq!(read(&out.join(f)), read(&one.join(f)), "{f}");
    }
    let gone = removed(&out);
    assert!(!gone.is_empty());
    let e: serde_json::Value =
        serde_json::from_str(&nd("explain {} {} --json", &[&out, &gone[0]]).ok()).unwrap();
    assert_eq!(e["status"], "removed");
    nd("report {} -q", &[&out]).ok();
    // Now the output is free: a one-box run may replace it.
    nd("dedup {} {} -o {} -q", &[&a, &b, &out]).ok();

    // A killed split run leaves its work directory, recorded, and its lock; the next run,
    // --force or not, removes both and runs.
    let killed = dir.path().join("killed");
    fs::create_dir(&killed).unwrap();
    let work = killed.join("split.tmp-4999999");
    fs::create_dir_all(work.join("components/step00000")).unwrap();
    fs::write(work.join("plan.json"), "{}").unwrap();
    fs::write(
        killed.join(".neardup-owned.json"),
        r#"{"format":"neardup-owned","version":1,"entries":["split.tmp-4999999"],"command":"dedup"}"#,
    )
    .unwrap();
    fs::write(killed.join(".neardup.lock"), "4999999").unwrap();
    nd("dedup {} {} -o {} -q --partitions 2", &[&a, &b, &killed]).ok();
    assert!(!work.exists());
    assert_eq!(read(&killed.join("keep.txt")), read(&one.join("keep.txt")));
}

// 6. A split run's files grow with the partitions, not their square.
#[test]
fn a_split_run_writes_a_file_per_task_and_step() {
    use neardup::jobs::split::{plan, run_task, Driver};
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_stores(dir.path(), 200);
    let out = dir.path().join("out");
    let parts = 40u32;
    let options = serde_json::json!({"inputs": [a, b], "output": out}).to_string();
    let pl = plan(&options, parts, true).unwrap();
    let mut driver = Driver::new(&pl.work);
    let mut reports = Vec::new();
    let mut tasks = 0usize;
    while let Some(next) = driver.next(std::mem::take(&mut reports)).unwrap() {
        tasks += next.parts.len();
        for part in &next.parts {
            reports.push(run_task(&pl.work, &next.stage, *part, next.step).unwrap());
        }
    }
    let files = walk(&pl.work);
    assert!(
        files <= 2 * tasks + 8,
        "{files} files for {tasks} tasks over {parts} partitions"
    );
    driver.gather(true).unwrap();
}

fn walk(d: &Path) -> usize {
    fs::read_dir(d)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p)
            } else {
                1
            }
        })
        .sum()
}

// 10. The report page is bounded whatever the ids and URLs hold.
#[test]
fn the_report_page_is_bounded_by_long_ids_and_urls() {
    let dir = tempfile::tempdir().unwrap();
    let text = words(21, 150);
    let long = "x".repeat(300_000);
    let mut s = String::new();
    for i in 0..30 {
        s.push_str(
            &serde_json::json!({
                "id": format!("{i}{long}"),
                "url": format!("https://h.example/{i}/{long}"),
                "text": format!("{text} {long}{i}"),
            })
            .to_string(),
        );
        s.push('\n');
    }
    let crawl = dir.path().join("c.jsonl");
    fs::write(&crawl, s).unwrap();
    let out = dir.path().join("out");
    nd("dedup {} -o {} -q", &[&crawl, &out]).ok();
    assert_eq!(removed(&out).len(), 29);
    let bytes = fs::metadata(out.join("report.html")).unwrap().len();
    assert!(bytes < 2_000_000, "report.html is {bytes} bytes");
}

// 12. explain and report of an --against run whose ids repeat across the crawls.
#[test]
fn explain_reads_an_against_run_as_it_ran() {
    let dir = tempfile::tempdir().unwrap();
    let t = |s| words(s, 150);
    let old = jsonl(dir.path(), "old.jsonl", &[("a", t(1)), ("b", t(2))]);
    let new = jsonl(dir.path(), "new.jsonl", &[("a", t(1)), ("c", t(3))]);
    let (so, sn) = (dir.path().join("so"), dir.path().join("sn"));
    nd("fingerprint -q --minhash {} -o {}", &[&old, &so]).ok();
    nd("fingerprint -q --minhash {} -o {}", &[&new, &sn]).ok();
    let out = dir.path().join("out");
    nd("dedup {} --against {} -o {} -q", &[&sn, &so, &out]).ok();
    let gone = removed(&out);
    assert_eq!(gone, vec!["a".to_string()]);
    let e: serde_json::Value =
        serde_json::from_str(&nd("explain {} a --json", &[&out]).ok()).unwrap();
    assert_eq!(e["status"], "removed", "{e}");
    assert_eq!(e["kept"], "old:a", "{e}");
    assert!(e["diff"].is_object(), "{e}");
    nd("report {} -q", &[&out]).ok();
    let html = read(&out.join("report.html"));
    assert!(
        !html.contains("is not in the run"),
        "a sampled pair lost its document"
    );
}

// 16. UTF-16 without a mark, and UTF-32 with one, read as text.
#[test]
fn wide_encodings_are_read_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let html = "<html><head><meta charset=utf-16></head><body><p>Wide pages are read, every word of them.</p></body></html>";
    let le: Vec<u8> = html.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be32: Vec<u8> = [0u8, 0, 0xFE, 0xFF]
        .into_iter()
        .chain(html.chars().flat_map(|c| (c as u32).to_be_bytes()))
        .collect();
    for (name, bytes) in [("a.html", le), ("b.html", be32)] {
        let p = dir.path().join(name);
        fs::write(&p, bytes).unwrap();
        let t = nd("text {}", &[&p]).ok();
        assert!(t.contains("Wide pages are read"), "{name}: {t}");
        assert!(!t.contains("\\u0000"), "{name}: {t}");
    }
}

// 17. Smaller findings: another command's output, the split refusal, an id that is a tab.
#[test]
fn the_smaller_findings_hold() {
    let dir = tempfile::tempdir().unwrap();
    let store = small_store(dir.path(), 8);
    let sub = dir.path().join("sub");
    nd("-q substrings {} -o {}", &[&store, &sub]).ok();
    let err = nd("explain {} kept", &[&sub]).fails();
    assert!(err.contains("`neardup substrings`"), "{err}");
    let split = dir.path().join("split");
    let err = nd(
        "dedup {} -o {} -q --representative central --partitions 2",
        &[&store, &split],
    )
    .fails();
    assert!(err.contains("--representative central"), "{err}");
    let t = words(30, 150);
    let tab = jsonl(dir.path(), "tab.jsonl", &[("\t", t.clone()), ("x", t)]);
    let out = dir.path().join("tab");
    nd("dedup {} -o {} -q", &[&tab, &out]).ok();
    let lists = read(&out.join("keep.txt")) + &read(&out.join("remove.tsv"));
    assert!(lists.contains("\\t"), "{lists}");
}

// Probes of the split run: a task's file cut short (a disk that lost its tail) fails the next
// task naming the file, a task run again writes the same file, and a lock left by a process
// id that now belongs to a live process that is not neardup is never taken over.
#[test]
fn split_probes_partial_files_retries_and_reused_pids() {
    use neardup::jobs::split::{plan, run_task, Driver};
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_stores(dir.path(), 300);
    let out = dir.path().join("out");
    let options = serde_json::json!({"inputs": [a, b], "output": out}).to_string();
    let pl = plan(&options, 3, true).unwrap();
    let mut driver = Driver::new(&pl.work);
    let next = driver.next(Vec::new()).unwrap().unwrap();
    assert_eq!(next.stage, "scatter");
    run_task(&pl.work, "scatter", 0, 0).unwrap();
    let keys = pl.work.join("scatter/s00000/keys.bin");
    let once = fs::read(&keys).unwrap();
    run_task(&pl.work, "scatter", 0, 0).unwrap();
    assert_eq!(
        fs::read(&keys).unwrap(),
        once,
        "a task run again writes the same file"
    );
    run_task(&pl.work, "scatter", 1, 0).unwrap();
    fs::write(&keys, &once[..once.len() - 8]).unwrap();
    let e = run_task(&pl.work, "groups", 0, 0).unwrap_err().to_string();
    assert!(e.contains("keys.bin"), "{e}");
    // A lock naming a live process (this test's parent shell stands in for a reused pid).
    let other = dir.path().join("other");
    fs::create_dir(&other).unwrap();
    let live = std::os::unix::process::parent_id();
    fs::write(other.join(".neardup.lock"), live.to_string()).unwrap();
    let err = nd("dedup {} {} -o {} -q --partitions 2", &[&a, &b, &other]).fails();
    assert!(err.contains(&format!("pid {live}")), "{err}");
}

// A split run that fails lets go of its output: the process that planned it (a Python
// driver) may write there again, and the next run removes the work directory.
#[test]
fn an_abandoned_split_run_lets_go_of_its_output() {
    use neardup::jobs::split::{abandon, plan};
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_stores(dir.path(), 200);
    let out = dir.path().join("out");
    let options = serde_json::json!({"inputs": [a, b], "output": out}).to_string();
    let pl = plan(&options, 2, true).unwrap();
    nd("dedup {} {} -o {} -q --force", &[&a, &b, &out]).fails();
    abandon(&out);
    assert!(pl.work.exists());
    nd("dedup {} {} -o {} -q --force", &[&a, &b, &out]).ok();
    assert!(!pl.work.exists());
    // Planned again in this process after a failure: the earlier claim is let go first.
    plan(&options, 2, true).unwrap();
    plan(&options, 3, true).unwrap();
    abandon(&out);
}
