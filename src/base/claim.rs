//! Output directories and the one rule that keeps a user's files safe in them: an entry of a
//! directory belongs to neardup only when neardup's own record of that directory
//! ([`RECORD`], written ahead of every new entry) names it; every other entry is the user's and
//! is never replaced or removed.
//!
//! A command [`claim`](OutDir::claim)s its output directory before it reads anything: the claim
//! refuses a directory that is an input, lies inside one, or holds one (other than inside an
//! entry neardup made there), takes the directory's lock ([`LOCK`]) and reads the record.
//! From then on every file neardup writes there goes through [`admit`] (the atomic writer and
//! the store writer call it): a name that was there before and that the record does not name is
//! refused, and a new name is added to the record before its file is made, so that a run killed
//! at any moment leaves a record naming everything it made, and the next run may replace it.
//! [`OutDir::replace_previous`] removes what the earlier run made (the finished mark first), and
//! [`OutDir::finish`] leaves the record naming exactly the entries neardup made that exist.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use serde::{Deserialize, Serialize};

use super::lock::Lock;
use super::paths::resolve;
use crate::{Error, Result};

/// The record of what neardup made in a directory.
pub const RECORD: &str = ".neardup-owned.json";
/// The lock of a directory being written.
pub const LOCK: &str = ".neardup.lock";
/// The record's format name.
const FORMAT: &str = "neardup-owned";

/// `.neardup-owned.json`: the entries (files and directories) neardup made in its directory.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Record {
    /// Always `neardup-owned`.
    pub format: String,
    /// Version of this layout.
    pub version: u32,
    /// Entry names, sorted.
    pub entries: Vec<String>,
    /// The command whose output the directory is (`dedup`, `substrings`, `reuse discover`...):
    /// another command replaces it only with `--force`. Absent in records of earlier versions
    /// and of directories that are not one command's output (a store, a corpus).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

#[derive(Debug)]
struct State {
    /// The directory, resolved.
    dir: PathBuf,
    /// As the user wrote it, for messages.
    shown: PathBuf,
    /// The inputs of the run, resolved.
    inputs: Vec<PathBuf>,
    /// What the record named when the directory was claimed, less what has been removed.
    previous: Mutex<BTreeSet<String>>,
    /// Entries that were there and that the record did not name: the user's.
    foreign: BTreeSet<String>,
    /// Entries admitted during this run.
    made: Mutex<BTreeSet<String>>,
    /// The command the record names (this run's once it makes or removes anything).
    command: Mutex<Option<String>>,
    /// Whether the record no longer says what is here (something made or removed): a claim
    /// that changed nothing (a refused run) leaves the directory as it found it.
    changed: std::sync::atomic::AtomicBool,
}

/// Directories claimed by this process.
static CLAIMS: Mutex<Vec<Weak<State>>> = Mutex::new(Vec::new());

/// A claimed output directory; dropped, it leaves the record naming what neardup made there
/// that exists (as [`OutDir::finish`] does, quietly) and releases the lock.
#[derive(Debug)]
pub struct OutDir {
    state: Arc<State>,
    finished: bool,
    _lock: Lock,
}

/// Whether `name` is a temporary neardup makes beside an entry `base` (`.base.tmp-PID`,
/// `base.tmp-PID`, `base.old-PID`), so that it belongs with that entry.
fn temporary_of(name: &str) -> Option<&str> {
    let pid = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(rest) = name.strip_prefix('.') {
        if let Some((base, p)) = rest.rsplit_once(".tmp-") {
            if pid(p) {
                return Some(base);
            }
        }
    }
    for mark in [".tmp-", ".old-"] {
        if let Some((base, p)) = name.rsplit_once(mark) {
            if pid(p) {
                return Some(base);
            }
        }
    }
    None
}

