//! Nothing lost, nothing destroyed: `--force` replaces only what neardup made, and no output
//! may land inside an input store. Each case failed before its fix: `--force` removed the
//! input directory or the file at `-o`, and `export`/`join` overwrote a store's own column.

use std::fs;
use std::path::Path;

use crate::common::{nd, neardup, ok, page, response, stderr, summary_json};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A directory holding one small WARC of five pages.
fn crawl(dir: &Path) -> std::path::PathBuf {
    let input = dir.join("in");
    fs::create_dir(&input).unwrap();
    let mut warc = Vec::new();
    for i in 0..5 {
        warc.extend(response(&format!("urn:{i}"), "http://x/", &page(i, 80)));
    }
    fs::write(input.join("a.warc"), &warc).unwrap();
    input
}

/// Runs `args`, requires failure with `why` in the message.
fn refused(args: &[&str], why: &str) {
    let o = neardup(args);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
}

#[test]
fn force_replaces_only_what_neardup_made() {
    let dir = tempfile::tempdir().unwrap();
    let input = crawl(dir.path());
    let warc = fs::read(input.join("a.warc")).unwrap();
    // The input itself as the output.
    refused(
        &["-q", "fingerprint", s(&input), "-o", s(&input), "--force"],
        "lies inside the output",
    );
    assert_eq!(fs::read(input.join("a.warc")).unwrap(), warc, "input lost");
    // A user's file, and a user's directory.
    let notes = dir.path().join("notes.txt");
    fs::write(&notes, "x").unwrap();
    refused(
        &["-q", "fingerprint", s(&input), "-o", s(&notes), "--force"],
        "is a file",
    );
    assert_eq!(fs::read_to_string(&notes).unwrap(), "x");
    let mine = dir.path().join("mine");
    fs::create_dir(&mine).unwrap();
    fs::write(mine.join("thesis.tex"), "y").unwrap();
    refused(
        &["-q", "fingerprint", s(&input), "-o", s(&mine), "--force"],
        "holds no store",
    );
    refused(
        &["-q", "synth", "--docs", "10", "-o", s(&mine), "--force"],
        "holds no store",
    );
    assert_eq!(fs::read_to_string(mine.join("thesis.tex")).unwrap(), "y");
    // A store neardup wrote, and an empty directory, are replaced.
    let store = dir.path().join("s");
    nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
    nd("-q fingerprint {} -o {} --force", &[&input, &store]).ok();
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    nd("-q fingerprint {} -o {} --force", &[&input, &empty]).ok();
    assert!(empty.join("manifest.json").is_file());
}

#[test]
fn no_output_lands_inside_an_input_store() {
    let dir = tempfile::tempdir().unwrap();
    let input = crawl(dir.path());
    let store = dir.path().join("s");
    nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
    let column = store.join("fp64.u64");
    let before = fs::read(&column).unwrap();
    let inside = "lies inside the input store";
    refused(&["-q", "export", s(&store), "-o", s(&column)], inside);
    refused(&["-q", "join", s(&store), "-o", s(&column)], inside);
    let out = dir.path().join("pairs.tsv");
    let bin = store.join("pairs.bin");
    refused(
        &[
            "-q",
            "join",
            s(&store),
            "-o",
            s(&out),
            "--pairs-bin",
            s(&bin),
        ],
        inside,
    );
    refused(&["-q", "sweep", s(&store), "-o", s(&store)], inside);
    refused(
        &[
            "-q",
            "cluster",
            s(&store),
            "-o",
            &format!("{}/c", s(&store)),
        ],
        inside,
    );
    assert_eq!(fs::read(&column).unwrap(), before, "column changed");
    assert!(!bin.exists() && !store.join("c").exists());
    nd("-q join {} -o {}", &[&store, &out]).ok();
}

