//! `neardup evaluate`: the library's evaluate job ([`crate::jobs::evaluate`]), its table
//! printed.

use super::Outcome;
use crate::jobs::evaluate::EvaluateJob;

/// Runs the command.
pub fn run(c: EvaluateJob, quiet: bool) -> anyhow::Result<Outcome> {
    let r = crate::jobs::evaluate::evaluate(&c)?;
    let (e, removal, tsv) = (&r.evaluation, &r.removal, &r.tsv);
    if !quiet {
        say!(
            "evaluate: {} documents, {} pairs compared on their text, {} with {} >= {} (word {}-grams), in {:.1} s",
            e.sample,
            e.compared,
            e.truth,
            c.verify.measure.name(),
            c.verify.min,
            c.verify.k,
            r.seconds
        );
        eprint!("{tsv}");
        if let Some(r) = removal {
            say!(
                "removal: {} removed, {} of them near-duplicates of the document they name (precision {:.4}); the greedy removal over the truth removes {} (recall {:.4})",
                r.removed, r.correct, r.precision, r.greedy_truth_removed, r.recall
            );
        }
    }
    Ok(Outcome::Clean)
}
