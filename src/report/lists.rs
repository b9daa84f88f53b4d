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
    /// Lines of the remove list naming a document of the older collection (`against`).
    pub remove_for_old: u64,
}

/// One block of documents' lines for each file, formatted in parallel with other blocks.
#[derive(Default)]
struct Block {
    clusters: Vec<u8>,
    keep: Vec<u8>,
    remove: Vec<u8>,
    excluded: Vec<u8>,
    counts: ListCounts,
}

/// Documents per block, and blocks formatted at a time per thread (bounds the memory held).
const BLOCK: u32 = 1 << 15;
const BLOCKS_PER_THREAD: usize = 4;

/// Writes the four files into `dir`: `c` the clusters (components), `kept` each document's
/// kept document (itself when kept), `score` the score of a removed document against its kept
/// one where known. Blocks of documents are formatted in parallel and written in order, so
/// the files are the same for any thread count.
///
/// With `against` (the first document of an older collection deduplicated against), only the
/// documents before it are listed, and `remove.tsv` gains a `kept_in` column: `new` or `old`,
/// the collection of the kept document.
pub fn write(
    dir: &Path,
    corpus: &StoreSet,
    c: &Clusters,
    kept: &[u32],
    score: impl Fn(u32) -> Option<f64> + Sync,
    against: Option<u32>,
) -> Result<ListCounts> {
    use rayon::prelude::*;
    let mut counts = ListCounts::default();
    let mut clusters = AtomicFile::create(&dir.join("clusters.tsv"))?;
    let mut keep = AtomicFile::create(&dir.join("keep.txt"))?;
    let mut remove = AtomicFile::create(&dir.join("remove.tsv"))?;
    let mut excluded = AtomicFile::create(&dir.join("excluded.tsv"))?;
    let io = |f: &AtomicFile, e: std::io::Error| crate::Error::io(f.path(), e);
    writeln!(clusters, "id\trepresentative\tcluster_size\tkept").map_err(|e| io(&clusters, e))?;
    let kept_in = if against.is_some() { "\tkept_in" } else { "" };
    writeln!(remove, "id\tkept\thamming64\tscore{kept_in}").map_err(|e| io(&remove, e))?;
    writeln!(excluded, "id\treason").map_err(|e| io(&excluded, e))?;
    let n = against.unwrap_or(c.len() as u32).min(c.len() as u32);
    let blocks: Vec<u32> = (0..n.div_ceil(BLOCK)).collect();
    let window = rayon::current_num_threads().max(1) * BLOCKS_PER_THREAD;
    for w in blocks.chunks(window) {
        let parts: Vec<Block> = w
            .par_iter()
            .map(|b| {
                let docs = b * BLOCK..n.min((b + 1) * BLOCK);
                block(corpus, c, kept, &score, docs, against)
            })
            .collect();
        for p in parts {
            clusters
                .write_all(&p.clusters)
                .map_err(|e| io(&clusters, e))?;
            keep.write_all(&p.keep).map_err(|e| io(&keep, e))?;
            remove.write_all(&p.remove).map_err(|e| io(&remove, e))?;
            excluded
                .write_all(&p.excluded)
                .map_err(|e| io(&excluded, e))?;
            counts.keep += p.counts.keep;
            counts.remove += p.counts.remove;
            counts.excluded += p.counts.excluded;
            counts.clusters += p.counts.clusters;
            counts.remove_for_old += p.counts.remove_for_old;
        }
    }
    for f in [clusters, keep, remove, excluded] {
        f.commit()?;
    }
    Ok(counts)
}

/// The lines of documents `docs`. A document's own id is looked up once and reused where it
/// is its representative or kept one (most documents), so the store is read at random only
/// for the others.
fn block(
    corpus: &StoreSet,
    c: &Clusters,
    kept: &[u32],
    score: &impl Fn(u32) -> Option<f64>,
    docs: std::ops::Range<u32>,
    against: Option<u32>,
) -> Block {
    let mut b = Block::default();
    let fp = corpus.fp64();
    let name = |d: u32| tsv_field(corpus.id(d));
    for d in docs {
        let id = name(d);
        let rep = c.rep[d as usize];
        let k = kept[d as usize];
        let size = c.cluster_size(d);
        let line = &mut b.clusters;
        line.extend_from_slice(id.as_bytes());
        line.push(b'\t');
        if rep == d {
            line.extend_from_slice(id.as_bytes());
        } else {
            line.extend_from_slice(name(rep).as_bytes());
        }
        let _ = write!(line, "\t{size}\t");
        let kept_id = if k == d { id.clone() } else { name(k) };
        line.extend_from_slice(kept_id.as_bytes());
        line.push(b'\n');
        if rep == d && size > 1 {
            b.counts.clusters += 1;
        }
        if k == d {
            b.keep.extend_from_slice(id.as_bytes());
            b.keep.push(b'\n');
            b.counts.keep += 1;
        } else {
            let distance = (fp[d as usize] ^ fp[k as usize]).count_ones();
            let r = &mut b.remove;
            r.extend_from_slice(id.as_bytes());
            r.push(b'\t');
            r.extend_from_slice(kept_id.as_bytes());
            let _ = match score(d) {
                Some(s) => write!(r, "\t{distance}\t{s:.6}"),
                None => write!(r, "\t{distance}\t-"),
            };
            match against {
                Some(old) if k >= old => {
                    r.extend_from_slice(b"\told\n");
                    b.counts.remove_for_old += 1;
                }
                Some(_) => r.extend_from_slice(b"\tnew\n"),
                None => r.push(b'\n'),
            }
            b.counts.remove += 1;
        }
        let f = corpus.flags(d);
        if f & (flags::SHORT | flags::NO_FEATURES) != 0 {
            let why = if f & flags::NO_FEATURES != 0 {
                "no-features"
            } else {
                "short"
            };
            let _ = writeln!(b.excluded, "{id}\t{why}");
            b.counts.excluded += 1;
        }
    }
    b
}
