//! Single-document shards: an HTML or text file is one document whose id is its path relative
//! to the directory it was found under.

use std::borrow::Cow;

use super::{Document, PayloadKind, Shard, ShardFormat, Sink, Skip, SourceLoc, WorkUnit};
use crate::base::mmap;
use crate::Result;

/// Reads a whole file as one document (or skips it when it is larger than `max_record`).
pub fn read(shard: &Shard, unit: &WorkUnit, max_record: usize, sink: &mut dyn Sink) -> Result<()> {
    let map = mmap::map(&shard.path)?;
    if map.len() > max_record {
        sink.skip(
            Skip::TooLarge,
            0,
            &format!("a {}-byte file is larger than --max-record-size", map.len()),
        );
        return Ok(());
    }
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
        link: None,
        kind,
        payload: Cow::Borrowed(&map[..]),
        value: None,
        date: None,
    });
    Ok(())
}
