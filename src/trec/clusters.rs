//! Documents mapped to the document that stands for them, read from a `dedup` output's
//! `clusters.tsv` (`id representative cluster_size kept`, docs/FORMATS.md): by default the kept
//! document of each one's star (what `remove.tsv` names), or the cluster's representative.
//!
//! Only the ids asked for are held, so a corpus of any size costs memory in the run's or
//! qrels' size, not the corpus's.

use foldhash::{HashMap, HashMapExt, HashSet};
use std::path::{Path, PathBuf};

use crate::cluster::star::RemoveBy;
use crate::Result;

/// The documents of a set of ids.
#[derive(Clone, Debug, Default)]
pub struct Groups {
    /// Id -> the document that stands for it.
    of: HashMap<String, String>,
    /// Whether the file had the `kept` column (older outputs do not: the representative
    /// stands in).
    pub has_kept: bool,
    /// The file read.
    pub path: PathBuf,
}

impl Groups {
    /// The document that stands for `id`, None when `id` is not in the corpus.
    pub fn of(&self, id: &str) -> Option<&str> {
        self.of.get(id).map(String::as_str)
    }

    /// Groups given directly (tests, and callers that built the mapping themselves).
    pub fn from_map(of: HashMap<String, String>) -> Groups {
        Groups {
            of,
            has_kept: true,
            path: PathBuf::new(),
        }
    }
}

/// Reads `clusters.tsv` of the output directory `dir` (or the file itself) for the ids in
/// `wanted`, mapping each to its kept document (`by` star) or representative (component).
pub fn read(dir: &Path, wanted: &HashSet<&str>, by: RemoveBy) -> Result<Groups> {
    let mut of = HashMap::with_capacity(wanted.len());
    let (path, has_kept) = crate::cluster::file::read(dir, |row| {
        if wanted.contains(row.id.as_ref()) {
            let stands = match (by, row.kept) {
                (RemoveBy::Star | RemoveBy::All, Some(k)) => k,
                _ => row.representative,
            };
            of.insert(row.id.into_owned(), stands.into_owned());
        }
        Ok(())
    })?;
    Ok(Groups { of, has_kept, path })
}
