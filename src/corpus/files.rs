//! Single-document shards: an HTML or text file is one document whose id is its path relative
//! to the directory it was found under.

use std::borrow::Cow;

use super::{Document, PayloadKind, Shard, ShardFormat, Sink, SourceLoc, WorkUnit};
use crate::base::mmap;
use crate::Result;

/// Reads a whole file as one document.
pub fn read(shard: &Shard, unit: &WorkUnit, sink: &mut dyn Sink) -> Result<()> {
    let map = mmap::map(&shard.path)?;
    let kind = if shard.format == ShardFormat::HtmlFile {
        PayloadKind::Html
    } else {
        PayloadKind::Text
    };
    sink.document(Document {
        id: Cow::Borrowed(&shard.rel),
        url: Cow::Borrowed(""),
        loc: SourceLoc {
            offset: 0,
            length: map.len() as u64,
            inner: 0,
            shard: unit.shard,
            kind: SourceLoc::FILE,
        },
        http_status: None,
        content_type: None,
        charset: None,
        kind,
        payload: Cow::Borrowed(&map[..]),
    });
    Ok(())
}
