//! Dirty crawl data: every case is counted and skipped (or repaired), never a panic, and
//! messages name the shard and the offset.

use std::fs;

use crate::common::*;
use neardup::fingerprint::store::{flags, Store};

fn skipped(store: &Store, reason: &str) -> u64 {
    store
        .manifest
        .stats
        .skipped
        .get(reason)
        .copied()
        .unwrap_or(0)
}

#[test]
fn truncated_gzip_keeps_every_record_before_the_cut() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = Vec::new();
    let mut member_starts = Vec::new();
    for i in 0..5 {
        member_starts.push(data.len());
        data.extend(gz(&response(
            &format!("urn:d{i}"),
            "http://x/",
            &page(i, 40),
        )));
    }
    // Cut in the middle of the fifth member.
    let cut = member_starts[4] + 30;
    let path = dir.path().join("cut.warc.gz");
    fs::write(&path, &data[..cut]).unwrap();
    let store = dir.path().join("s");
    let out = fingerprint(&[&path], &store, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("cut.warc.gz"), "{err}");
    assert!(
        err.contains(&format!("at byte {}", member_starts[4])),
        "{err}"
    );
    let s = Store::open(&store).unwrap();
    assert_eq!(s.len(), 4);
    assert_eq!(skipped(&s, "truncated"), 1);
    assert_eq!(ids(&s), ["urn:d0", "urn:d1", "urn:d2", "urn:d3"]);
}

#[test]
fn garbage_between_records_and_wrong_content_length() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = response("urn:a", "http://a/", &page(1, 40));
    data.extend_from_slice(b"\x00\x01 some junk that is not a record\nmore junk\n");
    let block = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{}",
        page(2, 40)
    );
    // Declared length 100 bytes short of the truth, as in some ClueWeb09 records.
    data.extend(crate::common::record_with_length(
        "WARC/1.0",
        "\r\n",
        &[("WARC-Type", "response"), ("WARC-Record-ID", "<urn:b>")],
        block.as_bytes(),
        block.len() - 100,
    ));
    data.extend(response("urn:c", "http://c/", &page(3, 40)));
    let (s, _, out) = store_from(dir.path(), "dirty.warc", &data, &[]);
    assert_eq!(ids(&s), ["urn:a", "urn:b", "urn:c"]);
    assert_eq!(skipped(&s, "garbage"), 1);
    assert_eq!(s.manifest.stats.length_repaired, 1);
    // The repaired record's text is complete: same fingerprint as the page parsed alone.
    let alone = dir.path().join("alone.warc");
    fs::write(&alone, response("urn:b", "", &page(2, 40))).unwrap();
    let s2 = dir.path().join("s2");
    assert!(fingerprint(&[&alone], &s2, &[]).status.success());
    assert_eq!(s.fp64()[1], Store::open(&s2).unwrap().fp64()[0]);
    let err = stderr(&out);
    assert!(
        err.contains("dirty.warc") && err.contains("garbage"),
        "{err}"
    );
}

#[test]
fn clueweb09_style_records_use_the_trec_id() {
    let dir = tempfile::tempdir().unwrap();
    let block = format!(
        "HTTP/1.1 200 OK\nContent-Type: text/html\n\n{}",
        page(5, 30)
    );
    let mut data = record(
        "WARC/0.18",
        "\n",
        &[("WARC-Type", "warcinfo")],
        b"software: x\n",
    );
    data.extend(record(
        "WARC/0.18",
        "\n",
        &[
            ("WARC-Type", "response"),
            ("WARC-Target-URI", "http://cw09/"),
            ("WARC-Record-ID", "<urn:uuid:1234>"),
            ("WARC-TREC-ID", "clueweb09-en0000-00-00000"),
        ],
        block.as_bytes(),
    ));
    let path = dir.path().join("cw.warc");
    fs::write(&path, &data).unwrap();
    let store = dir.path().join("s");
    assert!(fingerprint(&[&path], &store, &[]).status.success());
    let s = Store::open(&store).unwrap();
    assert_eq!(s.len(), 1);
    assert_eq!(s.id(0), "clueweb09-en0000-00-00000");
    assert_eq!(s.url(0), "http://cw09/");
    assert_eq!(s.manifest.stats.other_records, 1);
}

