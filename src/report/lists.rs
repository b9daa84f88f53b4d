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
use crate::report::typed::{encode_each, Column, Encoded, TableFormat, Writer};
use crate::Result;

pub use crate::base::tsv::{tsv_field, tsv_value};

/// The keep list's name in an output directory: one kept id a line, TSV-escaped.
pub const KEEP: &str = "keep.txt";
/// The remove list's name: `id`, `kept` (the kept document it duplicates), then its distance
/// and score (and `kept_in` against an older collection).
pub const REMOVE: &str = "remove.tsv";
/// The excluded documents' name: `id`, `reason`.
pub const EXCLUDED: &str = "excluded.tsv";

/// Reads a keep list (one id a line, TSV-escaped; blank lines passed over), calling `visit`
/// with each id unescaped and its line number.
pub fn read_keep(path: &Path, mut visit: impl FnMut(&str, usize) -> Result<()>) -> Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| crate::Error::io(path, e))?;
    for (i, line) in text.lines().enumerate() {
        let id = line.trim_end_matches('\r');
        if !id.is_empty() {
            visit(&tsv_value(id), i + 1)?;
        }
    }
    Ok(())
}

/// One line of the remove list: the removed document and the kept one it names (list
/// names, unescaped), with its distance and score where the list has them.
#[derive(Clone, Debug, PartialEq)]
pub struct Removal {
    pub id: String,
    pub kept: String,
    pub hamming64: Option<u32>,
    /// The verified score, where the run verified.
    pub score: Option<f64>,
}

/// Reads a remove list, calling `visit` with each line and its line number; the columns
/// after `id` and `kept` are found by their header's names, so lists with or without scores
/// (and with `kept_in`) read alike. A line without both ids is an error naming the file and
/// line.
pub fn read_remove(path: &Path, mut visit: impl FnMut(Removal, usize) -> Result<()>) -> Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| crate::Error::io(path, e))?;
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = match lines.next() {
        Some((_, h)) if h.starts_with("id\tkept") => h.split('\t').collect(),
        _ => {
            return Err(crate::Error::Config(format!(
                "{}: not a remove list (its header is not `id<TAB>kept...`)",
                path.display()
            )))
        }
    };
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (hc, sc) = (col("hamming64"), col("score"));
    for (n, line) in lines {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 2 {
            return Err(crate::Error::Config(format!(
                "{}: line {}: not `id<TAB>kept`",
                path.display(),
                n + 1
            )));
        }
        let r = Removal {
            id: tsv_value(f[0]).into_owned(),
            kept: tsv_value(f[1]).into_owned(),
            hamming64: hc.and_then(|i| f.get(i)?.parse().ok()),
            score: sc.and_then(|i| f.get(i)?.parse().ok()),
        };
        visit(r, n + 1)?;
    }
    Ok(())
}

/// A remove list whole ([`read_remove`]).
pub fn read_removals(path: &Path) -> Result<Vec<Removal>> {
    let mut out = Vec::new();
    read_remove(path, |r, _| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
}

/// `excluded.tsv`: each document's id (unescaped) and reason; none where there is no file.
pub fn read_excluded(path: &Path) -> Result<Vec<(String, String)>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(crate::Error::io(path, e)),
    };
    Ok(text
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once('\t'))
        .map(|(id, why)| (tsv_value(id).into_owned(), why.to_string()))
        .collect())
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

/// One block of documents' lines for each file, formatted in parallel with other blocks,
/// and its row groups of the typed tables.
#[derive(Default)]
struct Block {
    clusters: Vec<u8>,
    keep: Vec<u8>,
    remove: Vec<u8>,
    excluded: Vec<u8>,
    counts: ListCounts,
    /// Per table, per format.
    typed: Vec<Vec<Encoded>>,
}

/// The typed copies of the four lists (clusters, keep, remove, excluded), each in every
/// format asked for.
struct Typed {
    tables: [Vec<Writer>; 4],
}

impl Typed {
    fn create(dir: &Path, formats: &[TableFormat], against: bool) -> Result<Typed> {
        let remove: &[&str] = if against {
            &["id", "kept", "hamming64", "score", "kept_in"]
        } else {
            &["id", "kept", "hamming64", "score"]
        };
        let heads: [(&str, &[&str]); 4] = [
            (
                "clusters",
                &["id", "representative", "cluster_size", "kept"],
            ),
            ("keep", &["id"]),
            ("remove", remove),
            ("excluded", &["id", "reason"]),
        ];
        let make = |(stem, header): (&str, &[&str])| {
            formats
                .iter()
                .map(|f| Writer::create(&dir.join(stem), *f, header))
                .collect::<Result<Vec<Writer>>>()
        };
        let [a, b, c, d] = heads;
        Ok(Typed {
            tables: [make(a)?, make(b)?, make(c)?, make(d)?],
        })
    }

