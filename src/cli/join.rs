//! `neardup join`: the library's join job ([`crate::jobs::join`]), its pairs written as TSV.

use anyhow::Context;

use super::{output, Outcome};
use crate::jobs::join::JoinJob;
use crate::report::pairs_tsv;

/// Runs the command: the library's join job, its pairs printed as TSV.
pub fn run(c: JoinJob, quiet: bool) -> anyhow::Result<Outcome> {
    let j = crate::jobs::join::join(&c, quiet)?;
    let mut w = output::create(&c.output)?;
    let n = pairs_tsv::write(&mut w, &j.stores, &j.graph, j.old, c.collapse_exact)
        .with_context(|| format!("cannot write {}", c.output.display()))?;
    w.finish()?;
    if !quiet {
        say!("{n} pairs written to {}", c.output.display());
    }
    Ok(Outcome::Clean)
}
