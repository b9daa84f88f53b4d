//! The steps the commands share, each once: build a store, plan and run a join or load one
//! from `pairs.bin`, sweep thresholds, write clusters and lists, and the whole `dedup` job
//! (which `demo` runs too). Each writes its files atomically into an output directory, prints
//! what it did unless quiet, and returns what it counted for `summary.json`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;

use super::args::{Candidates, TableFormat};
use super::config::{CorpusConfig, DedupCommand, JoinConfig, Thresholds};
use super::progress::Bar;
use super::Outcome;
use crate::base::atomic;
use crate::base::claim::OutDir;
use crate::cluster::star::{self, RemoveBy};
use crate::cluster::sweep::removed_by_star;
use crate::cluster::{clusters_at, sweep, Axis, Clusters, Level, Representative};
use crate::fingerprint::build::{build, BuildConfig, BuildReport};
use crate::fingerprint::store::{StoreSet, StoreWriter};
use crate::join::canonical::{self, CanonicalStats};
use crate::join::graph::{Edge, PairGraph};
use crate::join::pairs_file::{self, EdgeScores, JoinParams};
use crate::join::plan::{random_recall, Method};
use crate::join::{self, Backend, JoinInput, JoinOutput, JoinSpec};
use crate::report::skips::skip_summary;
use crate::report::summary::{
    self, ClustersSummary, FingerprintSummary, JoinRun, JoinSummary, Summary, SweepSummary,
};
use crate::report::{lists, plot, table, typed};
use crate::verify::leaders::{LeaderRules, LeaderStats, StoreBands};
use crate::verify::quality::{self, Quality};
use crate::verify::{score_graph, text_units, Compare, ScoredGraph, VerifySpec};

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

