//! The files the split stages hand each other: pairs of 64-bit numbers (a key or a document
//! and a document), little-endian, written whole under a temporary name and renamed into
//! place, so that a reader sees a file whole or not at all and a task run again replaces
//! what it wrote.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::base::atomic::AtomicFile;
use crate::join::lsh::KeyRange;
use crate::Result;

/// Bytes buffered per open file.
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

/// Reads a file of pairs whole.
pub fn read(path: &Path) -> Result<Vec<[u64; 2]>> {
    let bytes = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    if bytes.len() % 16 != 0 {
        return Err(crate::Error::Config(format!(
            "{}: {} bytes, not whole pairs of 64-bit numbers (a damaged file of a split run)",
            path.display(),
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(16)
        .map(|c| {
            let n = |i: usize| u64::from_le_bytes(c[i..i + 8].try_into().expect("8 bytes"));
            [n(0), n(8)]
        })
        .collect())
}

/// Reads and concatenates the files `paths`.
pub fn read_all(paths: &[PathBuf]) -> Result<Vec<[u64; 2]>> {
    let mut out = Vec::new();
    for p in paths {
        out.extend(read(p)?);
    }
    Ok(out)
}

/// One file per partition, written as pairs arrive and committed together.
pub struct Buckets {
    files: Vec<AtomicFile>,
}

impl Buckets {
    /// Files `path(p)` for every partition `p` of `parts` (their directories must exist).
    pub fn create(parts: u32, path: impl Fn(u32) -> PathBuf) -> Result<Buckets> {
        Ok(Buckets {
            files: (0..parts)
                .map(|p| AtomicFile::create(&path(p)))
                .collect::<Result<_>>()?,
        })
    }

    /// Appends pair `x` to partition `p`'s file.
    pub fn push(&mut self, p: u32, x: [u64; 2]) -> Result<()> {
        let f = &mut self.files[p as usize];
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&x[0].to_le_bytes());
        b[8..].copy_from_slice(&x[1].to_le_bytes());
        f.write_all(&b).map_err(|e| crate::Error::io(f.path(), e))
    }

    /// Renames every file into place.
    pub fn commit(self) -> Result<()> {
        for f in self.files {
            f.commit()?;
        }
        Ok(())
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
        let mut b = Buckets::create(3, |p| d.join(format!("{p}.bin"))).unwrap();
        let xs: Vec<[u64; 2]> = (0..100u64).map(|i| [mix(i, 1), u64::MAX - i]).collect();
        for x in &xs {
            b.push((x[0] % 3) as u32, *x).unwrap();
        }
        b.commit().unwrap();
        for p in 0..3u64 {
            let want: Vec<[u64; 2]> = xs.iter().filter(|x| x[0] % 3 == p).copied().collect();
            assert_eq!(read(&d.join(format!("{p}.bin"))).unwrap(), want);
        }
        std::fs::write(d.join("bad.bin"), [0u8; 17]).unwrap();
        let e = read(&d.join("bad.bin")).unwrap_err().to_string();
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
