//! Sweep tables: the TSV and JSON files and the aligned table printed on the terminal.
//!
//! Columns follow Chuweb21D's Table 2: documents kept (clusters, singletons included), their
//! ratio, the largest cluster and its ratio, pairs, and documents in clusters of two or more.

use std::fmt::Write as _;

use serde::Serialize;

use crate::cluster::{Axis, Level};

/// The TSV header after the threshold column.
pub const COLUMNS: &str =
    "docs_kept\tkept_ratio\tmax_cluster\tmax_cluster_ratio\tpairs\tdocs_in_clusters";

/// `sweep.tsv`.
pub fn sweep_tsv(levels: &[Level], axis: Axis) -> String {
    let mut s = format!("{}\t{COLUMNS}\n", axis.name());
    for l in levels {
        let _ = writeln!(
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
    }
    s
}

/// The table for the terminal, right-aligned.
pub fn sweep_text(levels: &[Level], axis: Axis) -> String {
    let head = [
        axis.name(),
        "kept",
        "kept %",
        "max cluster",
        "max %",
        "pairs",
        "in clusters",
    ];
    let rows: Vec<[String; 7]> = levels
        .iter()
        .map(|l| {
            [
                l.tau.to_string(),
                l.docs_kept.to_string(),
                format!("{:.2}", 100.0 * l.kept_ratio),
                l.max_cluster.to_string(),
                format!("{:.3}", 100.0 * l.max_cluster_ratio),
                l.pairs.to_string(),
                l.docs_in_clusters.to_string(),
            ]
        })
        .collect();
    let width: Vec<usize> = (0..7)
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
}
