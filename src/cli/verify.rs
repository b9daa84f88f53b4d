//! `neardup verify`: candidate pairs scored on the documents' text.

use std::time::Instant;

use anyhow::Context;

use super::config::VerifyCommand;
use super::{output, Outcome};
use crate::fingerprint::store::StoreSet;
use crate::jobs::{outputs, steps};
use crate::report::verified;
use crate::verify::Compare;

/// Runs the command.
pub fn run(c: VerifyCommand, quiet: bool) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let stores = StoreSet::open(&c.stores)?;
    let loaded = steps::join_or_load(&stores, c.pairs.as_deref(), &c.join, c.at, quiet)?;
    let read = Instant::now();
    let sg = steps::score(&stores, loaded, c.at, &c.verify, Compare::Every, true)?;
    let read_s = read.elapsed().as_secs_f64();
    let pairs = sg.pairs();
    outputs::warn_qualified(&stores);
    let mut w = output::create(&c.output)?;
    let passed = verified::write(&mut w, &stores, &pairs, &c.verify)
        .with_context(|| format!("cannot write {}", c.output.display()))?;
    w.finish()?;
    if !quiet {
        let stats = &sg.stats;
        say!(
            "verify: {passed} of {} candidate pairs have {} >= {} on word {}-grams; {} text comparisons, {} documents read again ({:.1} MB of payload, {:.1} MB/s on {} threads) in {:.2} s; written to {}",
            pairs.len(),
            c.verify.measure.name(),
            c.verify.min,
            c.verify.k,
            sg.compared,
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
