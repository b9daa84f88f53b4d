//! Whose files are whose, round 4: a store follows the ownership record as every output
//! directory does (`--force` never removes a user's file in it), a command's inputs are never
//! its outputs, another command's finished output is replaced only with `--force`, a refused
//! rerun touches nothing, temporaries are recorded like every other file neardup makes, and a
//! store's columns carry checksums that catch damage before any list is written. Each test
//! here failed on the build before these rules.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{nd, ok, refused, stderr, summary_json};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A synthetic crawl of `n` pages in `dir/crawl`.
fn crawl(dir: &Path, n: usize) -> PathBuf {
    let c = dir.join("crawl");
    nd(
        "-q synth-crawl --docs {} --shards 2 -o {}",
        &[&n.to_string(), &c],
    )
    .ok();
    c
}

/// The names and bytes of every file under `dir`, but a lock: a killed run's lock is left (and
/// taken over by the next run); it holds nothing of the user's.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    crate::common::snapshot(dir)
        .into_iter()
        .filter(|(p, _)| p.file_name().is_some_and(|n| n != ".neardup.lock"))
        .collect()
}

#[test]
fn force_never_deletes_a_users_files_inside_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let c = crawl(dir.path(), 60);
    let st = dir.path().join("st");
    nd("-q fingerprint {} -o {}", &[&c, &st]).ok();
    fs::write(st.join("NOTES.txt"), "mine").unwrap();
    fs::create_dir(st.join("mydir")).unwrap();
    fs::write(st.join("mydir/x"), "mine too").unwrap();
    let before = snapshot(&st);
    refused(
        &["fingerprint", s(&c), "-o", s(&st), "--force"],
        "NOTES.txt",
    );
    assert_eq!(snapshot(&st), before, "a refused --force changed the store");
    // Moved out, the store is replaced, and only the store.
    fs::rename(st.join("NOTES.txt"), dir.path().join("NOTES.txt")).unwrap();
    fs::rename(st.join("mydir"), dir.path().join("mydir")).unwrap();
    nd("-q fingerprint {} -o {} --force", &[&c, &st]).ok();
    assert!(st.join("manifest.json").is_file());
    // The same inside dedup's output: OUT/store with a user's file.
    let o = dir.path().join("o");
    nd("-q dedup {} -o {}", &[&c, &o]).ok();
    fs::write(o.join("store/NOTES.txt"), "mine").unwrap();
    let before = snapshot(&o);
    refused(&["dedup", s(&c), "-o", s(&o), "--force"], "NOTES.txt");
    assert_eq!(
        snapshot(&o),
        before,
        "a refused dedup --force changed its output"
    );
}

#[test]
fn a_commands_input_is_never_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let c = crawl(dir.path(), 80);
    let st = dir.path().join("st");
    nd("-q fingerprint {} -o {} --chunks --minhash", &[&c, &st]).ok();
    let r = dir.path().join("r");
    nd("-q reuse discover {} --min-count 2 -o {}", &[&st, &r]).ok();
    let before = snapshot(&r);
    refused(
        &[
            "dedup",
            s(&st),
            "-o",
            s(&r),
            "--drop-labeled-chunks",
            s(&r),
            "--write-corpus",
            "jsonl.gz",
        ],
        "never writes where it reads",
    );
    for force in [&[][..], &["--force"][..]] {
        let mut args = vec!["reuse", "detect", s(&st), "--labels", s(&r), "-o", s(&r)];
        args.extend(force);
        refused(&args, "never writes where it reads");
    }
    assert_eq!(snapshot(&r), before, "the labels read were changed");
}