#[test]
fn a_table_cut_short_never_stands_under_the_final_name() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    nd("-q synth --docs 20000 -o {}", &[&store]).ok();
    let out = dir.path().join("pairs.tsv");
    fs::write(&out, "the previous table\n").unwrap();
    // The file-size limit cuts the write off at 16 blocks, as a full disk would.
    let cut = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -f 16; exec {} -q join {} --tau 6 -o {}",
            env!("CARGO_BIN_EXE_neardup"),
            s(&store),
            s(&out)
        ))
        .status()
        .unwrap();
    assert!(!cut.success());
    assert_eq!(fs::read_to_string(&out).unwrap(), "the previous table\n");
    let leftovers = |d: &Path| {
        fs::read_dir(d)
            .unwrap()
            .filter(|e| {
                let n = e.as_ref().unwrap().file_name();
                n.to_string_lossy().starts_with(".pairs.tsv.tmp-")
            })
            .count()
    };
    // The next run writes the whole table and removes the killed run's temporary.
    nd("-q join {} --tau 6 -o {}", &[&store, &out]).ok();
    assert!(fs::read_to_string(&out).unwrap().starts_with("id_a\tid_b"));
    assert_eq!(leftovers(dir.path()), 0);
    // Exports too.
    let fps = dir.path().join("fps.tsv");
    nd("-q export {} -o {}", &[&store, &fps]).ok();
    assert_eq!(fs::read_to_string(&fps).unwrap().lines().count(), 20_001);
}

/// The files of a dedup output that tell one run from another, by name.
fn lists(out: &Path) -> Vec<(String, Vec<u8>)> {
    let files = [
        "store/fp64.u64",
        "store/ids.bin",
        "pairs.bin",
        "sweep.tsv",
        "keep.txt",
        "remove.tsv",
        "clusters.tsv",
    ];
    files
        .iter()
        .map(|f| (f.to_string(), fs::read(out.join(f)).unwrap_or_default()))
        .collect()
}

#[test]
fn a_rerun_killed_at_any_moment_never_leaves_a_finished_looking_mix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, b) = (d.join("a"), d.join("b"));
    for (crawl, seed) in [(&a, "3"), (&b, "9")] {
        nd(
            "-q synth-crawl --docs 3000 --seed {} -o {}",
            &[&seed, &crawl],
        )
        .ok();
    }
    // Both runs whole, for reference.
    let (ra, rb) = (d.join("ra"), d.join("rb"));
    nd("-q dedup {} -o {} --tau-max 6", &[&a, &ra]).ok();
    nd("-q dedup {} -o {} --tau-max 6", &[&b, &rb]).ok();
    let (whole_a, whole_b) = (lists(&ra), lists(&rb));
    assert_ne!(whole_a, whole_b);
    // The rerun over an earlier output: crawl b into `out`, replacing a's run.
    let rerun = |out: &Path, extra: [&str; 2]| {
        let mut args = vec!["-q", "dedup", s(&b), "-o", s(out), "--force"];
        args.extend(extra);
        args.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let go = |args: Vec<String>| neardup(&args.iter().map(String::as_str).collect::<Vec<_>>());
    // A rerun refused for a bad argument touches nothing.
    let out = d.join("out");
    nd("-q dedup {} -o {} --tau-max 6", &[&a, &out]).ok();
    for bad in [["--tau", "70"], ["--blocks", "1000"], ["--bits", "0"]] {
        let o = go(rerun(&out, bad));
        assert!(!o.status.success());
        assert_eq!(lists(&out), whole_a, "{bad:?}");
        assert!(out.join("summary.json").is_file());
    }
    // A directory of the user's standing where neardup wrote pairs.bin is not neardup's:
    // the rerun is refused before anything is replaced or removed.
    fs::remove_file(out.join("pairs.bin")).unwrap();
    fs::create_dir(out.join("pairs.bin")).unwrap();
    fs::write(out.join("pairs.bin").join("mine.txt"), "mine").unwrap();
    let o = go(rerun(&out, ["--tau-max", "6"]));
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("not one neardup made"),
        "{}",
        stderr(&o)
    );
    let but_pairs = |l: Vec<(String, Vec<u8>)>| -> Vec<(String, Vec<u8>)> {
        l.into_iter().filter(|(n, _)| n != "pairs.bin").collect()
    };
    assert_eq!(but_pairs(lists(&out)), but_pairs(whole_a.clone()));
    assert!(out.join("summary.json").is_file());
    assert!(out.join("pairs.bin").join("mine.txt").is_file());
    // Killed at several moments over the earlier output: the old run whole, the new run
    // whole, or no summary.json.
    for ms in [20u64, 60, 120, 200, 300, 450, 700] {
        let run = d.join(format!("k{ms}"));
        nd("-q dedup {} -o {} --tau-max 6", &[&a, &run]).ok();
        // A user's file beside the outputs: never touched, whenever the run dies.
        fs::write(run.join("notes.txt"), "mine").unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_neardup"))
            .args(rerun(&run, ["--tau-max", "6"]))
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(ms));
        let _ = child.kill();
        let _ = child.wait();
        if run.join("summary.json").is_file() {
            let now = lists(&run);
            assert!(
                now == whole_a || now == whole_b,
                "a mix with a summary at {ms} ms"
            );
        }
        assert_eq!(fs::read_to_string(run.join("notes.txt")).unwrap(), "mine");
        // A rerun recovers: what the killed run made is neardup's to replace.
        ok(&rerun(&run, ["--tau-max", "6"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>());
        assert_eq!(lists(&run), whole_b, "the rerun after a kill at {ms} ms");
        assert_eq!(fs::read_to_string(run.join("notes.txt")).unwrap(), "mine");
    }
}

