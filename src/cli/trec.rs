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

/// `trec run`'s job from its arguments.
pub(super) fn run_job(a: &args::TrecRunArgs) -> RunJob {
    RunJob {
        runs: a.runs.clone(),
        groups: groups(&a.groups),
        rule: a.rule,
        output: a.output.clone(),
    }
}

/// `trec qrels`'s job from its arguments.
pub(super) fn qrels_job(a: &args::TrecQrelsArgs) -> QrelsJob {
    QrelsJob {
        qrels: a.qrels.clone(),
        groups: groups(&a.groups),
        output: a.output.clone(),
    }
}

/// `trec inspect`'s job from its arguments.
pub(super) fn inspect_job(a: &args::TrecInspectArgs) -> InspectJob {
    InspectJob {
        files: a.files.clone(),
        store: a.store.clone(),
        top: a.top,
        similarity: (&a.similarity).into(),
        shard_dir: a.shard_dir.clone(),
        output: a.output.clone(),
    }
}

/// `trec transfer`'s job from its arguments.
pub(super) fn transfer_job(a: &args::TrecTransferArgs) -> TransferJob {
    TransferJob {
        qrels: a.qrels.clone(),
        from: a.from.clone(),
        to: a.to.clone(),
        similarity: (&a.similarity).into(),
        shard_dir: a.shard_dir.clone(),
        output: a.output.clone(),
        force: a.force,
    }
}

/// Runs the command.
pub fn run(c: TrecCommand, quiet: bool) -> anyhow::Result<Outcome> {
    match c {
        TrecCommand::Run(a) => trec::runs(run_job(&a), quiet),
        TrecCommand::Qrels(a) => trec::qrels(qrels_job(&a), quiet),
        TrecCommand::Inspect(a) => trec::inspect(inspect_job(&a), quiet),
        TrecCommand::Transfer(a) => trec::transfer(transfer_job(&a), quiet),
    }
}
