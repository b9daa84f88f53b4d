//! Read-only memory maps of shard files.
//!
//! The one place in the crate that maps files. Empty files cannot be mapped, so they come back
//! as an empty slice.

use std::fs::File;
use std::ops::Deref;
use std::path::Path;

use memmap2::Mmap;

use crate::{Error, Result};

/// A file's bytes, mapped read-only.
pub struct Mapped {
    map: Option<Mmap>,
}

impl Deref for Mapped {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}

/// Maps `path` read-only.
pub fn map(path: &Path) -> Result<Mapped> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len == 0 {
        return Ok(Mapped { map: None });
    }
    // SAFETY: the map is read-only and private to this process. A shard truncated by another
    // process while mapped would fault on access; crawl shards are immutable inputs and the
    // documentation says not to modify them during a run.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    #[cfg(unix)]
    {
        // Shards are read front to back once.
        let _ = map.advise(memmap2::Advice::Sequential);
    }
    Ok(Mapped { map: Some(map) })
}
