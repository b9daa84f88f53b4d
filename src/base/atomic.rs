//! Files that appear whole or not at all.
//!
//! An [`AtomicFile`] writes into a hidden temporary name beside its target and renames it into
//! place on [`AtomicFile::commit`]; dropped without a commit (an error, a panic), it removes
//! the temporary file. A reader therefore never sees a half-written output. A run killed
//! before it could remove its temporary leaves it behind; the next run writing the same target
//! removes such leftovers once their process is gone (`claim::clean_stale`: in an output
//! directory, only those its record names). In an output directory the temporary's name is
//! recorded with the target's before either is made, like every file neardup makes there.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// A buffered file written under a temporary name until committed.
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    tmp: PathBuf,
    w: Option<BufWriter<File>>,
    /// The target is a device, a pipe or a socket (`-o /dev/null`, a FIFO): written straight
    /// to, never replaced by a rename or removed.
    direct: bool,
    /// Renamed into place: the temporary is gone.
    committed: bool,
    _interrupt: Option<super::interrupt::Temporary>,
}

impl AtomicFile {
    /// Starts writing `target` (its directory must exist). A target that exists and is
    /// neither a regular file nor a directory (a device such as `/dev/null`, a named pipe) is
    /// written to directly: renaming a file over it would replace the device itself.
    pub fn create(target: &Path) -> Result<AtomicFile> {
        AtomicFile::create_with(target, true)
    }

    /// As [`AtomicFile::create`], for a file of a work directory that is removed whole when its
    /// run ends (a split run's, where a stage writes many files into one folder): its folder is
    /// not scanned for leftovers, so that making a file costs the same however many are there.
    pub fn create_unscanned(target: &Path) -> Result<AtomicFile> {
        AtomicFile::create_with(target, false)
    }

    fn create_with(target: &Path, scan: bool) -> Result<AtomicFile> {
        if let Ok(m) = fs::metadata(target) {
            if !m.is_file() && !m.is_dir() {
                let f = fs::OpenOptions::new()
                    .write(true)
                    .open(target)
                    .map_err(|e| Error::io(target, e))?;
                return Ok(AtomicFile {
                    target: target.to_path_buf(),
                    tmp: target.to_path_buf(),
                    w: Some(BufWriter::with_capacity(1 << 20, f)),
                    direct: true,
                    committed: false,
                    _interrupt: None,
                });
            }
        }
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.tmp-");
        let tmp = target.with_file_name(format!("{prefix}{}", std::process::id()));
        super::claim::admit_all(target, &[&tmp])?;
        if let (Some(dir), true) = (target.parent(), scan) {
            super::claim::clean_stale(dir, &prefix);
        }
        let (registered, f) = super::interrupt::register_with(&tmp, || File::create(&tmp))
            .map_err(|e| Error::io(&tmp, e))?;
        Ok(AtomicFile {
            target: target.to_path_buf(),
            _interrupt: Some(registered),
            tmp,
            w: Some(BufWriter::with_capacity(1 << 20, f)),
            direct: false,
            committed: false,
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.target
    }

    /// Flushes and renames into place. On failure (a full disk at the last flush, say) the
    /// temporary is removed as the file is dropped.
    pub fn commit(mut self) -> Result<()> {
        let w = self.w.take().expect("written once");
        let f = w
            .into_inner()
            .map_err(|e| Error::io(&self.target, e.into_error()))?;
        if self.direct {
            return Ok(());
        }
        f.sync_all().map_err(|e| Error::io(&self.target, e))?;
        fs::rename(&self.tmp, &self.target).map_err(|e| Error::io(&self.target, e))?;
        self.committed = true;
        Ok(())
    }

    /// Writes the whole of `bytes`, naming the file on failure.
    pub fn put(&mut self, bytes: &[u8]) -> Result<()> {
        match self.write_all(bytes) {
            Ok(()) => Ok(()),
            Err(e) => Err(Error::io(&self.target, e)),
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.w.as_mut().expect("not committed").write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.w.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed && !self.direct {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `target` atomically.
pub fn write(target: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(target)?;
    f.put(bytes)?;
    f.commit()
}

/// Writes `bytes` to `target` atomically, its folder not scanned for leftovers
/// ([`AtomicFile::create_unscanned`]).
pub fn write_unscanned(target: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create_unscanned(target)?;
    f.put(bytes)?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftovers_of_gone_processes_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // Above any pid the kernel hands out (pid_max is at most 2^22).
        let gone = d.join(".out.tsv.tmp-4999999");
        // Process 1 always runs.
        let live = d.join(".out.tsv.tmp-1");
        let other = d.join(".out.tsv.tmp-notes");
        let unrelated = d.join(".other.tsv.tmp-4999999");
        for p in [&gone, &live, &other, &unrelated] {
            fs::write(p, "x").unwrap();
        }
        write(&d.join("out.tsv"), b"done").unwrap();
        assert!(!gone.exists(), "a dead run's temporary stays");
        assert!(live.exists() && other.exists() && unrelated.exists());
        assert_eq!(fs::read(d.join("out.tsv")).unwrap(), b"done");
    }

    #[test]
    fn a_commit_that_fails_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        // The rename fails: the target is a directory with something in it.
        let target = dir.path().join("out.tsv");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("inner"), "x").unwrap();
        let mut f = AtomicFile::create(&target).unwrap();
        f.put(b"data").unwrap();
        assert!(f.commit().is_err());
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("out.tsv")]);
    }
}
