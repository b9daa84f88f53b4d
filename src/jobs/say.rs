//! Where the commands' messages go: to stderr, as a terminal tool says them, or to a sink the
//! host process installs once (the Python package sends them to Python's `logging`, so a
//! pipeline sees steps, progress and warnings where it sees its own).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::base::shown::terminal_text;

/// How much a message matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// A step, a figure, progress.
    Info,
    /// Something skipped or replaced that the user should know of.
    Warning,
    /// Something that failed while the rest went on (a shard not read).
    Error,
}

/// Receives the messages in place of stderr (called from any thread).
pub trait Sink: Send + Sync {
    /// One message, without the `warning: ` or `error: ` a terminal shows before it.
    fn say(&self, level: Level, msg: &str);
}

static SINK: OnceLock<Box<dyn Sink>> = OnceLock::new();

/// Sends every later message of this process to `sink`. Only the first call counts; returns
/// whether this one did.
pub fn set_sink(sink: Box<dyn Sink>) -> bool {
    SINK.set(sink).is_ok()
}

/// Whether a sink takes the messages (so there is no terminal to draw a bar on).
pub fn has_sink() -> bool {
    SINK.get().is_some()
}

/// Says `msg` at `level`: to the sink, or to stderr (where what a terminal would obey in it,
/// from a crawl's hosts and ids, is shown escaped).
pub fn say(level: Level, msg: &str) {
    match (SINK.get(), level) {
        (Some(s), _) => s.say(level, msg),
        (None, Level::Info) => eprintln!("{}", terminal_text(msg)),
        (None, Level::Warning) => eprintln!("warning: {}", terminal_text(msg)),
        (None, Level::Error) => eprintln!("error: {}", terminal_text(msg)),
    }
}

/// Milliseconds between progress lines said to a sink.
static PROGRESS_EVERY_MS: AtomicU64 = AtomicU64::new(5_000);

/// How often a long step (fingerprinting) says how far it is, when a sink takes the messages
/// (default every 5 s; a terminal gets a bar instead).
pub fn set_progress_interval(every: std::time::Duration) {
    PROGRESS_EVERY_MS.store(every.as_millis() as u64, Ordering::Relaxed);
}

/// The interval of [`set_progress_interval`], in milliseconds.
pub(crate) fn progress_interval_ms() -> u64 {
    PROGRESS_EVERY_MS.load(Ordering::Relaxed)
}
