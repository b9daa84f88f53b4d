//! Nothing lost: a user's files and a command's inputs are never deleted or overwritten, an
//! output that overlaps an input is refused before anything is read, killed runs are recovered
//! by a rerun, and inputs that other tools write every day (Parquet of every codec) are read.
//! Each test here failed on the build before the output directories had one owner.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::common::{
    export_tsv, fingerprint, nd, ok, page, python, refused, response, snapshot, stderr,
};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A crawl of `n` pages as two WARC.gz shards named as a corpus's shards are
/// (`part-00000.warc.gz`...), in `dir`.
fn crawl_as_parts(dir: &Path, n: usize) -> PathBuf {
    let t = dir.join("synth");
    nd(
        "-q synth-crawl --docs {} --shards 2 -o {}",
        &[&n.to_string(), &t],
    )
    .ok();
    let d = dir.join("d");
    fs::create_dir(&d).unwrap();
    for i in 0..2 {
        fs::copy(
            t.join(format!("synth-0000{i}.warc.gz")),
            d.join(format!("part-0000{i}.warc.gz")),
        )
        .unwrap();
    }
    d
}

/// `neardup write STORE --keep KEEP --format FORMAT -o OUT`, and `extra`.
fn write_args<'a>(
    store: &'a Path,
    keep: &'a Path,
    format: &'a str,
    out: &'a Path,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut v = vec![
        "write",
        s(store),
        "--keep",
        s(keep),
        "--format",
        format,
        "-o",
        s(out),
    ];
    v.extend_from_slice(extra);
    v
}

/// `write` of every document of `store` into `dir/c` as JSONL.gz, refused with `why`.
fn write_every_document_refused(dir: &Path, store: &Path, why: &str) {
    let ids: Vec<String> = export_tsv(store)
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    let keep = dir.join("keep-all.txt");
    fs::write(&keep, ids.join("\n") + "\n").unwrap();
    let c = dir.join("c");
    refused(&write_args(store, &keep, "jsonl.gz", &c, &[]), why);
}

#[test]
fn a_corpus_is_never_written_over_its_inputs_or_a_users_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = crawl_as_parts(dir.path(), 200);
    let o = dir.path().join("o");
    nd("-q dedup {} -o {}", &[&d, &o]).ok();
    let crawl = snapshot(&d);
    let (store, keep) = (o.join("store"), o.join("keep.txt"));
    // Into the directory of the crawl's own shards, named as a corpus's are: refused.
    refused(
        &write_args(&store, &keep, "warc.gz", &d, &["--force"]),
        "never writes where it reads",
    );
    // The corpus of a run read again, written into the directory that holds it: refused,
    // with or without --force.
    let c = o.join("corpus");
    ok(&write_args(&store, &keep, "warc.gz", &c, &[]));
    let corpus = snapshot(&c);
    for force in [&[][..], &["--force"][..]] {
        let mut args = vec!["dedup", s(&c), "-o", s(&o), "--write-corpus", "warc.gz"];
        args.extend(force);
        refused(&args, "never writes where it reads");
    }
    assert_eq!(snapshot(&c), corpus);
    // A user's files beside a finished corpus, named as shards are: refused, left alone.
    for mine in ["part-00099.jsonl.gz", "part-00000.parquet"] {
        fs::write(c.join(mine), "mine").unwrap();
        refused(
            &write_args(&store, &keep, "warc.gz", &c, &["--force"]),
            mine,
        );
        assert_eq!(fs::read_to_string(c.join(mine)).unwrap(), "mine");
        fs::remove_file(c.join(mine)).unwrap();
    }
    // The crawl as a dedup output: refused, nothing read, nothing written.
    refused(
        &["dedup", s(&d), "-o", s(&d), "--force"],
        "never writes where it reads",
    );
    assert_eq!(snapshot(&d), crawl);
}

