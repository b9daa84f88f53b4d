//! `neardup text`: the text every stage reads from each document, as JSON lines, so a user
//! can see what a mode keeps of their pages (and score it against another extractor).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

use rayon::prelude::*;

use crate::corpus::{self, discover, Document, ReadOptions, Shard, Sink, Skip, WorkUnit};
use crate::text::extract::{self, TextMode};

use super::Outcome;

/// What to read.
#[derive(Clone, Debug)]
pub struct TextJob {
    /// Crawl files or directories.
    pub inputs: Vec<PathBuf>,
    /// How the readers read.
    pub read: ReadOptions,
    /// Which text of an HTML page.
    pub mode: TextMode,
}

/// Documents written and records skipped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextCounts {
    /// Documents written.
    pub documents: u64,
    /// Documents read whole under `--text main` for lack of main content.
    pub full_text: u64,
    /// Records skipped (malformed, too large, not text).
    pub skipped: u64,
}

/// One document's JSON line, its fields in the order they have always been written (by name).
#[derive(serde::Serialize)]
struct Line<'a> {
    full_text: bool,
    html: bool,
    id: &'a str,
    text: &'a str,
    title: &'a str,
    url: &'a str,
}

/// A sink that writes each document's JSON line to `out`.
struct Lines<W: Write> {
    out: W,
    mode: TextMode,
    text: String,
    counts: TextCounts,
    error: Option<std::io::Error>,
}

impl<W: Write> Lines<W> {
    fn new(out: W, mode: TextMode) -> Self {
        Lines {
            out,
            mode,
            text: String::new(),
            counts: TextCounts::default(),
            error: None,
        }
    }
}

impl<W: Write> Sink for Lines<W> {
    fn document(&mut self, doc: Document<'_>) {
        if self.error.is_some() {
            return;
        }
        let html = doc.kind.is_html();
        let read = extract::payload_text(
            &doc.payload,
            doc.charset.as_deref(),
            html,
            self.mode,
            &doc.url,
            &mut self.text,
        );
        self.counts.documents += 1;
        self.counts.full_text += u64::from(read.full_text);
        let line = Line {
            full_text: read.full_text,
            html: read.html,
            id: &doc.id,
            text: &self.text[read.title..],
            title: self.text[..read.title].trim_end_matches('\n'),
            url: &doc.url,
        };
        // Written straight from the borrowed fields (a `json!` value copied the text first).
        let written = serde_json::to_writer(&mut self.out, &line)
            .map_err(std::io::Error::from)
            .and_then(|()| self.out.write_all(b"\n"));
        if let Err(e) = written {
            self.error = Some(e);
        }
    }

    fn skip(&mut self, _skip: Skip, _offset: u64, _detail: &str) {
        self.counts.skipped += 1;
    }
}

/// Writes one JSON line per document of `job.inputs` to `out`, in input order: `id`, `url`,
/// `html` (read as HTML), `full_text` (read whole under `--text main`), `text` and `title`
/// (under `--text main`, the title lines compared before the main content, which `text`
/// holds; empty for a page read whole, whose `text` begins with its title). Files that
/// cannot be read are reported in the errors returned beside the counts; the rest is written.
/// Work units are read on the rayon pool, each by one worker; their lines are written in
/// order, the lines held for later units bounded.
pub fn texts(
    job: &TextJob,
    out: &mut (dyn Write + Send),
) -> crate::Result<(TextCounts, Vec<crate::Error>, Outcome)> {
    texts_with(job, out, rayon::current_num_threads(), Limits::DEFAULT)
}

/// The output's bounds where several workers read.
#[derive(Clone, Copy, Debug)]
struct Limits {
    /// How many bytes of lines that wait for an earlier unit may be held before the workers
    /// reading later units wait too: the memory the output holds is bounded, whatever the
    /// units' sizes.
    held_max: usize,
    /// A worker hands its unit's lines on a chunk of about this many bytes at a time.
    chunk: usize,
}

impl Limits {
    const DEFAULT: Limits = Limits {
        held_max: 64 << 20,
        chunk: 1 << 20,
    };
}

