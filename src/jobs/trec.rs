//! The TREC jobs: runs and qrels deduplicated by a finished `dedup` output (`run`, `qrels`),
//! inspected for near-duplicates inside each topic (`inspect`), and judgments transferred to
//! a new crawl (`transfer`). Each job is a plain spec; what each did goes to its summary file
//! and through the message sink.

use foldhash::{HashSet, HashSetExt};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::options::SimilarityOptions;
use super::Outcome;
use crate::base::claim::OutDir;
use crate::base::{atomic, paths};
use crate::cluster::star::RemoveBy;
use crate::fingerprint::store::StoreSet;
use crate::jobs::{outputs, spec};
use crate::trec::dedup::Rule;
use crate::trec::format::{self, BadLine, Kind};
use crate::trec::summary::{
    InspectFile, InspectSummary, QrelsSummary, RunReport, RunsSummary, TransferSummary,
};
use crate::trec::{clusters, dedup, inspect, transfer as xfer};

/// Where a run's or qrels' documents find the document that stands for them.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct GroupOpts {
    /// A `dedup` (or `cluster`) output directory, or its clusters.tsv.
    pub clusters: PathBuf,
    /// The star's kept document, or the cluster's representative.
    pub by: RemoveBy,
    /// Replace outputs that exist.
    pub force: bool,
}

/// `trec run`: runs deduplicated.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RunJob {
    /// The runs.
    pub runs: Vec<PathBuf>,
    /// Their groups.
    #[serde(flatten)]
    pub groups: GroupOpts,
    /// What is done to near-duplicates in a ranking.
    pub rule: Rule,
    /// Output directory.
    pub output: PathBuf,
}

/// `trec qrels`: qrels deduplicated.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct QrelsJob {
    /// The qrels.
    pub qrels: PathBuf,
    /// Their groups.
    #[serde(flatten)]
    pub groups: GroupOpts,
    /// Output file.
    pub output: PathBuf,
}

/// `trec inspect`: near-duplicates inside each topic of runs and qrels.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct InspectJob {
    /// Runs and qrels files.
    pub files: Vec<PathBuf>,
    /// The stores of the corpus.
    pub store: Vec<PathBuf>,
    /// Entries per topic inspected.
    pub top: usize,
    /// How pairs are compared.
    #[serde(flatten)]
    pub similarity: SimilarityOptions,
    /// Where the shards are now.
    pub shard_dir: Option<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
}

/// `trec transfer`: judgments moved to a new crawl's near-duplicates.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct TransferJob {
    /// The judged crawl's qrels.
    pub qrels: PathBuf,
    /// The judged crawl's stores.
    pub from: Vec<PathBuf>,
    /// The new crawl's stores.
    pub to: Vec<PathBuf>,
    /// How pairs are compared.
    #[serde(flatten)]
    pub similarity: SimilarityOptions,
    /// Where the shards are now.
    pub shard_dir: Option<PathBuf>,
    /// Output file.
    pub output: PathBuf,
    /// Replace outputs that exist.
    pub force: bool,
}

impl Default for InspectJob {
    fn default() -> Self {
        InspectJob {
            files: Vec::new(),
            store: Vec::new(),
            top: 10,
            similarity: SimilarityOptions::default(),
            shard_dir: None,
            output: PathBuf::new(),
        }
    }
}

/// Reports bad lines on stderr (the first few of each file) unless quiet; Partial if any.
fn report_bad(path: &Path, bad: &[BadLine], quiet: bool) -> Outcome {
    if !quiet {
        for b in bad.iter().take(5) {
            say!(
                "{}: line {}: {} (skipped)",
                path.display(),
                b.line,
                b.reason
            );
        }
        if bad.len() > 5 {
            say!(
                "{}: {} more bad lines skipped",
                path.display(),
                bad.len() - 5
            );
        }
    }
    if bad.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Partial
    }
}

/// Refuses an output that is one of the inputs, or that exists without --force.
fn check_output(out: &Path, inputs: &[PathBuf], force: bool) -> anyhow::Result<()> {
    let o = paths::resolve(out);
    anyhow::ensure!(
        !inputs.iter().any(|i| paths::resolve(i) == o),
        "{} is an input: give another output",
        out.display()
    );
    anyhow::ensure!(
        force || !out.exists(),
        "{} exists: give another output, or --force to replace it",
        out.display()
    );
    Ok(())
}

