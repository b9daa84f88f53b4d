//! `pairs.bin`: a join's result in its compact form ([`PairGraph`]), so later stages (sweeps,
//! clusters at another tau) reuse a join instead of running it again.
//!
//! Layout (little-endian; docs/FORMATS.md is the reference): a 64-byte [`Header`], then
//! `members` u32 document indices, `units + 1` u32 unit starts, and `edges` 12-byte [`Edge`]s.
//! The header records the join's tau and tau128 and a digest of the corpus it was made from;
//! reading refuses a file whose digest or document count does not match the stores given.
//!
//! Version 2 adds text scores: when the header's shingle size is not 0, units are units of
//! identical text (verification split them), and an overlap section follows the edges: per
//! edge, three u32 (shared shingles, shingles of u, shingles of v), or `u32::MAX` shared
//! shingles for an edge that was not compared. Version 1 files still read.

use std::path::Path;

use bytemuck::{Pod, Zeroable};

use super::graph::{Edge, PairGraph};
use crate::base::atomic::AtomicFile;
use crate::{Error, Result};

/// File magic.
pub const MAGIC: [u8; 8] = *b"NDPAIRS\0";
/// Format version written.
pub const VERSION: u32 = 2;
/// Shared shingles of an edge that was not compared.
pub const NOT_COMPARED: u32 = u32::MAX;
/// `tau128` value meaning "no 128-bit filter".
pub const NO_TAU128: u32 = u32::MAX;

/// The header. Keep in sync with docs/FORMATS.md.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Header {
    /// [`MAGIC`].
    pub magic: [u8; 8],
    /// [`VERSION`].
    pub version: u32,
    /// Largest 64-bit distance of an edge.
    pub tau: u32,
    /// Largest 128-bit distance of an edge, or [`NO_TAU128`].
    pub tau128: u32,
    /// Documents in the corpus.
    pub docs: u32,
    /// `StoreSet::digest` of the stores joined.
    pub corpus_digest: u64,
    /// Entries in the member array.
    pub members: u64,
    /// Units (the starts array has one more entry).
    pub units: u64,
    /// Edges.
    pub edges: u64,
    /// Shingle size of the overlap section, 0 when there is none.
    pub shingle: u32,
    /// Zero.
    pub reserved: u32,
}
const _: () = assert!(std::mem::size_of::<Header>() == 64);

/// What a pairs file says about the join that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JoinParams {
    /// 64-bit threshold.
    pub tau: u32,
    /// 128-bit threshold, if any.
    pub tau128: Option<u32>,
    /// Digest of the corpus.
    pub corpus_digest: u64,
}

/// Edge scores: per edge `[shared, size of u, size of v]` shingles, over shingles of `shingle`
/// terms; `shared` is [`NOT_COMPARED`] for an edge not compared.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EdgeScores {
    /// Terms per shingle.
    pub shingle: u32,
    /// One entry per edge, in edge order.
    pub overlaps: Vec<[u32; 3]>,
}

/// Writes `g` to `path` atomically.
pub fn write(path: &Path, g: &PairGraph, p: JoinParams) -> Result<()> {
    write_scored(path, g, p, None)
}

/// Writes `g` with its edge scores (if any) to `path` atomically.
pub fn write_scored(
    path: &Path,
    g: &PairGraph,
    p: JoinParams,
    scores: Option<&EdgeScores>,
) -> Result<()> {
    if let Some(s) = scores {
        assert_eq!(s.overlaps.len(), g.edges.len(), "one score per edge");
        assert!(s.shingle > 0, "a shingle has at least one term");
    }
    let h = Header {
        magic: MAGIC,
        version: VERSION,
        tau: p.tau,
        tau128: p.tau128.unwrap_or(NO_TAU128),
        docs: g.docs,
        corpus_digest: p.corpus_digest,
        members: g.members.len() as u64,
        units: g.units() as u64,
        edges: g.edges.len() as u64,
        shingle: scores.map_or(0, |s| s.shingle),
        reserved: 0,
    };
    let mut f = AtomicFile::create(path)?;
    f.put(bytemuck::bytes_of(&h))?;
    f.put(bytemuck::cast_slice(&g.members))?;
    f.put(bytemuck::cast_slice(&g.starts))?;
    f.put(bytemuck::cast_slice(&g.edges))?;
    if let Some(s) = scores {
        f.put(bytemuck::cast_slice(&s.overlaps))?;
    }
    f.commit()
}

