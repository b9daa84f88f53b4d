//! The labels of repeated paragraphs, read from where they are kept: a `reuse discover`
//! output (its `labels.bin`, 16-byte hashes) or a store whose paragraph chunks are the labels.
//! `reuse detect` and the corpus writer's `--drop-labeled-chunks` read them here, once.

use std::path::Path;

use super::detect::Labels;
use crate::fingerprint::store::Store;
use crate::{Error, Result};

/// The labels at `path`, and a line saying where they came from.
pub fn read(path: &Path) -> Result<(Labels, String)> {
    let bin = path.join("labels.bin");
    if bin.is_file() {
        let bytes = std::fs::read(&bin).map_err(|e| Error::io(&bin, e))?;
        if bytes.len() % 16 != 0 {
            return Err(Error::Config(format!(
                "{}: {} bytes is not a whole number of 16-byte hashes",
                bin.display(),
                bytes.len()
            )));
        }
        let labels: Labels = bytes
            .chunks_exact(16)
            .map(|c| u128::from_le_bytes(c.try_into().unwrap_or([0; 16])))
            .collect();
        return Ok((labels, format!("discovered: {}", path.display())));
    }
    let store = Store::open(path).map_err(|e| {
        Error::Config(format!(
            "{}: --labels takes a reuse discover output (labels.bin) or a store ({e})",
            path.display()
        ))
    })?;
    let chunks = store.chunks().ok_or_else(|| {
        Error::Config(format!(
            "{}: built without paragraph chunks: fingerprint it again with --chunks",
            path.display()
        ))
    })?;
    Ok((
        chunks.hashes.iter().copied().collect(),
        format!("store: {}", path.display()),
    ))
}