/// Whether `name` is a temporary that `record` names itself (every temporary neardup makes in
/// a claimed directory is recorded before it is made), or the record's own temporary: it is
/// neardup's. A name that merely looks like a temporary of a recorded entry (a user's backup
/// `keep.txt.old-1`) is the user's.
fn temporary_with(name: &str, record: &BTreeSet<String>) -> bool {
    (temporary_of(name).is_some() && record.contains(name)) || record_temporary(name)
}

/// The record's own temporary (`.neardup-owned.json.tmp-PID`), which cannot name itself.
fn record_temporary(name: &str) -> bool {
    name.strip_prefix(&format!(".{RECORD}.tmp-"))
        .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn entries(dir: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    match fs::read_dir(dir) {
        Ok(it) => {
            for e in it {
                let e = e.map_err(|e| Error::io(dir, e))?;
                names.push(e.file_name().to_string_lossy().into_owned());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(dir, e)),
    }
    names.sort();
    Ok(names)
}

/// Reads the record of `dir` (empty when there is none).
pub fn read_record(dir: &Path) -> Result<BTreeSet<String>> {
    Ok(read_whole(dir)?.0)
}

/// Reads the record of `dir`: the entries it names and the command it names (empty and None
/// when there is none).
fn read_whole(dir: &Path) -> Result<(BTreeSet<String>, Option<String>)> {
    let p = dir.join(RECORD);
    let bytes = match fs::read(&p) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((BTreeSet::new(), None)),
        Err(e) => return Err(Error::io(&p, e)),
    };
    let r: Record = serde_json::from_slice(&bytes).map_err(|e| Error::Parse {
        path: p.clone(),
        offset: e.column() as u64,
        msg: format!("not a record of neardup's files: {e}"),
    })?;
    if r.format != FORMAT {
        return Err(Error::store(&p, "not a record of neardup's files"));
    }
    Ok((
        r.entries.into_iter().filter(|n| valid_name(n)).collect(),
        r.command,
    ))
}

/// A plain entry name: never a path that leads out of the directory.
fn valid_name(n: &str) -> bool {
    !n.is_empty() && n != "." && n != ".." && !n.contains('/') && n != RECORD && n != LOCK
}

/// Writes the record of `dir` naming `names` as neardup's, and `command` as the command whose
/// output it is (under a temporary name, then renamed). A directory neardup makes whole (a
/// store) is given its record this way before it is renamed into place.
pub fn write_record(dir: &Path, names: &BTreeSet<String>, command: Option<&str>) -> Result<()> {
    let r = Record {
        format: FORMAT.into(),
        version: 1,
        entries: names.iter().cloned().collect(),
        command: command.map(str::to_string),
    };
    let json = serde_json::to_vec_pretty(&r).map_err(|e| Error::Config(e.to_string()))?;
    let target = dir.join(RECORD);
    let tmp = dir.join(format!(".{RECORD}.tmp-{}", std::process::id()));
    // Not synced: the record must survive a killed process (the page cache does), and a
    // sync for each new name cost a dedup run about 5 %. An interrupt while the record is
    // written removes its temporary too.
    let write = || -> std::io::Result<()> {
        let (_interrupt, ()) = super::interrupt::register_with(&tmp, || fs::write(&tmp, &json))?;
        fs::rename(&tmp, &target)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io(&target, e)
    })
}

/// Whether `inner` is `outer` or lies inside it (both resolved).
fn inside(inner: &Path, outer: &Path) -> bool {
    inner.starts_with(outer)
}