    /// Empty columns for a block of `n` documents (clusters, keep, remove, excluded).
    fn columns(&self, n: usize) -> Option<[Vec<Column>; 4]> {
        let t = &self.tables;
        let cols = |i: usize, rows: usize| t[i].first().map(|w| w.columns(rows));
        Some([cols(0, n)?, cols(1, n)?, cols(2, n / 4)?, cols(3, 0)?])
    }

    /// Encodes a block's columns for every format.
    fn encode(&self, cols: [Vec<Column>; 4]) -> Result<Vec<Vec<Encoded>>> {
        self.tables
            .iter()
            .zip(cols)
            .map(|(w, c)| encode_each(w, c))
            .collect()
    }
}

/// Documents per block, and blocks formatted at a time per thread (bounds the memory held).
const BLOCK: u32 = 1 << 15;
const BLOCKS_PER_THREAD: usize = 4;

/// What the lists list: the clusters (components), each document's kept document (itself
/// when kept), the partner that names a kept centre's near-duplicate (`--remove-by all`;
/// empty otherwise), and the first document of an older collection (`--against`).
#[derive(Clone, Copy)]
pub struct Listed<'a> {
    /// The clusters.
    pub clusters: &'a Clusters,
    /// Each document's kept document.
    pub kept: &'a [u32],
    /// Each document's partner (`--remove-by all`), or empty.
    pub partner: &'a [u32],
    /// The first document of the older collection, if any.
    pub against: Option<u32>,
}

/// Writes the four files into `dir` from `listed`; `score` is the score of a removed document
/// against its kept one where known. Blocks of documents are formatted in parallel and written in order, so
/// the files are the same for any thread count. With `tables`, typed copies of the four are
/// written too (`clusters.parquet`, ...; a row group per block), and their paths returned.
///
/// With `against` (the first document of an older collection deduplicated against), only the
/// documents before it are listed, and `remove.tsv` gains a `kept_in` column: `new` or `old`,
/// the collection of the kept document.
pub fn write(
    dir: &Path,
    corpus: &StoreSet,
    listed: &Listed<'_>,
    score: impl Fn(u32) -> Option<f64> + Sync,
    tables: &[TableFormat],
) -> Result<(ListCounts, Vec<std::path::PathBuf>)> {
    use rayon::prelude::*;
    let Listed {
        clusters: c,
        against,
        ..
    } = *listed;
    let mut counts = ListCounts::default();
    let mut typed = Typed::create(dir, tables, against.is_some())?;
    let mut clusters = AtomicFile::create(&dir.join(crate::cluster::file::NAME))?;
    let keep = AtomicFile::create(&dir.join(KEEP))?;
    let mut remove = AtomicFile::create(&dir.join(REMOVE))?;
    let mut excluded = AtomicFile::create(&dir.join(EXCLUDED))?;
    let io = |f: &AtomicFile, e: std::io::Error| crate::Error::io(f.path(), e);
    writeln!(clusters, "{}", crate::cluster::file::HEADER.join("\t"))
        .map_err(|e| io(&clusters, e))?;
    let kept_in = if against.is_some() { "\tkept_in" } else { "" };
    writeln!(remove, "id\tkept\thamming64\tscore{kept_in}").map_err(|e| io(&remove, e))?;
    writeln!(excluded, "id\treason").map_err(|e| io(&excluded, e))?;
    let n = against.unwrap_or(c.len() as u32).min(c.len() as u32);
    let blocks: Vec<u32> = (0..n.div_ceil(BLOCK)).collect();
    let window = rayon::current_num_threads().max(1) * BLOCKS_PER_THREAD;
    // The files get one window's lines while the next window is formatted.
    let mut files = [clusters, keep, remove, excluded];
    let write = |files: &mut [AtomicFile; 4], parts: Vec<Block>| -> Result<()> {
        for p in parts {
            for (f, text) in files
                .iter_mut()
                .zip([p.clusters, p.keep, p.remove, p.excluded])
            {
                f.write_all(&text).map_err(|e| io(f, e))?;
            }
        }
        Ok(())
    };
    let mut pending: Vec<Block> = Vec::new();
    for w in blocks.chunks(window) {
        let (written, parts) = rayon::join(
            || write(&mut files, std::mem::take(&mut pending)),
            || {
                w.par_iter()
                    .map(|b| {
                        let docs = b * BLOCK..n.min((b + 1) * BLOCK);
                        block(corpus, listed, &score, docs, &typed)
                    })
                    .collect::<Result<Vec<Block>>>()
            },
        );
        written?;
        let mut parts = parts?;
        for p in &mut parts {
            for (ws, es) in typed.tables.iter_mut().zip(std::mem::take(&mut p.typed)) {
                for (w, e) in ws.iter_mut().zip(es) {
                    w.append(e)?;
                }
            }
            counts.keep += p.counts.keep;
            counts.remove += p.counts.remove;
            counts.excluded += p.counts.excluded;
            counts.clusters += p.counts.clusters;
            counts.remove_for_old += p.counts.remove_for_old;
        }
        pending = parts;
    }
    write(&mut files, pending)?;
    for f in files {
        f.commit()?;
    }
    let files = typed
        .tables
        .into_iter()
        .flatten()
        .map(Writer::finish)
        .collect::<Result<_>>()?;
    Ok((counts, files))
}

