//! `neardup reuse discover|detect|top|experiment|bench`: the library's content-reuse jobs
//! ([`crate::jobs::reuse`]) on the specs made from the command line.

use super::args::{self, ReuseCommand};
use super::Outcome;
use crate::jobs::reuse::{self, BenchJob, DetectJob, DiscoverJob, ExperimentJob, StopOpts, TopJob};

fn stop(o: &args::StopOpts) -> StopOpts {
    StopOpts {
        stop_chunks: o.stop_chunks.clone(),
        no_builtin_stop: o.no_builtin_stop,
    }
}

/// `reuse discover`'s job from its arguments.
pub(super) fn discover_job(a: &args::ReuseDiscoverArgs) -> DiscoverJob {
    DiscoverJob {
        stores: a.stores.clone(),
        output: a.output.clone(),
        min_count: a.min_count,
        auto_stop: a.auto_stop,
        stop_sites: a.stop_sites,
        stop: stop(&a.stop),
        memory: a.memory,
        force: a.force,
    }
}

/// `reuse detect`'s job from its arguments.
pub(super) fn detect_job(a: &args::ReuseDetectArgs) -> DetectJob {
    DetectJob {
        stores: a.stores.clone(),
        labels: a.labels.clone(),
        output: a.output.clone(),
        containment: a.containment,
        badness: a.badness,
        stop: stop(&a.stop),
        force: a.force,
    }
}

/// `reuse top`'s job from its arguments.
pub(super) fn top_job(a: &args::ReuseTopArgs) -> TopJob {
    TopJob {
        stores: a.stores.clone(),
        n: a.n,
        memory: a.memory,
        stop: stop(&a.stop),
    }
}

/// Runs the command.
pub fn run(c: ReuseCommand, quiet: bool) -> anyhow::Result<Outcome> {
    match c {
        ReuseCommand::Discover(a) => reuse::discover(discover_job(&a), quiet),
        ReuseCommand::Detect(a) => reuse::detect(detect_job(&a), quiet),
        ReuseCommand::Top(a) => reuse::top(top_job(&a), quiet),
        ReuseCommand::Experiment(a) => reuse::experiment(ExperimentJob {
            output: a.output.clone(),
            pages: a.pages,
            copies: a.copies,
            min_count: a.min_count,
            runs: a.runs,
            seed: a.seed,
            containment: a.containment,
            badness: a.badness,
        }),
        ReuseCommand::Bench(a) => reuse::bench(BenchJob {
            chunks: a.chunks,
            memory: a.memory,
            min_count: a.min_count,
            seed: a.seed,
        }),
    }
}
