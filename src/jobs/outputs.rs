//! The files a job writes into its output directory, each by one function: the sweep and its
//! plots, the clusters and lists (with their typed tables), the kept corpus, and the parts of
//! `summary.json`; and the claim on the directory itself. Every file is written atomically.

use std::path::{Path, PathBuf};

use super::spec::{CorpusConfig, JoinConfig, Thresholds};
use crate::base::atomic;
use crate::base::claim::OutDir;
use crate::cluster::policy::KeepPolicy;
use crate::cluster::quality::Quality;
use crate::cluster::star::{self, RemoveBy};
use crate::cluster::sweep::removed_by_star;
use crate::cluster::{clusters_at, sweep, Axis, Clusters, Representative};
use crate::fingerprint::store::StoreSet;
use crate::join::graph::{Edge, PairGraph};
use crate::report::summary::{self, ClustersSummary, JoinRun, JoinSummary, Summary, SweepSummary};
use crate::report::typed::TableFormat;
use crate::report::{lists, plot, table, typed};

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
    policy: &KeepPolicy<'_>,
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
    let ranking = crate::cluster::sweep::Ranking {
        rule,
        policy,
        protect,
    };
    let prepared = removed_by_star(
        &mut levels,
        g,
        axis,
        &ranking,
        |d| stores.id(d),
        |d| stores.text_len(d),
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
    /// `--remove-by all`: each star centre's first near-duplicate ([`Assignment::partner`]).
    pub partner: Vec<u32>,
}

impl Assigned {
    /// Whether `d` is kept: its own kept document, and no star's centre under
    /// `--remove-by all`.
    pub fn is_kept(&self, d: u32) -> bool {
        is_kept(&self.kept, &self.partner, d)
    }

    /// The document each removed document names (its kept document, or for a star's centre
    /// removed with `--remove-by all`, its first near-duplicate); itself when kept.
    pub fn named(&self) -> std::borrow::Cow<'_, [u32]> {
        named(&self.kept, &self.partner)
    }

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
            .filter(|&d| self.is_kept(d))
            .map(|d| crate::write::Kept {
                doc: d,
                cluster: self.clusters.rep[d as usize],
                cluster_size: self.clusters.cluster_size(d),
                duplicates: duplicates[d as usize],
            })
            .collect()
    }
}

/// Each document's kept document and its clusters at one threshold, with the score of each
/// removal: what the lists say, computed without writing them.
pub struct Assignment {
    /// The clusters (components) and their representatives.
    pub clusters: Clusters,
    /// Each document's kept document (itself when kept).
    pub kept: Vec<u32>,
    /// The edge behind each removal ([`star::NO_EDGE`] for kept documents, identical texts
    /// of one unit, and removals by component).
    pub via: Vec<u32>,
    /// `--remove-by all`: for a star's centre, its first near-duplicate (the lowest document
    /// removed for it), which the remove list names; [`NONE`] elsewhere. Empty otherwise.
    pub partner: Vec<u32>,
}

/// No partner.
pub const NONE: u32 = u32::MAX;

fn is_kept(kept: &[u32], partner: &[u32], d: u32) -> bool {
    kept[d as usize] == d && partner.get(d as usize).is_none_or(|p| *p == NONE)
}

fn named<'a>(kept: &'a [u32], partner: &[u32]) -> std::borrow::Cow<'a, [u32]> {
    if partner.is_empty() {
        return std::borrow::Cow::Borrowed(kept);
    }
    std::borrow::Cow::Owned(
        (0..kept.len())
            .map(|d| match partner[d] {
                NONE => kept[d],
                p => p,
            })
            .collect(),
    )
}

/// Each star centre's first near-duplicate ([`Assignment::partner`]) among the documents
/// below `protect`.
fn partners(kept: &[u32], protect: Option<u32>) -> Vec<u32> {
    let mut p = vec![NONE; kept.len()];
    let limit = protect.unwrap_or(u32::MAX);
    for (d, &k) in kept.iter().enumerate() {
        if k as usize != d && k < limit && p[k as usize] == NONE {
            p[k as usize] = d as u32;
        }
    }
    p
}

impl Assignment {
    /// Whether `d` is kept (see [`Assigned::is_kept`]).
    pub fn is_kept(&self, d: u32) -> bool {
        is_kept(&self.kept, &self.partner, d)
    }

