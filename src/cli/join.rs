//! `neardup join`: loads fingerprints from stores, runs the CPU join, writes pairs as TSV.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use super::args::{JoinArgs, Method};
use super::output::{self, tsv_field};
use super::Outcome;
use crate::fingerprint::store::{flags, open_many, Store};
use crate::join::{cpu, plan, Pair};

/// The stores of a join, seen as one array of documents.
struct Corpus {
    stores: Vec<Store>,
    /// Global index of each store's first document.
    base: Vec<u32>,
    fp64: Vec<u64>,
    fp128: Vec<[u64; 2]>,
}

impl Corpus {
    fn new(stores: Vec<Store>) -> anyhow::Result<Self> {
        let total: usize = stores.iter().map(Store::len).sum();
        anyhow::ensure!(
            total < u32::MAX as usize,
            "at most 4 billion documents per join"
        );
        let mut base = Vec::new();
        let (mut fp64, mut fp128) = (Vec::with_capacity(total), Vec::with_capacity(total));
        for s in &stores {
            base.push(fp64.len() as u32);
            fp64.extend_from_slice(s.fp64());
            fp128.extend_from_slice(s.fp128());
        }
        Ok(Corpus {
            stores,
            base,
            fp64,
            fp128,
        })
    }

    /// Documents that take part: not short, not featureless.
    fn joinable(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for (s, b) in self.stores.iter().zip(&self.base) {
            for (i, f) in s.flags().iter().enumerate() {
                if f & (flags::SHORT | flags::NO_FEATURES) == 0 {
                    out.push(b + i as u32);
                }
            }
        }
        out
    }

    fn id(&self, doc: u32) -> &str {
        let s = self.base.partition_point(|b| *b <= doc) - 1;
        self.stores[s].id((doc - self.base[s]) as usize)
    }
}

/// Runs the command.
pub fn run(a: JoinArgs, quiet: bool) -> anyhow::Result<Outcome> {
    anyhow::ensure!(a.tau < 32, "--tau must be below 32");
    anyhow::ensure!((1..=64).contains(&a.bits), "--bits must be 1..=64");
    let mut paths = a.stores.clone();
    let split = paths.len();
    paths.extend(a.against.iter().cloned());
    let corpus = Corpus::new(open_many(&paths)?)?;
    let docs = corpus.joinable();
    let plan = match a.method {
        Method::Exact => plan::cheapest_exact(docs.len(), a.tau),
        Method::Random => plan::random(a.bits, a.iterations, a.seed),
    };
    if !quiet {
        eprintln!("plan: {}", plan.name);
        if a.method == Method::Random {
            let recall: Vec<String> = (0..=a.tau)
                .map(|h| format!("{h}: {:.4}", plan::random_recall(a.bits, a.iterations, h)))
                .collect();
            eprintln!("recall by distance: {}", recall.join(", "));
        }
    }
    let started = Instant::now();
    let (mut pairs, stats) = cpu::join(
        &corpus.fp64,
        Some(&corpus.fp128),
        &docs,
        &plan,
        a.tau,
        a.tau128,
    );
    if !a.against.is_empty() {
        let first_other = corpus.base.get(split).copied().unwrap_or(u32::MAX);
        pairs.retain(|p| (p.a < first_other) != (p.b < first_other));
    }
    let secs = started.elapsed().as_secs_f64();
    write_pairs(&corpus, &pairs, &a.output)?;
    if !quiet {
        eprintln!(
            "{} pairs ({} identical) among {} documents ({} distinct fingerprints, {} excluded) in {secs:.2} s; {} comparisons, largest key run {}",
            pairs.len(),
            stats.exact_pairs,
            docs.len(),
            stats.distinct,
            corpus.fp64.len() - docs.len(),
            stats.comparisons,
            stats.largest_run
        );
    }
    Ok(Outcome::Clean)
}

fn write_pairs(corpus: &Corpus, pairs: &[Pair], path: &Path) -> anyhow::Result<()> {
    let mut w = output::create(path)?;
    writeln!(w, "id_a\tid_b\thamming64\thamming128")?;
    for p in pairs {
        let (x, y) = (tsv_field(corpus.id(p.a)), tsv_field(corpus.id(p.b)));
        let (x, y) = if x <= y { (x, y) } else { (y, x) };
        writeln!(w, "{x}\t{y}\t{}\t{}", p.d64, p.d128)?;
    }
    w.flush()?;
    Ok(())
}