#[test]
fn one_writer_per_output_and_killed_runs_do_not_lock_it_forever() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = crawl(d);
    // Another run (process 1 always runs) holds the store, then the dedup output.
    let store = d.join("s");
    fs::write(d.join(".s.lock"), "1").unwrap();
    refused(
        &["-q", "fingerprint", s(&input), "-o", s(&store)],
        "another neardup run (pid 1)",
    );
    assert!(!store.exists());
    let out = d.join("out");
    fs::create_dir(&out).unwrap();
    fs::write(out.join(".neardup.lock"), "1").unwrap();
    refused(
        &["-q", "dedup", s(&input), "-o", s(&out)],
        "another neardup run (pid 1)",
    );
    assert!(!out.join("store").exists() && !out.join("summary.json").exists());
    // Locks of processes that are gone are taken over, and every lock goes with its run.
    fs::write(d.join(".s.lock"), "4999999").unwrap();
    fs::write(out.join(".neardup.lock"), "4999999").unwrap();
    nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
    nd("-q dedup {} -o {}", &[&input, &out]).ok();
    nd("-q sweep {} -o {}", &[&store, &d.join("sw")]).ok();
    for lock in [
        d.join(".s.lock"),
        out.join(".neardup.lock"),
        out.join(".store.lock"),
    ] {
        assert!(!lock.exists(), "{} left behind", lock.display());
    }
    assert!(!d.join("sw/.neardup.lock").exists());
}

#[test]
fn the_same_store_twice_is_refused_and_threads_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let input = crawl(dir.path());
    let store = dir.path().join("s");
    nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
    let again = format!("{}/../s", s(&input));
    refused(&["-q", "join", s(&store), &again, "-o", "-"], "given twice");
    refused(
        &["-q", "join", s(&store), "--against", s(&store), "-o", "-"],
        "given twice",
    );
    let o = nd("--threads 100000 join {} -o -", &[&store]).output();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("capped at"), "{}", stderr(&o));
}

