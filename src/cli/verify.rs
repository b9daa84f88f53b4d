//! `neardup verify`: candidate pairs scored on the documents' text.

use std::time::Instant;

use anyhow::Context;

use super::{output, Outcome};
use crate::jobs::outputs;
use crate::jobs::verify::VerifyJob;
use crate::report::verified;

/// Runs the command: the library's verify job, its pairs printed as TSV.
pub fn run(c: VerifyJob, quiet: bool) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let v = crate::jobs::verify::verify(&c, quiet)?;
    let (stores, sg, read_s) = (v.stores, v.scored, v.seconds);
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