    /// What each document names (see [`Assigned::named`]).
    pub fn named(&self) -> std::borrow::Cow<'_, [u32]> {
        named(&self.kept, &self.partner)
    }

    /// The score of `d`'s removal: its edge's, or 1 for a text identical to its kept one (one
    /// unit of a verified graph); unknown without verification or by component.
    pub fn score(&self, d: u32, scores: Option<&[f64]>, remove_by: RemoveBy) -> Option<f64> {
        match (self.via[d as usize], scores) {
            (star::NO_EDGE, Some(_)) if remove_by.by_stars() => Some(1.0),
            (star::NO_EDGE, _) => None,
            (e, s) => s.map(|s| s[e as usize]),
        }
    }
}

/// What decides the lists at one threshold: the threshold, the representative rule after the
/// keep policy, how the remove list is made, and the first document of an older collection
/// that is never removed (`--against`).
#[derive(Clone, Copy)]
pub struct Removal<'p> {
    /// The thresholds of the clusters and lists.
    pub at: Thresholds,
    /// How representatives and kept documents are chosen (after the policy).
    pub rule: Representative,
    /// The keep policy.
    pub policy: &'p KeepPolicy<'p>,
    /// By stars, every copy, or by component.
    pub remove_by: RemoveBy,
    /// Documents from here on are old: kept whatever they duplicate, and not listed.
    pub protect: Option<u32>,
}

