//! The steps the jobs share, each once: build a store, plan and run a SimHash join or take
//! MinHash-LSH candidates, load a join from `pairs.bin`, and score candidates on their text.
//! Each prints what it did unless quiet (through [`super::say`]) and returns what it counted
//! for `summary.json`.

use std::path::Path;
use std::time::Instant;

use anyhow::Context;

use super::progress::Bar;
use super::spec::{JoinConfig, Thresholds};
use super::Outcome;
use crate::cluster::leaders::StoreBands;
use crate::fingerprint::build::{build, BuildConfig, BuildReport};
use crate::fingerprint::own::SiteBlocks;
use crate::fingerprint::store::StoreSet;
use crate::join::candidates::CandidateGraph;
use crate::join::canonical::{self, CanonicalStats};
use crate::join::graph::PairGraph;
use crate::join::pairs_file::{self, EdgeScores, JoinParams};
use crate::join::plan::{random_recall, Method};
use crate::join::{self, Backend, JoinInput, JoinOutput, JoinSpec};
use crate::report::skips::skip_summary;
use crate::report::summary::{self, JoinRun};
use crate::verify::{score_graph, text_units, Compare, ScoredGraph, VerifySpec};

/// The fingerprint job's options as a caller gives them (the command line's, by name).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct FingerprintInto {
    /// Crawl files or directories.
    pub inputs: Vec<std::path::PathBuf>,
    /// The store to write.
    pub output: std::path::PathBuf,
    /// Replace a store there.
    pub force: bool,
    /// How documents are read, filtered and fingerprinted.
    #[serde(flatten)]
    pub fingerprint: super::options::FingerprintOptions,
}

impl FingerprintInto {
    /// The build configuration, validated.
    pub fn config(&self) -> anyhow::Result<BuildConfig> {
        super::spec::build_config(&self.inputs, &self.output, self.force, &self.fingerprint)
    }
}

/// Builds a store with a progress bar and prints the summary; shard failures are printed and
/// make the outcome partial.
pub fn build_store(cfg: &BuildConfig, quiet: bool) -> anyhow::Result<(BuildReport, Outcome)> {
    let bar = Bar::new(quiet);
    let started = Instant::now();
    let report = build(cfg, &bar)
        .with_context(|| format!("cannot build the store {}", cfg.output.display()))?;
    bar.finish();
    let secs = started.elapsed().as_secs_f64();
    let s = &report.manifest.stats;
    if !quiet {
        say!(
            "{} documents from {} shards ({:.1} MB) in {secs:.2} s: {:.1} MB/s input, {:.1} MB/s payload, {:.0} docs/s",
            report.manifest.docs,
            report.manifest.shards.len(),
            s.input_bytes as f64 / 1e6,
            s.input_bytes as f64 / 1e6 / secs.max(1e-9),
            s.payload_bytes as f64 / 1e6 / secs.max(1e-9),
            report.manifest.docs as f64 / secs.max(1e-9),
        );
        say!("{}", skip_summary(&report.manifest));
        if !report.ignored.is_empty() {
            say!(
                "{} files in the input directories are not a known format and were ignored (first: {})",
                report.ignored.len(),
                report.ignored[0].display()
            );
        }
        say!("store written to {}", report.path.display());
    }
    for e in &report.failed {
        say_error!("shard not read: {e}");
    }
    let outcome = if report.failed.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Partial
    };
    Ok((report, outcome))
}

/// The join spec for `n` documents at `at`, its plan weighed for `backend`; prints the plan
/// (and a random plan's recall) unless quiet.
pub fn spec(
    cfg: &JoinConfig,
    n: usize,
    at: Thresholds,
    backend: &Backend,
    quiet: bool,
) -> anyhow::Result<JoinSpec> {
    let plan = cfg.plan.plan_for(n, at.tau, backend.table_weight())?;
    if !quiet {
        say!("plan: {}", plan.name);
        if cfg.plan.method == Method::Random {
            let (bits, its) = (cfg.plan.bits, cfg.plan.iterations);
            let recall: Vec<String> = (0..=at.tau)
                .map(|h| format!("{h}: {:.4}", random_recall(bits, its, h)))
                .collect();
            say!("recall by distance: {}", recall.join(", "));
        }
    }
    Ok(JoinSpec::new(plan, at.tau, at.tau128)?)
}