#[test]
fn a_rerun_replaces_only_what_the_earlier_run_made() {
    let dir = tempfile::tempdir().unwrap();
    let d = crawl_as_parts(dir.path(), 200);
    let o = dir.path().join("o");
    nd("-q dedup {} -o {} --write-corpus jsonl.gz", &[&d, &o]).ok();
    fs::write(o.join("notes.txt"), "mine").unwrap();
    // Without --force the store is not replaced, and nothing of the earlier run is touched.
    let before = snapshot(&o);
    refused(&["dedup", s(&d), "-o", s(&o)], "--force");
    assert_eq!(snapshot(&o), before);
    // Without --write-corpus, the earlier corpus does not stay beside the new lists.
    nd("-q dedup {} -o {} --force", &[&d, &o]).ok();
    assert!(!o.join("corpus").exists());
    assert_eq!(fs::read_to_string(o.join("notes.txt")).unwrap(), "mine");
    // A user's file where dedup writes one of its outputs: refused before anything is read.
    let other = dir.path().join("other");
    fs::create_dir(&other).unwrap();
    fs::write(other.join("keep.txt"), "mine").unwrap();
    refused(
        &["dedup", s(&d), "-o", s(&other)],
        "not a file neardup made",
    );
    // A typed table's name too, when tables are asked for.
    fs::rename(other.join("keep.txt"), other.join("keep.parquet")).unwrap();
    refused(
        &["dedup", s(&d), "-o", s(&other), "--tables", "parquet"],
        "keep.parquet",
    );
    assert!(!other.join("store").exists(), "refused only after the work");
    fs::rename(other.join("keep.parquet"), other.join("keep.txt")).unwrap();
    assert_eq!(fs::read_to_string(other.join("keep.txt")).unwrap(), "mine");
    assert_eq!(
        fs::read_dir(&other).unwrap().count(),
        1,
        "a refused run leaves nothing behind"
    );
}

/// Every gzip member of `path`, inflated.
fn inflate(path: &Path) -> Vec<u8> {
    let data = fs::read(path).unwrap();
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(&data[..])
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    out
}

#[test]
fn an_empty_keep_list_writes_shards_every_reader_opens() {
    let dir = tempfile::tempdir().unwrap();
    let d = crawl_as_parts(dir.path(), 50);
    let o = dir.path().join("o");
    nd("-q dedup {} -o {}", &[&d, &o]).ok();
    let empty = dir.path().join("empty.txt");
    fs::write(&empty, "").unwrap();
    for format in ["warc.gz", "jsonl.gz"] {
        let c = dir.path().join(format);
        ok(&write_args(&o.join("store"), &empty, format, &c, &[]));
        let shard = c.join(format!("part-00000.{format}"));
        assert!(fs::metadata(&shard).unwrap().len() > 0);
        assert!(inflate(&shard).is_empty());
    }
}

#[test]
fn ids_that_differ_only_in_control_characters_stay_two_ids() {
    let dir = tempfile::tempdir().unwrap();
    let text = page(7, 200);
    let line = |id: &str| serde_json::json!({ "id": id, "text": text }).to_string();
    // Two copies of one page whose ids print alike once a line break is a space.
    let input = dir.path().join("docs.jsonl");
    fs::write(&input, format!("{}\n{}\n", line("a\nb"), line("a b"))).unwrap();
    let o = dir.path().join("o");
    nd("-q dedup {} -o {}", &[&input, &o]).ok();
    let keep = fs::read_to_string(o.join("keep.txt")).unwrap();
    let remove = fs::read_to_string(o.join("remove.tsv")).unwrap();
    assert_eq!(keep, "a\\nb\n", "the first copy is kept, its id escaped");
    assert!(
        remove.lines().nth(1).unwrap().starts_with("a b\t"),
        "{remove}"
    );
    // The keep list names one document: the corpus holds it and not the other.
    let c = dir.path().join("c");
    ok(&write_args(
        &o.join("store"),
        &o.join("keep.txt"),
        "jsonl.gz",
        &c,
        &[],
    ));
    let rows = String::from_utf8(inflate(&c.join("part-00000.jsonl.gz"))).unwrap();
    let ids: Vec<String> = rows
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids, vec!["a\nb".to_string()]);
}

