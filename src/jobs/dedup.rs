//! The main job: a crawl (or stores) in, clusters, keep and remove lists, the sweep and
//! `summary.json` out. Candidates come from MinHash-LSH (verified against the kept texts of
//! their runs, [`crate::cluster::leaders`], the default) or are listed as pairs and verified
//! every one (`--all-pairs`, SimHash candidates); the lists are the same either way.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::options::Candidates;
use super::outputs::{
    join_summary, summary, write_clusters, write_corpus, write_sites, write_sweep, write_tables,
    SweepAt, DEDUP_OUTPUTS, DEDUP_TABLES,
};
use super::spec::{DedupSpec, Thresholds};
use super::steps::{
    backend, build_store, generate, listed, score, verification_summary, write_pairs, Generator,
    Loaded,
};
use super::Outcome;
use crate::base::claim::OutDir;
use crate::cluster::leaders::{LeaderRules, LeaderStats};
use crate::cluster::policy::KeepPolicy;
use crate::cluster::quality::{self, Quality};
use crate::cluster::{Axis, Level};
use crate::fingerprint::early_sets::EarlySets;
use crate::fingerprint::own::SiteBlocks;
use crate::fingerprint::params::FeatureMode;
use crate::fingerprint::store::{StoreSet, StoreWriter};
use crate::join::canonical::CanonicalStats;
use crate::join::graph::PairGraph;
use crate::join::Backend;
use crate::report::summary::OwnContentSummary;
use crate::report::summary::{
    self as sm, ClustersSummary, FingerprintSummary, JoinRun, StageSummary,
};
use crate::verify::{Compare, Early, OwnContent, ScoredGraph, VerifySpec};

/// The densification of the older stores `old` of `dedup CRAWL --against OLD`, where they were made
/// with this run's band keys but another densification (stores written before fast
/// densification): the crawl is fingerprinted their way, so that the two can be joined.
fn older_densification(
    cfg: &DedupSpec,
    old: &[crate::fingerprint::store::Store],
) -> Option<crate::fingerprint::minhash::Densification> {
    let mine = cfg.build.minhash?;
    if !cfg.stores.is_empty() {
        return None;
    }
    let theirs = old.first()?.manifest.minhash?;
    let alike = old.iter().all(|s| s.manifest.minhash == Some(theirs))
        && theirs.densification != mine.densification
        && crate::fingerprint::minhash::MinhashParams {
            densification: mine.densification,
            ..theirs
        } == mine;
    alike.then_some(theirs.densification)
}

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
    cfg: &DedupSpec,
    clusters: &ClustersSummary,
    old: u32,
    documents: u64,
) -> sm::AgainstSummary {
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
    sm::AgainstSummary {
        old_stores: cfg
            .against
            .iter()
            .map(|p| crate::base::paths::resolve(p))
            .collect(),
        new_documents: u64::from(old),
        old_documents: documents - u64::from(old),
        cross_pairs: cross,
        new_pairs,
        removed_for_old: clusters.remove_for_old,
        removed_for_new: clusters.remove - clusters.remove_for_old,
    }
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
    /// Each document's kept document (itself when kept) at the lists' threshold.
    pub kept: Vec<u32>,
    /// Each stage's time and peak memory, in order.
    pub stages: Vec<StageSummary>,
    /// How fingerprinting ended.
    pub outcome: Outcome,
}

/// The time and peak memory of each stage of a run.
#[derive(Default)]
struct Stages {
    done: Vec<StageSummary>,
    current: Option<(&'static str, Instant)>,
}

impl Stages {
    /// Ends the stage under way and starts `name`, with a new peak of resident memory.
    fn start(&mut self, name: &'static str) {
        self.end();
        crate::base::rss::reset_peak();
        self.current = Some((name, Instant::now()));
    }