impl OutDir {
    /// Claims `dir` for a run that reads `inputs`: refuses it when it is an input, lies inside
    /// one, or holds one anywhere but inside an entry neardup made there; creates it; takes its
    /// lock; reads its record. Nothing in it is changed.
    pub fn claim(dir: &Path, inputs: &[PathBuf]) -> Result<OutDir> {
        let rdir = resolve(dir);
        let rinputs: Vec<PathBuf> = inputs.iter().map(|p| resolve(p)).collect();
        let record = read_record(&rdir)?;
        for (input, rinput) in inputs.iter().zip(&rinputs) {
            let refuse = |how: &str| {
                Err(Error::Config(format!(
                    "the output directory {} {how} the input {}: neardup never writes where it reads; choose another output directory",
                    dir.display(),
                    input.display()
                )))
            };
            if rinput == &rdir {
                return refuse("is");
            }
            if inside(&rdir, rinput) {
                return refuse("lies inside");
            }
            if let Ok(rel) = rinput.strip_prefix(&rdir) {
                let first = rel
                    .components()
                    .next()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned());
                if !first.is_some_and(|f| record.contains(&f)) {
                    return refuse("holds");
                }
            }
        }
        // A directory made inside another claimed one is an entry of that one.
        admit(&rdir)?;
        fs::create_dir_all(&rdir).map_err(|e| Error::io(dir, e))?;
        let lock = Lock::acquire(&rdir.join(LOCK), dir)?;
        // Read again under the lock: another run may have finished in between.
        let (record, command) = read_whole(&rdir)?;
        let command = command.or_else(|| summary_command(&rdir, &record));
        super::stale::clean_stale(&rdir, &format!(".{RECORD}.tmp-"));
        let foreign = unrecorded(&rdir, &record)?.into_iter().collect();
        let state = Arc::new(State {
            dir: rdir,
            shown: dir.to_path_buf(),
            inputs: rinputs,
            previous: Mutex::new(record),
            foreign,
            made: Mutex::new(BTreeSet::new()),
            command: Mutex::new(command),
            changed: std::sync::atomic::AtomicBool::new(false),
        });
        let mut claims = CLAIMS.lock().unwrap_or_else(|e| e.into_inner());
        claims.retain(|w| w.strong_count() > 0);
        claims.push(Arc::downgrade(&state));
        Ok(OutDir {
            state,
            finished: false,
            _lock: lock,
        })
    }

    /// Claims `dir` as [`OutDir::claim`] does, for the output of `command` (`dedup`,
    /// `reuse discover`...): a directory that holds another command's output (finished or
    /// not) is refused, unless `force` is `Some(true)` (the command's `--force`; `None` for a
    /// command that has none), and then the run replaces what that command made as a rerun
    /// does. The record names `command` from the first entry this run makes or removes.
    pub fn claim_for(
        dir: &Path,
        inputs: &[PathBuf],
        command: &str,
        force: Option<bool>,
    ) -> Result<OutDir> {
        let out = OutDir::claim(dir, inputs)?;
        let before = out.state.command.lock().unwrap().clone();
        if let Some(other) = before.filter(|c| c != command) {
            if !out.previous().is_empty() && force != Some(true) {
                let how = if force.is_some() {
                    "--force replaces it, or choose another output directory"
                } else {
                    "choose another output directory"
                };
                return Err(Error::Config(format!(
                    "{} holds the output of `neardup {other}`, not of `neardup {command}`: {how}",
                    dir.display()
                )));
            }
        }
        *out.state.command.lock().unwrap() = Some(command.to_string());
        Ok(out)
    }

    /// Claims `dir` for an output that holds the directory alone (a corpus, a reuse output):
    /// as [`OutDir::claim`], and refused when the directory holds anything neardup did not
    /// make there; what an earlier run made is removed only with `force` (`mark`, the file
    /// that says a run finished, first). `what` names the output in messages.
    pub fn claim_whole(
        dir: &Path,
        inputs: &[PathBuf],
        force: bool,
        what: &str,
        mark: &str,
        command: &str,
    ) -> Result<OutDir> {
        let out = OutDir::claim_for(dir, inputs, command, Some(force))?;
        if let Some(other) = out.foreign().iter().next() {
            return Err(Error::Config(format!(
                "{} holds files that neardup did not write there ({other}); {what} holds its directory alone: choose another output directory",
                dir.display()
            )));
        }
        if !out.previous().is_empty() {
            if !force {
                return Err(Error::Config(format!(
                    "{} holds {what} neardup wrote earlier: --force replaces it",
                    dir.display()
                )));
            }
            out.replace_previous(&[], mark)?;
        }
        Ok(out)
    }

    /// What the earlier runs made here and this run has not removed.
    pub fn previous(&self) -> BTreeSet<String> {
        self.state.previous.lock().unwrap().clone()
    }

    /// Entries that were here and that neardup did not make.
    pub fn foreign(&self) -> &BTreeSet<String> {
        &self.state.foreign
    }

    /// Refuses, before anything is read, a run that would write one of `names` over a user's
    /// entry or over one of its inputs.
    pub fn reserve(&self, names: &[&str]) -> Result<()> {
        for n in names {
            self.state.check(n)?;
        }
        Ok(())
    }

    /// Removes what earlier runs made here, except the entries named in `keep` (a store a
    /// rerun reuses) and any entry that holds an input: `summary_first` (the finished mark)
    /// first, so that a run that dies halfway never looks finished.
    pub fn replace_previous(&self, keep: &[&str], summary_first: &str) -> Result<()> {
        let mut previous = self.state.previous.lock().unwrap();
        let mut names: Vec<String> = previous
            .iter()
            .filter(|n| !keep.contains(&n.as_str()))
            .filter(|n| {
                let p = self.state.dir.join(n);
                !self.state.inputs.iter().any(|i| inside(i, &p))
            })
            .cloned()
            .collect();
        names.sort_by_key(|n| n != summary_first);
        // Everything is checked before anything is removed: a directory of the user's standing
        // where neardup made an entry refuses the run with the earlier output whole.
        for n in &names {
            removable(&self.state.dir.join(n))?;
        }
        let removed: BTreeSet<String> = names.iter().cloned().collect();
        if !removed.is_empty() {
            self.state.touch();
        }
        for n in names {
            remove_owned(&self.state.dir.join(&n))?;
            previous.remove(&n);
        }
        remove_temporaries(&self.state.dir, &removed)
    }

    /// Removes `name` if an earlier run made it (the finished mark of an output that a
    /// rerun updates in place).
    pub fn remove_previous(&self, name: &str) -> Result<()> {
        let mut previous = self.state.previous.lock().unwrap();
        if previous.remove(name) {
            self.state.touch();
            remove_owned(&self.state.dir.join(name))?;
        }
        Ok(())
    }

    /// Writes the record as [`OutDir::finish`] does, and keeps the claim (and its lock): for
    /// a run whose later stages run elsewhere and that gathers here at the end (the split run).
    pub fn settle(&self) -> Result<()> {
        self.state.settle()
    }

    /// Leaves the record naming what neardup made here that exists now.
    pub fn finish(mut self) -> Result<()> {
        self.finished = true;
        self.state.settle()
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        if !self.finished {
            let _ = self.state.settle();
        }
    }
}

