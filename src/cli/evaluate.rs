//! `neardup evaluate`: precision and recall of SimHash candidates per tau, and of MinHash-LSH
//! candidates, against text-similarity truth on a sample.

use std::time::Instant;

use super::config::EvaluateCommand;
use super::{pipeline, Outcome};
use crate::base::atomic;
use crate::fingerprint::store::StoreSet;
use crate::report::plot;
use crate::verify::evaluate::{self, EvalRow};

/// Runs the command.
pub fn run(c: EvaluateCommand, quiet: bool) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let stores = StoreSet::open(&c.stores)?;
    let _lock = pipeline::out_dir(&c.output)?;
    let docs = evaluate::sample(&stores, c.sample, c.seed);
    let e = evaluate::evaluate(&stores, &docs, &c.verify, c.tau_max)?;
    let mut tsv =
        String::from("method\tthreshold\tcandidates\ttrue_positives\tprecision\trecall\tf1\n");
    let mut row = |method: &str, threshold: String, r: &EvalRow| {
        tsv.push_str(&format!(
            "{method}\t{threshold}\t{}\t{}\t{:.4}\t{:.4}\t{:.4}\n",
            r.candidates, r.true_positives, r.precision, r.recall, r.f1
        ));
    };
    for r in &e.rows {
        row("simhash", r.tau.to_string(), r);
    }
    if let Some(m) = &e.minhash {
        row(
            "minhash",
            format!("{}x{}", m.params.bands, m.params.rows),
            &m.row,
        );
    }
    let json = serde_json::json!({
        "measure": c.verify.measure.name(),
        "min": c.verify.min,
        "shingle": c.verify.k,
        "seed": c.seed,
        "evaluation": &e,
        "seconds": started.elapsed().as_secs_f64(),
    });
    atomic::write(&c.output.join("evaluate.tsv"), tsv.as_bytes())?;
    atomic::write(
        &c.output.join("evaluate.svg"),
        plot::evaluate_svg(&e).as_bytes(),
    )?;
    atomic::write(
        &c.output.join("evaluate.json"),
        (serde_json::to_string_pretty(&json)? + "\n").as_bytes(),
    )?;
    if !quiet {
        eprintln!(
            "evaluate: {} documents, {} pairs compared on their text, {} with {} >= {} (word {}-grams), in {:.1} s",
            e.sample,
            e.compared,
            e.truth,
            c.verify.measure.name(),
            c.verify.min,
            c.verify.k,
            started.elapsed().as_secs_f64()
        );
        eprint!("{tsv}");
    }
    Ok(Outcome::Clean)
}
