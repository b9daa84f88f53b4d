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

/// Two copies and an unrelated page, as JSONL.
fn small_crawl(dir: &Path, name: &str, seed: usize) -> PathBuf {
    let text = page(seed, 150).replace("<html><body><p>", "").replace("</p></body></html>", "");
    let other = page(seed + 1, 150).replace("<html><body><p>", "").replace("</p></body></html>", "");
    jsonl(
        dir,
        name,
        &[("kept", text.clone()), ("copy", text), ("other", other)],
    )
}

// 1. A declared main or article never loses to a sibling blurb.
#[test]
fn articles_and_main_never_lose_to_a_blurb() {
    let dir = tempfile::tempdir().unwrap();
    let blurb: String = (0..12)
        .map(|i| format!("Welcome, friend, to our site, number {i}, read on, enjoy, share, smile. "))
        .collect();
    let news = |s: usize| {
        format!(
            "<p>{} reported that the river rose again, and the council met at noon to decide.</p>",
            crate::common::page(s, 40).replace("<html><body><p>", "").replace("</p></body></html>", "")
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
    assert!(removed(&out).is_empty(), "{}", read(&out.join("remove.tsv")));
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
    let crawl = small_crawl(dir.path(), "c.jsonl", 3);
    let store = dir.path().join("S");
    nd("fingerprint {} --minhash -q -o {}", &[&crawl, &store]).ok();
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
    let crawl = small_crawl(dir.path(), "c.jsonl", 4);
    let s = dir.path().join("S");
    let o = bin()
        .args(["fingerprint", "-q", "--minhash"])
        .arg(&crawl)
        .arg("-o")
        .arg(&s)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let twice = format!("{}/./", s.display());
    let err = nd("dedup {} {} -o {} --partitions 2 -q", &[&s, &twice, &dir.path().join("o")]).fails();
    assert!(err.contains("given twice"), "{err}");
    assert!(!dir.path().join("o/keep.txt").exists());
}

/// A run whose ids, URL and text hold what a terminal obeys.
fn hostile_run(dir: &Path) -> PathBuf {
    let text = page(9, 150).replace("<html><body><p>", "").replace("</p></body></html>", "");
    let hostile = format!("{text} \u{1b}]0;owned\u{7} \u{202e}gnp.exe");
    let crawl = jsonl(
        dir,
        "c.jsonl",
        &[("ok\u{1b}[2J", hostile.clone()), ("evil\u{1b}]0;x\u{7}\u{202e}", hostile)],
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
    assert!(o.status.success() || o.status.code() == Some(0), "{}", stderr(&o));
}

// 14. An id whose escaped and plain readings name two documents is ambiguous; 17. an unknown
// id fails with --json too, and a repeated id's raw form points at its names.
#[test]
fn explain_refuses_ambiguous_ids_and_fails_on_unknown_ones() {
    let dir = tempfile::tempdir().unwrap();
    let t = |s| page(s, 150).replace("<html><body><p>", "").replace("</p></body></html>", "");
    let crawl = jsonl(
        dir.path(),
        "c.jsonl",
        &[("x\\ty", t(1)), ("x\ty", t(2)), ("rep", t(3)), ("rep", t(4))],
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
    let crawl = small_crawl(dir.path(), "c.jsonl", 5);
    let s = dir.path().join("S");
    let o = bin()
        .args(["fingerprint", "-q", "--minhash"])
        .arg(&crawl)
        .arg("-o")
        .arg(&s)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
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