/// Reads a pairs file, checking its structure: every member and edge must be in range.
pub fn read(path: &Path) -> Result<(PairGraph, JoinParams)> {
    read_scored(path).map(|(g, p, _)| (g, p))
}

/// Reads a pairs file with its edge scores, when it has them.
pub fn read_scored(path: &Path) -> Result<(PairGraph, JoinParams, Option<EdgeScores>)> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let bad = |offset: usize, msg: &str| Error::Parse {
        path: path.to_path_buf(),
        offset: offset as u64,
        msg: msg.to_string(),
    };
    if bytes.len() < 64 {
        return Err(bad(0, "not a pairs file (too short for its header)"));
    }
    let h: Header = bytemuck::pod_read_unaligned(&bytes[..64]);
    if h.magic != MAGIC {
        return Err(bad(0, "not a pairs file (bad magic)"));
    }
    if !(1..=VERSION).contains(&h.version) {
        return Err(bad(
            8,
            &format!(
                "pairs file version {} (this reads 1 to {VERSION})",
                h.version
            ),
        ));
    }
    if h.version == 1 && (h.shingle, h.reserved) != (0, 0) {
        return Err(bad(56, "reserved bytes of a version 1 file are not 0"));
    }
    let scored = if h.shingle > 0 { h.edges * 12 } else { 0 };
    let sizes = [h.members * 4, (h.units + 1) * 4, h.edges * 12, scored];
    let want = 64 + sizes.iter().sum::<u64>();
    if bytes.len() as u64 != want {
        return Err(bad(
            bytes.len().min(want as usize),
            &format!("file is {} bytes, its header says {want}", bytes.len()),
        ));
    }
    let mut at = 64;
    let mut take = |n: u64| {
        let s = &bytes[at..at + n as usize];
        at += n as usize;
        s
    };
    let members: Vec<u32> = bytemuck::pod_collect_to_vec(take(sizes[0]));
    let starts: Vec<u32> = bytemuck::pod_collect_to_vec(take(sizes[1]));
    let edges: Vec<Edge> = bytemuck::pod_collect_to_vec(take(sizes[2]));
    let scores = (h.shingle > 0).then(|| EdgeScores {
        shingle: h.shingle,
        overlaps: bytemuck::pod_collect_to_vec(take(sizes[3])),
    });
    if members.iter().any(|m| *m >= h.docs) {
        return Err(bad(64, "a member is not a document of the corpus"));
    }
    if starts.first() != Some(&0)
        || starts.last().copied() != Some(members.len() as u32)
        || starts.windows(2).any(|w| w[0] >= w[1])
    {
        return Err(bad(
            64 + sizes[0] as usize,
            "unit starts are not increasing",
        ));
    }
    if edges
        .iter()
        .any(|e| e.u >= e.v || u64::from(e.v) >= h.units)
    {
        return Err(bad(
            64 + (sizes[0] + sizes[1]) as usize,
            "an edge names a unit that does not exist",
        ));
    }
    let g = PairGraph {
        docs: h.docs,
        members,
        starts,
        edges,
    };
    let p = JoinParams {
        tau: h.tau,
        tau128: (h.tau128 != NO_TAU128).then_some(h.tau128),
        corpus_digest: h.corpus_digest,
    };
    if let Some(s) = &scores {
        let broken = s
            .overlaps
            .iter()
            .position(|[c, a, b]| *c != NOT_COMPARED && (*c > *a || *c > *b));
        if let Some(i) = broken {
            return Err(bad(
                64 + (sizes[0] + sizes[1] + sizes[2]) as usize + 12 * i,
                "an edge shares more shingles than one of its texts has",
            ));
        }
    }
    Ok((g, p, scores))
}
