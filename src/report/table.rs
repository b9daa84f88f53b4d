//! Sweep tables: the TSV and JSON files and the aligned table printed on the terminal.
//!
//! Columns follow Chuweb21D's Table 2: documents kept (clusters, singletons included), their
//! ratio, the largest cluster and its ratio, pairs, and documents in clusters of two or more.

use std::fmt::Write as _;

use serde::Serialize;

use crate::cluster::quality::Quality;
use crate::cluster::{Axis, Level};

/// The TSV header after the threshold column.
pub const COLUMNS: &str =
    "docs_kept\tkept_ratio\tmax_cluster\tmax_cluster_ratio\tpairs\tdocs_in_clusters";

/// The columns a verified sweep adds.
pub const QUALITY_COLUMNS: &str =
    "candidate_pairs\tknown_pairs\tverified_pairs\tprecision\tprecision_low\tprecision_high\tsampled_pairs";

/// `sweep.tsv`, with the quality columns when the sweep was verified.
pub fn sweep_tsv(levels: &[Level], axis: Axis, quality: Option<&[Quality]>) -> String {
    let mut s = format!("{}\t{COLUMNS}", axis.name());
    if quality.is_some() {
        let _ = write!(s, "\t{QUALITY_COLUMNS}");
    }
    s.push_str("\tremoved_by_star\n");
    for (i, l) in levels.iter().enumerate() {
        let _ = write!(
            s,
            "{}\t{}\t{:.6}\t{}\t{:.6}\t{}\t{}",
            l.tau,
            l.docs_kept,
            l.kept_ratio,
            l.max_cluster,
            l.max_cluster_ratio,
            l.pairs,
            l.docs_in_clusters
        );
        if let Some(q) = quality.and_then(|q| q.get(i)) {
            let _ = write!(
                s,
                "\t{}\t{}\t{}\t{:.6}\t{:.6}\t{:.6}\t{}",
                q.candidate_pairs,
                q.known_pairs,
                q.verified_pairs,
                q.precision,
                q.precision_low,
                q.precision_high,
                q.sampled_pairs
            );
        }
        let _ = writeln!(s, "\t{}", l.removed_by_star);
    }
    s
}

/// The table for the terminal, right-aligned; a verified sweep adds candidates and
/// precision (with its interval when estimated).
pub fn sweep_text(levels: &[Level], axis: Axis, quality: Option<&[Quality]>) -> String {
    let mut head = vec![
        axis.name(),
        "kept",
        "kept %",
        "max cluster",
        "max %",
        "pairs",
        "in clusters",
    ];
    if quality.is_some() {
        head.extend(["candidates", "precision"]);
    }
    head.push("star removed");
    let rows: Vec<Vec<String>> = levels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mut r = vec![
                l.tau.to_string(),
                l.docs_kept.to_string(),
                format!("{:.2}", 100.0 * l.kept_ratio),
                l.max_cluster.to_string(),
                format!("{:.3}", 100.0 * l.max_cluster_ratio),
                l.pairs.to_string(),
                l.docs_in_clusters.to_string(),
            ];
            if let Some(q) = quality.and_then(|q| q.get(i)) {
                r.push(q.candidate_pairs.to_string());
                r.push(if q.precision_low == q.precision_high {
                    format!("{:.4}", q.precision)
                } else {
                    format!(
                        "{:.4} [{:.4}, {:.4}]",
                        q.precision, q.precision_low, q.precision_high
                    )
                });
            }
            r.push(l.removed_by_star.to_string());
            r
        })
        .collect();
    let width: Vec<usize> = (0..head.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .chain([head[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = String::new();
    let line = |s: &mut String, cells: &[&str]| {
        for (c, cell) in cells.iter().enumerate() {
            let _ = write!(
                s,
                "{}{cell:>w$}",
                if c == 0 { "" } else { "  " },
                w = width[c]
            );
        }
        s.push('\n');
    };
    line(&mut s, &head);
    for r in &rows {
        line(&mut s, &r.iter().map(String::as_str).collect::<Vec<_>>());
    }
    s
}

/// `distances.tsv`: document pairs at each distance (CiteSeerX Table 1).
pub fn distances_tsv(levels: &[Level], axis: Axis) -> String {
    let mut s = format!(
        "{}\tpairs\n",
        if axis == Axis::D64 {
            "hamming64"
        } else {
            "hamming128"
        }
    );
    for l in levels {
        let _ = writeln!(s, "{}\t{}", l.tau, l.pairs_at);
    }
    s
}

/// `cluster_sizes.tsv`: clusters of each size at each threshold (Chuweb21D Figure 4).
pub fn cluster_sizes_tsv(levels: &[Level], axis: Axis) -> String {
    let mut s = format!("{}\tsize\tclusters\n", axis.name());
    for l in levels {
        for (size, n) in &l.size_histogram {
            let _ = writeln!(s, "{}\t{size}\t{n}", l.tau);
        }
    }
    s
}

/// `sweep.json`.
#[derive(Debug, Serialize)]
pub struct SweepJson<'a> {
    /// `tau` or `tau128`.
    pub axis: &'static str,
    /// The fixed 64-bit tau of a 128-bit sweep.
    pub tau64: Option<u32>,
    /// Documents in the corpus.
    pub documents: u64,
    /// Documents excluded from the join (kept as singletons).
    pub excluded: u64,
    /// One entry per threshold.
    pub levels: &'a [Level],
    /// Verified sweeps: candidates and precision per threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<&'a [Quality]>,
}
