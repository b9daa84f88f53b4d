//! `dedup` of a table the caller holds in memory (a `pyarrow.Table`, a pandas or Hugging Face
//! dataset's Arrow table): the same job as on a crawl, on the same options, with nothing read
//! from or written to disk. The rows are fingerprinted into a store in memory, candidates and
//! verification run as [`super::dedup`] runs them (texts read again from the table), and the
//! result comes back per row of the table, aligned with it.

use std::time::Instant;

use serde::Serialize;

use super::dedup::{all_pairs, linear_verify};
use super::options::Candidates;
use super::outputs::assign;
use super::progress::Bar;
use super::spec::{DedupSpec, Thresholds};
use super::steps::backend;
use crate::cluster::leaders::LeaderRules;
use crate::cluster::policy::KeepPolicy;
use crate::fingerprint::build::{build_in_memory, Table};
use crate::fingerprint::store::StoreSet;

/// What [`dedup_table`] counted, in seconds per stage.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TableSummary {
    /// Rows of the table.
    pub rows: u64,
    /// Rows fingerprinted (the others were skipped: no text, or filtered out).
    pub documents: u64,
    /// Documents joined (not too short to compare).
    pub joined: u64,
    /// Rows removed: each a near-duplicate of a kept row.
    pub removed: u64,
    /// Clusters of two or more rows.
    pub clusters_of_two_or_more: u64,
    /// Seconds fingerprinting.
    pub fingerprint_seconds: f64,
    /// Seconds finding and verifying candidates.
    pub verify_seconds: f64,
    /// Seconds making the clusters and removals.
    pub cluster_seconds: f64,
    /// Records skipped, by reason.
    pub skipped: std::collections::BTreeMap<String, u64>,
    /// Each skipped row and why (`too_large`, `missing_text`, ...), in row order: these rows
    /// were not read, and are kept only because nothing was compared with them.
    pub skipped_rows: Vec<(u64, String)>,
}

/// `dedup`'s answer for each row of the table, in table order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableDedup {
    /// The row of the row's cluster's representative (its own row when it is alone or was
    /// not fingerprinted).
    pub cluster: Vec<u64>,
    /// The row kept for this row: its own when kept, else the kept near-duplicate it is
    /// removed for.
    pub kept_row: Vec<u64>,
    /// The removal's score (the measure on the texts; 1 for an identical text); NaN for a
    /// kept row, or where unknown (SimHash alone).
    pub score: Vec<f64>,
    /// What was counted.
    pub summary: TableSummary,
}

/// Deduplicates the rows of `table` as `spec` says (its inputs and output are not used: the
/// table is the input, and nothing is written).
pub fn dedup_table(table: Table, spec: &DedupSpec, quiet: bool) -> anyhow::Result<TableDedup> {
    anyhow::ensure!(
        spec.against.is_empty() && spec.corpus.is_none() && spec.tables.is_empty(),
        "a table in memory is deduplicated on its own: against, write_corpus and tables are for crawls and stores"
    );
    anyhow::ensure!(
        spec.stores.is_empty() && spec.build.inputs.is_empty(),
        "a table in memory is the input: give no inputs besides it"
    );
    // Options that decide nothing for one table are refused by name, never ignored.
    for (given, name, why) in [
        (
            spec.substrings.is_some(),
            "substrings",
            "the repeated spans are cut from a written corpus, and a table in memory writes none: run the substrings job on a store",
        ),
        (
            !spec.prefer.is_empty(),
            "prefer",
            "it ranks whole input stores, and a table is one: use keep_by with a column instead",
        ),
        (
            spec.shard_dir.is_some(),
            "shard_dir",
            "a table's texts are read from the table, not from shards",
        ),
    ] {
        anyhow::ensure!(!given, "{name}= is not for a table in memory: {why}");
    }
    let t = Instant::now();
    let bar = Bar::new(quiet);
    let (store, report, rows) = build_in_memory(&spec.build, table, &bar)?;
    bar.finish();
    let fingerprint_seconds = t.elapsed().as_secs_f64();
    if !quiet {
        say!(
            "fingerprint: {} documents of {rows} rows in {fingerprint_seconds:.2} s",
            report.manifest.docs
        );
    }
    let stores = StoreSet::new(vec![store])?;
    let t = Instant::now();
    let at_max = match spec.candidates {
        Candidates::Simhash => Thresholds::new(spec.tau_max, spec.at.tau128)?,
        Candidates::Minhash => Thresholds {
            tau: spec.tau_max,
            tau128: spec.at.tau128,
        },
    };
    let linear = match (&spec.verify, spec.candidates) {
        (Some(v), Candidates::Minhash) => v.leaders.map(|m| (v, m)),
        _ => None,
    };
    // `--keep-by` reads the table's column into the store in memory (`--prefer`, which
    // ranks stores, was refused above).
    let policy = KeepPolicy::new(&stores, &[], spec.keep_by.as_ref().map(|k| k.1));
    let (g, scores) = if let Some((v, max_leaders)) = linear {
        let rules = LeaderRules {
            tau: spec.at.tau,
            tau128: spec.at.tau128,
            rule: spec.representative,
            protect: None,
            max_leaders,
        };
        let l = linear_verify(&stores, spec.canonical, &v.spec, &rules, &policy, quiet)?;
        (
            l.scored.verified(&v.spec),
            Some(l.scored.verified_scores(&v.spec)),
        )
    } else {
        let backend = backend(&spec.join, quiet)?;
        let r = all_pairs(&stores, spec, &backend, at_max, None, None, quiet)?;
        (r.2, r.5)
    };
    let verify_seconds = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let removal = super::outputs::Removal {
        at: spec.at,
        rule: spec.representative,
        policy: &policy,
        remove_by: spec.remove_by,
        protect: None,
    };
    let a = assign(&stores, &g, &removal, None);
    let n = rows as usize;
    let mut out = TableDedup {
        cluster: (0..rows).collect(),
        kept_row: (0..rows).collect(),
        score: vec![f64::NAN; n],
        summary: TableSummary::default(),
    };
    let source = stores.stores()[0].source();
    let row = |d: u32| source[d as usize].offset;
    let mut removed = 0;
    let named = a.named();
    for d in 0..stores.len() as u32 {
        let r = row(d) as usize;
        out.cluster[r] = row(a.clusters.rep[d as usize]);
        out.kept_row[r] = row(named[d as usize]);
        if !a.is_kept(d) {
            removed += 1;
            // A star's centre (`--remove-by all`) has its first near-duplicate's score.
            let by = if a.kept[d as usize] == d {
                named[d as usize]
            } else {
                d
            };
            out.score[r] = a
                .score(by, scores.as_deref(), spec.remove_by)
                .unwrap_or(f64::NAN);
        }
    }
    let clusters = a.clusters.size.iter().filter(|s| **s >= 2).count() as u64;
    out.summary = TableSummary {
        rows,
        documents: stores.len() as u64,
        joined: stores.joinable().len() as u64,
        removed,
        clusters_of_two_or_more: clusters,
        fingerprint_seconds,
        verify_seconds,
        cluster_seconds: t.elapsed().as_secs_f64(),
        skipped: report.manifest.stats.skipped.clone(),
        skipped_rows: report
            .skipped_rows
            .iter()
            .map(|(row, why)| (*row, why.name().to_string()))
            .collect(),
    };
    if !quiet {
        say!(
            "dedup: {} rows kept, {removed} removed ({clusters} clusters of two or more) in {:.2} s",
            rows - removed,
            out.summary.fingerprint_seconds
                + out.summary.verify_seconds
                + out.summary.cluster_seconds
        );
    }
    Ok(out)
}
