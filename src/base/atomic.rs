//! Files that appear whole or not at all.
//!
//! An [`AtomicFile`] writes into a hidden temporary name beside its target and renames it into
//! place on [`AtomicFile::commit`]; dropped without a commit (an error, a panic), it removes
//! the temporary file. A reader therefore never sees a half-written output.

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
}

impl AtomicFile {
    /// Starts writing `target` (its directory must exist).
    pub fn create(target: &Path) -> Result<AtomicFile> {
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = target.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
        let f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        Ok(AtomicFile {
            target: target.to_path_buf(),
            tmp,
            w: Some(BufWriter::with_capacity(1 << 20, f)),
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.target
    }

    /// Flushes and renames into place.
    pub fn commit(mut self) -> Result<()> {
        let w = self.w.take().expect("written once");
        let f = w
            .into_inner()
            .map_err(|e| Error::io(&self.target, e.into_error()))?;
        f.sync_all().map_err(|e| Error::io(&self.target, e))?;
        fs::rename(&self.tmp, &self.target).map_err(|e| Error::io(&self.target, e))
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
        if self.w.is_some() {
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