fn groups(g: &GroupOpts, ids: HashSet<&str>, quiet: bool) -> anyhow::Result<clusters::Groups> {
    let groups = clusters::read(&g.clusters, &ids, g.by)?;
    if !groups.has_kept && g.by == crate::cluster::star::RemoveBy::Star && !quiet {
        say!(
            "{}: no kept column (an older output): documents are mapped to their cluster's representative",
            groups.path.display()
        );
    }
    Ok(groups)
}

pub fn runs(a: RunJob, quiet: bool) -> anyhow::Result<Outcome> {
    let mut outcome = Outcome::Clean;
    let mut parsed = Vec::new();
    let mut names = HashSet::new();
    let mut inputs = a.runs.clone();
    inputs.push(a.groups.clusters.clone());
    let _out = OutDir::claim_for(&a.output, &inputs, "trec run", Some(a.groups.force))?;
    for r in &a.runs {
        let name = r
            .file_name()
            .with_context(|| format!("{} names no file", r.display()))?;
        anyhow::ensure!(
            names.insert(name.to_owned()),
            "two runs are named {}: their outputs would collide",
            name.to_string_lossy()
        );
        check_output(&a.output.join(name), &a.runs, a.groups.force)?;
        let p = format::parse_run(&format::read(r)?);
        if matches!(report_bad(r, &p.bad, quiet), Outcome::Partial) {
            outcome = Outcome::Partial;
        }
        parsed.push(p);
    }
    let ids: HashSet<&str> = parsed
        .iter()
        .flat_map(|p| p.entries.iter().map(|e| e.docno.as_str()))
        .collect();
    let groups = groups(&a.groups, ids, quiet)?;
    let mut reports = Vec::new();
    for (r, p) in a.runs.iter().zip(&parsed) {
        let (out, st) = dedup::run(&p.entries, |d| groups.of(d).map(str::to_string), a.rule);
        let target = a.output.join(r.file_name().unwrap_or_default());
        atomic::write(&target, &format::bytes(&format::run_text(&out)))?;
        if !quiet {
            say!(
                "{}: {} entries, {} topics: {} near-duplicates {}, {} replaced by their group's document, {} ids not in the corpus -> {}",
                r.display(),
                st.entries,
                st.topics,
                st.duplicates,
                if a.rule == dedup::Rule::Mark { "marked" } else { "removed" },
                st.replaced,
                st.unknown,
                target.display()
            );
        }
        reports.push(RunReport {
            bad_lines: p.bad.clone(),
            input: r.clone(),
            output: target,
            stats: st,
        });
    }
    let json = RunsSummary {
        by: a.groups.by,
        clusters: groups.path.clone(),
        kept_column: groups.has_kept,
        rule: a.rule,
        runs: reports,
    };
    let path = a.output.join("trec.json");
    atomic::write(
        &path,
        (serde_json::to_string_pretty(&json)? + "\n").as_bytes(),
    )?;
    Ok(outcome)
}

pub fn qrels(a: QrelsJob, quiet: bool) -> anyhow::Result<Outcome> {
    let json_path = PathBuf::from(format!("{}.json", a.output.display()));
    let inputs = [a.qrels.clone()];
    check_output(&a.output, &inputs, a.groups.force)?;
    check_output(&json_path, &inputs, a.groups.force)?;
    let p = format::parse_qrels(&format::read(&a.qrels)?);
    let outcome = report_bad(&a.qrels, &p.bad, quiet);
    let ids: HashSet<&str> = p.entries.iter().map(|q| q.docno.as_str()).collect();
    let groups = groups(&a.groups, ids, quiet)?;
    let (out, st) = dedup::qrels(&p.entries, |d| groups.of(d).map(str::to_string));
    atomic::write(&a.output, &format::bytes(&format::qrels_text(&out)))?;
    let json = QrelsSummary {
        bad_lines: p.bad.clone(),
        by: a.groups.by,
        clusters: groups.path.clone(),
        input: a.qrels.clone(),
        kept_column: groups.has_kept,
        output: a.output.clone(),
        stats: st.clone(),
    };
    atomic::write(
        &json_path,
        (serde_json::to_string_pretty(&json)? + "\n").as_bytes(),
    )?;
    if !quiet {
        say!(
            "{}: {} records, {} topics: {} merged into their group's record ({} relevant), {} ids not in the corpus -> {}",
            a.qrels.display(),
            st.records,
            st.topics,
            st.merged,
            st.merged_relevant,
            st.unknown,
            a.output.display()
        );
    }
    Ok(outcome)
}

