//! Single-document shards: an HTML or text file is one document whose id is its path relative
//! to the directory it was found under.

use std::borrow::Cow;
use std::cell::RefCell;
use std::io::Read;

use super::{Document, PayloadKind, Shard, ShardFormat, Sink, Skip, SourceLoc, WorkUnit};
use crate::base::mmap;
use crate::{Error, Result};

/// Files up to this size are read into a buffer kept by the thread; larger ones are mapped.
/// Unmapping a file costs every other core running the process a TLB flush (an interrupt
/// each); on a directory of pages read by several workers those flushes were a tenth of the
/// run's time, where one copy of a small file costs about what its page faults did.
const READ_MAX: u64 = 4 << 20;

thread_local! {
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Reads a whole file as one document (or skips it when it is larger than `max_record`).
pub fn read(shard: &Shard, unit: &WorkUnit, max_record: usize, sink: &mut dyn Sink) -> Result<()> {
    // A file over the record limit is mapped, and skipped without a byte read.
    if shard.size <= READ_MAX && shard.size <= max_record as u64 {
        // Taken out of the thread's cell while the sink reads it (a sink may read a file
        // itself on this thread).
        let mut buf = BUFFER.with_borrow_mut(std::mem::take);
        let read =
            read_into(shard, &mut buf).map(|()| deliver(shard, unit, max_record, &buf, sink));
        if buf.capacity() as u64 <= READ_MAX {
            BUFFER.with_borrow_mut(|b| *b = buf);
        }
        return read;
    }
    let map = mmap::map(&shard.path)?;
    deliver(shard, unit, max_record, &map, sink);
    Ok(())
}

/// The file's bytes, read into `buf` (emptied first) to its end.
fn read_into(shard: &Shard, buf: &mut Vec<u8>) -> Result<()> {
    let file = std::fs::File::open(&shard.path).map_err(|e| Error::io(&shard.path, e))?;
    buf.clear();
    // The size discovery found, and a byte more to see the end in one read. (`take` reads
    // through the generic loop, which asks the file for nothing but its bytes.)
    buf.reserve(usize::try_from(shard.size).unwrap_or(0) + 1);
    file.take(u64::MAX)
        .read_to_end(buf)
        .map_err(|e| Error::io(&shard.path, e))?;
    Ok(())
}

/// The file's document, `bytes` its contents.
fn deliver(shard: &Shard, unit: &WorkUnit, max_record: usize, bytes: &[u8], sink: &mut dyn Sink) {
    if bytes.len() > max_record {
        sink.skip(
            Skip::TooLarge,
            0,
            &format!(
                "a {}-byte file is larger than --max-record-size",
                bytes.len()
            ),
        );
        return;
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
            length: bytes.len() as u64,
            inner: 0,
            shard: unit.shard,
            kind: SourceLoc::FILE,
        },
        http_status: None,
        content_type: None,
        charset: None,
        link: None,
        kind,
        payload: Cow::Borrowed(bytes),
        value: None,
        date: None,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Payloads {
        docs: Vec<(String, Vec<u8>, u64)>,
        skipped: usize,
    }

    impl Sink for Payloads {
        fn document(&mut self, doc: Document<'_>) {
            self.docs.push((
                doc.id.into_owned(),
                doc.payload.into_owned(),
                doc.loc.length,
            ));
        }

        fn skip(&mut self, _skip: Skip, _offset: u64, _detail: &str) {
            self.skipped += 1;
        }
    }

    fn shard(path: &std::path::Path) -> Shard {
        Shard {
            path: path.to_path_buf(),
            rel: path.file_name().unwrap().to_string_lossy().into_owned(),
            format: ShardFormat::HtmlFile,
            size: std::fs::metadata(path).unwrap().len(),
        }
    }

    #[test]
    fn read_and_mapped_files_are_their_bytes_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let page = |n: usize, c: u8| -> Vec<u8> { (0..n).map(|i| c + (i % 7) as u8).collect() };
        // Mapped (over the size read), read, read after a longer one (the kept buffer), and
        // one byte either side of the bound.
        let files = [
            ("large.html", page(READ_MAX as usize + 1, b'a')),
            ("edge.html", page(READ_MAX as usize, b'b')),
            ("long.html", page(300_000, b'c')),
            ("short.html", page(10, b'd')),
            ("one.html", page(1, b'e')),
        ];
        let unit = WorkUnit {
            shard: 0,
            start: 0,
            end: 0,
        };
        let mut sink = Payloads::default();
        for (name, bytes) in &files {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            read(&shard(&path), &unit, usize::MAX, &mut sink).unwrap();
        }
        assert_eq!(sink.docs.len(), files.len());
        for ((id, payload, length), (name, bytes)) in sink.docs.iter().zip(&files) {
            assert_eq!(id, name);
            assert!(payload == bytes, "{name}: other bytes");
            assert_eq!(*length, bytes.len() as u64, "{name}");
        }
        // Over the record limit: counted and skipped, a small file too (mapped, not read).
        let mut sink = Payloads::default();
        for name in ["large.html", "long.html"] {
            read(&shard(&dir.path().join(name)), &unit, 1000, &mut sink).unwrap();
        }
        assert_eq!((sink.docs.len(), sink.skipped), (0, 2));
        // A file gone since it was found is an error that names it.
        let gone = shard(&dir.path().join("one.html"));
        std::fs::remove_file(&gone.path).unwrap();
        let e = read(&gone, &unit, usize::MAX, &mut sink).unwrap_err();
        assert!(e.to_string().contains("one.html"), "{e}");
    }

    #[test]
    fn a_file_that_changed_size_since_it_was_found_is_read_as_it_is_now() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("page.html");
        std::fs::write(&path, vec![b'a'; 100]).unwrap();
        let found = shard(&path);
        let unit = WorkUnit {
            shard: 0,
            start: 0,
            end: 0,
        };
        // Grown past the record limit after discovery: read (its size then was under both
        // bounds), then skipped and counted by its size now, not delivered cut at the limit.
        std::fs::write(&path, vec![b'b'; 5000]).unwrap();
        let mut sink = Payloads::default();
        read(&found, &unit, 1000, &mut sink).unwrap();
        assert_eq!((sink.docs.len(), sink.skipped), (0, 1));
        // Without a limit, its every byte, beyond the size discovery found.
        read(&found, &unit, usize::MAX, &mut sink).unwrap();
        assert_eq!(sink.docs.len(), 1);
        assert!(sink.docs[0].1 == vec![b'b'; 5000] && sink.docs[0].2 == 5000);
        // Shrunk: what is there, nothing of the longer content read before on this thread.
        std::fs::write(&path, b"cc").unwrap();
        read(&found, &unit, usize::MAX, &mut sink).unwrap();
        assert_eq!(sink.docs[1].1, b"cc");
        assert_eq!(sink.docs[1].2, 2);
    }
}