#[test]
fn a_shard_edited_where_its_checksum_does_not_look_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("big.warc");
    let mut data = Vec::new();
    for i in 0..1500 {
        data.extend(response(&format!("urn:{i}"), "http://x/", &page(i, 300)));
    }
    fs::write(&warc, &data).unwrap();
    let store = dir.path().join("s");
    assert!(fingerprint(&[&warc], &store, &[]).status.success());
    // A letter of a page's text outside every block the checksum samples, changed in place.
    const EDGE: usize = 1 << 20;
    const BLOCK: usize = 4 << 10;
    let n = data.len();
    assert!(
        n > 2 * EDGE + 64 * BLOCK,
        "{n} bytes: too small to be sampled"
    );
    let span = n - 2 * EDGE - BLOCK;
    let sampled = |p: usize| {
        p < EDGE
            || p >= n - EDGE
            || (0..64).any(|i| (EDGE + span * i / 63..EDGE + span * i / 63 + BLOCK).contains(&p))
    };
    let at = (EDGE..n - EDGE)
        .find(|p| !sampled(*p) && data[*p] == b'w' && data[p + 1].is_ascii_digit())
        .unwrap();
    data[at] = b'q';
    fs::write(&warc, &data).unwrap();
    write_every_document_refused(dir.path(), &store, "not the text that was fingerprinted");
}

#[test]
fn moved_shards_are_found_with_dedup_shard_dir() {
    let dir = tempfile::tempdir().unwrap();
    let d = crawl_as_parts(dir.path(), 300);
    let store = dir.path().join("s");
    assert!(fingerprint(&[&d], &store, &["--minhash"]).status.success());
    let moved = dir.path().join("moved");
    fs::rename(&d, &moved).unwrap();
    let o = dir.path().join("o");
    refused(&["dedup", s(&store), "-o", s(&o)], "--shard-dir DIR");
    nd("-q dedup {} -o {} --shard-dir {}", &[&store, &o, &moved]).ok();
    assert!(o.join("summary.json").is_file());
}

#[test]
fn against_an_incompatible_store_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = crawl_as_parts(dir.path(), 100);
    let old = dir.path().join("old");
    assert!(fingerprint(&[&d], &old, &["--ngrams", "2", "--minhash"])
        .status
        .success());
    let o = dir.path().join("o");
    refused(
        &["dedup", s(&d), "-o", s(&o), "--against", s(&old)],
        "different parameters",
    );
    assert!(!o.join("store").exists());
    // The corrected rerun needs no --force; ids shared by both crawls are named old:ID.
    let old = dir.path().join("old2");
    assert!(fingerprint(&[&d], &old, &[]).status.success());
    refused(
        &["dedup", s(&d), "-o", s(&o), "--against", s(&old)],
        "no MinHash band keys",
    );
    assert!(!o.join("store").exists());
    assert!(fingerprint(&[&d], &old, &["--minhash"]).status.success());
    let out = nd("dedup {} -o {} --against {}", &[&d, &o, &old]).output();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("old:ID"), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("name each of them ID#N"),
        "{}",
        stderr(&out)
    );
}

