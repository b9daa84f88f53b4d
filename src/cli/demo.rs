//! `neardup demo`: writes a synthetic crawl with planted duplicates, runs the `dedup` job on it, and
//! prints the sweep with the precision and recall of the reported pairs against the truth.

use std::path::PathBuf;
use std::time::Instant;

use super::args::DemoArgs;
use super::config::DedupCommand;
use super::{pipeline, Outcome};
use crate::report::score::score;
use crate::synth::{write_crawl, SynthConfig};

/// Removes the demo's temporary directory however the run ends.
struct TempDir(Option<PathBuf>);

impl Drop for TempDir {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

/// Runs the command.
pub fn run(a: DemoArgs, quiet: bool) -> anyhow::Result<Outcome> {
    anyhow::ensure!(a.docs > 0, "--docs must be at least 1");
    let (dir, _cleanup) = match &a.output {
        Some(d) => (d.clone(), TempDir(None)),
        None => {
            let d = std::env::temp_dir().join(format!("neardup-demo-{}", std::process::id()));
            (d.clone(), TempDir(Some(d)))
        }
    };
    let started = Instant::now();
    let crawl = dir.join("crawl");
    let cfg = SynthConfig {
        docs: a.docs,
        shards: 4,
        seed: a.crawl_seed,
        ..SynthConfig::default()
    };
    let (_, truth) = write_crawl(&crawl, &cfg)?;
    if !quiet {
        eprintln!(
            "synthetic crawl: {} pages ({:.1} MB of HTML) in 4 WARC.gz shards, {:.1} s",
            truth.ids.len(),
            truth.html_bytes as f64 / 1e6,
            started.elapsed().as_secs_f64()
        );
    }
    // `dedup` with its defaults, as a user would type it.
    let cfg = DedupCommand::defaults(vec![crawl], dir.join("out"), a.tau, a.tau_max)?;
    let run = pipeline::dedup(&cfg, quiet)?;
    let scores = score(&run.graph, |d| run.stores.id(d), &truth, a.tau_max);
    println!(
        "\nneardup demo: {} synthetic pages, planted exact copies and one-paragraph mutations",
        truth.ids.len()
    );
    println!(
        "{:>4} {:>9} {:>8} {:>11} {:>10} {:>10} {:>8} {:>12} {:>15}",
        "tau",
        "kept",
        "kept %",
        "max cluster",
        "pairs",
        "precision",
        "recall",
        "copies found",
        "mutations found"
    );
    for (l, s) in run.levels.iter().zip(&scores) {
        println!(
            "{:>4} {:>9} {:>8.2} {:>11} {:>10} {:>10.4} {:>8.4} {:>12.4} {:>15.4}",
            l.tau,
            l.docs_kept,
            100.0 * l.kept_ratio,
            l.max_cluster,
            l.pairs,
            s.precision,
            s.recall,
            s.copy_recall,
            s.mutation_recall
        );
    }
    let truth_pairs = scores.first().map_or(0, |s| s.truth);
    println!(
        "{truth_pairs} true pairs planted (every two pages descending from one original, however\n\
         many mutations apart); 'found' columns: pages paired with the page they were made from.\n\
         Whole run {:.1} s",
        started.elapsed().as_secs_f64()
    );
    match &a.output {
        Some(d) => println!("crawl and outputs kept in {}", d.display()),
        None => println!("(temporary files removed; pass -o DIR to keep them)"),
    }
    Ok(run.outcome)
}
