//! `neardup verify`: candidate pairs scored on the documents' text.

use std::time::Instant;

use anyhow::Context;

use super::config::VerifyCommand;
use super::{output, pipeline, Outcome};
use crate::fingerprint::store::StoreSet;
use crate::report::verified;
use crate::verify;

/// Runs the command.
pub fn run(c: VerifyCommand, quiet: bool) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let stores = StoreSet::open(&c.stores)?;
    let (g, _) = pipeline::join_or_load(&stores, c.pairs.as_deref(), &c.join, c.at, quiet)?;
    let g = g.within(c.at.tau, c.at.tau128);
    let read = Instant::now();
    let (scored, stats) = verify::score(&stores, &g, &c.verify)?;
    let read_s = read.elapsed().as_secs_f64();
    pipeline::warn_qualified(&stores);
    let mut w = output::create(&c.output)?;
    let passed = verified::write(&mut w, &stores, &scored, &c.verify)
        .with_context(|| format!("cannot write {}", c.output.display()))?;
    w.finish()?;
    if !quiet {
        eprintln!(
            "verify: {passed} of {} candidate pairs have {} >= {} on word {}-grams; {} documents read again ({:.1} MB of payload, {:.1} MB/s on {} threads) in {:.2} s; written to {}",
            scored.len(),
            c.verify.measure.name(),
            c.verify.min,
            c.verify.k,
            stats.documents,
            stats.payload_bytes as f64 / 1e6,
            stats.payload_bytes as f64 / 1e6 / read_s.max(1e-9),
            rayon::current_num_threads(),
            started.elapsed().as_secs_f64(),
            c.output.display()
        );
    }
    Ok(Outcome::Clean)
}
