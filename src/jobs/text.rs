//! `neardup text`: the text every stage reads from each document, as JSON lines, so a user
//! can see what a mode keeps of their pages (and score it against another extractor).

use std::io::Write;
use std::path::PathBuf;

use crate::corpus::{self, discover, Document, ReadOptions, Sink, Skip};
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
    url: &'a str,
}

struct Lines<'w> {
    out: &'w mut dyn Write,
    mode: TextMode,
    text: String,
    counts: TextCounts,
    error: Option<std::io::Error>,
}

impl Sink for Lines<'_> {
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
            &mut self.text,
        );
        self.counts.documents += 1;
        self.counts.full_text += u64::from(read.full_text);
        let line = Line {
            full_text: read.full_text,
            html: read.html,
            id: &doc.id,
            text: &self.text,
            url: &doc.url,
        };
        // Written straight from the borrowed fields (a `json!` value copied the text first).
        let written = serde_json::to_writer(&mut *self.out, &line)
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

/// Writes one JSON line per document of `job.inputs` to `out`: `id`, `url`, `html` (read as
/// HTML), `full_text` (read whole under `--text main`) and `text`. Files that cannot be read
/// are reported in the errors returned beside the counts; the rest is written.
pub fn texts(
    job: &TextJob,
    out: &mut dyn Write,
) -> crate::Result<(TextCounts, Vec<crate::Error>, Outcome)> {
    let found = discover::discover(&job.inputs, &job.read);
    let mut errors = found.failed;
    let mut sink = Lines {
        out,
        mode: job.mode,
        text: String::new(),
        counts: TextCounts::default(),
        error: None,
    };
    errors.extend(corpus::read_all(
        &found.shards,
        &found.units,
        &job.read,
        &mut sink,
    ));
    if let Some(e) = sink.error {
        return Err(crate::Error::io("<stdout>", e));
    }
    let outcome = if errors.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Partial
    };
    Ok((sink.counts, errors, outcome))
}
