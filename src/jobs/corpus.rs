//! `write`: the kept documents of a finished run written out as a corpus, from its stores,
//! keep list and clusters (a run's own `--write-corpus` goes through [`super::outputs`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::spec::CorpusConfig;
use crate::fingerprint::store::StoreSet;
use crate::write::{self, Kept};

/// The `write` job, validated.
#[derive(Clone, Debug)]
pub struct WriteJob {
    /// The stores.
    pub stores: Vec<PathBuf>,
    /// The keep list.
    pub keep: PathBuf,
    /// The clusters file, if any.
    pub clusters: Option<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// Replace an earlier corpus there.
    pub force: bool,
    /// Where the shards are now.
    pub shard_dir: Option<PathBuf>,
    /// How it is written.
    pub corpus: CorpusConfig,
}

/// Each document by its id as the lists name it (repeated ids qualified).
pub(crate) fn ids_of(stores: &StoreSet) -> Ids<'_> {
    // The ids read on every core, then inserted (a foldhash map: the ids are the crawl's,
    // not an attacker's keys to a long-lived service).
    let ids: Vec<&str> = (0..stores.len() as u32)
        .into_par_iter()
        .map(|d| stores.id(d))
        .collect();
    let mut by_id = Ids::with_capacity_and_hasher(ids.len(), Default::default());
    for (d, id) in ids.into_iter().enumerate() {
        by_id.insert(id, d as u32);
    }
    by_id
}

/// Documents by their ids ([`ids_of`]).
pub(crate) type Ids<'s> = HashMap<&'s str, u32, foldhash::fast::RandomState>;

/// The documents the keep list `path` names (ids read back from their TSV escaping), in
/// store order, each once; an id that names none of `by_id`'s ([`ids_of`]) is an error with
/// how many there are and the first one's line.
pub(crate) fn keep_docs(path: &Path, by_id: &Ids<'_>) -> anyhow::Result<Vec<u32>> {
    let mut docs = Vec::new();
    let mut unknown = Vec::new();
    crate::report::lists::read_keep(path, |id, line| {
        match by_id.get(id) {
            Some(d) => docs.push(*d),
            None => unknown.push((line, id.to_string())),
        }
        Ok(())
    })?;
    if let Some((line, id)) = unknown.first() {
        anyhow::bail!(
            "{}: {} ids are in none of the stores given (line {line}: {id:?}); give the stores the run deduplicated",
            path.display(),
            unknown.len()
        );
    }
    docs.sort_unstable();
    docs.dedup();
    Ok(docs)
}

/// Writes the documents of the keep list out, as the job says; returns what was written.
pub fn write_corpus(c: &WriteJob) -> anyhow::Result<write::Manifest> {
    let stores = StoreSet::open(&c.stores)?;
    let by_id = ids_of(&stores);
    let docs = keep_docs(&c.keep, &by_id)?;
    // Each document's cluster: from clusters.tsv (id, representative, cluster_size, kept),
    // or the document alone.
    let mut cluster: HashMap<u32, (u32, u32)> = HashMap::new();
    let mut duplicates: HashMap<u32, u32> = HashMap::new();
    if let Some(path) = &c.clusters {
        crate::cluster::file::read(path, |row| {
            let (Some(&d), Some(&rep)) = (
                by_id.get(row.id.as_ref()),
                by_id.get(row.representative.as_ref()),
            ) else {
                return Err(crate::Error::Config(format!(
                    "{}: {:?} is in none of the stores given",
                    path.display(),
                    row.id
                )));
            };
            cluster.insert(d, (rep, row.cluster_size));
            if let Some(&k) = row.kept.and_then(|k| by_id.get(k.as_ref())) {
                if k != d {
                    *duplicates.entry(k).or_default() += 1;
                }
            }
            Ok(())
        })?;
    }
    let kept: Vec<Kept> = docs
        .iter()
        .map(|&d| {
            let (rep, size) = cluster.get(&d).copied().unwrap_or((d, 1));
            Kept {
                doc: d,
                cluster: rep,
                cluster_size: size,
                duplicates: duplicates.get(&d).copied().unwrap_or(0),
            }
        })
        .collect();
    let labels = match &c.corpus.labels {
        Some(p) => Some(crate::reuse::labels::read(p)?.0),
        None => None,
    };
    let out = write::claim(&c.output, &stores, c.shard_dir.as_deref(), c.force)?;
    let cfg = write::Config {
        format: c.corpus.format,
        dir: c.output.clone(),
        shard_size: c.corpus.shard_size,
        shard_dir: c.shard_dir.clone(),
        drop_labels: labels,
        cut: None,
    };
    let m = write::write(&stores, &kept, &cfg)?;
    out.finish()?;
    Ok(m)
}