fn texts_with(
    job: &TextJob,
    out: &mut (dyn Write + Send),
    workers: usize,
    limits: Limits,
) -> crate::Result<(TextCounts, Vec<crate::Error>, Outcome)> {
    let found = discover::discover(&job.inputs, &job.read);
    let mut errors = found.failed;
    let workers = workers.clamp(1, found.units.len().max(1));
    let counts = if workers == 1 {
        // One worker: straight to `out`, as the lines are made.
        let mut sink = Lines::new(&mut *out, job.mode);
        errors.extend(corpus::read_all(
            &found.shards,
            &found.units,
            &job.read,
            &mut sink,
        ));
        if let Some(e) = sink.error {
            return Err(crate::Error::io("<stdout>", e));
        }
        sink.counts
    } else {
        let (counts, unit_errors) =
            in_order(job, &found.units, &found.shards, out, workers, limits)?;
        errors.extend(unit_errors);
        counts
    };
    let outcome = if errors.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Partial
    };
    Ok((counts, errors, outcome))
}

/// A chunk of one unit's lines, and with its last chunk what the unit counted and how it
/// ended.
struct Chunk {
    unit: usize,
    lines: Vec<u8>,
    end: Option<(TextCounts, Option<crate::Error>)>,
}

/// The output, shared by the workers: whichever worker has a chunk of the unit being written
/// (`head`) writes it, and then the chunks of the units after it that were waiting for their
/// turn. No thread only writes: a writer woken for every chunk cost a context switch a
/// chunk.
struct Order<'o> {
    state: Mutex<OrderState<'o>>,
    turn: Condvar,
    limits: Limits,
}

struct OrderState<'o> {
    out: &'o mut (dyn Write + Send),
    head: usize,
    /// Chunks of later units, until their turn, and their bytes.
    waiting: BTreeMap<usize, Vec<Chunk>>,
    held: usize,
    counts: TextCounts,
    /// The units' errors, in unit order.
    errors: Vec<crate::Error>,
    /// Writing failed: the workers stop.
    failed: Option<std::io::Error>,
}

impl<'o> Order<'o> {
    /// Nothing written yet: the first unit's turn.
    fn new(out: &'o mut (dyn Write + Send), limits: Limits) -> Self {
        Order {
            state: Mutex::new(OrderState {
                out,
                head: 0,
                waiting: BTreeMap::new(),
                held: 0,
                counts: TextCounts::default(),
                errors: Vec::new(),
                failed: None,
            }),
            turn: Condvar::new(),
            limits,
        }
    }

    /// Writes `chunk` if its unit is being written, or keeps it until then. A worker whose
    /// unit is not being written waits while the chunks held are over [`Limits::held_max`], so the
    /// output's memory is bounded; the unit being written never waits, so the output always
    /// moves on. False once writing has failed.
    fn put(&self, chunk: Chunk) -> bool {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while s.failed.is_none() && chunk.unit != s.head && s.held > self.limits.held_max {
            s = self.turn.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        if s.failed.is_some() {
            return false;
        }
        if chunk.unit != s.head {
            s.held += chunk.lines.len();
            s.waiting.entry(chunk.unit).or_default().push(chunk);
            return true;
        }
        let head = s.head;
        let mut ready = vec![chunk];
        while let Some(chunk) = ready.pop() {
            if chunk.unit != head {
                s.held -= chunk.lines.len();
            }
            if let Err(e) = s.out.write_all(&chunk.lines) {
                s.failed = Some(e);
                break;
            }
            if let Some((c, e)) = chunk.end {
                s.counts.documents += c.documents;
                s.counts.full_text += c.full_text;
                s.counts.skipped += c.skipped;
                s.errors.extend(e);
                s.head += 1;
                let next = s.head;
                if let Some(mut later) = s.waiting.remove(&next) {
                    later.reverse();
                    ready = later;
                }
            }
        }
        let moved = s.head != head || s.failed.is_some();
        let ok = s.failed.is_none();
        drop(s);
        if moved {
            self.turn.notify_all();
        }
        ok
    }
}

/// A worker's sink: lines into a buffer, handed to [`Order`] a chunk at a time.
struct UnitLines<'a, 'o> {
    lines: Lines<Vec<u8>>,
    unit: usize,
    order: &'a Order<'o>,
    stopped: bool,
}

impl UnitLines<'_, '_> {
    fn put(&mut self, end: Option<(TextCounts, Option<crate::Error>)>) {
        let chunk = Chunk {
            unit: self.unit,
            lines: std::mem::take(&mut self.lines.out),
            end,
        };
        if !self.order.put(chunk) {
            self.stopped = true;
        }
    }
}

impl Sink for UnitLines<'_, '_> {
    fn document(&mut self, doc: Document<'_>) {
        if self.stopped {
            return;
        }
        self.lines.document(doc);
        if self.lines.out.len() >= self.order.limits.chunk {
            self.put(None);
        }
    }

