//! Texts set aside on disk while a job reads them several times.
//!
//! A [`Spool`] is a hidden file of numbered texts, appended in any order (by parallel readers)
//! and then read back many times, in blocks of whole texts in file order or one text at a time,
//! with positioned reads: nothing is memory-mapped, so the texts stay in the page cache that
//! the kernel manages and never in the process's own memory. Its cost in memory is 16 bytes a
//! text (where it is). The file is the run's own: it is registered for removal on an interrupt
//! and removed when the spool is dropped.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::{Error, Result};

/// A text's place in the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Place {
    offset: u64,
    len: u32,
}

/// Bytes a block read by [`Spool::block`] holds at most (unless one text is longer).
pub const BLOCK_BYTES: u64 = 1 << 20;

/// The spool while it is written.
pub struct SpoolWriter {
    out: Mutex<(BufWriter<File>, u64)>,
    owned: Owned,
}

/// The file, the run's own: removed when dropped, and on an interrupt until then.
struct Owned {
    path: PathBuf,
    _interrupt: super::interrupt::Temporary,
}

impl Drop for Owned {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// The spool, written: its texts read back by number.
pub struct Spool {
    file: File,
    places: Vec<Place>,
    /// Blocks of texts in file order: each the numbers of its texts.
    blocks: Vec<Vec<u32>>,
    bytes: u64,
    owned: Owned,
}

impl SpoolWriter {
    /// Makes a new spool file in `dir`, a hidden temporary named after `name` and this
    /// process (a killed run's leftover of the same name is removed first).
    pub fn create_in(dir: &Path, name: &str) -> Result<SpoolWriter> {
        let prefix = format!(".{name}.tmp-");
        let path = dir.join(format!("{prefix}{}", std::process::id()));
        // In an output directory the spool is recorded as neardup's before it is made, so
        // that whichever run comes next removes a killed run's spool.
        super::claim::admit(&path)?;
        super::claim::clean_stale(dir, &prefix);
        Self::create(&path)
    }

    /// Makes a new spool file at `path` (which must not exist).
    pub fn create(path: &Path) -> Result<SpoolWriter> {
        let (t, f) = super::interrupt::register_with(path, || {
            OpenOptions::new()
                .write(true)
                .read(true)
                .create_new(true)
                .open(path)
                .map_err(|e| Error::io(path, e))
        })?;
        Ok(SpoolWriter {
            out: Mutex::new((BufWriter::with_capacity(1 << 20, f), 0)),
            owned: Owned {
                path: path.to_path_buf(),
                _interrupt: t,
            },
        })
    }

    /// Appends `text`; returns where it went (to give [`SpoolWriter::finish`]).
    pub fn append(&self, text: &str) -> Result<(u64, u32)> {
        let len = u32::try_from(text.len()).map_err(|_| {
            Error::io(
                &self.owned.path,
                std::io::Error::new(std::io::ErrorKind::InvalidInput, "a text of 4 GiB or more"),
            )
        })?;
        let mut g = self.out.lock().unwrap_or_else(|e| e.into_inner());
        let offset = g.1;
        g.0.write_all(text.as_bytes())
            .map_err(|e| Error::io(&self.owned.path, e))?;
        g.1 += u64::from(len);
        Ok((offset, len))
    }

    /// Ends writing. `places[i]` is where text `i` went ([`SpoolWriter::append`]'s answer).
    pub fn finish(self, places: &[(u64, u32)]) -> Result<Spool> {
        let (w, bytes) = self.out.into_inner().unwrap_or_else(|e| e.into_inner());
        let file = w
            .into_inner()
            .map_err(|e| Error::io(&self.owned.path, e.into_error()))?;
        let places: Vec<Place> = places
            .iter()
            .map(|&(offset, len)| Place { offset, len })
            .collect();
        let mut order: Vec<u32> = (0..places.len() as u32).collect();
        order.sort_unstable_by_key(|&i| places[i as usize].offset);
        let mut blocks: Vec<Vec<u32>> = Vec::new();
        let mut size = 0u64;
        for i in order {
            let len = u64::from(places[i as usize].len);
            match blocks.last_mut() {
                Some(b) if size + len <= BLOCK_BYTES => b.push(i),
                _ => {
                    blocks.push(vec![i]);
                    size = 0;
                }
            }
            size += len;
        }
        Ok(Spool {
            file,
            places,
            blocks,
            bytes,
            owned: self.owned,
        })
    }
}

impl Spool {
    /// Number of texts.
    pub fn len(&self) -> usize {
        self.places.len()
    }