/// The join spec for `n` documents at `at`; prints the plan (and a random plan's recall)
/// unless quiet.
pub fn spec(cfg: &JoinConfig, n: usize, at: Thresholds, quiet: bool) -> anyhow::Result<JoinSpec> {
    let plan = cfg.plan.plan(n, at.tau)?;
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
    let spec = spec(cfg, n, at, quiet)?;
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

/// MinHash-LSH candidates among the joinable documents of `stores`, as a join's output.
pub fn lsh_join(stores: &StoreSet, quiet: bool) -> anyhow::Result<JoinOutput> {
    let t = Instant::now();
    let p = stores.minhash_params().ok_or_else(|| {
        anyhow::anyhow!("the stores have no MinHash band keys (or were made with different ones): fingerprint them with --minhash, or choose --candidates simhash")
    })?;
    let keys = StoreBands::new(stores, p.bands as usize);
    let docs = stores.joinable();
    let graph = crate::join::lsh::candidates(
        stores.len() as u32,
        &docs,
        &keys,
        stores.fp64(),
        stores.fp128(),
    );
    let stats = crate::join::JoinStats {
        documents: docs.len() as u64,
        distinct: graph.units() as u64,
        pairs: graph.pair_count(),
        exact_pairs: graph.exact_pairs(),
        ..Default::default()
    };
    let out = JoinOutput {
        graph,
        stats,
        gpu: None,
        plan: format!(
            "minhash-lsh: {} bands of {} rows over word {}-grams",
            p.bands, p.rows, p.shingle
        ),
        backend: "cpu".into(),
        seconds: t.elapsed().as_secs_f64(),
    };
    if !quiet {
        say!(
            "candidates: {} pairs ({} identical fingerprints) among {} documents from {} in {:.2} s",
            out.stats.pairs,
            out.stats.exact_pairs,
            docs.len(),
            out.plan,
            out.seconds
        );
    }
    Ok(out)
}

/// How the join `out` ran, for `summary.json`.
fn join_run(out: &JoinOutput) -> JoinRun {
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
        _ => (text_units(stores, &l.graph), Vec::new()),
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
            "verify: {} of {} candidate pairs have {} >= {} on word {}-grams ({} text comparisons{}, {} documents read again, {:.1} MB of payload) in {:.2} s",
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
            sg.stats.documents,
            sg.stats.payload_bytes as f64 / 1e6,
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
        payload_bytes: sg.stats.payload_bytes,
        text_bytes: sg.stats.text_bytes,
        seconds: started.elapsed().as_secs_f64(),
        leaders: None,
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

/// What a sweep covers: the axis, its largest threshold, and the rule that ranks documents for
/// the star removal counted at each threshold.
#[derive(Clone, Copy, Debug)]
pub struct SweepAt {
    /// The thresholds' axis.
    pub axis: Axis,
    /// The largest threshold.
    pub max: u32,
    /// The representative rule.
    pub rule: Representative,
    /// Documents from this index on (an older collection deduplicated against) are never
    /// removed.
    pub protect: Option<u32>,
}

/// Sweeps `0..=max` on `axis` and writes the sweep files into `dir`, with the candidates'
/// quality when verified and the star removal per threshold; prints the table unless quiet.
/// Returns the summary and the star preparation for the lists.
pub fn write_sweep(
    dir: &Path,
    stores: &StoreSet,
    g: &PairGraph,
    at: SweepAt,
    quality: Option<Vec<Quality>>,
    quiet: bool,
) -> anyhow::Result<(SweepSummary, Prepared)> {
    let SweepAt {
        axis,
        max,
        rule,
        protect,
    } = at;
    let q = quality.as_deref();
    let (mut levels, _) = sweep(g, axis, max);
    let prepared = removed_by_star(
        &mut levels,
        g,
        axis,
        rule,
        |d| stores.id(d),
        |d| stores.text_len(d),
        protect,
    );
    let excluded = (stores.len() - g.members.len()) as u64;
    let tau64 = match axis {
        Axis::D64 => None,
        Axis::D128 { tau64 } => Some(tau64),
    };
    let json = table::SweepJson {
        axis: axis.name(),
        tau64,
        documents: stores.len() as u64,
        excluded,
        levels: &levels,
        quality: q,
    };
    let files: [(&str, String); 7] = [
        ("sweep.tsv", table::sweep_tsv(&levels, axis, q)),
        ("sweep.json", serde_json::to_string_pretty(&json)? + "\n"),
        ("sweep.svg", plot::sweep_svg(&levels, axis, q)),
        ("distances.tsv", table::distances_tsv(&levels, axis)),
        ("distances.svg", plot::distances_svg(&levels, axis)),
        ("cluster_sizes.tsv", table::cluster_sizes_tsv(&levels, axis)),
        ("cluster_sizes.svg", plot::cluster_sizes_svg(&levels, axis)),
    ];
    for (name, body) in files {
        atomic::write(&dir.join(name), body.as_bytes())?;
    }
    if !quiet {
        eprint!("{}", table::sweep_text(&levels, axis, q));
        if excluded > 0 {
            say!("({excluded} documents excluded from the join count as kept singletons)");
        }
    }
    let summary = SweepSummary {
        axis: axis.name().into(),
        tau64,
        max,
        levels,
        quality,
    };
    Ok((
        summary,
        Prepared {
            at,
            stars: prepared,
        },
    ))
}

/// The sweep's star preparation, handed on to the lists ([`write_clusters`]) so that
/// documents are grouped and ranked once per run.
pub struct Prepared {
    at: SweepAt,
    stars: star::StarGraph,
}

impl Prepared {
    /// The preparation when it serves the lists at `at` with `rule`: their edges are a subset
    /// of the sweep's largest threshold, and documents are ranked by the same rule.
    fn serves(
        &self,
        at: Thresholds,
        rule: Representative,
        protect: Option<u32>,
    ) -> Option<&star::StarGraph> {
        let covered = match self.at.axis {
            Axis::D64 => at.tau <= self.at.max,
            Axis::D128 { tau64 } => at.tau <= tau64 && at.tau128.is_some_and(|t| t <= self.at.max),
        };
        (covered && rule == self.at.rule && protect == self.at.protect).then_some(&self.stars)
    }
}

/// What the lists were made of: each document's kept document (itself when kept) and the
/// clusters.
pub struct Assigned {
    /// Each document's kept document.
    pub kept: Vec<u32>,
    /// The clusters (components) and their representatives.
    pub clusters: Clusters,
}

impl Assigned {
    /// The kept documents in corpus order, below `limit` (the new collection's documents
    /// with `--against`), each with its cluster and the documents removed for it.
    pub fn kept_docs(&self, limit: u32) -> Vec<crate::write::Kept> {
        let mut duplicates = vec![0u32; self.kept.len()];
        for (d, &k) in self.kept.iter().enumerate() {
            if k as usize != d {
                duplicates[k as usize] += 1;
            }
        }
        (0..limit.min(self.kept.len() as u32))
            .filter(|&d| self.kept[d as usize] == d)
            .map(|d| crate::write::Kept {
                doc: d,
                cluster: self.clusters.rep[d as usize],
                cluster_size: self.clusters.cluster_size(d),
                duplicates: duplicates[d as usize],
            })
            .collect()
    }
}

/// Clusters at one threshold and their lists, written into `dir`; `prepared` is the sweep's
/// star preparation, used when it covers this threshold and rule.
#[allow(clippy::too_many_arguments)]
pub fn write_clusters(
    dir: &Path,
    stores: &StoreSet,
    g: &PairGraph,
    at: Thresholds,
    rule: Representative,
    remove_by: RemoveBy,
    scores: Option<&[f64]>,
    prepared: Option<&Prepared>,
    protect: Option<u32>,
    tables: &[TableFormat],
) -> anyhow::Result<(ClustersSummary, Assigned, Vec<PathBuf>)> {
    let keep = |e: &Edge| e.within(at.tau, at.tau128);
    let dsu = clusters_at(g, keep);
    warn_qualified(stores);
    let central = rule == Representative::Central;
    let degree = if central {
        star::degrees(g, keep)
    } else {
        Vec::new()
    };
    let deg = |d: u32| degree.get(d as usize).copied().unwrap_or(0);
    let c = Clusters::new(&dsu, rule, |d| stores.id(d), |d| stores.text_len(d), deg);
    let (kept, via) = match remove_by {
        RemoveBy::Star => {
            let own;
            let sg = match prepared.and_then(|p| p.serves(at, rule, protect)) {
                Some(sg) => sg,
                None => {
                    let (id, len) = (|d| stores.id(d), |d| stores.text_len(d));
                    own = star::StarGraph::new(g, keep, rule, id, len, protect);
                    &own
                }
            };
            let admit = |e: u32| keep(&g.edges[e as usize]);
            let order = central.then(|| sg.central_order(admit));
            let s = sg.stars(g.docs, admit, order.as_deref());
            (s.kept, s.via)
        }
        RemoveBy::Component => (c.rep.clone(), vec![star::NO_EDGE; c.len()]),
    };
    // A removed document's score: its edge's, or 1 for a text identical to its kept one (one
    // unit of a verified graph); unknown without verification or by component.
    let score = |d: u32| match (via[d as usize], scores) {
        (star::NO_EDGE, Some(_)) if remove_by == RemoveBy::Star => Some(1.0),
        (star::NO_EDGE, _) => None,
        (e, s) => s.map(|s| s[e as usize]),
    };
    let (counts, files) = lists::write(dir, stores, &c, &kept, score, protect, tables)?;
    let summary = ClustersSummary {
        tau: at.tau,
        tau128: at.tau128,
        representative: rule,
        remove_by,
        clusters: c.count() as u64,
        clusters_of_two_or_more: counts.clusters,
        largest_cluster: u64::from(c.size.iter().max().copied().unwrap_or(0)),
        keep: counts.keep,
        remove: counts.remove,
        remove_for_old: counts.remove_for_old,
        excluded: counts.excluded,
        qualified_ids: stores.qualified() as u64,
    };
    Ok((summary, Assigned { kept, clusters: c }, files))
}

/// Writes the kept documents of `assigned` into `dir/corpus` as `corpus` says (replacing a
/// corpus an earlier run wrote there).
pub fn write_corpus(
    dir: &Path,
    stores: &StoreSet,
    assigned: &Assigned,
    corpus: &CorpusConfig,
    protect: Option<u32>,
    shard_dir: Option<&Path>,
    quiet: bool,
) -> anyhow::Result<summary::CorpusSummary> {
    let out = dir.join("corpus");
    let labels = match &corpus.labels {
        Some(p) => Some(super::reuse::read_labels(p)?.0),
        None => None,
    };
    let claimed = crate::write::claim(&out, stores, shard_dir, true)?;
    let kept = assigned.kept_docs(protect.unwrap_or(stores.len() as u32));
    let cfg = crate::write::Config {
        format: corpus.format,
        dir: out.clone(),
        shard_size: corpus.shard_size,
        shard_dir: shard_dir.map(Path::to_path_buf),
        drop_labels: labels,
    };
    let m = crate::write::write(stores, &kept, &cfg)?;
    claimed.finish()?;
    let s = corpus_summary(&out, &m);
    if !quiet {
        report_corpus(&s, &m);
    }
    Ok(s)
}

/// The summary of a written corpus.
pub fn corpus_summary(dir: &Path, m: &crate::write::Manifest) -> summary::CorpusSummary {
    summary::CorpusSummary {
        dir: dir.to_path_buf(),
        format: m.written_as.ext().to_string(),
        documents: m.documents,
        bytes: m.bytes,
        shards: m.shards.len() as u64,
        missing: m.missing.len() as u64,
        dropped_paragraphs: m.dropped_paragraphs,
        seconds: m.seconds,
    }
}

/// Prints what a corpus writer did.
pub fn report_corpus(s: &summary::CorpusSummary, m: &crate::write::Manifest) {
    say!(
        "corpus: {} documents, {:.1} MB in {} {} shards in {:.1} s ({:.0} MB/s) -> {}",
        s.documents,
        s.bytes as f64 / 1e6,
        s.shards,
        s.format,
        s.seconds,
        s.bytes as f64 / 1e6 / s.seconds.max(1e-9),
        s.dir.display()
    );
    if m.written_as == crate::write::Format::WarcGz {
        say!(
            "        records: {} copied as they were, {} compressed on their own, {} made from other formats",
            m.copied, m.recompressed, m.built
        );
    }
    if s.dropped_paragraphs > 0 {
        say!(
            "        {} labeled paragraphs dropped",
            s.dropped_paragraphs
        );
    }
    if !m.missing.is_empty() {
        say_warning!(
            "{} kept documents were not found again in their shards (listed in manifest.json's missing), e.g. {}",
            m.missing.len(),
            m.missing[0]
        );
    }
}

/// Writes the typed tables that [`write_clusters`] does not: the sweep of `dir` and the
/// pairs of `g`, in `formats`.
pub fn write_tables(
    dir: &Path,
    stores: &StoreSet,
    g: &PairGraph,
    formats: &[TableFormat],
) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = crate::report::pairs_tsv::write_typed(&dir.join("pairs"), formats, stores, g)?;
    let sweep = dir.join("sweep.tsv");
    if !formats.is_empty() && sweep.is_file() {
        let text = crate::base::mmap::map(&sweep)?;
        for f in formats {
            let t = typed::Table {
                tsv: &text,
                header: None,
                stem: dir.join("sweep"),
                source: sweep.clone(),
            };
            files.push(typed::write_table(&t, *f)?);
        }
    }
    Ok(files)
}

/// Says, once per command, that some ids repeat and how the lists name them.
pub fn warn_qualified(stores: &StoreSet) {
    static SAID: std::sync::Once = std::sync::Once::new();
    let n = stores.qualified();
    if n > 0 {
        SAID.call_once(|| match stores.old_from() {
            None => say_warning!(
                "{n} documents share their id with another; lists and tables name each of them ID#N, N its position among the stores (its row in `neardup export`)"
            ),
            Some(_) => say_warning!(
                "{n} documents share their id with another; lists and tables name an old document whose id a new one has old:ID, and documents whose id repeats within one collection ID#N (old:ID#N), N its position among the stores (its row in `neardup export`)"
            ),
        });
    }
}

/// Claims the output directory for a run reading `inputs` (refused where it is, holds or lies
/// in one), and locks it for this run (a second run into it is refused while the lock is
/// held). The earlier run's `summary.json` is removed before any other file is replaced, so
/// that an output whose rerun fails or is killed halfway never looks finished; the new summary
/// is written last. Files neardup did not make there are never replaced ([`OutDir`]).
pub fn out_dir(dir: &Path, inputs: &[PathBuf]) -> anyhow::Result<OutDir> {
    let out = OutDir::claim(dir, inputs)?;
    out.remove_previous("summary.json")?;
    Ok(out)
}

/// What `dedup` may write into its output directory, refused before anything is read where a
/// user's file has the name (the corpus directory is reserved when one is written).
pub const DEDUP_OUTPUTS: &[&str] = &[
    "store",
    "pairs.bin",
    "summary.json",
    "clusters.tsv",
    "keep.txt",
    "remove.tsv",
    "excluded.tsv",
    "sweep.tsv",
    "sweep.json",
    "sweep.svg",
    "cluster_sizes.tsv",
    "cluster_sizes.svg",
    "distances.tsv",
    "distances.svg",
];

/// The typed tables `dedup --tables` writes, by stem.
pub const DEDUP_TABLES: &[&str] = &["clusters", "keep", "remove", "excluded", "pairs", "sweep"];

/// Drops the edges whose units hold only documents from `old` on (pairs within the older
/// collection of `dedup --against`).
fn drop_old_pairs(g: &mut PairGraph, old: u32) {
    let (members, starts) = (&g.members, &g.starts);
    let first = |u: u32| members[starts[u as usize] as usize];
    g.edges.retain(|e| first(e.u) < old || first(e.v) < old);
}

/// What crossed between the collections of `dedup --against`: pairs within the lists'
/// thresholds, and the removals by the side of the kept document (as the lists counted them).
fn against_summary(
    g: &PairGraph,
    cfg: &DedupCommand,
    clusters: &ClustersSummary,
    old: u32,
    documents: u64,
) -> summary::AgainstSummary {
    // Counted per unit and edge (a unit of k identical texts stands for k(k-1)/2 pairs).
    let side = |u: u32| {
        let m = g.unit(u);
        let new = m.partition_point(|d| *d < old) as u64;
        (new, m.len() as u64 - new)
    };
    let (mut cross, mut new_pairs) = (0u64, 0u64);
    for u in 0..g.units() as u32 {
        let (n, o) = side(u);
        new_pairs += n * n.saturating_sub(1) / 2;
        cross += n * o;
    }
    for e in g
        .edges
        .iter()
        .filter(|e| e.within(cfg.at.tau, cfg.at.tau128))
    {
        let ((nu, ou), (nv, ov)) = (side(e.u), side(e.v));
        new_pairs += nu * nv;
        cross += nu * ov + ou * nv;
    }
    summary::AgainstSummary {
        old_stores: cfg.against.clone(),
        new_documents: u64::from(old),
        old_documents: documents - u64::from(old),
        cross_pairs: cross,
        new_pairs,
        removed_for_old: clusters.remove_for_old,
        removed_for_new: clusters.remove - clusters.remove_for_old,
    }
}

/// The summary of a run over `stores` whose join (made or read) is `g`; the caller fills in
/// what its command adds.
pub fn summary(
    command: summary::Command,
    stores: &StoreSet,
    paths: &[std::path::PathBuf],
    g: &PairGraph,
    join: JoinSummary,
) -> Summary {
    Summary {
        against: None,
        canonical: None,
        tables: Vec::new(),
        corpus: None,
        command,
        created_by: summary::created_by(),
        inputs: Vec::new(),
        stores: paths.to_vec(),
        pairs_file: None,
        seconds: 0.0,
        documents: stores.len() as u64,
        joined: g.members.len() as u64,
        excluded: (stores.len() - g.members.len()) as u64,
        fingerprint: None,
        join,
        sweep: None,
        clusters: None,
        verification: None,
        memory_bound: None,
    }
}

/// The join part of `summary.json`.
pub fn join_summary(
    cfg: &JoinConfig,
    at: Thresholds,
    g: &PairGraph,
    ran: Option<JoinRun>,
) -> JoinSummary {
    JoinSummary::new(
        &cfg.plan,
        cfg.backend,
        cfg.adapter.clone(),
        (at.tau, at.tau128),
        g,
        ran,
    )
}

/// What a dedup run leaves for callers that report on it (`demo`).
pub struct DedupRun {
    /// The stores (the one in OUT/store, or those given).
    pub stores: StoreSet,
    /// The pairs clustered: the verified ones, or the candidates with `--no-verify`.
    pub graph: PairGraph,
    /// The candidates: the join at the sweep's largest threshold (None where they were not
    /// listed: the default verification against kept texts).
    pub candidates: Option<PairGraph>,
    /// The sweep.
    pub levels: Vec<Level>,
    /// How fingerprinting ended.
    pub outcome: Outcome,
}

/// The main job: fingerprints the crawl into OUT/store (or takes the stores given), joins once at the sweep's largest
/// threshold (OUT/pairs.bin), sweeps every threshold, and writes clusters and lists at the
/// chosen one, so `sweep` and `cluster` can later reuse the store and the pairs.
pub fn dedup(cfg: &DedupCommand, quiet: bool) -> anyhow::Result<DedupRun> {
    let dir = &cfg.output;
    let started = Instant::now();
    // The backend opens first: an adapter that cannot be had fails the run before the
    // output directory or its store is touched.
    let backend = backend(&cfg.join, quiet)?;
    // Older stores that cannot be joined with this run's are refused before anything is
    // written, so that the corrected rerun needs no --force.
    if !cfg.against.is_empty() {
        let old = crate::fingerprint::store::open_many(&cfg.against)?;
        let minhash = if cfg.stores.is_empty() {
            let d = cfg.build.params.diff(&old[0].manifest.params);
            if !d.is_empty() {
                return Err(crate::Error::Mismatch {
                    a: cfg.build.output.clone(),
                    b: old[0].path().to_path_buf(),
                    what: d.join("; "),
                }
                .into());
            }
            cfg.build.minhash
        } else {
            let mut all = cfg.stores.clone();
            all.extend(cfg.against.iter().cloned());
            StoreSet::open(&all)?.stores()[0].manifest.minhash
        };
        if cfg.candidates == Candidates::Minhash {
            if let Some(s) = old
                .iter()
                .find(|s| s.manifest.minhash != minhash || minhash.is_none())
            {
                anyhow::bail!(
                    "{} has no MinHash band keys, or other ones than this run's: fingerprint it with --minhash and the same options, or choose --candidates simhash",
                    s.path().display()
                );
            }
        }
    }
    let mut inputs = cfg.build.inputs.clone();
    inputs.extend(cfg.stores.iter().cloned());
    inputs.extend(cfg.against.iter().cloned());
    let claimed = OutDir::claim(dir, &inputs)?;
    claimed.reserve(DEDUP_OUTPUTS)?;
    if cfg.corpus.is_some() {
        claimed.reserve(&["corpus"])?;
    }
    for f in &cfg.tables {
        let names: Vec<String> = DEDUP_TABLES
            .iter()
            .map(|t| format!("{t}.{}", f.ext()))
            .collect();
        claimed.reserve(&names.iter().map(String::as_str).collect::<Vec<_>>())?;
    }
    // A store there is replaced only with --force, and only if it is one: refused now,
    // before the earlier run's outputs are touched.
    if cfg.stores.is_empty() {
        StoreWriter::may_write(&cfg.build.output, cfg.build.force)?;
    }
    // A rerun replaces the earlier run's outputs (a store it may reuse aside): a corpus or
    // tables this run does not write are not left beside its lists.
    claimed.replace_previous(&["store"], "summary.json")?;
    let (store_paths, report, outcome) = if cfg.stores.is_empty() {
        let store = cfg.build.output.clone();
        if !quiet {
            say!("[1/4] fingerprint -> {}", store.display());
        }
        let (report, outcome) = build_store(&cfg.build, quiet)?;
        (vec![store], Some(report), outcome)
    } else {
        if !quiet {
            say!(
                "[1/4] {} stores given, used as they are (not fingerprinted again)",
                cfg.stores.len()
            );
        }
        (cfg.stores.clone(), None, Outcome::Clean)
    };
    // The new collection first, then the old one (--against): documents from `protect` on
    // are old, kept whatever they duplicate, and left out of the lists.
    let mut all_paths = store_paths.clone();
    all_paths.extend(cfg.against.iter().cloned());
    let stores = StoreSet::open(&all_paths)?.against(store_paths.len());
    let protect = stores.old_from();
    if let (Some(p), false) = (protect, quiet) {
        say!(
            "      against {} old documents in {} stores: only the {} new ones can be removed",
            stores.len() as u32 - p,
            cfg.against.len(),
            p
        );
    }
    let at_max = match cfg.candidates {
        Candidates::Simhash => Thresholds::new(cfg.tau_max, cfg.at.tau128)?,
        // LSH candidates are at any distance; the thresholds only filter them.
        Candidates::Minhash => Thresholds {
            tau: cfg.tau_max,
            tau128: cfg.at.tau128,
        },
    };
    if !quiet {
        say!("[2/4] join at tau {}", cfg.tau_max);
    }
    let pairs_path = dir.join("pairs.bin");
    let mut memory_bound = None;
    let linear = match (&cfg.verify, cfg.candidates) {
        (Some(v), Candidates::Minhash) => v.leaders.map(|m| (v, m)),
        _ => None,
    };
    let (ran, canonical_stats, g, quality, verification, scores, candidates) = if let Some((
        v,
        max_leaders,
    )) = linear
    {
        let bound = crate::verify::leaders::memory_bound(stores.len() as u64, v.spec.memory);
        if !quiet {
            say!(
                    "      memory: at most {:.0} MB from here ({} bytes a document for {} documents, {:.0} MB more, and --verify-memory {:.0} MB)",
                    bound as f64 / 1e6,
                    crate::verify::leaders::BYTES_PER_DOCUMENT,
                    stores.len(),
                    crate::verify::leaders::BYTES_FIXED as f64 / 1e6,
                    v.spec.memory as f64 / 1e6
                );
        }
        memory_bound = Some(bound);
        let rules = LeaderRules {
            tau: cfg.at.tau,
            tau128: cfg.at.tau128,
            rule: cfg.representative,
            protect,
            max_leaders,
        };
        let l = linear_verify(&stores, cfg.canonical, &v.spec, &rules, quiet)?;
        write_pairs(
            &pairs_path,
            &stores,
            &l.scored.graph,
            at_max,
            Some(&l.scored.edge_scores()),
        )?;
        let g = l.scored.verified(&v.spec);
        let scores = l.scored.verified_scores(&v.spec);
        let mut summary = verification_summary(&l.scored, &v.spec, l.started);
        summary.leaders = Some(l.stats);
        (
            l.ran,
            l.canonical,
            g,
            None,
            Some(summary),
            Some(scores),
            None,
        )
    } else {
        all_pairs(&stores, cfg, &backend, at_max, protect, &pairs_path, quiet)?
    };
    if !quiet {
        say!("[3/4] sweep tau 0..={}", cfg.tau_max);
    }
    let at = SweepAt {
        axis: Axis::D64,
        max: cfg.tau_max,
        rule: cfg.representative,
        protect,
    };
    let (sweep, prepared) = write_sweep(dir, &stores, &g, at, quality, quiet)?;
    if !quiet {
        say!("[4/4] clusters at tau {}", cfg.at.tau);
    }
    // The pairs and the sweep are typed while the lists are written (which types theirs).
    let (written, other_tables) = rayon::join(
        || {
            write_clusters(
                dir,
                &stores,
                &g,
                cfg.at,
                cfg.representative,
                cfg.remove_by,
                scores.as_deref(),
                Some(&prepared),
                protect,
                &cfg.tables,
            )
        },
        || write_tables(dir, &stores, &g, &cfg.tables),
    );
    let (clusters, assigned, mut tables) = written?;
    tables.extend(other_tables?);
    let join = join_summary(&cfg.join, at_max, &g, Some(ran));
    let mut s = summary(summary::Command::Dedup, &stores, &all_paths, &g, join);
    if let Some(p) = protect {
        let a = against_summary(&g, cfg, &clusters, p, stores.len() as u64);
        if !quiet {
            say!(
                "against: {} cross pairs, {} within the new collection; {} new documents removed for an old one, {} for a new one",
                a.cross_pairs, a.new_pairs, a.removed_for_old, a.removed_for_new
            );
        }
        s.against = Some(a);
    }
    s.canonical = canonical_stats;
    s.tables = tables;
    s.memory_bound = memory_bound;
    if let Some(corpus) = &cfg.corpus {
        if !quiet {
            say!(
                "      writing the kept documents as {}",
                corpus.format.ext()
            );
        }
        s.corpus = Some(write_corpus(
            dir,
            &stores,
            &assigned,
            corpus,
            protect,
            cfg.shard_dir.as_deref(),
            quiet,
        )?);
    }
    s.inputs = cfg.build.inputs.clone();
    s.pairs_file = Some(pairs_path);
    s.fingerprint = report.map(|report| FingerprintSummary {
        store: report.path.clone(),
        shards: report.manifest.shards.len() as u64,
        shards_failed: report.failed.iter().map(|e| e.to_string()).collect(),
        params: report.manifest.params.clone(),
        filters: report.manifest.filters.clone(),
        stats: report.manifest.stats.clone(),
    });
    s.seconds = started.elapsed().as_secs_f64();
    if !quiet {
        say!(
            "done in {:.1} s: {} documents{}, {} kept at tau {} ({} removed, {} excluded from the join and kept); outputs in {}",
            s.seconds,
            protect.unwrap_or(stores.len() as u32),
            if protect.is_some() { " new" } else { "" },
            clusters.keep,
            cfg.at.tau,
            clusters.remove,
            clusters.excluded,
            dir.display()
        );
    }
    let levels = sweep.levels.clone();
    s.verification = verification;
    s.sweep = Some(sweep);
    s.clusters = Some(clusters);
    s.write(dir)?;
    claimed.finish()?;
    Ok(DedupRun {
        stores,
        graph: g,
        candidates,
        levels,
        outcome,
    })
}

/// What the linear verification gives `dedup`.
struct Linear {
    scored: ScoredGraph,
    stats: LeaderStats,
    ran: JoinRun,
    canonical: Option<CanonicalStats>,
    started: Instant,
}

/// `dedup`'s default: MinHash-LSH runs of equal band keys (and canonical classes when
/// asked), each text compared with the kept texts of its runs in the rule's order
/// ([`crate::verify::leaders`]).
fn linear_verify(
    stores: &StoreSet,
    canonical_links: bool,
    spec: &VerifySpec,
    rules: &LeaderRules,
    quiet: bool,
) -> anyhow::Result<Linear> {
    let started = Instant::now();
    let p = stores.minhash_params().ok_or_else(|| {
        anyhow::anyhow!("the stores have no MinHash band keys (or were made with different ones): fingerprint them with --minhash, or choose --candidates simhash")
    })?;
    let keys = StoreBands::new(stores, p.bands as usize);
    let docs = stores.joinable();
    let runs = crate::join::lsh::runs(&docs, &keys, stores.fp64(), stores.fp128());
    let plan = format!(
        "minhash-lsh: {} bands of {} rows over word {}-grams, runs verified against their kept texts",
        p.bands, p.rows, p.shingle
    );
    let seconds = started.elapsed().as_secs_f64();
    if !quiet {
        say!(
            "candidates: {} runs of equal band keys ({} entries) among {} documents ({} of distinct fingerprints) from {} in {:.2} s",
            runs.len(),
            runs.units.len(),
            docs.len(),
            runs.unit_count(),
            plan,
            seconds
        );
    }
    let (classes, canonical) = if canonical_links {
        let (classes, with_link) = canonical::classes_among(stores, &docs);
        // The pairs the classes give as candidates, counted as the all-pairs path forms them;
        // no edge is listed for them.
        let pairs = classes.iter().map(|c| canonical::class_pairs(c)).sum();
        let st = CanonicalStats {
            documents_with_link: with_link,
            classes: classes.len() as u64,
            pairs,
            new_edges: 0,
        };
        if !quiet {
            say!(
                "      canonical links: {} pages name one; {} classes, each one group of candidates",
                st.documents_with_link, st.classes
            );
        }
        (classes, Some(st))
    } else {
        (Vec::new(), None)
    };
    drop(docs);
    if !quiet {
        say!(
            "[2/4] verify: {} >= {} on word {}-grams, each text against the kept texts of its runs",
            spec.measure.name(),
            spec.min,
            spec.k
        );
    }
    let t = Instant::now();
    let (scored, stats) = crate::verify::leaders::remove(stores, runs, &classes, spec, rules)?;
    if !quiet {
        say!(
            "verify: {} texts in {} components (largest {}): {} kept, {} removed after {} comparisons ({} documents read again, {:.1} MB of payload) in {:.2} s",
            stats.texts,
            stats.components,
            stats.largest_component,
            stats.leaders,
            stats.removed,
            stats.comparisons,
            scored.stats.documents,
            scored.stats.payload_bytes as f64 / 1e6,
            t.elapsed().as_secs_f64()
        );
        if stats.capped_groups > 0 {
            say!(
                "      {} runs reached --max-leaders {}: {} kept texts not listed there, {} visits of a full run",
                stats.capped_groups,
                rules.max_leaders,
                stats.leaders_not_listed,
                stats.capped_visits
            );
        }
    }
    Ok(Linear {
        scored,
        stats,
        ran: JoinRun {
            plan,
            backend: "cpu".into(),
            seconds,
        },
        canonical,
        started,
    })
}

/// The stage behind `dedup --all-pairs`: candidate pairs listed, every one verified.
type AllPairs = (
    JoinRun,
    Option<CanonicalStats>,
    PairGraph,
    Option<Vec<Quality>>,
    Option<summary::VerificationSummary>,
    Option<Vec<f64>>,
    Option<PairGraph>,
);

/// `dedup --all-pairs` (and the SimHash candidates): the candidate pairs listed and verified
/// every one (or left unverified); returns the graph the lists are made of.
fn all_pairs(
    stores: &StoreSet,
    cfg: &DedupCommand,
    backend: &Backend,
    at_max: Thresholds,
    protect: Option<u32>,
    pairs_path: &Path,
    quiet: bool,
) -> anyhow::Result<AllPairs> {
    let out = match cfg.candidates {
        Candidates::Simhash => join(stores, &cfg.join, backend, at_max, quiet)?,
        Candidates::Minhash => lsh_join(stores, quiet)?,
    };
    let ran = join_run(&out);
    let mut out = out;
    let canonical_stats = cfg.canonical.then(|| {
        let (classes, with_link) = canonical::classes_among(stores, &stores.joinable());
        let mut st = canonical::add(&mut out.graph, stores, &classes);
        st.documents_with_link = with_link;
        if !quiet {
            say!(
                "      canonical links: {} pages name one; {} classes give {} pairs, {} new candidate edges",
                st.documents_with_link, st.classes, st.pairs, st.new_edges
            );
        }
        st
    });
    if let Some(p) = protect {
        // Pairs within the old collection decide nothing: they are not verified or kept.
        drop_old_pairs(&mut out.graph, p);
    }
    let candidates = Some(out.graph.clone());
    let (g, quality, verification, scores) = match &cfg.verify {
        None => {
            write_pairs(pairs_path, stores, &out.graph, at_max, None)?;
            (out.graph, None, None, None)
        }
        Some(v) => {
            let spec = &v.spec;
            if !quiet {
                say!(
                    "[2/4] verify: {} >= {} on word {}-grams",
                    spec.measure.name(),
                    spec.min,
                    spec.k
                );
            }
            let t = Instant::now();
            let loaded = Loaded {
                graph: out.graph,
                scores: None,
                ran: None,
            };
            // Comparisons inside texts already joined are skipped only when asked for, and
            // never under a 128-bit threshold, whose clusters depend on them.
            let mode = if v.skip_joined && cfg.at.tau128.is_none() {
                Compare::SkipJoined
            } else {
                Compare::Every
            };
            let sg = score(stores, loaded, at_max, spec, mode, quiet)?;
            write_pairs(
                pairs_path,
                stores,
                &sg.graph,
                at_max,
                Some(&sg.edge_scores()),
            )?;
            let summary = verification_summary(&sg, spec, t);
            let q = quality::exact(&sg, spec, Axis::D64, cfg.tau_max);
            (
                sg.verified(spec),
                Some(q),
                Some(summary),
                Some(sg.verified_scores(spec)),
            )
        }
    };
    Ok((
        ran,
        canonical_stats,
        g,
        quality,
        verification,
        scores,
        candidates,
    ))
}
