//! Input formats, store contents, export formats and reproducibility, through the binary.

use std::fs;
use std::io::Write;

use crate::common::*;
use neardup::fingerprint::store::Store;

#[test]
fn formats_are_detected_by_content_and_agree() {
    let dir = tempfile::tempdir().unwrap();
    let pages: Vec<String> = (0..6).map(|i| page(i, 50)).collect();
    // The same pages as a WARC.gz under a misleading name, a plain WARC, JSONL.gz and files.
    let mut gzdata = Vec::new();
    let mut plain = Vec::new();
    let mut jsonl = String::new();
    let files = dir.path().join("files/sub");
    fs::create_dir_all(&files).unwrap();
    for (i, p) in pages.iter().enumerate() {
        let rec = response(&format!("urn:{i}"), &format!("http://x/{i}"), p);
        gzdata.extend(gz(&rec));
        plain.extend(rec);
        jsonl.push_str(&serde_json::json!({"doc": format!("urn:{i}"), "html": p}).to_string());
        jsonl.push('\n');
        fs::write(files.join(format!("p{i}.html")), p).unwrap();
    }
    fs::write(dir.path().join("files/readme.md"), "not a document").unwrap();
    let a = dir.path().join("shard.dat");
    fs::write(&a, &gzdata).unwrap();
    let b = dir.path().join("shard.warc");
    fs::write(&b, &plain).unwrap();
    let c = dir.path().join("docs.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(jsonl.as_bytes()).unwrap();
    fs::write(&c, enc.finish().unwrap()).unwrap();

    let fps = |inputs: &[&std::path::Path], extra: &[&str]| {
        let store = dir.path().join("s");
        let out = fingerprint(inputs, &store, extra);
        assert!(out.status.success(), "{}", stderr(&out));
        let s = Store::open(&store).unwrap();
        let ids: Vec<String> = (0..s.len()).map(|i| s.id(i).to_string()).collect();
        (ids, s.fp64().to_vec(), s.fp128().to_vec())
    };
    let (ids_a, fa, fa128) = fps(&[&a], &[]);
    assert_eq!(
        ids_a,
        (0..6).map(|i| format!("urn:{i}")).collect::<Vec<_>>()
    );
    let (_, fb, _) = fps(&[&b], &[]);
    let (ids_c, fc, _) = fps(&[&c], &["--id-field", "doc", "--text-field", "html"]);
    let (ids_d, fd, _) = fps(&[&dir.path().join("files")], &[]);
    assert_eq!(fa, fb);
    assert_eq!(fa, fc);
    assert_eq!(fa, fd);
    assert_eq!(ids_c, ids_a);
    assert_eq!(ids_d[0], format!("sub{}p0.html", std::path::MAIN_SEPARATOR));
    // Low half of SimHash-128 is SimHash-64; distinct pages get distinct fingerprints.
    assert!(fa.iter().zip(&fa128).all(|(x, y)| *x == y[0]));
    let mut uniq = fa.clone();
    uniq.sort_unstable();
    uniq.dedup();
    assert_eq!(uniq.len(), 6);
}

#[test]
fn export_tsv_and_u64_match_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = Vec::new();
    for i in 0..10 {
        data.extend(gz(&response(
            &format!("urn:{i}"),
            &format!("http://x/{i}"),
            &page(i, 30),
        )));
    }
    let shard = dir.path().join("x.warc.gz");
    fs::write(&shard, &data).unwrap();
    let store = dir.path().join("s");
    assert!(fingerprint(&[&shard], &store, &[]).status.success());
    let s = Store::open(&store).unwrap();
    let rows = export_tsv(&store);
    assert_eq!(rows.len(), 10);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r[0], s.id(i));
        assert_eq!(r[1], s.url(i));
        assert_eq!(r[2], format!("{:016x}", s.fp64()[i]));
        assert_eq!(r[3].len(), 32);
        assert_eq!(u64::from_str_radix(&r[3][16..], 16).unwrap(), s.fp64()[i]);
        assert_eq!(r[4], s.text_len()[i].to_string());
    }
    let raw = dir.path().join("fps.u64");
    let out = nd("export {} -o {}", &[&store, &raw]).output();
    assert!(out.status.success());
    let bytes = fs::read(&raw).unwrap();
    let got: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(got, s.fp64());
    // Two stores export as one corpus, in order.
    let out = nd("export {} {} -o {}", &[&store, &store, &raw]).output();
    assert!(out.status.success());
    assert_eq!(fs::read(&raw).unwrap().len(), 2 * bytes.len());
    let bad = nd("export {} -o fps.csv", &[&store]).output();
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("--format"));
}