impl State {
    /// Rewrites the record to name what neardup made here that exists, if this run changed
    /// anything.
    fn settle(&self) -> Result<()> {
        if !self.changed.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(());
        }
        let command = self.command.lock().unwrap().clone();
        write_record(&self.dir, &self.owned(), command.as_deref())
    }

    fn touch(&self) {
        self.changed
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Everything neardup made here (earlier runs and this one) that exists now.
    fn owned(&self) -> BTreeSet<String> {
        let previous = self.previous.lock().unwrap();
        let made = self.made.lock().unwrap();
        previous
            .iter()
            .chain(made.iter())
            .filter(|n| fs::symlink_metadata(self.dir.join(n)).is_ok())
            .cloned()
            .collect()
    }

    fn check(&self, name: &str) -> Result<()> {
        if self.foreign.contains(name) {
            return Err(Error::Config(format!(
                "{} is not a file neardup made (the directory's record, {RECORD}, does not name it): it is left as it is; move it, or choose another output directory",
                self.shown.join(name).display()
            )));
        }
        let p = self.dir.join(name);
        if let Some(i) = self.inputs.iter().find(|i| inside(i, &p)) {
            return Err(Error::Config(format!(
                "{} would replace the input {}: choose another output directory",
                self.shown.join(name).display(),
                i.display()
            )));
        }
        Ok(())
    }

    /// Admits `names`: refuses a user's entry, records new ones ahead of their making (with
    /// one write of the record).
    fn admit(&self, names: &[String]) -> Result<()> {
        for name in names {
            self.check(name)?;
        }
        let previous = self.previous.lock().unwrap();
        let mut made = self.made.lock().unwrap();
        let mut new = false;
        for name in names {
            if made.insert(name.clone()) {
                self.touch();
                new |= !previous.contains(name);
            }
        }
        // New names are recorded before their files are made (written ahead).
        if new {
            let all: BTreeSet<String> = previous.iter().chain(made.iter()).cloned().collect();
            let command = self.command.lock().unwrap().clone();
            write_record(&self.dir, &all, command.as_deref())?;
        }
        Ok(())
    }

    /// Whether `name` is neardup's here: named by the record (a temporary too: each is
    /// recorded before it is made), made by this run, or the record's own temporary.
    fn owns(&self, name: &str) -> bool {
        let previous = self.previous.lock().unwrap();
        previous.contains(name)
            || self.made.lock().unwrap().contains(name)
            || temporary_with(name, &previous)
    }
}