#[cfg(unix)]
#[test]
fn links_are_followed_only_when_asked_and_each_file_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("secret.txt"), page(1, 100)).unwrap();
    fs::write(outside.join("far.html"), page(2, 100)).unwrap();
    let c = dir.path().join("c");
    fs::create_dir(&c).unwrap();
    fs::write(c.join("a.html"), page(3, 100)).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), c.join("pw.txt")).unwrap();
    std::os::unix::fs::symlink(&outside, c.join("linked")).unwrap();
    let docs = |extra: &[&str], inputs: &[&Path]| {
        let store = dir.path().join("s");
        let o = fingerprint(inputs, &store, extra);
        assert!(o.status.success(), "{}", stderr(&o));
        let mut ids: Vec<String> = export_tsv(&store)
            .into_iter()
            .map(|r| r[0].clone())
            .collect();
        ids.sort();
        (ids, stderr(&o))
    };
    // One rule for links to files and to directories: passed over, and said so.
    let (ids, err) = docs(&[], &[&c]);
    assert_eq!(ids, vec!["a.html"]);
    assert!(err.contains("2 symbolic links"), "{err}");
    // Followed: both, each file once (pw.txt is linked/secret.txt, reached first).
    let (ids, err) = docs(&["--follow"], &[&c]);
    assert_eq!(ids, vec!["a.html", "linked/far.html", "linked/secret.txt"]);
    assert!(err.contains("reached more than once"), "{err}");
    // A file reached twice (its directory, and by name) is read once.
    let (ids, err) = docs(&[], &[&c, &c.join("a.html")]);
    assert_eq!(ids, vec!["a.html"]);
    assert!(err.contains("reached more than once"), "{err}");
    // So is a file reached by a hard link (one file, two names), and by `./` and `..` ways.
    fs::hard_link(c.join("a.html"), dir.path().join("hard.html")).unwrap();
    let roundabout = c.join("../c/./a.html");
    let (ids, err) = docs(&[], &[&c, &dir.path().join("hard.html"), &roundabout]);
    assert_eq!(ids, vec!["a.html"]);
    assert!(err.contains("reached more than once"), "{err}");
}

#[test]
fn messages_read_the_right_way_round() {
    let dir = tempfile::tempdir().unwrap();
    let d = crawl_as_parts(dir.path(), 100);
    let store = dir.path().join("s");
    assert!(fingerprint(&[&d], &store, &[]).status.success());
    let tsv = nd("export {} -o -", &[&store]).ok();
    assert_eq!(tsv.lines().count(), 101, "a header and one line a document");
    // A shard grown since: the size recorded, then the size now.
    let shard = d.join("part-00000.warc.gz");
    let before = fs::metadata(&shard).unwrap().len();
    let mut data = fs::read(&shard).unwrap();
    data.extend_from_slice(&crate::common::gz(b"x"));
    fs::write(&shard, &data).unwrap();
    write_every_document_refused(
        dir.path(),
        &store,
        &format!("recorded {before} bytes, now {}", data.len()),
    );
}

/// Whether python3 has pyarrow (required in CI).
fn pyarrow() -> bool {
    crate::common::python_has("pyarrow", "NEARDUP_REQUIRE_PYIO")
}

#[test]
fn parquet_of_every_codec_and_encoding_reads_as_the_same_documents() {
    if !pyarrow() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import json, sys, pyarrow as pa, pyarrow.parquet as pq
out, n = sys.argv[1], 40
ids = [f"doc{i}" for i in range(n)]
texts = [" ".join(f"w{(i * 31 + j * 7) % 97} t{j % 11}" for j in range(60 + i)) for i in range(n)]
with open(f"{out}/base.jsonl", "w") as f:
    for i, t in zip(ids, texts):
        f.write(json.dumps({"id": i, "text": t}) + "\n")
table = pa.table({"id": ids, "text": texts})
for codec in ["snappy", "gzip", "lz4", "brotli", "zstd", "none"]:
    pq.write_table(table, f"{out}/{codec}.parquet", compression=codec)
# Text as a dictionary column (as a categorical is written) and a URL column of nulls only.
pq.write_table(pa.table({"id": pa.array(ids).dictionary_encode(),
                         "text": pa.array(texts).dictionary_encode(),
                         "url": pa.nulls(n)}), f"{out}/dictionary.parquet")
"#;
    python(script, &[s(dir.path())]);
    let rows = |input: &Path| {
        let store = dir.path().join("s");
        let o = fingerprint(&[input], &store, &["--text-format", "text"]);
        assert!(o.status.success(), "{}: {}", input.display(), stderr(&o));
        export_tsv(&store)
    };
    let want = rows(&dir.path().join("base.jsonl"));
    assert_eq!(want.len(), 40);
    for name in [
        "snappy",
        "gzip",
        "lz4",
        "brotli",
        "zstd",
        "none",
        "dictionary",
    ] {
        let got = rows(&dir.path().join(format!("{name}.parquet")));
        assert_eq!(got, want, "{name}");
    }
}

