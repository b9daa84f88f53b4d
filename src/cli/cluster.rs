//! `neardup cluster`: the library's cluster job ([`crate::jobs::cluster`]) on the spec made
//! from the command line.

use super::Outcome;
use crate::jobs::cluster::ClusterJob;

/// Runs the command.
pub fn run(c: ClusterJob, quiet: bool) -> anyhow::Result<Outcome> {
    crate::jobs::cluster::cluster(&c, quiet)?;
    Ok(Outcome::Clean)
}
