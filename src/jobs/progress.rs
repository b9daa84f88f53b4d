//! Fingerprinting progress: on a terminal, a bar of bytes and documents per second on stderr
//! (never with `--quiet`, and warnings go above it so they stay readable); where a host
//! process takes the messages ([`super::say`]), a line every few seconds instead.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::say::{self, Level};
use crate::fingerprint::build::Progress;

/// Progress for the fingerprint command.
pub struct Bar {
    bar: ProgressBar,
    docs: AtomicU64,
    started: Instant,
    /// Lines to the sink instead of a bar (a host process, not quiet).
    lines: bool,
    /// When the last line was said, in ms since `started`.
    last_line: AtomicU64,
}

impl Bar {
    /// A bar whose length is set when the build starts.
    pub fn new(quiet: bool) -> Self {
        let lines = !quiet && say::has_sink();
        let target = if quiet || lines || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(0), target);
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
        );
        Bar {
            bar,
            docs: AtomicU64::new(0),
            started: Instant::now(),
            lines,
            last_line: AtomicU64::new(0),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    /// The progress as one line.
    fn line(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        // The bar counts the bytes even where it is not drawn.
        let (bytes, total) = (self.bar.position(), self.bar.length().unwrap_or(0));
        let docs = self.docs.load(Ordering::Relaxed);
        let pct = if total > 0 {
            100.0 * bytes as f64 / total as f64
        } else {
            100.0
        };
        format!(
            "fingerprint: {:.1} of {:.1} MB read ({pct:.0} %), {docs} documents, {:.1} MB/s, {:.0} docs/s",
            bytes as f64 / 1e6,
            total as f64 / 1e6,
            bytes as f64 / 1e6 / secs,
            docs as f64 / secs
        )
    }
}

impl Progress for Bar {
    fn start(&self, total_bytes: u64) {
        self.bar.set_length(total_bytes);
        if self.lines {
            say::say(
                Level::Info,
                &format!(
                    "fingerprint: {:.1} MB of input to read",
                    total_bytes as f64 / 1e6
                ),
            );
        }
    }

    fn advance(&self, bytes: u64, docs: u64) {
        let total = self.docs.fetch_add(docs, Ordering::Relaxed) + docs;
        if bytes > 0 {
            self.bar.inc(bytes);
        }
        if self.lines {
            // One thread says a line per interval: the one that moves the mark.
            let now = self.started.elapsed().as_millis() as u64;
            let last = self.last_line.load(Ordering::Relaxed);
            let every = say::progress_interval_ms();
            if now >= last + every
                && self
                    .last_line
                    .compare_exchange(
                        last,
                        now.max(last + 1),
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    )
                    .is_ok()
            {
                say::say(Level::Info, &self.line());
            }
        } else if docs > 0 && total.is_multiple_of(1024) {
            let secs = self.started.elapsed().as_secs_f64().max(1e-3);
            self.bar
                .set_message(format!("{total} docs, {:.0} docs/s", total as f64 / secs));
        }
    }

    fn warn(&self, msg: &str) {
        if self.bar.is_hidden() {
            say::say(Level::Warning, msg);
        } else {
            self.bar.suspend(|| say::say(Level::Warning, msg));
        }
    }
}