/// Removes an entry neardup made: a file; a directory with a record of its own, by that
/// record (what the user put inside is left, and the directory with it); a store (made whole
/// and renamed into place), whole. Any other directory standing where neardup made an entry
/// is not neardup's: it is refused.
fn remove_owned(p: &Path) -> Result<()> {
    let meta = match fs::symlink_metadata(p) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(p, e)),
    };
    if !meta.is_dir() {
        return fs::remove_file(p).map_err(|e| Error::io(p, e));
    }
    if is_temporary(p) {
        // A killed run's temporary (a store being built), recorded before it was made.
        return fs::remove_dir_all(p).map_err(|e| Error::io(p, e));
    }
    if p.join(RECORD).is_file() {
        let record = read_record(p)?;
        let mut names: Vec<String> = record.iter().cloned().collect();
        // A corpus's manifest first: a corpus without it never looks whole.
        names.sort_by_key(|n| n != "manifest.json");
        for n in names {
            remove_owned(&p.join(n))?;
        }
        remove_temporaries(p, &record)?;
        let _ = fs::remove_file(p.join(RECORD));
        let _ = fs::remove_dir(p);
        return Ok(());
    }
    if claim_leftover(p) {
        // What a run killed while claiming the directory left: its lock, nothing else.
        for n in entries(p)? {
            let _ = fs::remove_file(p.join(n));
        }
        return fs::remove_dir(p).map_err(|e| Error::io(p, e));
    }
    removable(p)?;
    fs::remove_dir_all(p).map_err(|e| Error::io(p, e))
}

/// Whether `p` is a directory without a record that holds nothing but what a claim makes
/// before its record (the lock of a process that runs no more, the record's temporary): what
/// a run killed as it claimed the directory leaves. Removing it loses nothing of a user's.
fn claim_leftover(p: &Path) -> bool {
    if p.join(RECORD).exists() || is_store(p) {
        return false;
    }
    entries(p).is_ok_and(|names| {
        names.iter().all(|n| {
            if n == LOCK {
                let holder = fs::read_to_string(p.join(n)).unwrap_or_default();
                holder
                    .trim()
                    .parse::<u32>()
                    .map_or(true, |pid| !super::stale::alive(pid))
            } else {
                record_temporary(n)
            }
        })
    })
}

/// Removes the temporaries a killed run left in `dir` beside the entries `record` names (and
/// of the record itself): they are that run's own.
fn remove_temporaries(dir: &Path, record: &BTreeSet<String>) -> Result<()> {
    for n in entries(dir)? {
        if !temporary_with(&n, record) {
            continue;
        }
        let pid = n.rsplit_once('-').and_then(|(_, p)| p.parse::<u32>().ok());
        // Only a temporary of a process that runs no more is a leftover.
        if pid.is_none_or(|p| p == std::process::id() || super::stale::alive(p)) {
            continue;
        }
        let q = dir.join(&n);
        let _ = match fs::symlink_metadata(&q) {
            Ok(m) if m.is_dir() => fs::remove_dir_all(&q),
            Ok(_) => fs::remove_file(&q),
            Err(_) => Ok(()),
        };
    }
    Ok(())
}