#[test]
fn another_commands_output_is_replaced_only_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let c = crawl(dir.path(), 80);
    let st = dir.path().join("st");
    nd("-q fingerprint {} -o {} --chunks --minhash", &[&c, &st]).ok();
    // dedup over a finished reuse discover output.
    let r = dir.path().join("r");
    nd("-q reuse discover {} --min-count 2 -o {}", &[&st, &r]).ok();
    let before = snapshot(&r);
    refused(&["dedup", s(&st), "-o", s(&r)], "reuse discover");
    assert_eq!(snapshot(&r), before);
    // With --force it is replaced: the reuse output's files are gone, dedup's are there.
    ok(&["-q", "dedup", s(&st), "-o", s(&r), "--force"]);
    assert!(r.join("keep.txt").is_file() && !r.join("labeled.tsv").exists());
    // substrings (which has no --force) over a finished dedup output: refused, untouched.
    let d = dir.path().join("d");
    nd("-q dedup {} -o {} --write-corpus jsonl.gz", &[&c, &d]).ok();
    let before = snapshot(&d);
    refused(
        &[
            "substrings",
            s(&d.join("store")),
            "-o",
            s(&d),
            "--write-corpus",
            "jsonl.gz",
        ],
        "neardup dedup",
    );
    assert_eq!(snapshot(&d), before);
    let summary = fs::read_to_string(d.join("summary.json")).unwrap();
    assert!(summary.contains("\"dedup\""), "{summary}");
    // With --force, dedup's outputs go and the store it reads stays.
    ok(&[
        "-q",
        "substrings",
        s(&d.join("store")),
        "-o",
        s(&d),
        "--force",
        "--min-tokens",
        "8",
    ]);
    let summary = fs::read_to_string(d.join("summary.json")).unwrap();
    assert!(summary.contains("\"substrings\""), "{summary}");
    assert!(d.join("removed.tsv").is_file() && d.join("store/manifest.json").is_file());
    assert!(!d.join("keep.txt").exists() && !d.join("corpus").exists());
    // A rerun of the same command is not another command's.
    let sub = dir.path().join("sub");
    for _ in 0..2 {
        ok(&[
            "-q",
            "substrings",
            s(&st),
            "-o",
            s(&sub),
            "--min-tokens",
            "5",
        ]);
    }
}

#[test]
fn a_rerun_that_will_be_refused_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let c = crawl(dir.path(), 80);
    // A store without band keys, then the default (MinHash) dedup over it with --force.
    let st = dir.path().join("st");
    nd("-q fingerprint {} -o {}", &[&c, &st]).ok();
    let e = dir.path().join("e");
    nd("-q dedup {} -o {} --candidates simhash", &[&st, &e]).ok();
    let before = snapshot(&e);
    refused(&["dedup", s(&st), "-o", s(&e), "--force"], "band keys");
    assert_eq!(snapshot(&e), before);
    // The crawl moved away: a rerun that must read the texts again is refused, untouched.
    let moved = dir.path().join("moved");
    fs::rename(&c, &moved).unwrap();
    refused(
        &[
            "dedup",
            s(&st),
            "-o",
            s(&e),
            "--force",
            "--candidates",
            "simhash",
        ],
        "not there any more",
    );
    assert_eq!(snapshot(&e), before);
    fs::rename(&moved, &c).unwrap();
    // A user's file put into the corpus of an earlier run: refused, the earlier run whole,
    // and once the file is moved away the rerun goes through.
    let f = dir.path().join("f");
    nd("-q dedup {} -o {} --write-corpus jsonl.gz", &[&c, &f]).ok();
    fs::write(f.join("corpus/mine.txt"), "mine").unwrap();
    let before = snapshot(&f);
    refused(
        &[
            "dedup",
            s(&c),
            "-o",
            s(&f),
            "--force",
            "--write-corpus",
            "jsonl.gz",
        ],
        "mine.txt",
    );
    assert_eq!(snapshot(&f), before);
    fs::rename(f.join("corpus/mine.txt"), dir.path().join("mine.txt")).unwrap();
    ok(&[
        "-q",
        "dedup",
        s(&c),
        "-o",
        s(&f),
        "--force",
        "--write-corpus",
        "jsonl.gz",
    ]);
    assert!(f.join("corpus/manifest.json").is_file());
}

