//! `neardup dedup`: the main job, [`crate::jobs::dedup::dedup`], on the spec made from the
//! command line's arguments; with `--partitions`, its stages split into tasks
//! ([`crate::jobs::split`]).

use super::Outcome;
use crate::jobs::options::DedupOptions;
use crate::jobs::spec::DedupSpec;

/// Runs the command.
pub fn run(o: DedupOptions, quiet: bool) -> anyhow::Result<Outcome> {
    if let Some(n) = o.partitions {
        crate::jobs::split::run_here(&serde_json::to_string(&o)?, n, quiet)?;
        return Ok(Outcome::Clean);
    }
    let c = DedupSpec::new(&o)?;
    Ok(crate::jobs::dedup::dedup(&c, quiet)?.outcome)
}