#[test]
fn stores_made_with_different_parameters_are_not_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().join("x.warc");
    fs::write(&shard, response("urn:1", "", &page(1, 30))).unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    assert!(fingerprint(&[&shard], &a, &[]).status.success());
    assert!(fingerprint(&[&shard], &b, &["--ngrams", "1,3"])
        .status
        .success());
    let out = nd("info {} {}", &[&a, &b]).output();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("ngrams") && err.contains("[3, 5]") && err.contains("[1, 3]"),
        "{err}"
    );
    let ok = nd("info {} {}", &[&a, &a]).output();
    assert!(ok.status.success());
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(text.contains("documents: 1"), "{text}");
    // A directory without a manifest is refused with its name.
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let out = nd("info {}", &[&empty]).output();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("manifest.json"));
    // An existing store is not overwritten without --force.
    let out = nd("fingerprint -q {} -o {}", &[&shard, &a]).output();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--force"));
}

#[test]
fn store_is_the_same_for_any_thread_count_and_split() {
    let dir = tempfile::tempdir().unwrap();
    let mut plain = Vec::new();
    for i in 0..300 {
        plain.extend(response(&format!("urn:{i}"), "", &page(i, 25)));
    }
    let shard = dir.path().join("big.warc");
    fs::write(&shard, &plain).unwrap();
    let one = dir.path().join("one");
    let many = dir.path().join("many");
    let out = nd("--threads 1 fingerprint -q {} -o {}", &[&shard, &one]).output();
    assert!(out.status.success());
    // The CLI splits in MiB, too coarse for a test shard; below, the library splits it finely.
    let out = nd(
        "--threads 2 fingerprint -q {} -o {} --split-mib 0",
        &[&shard, &many],
    )
    .output();
    assert!(out.status.success());
    let (a, b) = (Store::open(&one).unwrap(), Store::open(&many).unwrap());
    assert_eq!(a.fp64(), b.fp64());
    assert_eq!(export_tsv(&one), export_tsv(&many));

    use neardup::corpus::{discover, ReadOptions};
    use neardup::fingerprint::build::{build, BuildConfig, Silent};
    let read = ReadOptions {
        split_bytes: 10_000,
        ..ReadOptions::default()
    };
    let found = discover(std::slice::from_ref(&shard), &read);
    assert!(found.units.len() > 10, "{} units", found.units.len());
    let cfg = BuildConfig {
        inputs: vec![shard.clone()],
        output: dir.path().join("split"),
        force: true,
        read,
        params: Default::default(),
        filters: Default::default(),
        minhash: None,
        chunks: false,
        shingles: None,
        keep_field: None,
        early_sets: None,
    };
    let report = build(&cfg, &Silent).unwrap();
    let c = Store::open(&report.path).unwrap();
    assert_eq!(c.fp64(), a.fp64());
    let ids: Vec<&str> = (0..c.len()).map(|i| c.id(i)).collect();
    let want: Vec<String> = (0..300).map(|i| format!("urn:{i}")).collect();
    assert_eq!(ids, want);
}

#[test]
fn fingerprints_are_stable_across_versions() {
    // Fingerprints are persisted: this pins the bits of the default configuration. If it
    // changes, bump `params::HASH_SCHEME` so old and new stores are never mixed.
    let mut f = neardup::fingerprint::Fingerprinter::new(Default::default());
    let fp = f.fingerprint("a rose is a rose is a rose, said the poet of roses in her garden");
    assert_eq!(format!("{:016x}", fp.fp64), PINNED_FP64);
}

#[test]
fn fast_fingerprint_equals_the_plain_reference() {
    use neardup::fingerprint::simhash::reference;
    use neardup::text::features::{for_each_feature, term_hash};
    use neardup::text::tokenize::for_each_term;
    let params = neardup::fingerprint::Params::default();
    let mut f = neardup::fingerprint::Fingerprinter::new(params.clone());
    for i in 0..50 {
        let text = format!("{} Ünïcödé {} and the end", page(i, i * 3), i);
        let mut terms = Vec::new();
        let mut scratch = Vec::new();
        for_each_term(&text, params.tokens, &mut scratch, |t| {
            terms.push(term_hash(t, params.seed))
        });
        let mut feats = Vec::new();
        for_each_feature(&terms, &params.ngrams, params.seed, |h| feats.push(h));
        let fp = f.fingerprint(&text);
        assert_eq!(fp.fp128, reference(&feats), "text {i}");
        assert_eq!(fp.terms as usize, terms.len());
    }
}

const PINNED_FP64: &str = "2a075c6d0c812c80";