/// Opens the backend `cfg` asks for; says which unless quiet.
pub fn backend(cfg: &JoinConfig, quiet: bool) -> anyhow::Result<Backend> {
    let (b, why) = Backend::open(cfg.backend, cfg.adapter.as_deref())?;
    if !quiet {
        match (&b, why) {
            (Backend::Cpu, Some(why)) => say!("backend: cpu ({why})"),
            (Backend::Gpu { gpu, .. }, _) => {
                let a = gpu.adapter();
                say!(
                    "backend: gpu: {} ({}, {}, {})",
                    a.name,
                    a.backend,
                    a.device_type,
                    a.driver
                );
            }
            _ => {}
        }
    }
    Ok(b)
}

/// Joins the joinable documents of `stores` at `at` on `backend`.
pub fn join(
    stores: &StoreSet,
    cfg: &JoinConfig,
    backend: &Backend,
    at: Thresholds,
    quiet: bool,
) -> anyhow::Result<JoinOutput> {
    let docs = stores.joinable();
    let n = docs.len();
    let spec = spec(cfg, n, at, backend, quiet)?;
    let input = JoinInput {
        fp64: stores.fp64(),
        fp128: stores.fp128(),
        docs,
    };
    let out = join::run(input, &spec, backend)?;
    if !quiet {
        let s = &out.stats;
        say!(
            "join: {} pairs ({} identical) among {n} documents ({} distinct fingerprints, {} excluded) in {:.2} s on {}; {} comparisons, largest key run {}",
            s.pairs,
            s.exact_pairs,
            s.distinct,
            stores.len() - n,
            out.seconds,
            out.backend,
            s.comparisons,
            s.largest_run
        );
    }
    Ok(out)
}

/// How the band keys of `stores` were made: the default candidates need every store to have
/// them, made alike.
pub fn minhash_params(
    stores: &StoreSet,
) -> anyhow::Result<crate::fingerprint::minhash::MinhashParams> {
    stores.minhash_params().ok_or_else(|| {
        anyhow::anyhow!("the stores have no MinHash band keys (or were made with different ones): fingerprint them with --minhash, or choose --candidates simhash")
    })
}

/// The candidate generator, chosen once for a run: the SimHash join (with its plan, backend
/// and thresholds) or MinHash-LSH's runs of equal band keys.
#[derive(Clone, Copy)]
pub enum Generator<'a> {
    /// SimHash pairs within `at`.
    Simhash {
        /// The join's plan.
        join: &'a JoinConfig,
        /// Where it runs.
        backend: &'a Backend,
        /// Its thresholds.
        at: Thresholds,
    },
    /// MinHash-LSH's runs.
    Minhash,
}

/// Candidates generated: one graph, whichever generator made them.
pub struct Generated {
    /// The candidates, canonical classes included when asked.
    pub graph: CandidateGraph,
    /// How the generator ran.
    pub ran: JoinRun,
    /// What the canonical classes added, when asked.
    pub canonical: Option<CanonicalStats>,
}

/// The candidates among the joinable documents of `stores` from `generator`, canonical classes
/// added as groups when `canonical` is set.
pub fn generate(
    stores: &StoreSet,
    generator: Generator,
    canonical: bool,
    own: Option<&SiteBlocks>,
    quiet: bool,
) -> anyhow::Result<Generated> {
    generate_among(stores, &stores.joinable(), generator, canonical, own, quiet)
}

