//! `neardup demo`: writes a synthetic crawl with planted duplicates, runs the `dedup` job on it, and
//! prints the sweep with the precision and recall of the pairs, SimHash candidates and verified
//! pairs apart, against the planted truth and against S3 >= 0.82 truth on a sample of pages.

use std::path::PathBuf;
use std::time::Instant;

use super::args::DemoArgs;
use super::Outcome;
use crate::jobs::options::{Candidates, DedupOptions};
use crate::jobs::spec::{DedupSpec, VERIFIED_TAU};
use crate::report::score::score;
use crate::synth::{write_crawl, SynthConfig};
use crate::verify::evaluate;

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
        say!(
            "synthetic crawl: {} pages ({:.1} MB of HTML) in 4 WARC.gz shards, {:.1} s",
            truth.ids.len(),
            truth.html_bytes as f64 / 1e6,
            started.elapsed().as_secs_f64()
        );
    }
    // `dedup` with its defaults, as a user would type it.
    let cfg = DedupSpec::new(&DedupOptions {
        inputs: vec![crawl],
        output: dir.join("out"),
        force: true,
        candidates: Some(Candidates::Simhash),
        tau: Some(a.tau.unwrap_or(VERIFIED_TAU)),
        tau_max: a.tau_max,
        ..DedupOptions::default()
    })?;
    let run = crate::jobs::dedup::dedup(&cfg, quiet)?;
    let max = cfg.tau_max;
    let verified = score(&run.graph, |d| run.stores.id(d), &truth, max);
    // The demo's default lists its SimHash candidates; the graph clustered stands in otherwise.
    let listed = run.candidates.as_ref().unwrap_or(&run.graph);
    let candidates = score(listed, |d| run.stores.id(d), &truth, max);
    // S3 truth on a sample: every pair of the sample compared on its text.
    let spec = cfg
        .verify
        .as_ref()
        .map(|v| v.spec.clone())
        .unwrap_or_default();
    let docs = evaluate::sample(&run.stores, Some(a.truth_sample), 1);
    let s3 = evaluate::evaluate(&run.stores, &docs, &spec, max)?;
    println!(
        "\nneardup demo: {} synthetic pages, planted exact copies and one-paragraph mutations",
        truth.ids.len()
    );
    println!(
        "\nAgainst the planted truth (pairs of pages descending from one original): SimHash\ncandidates within tau, then those verified (S3 >= {} on word {}-grams):",
        spec.min, spec.k
    );
    println!(
        "{:>4} {:>9} {:>8} {:>11} | {:>10} {:>9} {:>7} | {:>10} {:>9} {:>7} {:>7} {:>9}",
        "tau",
        "kept",
        "kept %",
        "max cluster",
        "candidates",
        "precision",
        "recall",
        "verified",
        "precision",
        "recall",
        "copies",
        "mutations"
    );
    for ((l, c), v) in run.levels.iter().zip(&candidates).zip(&verified) {
        println!(
            "{:>4} {:>9} {:>8.2} {:>11} | {:>10} {:>9.4} {:>7.4} | {:>10} {:>9.4} {:>7.4} {:>7.4} {:>9.4}",
            l.tau,
            l.docs_kept,
            100.0 * l.kept_ratio,
            l.max_cluster,
            c.reported,
            c.precision,
            c.recall,
            v.reported,
            v.precision,
            v.recall,
            v.copy_recall,
            v.mutation_recall
        );
    }
    let truth_pairs = verified.first().map_or(0, |s| s.truth);
    println!(
        "{truth_pairs} true pairs planted (every two pages descending from one original, however\n\
         many mutations apart); copies, mutations: verified pages paired with the page they\n\
         were made from."
    );
    println!(
        "\nAgainst S3 >= {} truth on {} pages ({} true pairs among them, found by comparing\n\
         every pair of the sample): SimHash alone, then verified (precision 1 by construction):",
        spec.min, s3.sample, s3.truth
    );
    println!(
        "{:>4} {:>10} {:>9} {:>7} | {:>9} {:>7}",
        "tau", "candidates", "precision", "recall", "precision", "recall"
    );
    for r in &s3.rows {
        println!(
            "{:>4} {:>10} {:>9.4} {:>7.4} | {:>9.4} {:>7.4}",
            r.tau, r.candidates, r.precision, r.recall, 1.0, r.recall
        );
    }
    println!("Whole run {:.1} s", started.elapsed().as_secs_f64());
    match &a.output {
        Some(d) => println!("crawl and outputs kept in {}", d.display()),
        None => println!("(temporary files removed; pass -o DIR to keep them)"),
    }
    Ok(run.outcome)
}
