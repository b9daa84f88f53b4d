//! The terminal progress display: bytes and documents per second on stderr, shown only on a
//! terminal and never with `--quiet`. Warnings go above the bar so they stay readable.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::fingerprint::build::Progress;

/// Progress for the fingerprint command.
pub struct Bar {
    bar: ProgressBar,
    docs: AtomicU64,
    started: std::time::Instant,
}

impl Bar {
    /// A bar whose length is set when the build starts.
    pub fn new(quiet: bool) -> Self {
        let target = if quiet || !std::io::stderr().is_terminal() {
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
            started: std::time::Instant::now(),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn start(&self, total_bytes: u64) {
        self.bar.set_length(total_bytes);
    }

    fn advance(&self, bytes: u64, docs: u64) {
        let total = self.docs.fetch_add(docs, Ordering::Relaxed) + docs;
        if bytes > 0 {
            self.bar.inc(bytes);
        }
        if docs > 0 && total.is_multiple_of(1024) {
            let secs = self.started.elapsed().as_secs_f64().max(1e-3);
            self.bar
                .set_message(format!("{total} docs, {:.0} docs/s", total as f64 / secs));
        }
    }

    fn warn(&self, msg: &str) {
        if self.bar.is_hidden() {
            eprintln!("warning: {msg}");
        } else {
            self.bar.suspend(|| eprintln!("warning: {msg}"));
        }
    }
}