    /// Whether it holds no text.
    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// Bytes of text in all.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Number of blocks ([`Spool::block`]).
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        read_exact_at(&self.file, buf, offset).map_err(|e| Error::io(&self.owned.path, e))
    }

    fn text<'a>(&self, bytes: &'a [u8], at: u64) -> Result<&'a str> {
        std::str::from_utf8(bytes).map_err(|e| Error::Parse {
            path: self.owned.path.clone(),
            offset: at + e.valid_up_to() as u64,
            msg: "the spool file changed while it was read".into(),
        })
    }

    /// Text `i`, read into `buf`.
    pub fn get<'a>(&self, i: u32, buf: &'a mut Vec<u8>) -> Result<&'a str> {
        let p = self.places[i as usize];
        buf.resize(p.len as usize, 0);
        self.read_at(p.offset, buf)?;
        self.text(buf, p.offset)
    }

    /// Calls `f(i, text)` for each text of block `b`, in file order, reading the block into
    /// `buf` at once.
    pub fn block(&self, b: usize, buf: &mut Vec<u8>, mut f: impl FnMut(u32, &str)) -> Result<()> {
        let ids = &self.blocks[b];
        let (Some(&first), Some(&last)) = (ids.first(), ids.last()) else {
            return Ok(());
        };
        let start = self.places[first as usize].offset;
        let end = {
            let p = self.places[last as usize];
            p.offset + u64::from(p.len)
        };
        buf.resize((end - start) as usize, 0);
        self.read_at(start, buf)?;
        for &i in ids {
            let p = self.places[i as usize];
            let s = (p.offset - start) as usize;
            let t = self.text(&buf[s..s + p.len as usize], p.offset)?;
            f(i, t);
        }
        Ok(())
    }
}

/// Fills `buf` from `file` at `offset` (a positioned read: the file's cursor is not used, so
/// threads may share the file).
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < buf.len() {
            match std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            )? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => done += n,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_read_back_by_number_and_in_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".spool");
        let w = SpoolWriter::create(&path).unwrap();
        assert!(
            SpoolWriter::create(&path).is_err(),
            "an existing file is never taken"
        );
        let texts = ["zwei", "", "drei 三", "eins"];
        // Appended out of order, as parallel readers do.
        let mut places = vec![(0, 0); texts.len()];
        for i in [2, 0, 3, 1] {
            places[i] = w.append(texts[i]).unwrap();
        }
        let s = w.finish(&places).unwrap();
        assert_eq!(s.len(), 4);
        assert_eq!(s.bytes(), texts.iter().map(|t| t.len() as u64).sum::<u64>());
        let mut buf = Vec::new();
        for (i, t) in texts.iter().enumerate() {
            assert_eq!(s.get(i as u32, &mut buf).unwrap(), *t);
        }
        let mut seen = Vec::new();
        for b in 0..s.blocks() {
            s.block(b, &mut buf, |i, t| seen.push((i, t.to_string())))
                .unwrap();
        }
        // File order: the order of appending.
        let order: Vec<u32> = seen.iter().map(|x| x.0).collect();
        assert_eq!(order, vec![2, 0, 3, 1]);
        assert!(seen.iter().all(|(i, t)| texts[*i as usize] == t));
        drop(s);
        assert!(!path.exists(), "the spool removes its file");
    }
}