pub fn inspect(a: InspectJob, quiet: bool) -> anyhow::Result<Outcome> {
    anyhow::ensure!(a.top >= 1, "--top {}: at least 1", a.top);
    let mut spec = spec::verify_spec(&a.similarity)?;
    spec.shard_dir = a.shard_dir.clone();
    let stores = StoreSet::open(&a.store)?;
    let mut read = a.store.clone();
    read.extend(a.files.iter().cloned());
    let _out = outputs::out_dir(&a.output, &read, "trec inspect")?;
    let mut outcome = Outcome::Clean;
    let mut inputs = Vec::new();
    let mut bad = Vec::new();
    for f in &a.files {
        let text = format::read(f)?;
        let input = match format::kind(&text) {
            Some(Kind::Qrels) => {
                let p = format::parse_qrels(&text);
                bad.push(p.bad.clone());
                inspect::Input::Qrels(p)
            }
            _ => {
                let p = format::parse_run(&text);
                bad.push(p.bad.clone());
                inspect::Input::Run(p)
            }
        };
        if matches!(report_bad(f, bad.last().unwrap(), quiet), Outcome::Partial) {
            outcome = Outcome::Partial;
        }
        inputs.push(input);
    }
    let r = inspect::inspect(&stores, &inputs, a.top, &spec)?;
    let kind = |k: Kind| if k == Kind::Run { "run" } else { "qrels" };
    let share = |n: u64, d: u64| if d == 0 { 0.0 } else { n as f64 / d as f64 };
    let mut tsv = String::from(
        "file\tkind\tqid\tentries\tfound\tnear_duplicates\tshare\trelevant\trelevant_near_duplicates\n",
    );
    let mut totals = vec![inspect::TopicRow::default(); a.files.len()];
    for t in &r.topics {
        let k = r.kinds[t.file];
        let _ = writeln!(
            tsv,
            "{}\t{}\t{}\t{}\t{}\t{}\t{:.4}\t{}\t{}",
            a.files[t.file].display(),
            kind(k),
            t.qid,
            t.entries,
            t.found,
            t.near_duplicates,
            share(t.near_duplicates, t.found),
            if k == Kind::Qrels {
                t.relevant.to_string()
            } else {
                "-".into()
            },
            if k == Kind::Qrels {
                t.relevant_near_duplicates.to_string()
            } else {
                "-".into()
            },
        );
        let s = &mut totals[t.file];
        s.entries += t.entries;
        s.found += t.found;
        s.near_duplicates += t.near_duplicates;
        s.relevant += t.relevant;
        s.relevant_near_duplicates += t.relevant_near_duplicates;
        s.pairs_not_listed += t.pairs_not_listed;
    }
    let mut pairs = String::from("file\tqid\tfirst\tsecond\tscore\n");
    for p in &r.pairs {
        let _ = writeln!(
            pairs,
            "{}\t{}\t{}\t{}\t{:.6}",
            a.files[p.file].display(),
            p.qid,
            p.first,
            p.second,
            p.score
        );
    }
    let files: Vec<InspectFile> = totals
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let qrels = r.kinds[i] == Kind::Qrels;
            let irrelevant = t.found.saturating_sub(t.relevant);
            InspectFile {
                bad_lines: bad[i].clone(),
                entries: t.entries,
                file: a.files[i].clone(),
                found: t.found,
                irrelevant_share: qrels
                    .then(|| share(t.near_duplicates - t.relevant_near_duplicates, irrelevant)),
                kind: r.kinds[i],
                near_duplicates: t.near_duplicates,
                pairs_not_listed: t.pairs_not_listed,
                relevant: qrels.then_some(t.relevant),
                relevant_share: qrels.then(|| share(t.relevant_near_duplicates, t.relevant)),
                share: share(t.near_duplicates, t.found),
                topics: r.topics.iter().filter(|x| x.file == i).count(),
            }
        })
        .collect();
    let json = InspectSummary {
        documents_read: r.read.documents,
        files,
        measure: spec.measure.name().into(),
        min: spec.min,
        shingle: spec.k,
        top: a.top,
    };
    atomic::write(&a.output.join("inspect.tsv"), tsv.as_bytes())?;
    atomic::write(&a.output.join("pairs.tsv"), pairs.as_bytes())?;
    atomic::write(
        &a.output.join("inspect.json"),
        (serde_json::to_string_pretty(&json)? + "\n").as_bytes(),
    )?;
    for (i, t) in totals.iter().enumerate() {
        if t.pairs_not_listed > 0 {
            say_warning!(
                "{}: {} near-duplicate pairs not listed in pairs.tsv (at most {} a topic; the counts are exact)",
                a.files[i].display(),
                t.pairs_not_listed,
                inspect::MAX_PAIRS
            );
        }
    }
    if !quiet {
        for (i, t) in totals.iter().enumerate() {
            say!(
                "{}: {} entries, {} found in the store, {} near-duplicates ({:.1} %)",
                a.files[i].display(),
                t.entries,
                t.found,
                t.near_duplicates,
                100.0 * share(t.near_duplicates, t.found)
            );
        }
        say!("report written to {}", a.output.display());
    }
    Ok(outcome)
}

