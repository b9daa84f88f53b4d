//! `neardup dedup`: the main job, [`crate::jobs::dedup::dedup`], on the spec made from the
//! command line's arguments.

use super::Outcome;
use crate::jobs::spec::DedupSpec;

/// Runs the command.
pub fn run(c: DedupSpec, quiet: bool) -> anyhow::Result<Outcome> {
    Ok(crate::jobs::dedup::dedup(&c, quiet)?.outcome)
}