/// [`generate`] with the MinHash runs and canonical classes among the joinable documents
/// `docs` only (ascending; the SimHash join is over every joinable document): what one task
/// of a split run finds among the documents of its components, which are the whole corpus's
/// candidates among them (a component holds every candidate of its documents).
pub fn generate_among(
    stores: &StoreSet,
    docs: &[u32],
    generator: Generator,
    canonical: bool,
    own: Option<&SiteBlocks>,
    quiet: bool,
) -> anyhow::Result<Generated> {
    let (mut graph, mut ran) = match generator {
        Generator::Simhash {
            join: cfg,
            backend,
            at,
        } => {
            let out = join(stores, cfg, backend, at, quiet)?;
            let ran = join_run(&out);
            (CandidateGraph::from_pairs(out.graph), ran)
        }
        Generator::Minhash => {
            let t = Instant::now();
            let p = minhash_params(stores)?;
            let keys = StoreBands::new(stores, p.bands as usize);
            let runs = crate::join::lsh::runs(docs, &keys, stores.fp64(), stores.fp128());
            let ran = JoinRun {
                plan: format!(
                    "minhash-lsh: {} bands of {} rows over word {}-grams",
                    p.bands, p.rows, p.shingle
                ),
                backend: "cpu".into(),
                seconds: t.elapsed().as_secs_f64(),
            };
            if !quiet {
                say!(
                    "candidates: {} runs of equal band keys ({} entries) among {} documents ({} of distinct fingerprints) from {} in {:.2} s",
                    runs.len(),
                    runs.units.len(),
                    docs.len(),
                    runs.unit_count(),
                    ran.plan,
                    ran.seconds
                );
            }
            (CandidateGraph::from_runs(stores.len() as u32, runs), ran)
        }
    };
    let canonical = canonical.then(|| {
        let (classes, with_link) = canonical::classes_among(stores, docs);
        graph.add_document_groups(&classes, canonical::ALL_PAIRS);
        let st = CanonicalStats {
            documents_with_link: with_link,
            classes: classes.len() as u64,
            pairs: classes.iter().map(|c| canonical::class_pairs(c)).sum(),
            new_edges: 0,
        };
        if !quiet {
            say!(
                "      canonical links: {} pages name one; {} classes, each a group of candidates",
                st.documents_with_link,
                st.classes
            );
        }
        st
    });
    if let Some(own) = own {
        // Pages sharing an own line: candidates whatever their site repeats inside them.
        let t = Instant::now();
        let groups = own.own_groups(stores, docs);
        if !quiet {
            say!(
                "      own content: {} groups of pages sharing a line of their own ({} pages) in {:.2} s",
                groups.len(),
                groups.iter().map(Vec::len).sum::<usize>(),
                t.elapsed().as_secs_f64()
            );
        }
        if !groups.is_empty() {
            graph.add_document_groups(&groups, canonical::ALL_PAIRS);
        }
        ran.plan += ", and pages of a host sharing a line of their own";
    }
    Ok(Generated {
        graph,
        ran,
        canonical,
    })
}

/// Every candidate pair of `g` listed (the all-pairs paths): the graph, how the candidates
/// were made (the listing's time included), and the canonical classes' new edges counted.
pub fn listed(
    stores: &StoreSet,
    g: Generated,
    quiet: bool,
) -> (PairGraph, JoinRun, Option<CanonicalStats>) {
    let t = Instant::now();
    let blocks = g.graph.blocks.len();
    let (graph, added) = g.graph.listed(stores.fp64(), stores.fp128());
    let mut ran = g.ran;
    ran.seconds += t.elapsed().as_secs_f64();
    let canonical = g.canonical.map(|mut st| {
        // The canonical classes' blocks are the last two.
        st.new_edges = added[added.len() - 2..].iter().sum();
        st
    });
    if !quiet && blocks > 0 {
        say!(
            "candidates listed: {} pairs ({} identical fingerprints) in {:.2} s{}",
            graph.pair_count(),
            graph.exact_pairs(),
            t.elapsed().as_secs_f64(),
            canonical
                .map(|c| format!(
                    ", {} of them new edges from the {} canonical pairs",
                    c.new_edges, c.pairs
                ))
                .unwrap_or_default()
        );
    }
    (graph, ran, canonical)
}

/// How the join `out` ran, for `summary.json`.
pub fn join_run(out: &JoinOutput) -> JoinRun {
    JoinRun {
        plan: out.plan.clone(),
        backend: out.backend.clone(),
        seconds: out.seconds,
    }
}

/// A join made or read.
pub struct Loaded {
    /// The candidate graph.
    pub graph: PairGraph,
    /// The edge scores `pairs.bin` kept (its units are then texts).
    pub scores: Option<EdgeScores>,
    /// How the join ran, when it ran here.
    pub ran: Option<JoinRun>,
}