#[test]
fn files_named_like_temporaries_in_a_fresh_directory_are_the_users() {
    let dir = tempfile::tempdir().unwrap();
    let c = crawl(dir.path(), 60);
    let o = dir.path().join("o");
    fs::create_dir(&o).unwrap();
    // Named as a killed run's temporaries would be (a pid no process has).
    let mine = [
        ".summary.json.tmp-4999999",
        ".keep.txt.tmp-4999999",
        "store.tmp-4999999",
        ".substrings.spool.tmp-4999999",
    ];
    for m in mine {
        fs::write(o.join(m), "mine").unwrap();
    }
    nd("-q dedup {} -o {}", &[&c, &o]).ok();
    ok(&[
        "-q",
        "substrings",
        s(&o.join("store")),
        "-o",
        s(&dir.path().join("sub")),
    ]);
    for m in mine {
        assert_eq!(
            fs::read_to_string(o.join(m)).unwrap(),
            "mine",
            "{m} was removed"
        );
    }
}

#[test]
fn temporaries_are_recorded_before_they_are_made() {
    // The record names the spool of a substrings run as soon as it exists: a killed run's
    // spool is removed by whichever run comes next into the directory.
    let dir = tempfile::tempdir().unwrap();
    let c = crawl(dir.path(), 60);
    let st = dir.path().join("st");
    nd("-q fingerprint {} -o {}", &[&c, &st]).ok();
    let o = dir.path().join("o");
    fs::create_dir(&o).unwrap();
    let spool = o.join(".substrings.spool.tmp-4999999");
    fs::write(&spool, "a killed run's").unwrap();
    fs::write(
        o.join(".neardup-owned.json"),
        r#"{"format":"neardup-owned","version":1,"entries":[".substrings.spool.tmp-4999999"],"command":"substrings"}"#,
    )
    .unwrap();
    ok(&["-q", "substrings", s(&st), "-o", s(&o)]);
    assert!(!spool.exists(), "the recorded spool of a killed run stayed");
}

/// `store`'s manifest as JSON.
fn manifest(store: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(store.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn damaged_band_keys_are_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let c = crawl(dir.path(), 200);
    let st = dir.path().join("st");
    nd("-q fingerprint {} -o {} --minhash", &[&c, &st]).ok();
    let band = st.join("minhash.003.u64");
    let good = fs::read(&band).unwrap();
    let out = dir.path().join("o");
    // Zeroed, then random bytes of the same length.
    let mut random = good.clone();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for b in random.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    for bad in [vec![0u8; good.len()], random] {
        fs::write(&band, &bad).unwrap();
        let e = nd("dedup {} -o {} --force", &[&st, &out]).fails();
        assert!(
            e.contains("minhash.003.u64") && e.contains("checksum"),
            "{e}"
        );
        assert!(!out.join("keep.txt").exists(), "a list was written");
    }
    fs::write(&band, &good).unwrap();
    // A manifest edited to say no bands (or fewer).
    let m = manifest(&st);
    for bands in [0, 10] {
        let mut edited = m.clone();
        edited["minhash"]["bands"] = bands.into();
        fs::write(
            st.join("manifest.json"),
            serde_json::to_vec_pretty(&edited).unwrap(),
        )
        .unwrap();
        let e = nd("dedup {} -o {} --force", &[&st, &out]).fails();
        assert!(e.contains("manifest") && e.contains("minhash.0"), "{e}");
    }
    fs::write(
        st.join("manifest.json"),
        serde_json::to_vec_pretty(&m).unwrap(),
    )
    .unwrap();
    nd("-q dedup {} -o {} --force", &[&st, &out]).ok();
    assert!(out.join("keep.txt").is_file());
}

/// Runs `args` and kills it after `ms` milliseconds (it may have finished).
fn killed(args: &[&str], ms: u64) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(ms));
    let _ = child.kill();
    let _ = child.wait();
}

