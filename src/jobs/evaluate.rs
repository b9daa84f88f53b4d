//! `evaluate`: precision and recall of SimHash candidates per tau, and of MinHash-LSH
//! candidates, against text-similarity truth on a sample (and a remove list's, when given).

use std::path::PathBuf;
use std::time::Instant;

use super::outputs;
use crate::base::atomic;
use crate::fingerprint::store::StoreSet;
use crate::report::plot;
use crate::verify::evaluate::{self, EvalRow, Evaluation, RemovalEval};
use crate::verify::VerifySpec;

/// The `evaluate` job, validated.
#[derive(Clone, Debug)]
pub struct EvaluateJob {
    /// Stores of the corpus.
    pub stores: Vec<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// Documents to sample.
    pub sample: Option<usize>,
    /// Seed of the sample.
    pub seed: u64,
    /// Largest tau.
    pub tau_max: u32,
    /// The truth's definition.
    pub verify: VerifySpec,
    /// A remove list to score: the `remove.tsv` of this directory.
    pub removal: Option<PathBuf>,
}

/// What the evaluation found.
pub struct Evaluated {
    /// The sample's evaluation.
    pub evaluation: Evaluation,
    /// The remove list's, when one was given.
    pub removal: Option<RemovalEval>,
    /// `evaluate.tsv`, as written.
    pub tsv: String,
    /// Seconds it took.
    pub seconds: f64,
}

/// Runs the evaluation and writes `evaluate.tsv`, `.svg` and `.json` into its directory.
pub fn evaluate(c: &EvaluateJob) -> anyhow::Result<Evaluated> {
    let started = Instant::now();
    let stores = StoreSet::open(&c.stores)?;
    let _out = outputs::out_dir(&c.output, &c.stores, "evaluate")?;
    // The remove list is read before the long part, so a bad one fails at once.
    let removed = c
        .removal
        .as_deref()
        .map(|dir| read_removed(&stores, &dir.join(crate::report::lists::REMOVE)))
        .transpose()?;
    let docs = evaluate::sample(&stores, c.sample, c.seed);
    let e = evaluate::evaluate(&stores, &docs, &c.verify, c.tau_max)?;
    let removal = removed.map(|r| {
        let mut rank: Vec<u32> = docs.clone();
        rank.sort_by(|a, b| stores.id(*a).cmp(stores.id(*b)).then(a.cmp(b)));
        evaluate::removal(&docs, &e.truth_pairs, &r, &rank)
    });
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
    let json = evaluate::EvaluateSummary {
        evaluation: &e,
        measure: c.verify.measure.name(),
        min: c.verify.min,
        removal,
        seconds: started.elapsed().as_secs_f64(),
        seed: c.seed,
        shingle: c.verify.k,
    };
    atomic::write(&c.output.join("evaluate.tsv"), tsv.as_bytes())?;
    atomic::write(
        &c.output.join("evaluate.svg"),
        plot::evaluate_svg(&e).as_bytes(),
    )?;
    atomic::write(
        &c.output.join("evaluate.json"),
        (serde_json::to_string_pretty(&json)? + "\n").as_bytes(),
    )?;
    Ok(Evaluated {
        evaluation: e,
        removal,
        tsv,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The remove list at `path`, as (removed, kept) documents of `stores`.
fn read_removed(stores: &StoreSet, path: &std::path::Path) -> anyhow::Result<Vec<(u32, u32)>> {
    let index = super::corpus::ids_of(stores);
    let mut out = Vec::new();
    crate::report::lists::read_remove(path, |r, line| {
        let find = |id: &str| {
            index.get(id).copied().ok_or_else(|| {
                crate::Error::Config(format!(
                    "{}: line {line}: {id} is not a document of the stores given",
                    path.display()
                ))
            })
        };
        out.push((find(&r.id)?, find(&r.kept)?));
        Ok(())
    })?;
    Ok(out)
}