/// The join's result: read from `pairs` when given (checked against the stores and the
/// thresholds needed), else computed; with how it ran when computed.
pub fn join_or_load(
    stores: &StoreSet,
    pairs: Option<&Path>,
    cfg: &JoinConfig,
    at: Thresholds,
    quiet: bool,
) -> anyhow::Result<Loaded> {
    let Some(path) = pairs else {
        let out = join(stores, cfg, &backend(cfg, quiet)?, at, quiet)?;
        let ran = join_run(&out);
        return Ok(Loaded {
            graph: out.graph,
            scores: None,
            ran: Some(ran),
        });
    };
    let (g, p, scores) = pairs_file::read_scored(path)?;
    anyhow::ensure!(
        p.corpus_digest == stores.digest() && g.docs as usize == stores.len(),
        "{} was made from other stores than the ones given",
        path.display()
    );
    anyhow::ensure!(
        p.tau >= at.tau,
        "{} holds pairs up to tau {}, {} is needed: join again",
        path.display(),
        p.tau,
        at.tau
    );
    if let Some(have) = p.tau128 {
        anyhow::ensure!(
            at.tau128.is_some_and(|n| n <= have),
            "{} was joined with --tau128 {have}, which drops pairs this run needs",
            path.display()
        );
    }
    if !quiet {
        say!(
            "pairs: {} (tau {}), {} units, {} edges{}",
            path.display(),
            p.tau,
            g.units(),
            g.edges.len(),
            match &scores {
                Some(s) => format!(
                    ", scored on word {}-grams ({} edges not compared)",
                    s.shingle,
                    s.overlaps
                        .iter()
                        .filter(|o| o[0] == pairs_file::NOT_COMPARED)
                        .count()
                ),
                None => String::new(),
            }
        );
    }
    Ok(Loaded {
        graph: g,
        scores,
        ran: None,
    })
}

/// The candidates of `l` within `at`, scored for `spec`: the scores `pairs.bin` kept are
/// reused when they are over the same shingles, and the other pairs compared as `mode` says.
pub fn score(
    stores: &StoreSet,
    l: Loaded,
    at: Thresholds,
    spec: &VerifySpec,
    mode: Compare,
    quiet: bool,
) -> anyhow::Result<ScoredGraph> {
    let started = Instant::now();
    let (g, prior) = match l.scores {
        Some(s) if s.shingle as usize == spec.k => {
            let sg = ScoredGraph::from_file(l.graph, &s);
            (sg.graph, sg.overlaps)
        }
        _ => (text_units(stores, &l.graph, spec), Vec::new()),
    };
    let keep: Vec<bool> = g
        .edges
        .iter()
        .map(|e| e.within(at.tau, at.tau128))
        .collect();
    let prior = if prior.is_empty() {
        prior
    } else {
        prior
            .into_iter()
            .zip(&keep)
            .filter(|x| *x.1)
            .map(|x| x.0)
            .collect()
    };
    let mut g = g;
    let mut k = keep.iter();
    g.edges.retain(|_| *k.next().expect("one flag per edge"));
    let sg = score_graph(stores, g, prior, spec, mode)?;
    if !quiet {
        let c = sg.counts(spec, |_| true);
        say!(
            "verify: {} of {} candidate pairs have {} >= {} on word {}-grams ({} text comparisons{}, {}) in {:.2} s",
            c.verified,
            c.candidates,
            spec.measure.name(),
            spec.min,
            spec.k,
            sg.compared,
            if c.known < c.candidates {
                format!(
                    "; {} pairs not compared, their texts already joined",
                    c.candidates - c.known
                )
            } else {
                String::new()
            },
            sg.stats.describe(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(sg)
}

/// What verification did, for `summary.json`; `started` is when it started.
pub fn verification_summary(
    sg: &ScoredGraph,
    spec: &VerifySpec,
    started: Instant,
) -> summary::VerificationSummary {
    let c = sg.counts(spec, |_| true);
    summary::VerificationSummary {
        measure: spec.measure.name().into(),
        min: spec.min,
        shingle: spec.k,
        candidate_pairs: c.candidates,
        verified_pairs: c.verified,
        not_compared_pairs: c.candidates - c.known,
        comparisons: sg.compared,
        documents_read: sg.stats.documents,
        sets_from_store: sg.stats.kept_sets,
        sets_from_fingerprinting: sg.stats.early_sets,
        payload_bytes: sg.stats.payload_bytes,
        text_bytes: sg.stats.text_bytes,
        seconds: started.elapsed().as_secs_f64(),
        leaders: None,
        own_content: None,
    }
}

/// Writes the join `g` as a pairs file (`pairs.bin`) at `path`, with its edge scores when
/// given (`g` is then a graph of text units).
pub fn write_pairs(
    path: &Path,
    stores: &StoreSet,
    g: &PairGraph,
    at: Thresholds,
    scores: Option<&EdgeScores>,
) -> anyhow::Result<()> {
    let p = JoinParams {
        tau: at.tau,
        tau128: at.tau128,
        corpus_digest: stores.digest(),
    };
    Ok(pairs_file::write_scored(path, g, p, scores)?)
}
