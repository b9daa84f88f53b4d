//! The files the split stages hand each other: pairs of 64-bit numbers (a key or a document
//! and a document), little-endian, written whole under a temporary name and renamed into
//! place, so that a reader sees a file whole or not at all and a task run again replaces
//! what it wrote.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::base::atomic::AtomicFile;
use crate::join::lsh::KeyRange;
use crate::Result;

/// Bytes of buffers the memory formulas allow a task per partition it writes to; a partitioned
/// file ([`Buckets`]) holds at most a quarter of it a partition.
pub const BUFFER: usize = 1 << 20;

/// A 64-bit mix of `a` and `b` (xxh3 of their bytes): keys of different kinds and bands are
/// spread alike over the key space, and documents over the partitions.
pub fn mix(a: u64, b: u64) -> u64 {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&a.to_le_bytes());
    bytes[8..].copy_from_slice(&b.to_le_bytes());
    xxhash_rust::xxh3::xxh3_64(&bytes)
}

/// The partition that owns document `d` in the components and verify stages.
pub fn owner(d: u64, parts: u32) -> u32 {
    KeyRange::part_of(mix(d, 0x5eed), parts)
}

/// An order-free digest of a set of directed edges: equal sets, equal signatures (and a
/// changed set, a changed signature but with odds of 2^-128).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    pub edges: u64,
    pub sum: u64,
    pub xor: u64,
}

impl Signature {
    /// The signature of `edges` (distinct).
    pub fn of(edges: &[[u64; 2]]) -> Signature {
        edges
            .par_iter()
            .map(|e| {
                let h = mix(e[0], e[1]);
                Signature {
                    edges: 1,
                    sum: h,
                    xor: h.rotate_left(17) ^ 0x9e37_79b9_7f4a_7c15,
                }
            })
            .reduce(Signature::default, Signature::and)
    }

    /// The signature of the union of two disjoint sets.
    pub fn and(self, o: Signature) -> Signature {
        Signature {
            edges: self.edges + o.edges,
            sum: self.sum.wrapping_add(o.sum),
            xor: self.xor ^ o.xor,
        }
    }
}

/// `bytes` as pairs; `path` names them in an error.
fn pairs(path: &Path, bytes: &[u8]) -> Result<Vec<[u64; 2]>> {
    if !bytes.len().is_multiple_of(16) {
        return Err(damaged(
            path,
            format!("{} bytes, not whole pairs of 64-bit numbers", bytes.len()),
        ));
    }
    Ok(bytes
        .chunks_exact(16)
        .map(|c| {
            let n = |i: usize| u64::from_le_bytes(c[i..i + 8].try_into().expect("8 bytes"));
            [n(0), n(8)]
        })
        .collect())
}

fn damaged(path: &Path, what: String) -> crate::Error {
    crate::Error::Config(format!(
        "{}: {what} (a damaged file of a split run)",
        path.display()
    ))
}

/// Partition `p`'s pairs in each of the partitioned files `paths` ([`Buckets`]), in order.
pub fn read_parts(paths: &[PathBuf], p: u32) -> Result<Vec<[u64; 2]>> {
    let mut out = Vec::new();
    for path in paths {
        out.extend(read_part(path, p)?);
    }
    Ok(out)
}

/// Partition `p`'s pairs in the partitioned file `path` ([`Buckets`]): each chunk's header
/// read, and only `p`'s pairs after it.
pub fn read_part(path: &Path, p: u32) -> Result<Vec<[u64; 2]>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).map_err(|e| crate::Error::io(path, e))?;
    let len = f.metadata().map_err(|e| crate::Error::io(path, e))?.len();
    let mut head = [0u8; 8];
    let mut at = 0u64;
    let mut out = Vec::new();
    while at < len {
        f.seek(SeekFrom::Start(at))
            .map_err(|e| crate::Error::io(path, e))?;
        f.read_exact(&mut head)
            .map_err(|e| crate::Error::io(path, e))?;
        let parts = u64::from_le_bytes(head);
        if parts == 0 || parts > 1 << 20 || p as u64 >= parts {
            return Err(damaged(
                path,
                format!("a chunk of {parts} partitions at byte {at}"),
            ));
        }
        let mut counts = vec![0u8; parts as usize * 8];
        f.read_exact(&mut counts)
            .map_err(|e| crate::Error::io(path, e))?;
        let counts: Vec<u64> = counts
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let longer = || damaged(path, format!("a chunk at byte {at} longer than the file"));
        let sum = |c: &[u64]| c.iter().try_fold(0u64, |a, b| a.checked_add(*b));
        let before = sum(&counts[..p as usize]).ok_or_else(longer)?;
        let all = sum(&counts).ok_or_else(longer)?;
        let body = at + 8 + 8 * parts;
        let end = all
            .checked_mul(16)
            .and_then(|b| b.checked_add(body))
            .filter(|e| *e <= len)
            .ok_or_else(longer)?;
        f.seek(SeekFrom::Start(body + 16 * before))
            .map_err(|e| crate::Error::io(path, e))?;
        let mut bytes = vec![0u8; 16 * counts[p as usize] as usize];
        f.read_exact(&mut bytes)
            .map_err(|e| crate::Error::io(path, e))?;
        out.extend(pairs(path, &bytes)?);
        at = end;
    }
    Ok(out)
}