#[test]
fn invalid_utf8_binary_empty_and_filtered_records() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = Vec::new();
    let mut bad = page(1, 40).into_bytes();
    bad.splice(20..20, [0xFF, 0xFE, 0xC3]);
    data.extend(response_with(
        "urn:badutf8",
        "",
        200,
        "text/html; charset=utf-8",
        &bad,
    ));
    data.extend(response_with(
        "urn:png",
        "",
        200,
        "image/png",
        b"\x89PNG\r\n\x1a\n\0\0",
    ));
    data.extend(response_with(
        "urn:nul",
        "",
        200,
        "text/html",
        b"<html>\0\0\0binary</html>",
    ));
    data.extend(response_with("urn:empty", "", 200, "text/html", b""));
    data.extend(response_with(
        "urn:404",
        "",
        404,
        "text/html",
        page(2, 40).as_bytes(),
    ));
    data.extend(response_with(
        "urn:short",
        "",
        200,
        "text/html",
        b"<p>only three words</p>",
    ));
    let (s, path, _) = store_from(dir.path(), "mixed.warc", &data, &[]);
    assert_eq!(ids(&s), ["urn:badutf8", "urn:empty", "urn:short"]);
    assert_eq!(skipped(&s, "content_type"), 1);
    assert_eq!(skipped(&s, "binary"), 1);
    assert_eq!(skipped(&s, "http_status"), 1);
    assert_eq!(s.flags()[0] & flags::SHORT, 0);
    // Under the default `--text main`, a page with no main content (or too little) is read
    // whole, and says so.
    assert_eq!(
        s.flags()[1],
        flags::SHORT | flags::NO_FEATURES | flags::FULL_TEXT
    );
    assert_eq!(s.flags()[2], flags::SHORT | flags::FULL_TEXT);
    // --any-status and --any-content-type let them through.
    let all = dir.path().join("all");
    assert!(
        fingerprint(&[&path], &all, &["--any-status", "--any-content-type"])
            .status
            .success()
    );
    let s = Store::open(&all).unwrap();
    assert_eq!(s.len(), 4, "png and nul are binary; the 404 is admitted");
    assert_eq!(skipped(&s, "binary"), 2);
}

#[test]
fn a_100_mb_page_is_processed() {
    let dir = tempfile::tempdir().unwrap();
    let para = page(9, 200);
    let mut html = String::with_capacity(100 << 20);
    html.push_str("<html><body>");
    while html.len() < 100 << 20 {
        html.push_str(&para);
    }
    let data = gz(&response("urn:huge", "http://huge/", &html));
    drop(html);
    let (s, _, _) = store_from(
        dir.path(),
        "huge.warc.gz",
        &data,
        &["--max-record-size", "128M"],
    );
    assert_eq!(s.len(), 1);
    assert!(s.text_len()[0] > 50 << 20);
    assert!(s.manifest.stats.payload_bytes >= 100 << 20);
}

#[test]
fn unreadable_inputs_fail_the_shard_not_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.warc");
    fs::write(&good, response("urn:g", "", &page(4, 30))).unwrap();
    let missing = dir.path().join("missing.warc");
    let store = dir.path().join("s");
    let out = fingerprint(&[&good, &missing], &store, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("missing.warc"));
    let s = Store::open(&store).unwrap();
    assert_eq!(s.len(), 1);
    assert_eq!(s.manifest.stats.failed_shards.len(), 1);
    // A link inside a walked directory is not followed unless asked (and said so); followed,
    // a dangling one is reported as an unreadable shard.
    #[cfg(unix)]
    {
        let walked = dir.path().join("walked");
        fs::create_dir(&walked).unwrap();
        fs::copy(&good, walked.join("a.warc")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("nowhere"), walked.join("b.warc")).unwrap();
        let out = fingerprint(&[&walked], &store, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("1 symbolic links"),
            "{}",
            stderr(&out)
        );
        let out = fingerprint(&[&walked], &store, &["--follow"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains("b.warc"), "{}", stderr(&out));
        assert_eq!(Store::open(&store).unwrap().len(), 1);
    }
    // Nothing readable at all is an error and writes no store.
    let none = dir.path().join("none");
    let out = fingerprint(&[&missing], &none, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!none.exists());
}

#[test]
fn duplicate_ids_are_kept_flagged_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = response("urn:same", "", &page(1, 30));
    data.extend(response("urn:same", "", &page(2, 30)));
    let path = dir.path().join("dup.warc");
    fs::write(&path, &data).unwrap();
    let store = dir.path().join("s");
    assert!(fingerprint(&[&path], &store, &[]).status.success());
    let s = Store::open(&store).unwrap();
    assert_eq!(s.len(), 2);
    assert_eq!(s.manifest.stats.duplicate_ids, 1);
    assert_eq!(s.flags()[0] & flags::DUPLICATE_ID, 0);
    assert_ne!(s.flags()[1] & flags::DUPLICATE_ID, 0);
}

