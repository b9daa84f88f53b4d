//! Helpers shared by the integration tests: WARC records, gzip members and running the binary.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

use flate2::write::GzEncoder;
use flate2::Compression;

/// A WARC record with the given version, line ending, extra header lines and block.
pub fn record(version: &str, nl: &str, headers: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    record_with_length(version, nl, headers, block, block.len())
}

/// Like [`record`], with a declared Content-Length that may be wrong.
pub fn record_with_length(
    version: &str,
    nl: &str,
    headers: &[(&str, &str)],
    block: &[u8],
    declared: usize,
) -> Vec<u8> {
    let mut r = format!("{version}{nl}");
    for (k, v) in headers {
        r.push_str(&format!("{k}: {v}{nl}"));
    }
    r.push_str(&format!("Content-Length: {declared}{nl}{nl}"));
    let mut v = r.into_bytes();
    v.extend_from_slice(block);
    v.extend_from_slice(format!("{nl}{nl}").as_bytes());
    v
}

/// A response record (WARC/1.0, CRLF) for an HTTP 200 HTML page.
pub fn response(id: &str, url: &str, html: &str) -> Vec<u8> {
    response_with(id, url, 200, "text/html; charset=utf-8", html.as_bytes())
}

/// A response record with any status, content type and payload bytes.
pub fn response_with(id: &str, url: &str, status: u16, ctype: &str, payload: &[u8]) -> Vec<u8> {
    response_headers(id, url, status, &[("Content-Type", ctype)], payload)
}

/// A response record with any status, HTTP header lines and payload bytes.
pub fn response_headers(
    id: &str,
    url: &str,
    status: u16,
    headers: &[(&str, &str)],
    payload: &[u8],
) -> Vec<u8> {
    let mut block = format!("HTTP/1.1 {status} X\r\n");
    for (k, v) in headers {
        block.push_str(&format!("{k}: {v}\r\n"));
    }
    let mut block = (block + "\r\n").into_bytes();
    block.extend_from_slice(payload);
    record(
        "WARC/1.0",
        "\r\n",
        &[
            ("WARC-Type", "response"),
            ("WARC-Record-ID", &format!("<{id}>")),
            ("WARC-Target-URI", url),
            ("Content-Type", "application/http; msgtype=response"),
        ],
        &block,
    )
}

/// One gzip member holding `data`.
pub fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A page with enough distinct words to pass the short-document threshold.
pub fn page(seed: usize, words: usize) -> String {
    let body: Vec<String> = (0..words)
        .map(|i| format!("w{}x{}", (i * 7919 + seed * 104729) % 5003, i % 13))
        .collect();
    format!("<html><body><p>{}</p></body></html>", body.join(" "))
}

/// A neardup command line for a test, as ripgrep's `TestCommand`: written as one line of
/// words in which each `{}` stands for the next of `values` (paths, or any argument that may
/// hold spaces), so that a scenario reads as the command a user types.
pub struct TestCommand {
    args: Vec<std::ffi::OsString>,
}

/// The command `line`, its `{}` filled from `values` in order.
pub fn nd(line: &str, values: &[&dyn AsRef<std::ffi::OsStr>]) -> TestCommand {
    let mut next = values.iter();
    let args = line
        .split_whitespace()
        .map(|w| match w {
            "{}" => next
                .next()
                .unwrap_or_else(|| panic!("{line}: fewer values than {{}}"))
                .as_ref()
                .to_os_string(),
            w => w.into(),
        })
        .collect();
    assert!(next.next().is_none(), "{line}: more values than {{}}");
    TestCommand { args }
}

impl TestCommand {
    /// One more argument.
    pub fn arg(mut self, a: impl AsRef<std::ffi::OsStr>) -> Self {
        self.args.push(a.as_ref().to_os_string());
        self
    }

    /// Runs it.
    pub fn output(&self) -> Output {
        Command::new(env!("CARGO_BIN_EXE_neardup"))
            .args(&self.args)
            .output()
            .expect("run neardup")
    }

