//! The checksums of a store's columns: XXH3-64 of every column file, computed as the store is
//! finished (its files read back from the page cache before the manifest is written) and kept
//! in the manifest; checked when a store is opened, so that a column zeroed, overwritten with
//! other bytes of the same length, or a manifest edited to name other columns (`"bands": 0`)
//! is an error naming the file before any result is made from it. Stores written before the
//! checksums have none and are read as before; a store with an ownership record of its own
//! (written since the checksums) must have them.
//!
//! A store is checked once per process while its files are unchanged (their sizes and times),
//! so that the stages of one run that open it again do not read it again.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::base::mmap;
use crate::{Error, Result};

/// The checksum of a column's bytes, as the manifest writes it (16 hex digits).
pub fn of(bytes: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

/// The checksums of the files `names` of `dir`, read in parallel: what the writer computes as
/// the bytes go by must equal it (its tests).
#[cfg(test)]
pub(crate) fn compute(dir: &Path, names: &[String]) -> Result<BTreeMap<String, String>> {
    names
        .par_iter()
        .map(|n| {
            let m = mmap::map(&dir.join(n))?;
            Ok((n.clone(), of(&m[..])))
        })
        .collect()
}

/// Stores checked in this process: the directory, its manifest's checksums and its files'
/// sizes and modification times.
static CHECKED: Mutex<Option<HashSet<(PathBuf, String)>>> = Mutex::new(None);

/// Checks the columns of the store at `dir`, whose manifest names `sums` (empty in a store
/// written before the checksums), against their files; `asked` are the columns the manifest
/// makes the reader open. Every column asked for must have a checksum and every checksum a
/// column asked for (a manifest edited to name fewer bands, or none, is caught), and each file
/// must hash to its checksum.
pub fn verify(dir: &Path, manifest: &super::Manifest, asked: &BTreeSet<String>) -> Result<()> {
    let sums = &manifest.checksums;
    if sums.is_empty() {
        // A store with its own ownership record was written by a version that writes
        // checksums (both came together): a manifest without them was edited.
        if manifest.version >= 2 && dir.join(crate::base::claim::RECORD).is_file() {
            return Err(Error::store(
                dir.join(super::col::MANIFEST),
                "the manifest has no checksums, and the store was written by a version that writes them: the manifest was edited or damaged; fingerprint the crawl again",
            ));
        }
        return Ok(());
    }
    // Both sorted by name.
    if !sums.keys().eq(asked.iter()) {
        let only_sums: Vec<&str> = sums
            .keys()
            .filter(|n| !asked.contains(*n))
            .map(String::as_str)
            .collect();
        let only_asked: Vec<&str> = asked
            .iter()
            .filter(|n| !sums.contains_key(*n))
            .map(String::as_str)
            .collect();
        return Err(Error::store(
            dir.join(super::col::MANIFEST),
            format!(
                "the manifest does not name the columns it was written with (written with {}; read as {}): it is damaged; fingerprint the crawl again",
                names(&only_sums),
                names(&only_asked),
            ),
        ));
    }
    let key = (crate::base::paths::resolve(dir), state(dir, sums));
    if CHECKED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .is_some_and(|c| c.contains(&key))
    {
        return Ok(());
    }
    sums.par_iter().try_for_each(|(name, want)| {
        let p = dir.join(name);
        // A mapping of its own, dropped after: the pages read here leave the process with it.
        let m = mmap::map(&p)?;
        let got = of(&m[..]);
        if &got != want {
            return Err(Error::store(
                &p,
                format!(
                    "its checksum is {got}, the manifest says {want}: the column is damaged; fingerprint the crawl again"
                ),
            ));
        }
        Ok(())
    })?;
    CHECKED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashSet::new)
        .insert(key);
    Ok(())
}

/// Records the store at `dir` as checked in this process: its writer computed `sums` from the
/// bytes it wrote, so the stages of the run that made it do not read it back to check it.
pub fn mark_checked(dir: &Path, sums: &BTreeMap<String, String>) {
    if sums.is_empty() {
        return;
    }
    let key = (crate::base::paths::resolve(dir), state(dir, sums));
    CHECKED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashSet::new)
        .insert(key);
}

/// Up to three names and how many more, for a message.
fn names(v: &[&str]) -> String {
    match v.len() {
        0 => "no other".to_string(),
        1..=3 => v.join(", "),
        n => format!("{} and {} more", v[..3].join(", "), n - 3),
    }
}

/// The checksums and each column's size and modification time, as one string.
fn state(dir: &Path, sums: &BTreeMap<String, String>) -> String {
    let mut s = String::new();
    for (name, sum) in sums {
        let meta = std::fs::metadata(dir.join(name)).ok();
        let len = meta.as_ref().map_or(0, |m| m.len());
        let time = meta
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        s.push_str(&format!("{name}:{sum}:{len}:{time};"));
    }
    s
}
