//! Read-only memory maps of shard files, and bytes held in memory that stand in for one.
//!
//! The one place in the crate that maps files. Empty files cannot be mapped, so they come back
//! as an empty slice. A store made in memory (from Arrow tables a caller holds) keeps its
//! columns as [`Mapped::from_vec`]: the readers cannot tell them from a map.

use std::fs::File;
use std::ops::Deref;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use memmap2::Mmap;

use crate::{Error, Result};

/// A file's bytes, mapped read-only.
pub struct Mapped {
    map: Option<Mmap>,
    /// Bytes held in memory instead (8-byte aligned, as a map is page aligned).
    owned: Owned,
    /// The bytes before this have been handed back ([`Mapped::release_before`]).
    released: AtomicUsize,
}

/// Pages are handed back in steps of at least this many bytes (one call per step).
const RELEASE_STEP: usize = 16 << 20;
/// Released ranges start and end on multiples of this (any page size up to 64 KiB divides it).
const RELEASE_ALIGN: usize = 64 << 10;

impl Mapped {
    /// Hands the mapped pages before `pos` back to the kernel once 16 MiB or more lie between
    /// the last release and `pos`, so that a shard read front to back holds in this process's
    /// resident memory only the part being read, not every page read so far (a 235 MB WARC.gz
    /// shard otherwise counts whole in the peak RSS). Bytes touched again read the same: they
    /// come back from the file.
    pub fn release_before(&self, pos: usize) {
        #[cfg(unix)]
        if let Some(map) = &self.map {
            let done = self.released.load(Ordering::Relaxed);
            let end = pos.min(map.len()) & !(RELEASE_ALIGN - 1);
            if end >= done + RELEASE_STEP {
                // SAFETY: the map is a read-only shared mapping of a file that is not modified
                // during the run (see `map`). MADV_DONTNEED on such a mapping only drops the
                // process's pages; any later access faults them in again from the file with the
                // same contents, so no reference into the map ever sees other bytes. The range
                // lies inside the map and starts on a page boundary.
                let _ = unsafe {
                    map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, done, end - done)
                };
                self.released.store(end, Ordering::Relaxed);
            }
        }
        #[cfg(not(unix))]
        let _ = pos;
    }
}

impl Mapped {
    /// Hands every mapped page back to the kernel, whatever the step: for a column read whole
    /// in one pass and not again soon (a band of MinHash keys). Bytes touched again read the
    /// same.
    pub fn release_all(&self) {
        #[cfg(unix)]
        if let Some(map) = &self.map {
            // SAFETY: as in `release_before`: a read-only shared mapping of a file not modified
            // during the run; dropping its pages only makes later reads fault them in again
            // from the file, with the same contents. The range is the whole map.
            let _ = unsafe {
                map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, map.len())
            };
            self.released.store(map.len(), Ordering::Relaxed);
        }
    }
}

impl Mapped {
    /// Whether the bytes are a map of a file (not bytes held in memory).
    pub fn is_file(&self) -> bool {
        self.map.is_some()
    }
}

/// Bytes in memory, on an 8-byte boundary.
enum Owned {
    /// A byte vector that starts on one (as large allocations do): kept as it is.
    Bytes(Vec<u8>),
    /// Words holding the bytes, and how many bytes.
    Words(Vec<u64>, usize),
}

impl Deref for Mapped {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match (&self.map, &self.owned) {
            (Some(m), _) => m,
            (None, Owned::Bytes(b)) => b,
            (None, Owned::Words(w, n)) => &bytemuck::cast_slice(w)[..*n],
        }
    }
}

impl Mapped {
    /// `bytes` held in memory, read as a map of a file holding them would be (aligned as a
    /// map is, for the columns read as `u64` and wider): kept without a copy where they start
    /// on an 8-byte boundary, copied into words otherwise.
    pub fn from_vec(bytes: Vec<u8>) -> Mapped {
        if !(bytes.as_ptr() as usize).is_multiple_of(8) {
            return Mapped::copied(&bytes);
        }
        Mapped {
            map: None,
            owned: Owned::Bytes(bytes),
            released: AtomicUsize::new(0),
        }
    }

    /// `bytes` copied into words.
    fn copied(bytes: &[u8]) -> Mapped {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        Mapped {
            map: None,
            owned: Owned::Words(words, bytes.len()),
            released: AtomicUsize::new(0),
        }
    }
}

/// Maps `path` read-only.
pub fn map(path: &Path) -> Result<Mapped> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    if len == 0 {
        return Ok(Mapped {
            map: None,
            owned: Owned::Words(Vec::new(), 0),
            released: AtomicUsize::new(0),
        });
    }
    // The length is the one just read: the map does not ask the file for it again.
    let map_len = usize::try_from(len).map_err(|_| {
        Error::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "file too large to map"),
        )
    })?;
    // SAFETY: the map is read-only and private to this process. A shard truncated by another
    // process while mapped would fault on access; crawl shards are immutable inputs and the
    // documentation says not to modify them during a run.
    let map = unsafe { memmap2::MmapOptions::new().len(map_len).map(&file) }
        .map_err(|e| Error::io(path, e))?;
    #[cfg(unix)]
    {
        // Shards are read front to back once.
        let _ = map.advise(memmap2::Advice::Sequential);
    }
    Ok(Mapped {
        map: Some(map),
        owned: Owned::Words(Vec::new(), 0),
        released: AtomicUsize::new(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_pages_read_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..40u32 << 20).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        let m = map(&p).unwrap();
        assert_eq!(&m[..], &data[..]);
        for pos in [1 << 20, 17 << 20, 18 << 20, 35 << 20, usize::MAX] {
            m.release_before(pos);
            assert_eq!(&m[..], &data[..], "after a release before {pos}");
        }
        assert!(m.released.load(Ordering::Relaxed) >= 32 << 20);
        let empty = dir.path().join("e");
        std::fs::write(&empty, b"").unwrap();
        map(&empty).unwrap().release_before(1 << 30);
    }

    #[test]
    fn bytes_in_memory_read_as_mapped_and_aligned() {
        for n in [0usize, 1, 7, 8, 9, 1000] {
            let data: Vec<u8> = (0..n).map(|i| (i * 7 % 256) as u8).collect();
            let m = Mapped::from_vec(data.clone());
            assert_eq!(&m[..], &data[..]);
            assert_eq!(m.as_ptr() as usize % 8, 0);
            // Bytes that start off an 8-byte boundary are copied onto one.
            let padded: Vec<u8> = std::iter::once(0).chain(data.iter().copied()).collect();
            let shifted = Mapped::copied(&padded[1..]);
            assert_eq!(&shifted[..], &data[..]);
            assert_eq!(shifted.as_ptr() as usize % 8, 0);
            m.release_before(usize::MAX);
            m.release_all();
            assert_eq!(&m[..], &data[..]);
        }
    }
}
