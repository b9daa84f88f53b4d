//! `neardup trec run|qrels|inspect|transfer`: the library's TREC jobs ([`crate::jobs::trec`])
//! on the specs made from the command line.

use super::args::{self, TrecCommand};
use super::Outcome;
use crate::jobs::trec::{self, GroupOpts, InspectJob, QrelsJob, RunJob, TransferJob};

/// The groups' options.
fn groups(g: &args::GroupOpts) -> GroupOpts {
    GroupOpts {
        clusters: g.clusters.clone(),
        by: g.by,
        force: g.force,
    }
}

/// Runs the command.
pub fn run(c: TrecCommand, quiet: bool) -> anyhow::Result<Outcome> {
    match c {
        TrecCommand::Run(a) => trec::runs(
            RunJob {
                runs: a.runs.clone(),
                groups: groups(&a.groups),
                rule: a.rule,
                output: a.output.clone(),
            },
            quiet,
        ),
        TrecCommand::Qrels(a) => trec::qrels(
            QrelsJob {
                qrels: a.qrels.clone(),
                groups: groups(&a.groups),
                output: a.output.clone(),
            },
            quiet,
        ),
        TrecCommand::Inspect(a) => trec::inspect(
            InspectJob {
                files: a.files.clone(),
                store: a.store.clone(),
                top: a.top,
                similarity: (&a.similarity).into(),
                shard_dir: a.shard_dir.clone(),
                output: a.output.clone(),
            },
            quiet,
        ),
        TrecCommand::Transfer(a) => trec::transfer(
            TransferJob {
                qrels: a.qrels.clone(),
                from: a.from.clone(),
                to: a.to.clone(),
                similarity: (&a.similarity).into(),
                shard_dir: a.shard_dir.clone(),
                output: a.output.clone(),
                force: a.force,
            },
            quiet,
        ),
    }
}
