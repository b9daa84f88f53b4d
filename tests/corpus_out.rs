//! The corpus written out (`dedup --write-corpus`, `write`), Parquet input and typed tables:
//! WARC.gz records copied byte for byte and read back with the same ids and fingerprints,
//! rows that agree with the lists, Parquet input equal to the same documents as JSONL, damaged
//! Parquet reported by file and row group, and what Python's readers (warcio, pyarrow) make
//! of the outputs.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

#[cfg(feature = "parquet")]
use crate::common::neardup;
use crate::common::{export_tsv, fingerprint, gz, jsonl_rows, nd, page, python, response, stderr};
use neardup::fingerprint::store::{Store, StoreSet};

#[cfg_attr(not(feature = "parquet"), allow(dead_code))]
fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample")
}

fn lines(p: &Path) -> Vec<String> {
    fs::read_to_string(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

/// Export rows keyed by id (simhash64, simhash128, text_len).
fn by_id(store: &Path) -> HashMap<String, Vec<String>> {
    export_tsv(store)
        .into_iter()
        .map(|r| (r[0].clone(), vec![r[2].clone(), r[3].clone(), r[4].clone()]))
        .collect()
}

/// Whether python3 can import `modules` (required in CI: NEARDUP_REQUIRE_PYIO).
fn python_has(modules: &str) -> bool {
    crate::common::python_has(modules, "NEARDUP_REQUIRE_PYIO")
}

/// A crawl of every kind of source a WARC.gz corpus copies from: the sample's WARC.gz (one
/// record per member), a WARC.gz whose members hold a request and a response together, a
/// plain WARC, and JSON lines.
fn mixed_crawl(dir: &Path) -> PathBuf {
    let crawl = dir.join("crawl");
    fs::create_dir_all(&crawl).unwrap();
    for e in fs::read_dir(sample()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "gz") {
            fs::copy(&p, crawl.join(p.file_name().unwrap())).unwrap();
        }
    }
    let mut shared = Vec::new();
    for i in 0..3 {
        let request = format!(
            "WARC/1.0\r\nWARC-Type: request\r\nWARC-Record-ID: <urn:req{i}>\r\nContent-Length: 4\r\n\r\nGET \r\n\r\n"
        );
        let mut member = request.into_bytes();
        member.extend(response(
            &format!("urn:shared{i}"),
            &format!("http://shared.example/{i}"),
            &page(9000 + i, 120),
        ));
        shared.extend(gz(&member));
    }
    fs::write(crawl.join("shared.warc.gz"), shared).unwrap();
    let mut plain = Vec::new();
    for i in 0..3 {
        plain.extend(response(
            &format!("urn:plain{i}"),
            &format!("http://plain.example/{i}"),
            &page(9100 + i, 150),
        ));
    }
    fs::write(crawl.join("plain.warc"), plain).unwrap();
    let mut jsonl = String::new();
    for i in 0..2 {
        let doc = serde_json::json!({
            "id": format!("json{i}"),
            "url": format!("http://json.example/{i}"),
            "text": page(9200 + i, 140),
        });
        jsonl.push_str(&format!("{doc}\n"));
    }
    fs::write(crawl.join("docs.jsonl"), jsonl).unwrap();
    crawl
}

#[test]
fn warc_gz_corpus_copies_records_and_reads_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let crawl = mixed_crawl(dir.path());
    let out = dir.path().join("out");
    nd(
        "-q dedup {} -o {} --no-verify --write-corpus warc.gz --shard-size 64K",
        &[&crawl, &out],
    )
    .ok();
    let corpus = out.join("corpus");
    let m = manifest(&corpus);
    let keep = lines(&out.join("keep.txt"));
    assert_eq!(m["documents"].as_u64().unwrap(), keep.len() as u64);
    assert!(m["missing"].as_array().unwrap().is_empty());
    let shards = m["shards"].as_array().unwrap();
    assert!(shards.len() > 2, "64K shards: {}", shards.len());
    let mut all = Vec::new();
    for sh in shards {
        let data = fs::read(corpus.join(sh["name"].as_str().unwrap())).unwrap();
        assert_eq!(data.len() as u64, sh["bytes"].as_u64().unwrap());
        assert!(data.len() <= 64 << 10 || sh["documents"] == 1);
        let n = neardup::write::warc::count_records(&data).unwrap();
        assert_eq!(n, sh["documents"].as_u64().unwrap());
        all.extend(data);
    }
    assert_eq!(m["recompressed"], 6, "{m}");
    assert_eq!(m["built"], 2, "{m}");
    assert_eq!(
        m["copied"].as_u64().unwrap(),
        keep.len() as u64 - 8,
        "every sample record is its own member"
    );
    // Each kept sample record's gzip member is in the output byte for byte.
    let set = StoreSet::open(&[out.join("store")]).unwrap();
    let kept: std::collections::HashSet<&str> = keep.iter().map(String::as_str).collect();
    let mut copied = 0;
    for d in 0..set.len() as u32 {
        let (si, row) = set.position(d);
        let st = &set.stores()[si];
        let loc = st.source()[row];
        let shard = &st.manifest.shards[loc.shard as usize];
        if !kept.contains(set.id(d)) || !shard.path.contains("synth-") {
            continue;
        }
        let bytes = fs::read(&shard.path).unwrap();
        let member = &bytes[loc.offset as usize..(loc.offset + loc.length) as usize];
        assert!(
            memchr::memmem::find(&all, member).is_some(),
            "{} not copied",
            set.id(d)
        );
        copied += 1;
    }
    assert_eq!(copied, m["copied"].as_u64().unwrap());
    // Read back by neardup: the same documents, ids and fingerprints.
    let back = dir.path().join("back");
    let o = fingerprint(&[&corpus], &back, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The corpus manifest is not taken for a document.
    let skipped = &Store::open(&back).unwrap().manifest.stats.skipped;
    assert!(skipped.is_empty(), "{skipped:?}");
    let (orig, again) = (by_id(&out.join("store")), by_id(&back));
    assert_eq!(again.len(), keep.len());
    for id in &keep {
        assert_eq!(again.get(id), orig.get(id), "{id}");
    }
    // And by warcio, record for record.
    if python_has("warcio") {
        let script = r#"
import sys, json
from warcio.archiveiterator import ArchiveIterator
ids = []
for p in sys.argv[1:]:
    with open(p, 'rb') as f:
        for r in ArchiveIterator(f):
            h = r.rec_headers
            ids.append(h.get_header('WARC-TREC-ID') or h.get_header('WARC-Record-ID').strip('<>'))
            r.content_stream().read()
print(json.dumps(ids))
"#;
        let paths: Vec<String> = shards
            .iter()
            .map(|sh| {
                corpus
                    .join(sh["name"].as_str().unwrap())
                    .display()
                    .to_string()
            })
            .collect();
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        let ids: Vec<String> = serde_json::from_str(&python(script, &refs)).unwrap();
        let mut want = keep.clone();
        let mut got = ids;
        want.sort();
        got.sort();
        assert_eq!(got, want);
    }
}

#[cfg(feature = "parquet")]
#[test]
fn row_corpora_agree_with_the_lists_and_write_replays_dedup() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    nd(
        "-q dedup {} -o {} --write-corpus jsonl.gz",
        &[&sample(), &out],
    )
    .ok();
    let rows = jsonl_rows(&out.join("corpus"));
    let keep = lines(&out.join("keep.txt"));
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, keep);
    let clusters: HashMap<String, (String, u64)> = lines(&out.join("clusters.tsv"))
        .iter()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), (f[1].to_string(), f[2].parse().unwrap()))
        })
        .collect();
    let mut removed_for: HashMap<String, u64> = HashMap::new();
    for l in lines(&out.join("remove.tsv")).iter().skip(1) {
        *removed_for
            .entry(l.split('\t').nth(1).unwrap().to_string())
            .or_default() += 1;
    }
    assert!(!removed_for.is_empty());
    for r in &rows {
        let id = r["id"].as_str().unwrap();
        let (rep, size) = &clusters[id];
        assert_eq!(r["cluster_id"].as_str().unwrap(), rep);
        assert_eq!(r["cluster_size"].as_u64().unwrap(), *size);
        assert_eq!(
            r["duplicates"].as_u64().unwrap(),
            removed_for.get(id).copied().unwrap_or(0)
        );
        assert!(r["url"].as_str().unwrap().starts_with("http"));
        assert!(r["text"].as_str().unwrap().len() > 100);
    }
    // `write` from the finished run makes the same shards.
    let w = dir.path().join("w");
    let store = out.join("store");
    let keep_path = out.join("keep.txt");
    let args = |fmt: &'static str, o: &Path| -> Vec<String> {
        [
            "-q",
            "write",
            s(&store),
            "--keep",
            s(&keep_path),
            "--format",
            fmt,
            "-o",
            s(o),
        ]
        .iter()
        .map(|a| a.to_string())
        .collect()
    };
    let run = |a: &[String]| neardup(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let o = run(&args("jsonl.gz", &w));
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        fs::read(w.join("part-00000.jsonl.gz")).unwrap(),
        fs::read(out.join("corpus/part-00000.jsonl.gz")).unwrap()
    );
    // Written once, replaced only when asked.
    let o = run(&args("jsonl.gz", &w));
    assert!(!o.status.success() && stderr(&o).contains("--force"));
    let mut forced = args("parquet", &w);
    forced.push("--force".into());
    let o = run(&forced);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!w.join("part-00000.jsonl.gz").exists() && w.join("part-00000.parquet").exists());
    // A directory with a user's file is refused, and the file stays.
    let mine = dir.path().join("mine");
    fs::create_dir_all(&mine).unwrap();
    fs::write(mine.join("notes.txt"), "mine").unwrap();
    let mut a = args("parquet", &mine);
    a.push("--force".into());
    let o = run(&a);
    assert!(
        !o.status.success() && stderr(&o).contains("notes.txt"),
        "{}",
        stderr(&o)
    );
    assert_eq!(fs::read_to_string(mine.join("notes.txt")).unwrap(), "mine");
    // The Parquet corpus read as input equals the JSONL corpus read as input.
    let (pq, jl) = (dir.path().join("pq"), dir.path().join("jl"));
    for (input, st) in [(&w, &pq), (&out.join("corpus"), &jl)] {
        let o = fingerprint(&[input], st, &["--text-format", "text"]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert_eq!(export_tsv(&pq), export_tsv(&jl));
    assert_eq!(export_tsv(&pq).len(), keep.len());
    if python_has("pyarrow.parquet") {
        let script = r#"
import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
print(t.num_rows)
print(','.join(f'{f.name}:{f.type}:{int(f.nullable)}' for f in t.schema))
"#;
        let o = python(script, &[s(&w.join("part-00000.parquet"))]);
        let l: Vec<&str> = o.lines().collect();
        assert_eq!(l[0], keep.len().to_string());
        assert_eq!(
            l[1],
            "id:string:0,url:string:0,text:string:0,cluster_id:string:0,cluster_size:int64:0,duplicates:int64:0"
        );
    }
}

#[cfg(feature = "parquet")]
mod parquet_in {
    use super::*;
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;

    /// Documents: (id, url, text); every seventh text is null, some texts are plain.
    fn docs() -> Vec<(String, String, Option<String>)> {
        (0..300)
            .map(|i| {
                let text = match i % 7 {
                    0 => None,
                    1 => Some(format!(
                        "plain text document {i}: {}",
                        page(i, 60).replace(['<', '>'], " ")
                    )),
                    _ => Some(page(i % 150, 80 + i % 40)),
                };
                (format!("doc{i}"), format!("https://p.example/{i}"), text)
            })
            .collect()
    }

    fn write_parquet(path: &Path, docs: &[(String, String, Option<String>)], text_type: DataType) {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("url", DataType::Utf8, false),
            Field::new("text", text_type.clone(), true),
        ]));
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
            .set_max_row_group_row_count(Some(64))
            .build();
        let f = fs::File::create(path).unwrap();
        let mut w = ArrowWriter::try_new(f, schema.clone(), Some(props)).unwrap();
        for chunk in docs.chunks(50) {
            let text: ArrayRef = match text_type {
                DataType::Utf8 => Arc::new(StringArray::from(
                    chunk.iter().map(|d| d.2.clone()).collect::<Vec<_>>(),
                )),
                _ => Arc::new(Int64Array::from(
                    chunk
                        .iter()
                        .map(|d| d.2.as_ref().map(|t| t.len() as i64))
                        .collect::<Vec<_>>(),
                )),
            };
            let batch = RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(StringArray::from_iter_values(
                        chunk.iter().map(|d| d.0.as_str()),
                    )),
                    Arc::new(StringArray::from_iter_values(
                        chunk.iter().map(|d| d.1.as_str()),
                    )),
                    text,
                ],
            )
            .unwrap();
            w.write(&batch).unwrap();
        }
        w.close().unwrap();
    }

    fn skipped(store: &Path, reason: &str) -> u64 {
        let s = Store::open(store).unwrap();
        s.manifest.stats.skipped.get(reason).copied().unwrap_or(0)
    }

    #[test]
    fn parquet_input_equals_the_same_documents_as_jsonl() {
        let dir = tempfile::tempdir().unwrap();
        let d = docs();
        let pq_path = dir.path().join("docs.parquet");
        write_parquet(&pq_path, &d, DataType::Utf8);
        let mut jsonl = String::new();
        for (id, url, text) in &d {
            let mut o = serde_json::json!({"id": id, "url": url});
            if let Some(t) = text {
                o["text"] = t.clone().into();
            }
            jsonl.push_str(&format!("{o}\n"));
        }
        let jl_path = dir.path().join("docs.jsonl");
        fs::write(&jl_path, jsonl).unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        for (input, st) in [(&pq_path, &a), (&jl_path, &b)] {
            let o = fingerprint(&[input], st, &["--minhash"]);
            assert!(o.status.success(), "{}", stderr(&o));
        }
        let (ea, eb) = (export_tsv(&a), export_tsv(&b));
        assert_eq!(ea.len(), 300 - 43);
        assert_eq!(ea, eb);
        assert_eq!(skipped(&a, "missing_text"), 43);
        assert_eq!(skipped(&b, "missing_text"), 43);
        let (sa, sb) = (Store::open(&a).unwrap(), Store::open(&b).unwrap());
        assert_eq!(sa.minhash(), sb.minhash());
        // Documents are read again from their row groups: verified dedup finds the same pairs
        // and the corpus writer the same texts.
        let (oa, ob) = (dir.path().join("oa"), dir.path().join("ob"));
        for (input, o) in [(&pq_path, &oa), (&jl_path, &ob)] {
            nd("-q dedup {} -o {} --write-corpus jsonl.gz", &[&input, &o]).ok();
        }
        assert_eq!(lines(&oa.join("remove.tsv")), lines(&ob.join("remove.tsv")));
        assert!(lines(&oa.join("remove.tsv")).len() > 10);
        assert_eq!(
            jsonl_rows(&oa.join("corpus")),
            jsonl_rows(&ob.join("corpus"))
        );
        // And as WARC.gz: resource records of the original payload, read back the same.
        let w = dir.path().join("w");
        nd(
            "-q write {} --keep {} --format warc.gz -o {}",
            &[&oa.join("store"), &oa.join("keep.txt"), &w],
        )
        .ok();
        let back = dir.path().join("back");
        assert!(fingerprint(&[&w], &back, &[]).status.success());
        let orig = by_id(&oa.join("store"));
        for (id, fp) in by_id(&back) {
            assert_eq!(Some(&fp), orig.get(&id), "{id}");
        }
    }

    #[test]
    fn damaged_parquet_is_reported_by_file_and_row_group_and_never_panics() {
        let dir = tempfile::tempdir().unwrap();
        let d = docs();
        let good = dir.path().join("good.parquet");
        write_parquet(&good, &d, DataType::Utf8);
        let bytes = fs::read(&good).unwrap();
        // A row group overwritten: counted and skipped, the other row groups read.
        let meta = parquet::file::serialized_reader::SerializedFileReader::new(
            fs::File::open(&good).unwrap(),
        )
        .unwrap();
        use parquet::file::reader::FileReader;
        let rg = meta.metadata().row_group(1);
        let start = rg.columns().iter().map(|c| c.byte_range().0).min().unwrap() as usize;
        let end = rg
            .columns()
            .iter()
            .map(|c| c.byte_range().0 + c.byte_range().1)
            .max()
            .unwrap() as usize;
        let rows_in_1 = (64..128).filter(|i| i % 7 != 0).count();
        let mut bad = bytes.clone();
        bad[start..end].fill(0xFF);
        let bad_path = dir.path().join("bad-rowgroup.parquet");
        fs::write(&bad_path, &bad).unwrap();
        let st = dir.path().join("s1");
        let o = nd("fingerprint {} -o {}", &[&bad_path, &st]).output();
        assert!(o.status.success(), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("bad-rowgroup.parquet") && err.contains("row group 1"),
            "{err}"
        );
        assert_eq!(skipped(&st, "corrupt_parquet"), 1);
        assert_eq!(Store::open(&st).unwrap().len(), 300 - 43 - rows_in_1);
        // A cut footer, a text column of the wrong type, a missing column: errors naming the
        // file (and the column), never a panic; other inputs are still read.
        let cut = dir.path().join("cut.parquet");
        fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let typed = dir.path().join("typed.parquet");
        write_parquet(&typed, &d, DataType::Int64);
        for (input, extra, want) in [
            (&cut, vec![], "Parquet"),
            (&typed, vec![], "column \"text\" of type Int64"),
            (&good, vec!["--text-field", "body"], "no column \"body\""),
        ] {
            let st = dir.path().join("s2");
            let o = fingerprint(&[input, &good], &st, &extra);
            let err = stderr(&o);
            assert_ne!(o.status.code(), Some(101), "panicked: {err}");
            let name = input.file_name().unwrap().to_str().unwrap();
            assert!(err.contains(name) && err.contains(want), "{err}");
        }
    }
}