/// `write` and `dedup --write-corpus` killed (SIGKILL) at moments through their run: a user's
/// file beside the output and the inputs are always there afterwards, and a rerun succeeds
/// with the output a whole run gives.
#[cfg(unix)]
#[test]
fn corpus_writers_killed_at_any_moment_lose_nothing_and_are_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let d = crawl_as_parts(dir.path(), 3000);
    let crawl = snapshot(&d);
    let whole = dir.path().join("whole");
    nd("-q dedup {} -o {} --write-corpus warc.gz", &[&d, &whole]).ok();
    let corpus = |o: &Path| -> Vec<Vec<u8>> {
        let m: serde_json::Value =
            serde_json::from_slice(&fs::read(o.join("manifest.json")).unwrap()).unwrap();
        m["shards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|sh| fs::read(o.join(sh["name"].as_str().unwrap())).unwrap())
            .collect()
    };
    let want = corpus(&whole.join("corpus"));
    let (store, keep) = (whole.join("store"), whole.join("keep.txt"));
    let mut rng = neardup::base::rng::SplitMix64(29);
    for round in 0..6 {
        let ms = 20 + rng.below(600);
        let (args, out): (Vec<String>, PathBuf) = if round % 2 == 0 {
            let o = dir.path().join(format!("dedup{round}"));
            let a = [
                "-q",
                "dedup",
                s(&d),
                "-o",
                s(&o),
                "--write-corpus",
                "warc.gz",
                "--force",
            ];
            (a.iter().map(|x| x.to_string()).collect(), o)
        } else {
            let o = dir.path().join(format!("write{round}"));
            let a = write_args(
                &store,
                &keep,
                "warc.gz",
                &o,
                &["-q", "--force", "--shard-size", "200000"],
            );
            (a.iter().map(|x| x.to_string()).collect(), o.clone())
        };
        // A user's file beside the output.
        let mine = dir.path().join(format!("notes{round}.txt"));
        fs::write(&mine, "mine").unwrap();
        if round % 2 == 0 {
            fs::create_dir_all(&out).unwrap();
            fs::write(out.join("notes.txt"), "mine").unwrap();
        }
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_neardup"))
            .args(&args)
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(ms));
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(snapshot(&d), crawl, "an input changed (killed at {ms} ms)");
        assert_eq!(fs::read_to_string(&mine).unwrap(), "mine");
        if round % 2 == 0 {
            assert_eq!(fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
        }
        // The rerun recovers whatever the killed run left.
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(&refs);
        let c = if round % 2 == 0 {
            out.join("corpus")
        } else {
            out.clone()
        };
        let got: Vec<u8> = corpus(&c).concat();
        assert_eq!(got, want.concat(), "killed at {ms} ms, then rerun");
    }
}

#[test]
fn a_synthetic_crawl_is_never_written_over_a_users_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("crawl");
    fs::create_dir(&d).unwrap();
    fs::write(d.join("truth.tsv"), "mine").unwrap();
    refused(
        &["synth-crawl", "--docs", "20", "-o", s(&d)],
        "not a file neardup made",
    );
    assert_eq!(fs::read_to_string(d.join("truth.tsv")).unwrap(), "mine");
    // Its own crawl, a rerun replaces.
    let e = dir.path().join("again");
    for _ in 0..2 {
        nd("-q synth-crawl --docs 20 -o {}", &[&e]).ok();
    }
    assert_eq!(
        fs::read_to_string(e.join("truth.tsv"))
            .unwrap()
            .lines()
            .count(),
        21
    );
}
