//! From the command line to the library, as ripgrep does it: raw arguments ([`args`], clap),
//! validated into one configuration per command ([`config`]) before anything runs, then one
//! module per command that calls the library and the jobs of [`crate::jobs`] (no command
//! calls another). Nothing here computes; it only wires, reports and maps outcomes to exit
//! codes.

pub mod args;
mod bench;
mod cluster;
pub mod config;
mod dedup;
mod demo;
mod evaluate;
mod explain;
mod export;
mod fingerprint;
mod gpus;
mod info;
mod join;
mod options;
mod output;
mod reuse;
mod sweep;
mod synth;
mod text;
mod trec;
mod verify;
mod write;

use clap::Parser;

pub use args::Cli;

pub use crate::jobs::Outcome;

/// Parses `std::env::args` and runs the command.
pub fn run() -> anyhow::Result<Outcome> {
    // First, so that an interrupt as early as the parsing is already one of ours.
    on_interrupt();
    let cli = Cli::parse();
    run_cli(cli)
}

/// Ctrl-C (or SIGTERM, SIGHUP) removes what this run made and has not finished (temporary
/// files, a store being written, lock files; see `base::interrupt`) and exits with 130, the
/// shell's code for an interrupt. Finished outputs stay; an output being swapped in is swapped
/// first. Installed once per process.
fn on_interrupt() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            let n = crate::base::interrupt::remove_all();
            eprintln!("\ninterrupted: {n} unfinished files removed");
            std::process::exit(130);
        });
    });
}

/// An error and its causes, each said once: a cause whose words the message already holds
/// (an I/O error the library's message quotes, say) is not repeated. What the binary prints
/// after `error: `, and what the Python package raises.
pub fn message(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !msg.contains(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    msg
}

/// Runs a parsed command line.
pub fn run_cli(cli: Cli) -> anyhow::Result<Outcome> {
    on_interrupt();
    execute(cli)
}

/// Runs a parsed command line inside a host process (the Python package): no interrupt
/// handler is installed, so the host keeps its own; everything else is as [`run_cli`].
pub fn execute(cli: Cli) -> anyhow::Result<Outcome> {
    if let Some(n) = cli.threads {
        anyhow::ensure!(n > 0, "--threads must be at least 1");
        // Thousands of workers on a few cores only thrash: at most four per core.
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let cap = 4 * cores;
        if n > cap && !cli.quiet {
            say!("--threads {n}: capped at {cap} (four per core on this machine)");
        }
        // A pool built earlier in this process (tests) keeps its size; that is harmless.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n.min(cap))
            .build_global();
    }
    match cli.command {
        args::Command::Fingerprint(a) => fingerprint::run(a, cli.quiet),
        args::Command::Info(a) => info::run(a),
        args::Command::Report(a) => explain::report(a, cli.quiet),
        args::Command::Explain(a) => explain::run(a),
        args::Command::Export(a) => export::run(a),
        args::Command::Join(a) => join::run(config::join_job(&a)?, cli.quiet),
        args::Command::SynthCrawl(a) => synth::run(a, cli.quiet),
        args::Command::Synth(a) => synth::run_store(a, cli.quiet),
        args::Command::Text(a) => text::run(a, cli.quiet),
        args::Command::Sweep(a) => sweep::run(config::sweep_job(&a)?, cli.quiet),
        args::Command::Cluster(a) => cluster::run(config::cluster_job(&a)?, cli.quiet),
        args::Command::Verify(a) => verify::run(config::verify_job(&a)?, cli.quiet),
        args::Command::Evaluate(a) => evaluate::run(config::evaluate_job(&a)?, cli.quiet),
        args::Command::Dedup(a) => dedup::run((&*a).into(), cli.quiet),
        args::Command::Demo(a) => demo::run(a, cli.quiet),
        args::Command::Write(a) => write::run(config::write_job(&a)?, cli.quiet),
        args::Command::Trec(a) => trec::run(a, cli.quiet),
        args::Command::Reuse(a) => reuse::run(a, cli.quiet),
        args::Command::Substrings(a) => {
            let job = crate::jobs::substrings::SubstringsJob {
                stores: a.stores,
                output: a.output,
                min_tokens: a.min_tokens,
                all_copies: a.all_copies,
                keep: a.keep,
                shard_dir: a.shard_dir,
                top: a.top,
                write_corpus: a.write_corpus,
                memory: a.memory,
                write_tokens: a.write_tokens,
                force: a.force,
                ..Default::default()
            };
            crate::jobs::substrings::substrings(&job, cli.quiet).map(|(_, o)| o)
        }
        args::Command::Gpus(a) => gpus::run(a),
        args::Command::Bench(a) => bench::run(a, cli.quiet),
    }
}
