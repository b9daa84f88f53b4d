//! `neardup dedup`: the main job, [`pipeline::dedup`], on validated arguments.

use super::config::DedupCommand;
use super::{pipeline, Outcome};

/// Runs the command.
pub fn run(c: DedupCommand, quiet: bool) -> anyhow::Result<Outcome> {
    Ok(pipeline::dedup(&c, quiet)?.outcome)
}