#[cfg(feature = "parquet")]
#[test]
fn typed_tables_hold_the_tsv_rows() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    nd(
        "-q dedup {} -o {} --tables jsonl,parquet",
        &[&sample(), &out],
    )
    .ok();
    for (tsv, stem, header) in [
        ("clusters.tsv", "clusters", true),
        ("keep.txt", "keep", false),
        ("remove.tsv", "remove", true),
        ("sweep.tsv", "sweep", true),
        ("sites.tsv", "sites", true),
    ] {
        let t = lines(&out.join(tsv));
        let rows: Vec<serde_json::Value> = lines(&out.join(format!("{stem}.jsonl")))
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let body = if header { &t[1..] } else { &t[..] };
        assert_eq!(rows.len(), body.len(), "{stem}");
        // Every field equal to the TSV's, typed.
        let names: Vec<String> = if header {
            t[0].split('\t').map(str::to_string).collect()
        } else {
            vec!["id".into()]
        };
        for (r, l) in rows.iter().zip(body) {
            for (name, f) in names.iter().zip(l.split('\t')) {
                let v = &r[name.as_str()];
                let same = match v {
                    serde_json::Value::String(x) => x == f,
                    serde_json::Value::Null => f == "-" || f.is_empty(),
                    serde_json::Value::Number(n) => {
                        n.as_f64().unwrap() == f.parse::<f64>().unwrap()
                    }
                    _ => false,
                };
                assert!(same, "{stem}.{name}: {v} against {f:?}");
            }
        }
        assert!(out.join(format!("{stem}.parquet")).is_file());
    }
    let summary = crate::common::summary_json(&out);
    assert_eq!(summary["tables"].as_array().unwrap().len(), 14);
    if python_has("pyarrow.parquet") {
        let script = r#"
import sys, pyarrow.parquet as pq
for p in sys.argv[1:]:
    t = pq.read_table(p)
    print(t.num_rows, ','.join(f'{f.name}:{f.type}' for f in t.schema))
"#;
        let o = python(
            script,
            &[
                s(&out.join("remove.parquet")),
                s(&out.join("pairs.parquet")),
            ],
        );
        let l: Vec<&str> = o.lines().collect();
        let removed = lines(&out.join("remove.tsv")).len() - 1;
        assert_eq!(
            l[0],
            format!("{removed} id:string,kept:string,hamming64:int64,score:double")
        );
        assert!(
            l[1].ends_with("id_a:string,id_b:string,hamming64:int64,hamming128:int64"),
            "{}",
            l[1]
        );
    }
}

