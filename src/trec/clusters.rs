//! Documents mapped to the document that stands for them, read from a `dedup` output's
//! `clusters.tsv` (`id representative cluster_size kept`, docs/FORMATS.md): by default the kept
//! document of each one's star (what `remove.tsv` names), or the cluster's representative.
//!
//! Only the ids asked for are held, so a corpus of any size costs memory in the run's or
//! qrels' size, not the corpus's.

use foldhash::{HashMap, HashMapExt, HashSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::base::tsv::tsv_value;
use crate::cluster::star::RemoveBy;
use crate::{Error, Result};

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
    let path = if dir.is_dir() {
        dir.join("clusters.tsv")
    } else {
        dir.to_path_buf()
    };
    let file = std::fs::File::open(&path).map_err(|e| Error::io(&path, e))?;
    let mut r = std::io::BufReader::with_capacity(1 << 20, file);
    let bad = |offset: u64, msg: String| Error::Parse {
        path: path.clone(),
        offset,
        msg,
    };
    let mut line = String::new();
    let mut offset = 0u64;
    let n = r.read_line(&mut line).map_err(|e| Error::io(&path, e))?;
    let header: Vec<&str> = line.trim_end_matches(['\n', '\r']).split('\t').collect();
    if header.first() != Some(&"id") || header.get(1) != Some(&"representative") {
        return Err(bad(
            0,
            "not a clusters.tsv (its header is not `id representative ...`)".into(),
        ));
    }
    let kept_col = header.iter().position(|h| *h == "kept");
    let col = match (by, kept_col) {
        (RemoveBy::Star, Some(k)) => k,
        _ => 1,
    };
    offset += n as u64;
    let mut of = HashMap::with_capacity(wanted.len());
    loop {
        line.clear();
        let n = r.read_line(&mut line).map_err(|e| Error::io(&path, e))?;
        if n == 0 {
            break;
        }
        let l = line.trim_end_matches(['\n', '\r']);
        let mut f = l.split('\t');
        let id = tsv_value(f.next().unwrap_or(""));
        if wanted.contains(id.as_ref()) {
            let stands = l.split('\t').nth(col).filter(|s| !s.is_empty());
            let Some(stands) = stands else {
                return Err(bad(
                    offset,
                    format!("line for {id:?} has no column {}", col + 1),
                ));
            };
            of.insert(id.into_owned(), tsv_value(stands).into_owned());
        }
        offset += n as u64;
    }
    Ok(Groups {
        of,
        has_kept: kept_col.is_some(),
        path,
    })
}