pub fn transfer(a: TransferJob, quiet: bool) -> anyhow::Result<Outcome> {
    let mut spec = spec::verify_spec(&a.similarity)?;
    spec.shard_dir = a.shard_dir.clone();
    let json_path = PathBuf::from(format!("{}.json", a.output.display()));
    let tsv_path = PathBuf::from(format!("{}.tsv", a.output.display()));
    let inputs = [a.qrels.clone()];
    for p in [&a.output, &json_path, &tsv_path] {
        check_output(p, &inputs, a.force)?;
    }
    let mut all = a.from.clone();
    all.extend(a.to.iter().cloned());
    spec::outside_stores(&a.output, &all)?;
    let stores = StoreSet::open(&all)?;
    let split = stores.base(a.from.len());
    let p = format::parse_qrels(&format::read(&a.qrels)?);
    let outcome = report_bad(&a.qrels, &p.bad, quiet);
    let t = xfer::transfer(&stores, split, &p.entries, &spec)?;
    atomic::write(&a.output, &format::bytes(&format::qrels_text(&t.qrels)))?;
    let mut tsv = String::from(
        "rel\tjudgments\tunknown\turl\tcanonical\tnear_duplicate\ttransferred\tshare\n",
    );
    let mut total = xfer::LevelRow::default();
    for r in &t.levels {
        let moved = r.url + r.canonical + r.near_duplicate;
        let share = if r.judgments == 0 {
            0.0
        } else {
            moved as f64 / r.judgments as f64
        };
        let _ = writeln!(
            tsv,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.4}",
            r.rel, r.judgments, r.unknown, r.url, r.canonical, r.near_duplicate, moved, share
        );
        total.judgments += r.judgments;
        total.unknown += r.unknown;
        total.url += r.url;
        total.canonical += r.canonical;
        total.near_duplicate += r.near_duplicate;
    }
    let moved = total.url + total.canonical + total.near_duplicate;
    let _ = writeln!(
        tsv,
        "all\t{}\t{}\t{}\t{}\t{}\t{}\t{:.4}",
        total.judgments,
        total.unknown,
        total.url,
        total.canonical,
        total.near_duplicate,
        moved,
        if total.judgments == 0 {
            0.0
        } else {
            moved as f64 / total.judgments as f64
        }
    );
    atomic::write(&tsv_path, tsv.as_bytes())?;
    let json = TransferSummary {
        bad_lines: p.bad.clone(),
        compared: t.compared,
        from: a.from.clone(),
        input: a.qrels.clone(),
        levels: t.levels.clone(),
        max_class: xfer::MAX_CLASS,
        measure: spec.measure.name().into(),
        min: spec.min,
        output: a.output.clone(),
        records_written: t.qrels.len(),
        shingle: spec.k,
        site_wide_links: t.site_wide_links,
        to: a.to.clone(),
    };
    atomic::write(
        &json_path,
        (serde_json::to_string_pretty(&json)? + "\n").as_bytes(),
    )?;
    if !quiet {
        eprint!("{tsv}");
        say!(
            "{} judgments, {} transferred ({} records for the new crawl) -> {}",
            total.judgments,
            moved,
            t.qrels.len(),
            a.output.display()
        );
    }
    Ok(outcome)
}