#[test]
fn malformed_jsonl_lines_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = Vec::new();
    data.extend_from_slice(b"{\"id\": \"j1\", \"text\": \"plain text one two three four five six seven eight nine ten\"}\n");
    data.extend_from_slice(b"not json at all\n");
    data.extend_from_slice(b"{\"id\": \"j2\", \"body\": \"no text field\"}\n");
    data.extend_from_slice(b"[1, 2]\n\n");
    data.extend_from_slice(
        b"{\"id\": 3, \"text\": \"caf\xE9 invalid utf8 but kept\", \"url\": \"http://j/3\"}\n",
    );
    data.extend_from_slice(b"{\"id\": \"j4\", \"text\": \"<html><body><p>html in json</p><script>x</script></body></html>\"}");
    let (s, _, _) = store_from(dir.path(), "docs.jsonl", &data, &[]);
    assert_eq!(ids(&s), ["j1", "3", "j4"]);
    assert_eq!(s.url(1), "http://j/3");
    assert_eq!(skipped(&s, "malformed_json"), 2);
    assert_eq!(skipped(&s, "missing_text"), 1);
    // The HTML in j4 was stripped: "html in json" is 12 bytes of text.
    assert_eq!(s.text_len()[2], 12);
}

/// Records over `--max-record-size` are skipped and counted with their offset in every format
/// (a gzip WARC record, a plain WARC record, a JSON line plain and gzip, an HTML file); the
/// records beside them are kept. Before the limit existed each was read whole.
#[test]
fn records_over_the_size_limit_are_skipped_with_their_offset() {
    let dir = tempfile::tempdir().unwrap();
    let big = format!("<html><body>{}</body></html>", page(3, 400_000));
    assert!(big.len() > 2 << 20);
    let small = response("urn:small", "http://s/", &page(1, 40));
    let huge = response("urn:huge", "http://h/", &big);
    let gz_members = [
        gz(&small),
        gz(&huge),
        gz(&response("urn:after", "", &page(2, 40))),
    ];
    let at = gz_members[0].len();
    let (s, _, out) = store_from(
        dir.path(),
        "a.warc.gz",
        &gz_members.concat(),
        &["--max-record-size", "1M"],
    );
    assert_eq!(ids(&s), ["urn:small", "urn:after"]);
    assert_eq!(skipped(&s, "too_large"), 1);
    assert!(
        stderr(&out).contains(&format!("at byte {at}: too_large")),
        "{}",
        stderr(&out)
    );

    let plain = [small.clone(), huge.clone(), small.clone()].concat();
    let d2 = dir.path().join("plain");
    fs::create_dir(&d2).unwrap();
    let (s, _, out) = store_from(&d2, "b.warc", &plain, &["--max-record-size", "1M"]);
    assert_eq!(s.len(), 2);
    assert_eq!(skipped(&s, "too_large"), 1);
    assert!(
        stderr(&out).contains(&format!("at byte {}", small.len())),
        "{}",
        stderr(&out)
    );

    let line = |id: &str, text: &str| {
        format!(
            "{{\"id\": \"{id}\", \"text\": {}}}\n",
            serde_json::to_string(text).unwrap()
        )
    };
    let jsonl = [
        line("j1", &page(1, 40)),
        line("j2", &big),
        line("j3", &page(2, 40)),
    ]
    .concat();
    for (name, data) in [
        ("c.jsonl", jsonl.clone().into_bytes()),
        ("c.jsonl.gz", gz(jsonl.as_bytes())),
    ] {
        let d = dir.path().join(name.replace('.', "_"));
        fs::create_dir(&d).unwrap();
        let (s, _, _) = store_from(&d, name, &data, &["--max-record-size", "1M"]);
        assert_eq!(ids(&s), ["j1", "j3"], "{name}");
        assert_eq!(skipped(&s, "too_large"), 1, "{name}");
    }

    let d3 = dir.path().join("html");
    fs::create_dir(&d3).unwrap();
    let (s, _, _) = store_from(
        &d3,
        "big.html",
        big.as_bytes(),
        &["--max-record-size", "1M"],
    );
    assert_eq!(s.len(), 0);
    assert_eq!(skipped(&s, "too_large"), 1);
    // The limit is a size with a unit; nonsense is refused before anything is read.
    let out = fingerprint(&[&d3], &dir.path().join("x"), &["--max-record-size", "12Q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown size unit"),
        "{}",
        stderr(&out)
    );
}