/// The typed pairs equal `neardup join`'s TSV row for row, and each Parquet table holds the
/// same rows as its JSON lines twin.
#[cfg(feature = "parquet")]
#[test]
fn typed_pairs_equal_the_join_and_parquet_equals_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    assert!(fingerprint(&[&sample()], &store, &[]).status.success());
    let out = dir.path().join("out");
    nd(
        "-q dedup {} --no-verify --tau 3 -o {} --tables jsonl,parquet",
        &[&store, &out],
    )
    .ok();
    let tsv = dir.path().join("pairs.tsv");
    nd("-q join {} --tau 3 -o {}", &[&store, &tsv]).ok();
    let t = lines(&tsv);
    let rows = lines(&out.join("pairs.jsonl"));
    assert!(t.len() > 2, "the sample should have pairs");
    assert_eq!(rows.len(), t.len() - 1);
    for (r, l) in rows.iter().zip(&t[1..]) {
        let r: serde_json::Value = serde_json::from_str(r).unwrap();
        let f: Vec<&str> = l.split('\t').collect();
        assert_eq!(r["id_a"], f[0]);
        assert_eq!(r["id_b"], f[1]);
        assert_eq!(r["hamming64"].to_string(), f[2]);
        assert_eq!(r["hamming128"].to_string(), f[3]);
    }
    if python_has("pyarrow.parquet") {
        let script = r#"
import json, sys, pyarrow.parquet as pq
d = sys.argv[1]
for stem in ["clusters", "keep", "remove", "excluded", "pairs", "sweep"]:
    a = pq.read_table(f"{d}/{stem}.parquet").to_pylist()
    with open(f"{d}/{stem}.jsonl") as f:
        b = [json.loads(l) for l in f]
    assert a == b, (stem, len(a), len(b), [x for x in zip(a, b) if x[0] != x[1]][:2])
    print(stem, len(a))
"#;
        let o = python(script, &[s(&out)]);
        assert!(o.contains("pairs ") && o.lines().count() == 6, "{o}");
    }
}