    /// Ends the stage under way; returns every stage's time and peak.
    fn end(&mut self) -> Vec<StageSummary> {
        if let Some((n, t)) = self.current.take() {
            self.done.push(StageSummary {
                name: n.to_string(),
                seconds: t.elapsed().as_secs_f64(),
                peak_rss: crate::base::rss::peak(),
            });
        }
        self.done.clone()
    }
}

/// The main job: fingerprints the crawl into OUT/store (or takes the stores given), joins once at the sweep's largest
/// threshold (OUT/pairs.bin), sweeps every threshold, and writes clusters and lists at the
/// chosen one, so `sweep` and `cluster` can later reuse the store and the pairs.
pub fn dedup(cfg: &DedupSpec, quiet: bool) -> anyhow::Result<DedupRun> {
    let started = Instant::now();
    let mut stage = Stages::default();
    // The backend opens first: an adapter that cannot be had fails the run before the
    // output directory or its store is touched.
    let backend = backend(&cfg.join, quiet)?;
    // The older stores, opened once: read for their band keys' scheme and checked below.
    let old = if cfg.against.is_empty() {
        Vec::new()
    } else {
        crate::fingerprint::store::open_many(&cfg.against)?
    };
    let adopted;
    let cfg = match older_densification(cfg, &old) {
        Some(d) => {
            let mut c = cfg.clone();
            if let Some(m) = c.build.minhash.as_mut() {
                m.densification = d;
            }
            adopted = c;
            &adopted
        }
        None => cfg,
    };
    let dir = &cfg.output;
    // Older stores that cannot be joined with this run's are refused before anything is
    // written, so that the corrected rerun needs no --force.
    if !cfg.against.is_empty() {
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
    check_policy(cfg)?;
    check_stores(cfg)?;
    let mut inputs = cfg.build.inputs.clone();
    inputs.extend(cfg.stores.iter().cloned());
    inputs.extend(cfg.against.iter().cloned());
    // The labels a corpus is written without are read, never written.
    inputs.extend(cfg.corpus.iter().filter_map(|c| c.labels.clone()));
    let claimed = OutDir::claim_for(dir, &inputs, "dedup", Some(cfg.build.force))?;
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
    // The sets of pages with a candidate fingerprinted before them, kept as the crawl is read
    // so that verification reads fewer pages again.
    let mut early = early_sets(cfg);
    let (store_paths, report, outcome) = if cfg.stores.is_empty() {
        let store = cfg.build.output.clone();
        if !quiet {
            say!("[1/4] fingerprint -> {}", store.display());
        }
        stage.start("fingerprint");
        let (report, outcome) =
            build_store(early.as_ref().map_or(&cfg.build, |c| &c.build), quiet)?;
        if let Some(c) = early.as_mut() {
            let s = c.build.early_sets.as_ref().expect("early sets");
            s.finish();
            // The sets kept are held through verification: its own budget is what is left.
            let v = c.verify.as_mut().expect("verifying");
            v.spec.memory = v.spec.memory.saturating_sub(s.bytes());
            if !quiet {
                say!(
                    "      {} shingle sets kept for verification ({:.0} MB){}",
                    s.kept(),
                    s.bytes() as f64 / 1e6,
                    match s.refused() {
                        0 => String::new(),
                        n => format!(", {n} more read again: the budget was spent"),
                    }
                );
            }
        }
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
    let cfg = early.as_ref().unwrap_or(cfg);
    // The new collection first, then the old one (--against): documents from `protect` on
    // are old, kept whatever they duplicate, and left out of the lists.
    let mut all_paths = store_paths.clone();
    all_paths.extend(cfg.against.iter().cloned());
    let stores = StoreSet::open(&all_paths)?.against(store_paths.len());
    let protect = stores.old_from();
    let rank = store_rank(&all_paths, &cfg.prefer);
    let policy = KeepPolicy::new(&stores, &rank, cfg.keep_by.as_ref().map(|k| k.1));
    let policy_summary = policy_summary(cfg, &stores)?;
    // Pages are compared on their own content: the blocks of each host counted first.
    let own = own_content(cfg, &stores, quiet);
    let with_own;
    let cfg = match (&own, &cfg.verify) {
        (Some((o, _)), Some(_)) => {
            let mut c = cfg.clone();
            c.verify.as_mut().expect("verifying").spec.own = Some(o.clone());
            with_own = c;
            &with_own
        }
        _ => cfg,
    };
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
    stage.start("candidates and verification");
    let pairs_path = dir.join("pairs.bin");
    let mut memory_bound = None;
    let linear = match (&cfg.verify, cfg.candidates) {
        (Some(v), Candidates::Minhash) => v.leaders.map(|m| (v, m)),
        _ => None,
    };
    let (ran, canonical_stats, g, quality, mut verification, scores, candidates) = if let Some((
        v,
        max_leaders,
    )) = linear
    {
        // The sets fingerprinting kept are held within --verify-memory, beside verification's.
        let memory = v.spec.memory + v.spec.early.as_ref().map_or(0, |e| e.0.bytes());
        let bound = crate::cluster::leaders::memory_bound(stores.len() as u64, memory);
        if !quiet {
            say!(
                    "      memory: at most {:.0} MB from here ({} bytes a document for {} documents, {:.0} MB more, and --verify-memory {:.0} MB)",
                    bound as f64 / 1e6,
                    crate::cluster::leaders::BYTES_PER_DOCUMENT,
                    stores.len(),
                    crate::cluster::leaders::BYTES_FIXED as f64 / 1e6,
                    memory as f64 / 1e6
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
        let l = linear_verify(&stores, cfg.canonical, &v.spec, &rules, &policy, quiet)?;
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
        all_pairs(
            &stores,
            cfg,
            &backend,
            at_max,
            protect,
            Some(&pairs_path),
            quiet,
        )?
    };
    if let (Some(v), Some((_, o))) = (verification.as_mut(), own) {
        v.own_content = Some(o);
    }
    if !quiet {
        say!("[3/4] sweep tau 0..={}", cfg.tau_max);
    }
    stage.start("sweep");
    let at = SweepAt {
        axis: Axis::D64,
        max: cfg.tau_max,
        rule: cfg.representative,
        protect,
    };
    let (sweep, prepared) = write_sweep(dir, &stores, &g, at, &policy, quality, quiet)?;
    if !quiet {
        say!("[4/4] clusters at tau {}", cfg.at.tau);
    }
    stage.start("clusters and lists");
    // The pairs and the sweep are typed while the lists are written (which types theirs).
    let (written, other_tables) = rayon::join(
        || {
            let removal = super::outputs::Removal {
                at: cfg.at,
                rule: cfg.representative,
                policy: &policy,
                remove_by: cfg.remove_by,
                protect,
            };
            write_clusters(
                dir,
                &stores,
                &g,
                &removal,
                scores.as_deref(),
                Some(&prepared),
                &cfg.tables,
            )
        },
        // The default's graph is the removals' (pairs.bin): its pairs table is that graph's
        // links, as many as the documents, not the k(k-1)/2 pairs of each unit of identical
        // texts; the all-pairs paths list every pair.
        || write_tables(dir, &stores, &g, &cfg.tables, linear.is_some()),
    );
    let (mut clusters, assigned, mut tables) = written?;
    clusters.policy = policy_summary;
    tables.extend(other_tables?);
    let site_blocks = cfg.verify.as_ref().and_then(|v| v.spec.own.as_ref());
    let (sites, site_tables) = write_sites(
        dir,
        &stores,
        &assigned.named(),
        protect,
        &cfg.tables,
        site_blocks.map(|o| &*o.0),
        quiet,
    )?;
    tables.extend(site_tables);
    let join = join_summary(&cfg.join, at_max, &g, Some(ran));
    let mut s = summary(sm::Command::Dedup, &stores, &all_paths, &g, join);
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
    s.sites = Some(sites);
    // Repeated spans among the kept documents (the new collection's, with --against).
    let cut = match cfg.substrings {
        None => None,
        Some(k) => {
            stage.start("substrings");
            let limit = protect.unwrap_or(stores.len() as u32);
            let docs: Vec<u32> = (0..limit).filter(|d| assigned.is_kept(*d)).collect();
            let job = super::substrings::SubstringsJob {
                min_tokens: k,
                shard_dir: cfg.shard_dir.clone(),
                ..Default::default()
            };
            let t = Instant::now();
            let mut f = super::substrings::spans_of(
                &stores,
                &docs,
                &job,
                &dir.join("substrings.tsv"),
                quiet,
            )?;
            f.summary.seconds = t.elapsed().as_secs_f64();
            super::substrings::write_summary(&dir.join("substrings.json"), &f.summary)?;
            Some(f.cut)
        }
    };
    s.tables = tables;
    s.memory_bound = memory_bound;
    if let Some(corpus) = &cfg.corpus {
        if !quiet {
            say!(
                "      writing the kept documents as {}",
                corpus.format.ext()
            );
        }
        let kept = assigned.kept_docs(protect.unwrap_or(stores.len() as u32));
        s.corpus = Some(write_corpus(
            dir,
            &stores,
            &kept,
            corpus,
            cfg.shard_dir.as_deref(),
            cut,
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
    let done = format!(
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
    let levels = sweep.levels.clone();
    s.verification = verification;
    s.sweep = Some(sweep);
    s.clusters = Some(clusters);
    // The page shows the stages before its own (its time is in `report`).
    s.stages = stage.end();
    let page = super::report::write_page(dir, &s, &stores, cfg.shard_dir.as_deref())?;
    if !quiet {
        say!("{done}");
        say!(
            "      what was removed and why: {} ({} pairs shown beside their kept page)",
            dir.join(crate::report::page::NAME).display(),
            page.pairs
        );
    }
    s.report = Some(page);
    s.write(dir)?;
    claimed.finish()?;
    Ok(DedupRun {
        stores,
        graph: g,
        candidates,
        levels,
        kept: assigned.kept,
        stages: s.stages.clone(),
        outcome,
    })
}

/// Refuses, before the output directory is touched, stores given as inputs that the run
/// could not finish with: damaged ones (their checksums), ones without the band keys the
/// default candidates read, and ones whose shards are gone or changed when their text is
/// needed (verification, the corpus, the substrings).
/// The blocks each host's pages share (`--site-blocks aside`, the default), counted over the
/// run's stores when it verifies and its stores keep block keys (main content); None
/// otherwise. With the count's summary.
pub(super) fn own_content(
    cfg: &DedupSpec,
    stores: &StoreSet,
    quiet: bool,
) -> Option<(OwnContent, OwnContentSummary)> {
    let v = cfg.verify.as_ref().filter(|v| v.own_content)?;
    let started = Instant::now();
    let counted = SiteBlocks::count(stores, v.spec.memory)?;
    let s = counted.stats;
    let summary = OwnContentSummary {
        rule: crate::fingerprint::own::RULE.into(),
        hosts: s.hosts,
        site_blocks: s.site_blocks,
        pages_with_site_blocks: s.pages_with_site_blocks,
        passes: s.passes,
        seconds: started.elapsed().as_secs_f64(),
    };
    if !quiet {
        say!(
            "      own content: {} blocks of {} hosts are their site's, on {} pages ({:.2} s)",
            s.site_blocks,
            s.hosts,
            s.pages_with_site_blocks,
            summary.seconds
        );
    }
    Some((OwnContent(std::sync::Arc::new(counted)), summary))
}

fn check_stores(cfg: &DedupSpec) -> anyhow::Result<()> {
    if cfg.stores.is_empty() {
        return Ok(());
    }
    let mut all = cfg.stores.clone();
    all.extend(cfg.against.iter().cloned());
    let stores = StoreSet::open(&all)?;
    if cfg.candidates == Candidates::Minhash {
        super::steps::minhash_params(&stores)?;
    }
    let texts = cfg.verify.is_some() || cfg.corpus.is_some() || cfg.substrings.is_some();
    if texts {
        for (si, s) in stores.stores().iter().enumerate() {
            for shard in 0..s.manifest.shards.len() as u32 {
                crate::verify::reread::locate_shard(&stores, si, shard, cfg.shard_dir.as_deref())?;
            }
        }
    }
    Ok(())
}

/// Refuses a keep policy the inputs cannot serve, before anything is written: stores given
/// without the `--keep-by` field's numbers, and `--prefer` naming a store that is not an
/// input.
pub(super) fn check_policy(cfg: &DedupSpec) -> anyhow::Result<()> {
    let mut given = cfg.stores.clone();
    given.extend(cfg.against.iter().cloned());
    if let Some((field, _)) = &cfg.keep_by {
        for p in &given {
            let s = crate::fingerprint::store::Store::open(p)?;
            anyhow::ensure!(
                s.keep_field() == Some(field.as_str()),
                "--keep-by {field}: {} keeps {}: fingerprint it with --keep-field {field}",
                p.display(),
                match s.keep_field() {
                    Some(f) => format!("the numbers of {f:?}"),
                    None => "no numbers".to_string(),
                }
            );
        }
    }
    if !cfg.prefer.is_empty() {
        anyhow::ensure!(
            !cfg.stores.is_empty() || !cfg.against.is_empty(),
            "--prefer ranks input stores: give dedup stores fingerprinted before (a crawl is fingerprinted into one store)"
        );
        let inputs: Vec<PathBuf> = given
            .iter()
            .map(|p| crate::base::paths::resolve(p))
            .collect();
        for p in &cfg.prefer {
            anyhow::ensure!(
                inputs.contains(&crate::base::paths::resolve(p)),
                "--prefer {}: not one of the stores given",
                p.display()
            );
        }
    }
    Ok(())
}

/// The keep policy as the summary records it; a `--keep-by` field that no document has (a
/// typo, a column of another name) is an error naming it, and documents without one are
/// counted and said.
pub(crate) fn policy_summary(
    cfg: &DedupSpec,
    stores: &StoreSet,
) -> anyhow::Result<Option<sm::PolicySummary>> {
    if cfg.keep_by.is_none() && cfg.prefer.is_empty() {
        return Ok(None);
    }
    let n = stores.len() as u32;
    let missing = match &cfg.keep_by {
        None => 0,
        Some((field, _)) => {
            let missing = (0..n).filter(|&d| stores.value(d).is_nan()).count() as u64;
            anyhow::ensure!(
                n == 0 || missing < u64::from(n),
                "--keep-by {field}: none of the {n} documents has a number in {field:?} (a JSON field, a Parquet column, or WARC-Date): check its name; the copies would be kept by the representative rule alone"
            );
            if missing > 0 {
                say_warning!(
                    "--keep-by {field}: {missing} of {n} documents have no number in {field:?}; they are kept only where no copy of theirs has one"
                );
            }
            missing
        }
    };
    Ok(Some(sm::PolicySummary {
        prefer: cfg.prefer.clone(),
        keep_by: cfg.keep_by.as_ref().map(|k| k.0.clone()),
        order: cfg.keep_by.as_ref().map(|k| k.1),
        documents_without_value: missing,
    }))
}

/// The rank of each of `paths` (the stores, in the set's order): its place in `prefer`, the
/// others after them; empty when nothing is preferred.
pub(super) fn store_rank(paths: &[PathBuf], prefer: &[PathBuf]) -> Vec<u32> {
    if prefer.is_empty() {
        return Vec::new();
    }
    let prefer: Vec<PathBuf> = prefer
        .iter()
        .map(|p| crate::base::paths::resolve(p))
        .collect();
    paths
        .iter()
        .map(|p| {
            let p = crate::base::paths::resolve(p);
            prefer.iter().position(|q| *q == p).unwrap_or(prefer.len()) as u32
        })
        .collect()
}

/// What the linear verification gives `dedup`.
pub(super) struct Linear {
    pub(super) scored: ScoredGraph,
    pub(super) stats: LeaderStats,
    pub(super) ran: JoinRun,
    pub(super) canonical: Option<CanonicalStats>,
    pub(super) started: Instant,
}

/// A spec whose fingerprinting keeps the sets verification will read ([`EarlySets`]), when
/// this run fingerprints, verifies MinHash candidates on shingles of the band keys' length,
/// and keeps no sets in the store already; half of `--verify-memory` is its budget.
fn early_sets(cfg: &DedupSpec) -> Option<DedupSpec> {
    let v = cfg.verify.as_ref()?;
    let m = cfg.build.minhash?;
    let fits = cfg.stores.is_empty()
        && cfg.candidates == Candidates::Minhash
        && cfg.build.shingles.is_none()
        && cfg.build.params.features == FeatureMode::Native
        && m.shingle as usize == v.spec.k;
    if !fits {
        return None;
    }
    // With own content a page read whole is compared by a set of its own parts, read again:
    // its plain set is not kept.
    let s =
        Arc::new(EarlySets::new(v.spec.k, v.spec.memory / 2).keeping_read_whole(!v.own_content));
    let mut c = cfg.clone();
    c.build.early_sets = Some(s.clone());
    c.verify.as_mut().expect("verifying").spec.early = Some(Early(s));
    Some(c)
}

/// `dedup`'s default: MinHash-LSH runs of equal band keys (and canonical classes when
/// asked), each text compared with the kept texts of its runs in the rule's order
/// ([`crate::cluster::leaders`]).
pub(super) fn linear_verify(
    stores: &StoreSet,
    canonical_links: bool,
    spec: &VerifySpec,
    rules: &LeaderRules,
    policy: &KeepPolicy<'_>,
    quiet: bool,
) -> anyhow::Result<Linear> {
    let started = Instant::now();
    let own = spec.own.as_ref().map(|o| &*o.0);
    let g = generate(stores, Generator::Minhash, canonical_links, own, quiet)?;
    let mut ran = g.ran;
    ran.plan += ", runs verified against their kept texts";
    if !quiet {
        say!(
            "[2/4] verify: {} >= {} on word {}-grams, each text against the kept texts of its runs",
            spec.measure.name(),
            spec.min,
            spec.k
        );
    }
    let t = Instant::now();
    let (scored, stats) = crate::cluster::leaders::remove(stores, g.graph, spec, rules, policy)?;
    if !quiet {
        say!(
            "verify: {} texts in {} components (largest {}): {} kept, {} removed after {} comparisons ({}) in {:.2} s",
            stats.texts,
            stats.components,
            stats.largest_component,
            stats.leaders,
            stats.removed,
            stats.comparisons,
            scored.stats.describe(),
            t.elapsed().as_secs_f64()
        );
    }
    say_bound(&stats, quiet);
    Ok(Linear {
        scored,
        stats,
        ran,
        canonical: g.canonical,
        started,
    })
}

/// What the bound on listed kept texts did, as `dedup` says it after verifying (one box's
/// run and a split run's gather alike). A bound that may have changed what is found is said as
/// a warning, whatever `-q` says; one that changed no text's fate (every text that met an
/// unlisted kept text was removed by a listed one) only beside the other figures.
pub(crate) fn say_bound(stats: &LeaderStats, quiet: bool) {
    if stats.kept_after_full > 0 {
        say_warning!(
            "{} runs of candidates reached --max-leaders {}: {} texts were kept without being compared with all the kept texts of their runs ({} not listed there), so near-duplicates among them can be missed; a larger --max-leaders compares them",
            stats.capped_groups,
            stats.max_leaders,
            stats.kept_after_full,
            stats.leaders_not_listed
        );
    } else if stats.capped_groups > 0 && !quiet {
        say!(
            "      {} runs of candidates reached --max-leaders {} ({} kept texts not listed there); every text that met one was removed by a listed kept text, so the same documents are removed as without the bound",
            stats.capped_groups,
            stats.max_leaders,
            stats.leaders_not_listed
        );
    }
}

/// The stage behind `dedup --all-pairs`: candidate pairs listed, every one verified.
pub(super) type AllPairs = (
    JoinRun,
    Option<CanonicalStats>,
    PairGraph,
    Option<Vec<Quality>>,
    Option<sm::VerificationSummary>,
    Option<Vec<f64>>,
    Option<PairGraph>,
);

/// `dedup --all-pairs` (and the SimHash candidates): the candidate pairs listed and verified
/// every one (or left unverified); returns the graph the lists are made of.
pub(super) fn all_pairs(
    stores: &StoreSet,
    cfg: &DedupSpec,
    backend: &Backend,
    at_max: Thresholds,
    protect: Option<u32>,
    pairs_path: Option<&Path>,
    quiet: bool,
) -> anyhow::Result<AllPairs> {
    let generator = match cfg.candidates {
        Candidates::Simhash => Generator::Simhash {
            join: &cfg.join,
            backend,
            at: at_max,
        },
        Candidates::Minhash => Generator::Minhash,
    };
    let own = cfg
        .verify
        .as_ref()
        .and_then(|v| v.spec.own.as_ref())
        .map(|o| &*o.0);
    let generated = generate(stores, generator, cfg.canonical, own, quiet)?;
    let (graph, ran, canonical_stats) = listed(stores, generated, quiet);
    let mut out = Loaded {
        graph,
        scores: None,
        ran: None,
    };
    if let Some(p) = protect {
        // Pairs within the old collection decide nothing: they are not verified or kept.
        drop_old_pairs(&mut out.graph, p);
    }
    let candidates = Some(out.graph.clone());
    let (g, quality, verification, scores) = match &cfg.verify {
        None => {
            if let Some(p) = pairs_path {
                write_pairs(p, stores, &out.graph, at_max, None)?;
            }
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
            let loaded = out;
            // Comparisons inside texts already joined are skipped only when asked for, and
            // never under a 128-bit threshold, whose clusters depend on them.
            let mode = Compare::for_lists(v.skip_joined, cfg.at.tau128, cfg.remove_by.by_stars());
            let sg = score(stores, loaded, at_max, spec, mode, quiet)?;
            if let Some(p) = pairs_path {
                write_pairs(p, stores, &sg.graph, at_max, Some(&sg.edge_scores()))?;
            }
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