    fn skip(&mut self, skip: Skip, offset: u64, detail: &str) {
        self.lines.skip(skip, offset, detail);
    }
}

/// Reads `units` on `workers` workers of the rayon pool and writes their lines to `out` in
/// unit order: the counts, and the units' errors in unit order.
fn in_order(
    job: &TextJob,
    units: &[WorkUnit],
    shards: &[Shard],
    out: &mut (dyn Write + Send),
    workers: usize,
    limits: Limits,
) -> crate::Result<(TextCounts, Vec<crate::Error>)> {
    let order = Order::new(out, limits);
    // Workers take units in input order, one at a time, so that the units read at once are
    // the next ones to be written.
    let next = AtomicUsize::new(0);
    (0..workers).into_par_iter().for_each(|_| {
        // A worker's text buffer serves all its units.
        let mut lines = Lines::new(Vec::new(), job.mode);
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(unit) = units.get(i) else { break };
            lines.counts = TextCounts::default();
            let mut sink = UnitLines {
                lines,
                unit: i,
                order: &order,
                stopped: false,
            };
            let error = corpus::read_unit(unit, shards, &job.read, &mut sink).err();
            let counts = sink.lines.counts;
            sink.put(Some((counts, error)));
            if sink.stopped {
                break;
            }
            lines = sink.lines;
        }
    });
    let s = order
        .state
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(e) = s.failed {
        return Err(crate::Error::io("<stdout>", e));
    }
    Ok((s.counts, s.errors))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of pages, JSON lines cut into several units, and a gzip file that breaks
    /// halfway (its damage counted after some of its documents).
    fn inputs(dir: &std::path::Path) -> TextJob {
        for i in 0..40 {
            let words: Vec<String> = (0..(i * 7) % 90 + 3).map(|w| format!("w{i}x{w}")).collect();
            let page = format!(
                "<html><body><nav><a href=/>Home</a></nav><article><h1>Page {i}</h1><p>{}</p>\
                 </article><footer>Footer of the site</footer></body></html>",
                words.join(" ")
            );
            std::fs::write(dir.join(format!("p{i:02}.html")), page).unwrap();
        }
        let lines: String = (0..200)
            .map(|i| {
                format!("{{\"id\":\"j{i}\",\"text\":\"line {i} of the lines, said {i} times\"}}\n")
            })
            .collect();
        std::fs::write(dir.join("q.jsonl"), lines).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let records: String = (0..400)
            .map(|i| {
                format!(
                    "{{\"id\":\"g{i}\",\"text\":\"record {i} {}\"}}\n",
                    "x".repeat(i % 50)
                )
            })
            .collect();
        std::io::Write::write_all(&mut gz, records.as_bytes()).unwrap();
        let mut gz = gz.finish().unwrap();
        let half = gz.len() / 2;
        gz.truncate(half);
        std::fs::write(dir.join("r.jsonl.gz"), gz).unwrap();
        TextJob {
            inputs: vec![dir.to_path_buf()],
            read: ReadOptions {
                // The JSON lines file is cut into units of about a kilobyte.
                split_bytes: 1024,
                ..ReadOptions::default()
            },
            mode: TextMode::Main,
        }
    }

    /// Every document its own chunk, and every chunk of a later unit waiting for the unit
    /// being written.
    const EVERY_CHUNK_WAITS: Limits = Limits {
        held_max: 0,
        chunk: 1,
    };

    /// `f` run on a pool of `workers` threads.
    fn on_pool<T: Send>(workers: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap()
            .install(f)
    }

