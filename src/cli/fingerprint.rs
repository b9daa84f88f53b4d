//! `neardup fingerprint`: validates options, builds the store, prints the summary.

use super::args::FingerprintArgs;
use super::Outcome;
use crate::jobs::spec::build_config;
use crate::jobs::steps;

/// Runs the command.
pub fn run(a: FingerprintArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let cfg = build_config(&a.inputs, &a.output, a.force, &(&a.opts).into())?;
    Ok(steps::build_store(&cfg, quiet)?.1)
}