#[test]
fn outputs_inside_an_input_are_refused_and_stores_inside_one_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let input = crawl(dir.path());
    let before = fs::read_dir(&input).unwrap().count();
    // An output that is, or lies inside, an input is refused before anything is written.
    for out in [input.join("out"), input.clone()] {
        let o = nd("dedup {} -o {} --force", &[&input, &out]).output();
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains("never writes where it reads"),
            "{}",
            stderr(&o)
        );
        assert_eq!(fs::read_dir(&input).unwrap().count(), before);
    }
    let out = dir.path().join("out");
    nd("-q dedup {} -o {}", &[&input, &out]).ok();
    let docs = |o: &Path| {
        let v = summary_json(o);
        (
            v["documents"].as_u64().unwrap(),
            v["fingerprint"]["stats"].clone(),
        )
    };
    let first = docs(&out);
    // A store beside the crawl, inside the input directory, is not read.
    nd("-q fingerprint {} -o {}", &[&input, &input.join("s")]).ok();
    let o = nd("dedup {} -o {} --force", &[&input, &out]).output();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("not read as input"), "{}", stderr(&o));
    assert_eq!(docs(&out), first, "the store was read as documents");
}

/// An error says its cause once, and names the file (it printed "...(os error 2): ...(os
/// error 2)" before).
#[test]
fn errors_say_their_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = crawl(dir.path());
    let store = dir.path().join("s");
    nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
    let out = dir.path().join("no-such-dir").join("pairs.tsv");
    let o = nd("-q join {} -o {}", &[&store, &out]).output();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.matches("os error").count(), 1, "{err}");
    assert!(err.contains("no-such-dir"), "{err}");
}

/// Lists stay usable by id when ids repeat: every occurrence of a repeated id is named
/// `ID#N` (N its position), a name that is someone else's id is qualified too, and `join`
/// keeps `id_a < id_b` strictly. Before, keep.txt listed `dup` while remove.tsv said `dup dup`.
#[test]
fn repeated_ids_are_qualified_in_every_list() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    let text = page(7, 60);
    let line = |id: &str, t: &str| format!("{{\"id\": \"{id}\", \"text\": \"{t}\"}}\n");
    let data = [
        line("dup", &text),
        line("dup", &text),
        line("zzz", &text),
        line("dup#1", &page(8, 60)),
    ]
    .concat();
    fs::write(&input, data).unwrap();
    let out = dir.path().join("out");
    let o = nd("-q dedup {} -o {} --tau 3", &[&input, &out]).output();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("3 documents share their id"),
        "{}",
        stderr(&o)
    );
    let read = |name: &str| fs::read_to_string(out.join(name)).unwrap();
    assert_eq!(read("keep.txt"), "dup#0\ndup#1#3\n");
    assert_eq!(
        read("remove.tsv"),
        "id\tkept\thamming64\tscore\ndup#1\tdup#0\t0\t1.000000\nzzz\tdup#0\t0\t1.000000\n"
    );
    let names: Vec<String> = read("clusters.tsv")
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect();
    assert_eq!(names, ["dup#0", "dup#1", "zzz", "dup#1#3"]);
    let summary = read("summary.json");
    assert!(summary.contains("\"qualified_ids\": 3"), "{summary}");
    let pairs = nd("-q join {} --tau 3 -o -", &[&out.join("store")]).ok();
    let lines: Vec<&str> = pairs.lines().skip(1).collect();
    assert_eq!(lines.len(), 3);
    for l in lines {
        let f: Vec<&str> = l.split('\t').collect();
        assert!(f[0] < f[1], "{l}");
    }
}

/// Names an interrupted run must not leave: temporary files and stores, swapped-out stores,
/// locks.
fn leftovers(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.contains(".tmp-") || name.contains(".old-") || name.ends_with(".lock") {
            found.push(name);
        }
        if e.path().is_dir() {
            found.extend(leftovers(&e.path()));
        }
    }
    found
}