    fn run(job: &TextJob, workers: usize, limits: Limits) -> (Vec<u8>, TextCounts, Vec<String>) {
        let mut out = Vec::new();
        let (counts, errors, _) = texts_with(job, &mut out, workers, limits).unwrap();
        (out, counts, errors.iter().map(|e| e.to_string()).collect())
    }

    #[test]
    fn several_workers_write_what_one_writes_in_the_same_order() {
        let dir = tempfile::tempdir().unwrap();
        let job = inputs(dir.path());
        let units = discover::discover(&job.inputs, &job.read).units.len();
        assert!(units > 50, "{units} units");
        let (one, counts, errors) = run(&job, 1, Limits::DEFAULT);
        assert!(
            counts.documents > 240 && counts.skipped > 0,
            "{counts:?} {errors:?}"
        );
        let text = String::from_utf8(one.clone()).unwrap();
        assert_eq!(text.lines().count() as u64, counts.documents);
        // Every page's own words, in the order of the files.
        let p3 = text.find("w3x0").unwrap();
        assert!(p3 < text.find("w4x0").unwrap() && p3 > text.find("w2x0").unwrap());
        for (workers, limits) in [
            (2, Limits::DEFAULT),
            (4, Limits::DEFAULT),
            // The order and the bounded wait are what is tested.
            (3, EVERY_CHUNK_WAITS),
            (
                4,
                Limits {
                    held_max: 300,
                    chunk: 200,
                },
            ),
        ] {
            for _ in 0..3 {
                let (many, c, e) = on_pool(workers, || run(&job, workers, limits));
                assert!(many == one, "{workers} workers, {limits:?}: other lines");
                assert_eq!((c, &e), (counts, &errors), "{workers} workers, {limits:?}");
            }
        }
    }

    #[test]
    fn chunks_are_written_in_unit_order_and_each_units_in_its_own() {
        let mut out = Vec::new();
        let order = Order::new(&mut out, Limits::DEFAULT);
        let done = |documents| {
            Some((
                TextCounts {
                    documents,
                    ..TextCounts::default()
                },
                None,
            ))
        };
        let chunk = |unit, lines: &str, end| Chunk {
            unit,
            lines: lines.as_bytes().to_vec(),
            end,
        };
        // Units 2 and 1 finish before unit 0 has written anything; unit 3 is under way.
        for c in [
            chunk(2, "2a ", None),
            chunk(1, "1a ", None),
            chunk(2, "2b ", None),
            chunk(1, "1b ", done(2)),
            chunk(3, "3a ", None),
            chunk(2, "2c ", done(3)),
        ] {
            assert!(order.put(c));
        }
        // Nothing written yet: all of it held.
        let (head, held) = {
            let s = order.state.lock().unwrap();
            (s.head, s.held)
        };
        assert_eq!((head, held), (0, 18));
        assert!(order.put(chunk(0, "0a ", None)));
        assert!(order.put(chunk(0, "0b ", done(2))));
        assert!(order.put(chunk(3, "3b ", done(2))));
        let s = order.state.into_inner().unwrap();
        assert_eq!((s.head, s.held, s.counts.documents), (4, 0, 9));
        assert!(s.waiting.is_empty());
        assert_eq!(String::from_utf8_lossy(&out), "0a 0b 1a 1b 2a 2b 2c 3a 3b ");
    }

    /// A writer that fails after `left` bytes.
    struct Failing {
        left: usize,
    }

    impl Write for Failing {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            if self.left < b.len() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::BrokenPipe,
                    "closed",
                ));
            }
            self.left -= b.len();
            Ok(b.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failed_write_stops_every_worker_and_is_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let job = inputs(dir.path());
        for (workers, limits) in [
            (1, Limits::DEFAULT),
            (3, Limits::DEFAULT),
            (3, EVERY_CHUNK_WAITS),
        ] {
            let mut out = Failing { left: 2000 };
            let r = on_pool(workers, || texts_with(&job, &mut out, workers, limits));
            let e = r.expect_err("the write failed").to_string();
            assert!(e.contains("<stdout>") && e.contains("closed"), "{e}");
        }
    }
}
