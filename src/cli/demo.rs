//! `neardup demo`: writes a synthetic crawl with planted duplicates, runs the default `dedup`
//! job on it (MinHash-LSH, verified, stars) and prints the time of each stage and the removal's
//! precision and recall against the planted truth and against S3 >= 0.82 truth on a sample of
//! pages (every pair compared); then, for context, SimHash candidates per threshold.

use std::path::PathBuf;
use std::time::Instant;

use super::args::DemoArgs;
use super::Outcome;
use crate::jobs::options::{Candidates, DedupOptions};
use crate::jobs::spec::{DedupSpec, VERIFIED_TAU};
use crate::report::score::{self, score};
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
    // The default job first, as `neardup dedup crawl -o out` runs it; the SimHash run of the
    // context, validated before either runs.
    let default = DedupSpec::new(&DedupOptions {
        inputs: vec![crawl.clone()],
        output: dir.join("out"),
        force: true,
        ..DedupOptions::default()
    })?;
    let simhash = DedupSpec::new(&DedupOptions {
        inputs: vec![crawl],
        output: dir.join("out-simhash"),
        force: true,
        candidates: Some(Candidates::Simhash),
        tau: Some(a.tau.unwrap_or(VERIFIED_TAU)),
        tau_max: a.tau_max,
        ..DedupOptions::default()
    })?;
    let run = crate::jobs::dedup::dedup(&default, quiet)?;
    let spec = default
        .verify
        .as_ref()
        .map(|v| v.spec.clone())
        .unwrap_or_default();
    // S3 truth on a sample (every pair of it compared on its text), up to the SimHash sweep's
    // largest threshold.
    let docs = evaluate::sample(&run.stores, Some(a.truth_sample), 1);
    let s3 = evaluate::evaluate(&run.stores, &docs, &spec, simhash.tau_max)?;
    let removed: Vec<(u32, u32)> = run
        .kept
        .iter()
        .enumerate()
        .filter(|(d, k)| **k as usize != *d)
        .map(|(d, k)| (d as u32, *k))
        .collect();
    // The removal against each truth: removed pages that truly duplicate the page they name
    // (precision), and true pairs not left with both pages kept (recall).
    let fam = score::families_of(run.stores.len() as u32, |d| run.stores.id(d), &truth);
    let planted = score::removal(
        &run.kept,
        &removed,
        None,
        &score::planted_pairs(&fam),
        |d, k| fam[d as usize].is_some() && fam[d as usize] == fam[k as usize],
    );
    let in_sample: std::collections::HashSet<u32> = docs.iter().copied().collect();
    let mut read: Vec<u32> = docs.clone();
    read.extend(
        removed
            .iter()
            .filter(|r| in_sample.contains(&r.0))
            .map(|r| r.1),
    );
    read.sort_unstable();
    read.dedup();
    let (sets, _) = crate::verify::shingle_sets(&run.stores, &read, &spec)?;
    let sampled = score::removal(
        &run.kept,
        &removed,
        Some(&in_sample),
        &s3.truth_pairs,
        |d, k| {
            let o = crate::verify::Overlap::of(&sets[&d], &sets[&k]);
            o.score(spec.measure) >= spec.min
        },
    );
    println!(
        "\nneardup demo: {} synthetic pages, planted exact copies and one-paragraph mutations",
        truth.ids.len()
    );
    println!(
        "\nThe default job (`neardup dedup CRAWL -o OUT`): MinHash-LSH candidates, each text verified\n\
         against the kept texts of its candidates (S3 >= {} on word {}-grams), removal by stars:\n\
         {} pages kept, {} removed, each naming the kept page it duplicates.",
        spec.min,
        spec.k,
        run.stores.len() - removed.len(),
        removed.len()
    );
    for stage in &run.stages {
        println!("  {:<30} {:>7.2} s", stage.name, stage.seconds);
    }
    println!(
        "{:>28} | {:>8} {:>8} {:>9} | {:>10} {:>10} {:>7}",
        "removal against", "removed", "correct", "precision", "true pairs", "both kept", "recall"
    );
    for (name, f) in [
        ("the planted truth".to_string(), planted),
        (format!("S3 truth on {} pages", s3.sample), sampled),
    ] {
        println!(
            "{name:>28} | {:>8} {:>8} {:>9.4} | {:>10} {:>10} {:>7.4}",
            f.removed,
            f.correct,
            f.precision(),
            f.pairs,
            f.both_kept,
            f.recall()
        );
    }
    println!(
        "(correct: removed for a page of its own planted family, or one of S3 >= {} with it,\n\
         compared again here; recall: the share of true pairs with a page removed. The planted\n\
         truth pairs every two pages of a family, however many mutations apart; the S3 truth\n\
         compares every pair of a random sample of pages on its text.)",
        spec.min
    );
    // Context: SimHash candidates per threshold, then verified.
    let run = crate::jobs::dedup::dedup(&simhash, true)?;
    let max = simhash.tau_max;
    let verified = score(&run.graph, |d| run.stores.id(d), &truth, max);
    let listed = run.candidates.as_ref().unwrap_or(&run.graph);
    let candidates = score(listed, |d| run.stores.id(d), &truth, max);
    println!("\nFor context, SimHash candidates per threshold (`--candidates simhash`):");
    println!(
        "against the planted truth (pairs of pages descending from one original): SimHash\ncandidates within tau, then those verified (S3 >= {} on word {}-grams):",
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
        Some(d) => println!(
            "crawl and outputs kept in {}; open {} in a browser to see what was removed and why",
            d.display(),
            d.join("out").join(crate::report::page::NAME).display()
        ),
        None => println!(
            "(temporary files removed; pass -o DIR to keep them, and the report page of the run)"
        ),
    }
    Ok(run.outcome)
}
