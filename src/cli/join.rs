//! `neardup join`: loads fingerprints from stores, runs the join, writes pairs as TSV (and,
//! with `--pairs-bin`, the compact binary form later stages reuse).

use anyhow::Context;

use super::config::JoinCommand;
use super::{output, Outcome};
use crate::fingerprint::store::StoreSet;
use crate::jobs::{outputs, steps};
use crate::report::pairs_tsv;

/// Runs the command.
pub fn run(c: JoinCommand, quiet: bool) -> anyhow::Result<Outcome> {
    let stores = StoreSet::open(&c.stores)?;
    let backend = steps::backend(&c.join, quiet)?;
    let g = steps::join(&stores, &c.join, &backend, c.at, quiet)?.graph;
    if let Some(bin) = &c.pairs_bin {
        steps::write_pairs(bin, &stores, &g, c.at, None)?;
    }
    let cross = c.cross.then(|| stores.base(c.split));
    outputs::warn_qualified(&stores);
    let mut w = output::create(&c.output)?;
    let n = pairs_tsv::write(&mut w, &stores, &g, cross, c.collapse_exact)
        .with_context(|| format!("cannot write {}", c.output.display()))?;
    w.finish()?;
    if !quiet {
        say!("{n} pairs written to {}", c.output.display());
    }
    Ok(Outcome::Clean)
}