/// Ctrl-C (SIGINT) or SIGTERM at any moment of a dedup rerun removes the run's temporaries and
/// locks and exits 130; whatever was finished stays, and the output never looks finished
/// unless it is one run whole. Before, a ^C left `.NAME.tmp-PID` files, a `store.tmp-PID`
/// directory and the locks for the next run to clean.
#[cfg(unix)]
#[test]
fn an_interrupted_run_removes_its_temporaries() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let crawl = d.join("crawl");
    nd("-q synth-crawl --docs 4000 -o {}", &[&crawl]).ok();
    let mut interrupted = 0;
    for (i, ms) in [30u64, 90, 180, 300, 500, 800].into_iter().enumerate() {
        let out = d.join(format!("out{i}"));
        nd("-q dedup {} -o {} --tau-max 6", &[&crawl, &out]).ok();
        let whole = fs::read(out.join("clusters.tsv")).unwrap();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_neardup"))
            .args(["-q", "dedup", s(&crawl), "-o", s(&out), "--force"])
            .args(["--tau-max", "6"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(ms));
        let signal = if i % 2 == 0 { "-INT" } else { "-TERM" };
        let _ = std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status();
        let o = child.wait_with_output().unwrap();
        match o.status.code() {
            Some(130) => {
                interrupted += 1;
                assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
            }
            Some(0) => {}
            // Killed by the signal itself: it came before the process installed its handler,
            // so before it made anything (the leftovers check below holds it to that).
            None if std::os::unix::process::ExitStatusExt::signal(&o.status).is_some() => {}
            other => panic!("exit {other:?} at {ms} ms: {}", stderr(&o)),
        }
        assert_eq!(leftovers(d), Vec::<String>::new(), "at {ms} ms");
        if out.join("summary.json").is_file() {
            assert_eq!(
                fs::read(out.join("clusters.tsv")).unwrap(),
                whole,
                "at {ms} ms"
            );
        }
        neardup::fingerprint::store::Store::open(&out.join("store")).unwrap();
    }
    assert!(
        interrupted > 0,
        "no run was interrupted: the runs are too short"
    );
}

/// Two stores that both number their documents from 1 (two JSONL exports, say): the shared
/// ids are qualified across the stores, by their position in the pair of stores.
#[test]
fn ids_repeated_across_stores_are_qualified() {
    let dir = tempfile::tempdir().unwrap();
    let text = page(9, 60);
    let mut stores = Vec::new();
    for (name, ids) in [("a", ["1", "2"]), ("b", ["1", "3"])] {
        let input = dir.path().join(format!("{name}.jsonl"));
        let lines: String = ids
            .iter()
            .map(|id| format!("{{\"id\": \"{id}\", \"text\": \"{text}\"}}\n"))
            .collect();
        fs::write(&input, lines).unwrap();
        let store = dir.path().join(format!("{name}.store"));
        nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
        stores.push(store);
    }
    let out = dir.path().join("clusters");
    nd(
        "-q cluster {} {} --tau 0 -o {}",
        &[&stores[0], &stores[1], &out],
    )
    .ok();
    let clusters = fs::read_to_string(out.join("clusters.tsv")).unwrap();
    let names: Vec<&str> = clusters
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(names, ["1#0", "2", "1#2", "3"]);
    assert_eq!(fs::read_to_string(out.join("keep.txt")).unwrap(), "1#0\n");
}

/// An output that is a device or a named pipe (`-o /dev/null`, a FIFO another program reads)
/// is written to, never replaced: before, the table was written beside it and renamed over it,
/// so `-o /dev/null` run as root replaced the device with a regular file.
#[cfg(unix)]
#[test]
fn a_device_or_pipe_output_is_written_to_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let input = crawl(dir.path());
    let store = dir.path().join("s");
    nd("-q fingerprint {} -o {}", &[&input, &store]).ok();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(&fifo).unwrap())
    };
    nd("-q export {} --format tsv -o {}", &[&store, &fifo]).ok();
    assert!(
        fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "the pipe was replaced"
    );
    let table = reader.join().unwrap();
    assert!(table.starts_with("id\turl\t"), "{table}");
    assert_eq!(table.lines().count(), 6);
}