/// The lines of document `d` in the four files (clusters, keep, remove, excluded), as
/// [`write()`] writes them: what a split run's tasks write for the documents of their
/// components, gathered in document order later.
pub fn doc_lines(
    corpus: &StoreSet,
    listed: &Listed<'_>,
    score: impl Fn(u32) -> Option<f64>,
    d: u32,
) -> Result<([Vec<u8>; 4], ListCounts)> {
    let typed = Typed {
        tables: Default::default(),
    };
    let b = block(corpus, listed, &score, d..d + 1, &typed)?;
    Ok(([b.clusters, b.keep, b.remove, b.excluded], b.counts))
}

/// The lines of documents `docs`. A document's own id is looked up once and reused where it
/// is its representative or kept one (most documents), so the store is read at random only
/// for the others.
fn block(
    corpus: &StoreSet,
    listed: &Listed<'_>,
    score: &impl Fn(u32) -> Option<f64>,
    docs: std::ops::Range<u32>,
    typed: &Typed,
) -> Result<Block> {
    let Listed {
        clusters: c,
        kept,
        partner,
        against,
    } = *listed;
    let mut b = Block::default();
    let mut cols = typed.columns(docs.len());
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
        let rep_id = if rep == d { id.clone() } else { name(rep) };
        line.extend_from_slice(rep_id.as_bytes());
        let _ = write!(line, "\t{size}\t");
        let kept_id = if k == d { id.clone() } else { name(k) };
        line.extend_from_slice(kept_id.as_bytes());
        line.push(b'\n');
        if rep == d && size > 1 {
            b.counts.clusters += 1;
        }
        if let Some([cl, ..]) = &mut cols {
            cl[0].push_str(&id);
            cl[1].push_str(&rep_id);
            cl[2].push_int(Some(i64::from(size)));
            cl[3].push_str(&kept_id);
        }
        // A star's centre removed with `--remove-by all` names its first near-duplicate.
        let (k, kept_id, s) = match partner.get(d as usize) {
            Some(&p) if k == d && p != u32::MAX => (p, name(p), score(p)),
            _ => (k, kept_id, if k == d { None } else { score(d) }),
        };
        if k == d {
            b.keep.extend_from_slice(id.as_bytes());
            b.keep.push(b'\n');
            b.counts.keep += 1;
            if let Some([_, keep, ..]) = &mut cols {
                keep[0].push_str(&id);
            }
        } else {
            let distance = (fp[d as usize] ^ fp[k as usize]).count_ones();
            let r = &mut b.remove;
            r.extend_from_slice(id.as_bytes());
            r.push(b'\t');
            r.extend_from_slice(kept_id.as_bytes());
            let _ = match s {
                Some(s) => write!(r, "\t{distance}\t{s:.6}"),
                None => write!(r, "\t{distance}\t-"),
            };
            let kept_in = match against {
                Some(old) if k >= old => {
                    b.counts.remove_for_old += 1;
                    Some("old")
                }
                Some(_) => Some("new"),
                None => None,
            };
            if let Some(k) = kept_in {
                r.push(b'\t');
                r.extend_from_slice(k.as_bytes());
            }
            r.push(b'\n');
            b.counts.remove += 1;
            if let Some([_, _, rm, _]) = &mut cols {
                rm[0].push_str(&id);
                rm[1].push_str(&kept_id);
                rm[2].push_int(Some(i64::from(distance)));
                // The score as the TSV gives it (six decimals), so both read the same.
                rm[3].push_float(s.and_then(|s| format!("{s:.6}").parse().ok()));
                if let Some(k) = kept_in {
                    rm[4].push_str(k);
                }
            }
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
            if let Some([.., ex]) = &mut cols {
                ex[0].push_str(&id);
                ex[1].push_str(why);
            }
        }
    }
    if let Some(cols) = cols {
        b.typed = typed.encode(cols)?;
    }
    Ok(b)
}