/// Refuses an entry [`remove_owned`] would refuse or leave half removed, before anything is
/// removed: a directory neardup did not make, or one of neardup's that holds an entry of the
/// user's (at any depth).
fn removable(p: &Path) -> Result<()> {
    match fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() && !is_temporary(p) => {
            if !p.join(RECORD).is_file() && !is_store(p) {
                if claim_leftover(p) {
                    return Ok(());
                }
                return Err(Error::Config(format!(
                    "{} is a directory, and not one neardup made there (neither a store nor an output with its own record): it is left as it is; move it, or choose another output directory",
                    p.display()
                )));
            }
            if let Some(other) = foreign_entries(p)?.first() {
                return Err(Error::Config(format!(
                    "{} holds {other}, which neardup did not make there: the directory is left as it is; move {other} out of it, or choose another output directory",
                    p.display()
                )));
            }
            for n in read_record(p)? {
                removable(&p.join(n))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Whether `p` is named as a temporary neardup makes (and records before making it).
fn is_temporary(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|n| temporary_of(&n.to_string_lossy()).is_some())
}

/// The entries of `dir` (a directory neardup made: with a record, or a store of an earlier
/// version, which had none) that neardup did not make there: those its record does not name,
/// or in a store without a record, those not named as a store's columns are.
pub fn foreign_entries(dir: &Path) -> Result<Vec<String>> {
    if dir.join(RECORD).is_file() {
        return unrecorded(dir, &read_record(dir)?);
    }
    Ok(entries(dir)?
        .into_iter()
        .filter(|n| n != RECORD && n != LOCK && !store_column_name(n))
        .collect())
}

/// The entries of `dir` that `record` does not name (nor are temporaries of what it names):
/// the user's.
fn unrecorded(dir: &Path, record: &BTreeSet<String>) -> Result<Vec<String>> {
    Ok(entries(dir)?
        .into_iter()
        .filter(|n| n != RECORD && n != LOCK && !record.contains(n))
        .filter(|n| !temporary_with(n, record))
        .collect())
}

/// Whether `name` is named as the files of a store are (`manifest.json` and columns named
/// `NAME.u64`, `.u128`, `.u32`, `.u8`, `.f64`, `.loc`, `.bin`, `.idx`): how the files of a
/// store written before stores had records are told from a user's.
fn store_column_name(name: &str) -> bool {
    name == "manifest.json"
        || name.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && !stem.starts_with('.')
                && matches!(
                    ext,
                    "u64" | "u128" | "u32" | "u8" | "f64" | "loc" | "bin" | "idx"
                )
        })
}

/// The claim of this process on `dir`, if it has one.
fn claimed(dir: &Path) -> Option<Arc<State>> {
    let states: Vec<Arc<State>> = {
        let claims = CLAIMS.lock().unwrap_or_else(|e| e.into_inner());
        claims.iter().filter_map(Weak::upgrade).collect()
    };
    if states.is_empty() {
        return None;
    }
    let dir = resolve(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    });
    states.into_iter().find(|s| s.dir == dir)
}

