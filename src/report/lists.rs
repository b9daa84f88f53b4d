//! Cluster files at one threshold: `clusters.tsv`, the keep list (CopyCat's inclusion list,
//! usable as Anserini's whitelist), the remove list (exclusion list), and `excluded.tsv` for
//! documents that took no part in the join.
//!
//! Excluded (too short, or featureless) documents are kept singletons: they are on the keep
//! list, and listed with their reason in `excluded.tsv` so that nothing is kept or dropped
//! silently.

use std::io::Write;
use std::path::Path;

use crate::base::atomic::AtomicFile;
use crate::cluster::Clusters;
use crate::fingerprint::store::{flags, StoreSet};
use crate::Result;

/// Replaces tabs and line breaks so an id stays one TSV field.
pub fn tsv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['\t', '\n', '\r']) {
        s.replace(['\t', '\n', '\r'], " ").into()
    } else {
        s.into()
    }
}

/// Counts of what the lists hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ListCounts {
    /// Lines of the keep list.
    pub keep: u64,
    /// Lines of the remove list.
    pub remove: u64,
    /// Lines of `excluded.tsv`.
    pub excluded: u64,
    /// Clusters of two or more.
    pub clusters: u64,
}

/// Writes the four files into `dir`: `c` the clusters (components), `kept` each document's
/// kept document (itself when kept), `score` the score of a removed document against its kept
/// one where known.
pub fn write(
    dir: &Path,
    corpus: &StoreSet,
    c: &Clusters,
    kept: &[u32],
    score: impl Fn(u32) -> Option<f64>,
) -> Result<ListCounts> {
    let mut counts = ListCounts::default();
    let mut clusters = AtomicFile::create(&dir.join("clusters.tsv"))?;
    let mut keep = AtomicFile::create(&dir.join("keep.txt"))?;
    let mut remove = AtomicFile::create(&dir.join("remove.tsv"))?;
    let mut excluded = AtomicFile::create(&dir.join("excluded.tsv"))?;
    let io = |f: &AtomicFile, e: std::io::Error| crate::Error::io(f.path(), e);
    writeln!(clusters, "id\trepresentative\tcluster_size\tkept").map_err(|e| io(&clusters, e))?;
    writeln!(remove, "id\tkept\thamming64\tscore").map_err(|e| io(&remove, e))?;
    let fp = corpus.fp64();
    writeln!(excluded, "id\treason").map_err(|e| io(&excluded, e))?;
    for d in 0..c.len() as u32 {
        let id = tsv_field(corpus.id(d));
        let rep = c.rep[d as usize];
        let k = kept[d as usize];
        let size = c.cluster_size(d);
        writeln!(
            clusters,
            "{id}\t{}\t{size}\t{}",
            tsv_field(corpus.id(rep)),
            tsv_field(corpus.id(k))
        )
        .map_err(|e| io(&clusters, e))?;
        if rep == d && size > 1 {
            counts.clusters += 1;
        }
        if k == d {
            writeln!(keep, "{id}").map_err(|e| io(&keep, e))?;
            counts.keep += 1;
        } else {
            let distance = (fp[d as usize] ^ fp[k as usize]).count_ones();
            let s = score(d).map_or_else(|| "-".to_string(), |s| format!("{s:.6}"));
            writeln!(remove, "{id}\t{}\t{distance}\t{s}", tsv_field(corpus.id(k)))
                .map_err(|e| io(&remove, e))?;
            counts.remove += 1;
        }
        let f = corpus.flags(d);
        if f & (flags::SHORT | flags::NO_FEATURES) != 0 {
            let why = if f & flags::NO_FEATURES != 0 {
                "no-features"
            } else {
                "short"
            };
            writeln!(excluded, "{id}\t{why}").map_err(|e| io(&excluded, e))?;
            counts.excluded += 1;
        }
    }
    for f in [clusters, keep, remove, excluded] {
        f.commit()?;
    }
    Ok(counts)
}