/// The default `dedup` keeps only its removals' graph (`pairs.bin`), so its pairs table is that
/// graph's links, in document order: each unit of identical texts as its first member with each
/// other member, each removal edge as its units' first members. Six copies of a page are five
/// rows there, where every pair would be fifteen.
#[test]
fn default_pairs_table_lists_the_removal_graphs_links() {
    use neardup::join::pairs_file;
    use neardup::join::Pair;
    let dir = tempfile::tempdir().unwrap();
    let mut warc = Vec::new();
    let mut add = |n: usize, html: &str| {
        let id = format!("d{n:03}");
        warc.extend(gz(&response(&id, &format!("http://c.example/{n}"), html)));
    };
    let mut n = 0;
    for i in 0..30 {
        add(n, &page(i, 90));
        n += 1;
        // Page 3 six times in all, page 7 three times, page 9 and a near copy of it.
        let copies = [(3, 5), (7, 2)]
            .iter()
            .find(|c| c.0 == i)
            .map_or(0, |c| c.1);
        for _ in 0..copies {
            add(n, &page(i, 90));
            n += 1;
        }
        if i == 9 {
            add(n, &page(i, 90).replace("</p>", " one more word</p>"));
            n += 1;
        }
    }
    let crawl = dir.path().join("c.warc.gz");
    fs::write(&crawl, warc).unwrap();
    let store = dir.path().join("store");
    assert!(fingerprint(&[&crawl], &store, &["--minhash"])
        .status
        .success());
    let out = dir.path().join("out");
    nd("-q dedup {} -o {} --tables jsonl", &[&store, &out]).ok();
    let (g, _) = pairs_file::read(&out.join("pairs.bin")).unwrap();
    let set = StoreSet::open(std::slice::from_ref(&store)).unwrap();
    let mut want: Vec<Pair> = g.unit_links().map(|(a, b)| Pair::new(a, b, 0, 0)).collect();
    want.extend(g.edges.iter().map(|e| {
        let (a, b) = g.edge_link(e);
        Pair::new(a, b, e.d64, e.d128)
    }));
    want.sort_unstable();
    let want: Vec<(String, String, u8, u8)> = want
        .iter()
        .map(|p| {
            let (x, y) = (set.id(p.a).to_string(), set.id(p.b).to_string());
            (x.clone().min(y.clone()), x.max(y), p.d64, p.d128)
        })
        .collect();
    let got: Vec<(String, String, u8, u8)> = lines(&out.join("pairs.jsonl"))
        .iter()
        .map(|l| {
            let r: serde_json::Value = serde_json::from_str(l).unwrap();
            let field = |k: &str| r[k].as_str().unwrap().to_string();
            let int = |k: &str| r[k].as_u64().unwrap() as u8;
            (
                field("id_a"),
                field("id_b"),
                int("hamming64"),
                int("hamming128"),
            )
        })
        .collect();
    assert_eq!(got, want);
    // The copies are units (5 + 2 links), the near copy a removal edge; every pair would be
    // 15 + 3 + 1.
    assert!(got.len() >= 8, "{got:?}");
    assert!(
        g.pair_count() >= got.len() as u64 + 11,
        "{}",
        g.pair_count()
    );
    assert!(
        got.iter().any(|r| r.2 > 0 || r.3 > 0),
        "no removal edge: {got:?}"
    );
}

