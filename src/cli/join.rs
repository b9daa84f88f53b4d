//! `neardup join`: loads fingerprints from stores, runs the join, writes pairs as TSV (and,
//! with `--pairs-bin`, the compact binary form later stages reuse).

use std::io::Write;
use std::path::Path;

use super::args::JoinArgs;
use super::output::{self, tsv_field};
use super::{pipeline, Outcome};
use crate::fingerprint::store::Corpus;
use crate::join::graph::PairGraph;

/// Runs the command.
pub fn run(a: JoinArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let mut paths = a.stores.clone();
    let split = paths.len();
    paths.extend(a.against.iter().cloned());
    let corpus = Corpus::open(&paths)?;
    let (g, _, _) = pipeline::join(&corpus, &a.join, a.tau, a.tau128, quiet)?;
    if let Some(bin) = &a.pairs_bin {
        pipeline::write_pairs(bin, &corpus, &g, a.tau, a.tau128)?;
    }
    let cross = (!a.against.is_empty()).then(|| corpus.base(split));
    let n = write_tsv(&corpus, &g, cross, a.collapse_exact, &a.output)?;
    if !quiet {
        eprintln!("{n} pairs written to {}", a.output.display());
    }
    Ok(Outcome::Clean)
}

/// Writes the pairs of `g` as TSV sorted by document index; with `cross`, only pairs with one
/// side below that index and one at or above it; with `collapse`, each group of identical
/// fingerprints as its first member paired with each other member.
fn write_tsv(
    corpus: &Corpus,
    g: &PairGraph,
    cross: Option<u32>,
    collapse: bool,
    path: &Path,
) -> anyhow::Result<u64> {
    let mut pairs = Vec::new();
    let keep = |a: u32, b: u32| cross.is_none_or(|c| (a < c) != (b < c));
    if collapse {
        let link = |(a, b): (u32, u32), d64, d128| crate::join::Pair {
            a: a.min(b),
            b: a.max(b),
            d64,
            d128,
        };
        pairs.extend(g.unit_links().map(|l| link(l, 0, 0)));
        pairs.extend(g.edges.iter().map(|e| link(g.edge_link(e), e.d64, e.d128)));
        pairs.retain(|p| keep(p.a, p.b));
        pairs.sort_unstable();
    } else {
        g.for_each_pair(|p| {
            if keep(p.a, p.b) {
                pairs.push(p);
            }
        });
        rayon::slice::ParallelSliceMut::par_sort_unstable(&mut pairs[..]);
    }
    let mut w = output::create(path)?;
    writeln!(w, "id_a\tid_b\thamming64\thamming128")?;
    for p in &pairs {
        let (x, y) = (tsv_field(corpus.id(p.a)), tsv_field(corpus.id(p.b)));
        let (x, y) = if x <= y { (x, y) } else { (y, x) };
        writeln!(w, "{x}\t{y}\t{}\t{}", p.d64, p.d128)?;
    }
    w.flush()?;
    Ok(pairs.len() as u64)
}
