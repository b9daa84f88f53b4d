//! The stages after fingerprinting as the commands share them: plan and run a join, or load
//! one from `pairs.bin`; sweep thresholds; write clusters and lists. Each writes its files
//! atomically into an output directory and returns what it counted for `summary.json`.

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use serde::Serialize;

use super::args::{Backend, JoinOpts, Method};
use crate::cluster::{clusters_at, sweep, Axis, Clusters, Level, Representative};
use crate::fingerprint::store::Corpus;
use crate::gpu::{Gpu, Selection};
use crate::join::gpu::{GpuConfig, GpuStats};
use crate::join::graph::PairGraph;
use crate::join::pairs_file::{self, JoinParams};
use crate::join::{cpu, plan, JoinStats};
use crate::report::{atomic, lists, plot, table};

/// The plan for a join of `n` documents at `tau`; prints it (and random recall) unless quiet.
pub fn make_plan(o: &JoinOpts, n: usize, tau: u32, quiet: bool) -> anyhow::Result<plan::Plan> {
    anyhow::ensure!(tau < 32, "tau must be below 32");
    anyhow::ensure!((1..=64).contains(&o.bits), "--bits must be 1..=64");
    anyhow::ensure!(o.iterations > 0, "--iterations must be at least 1");
    let p = match (o.method, o.blocks) {
        (Method::Exact, None) => plan::cheapest_exact(n, tau),
        (Method::Exact, Some(m)) => {
            anyhow::ensure!(
                m > tau as usize && m <= 64,
                "--blocks {m}: an exact plan at tau {tau} needs {} to 64 blocks",
                tau + 1
            );
            let tables = plan::binomial(m, tau as usize);
            anyhow::ensure!(
                tables <= plan::MAX_TABLES,
                "--blocks {m}: {tables} tables at tau {tau}, more than {}",
                plan::MAX_TABLES
            );
            plan::pigeonhole(m, tau)
        }
        (Method::Random, Some(_)) => anyhow::bail!("--blocks applies to --method exact only"),
        (Method::Random, None) => plan::random(o.bits, o.iterations, o.seed),
    };
    if !quiet {
        eprintln!("plan: {}", p.name);
        if o.method == Method::Random {
            let recall: Vec<String> = (0..=tau)
                .map(|h| format!("{h}: {:.4}", plan::random_recall(o.bits, o.iterations, h)))
                .collect();
            eprintln!("recall by distance: {}", recall.join(", "));
        }
    }
    Ok(p)
}

/// How a join ran.
#[derive(Clone, Debug, Default)]
pub struct JoinRun {
    /// "cpu", or "gpu (ADAPTER)".
    pub backend: String,
    /// Driver counters on the GPU backend.
    pub gpu: Option<GpuStats>,
    /// Wall time of the join, seconds.
    pub seconds: f64,
}

/// Opens the backend `o` asks for: None is the CPU.
pub fn open_backend(o: &JoinOpts, quiet: bool) -> anyhow::Result<Option<Gpu>> {
    let sel = |allow_software| Selection {
        name: o.adapter.clone(),
        allow_software,
    };
    let gpu = match o.backend {
        Backend::Cpu => None,
        Backend::Gpu => Some(Gpu::open(&sel(true)).context("--backend gpu")?),
        Backend::Auto if o.adapter.is_none() && !crate::gpu::hardware_possible() => {
            if !quiet {
                eprintln!("backend: cpu (no GPU device on this machine; --backend gpu accepts software adapters)");
            }
            None
        }
        Backend::Auto => match Gpu::open(&sel(false)) {
            Ok(g) => Some(g),
            Err(e) => {
                anyhow::ensure!(o.adapter.is_none(), "--adapter: {e}");
                if !quiet {
                    eprintln!("backend: cpu ({e}; --backend gpu accepts software adapters)");
                }
                None
            }
        },
    };
    if let (Some(g), false) = (&gpu, quiet) {
        let a = g.adapter();
        eprintln!(
            "backend: gpu: {} ({}, {}, {})",
            a.name, a.backend, a.device_type, a.driver
        );
    }
    Ok(gpu)
}

