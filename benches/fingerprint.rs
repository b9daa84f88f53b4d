//! Criterion benches for each fingerprinting stage, on a synthetic crawl.
//!
//! Throughput is bytes of HTML payload (the unit of the 150 MB/s-per-core target), except for
//! `read_warc_gz`, which is measured in compressed input bytes, and `band_keys`, in pages. Rerun with
//! `cargo bench --bench fingerprint`; results and the machine go in BENCHMARKS.md.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use neardup::corpus::{self, Document, ReadOptions, Sink, Skip};
use neardup::fingerprint::build::{build, BuildConfig, Silent};
use neardup::fingerprint::minhash::{MinhashParams, Minhasher};
use neardup::fingerprint::store::Filters;
use neardup::fingerprint::{Fingerprinter, Params};
use neardup::synth::{write_crawl, SynthConfig};
use neardup::text::{html, tokenize, TokenOptions};

struct Collect(Vec<Vec<u8>>);

impl Sink for Collect {
    fn document(&mut self, doc: Document<'_>) {
        self.0.push(doc.payload.into_owned());
    }
    fn skip(&mut self, _: Skip, _: u64, _: &str) {}
}

struct Count(u64);

impl Sink for Count {
    fn document(&mut self, doc: Document<'_>) {
        self.0 += doc.payload.len() as u64;
    }
    fn skip(&mut self, _: Skip, _: u64, _: &str) {}
}

fn crawl() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = SynthConfig {
        docs: 2000,
        shards: 1,
        ..SynthConfig::default()
    };
    let (paths, _) = write_crawl(dir.path(), &cfg).expect("synth crawl");
    (dir, paths)
}

fn stages(c: &mut Criterion) {
    let (dir, paths) = crawl();
    let opts = ReadOptions::default();
    let found = corpus::discover(&paths, &opts);
    let mut docs = Collect(Vec::new());
    corpus::read_all(&found.shards, &found.units, &opts, &mut docs);
    let html_bytes: u64 = docs.0.iter().map(|d| d.len() as u64).sum();
    let pages: Vec<String> = docs
        .0
        .iter()
        .map(|d| String::from_utf8_lossy(d).into_owned())
        .collect();
    let texts: Vec<String> = pages
        .iter()
        .map(|p| {
            let mut t = String::new();
            html::to_text(p, &mut t);
            t
        })
        .collect();

    let mut g = c.benchmark_group("fingerprint");
    g.sample_size(10);

    let gz_bytes: u64 = found.shards.iter().map(|s| s.size).sum();
    g.throughput(Throughput::Bytes(gz_bytes));
    g.bench_function("read_warc_gz", |b| {
        b.iter(|| {
            let mut n = Count(0);
            corpus::read_all(&found.shards, &found.units, &opts, &mut n);
            n.0
        })
    });

    g.throughput(Throughput::Bytes(html_bytes));
    g.bench_function("html_to_text", |b| {
        let mut out = String::new();
        b.iter(|| {
            let mut n = 0;
            for p in &pages {
                out.clear();
                html::to_text(p, &mut out);
                n += out.len();
            }
            n
        })
    });
    g.bench_function("terms", |b| {
        let mut scratch = Vec::new();
        b.iter(|| {
            let mut n = 0usize;
            for t in &texts {
                tokenize::for_each_term(t, TokenOptions::default(), &mut scratch, |w| n += w.len());
            }
            n
        })
    });
    g.bench_function("simhash_from_text", |b| {
        let mut f = Fingerprinter::new(Params::default());
        b.iter(|| {
            texts
                .iter()
                .map(|t| f.fingerprint(t).fp64)
                .fold(0, |a, x| a ^ x)
        })
    });
    g.bench_function("end_to_end_1_thread", |b| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("pool");
        let out = dir.path().join("bench.store");
        let cfg = BuildConfig {
            inputs: paths.clone(),
            output: out,
            force: true,
            read: opts.clone(),
            params: Params::default(),
            filters: Filters {
                status_200_only: true,
                html_text_only: true,
                min_terms: 10,
                ..Filters::default()
            },
            minhash: None,
            chunks: false,
            shingles: None,
            keep_field: None,
            early_sets: None,
        };
        b.iter(|| pool.install(|| build(&cfg, &Silent).expect("build").manifest.docs))
    });
    g.finish();
}

/// Band keys (`fingerprint --minhash`, the default's candidates) of pages of 5 to
/// and 2 000 shingles: per page, since a short page pays the 280 bins as a long one does.
fn band_keys(c: &mut Criterion) {
    let params = MinhashParams::default();
    let mut g = c.benchmark_group("band_keys");
    for len in [5usize, 20, 60, 120, 200, 250, 300, 400, 2000] {
        // 256 pages of `len` distinct shingles each (a splitmix stream: any hash values do).
        let mut x = len as u64;
        let pages: Vec<Vec<u64>> = (0..256)
            .map(|_| {
                (0..len)
                    .map(|_| {
                        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
                        let z = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                        z ^ (z >> 27)
                    })
                    .collect()
            })
            .collect();
        g.throughput(Throughput::Elements(pages.len() as u64));
        g.bench_function(format!("sign_{len}_shingles"), |b| {
            let mut m = Minhasher::new(params);
            let mut out = Vec::new();
            b.iter(|| {
                pages.iter().fold(0u64, |a, p| {
                    m.sign(p, &mut out);
                    a ^ out[0]
                })
            })
        });
    }
    g.finish();
}

criterion_group!(benches, stages, band_keys);
criterion_main!(benches);
