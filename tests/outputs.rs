//! Nothing lost, nothing destroyed: `--force` replaces only what neardup made, and no output
//! may land inside an input store. Each case failed before its fix: `--force` removed the
//! input directory or the file at `-o`, and `export`/`join` overwrote a store's own column.

use std::fs;
use std::path::Path;

use crate::common::{neardup, ok, page, response, stderr};

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
    ok(&["-q", "fingerprint", s(&input), "-o", s(&store)]);
    ok(&["-q", "fingerprint", s(&input), "-o", s(&store), "--force"]);
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    ok(&["-q", "fingerprint", s(&input), "-o", s(&empty), "--force"]);
    assert!(empty.join("manifest.json").is_file());
}

#[test]
fn no_output_lands_inside_an_input_store() {
    let dir = tempfile::tempdir().unwrap();
    let input = crawl(dir.path());
    let store = dir.path().join("s");
    ok(&["-q", "fingerprint", s(&input), "-o", s(&store)]);
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
    ok(&["-q", "join", s(&store), "-o", s(&out)]);
}