/// Joins `docs` on `gpu` (or the CPU when None).
#[allow(clippy::too_many_arguments)]
pub fn run_join(
    gpu: Option<&Gpu>,
    fp64: &[u64],
    fp128: &[[u64; 2]],
    docs: Vec<u32>,
    p: &plan::Plan,
    tau: u32,
    tau128: Option<u32>,
) -> anyhow::Result<(PairGraph, JoinStats, JoinRun)> {
    let started = Instant::now();
    let (g, stats, run) = match gpu {
        None => {
            let (g, s) = cpu::join_graph(fp64, fp128, docs, p, tau, tau128);
            let run = JoinRun {
                backend: "cpu".into(),
                ..JoinRun::default()
            };
            (g, s, run)
        }
        Some(dev) => {
            let (g, s, gs) = crate::join::gpu::join_graph(
                dev,
                &GpuConfig::default(),
                fp64,
                fp128,
                docs,
                p,
                tau,
                tau128,
            )
            .with_context(|| format!("GPU join on {}", dev.adapter().name))?;
            let run = JoinRun {
                backend: format!("gpu ({})", dev.adapter().name),
                gpu: Some(gs),
                ..JoinRun::default()
            };
            (g, s, run)
        }
    };
    Ok((
        g,
        stats,
        JoinRun {
            seconds: started.elapsed().as_secs_f64(),
            ..run
        },
    ))
}

/// Joins the corpus's joinable documents at `tau` (and `tau128`).
pub fn join(
    corpus: &Corpus,
    o: &JoinOpts,
    tau: u32,
    tau128: Option<u32>,
    quiet: bool,
) -> anyhow::Result<(PairGraph, JoinStats, JoinRun)> {
    let docs = corpus.joinable();
    let p = make_plan(o, docs.len(), tau, quiet)?;
    let gpu = open_backend(o, quiet)?;
    let n = docs.len();
    let (g, stats, run) = run_join(
        gpu.as_ref(),
        corpus.fp64(),
        corpus.fp128(),
        docs,
        &p,
        tau,
        tau128,
    )?;
    if !quiet {
        eprintln!(
            "join: {} pairs ({} identical) among {n} documents ({} distinct fingerprints, {} excluded) in {:.2} s on {}; {} comparisons, largest key run {}",
            stats.pairs,
            stats.exact_pairs,
            stats.distinct,
            corpus.len() - n,
            run.seconds,
            run.backend,
            stats.comparisons,
            stats.largest_run
        );
    }
    Ok((g, stats, run))
}

/// The join's result: read from `pairs` when given (checked against the corpus and the
/// thresholds needed), else computed.
pub fn join_or_load(
    corpus: &Corpus,
    pairs: Option<&Path>,
    o: &JoinOpts,
    tau: u32,
    tau128: Option<u32>,
    quiet: bool,
) -> anyhow::Result<PairGraph> {
    let Some(path) = pairs else {
        return Ok(join(corpus, o, tau, tau128, quiet)?.0);
    };
    let (g, p) = pairs_file::read(path)?;
    anyhow::ensure!(
        p.corpus_digest == corpus.digest() && g.docs as usize == corpus.len(),
        "{} was made from other stores than the ones given",
        path.display()
    );
    anyhow::ensure!(
        p.tau >= tau,
        "{} holds pairs up to tau {}, {tau} is needed: join again",
        path.display(),
        p.tau
    );
    if let (Some(have), need) = (p.tau128, tau128) {
        anyhow::ensure!(
            need.is_some_and(|n| n <= have),
            "{} was joined with --tau128 {have}, which drops pairs this run needs",
            path.display()
        );
    }
    if !quiet {
        eprintln!(
            "pairs: {} (tau {}), {} units, {} edges",
            path.display(),
            p.tau,
            g.units(),
            g.edges.len()
        );
    }
    Ok(g)
}

/// Writes the join `g` as a pairs file (`pairs.bin`) at `path`.
pub fn write_pairs(
    path: &Path,
    corpus: &Corpus,
    g: &PairGraph,
    tau: u32,
    tau128: Option<u32>,
) -> anyhow::Result<()> {
    let p = JoinParams {
        tau,
        tau128,
        corpus_digest: corpus.digest(),
    };
    Ok(pairs_file::write(path, g, p)?)
}