#[test]
fn bundled_sample_plants_duplicates_that_fingerprints_find() {
    let dir = tempfile::tempdir().unwrap();
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample");
    let store = dir.path().join("s");
    let out = fingerprint(&[&sample], &store, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let s = Store::open(&store).unwrap();
    let truth = fs::read_to_string(sample.join("truth.tsv")).unwrap();
    let index: std::collections::HashMap<&str, usize> =
        (0..s.len()).map(|i| (s.id(i), i)).collect();
    assert_eq!(index.len(), truth.lines().count() - 1);
    let d = |a: &str, b: &str| (s.fp64()[index[a]] ^ s.fp64()[index[b]]).count_ones();
    let (mut exact, mut near, mut near_dist) = (0, 0, Vec::new());
    for line in truth.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        match f[1] {
            "exact" => {
                exact += 1;
                assert_eq!(d(f[0], f[2]), 0, "{line}");
            }
            "near" => {
                near += 1;
                near_dist.push(d(f[0], f[2]));
            }
            _ => {}
        }
    }
    assert!(exact > 0 && near > 0);
    // One changed paragraph of about ten moves a 64-bit SimHash by a few bits, while unrelated
    // pages differ in about half of them.
    near_dist.sort_unstable();
    let median = near_dist[near_dist.len() / 2];
    assert!(
        median <= 12,
        "median near-duplicate distance {median}: {near_dist:?}"
    );
    let originals: Vec<&str> = truth
        .lines()
        .skip(1)
        .filter(|l| l.contains("\toriginal\t"))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    let mut far = Vec::new();
    for w in originals.windows(2) {
        far.push(d(w[0], w[1]));
    }
    far.sort_unstable();
    assert!(
        far[far.len() / 2] >= 20,
        "unrelated pages too close: {far:?}"
    );
}

#[test]
fn wet_conversion_and_clueweb22_bare_payloads() {
    let dir = tempfile::tempdir().unwrap();
    let text = "plain extracted text of a page with more than ten words in it for sure";
    // WET: conversion records carry text; a warcinfo without Content-Length (ClueWeb22) is
    // passed over by reading up to the next record.
    let mut data =
        b"WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:info>\r\n\r\nsoftware: x\r\n\r\n"
            .to_vec();
    data.extend(record(
        "WARC/1.0",
        "\r\n",
        &[
            ("WARC-Type", "conversion"),
            ("WARC-Record-ID", "<urn:wet1>"),
            ("WARC-Target-URI", "http://wet/1"),
            ("Content-Type", "text/plain"),
        ],
        text.as_bytes(),
    ));
    // ClueWeb22 style: a response whose block is the bare HTML, no HTTP head.
    let html = format!("<html><body><p>{text}</p><script>skip()</script></body></html>");
    data.extend(record(
        "WARC/1.0",
        "\r\n",
        &[
            ("WARC-Type", "response"),
            ("WARC-Record-ID", "<urn:cw22>"),
            ("Content-Type", "text/html"),
        ],
        html.as_bytes(),
    ));
    let (s, _, _) = store_from(dir.path(), "x.warc.wet", &data, &[]);
    assert_eq!(
        (0..s.len()).map(|i| s.id(i)).collect::<Vec<_>>(),
        ["urn:wet1", "urn:cw22"]
    );
    assert_eq!(s.text_len()[0] as usize, text.len());
    // Same words, same fingerprint, whichever the container.
    assert_eq!(s.fp64()[0], s.fp64()[1]);
    assert_eq!(s.content_hash()[0], s.content_hash()[1]);
    assert_eq!(s.manifest.stats.other_records, 1);
}

#[test]
fn english_filter_drops_other_languages() {
    let dir = tempfile::tempdir().unwrap();
    let en = "The committee published its annual report on water quality in the northern \
              rivers, noting that pollution levels had fallen for the third year in a row.";
    let de = "Der Ausschuss veröffentlichte seinen Jahresbericht über die Wasserqualität der \
              nördlichen Flüsse und stellte fest, dass die Belastung das dritte Jahr in Folge sank.";
    let mut data = response("urn:en", "", &format!("<p>{en}</p>"));
    data.extend(response("urn:de", "", &format!("<p>{de}</p>")));
    let path = dir.path().join("lang.warc");
    fs::write(&path, &data).unwrap();
    let store = dir.path().join("s");
    assert!(fingerprint(&[&path], &store, &["--english"])
        .status
        .success());
    let s = Store::open(&store).unwrap();
    assert_eq!(
        (0..s.len()).map(|i| s.id(i)).collect::<Vec<_>>(),
        ["urn:en"]
    );
    assert_eq!(s.manifest.stats.skipped.get("not_english"), Some(&1));
    assert!(s.manifest.filters.english_only);
    assert!(fingerprint(&[&path], &store, &[]).status.success());
    assert_eq!(Store::open(&store).unwrap().len(), 2);
}