/// Bytes of pairs a [`Buckets`] holds before it writes them out as a chunk, at most.
const CHUNK_BYTES: usize = 16 << 20;

/// Pairs for every partition in one file, so that a task writes one file however many
/// partitions there are and a reader reads its partition's pairs alone: a sequence of chunks,
/// each the number of partitions (u64), each partition's count of pairs (u64), and the pairs
/// partition by partition. Pairs are held in memory up to a quarter of [`BUFFER`] a partition
/// (and [`CHUNK_BYTES`] in all) before a chunk is written; the file is committed whole.
pub struct Buckets {
    file: AtomicFile,
    held: Vec<Vec<[u64; 2]>>,
    pairs: usize,
    limit: usize,
}

impl Buckets {
    /// The partitioned file `path` of `parts` partitions (its directory must exist).
    pub fn create(parts: u32, path: &Path) -> Result<Buckets> {
        Ok(Buckets {
            file: AtomicFile::create_unscanned(path)?,
            held: vec![Vec::new(); parts as usize],
            pairs: 0,
            // A quarter of the megabyte a partition's file had (vectors that grow by doubling
            // hold up to twice what they keep, and a stage writes two such files), so a task's
            // memory stays within the stage's formula.
            limit: (BUFFER / 4 * parts as usize).clamp(BUFFER / 4, CHUNK_BYTES) / 16,
        })
    }

    /// Appends pair `x` to partition `p`.
    pub fn push(&mut self, p: u32, x: [u64; 2]) -> Result<()> {
        self.held[p as usize].push(x);
        self.pairs += 1;
        if self.pairs >= self.limit {
            self.chunk()?;
        }
        Ok(())
    }

    /// Writes the pairs held as a chunk.
    fn chunk(&mut self) -> Result<()> {
        let mut head = Vec::with_capacity(8 * (self.held.len() + 1));
        head.extend_from_slice(&(self.held.len() as u64).to_le_bytes());
        for h in &self.held {
            head.extend_from_slice(&(h.len() as u64).to_le_bytes());
        }
        self.file.put(&head)?;
        let mut bytes = Vec::new();
        for h in &mut self.held {
            bytes.clear();
            bytes.reserve(16 * h.len());
            for x in h.iter() {
                bytes.extend_from_slice(&x[0].to_le_bytes());
                bytes.extend_from_slice(&x[1].to_le_bytes());
            }
            self.file.put(&bytes)?;
            h.clear();
        }
        self.pairs = 0;
        Ok(())
    }

    /// Writes what is held and renames the file into place.
    pub fn commit(mut self) -> Result<()> {
        if self.pairs > 0 {
            self.chunk()?;
        }
        self.file.commit()
    }
}

/// Creates directory `dir` (and its parents).
pub fn dir(dir: PathBuf) -> Result<PathBuf> {
    std::fs::create_dir_all(&dir).map_err(|e| crate::Error::io(&dir, e))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_written_in_buckets_read_back_in_order() {
        let t = std::env::temp_dir().join(format!("neardup-records-{}", std::process::id()));
        let d = dir(t.clone()).unwrap();
        let xs: Vec<[u64; 2]> = (0..100_000u64).map(|i| [mix(i, 1), u64::MAX - i]).collect();
        // One chunk, and many (a small limit), and a partition with no pairs.
        for limit in [usize::MAX, 777] {
            let path = d.join("parts.bin");
            let mut b = Buckets::create(4, &path).unwrap();
            b.limit = limit;
            for x in &xs {
                b.push((x[0] % 3) as u32, *x).unwrap();
            }
            b.commit().unwrap();
            for p in 0..4u64 {
                let want: Vec<[u64; 2]> = xs.iter().filter(|x| x[0] % 3 == p).copied().collect();
                assert_eq!(read_part(&path, p as u32).unwrap(), want);
            }
            let e = read_part(&path, 4).unwrap_err().to_string();
            assert!(e.contains("parts.bin"), "{e}");
        }
        // Counts that overflow: an error naming the file, not a panic.
        let mut bad = Vec::new();
        bad.extend_from_slice(&2u64.to_le_bytes());
        bad.extend_from_slice(&u64::MAX.to_le_bytes());
        bad.extend_from_slice(&2u64.to_le_bytes());
        std::fs::write(d.join("huge.bin"), &bad).unwrap();
        let e = read_part(&d.join("huge.bin"), 1).unwrap_err().to_string();
        assert!(e.contains("huge.bin"), "{e}");
        // Cut short: an error naming the file, not a panic.
        let whole = std::fs::read(d.join("parts.bin")).unwrap();
        std::fs::write(d.join("cut.bin"), &whole[..whole.len() - 5]).unwrap();
        let e = read_part(&d.join("cut.bin"), 0).unwrap_err().to_string();
        assert!(e.contains("cut.bin"), "{e}");
        let e = pairs(&d.join("bad.bin"), &[0u8; 17])
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad.bin") && e.contains("17 bytes"), "{e}");
        std::fs::remove_dir_all(&t).unwrap();
    }

    #[test]
    fn documents_spread_over_partitions() {
        let parts = 8;
        let mut n = [0u32; 8];
        for d in 0..80_000u64 {
            n[owner(d, parts) as usize] += 1;
        }
        assert!(n.iter().all(|c| (9_000..11_000).contains(c)), "{n:?}");
    }
}