/// Sweeps `0..=max` on `axis` and writes the sweep files into `dir`; prints the table unless
/// quiet.
pub fn write_sweep(
    dir: &Path,
    corpus: &Corpus,
    g: &PairGraph,
    axis: Axis,
    max: u32,
    quiet: bool,
) -> anyhow::Result<Vec<Level>> {
    let (levels, _) = sweep(g, axis, max);
    let excluded = (corpus.len() - g.members.len()) as u64;
    let json = table::SweepJson {
        axis: axis.name(),
        tau64: match axis {
            Axis::D64 => None,
            Axis::D128 { tau64 } => Some(tau64),
        },
        documents: corpus.len() as u64,
        excluded,
        levels: &levels,
    };
    let files: [(&str, String); 7] = [
        ("sweep.tsv", table::sweep_tsv(&levels, axis)),
        ("sweep.json", serde_json::to_string_pretty(&json)? + "\n"),
        ("sweep.svg", plot::sweep_svg(&levels, axis)),
        ("distances.tsv", table::distances_tsv(&levels, axis)),
        ("distances.svg", plot::distances_svg(&levels, axis)),
        ("cluster_sizes.tsv", table::cluster_sizes_tsv(&levels, axis)),
        ("cluster_sizes.svg", plot::cluster_sizes_svg(&levels, axis)),
    ];
    for (name, body) in files {
        atomic::write(&dir.join(name), body.as_bytes())?;
    }
    if !quiet {
        eprint!("{}", table::sweep_text(&levels, axis));
        if excluded > 0 {
            eprintln!("({excluded} documents excluded from the join count as kept singletons)");
        }
    }
    Ok(levels)
}

/// Clusters at one threshold and their lists, written into `dir`.
pub fn write_clusters(
    dir: &Path,
    corpus: &Corpus,
    g: &PairGraph,
    tau: u32,
    tau128: Option<u32>,
    rule: Representative,
) -> anyhow::Result<(Clusters, lists::ListCounts)> {
    let dsu = clusters_at(g, |e| {
        u32::from(e.d64) <= tau && tau128.is_none_or(|t| u32::from(e.d128) <= t)
    });
    let c = Clusters::new(&dsu, rule, |d| corpus.id(d), |d| corpus.text_len(d));
    let counts = lists::write(dir, corpus, &c)?;
    Ok((c, counts))
}

/// Creates the output directory.
pub fn out_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}

/// `summary.json`: every parameter and count of a run, written last (its presence marks a
/// finished run).
pub fn write_summary(dir: &Path, summary: &impl Serialize) -> anyhow::Result<()> {
    let body = serde_json::to_string_pretty(summary)? + "\n";
    Ok(atomic::write(&dir.join("summary.json"), body.as_bytes())?)
}

/// The join part of `summary.json`.
pub fn join_json(o: &JoinOpts, tau: u32, tau128: Option<u32>, g: &PairGraph) -> serde_json::Value {
    serde_json::json!({
        "method": format!("{:?}", o.method).to_lowercase(),
        "bits": o.bits,
        "iterations": o.iterations,
        "seed": o.seed,
        "backend": format!("{:?}", o.backend).to_lowercase(),
        "adapter": o.adapter,
        "tau": tau,
        "tau128": tau128,
        "pairs": g.pair_count(),
        "exact_pairs": g.exact_pairs(),
        "units": g.units(),
        "edges": g.edges.len(),
    })
}

/// The clusters part of `summary.json`.
pub fn clusters_json(
    tau: u32,
    tau128: Option<u32>,
    rule: Representative,
    c: &Clusters,
    counts: &lists::ListCounts,
) -> serde_json::Value {
    serde_json::json!({
        "tau": tau,
        "tau128": tau128,
        "representative": rule,
        "clusters": c.count(),
        "clusters_of_two_or_more": counts.clusters,
        "largest_cluster": c.size.iter().max().copied().unwrap_or(0),
        "keep": counts.keep,
        "remove": counts.remove,
        "excluded": counts.excluded,
    })
}