/// `fingerprint --force` over a store holding a user's file, `substrings` into a directory
/// holding a user's file, and a rerun that will be refused: each killed at seeded moments.
/// No user file and no input is touched, and a rerun recovers what a killed run left.
#[test]
fn commands_killed_at_any_moment_touch_no_users_file_and_no_input() {
    let dir = tempfile::tempdir().unwrap();
    let c = crawl(dir.path(), 3000);
    let crawl_before = snapshot(&c);
    let st = dir.path().join("st");
    nd("-q fingerprint {} -o {} --minhash", &[&c, &st]).ok();
    let store_before = snapshot(&st);
    let mut rng = neardup::base::rng::SplitMix64(40);
    for round in 0..6 {
        let ms = 10 + rng.below(500);
        match round % 3 {
            0 => {
                // fingerprint --force into a store with a user's file: refused, whenever killed.
                let f = dir.path().join(format!("f{round}"));
                nd("-q fingerprint {} -o {}", &[&c, &f]).ok();
                fs::write(f.join("NOTES.txt"), "mine").unwrap();
                let before = snapshot(&f);
                killed(&["-q", "fingerprint", s(&c), "-o", s(&f), "--force"], ms);
                assert_eq!(snapshot(&f), before, "killed at {ms} ms");
                // Without the user's file, a killed --force rerun is recovered by the next.
                fs::remove_file(f.join("NOTES.txt")).unwrap();
                killed(&["-q", "fingerprint", s(&c), "-o", s(&f), "--force"], ms);
                ok(&["-q", "fingerprint", s(&c), "-o", s(&f), "--force"]);
                let left: Vec<String> = fs::read_dir(dir.path())
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with(&format!("f{round}.")))
                    .collect();
                assert!(left.is_empty(), "killed at {ms} ms, rerun: {left:?} left");
            }
            1 => {
                // substrings into a directory holding a user's file.
                let o = dir.path().join(format!("sub{round}"));
                fs::create_dir_all(&o).unwrap();
                fs::write(o.join("notes.txt"), "mine").unwrap();
                let args = ["-q", "substrings", s(&st), "-o", s(&o), "--min-tokens", "8"];
                killed(&args, ms);
                assert_eq!(fs::read_to_string(o.join("notes.txt")).unwrap(), "mine");
                ok(&args);
                let names: Vec<String> = fs::read_dir(&o)
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|n| n.contains(".tmp-"))
                    .collect();
                assert!(names.is_empty(), "killed at {ms} ms, rerun: {names:?} left");
            }
            _ => {
                // A rerun that will be refused (the user's file where an output goes).
                let o = dir.path().join(format!("d{round}"));
                fs::create_dir_all(&o).unwrap();
                fs::write(o.join("keep.txt"), "mine").unwrap();
                let before = snapshot(&o);
                killed(&["-q", "dedup", s(&st), "-o", s(&o)], ms);
                assert_eq!(snapshot(&o), before, "killed at {ms} ms");
            }
        }
        assert_eq!(
            snapshot(&c),
            crawl_before,
            "the crawl changed (killed at {ms} ms)"
        );
        assert_eq!(
            snapshot(&st),
            store_before,
            "the input store changed (killed at {ms} ms)"
        );
    }
}

/// A `--max-leaders` bound that was reached changes what may be found: it is said as a
/// warning on the terminal even with `-q`, not only counted in summary.json.
#[test]
fn a_bound_reached_is_said_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    nd("-q synth-crawl --docs 2000 --shape web -o {}", &[&c]).ok();
    let o = dir.path().join("o");
    let out = nd("-q dedup {} -o {} --max-leaders 1", &[&c, &o]).output();
    assert!(out.status.success(), "{}", stderr(&out));
    let s = summary_json(&o);
    let capped = s["verification"]["leaders"]["capped_groups"]
        .as_u64()
        .unwrap_or(0);
    assert!(capped > 0, "no run reached the bound: nothing to tell");
    let said = stderr(&out);
    assert!(
        said.contains(&format!(
            "{capped} runs of candidates reached --max-leaders 1"
        )),
        "{said}"
    );
}
