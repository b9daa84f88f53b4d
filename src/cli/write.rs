//! `neardup write`: the library's write job ([`crate::jobs::corpus`]), what it wrote printed.

use super::Outcome;
use crate::jobs::corpus::WriteJob;
use crate::jobs::outputs;

/// Runs the command.
pub fn run(c: WriteJob, quiet: bool) -> anyhow::Result<Outcome> {
    let m = crate::jobs::corpus::write_corpus(&c)?;
    if !quiet {
        outputs::report_corpus(&outputs::corpus_summary(&c.output, &m), &m);
    }
    Ok(if m.missing.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Partial
    })
}