    /// Runs it, requires success, and returns its standard output.
    pub fn ok(&self) -> String {
        let out = self.output();
        assert!(out.status.success(), "{:?}: {}", self.args, stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs it, requires it to fail with exit status 2, and returns its standard error.
    pub fn fails(&self) -> String {
        let out = self.output();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{:?}: {}",
            self.args,
            stderr(&out)
        );
        stderr(&out)
    }
}

/// Runs the binary.
pub fn neardup(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(args)
        .output()
        .expect("run neardup")
}

/// Runs the binary, requires success, and returns its standard output.
pub fn ok(args: &[&str]) -> String {
    let out = neardup(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `neardup fingerprint` on `inputs` into `store` and returns the output.
pub fn fingerprint(inputs: &[&Path], store: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<String> = vec!["fingerprint".into(), "-q".into()];
    args.extend(inputs.iter().map(|p| p.to_string_lossy().into_owned()));
    args.extend([
        "-o".into(),
        store.to_string_lossy().into_owned(),
        "--force".into(),
    ]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    neardup(&refs)
}

/// Exports a store as TSV rows (header dropped), split into fields.
pub fn export_tsv(store: &Path) -> Vec<Vec<String>> {
    let out = neardup(&[
        "export",
        &store.to_string_lossy(),
        "--format",
        "tsv",
        "-o",
        "-",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Whether python3 can import `modules`; when the environment variable `require` is set, it
/// must (CI sets it after installing them), and a test that needs them otherwise says it is
/// skipped.
pub fn python_has(modules: &str, require: &str) -> bool {
    let have = Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        assert!(
            std::env::var_os(require).is_none(),
            "{require} is set but python3 cannot import {modules}"
        );
        eprintln!("python3 cannot import {modules}: skipped");
    }
    have
}

/// Runs a python3 script with arguments, requires success, and returns its standard output.
pub fn python(script: &str, args: &[&str]) -> String {
    let o = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("run python3");
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `data` to `dir/name`, fingerprints it into `dir/s` with `extra` options, checks that
/// the command succeeded and opens the store. Returns the store, the shard path and the output.
pub fn store_from(
    dir: &Path,
    name: &str,
    data: &[u8],
    extra: &[&str],
) -> (
    neardup::fingerprint::store::Store,
    std::path::PathBuf,
    Output,
) {
    let path = dir.join(name);
    std::fs::write(&path, data).unwrap();
    let store = dir.join("s");
    let out = fingerprint(&[&path], &store, extra);
    assert!(out.status.success(), "{}", stderr(&out));
    (
        neardup::fingerprint::store::Store::open(&store).unwrap(),
        path,
        out,
    )
}

/// The ids of a store, in order.
pub fn ids(s: &neardup::fingerprint::store::Store) -> Vec<&str> {
    (0..s.len()).map(|i| s.id(i)).collect()
}

/// 128-bit fingerprints that never separate anything.
pub fn zeros(fp: &[u64]) -> Vec<[u64; 2]> {
    vec![[0; 2]; fp.len()]
}

pub fn planted(n_random: usize, seed: u64) -> (Vec<u64>, Vec<[u64; 2]>) {
    let mut rng = neardup::base::rng::SplitMix64(seed);
    let mut fp = Vec::new();
    for _ in 0..n_random {
        fp.push(rng.next_u64());
    }
    for _ in 0..40 {
        let base = rng.next_u64();
        fp.push(base);
        for d in 0..=10u32 {
            let mut v = base;
            let mut flipped = 0;
            while flipped < d {
                let bit = 1u64 << rng.below(64);
                if v & bit == (base & bit) {
                    v ^= bit;
                    flipped += 1;
                }
            }
            fp.push(v);
        }
    }
    let giant = rng.next_u64();
    fp.extend(std::iter::repeat_n(giant, 300));
    fp.extend((0..64).map(|b| giant ^ (1 << b)));
    let fp128 = fp.iter().map(|v| [*v, rng.next_u64() & 0xFF]).collect();
    (fp, fp128)
}

/// [`runs`], then one run of `long` near copies of one value (staged tiles in the kernel).
#[allow(dead_code)]
pub fn runs_and_a_long_one(seed: u64, n_runs: usize, long: usize) -> (Vec<u64>, Vec<u32>) {
    let (mut vals, mut ends) = runs(seed, n_runs);
    let mut rng = neardup::base::rng::SplitMix64(seed ^ 0x5eed);
    let base = rng.next_u64();
    for _ in 0..long {
        vals.push(base ^ (1 << rng.below(64)) ^ (1 << rng.below(64)));
    }
    ends.extend(std::iter::repeat_n(vals.len() as u32, long));
    (vals, ends)
}

/// Runs of random lengths (some over a tile's rows and span) laid out back to back.
pub fn runs(seed: u64, n_runs: usize) -> (Vec<u64>, Vec<u32>) {
    let mut rng = neardup::base::rng::SplitMix64(seed);
    let (mut vals, mut ends) = (Vec::new(), Vec::new());
    for r in 0..n_runs {
        let len = if r % 7 == 0 {
            2 + rng.below(300)
        } else {
            2 + rng.below(6)
        } as usize;
        let base = rng.next_u64();
        for _ in 0..len {
            // Near copies of a base value, so many pairs are within small tau.
            let mut v = base;
            for _ in 0..rng.below(6) {
                v ^= 1 << rng.below(64);
            }
            vals.push(v);
        }
        ends.extend(std::iter::repeat_n(vals.len() as u32, len));
    }
    (vals, ends)
}

/// The join of `docs` under `plan` at `tau` (and `tau128`) on the CPU, through the library's
/// typed input and spec: document pairs and statistics.
pub fn cpu_join(
    fp64: &[u64],
    fp128: &[[u64; 2]],
    docs: &[u32],
    plan: &neardup::join::plan::Plan,
    tau: u32,
    tau128: Option<u32>,
) -> (Vec<neardup::join::Pair>, neardup::join::JoinStats) {
    let (g, s) = cpu_graph(fp64, fp128, docs, plan, tau, tau128);
    (g.pairs(), s)
}

/// [`cpu_join`] in the compact form.
pub fn cpu_graph(
    fp64: &[u64],
    fp128: &[[u64; 2]],
    docs: &[u32],
    plan: &neardup::join::plan::Plan,
    tau: u32,
    tau128: Option<u32>,
) -> (neardup::join::graph::PairGraph, neardup::join::JoinStats) {
    let spec = neardup::join::JoinSpec::new(plan.clone(), tau, tau128).unwrap();
    let input = neardup::join::JoinInput {
        fp64,
        fp128,
        docs: docs.to_vec(),
    };
    neardup::join::cpu::join_graph(input, &spec)
}

/// A run's output directory's `summary.json`, as JSON (a missing file panics naming it).
pub fn summary_json(out: &Path) -> serde_json::Value {
    let p = out.join("summary.json");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap()
}

/// Every row of every JSONL.gz shard of a corpus directory, in its manifest's order.
pub fn jsonl_rows(dir: &Path) -> Vec<serde_json::Value> {
    use std::io::Read;
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let mut rows = Vec::new();
    for sh in m["shards"].as_array().unwrap() {
        let data = std::fs::read(dir.join(sh["name"].as_str().unwrap())).unwrap();
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(&data[..])
            .read_to_string(&mut text)
            .unwrap();
        rows.extend(text.lines().map(|l| serde_json::from_str(l).unwrap()));
    }
    rows
}

/// The names and bytes of every file under `dir`.
pub fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Runs `args`, requires it to be refused (exit status 2) with `why` in the message.
pub fn refused(args: &[&str], why: &str) {
    let o = neardup(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
    assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
}
