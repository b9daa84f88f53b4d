//! `neardup sweep`: the library's sweep job ([`crate::jobs::sweep`]) on the spec made from
//! the command line.

use super::Outcome;
use crate::jobs::sweep::SweepJob;

/// Runs the command.
pub fn run(c: SweepJob, quiet: bool) -> anyhow::Result<Outcome> {
    crate::jobs::sweep::sweep(&c, quiet)?;
    Ok(Outcome::Clean)
}