/// Removes the leftovers of killed runs named `prefix` then a process id from `dir`: in a
/// directory this process has claimed, only those neardup made there (its record names them),
/// so that a user's file named like a temporary is left; elsewhere, every such leftover.
pub fn clean_stale(dir: &Path, prefix: &str) {
    match claimed(dir) {
        Some(s) => super::stale::clean_stale_where(dir, prefix, |n| s.owns(n)),
        // Elsewhere: a hidden temporary (`.NAME.tmp-PID`) is always a file, so a directory of
        // that name is the user's; a store's temporary (`NAME.tmp-PID`) is a directory of
        // store files only (with a record or not), so one holding anything else is the user's.
        None => super::stale::clean_stale_where(dir, prefix, |n| {
            let p = if dir.as_os_str().is_empty() {
                Path::new(".").join(n)
            } else {
                dir.join(n)
            };
            match fs::symlink_metadata(&p) {
                Ok(m) if m.is_dir() => {
                    !n.starts_with('.') && foreign_entries(&p).is_ok_and(|f| f.is_empty())
                }
                Ok(_) => true,
                Err(_) => false,
            }
        }),
    }
}

/// The command named by a `summary.json` neardup wrote in `dir` (the record names it): how
/// the output of an earlier version, whose record named no command, is told.
fn summary_command(dir: &Path, record: &BTreeSet<String>) -> Option<String> {
    if !record.contains("summary.json") {
        return None;
    }
    let bytes = fs::read(dir.join("summary.json")).ok()?;
    #[derive(Deserialize)]
    struct Head {
        command: String,
    }
    serde_json::from_slice::<Head>(&bytes)
        .ok()
        .map(|h| h.command)
}

/// Whether `dir` holds a neardup store: its `manifest.json` says `"format": "neardup-store"`
/// (looked for in the first bytes, where neardup writes it, else read whole: a manifest
/// rewritten by another program, its keys in another order, is a store's still).
pub fn is_store(dir: &Path) -> bool {
    const MARK: &[u8] = b"\"neardup-store\"";
    if marked(dir, "manifest.json", MARK) {
        return true;
    }
    #[derive(Deserialize)]
    struct Head {
        format: String,
    }
    let Ok(bytes) = fs::read(dir.join("manifest.json")) else {
        return false;
    };
    serde_json::from_slice::<Head>(&bytes).is_ok_and(|h| h.format == "neardup-store")
}

/// Whether `dir/name` holds `mark` within its first 256 bytes: how a file tells that neardup
/// wrote it (a store's or a corpus's manifest, a summary, a pairs file).
pub fn marked(dir: &Path, name: &str, mark: &[u8]) -> bool {
    fs::File::open(dir.join(name)).is_ok_and(|mut f| {
        let mut head = [0u8; 256];
        let n = std::io::Read::read(&mut f, &mut head).unwrap_or(0);
        head[..n].windows(mark.len()).any(|w| w == mark)
    })
}

/// Admits the making of `target` in a claimed directory of this process (its parent): refuses
/// a user's entry there, and records a new one before it is made. A target outside every
/// claimed directory is admitted as it is.
pub fn admit(target: &Path) -> Result<()> {
    admit_all(target, &[])
}