#[test]
fn labeled_paragraphs_are_dropped_from_the_written_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut warc = Vec::new();
    for i in 0..40 {
        let html = page(i, 90).replace(
            "</p></body>",
            "</p><p>Subscribe to our newsletter for weekly updates</p></body>",
        );
        warc.extend(gz(&response(
            &format!("p{i}"),
            &format!("http://b.example/{i}"),
            &html,
        )));
    }
    let crawl = dir.path().join("c.warc.gz");
    fs::write(&crawl, warc).unwrap();
    let store = dir.path().join("store");
    assert!(fingerprint(&[&crawl], &store, &["--chunks"])
        .status
        .success());
    let reuse = dir.path().join("reuse");
    nd(
        "-q reuse discover {} --min-count 10 -o {}",
        &[&store, &reuse],
    )
    .ok();
    let out = dir.path().join("out");
    nd(
        "-q dedup {} -o {} --no-verify --write-corpus jsonl.gz --drop-labeled-chunks {}",
        &[&store, &out, &reuse],
    )
    .ok();
    let rows = jsonl_rows(&out.join("corpus"));
    assert_eq!(rows.len(), 40);
    for r in &rows {
        let t = r["text"].as_str().unwrap();
        assert!(!t.contains("Subscribe"), "{t}");
        assert!(t.len() > 200);
    }
    assert_eq!(manifest(&out.join("corpus"))["dropped_paragraphs"], 40);
    // WARC.gz copies records as they were: dropping paragraphs there is refused.
    let o = nd(
        "dedup {} -o {} --no-verify --write-corpus warc.gz --drop-labeled-chunks {}",
        &[&store, &dir.path().join("o2"), &reuse],
    )
    .output();
    assert!(!o.status.success() && stderr(&o).contains("jsonl.gz or parquet"));
}
