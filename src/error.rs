//! The library's one error type.
//!
//! Every variant that comes from reading data names the file it came from, and where a byte
//! position is known, the offset, so that a message alone lets a user find the bad bytes.
//! Dirty records are not errors: they are counted as skips (see `corpus::skip`); this type is
//! for failures that stop a whole shard, a store, or a command.

use std::path::PathBuf;

/// Errors raised by the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An I/O failure on a named file.
    #[error("{path}: {source}")]
    Io {
        /// The file being read or written.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Unparseable data in a named shard at a byte offset.
    #[error("{path}: at byte {offset}: {msg}")]
    Parse {
        /// The shard.
        path: PathBuf,
        /// Byte offset in the file (for gzip shards: of the member).
        offset: u64,
        /// What was wrong.
        msg: String,
    },
    /// A store that is missing, incomplete or inconsistent.
    #[error("store {path}: {msg}")]
    Store {
        /// The store directory.
        path: PathBuf,
        /// What was wrong.
        msg: String,
    },
    /// Stores that cannot be used together because their fingerprints were made differently.
    #[error("stores {a} and {b} were made with different parameters ({what}); fingerprint them again with the same options")]
    Mismatch {
        /// The first store.
        a: PathBuf,
        /// The store that differs.
        b: PathBuf,
        /// Which parameters differ, with both values.
        what: String,
    },
    /// Invalid options.
    #[error("{0}")]
    Config(String),
}

impl Error {
    /// Wraps an I/O error with the path it happened on.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// A store error with a message.
    pub fn store(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        Error::Store {
            path: path.into(),
            msg: msg.into(),
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