/// Admits `target` as [`admit`] does, and with it the entries `also` of the same directory
/// (the temporaries it is made under), in one write of the record.
pub fn admit_all(target: &Path, also: &[&Path]) -> Result<()> {
    let (Some(parent), Some(_)) = (target.parent(), target.file_name()) else {
        return Ok(());
    };
    let names: Vec<String> = std::iter::once(target)
        .chain(also.iter().copied())
        .filter_map(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| n != RECORD && n != LOCK)
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    match claimed(parent) {
        Some(s) => s.admit(&names),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_belong_to_their_entry() {
        assert_eq!(temporary_of(".keep.txt.tmp-123"), Some("keep.txt"));
        assert_eq!(temporary_of("store.tmp-9"), Some("store"));
        assert_eq!(temporary_of("store.old-9"), Some("store"));
        assert_eq!(temporary_of("store.tmp-x"), None);
        assert_eq!(temporary_of("keep.txt"), None);
    }

    #[test]
    fn a_users_files_are_never_admitted_and_new_names_are_recorded_ahead() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("out");
        fs::create_dir(&d).unwrap();
        fs::write(d.join("keep.txt"), "mine").unwrap();
        let out = OutDir::claim(&d, &[]).unwrap();
        assert!(admit(&d.join("keep.txt")).is_err());
        assert!(out.reserve(&["keep.txt"]).is_err());
        admit(&d.join("remove.tsv")).unwrap();
        // Recorded before the file exists: a kill now leaves it named.
        assert!(read_record(&d).unwrap().contains("remove.tsv"));
        fs::write(d.join("remove.tsv"), "x").unwrap();
        out.finish().unwrap();
        assert_eq!(
            read_record(&d).unwrap().into_iter().collect::<Vec<_>>(),
            vec!["remove.tsv".to_string()]
        );
        // The next run may replace what neardup made and removes only that.
        let out = OutDir::claim(&d, &[]).unwrap();
        admit(&d.join("remove.tsv")).unwrap();
        out.replace_previous(&[], "summary.json").unwrap();
        assert!(!d.join("remove.tsv").exists());
        assert_eq!(fs::read_to_string(d.join("keep.txt")).unwrap(), "mine");
        out.finish().unwrap();
        assert!(read_record(&d).unwrap().is_empty());
    }

    /// A run killed after it made a recorded directory (a corpus) and took its lock, before it
    /// wrote anything there, leaves a directory with a dead run's lock and no record: the next
    /// run removes it; one that holds a user's file, or the lock of a live run, is refused.
    #[test]
    fn a_directory_left_by_a_claim_killed_before_its_record_is_replaced() {
        let t = tempfile::tempdir().unwrap();
        let out = t.path().join("out");
        let corpus = out.join("corpus");
        let c = OutDir::claim(&out, &[]).unwrap();
        admit(&corpus).unwrap();
        fs::create_dir(&corpus).unwrap();
        c.finish().unwrap();
        // No process has this id (above Linux's pid_max); the empty lock of a kill between
        // its making and its writing is a dead run's too.
        for lock in ["4194999", ""] {
            fs::write(corpus.join(LOCK), lock).unwrap();
            let c = OutDir::claim(&out, &[]).unwrap();
            c.replace_previous(&[], "summary.json").unwrap();
            assert!(!corpus.exists(), "lock {lock:?}");
            admit(&corpus).unwrap();
            fs::create_dir(&corpus).unwrap();
            c.finish().unwrap();
        }
        // A live run's lock, or a user's file, and the directory is left as it is.
        for (name, body) in [
            (LOCK, std::process::id().to_string()),
            ("mine.txt", "mine".into()),
        ] {
            fs::write(corpus.join(name), &body).unwrap();
            let c = OutDir::claim(&out, &[]).unwrap();
            assert!(c.replace_previous(&[], "summary.json").is_err(), "{name}");
            assert_eq!(fs::read_to_string(corpus.join(name)).unwrap(), body);
            fs::remove_file(corpus.join(name)).unwrap();
            drop(c);
        }
    }

    #[test]
    fn outputs_overlapping_inputs_are_refused() {
        let t = tempfile::tempdir().unwrap();
        let crawl = t.path().join("crawl");
        fs::create_dir(&crawl).unwrap();
        fs::write(crawl.join("a.warc"), "x").unwrap();
        for out in [crawl.clone(), crawl.join("out"), t.path().to_path_buf()] {
            let e = OutDir::claim(&out, std::slice::from_ref(&crawl)).unwrap_err();
            assert!(e.to_string().contains("never writes where it reads"), "{e}");
        }
        let e = OutDir::claim(t.path(), &[crawl.join("a.warc")]).unwrap_err();
        assert!(e.to_string().contains("holds the input"), "{e}");
        // An input inside an entry neardup made there (its store) is allowed, not replaced.
        let out = t.path().join("o");
        let c = OutDir::claim(&out, &[]).unwrap();
        admit(&out.join("store")).unwrap();
        fs::create_dir(out.join("store")).unwrap();
        c.finish().unwrap();
        let c = OutDir::claim(&out, &[out.join("store")]).unwrap();
        assert!(c.reserve(&["store"]).is_err());
        c.replace_previous(&[], "summary.json").unwrap();
        assert!(out.join("store").is_dir());
    }
}