/// A damaged member in a gzip-per-record shard costs its own record: reading resumes at the
/// next member, the damage is one `corrupt_gzip` skip with its offset, and the bytes passed
/// over are in the manifest and the summary. Before, the rest of the shard was lost.
#[test]
fn a_corrupt_gzip_member_costs_one_record() {
    let dir = tempfile::tempdir().unwrap();
    let members: Vec<Vec<u8>> = (0..30)
        .map(|i| gz(&response(&format!("urn:m{i:02}"), "", &page(i, 60))))
        .collect();
    let at: usize = members[..12].iter().map(Vec::len).sum();
    let mut data = members.concat();
    for k in 0..4 {
        data[at + members[12].len() / 2 + k] ^= 0xa5;
    }
    let path = dir.path().join("d.warc.gz");
    fs::write(&path, &data).unwrap();
    let store = dir.path().join("s");
    let out = nd("fingerprint {} -o {}", &[&path, &store]).output();
    assert!(out.status.success(), "{}", stderr(&out));
    let s = Store::open(&store).unwrap();
    assert_eq!(s.len(), 29);
    assert!(!ids(&s).contains(&"urn:m12"));
    // Each record's location is its member: offset and compressed length, as index tools
    // fetch it (the length was stored as 0 before a member's records waited for its end).
    let kept = (0..30).filter(|i| *i != 12);
    for (loc, i) in s.source().iter().zip(kept) {
        let offset: usize = members[..i].iter().map(Vec::len).sum();
        assert_eq!(
            (loc.offset, loc.length),
            (offset as u64, members[i].len() as u64)
        );
    }
    assert_eq!(skipped(&s, "corrupt_gzip"), 1);
    assert_eq!(s.manifest.stats.skipped_bytes, members[12].len() as u64);
    let err = stderr(&out);
    assert!(
        err.contains(&format!("at byte {at}: corrupt_gzip")),
        "{err}"
    );
    assert!(
        err.contains("input bytes passed over after damage"),
        "{err}"
    );

    // A damaged member header is reported as such, not as garbage after the last member.
    let mut data = members.concat();
    data[at] = b'X';
    fs::write(&path, &data).unwrap();
    let out = fingerprint(&[&path], &store, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = Store::open(&store).unwrap();
    assert_eq!(s.len(), 29);
    assert_eq!(skipped(&s, "garbage"), 0);
    assert!(
        stderr(&out).contains("do not start a gzip member"),
        "{}",
        stderr(&out)
    );
}

/// An empty file (or a gzip stream of nothing) is an empty shard, counted, not a document
/// named after the file; a document with an empty id is skipped and counted.
#[test]
fn empty_shards_and_empty_ids() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::create_dir(&input).unwrap();
    fs::write(input.join("a.warc.gz"), b"").unwrap();
    fs::write(input.join("b.jsonl.gz"), gz(b"")).unwrap();
    let mut jsonl = format!("{{\"id\": \"\", \"text\": \"{}\"}}\n", page(1, 30));
    jsonl += &format!("{{\"id\": \"  \", \"text\": \"{}\"}}\n", page(2, 30));
    jsonl += &format!("{{\"id\": \"ok\", \"text\": \"{}\"}}\n", page(3, 30));
    fs::write(input.join("c.jsonl"), jsonl).unwrap();
    let mut warc = response("", "", &page(4, 30));
    warc.extend(response("urn:w", "", &page(5, 30)));
    fs::write(input.join("d.warc"), warc).unwrap();
    let store = dir.path().join("s");
    let out = fingerprint(&[&input], &store, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = Store::open(&store).unwrap();
    assert_eq!(ids(&s), ["ok", "urn:w"]);
    assert_eq!(s.manifest.stats.empty_shards, 2);
    assert_eq!(skipped(&s, "empty_id"), 3);
    // Named on the command line, an empty file is the same empty shard.
    let out = fingerprint(&[&input.join("a.warc.gz")], &store, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = Store::open(&store).unwrap();
    assert_eq!(s.len(), 0);
    assert_eq!(s.manifest.stats.empty_shards, 1);
}