/// The clusters and removals of `g` as `r` says; `prepared` is the sweep's star preparation,
/// used when it covers this threshold and rule.
pub fn assign(
    stores: &StoreSet,
    g: &PairGraph,
    r: &Removal<'_>,
    prepared: Option<&Prepared>,
) -> Assignment {
    let Removal {
        at,
        rule,
        policy,
        remove_by,
        protect,
    } = *r;
    let keep = |e: &Edge| e.within(at.tau, at.tau128);
    let dsu = clusters_at(g, keep);
    let central = rule == Representative::Central;
    let degree = if central {
        star::degrees(g, keep)
    } else {
        Vec::new()
    };
    let deg = |d: u32| degree.get(d as usize).copied().unwrap_or(0);
    let c = Clusters::new(
        &dsu,
        rule,
        policy,
        |d| stores.id(d),
        |d| stores.text_len(d),
        deg,
    );
    let (kept, via) = match remove_by {
        RemoveBy::Star | RemoveBy::All => {
            let own;
            let sg = match prepared.and_then(|p| p.serves(at, rule, protect)) {
                Some(sg) => sg,
                None => {
                    let (id, len) = (|d| stores.id(d), |d| stores.text_len(d));
                    own = star::StarGraph::new(g, keep, rule, policy, id, len, protect);
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
    let partner = if remove_by == RemoveBy::All {
        partners(&kept, protect)
    } else {
        Vec::new()
    };
    Assignment {
        clusters: c,
        kept,
        via,
        partner,
    }
}

/// Clusters at one threshold and their lists, written into `dir` as `r` says; `prepared` is
/// the sweep's star preparation, used when it covers this threshold and rule.
pub fn write_clusters(
    dir: &Path,
    stores: &StoreSet,
    g: &PairGraph,
    r: &Removal<'_>,
    scores: Option<&[f64]>,
    prepared: Option<&Prepared>,
    tables: &[TableFormat],
) -> anyhow::Result<(ClustersSummary, Assigned, Vec<PathBuf>)> {
    warn_qualified(stores);
    let a = assign(stores, g, r, prepared);
    let remove_by = r.remove_by;
    let score = |d: u32| a.score(d, scores, remove_by);
    let c = &a.clusters;
    let listed = lists::Listed {
        clusters: c,
        kept: &a.kept,
        partner: &a.partner,
        against: r.protect,
    };
    let (counts, files) = lists::write(dir, stores, &listed, score, tables)?;
    let summary = ClustersSummary {
        tau: r.at.tau,
        tau128: r.at.tau128,
        representative: r.rule,
        policy: None,
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
    let Assignment {
        clusters,
        kept,
        partner,
        ..
    } = a;
    Ok((
        summary,
        Assigned {
            kept,
            clusters,
            partner,
        },
        files,
    ))
}

/// Writes the documents `kept` ([`Assigned::kept_docs`]) into `dir/corpus` as `corpus` says
/// (replacing a corpus an earlier run wrote there), their spans `cut` cut.
pub fn write_corpus(
    dir: &Path,
    stores: &StoreSet,
    kept: &[crate::write::Kept],
    corpus: &CorpusConfig,
    shard_dir: Option<&Path>,
    cut: Option<crate::write::Cuts>,
    quiet: bool,
) -> anyhow::Result<summary::CorpusSummary> {
    let out = dir.join("corpus");
    let labels = match &corpus.labels {
        Some(p) => Some(crate::reuse::labels::read(p)?.0),
        None => None,
    };
    let claimed = crate::write::claim(&out, stores, shard_dir, true)?;
    let cfg = crate::write::Config {
        format: corpus.format,
        dir: out.clone(),
        shard_size: corpus.shard_size,
        shard_dir: shard_dir.map(Path::to_path_buf),
        drop_labels: labels,
        cut: cut.map(std::sync::Arc::new),
    };
    let m = crate::write::write(stores, kept, &cfg)?;
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
/// pairs of `g`, in `formats`: every pair, or with `collapse` each unit as its first member
/// with each other member and each edge as its units' first members.
pub fn write_tables(
    dir: &Path,
    stores: &StoreSet,
    g: &PairGraph,
    formats: &[TableFormat],
    collapse: bool,
) -> anyhow::Result<Vec<PathBuf>> {
    let stem = dir.join("pairs");
    let mut files = crate::report::pairs_tsv::write_typed(&stem, formats, stores, g, collapse)?;
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

/// The removal audit of `assigned` (the documents below `protect`, or all): writes
/// `sites.tsv` (`stores.tsv` with several stores), `sites.svg` and their typed tables, warns
/// about the flagged sites unless quiet, and returns the summary and the tables written.
pub fn write_sites(
    dir: &Path,
    stores: &StoreSet,
    kept: &[u32],
    protect: Option<u32>,
    formats: &[TableFormat],
    own: Option<&crate::fingerprint::own::SiteBlocks>,
    quiet: bool,
) -> anyhow::Result<(summary::SitesSummary, Vec<PathBuf>)> {
    use crate::report::sites;
    let a = sites::audit(stores, kept, protect, own);
    let files = sites::write(dir, &a, formats)?;
    let flagged = sites::flagged(&a);
    crate::base::atomic::write(
        &dir.join(sites::PLOT),
        crate::report::plot::sites_svg(&a, &flagged).as_bytes(),
    )?;
    if !quiet && !flagged.is_empty() {
        say_warning!(
            "{} sites lost far more documents than the crawl's {:.1} % (the rule is in summary.json); the most: {} ({} of {} removed, {:.0} %, kept on {}); see {}",
            flagged.len(),
            100.0 * a.rate,
            flagged[0].site,
            flagged[0].removed,
            flagged[0].documents,
            100.0 * flagged[0].removal_rate,
            flagged[0]
                .kept_on
                .first()
                .map_or("-", |(s, _)| s.as_str()),
            dir.join(sites::SITES).display()
        );
    }
    let s = summary::SitesSummary {
        sites: a.sites.len() as u64,
        documents: a.documents,
        removed: a.removed,
        removal_rate: a.rate,
        rule: sites::FLAG_RULE.to_string(),
        flagged: flagged.into_iter().cloned().collect(),
        full_text: a.sites.iter().map(|r| r.full_text).sum(),
    };
    Ok((s, files))
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
pub fn out_dir(dir: &Path, inputs: &[PathBuf], command: &str) -> anyhow::Result<OutDir> {
    let out = OutDir::claim_for(dir, inputs, command, None)?;
    out.remove_previous("summary.json")?;
    Ok(out)
}

/// What `dedup` may write into its output directory, refused before anything is read where a
/// user's file has the name (the corpus directory is reserved when one is written).
pub const DEDUP_OUTPUTS: &[&str] = &[
    "store",
    "pairs.bin",
    "summary.json",
    crate::cluster::file::NAME,
    lists::KEEP,
    lists::REMOVE,
    lists::EXCLUDED,
    "sweep.tsv",
    "sweep.json",
    "sweep.svg",
    "cluster_sizes.tsv",
    "cluster_sizes.svg",
    "distances.tsv",
    "distances.svg",
    "substrings.tsv",
    "substrings.json",
    crate::report::sites::SITES,
    crate::report::sites::STORES,
    crate::report::sites::PLOT,
    crate::report::page::NAME,
];

/// The typed tables `dedup --tables` writes, by stem.
pub const DEDUP_TABLES: &[&str] = &[
    "clusters", "keep", "remove", "excluded", "pairs", "sweep", "sites", "stores",
];

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
        sites: None,
        tables: Vec::new(),
        corpus: None,
        command,
        created_by: summary::created_by(),
        inputs: Vec::new(),
        // Absolute, so that `report` and `explain` run from anywhere find these stores.
        stores: paths
            .iter()
            .map(|p| crate::base::paths::resolve(p))
            .collect(),
        stores_digest: Some(format!("{:016x}", stores.digest())),
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
        stages: Vec::new(),
        report: None,
        split: None,
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
