//! neardup: near-duplicate detection for web crawls.
//!
//! The crate is laid out as the data flows: [`corpus`] reads crawl shards into documents,
//! [`text`] turns a document into normalised text and token features, [`fingerprint`] hashes
//! them into SimHash fingerprints and persists them in a memory-mappable store, [`join`] finds
//! all pairs within a Hamming distance, [`cluster`] turns pairs into clusters for every
//! threshold in one sweep, [`report`] writes tables, lists and plots, [`jobs`] runs the stages
//! in order as library calls with typed specs and results, and [`cli`] turns the command line
//! into those specs and prints what the jobs return. [`base`] is the floor they all stand on (atomic files,
//! file maps, the seeded generator, Hamming distances); a module uses only the ones below it
//! (ARCHITECTURE.md says which).

// The GPU join's driver is checked for `Sync` through wgpu's nested types, deeper than the
// default limit of 128 that newer compilers hold to.
#![recursion_limit = "256"]

/// Says a message (formatted like `format!`) at info level: see [`jobs::say`].
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::jobs::say::say($crate::jobs::say::Level::Info, &format!($($arg)*))
    };
}

/// Says a warning (shown after `warning: ` on a terminal): see [`jobs::say`].
macro_rules! say_warning {
    ($($arg:tt)*) => {
        $crate::jobs::say::say($crate::jobs::say::Level::Warning, &format!($($arg)*))
    };
}

/// Says an error the job went on after (shown after `error: `): see [`jobs::say`].
macro_rules! say_error {
    ($($arg:tt)*) => {
        $crate::jobs::say::say($crate::jobs::say::Level::Error, &format!($($arg)*))
    };
}

pub mod alloc;
pub mod base;
pub mod cli;
pub mod cluster;
pub mod corpus;
pub mod error;
pub mod fingerprint;
pub mod gpu;
pub mod jobs;
pub mod join;
pub mod kernels;
pub mod report;
pub mod reuse;
pub mod synth;
pub mod text;
pub mod trec;
pub mod verify;
pub mod write;

pub use error::{Error, Result};
