//! `neardup fingerprint`: validates options, builds the store, prints the summary.

use super::args::FingerprintArgs;
use super::config::build_config;
use super::{pipeline, Outcome};

/// Runs the command.
pub fn run(a: FingerprintArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let cfg = build_config(&a.inputs, &a.output, a.force, &a.opts)?;
    Ok(pipeline::build_store(&cfg, quiet)?.1)
}
