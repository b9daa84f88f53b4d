//! neardup: near-duplicate detection for web crawls.
//!
//! The crate is laid out as the data flows: [`corpus`] reads crawl shards into documents,
//! [`text`] turns a document into normalised text and token features, [`fingerprint`] hashes
//! them into SimHash fingerprints and persists them in a memory-mappable store, [`join`] finds
//! all pairs within a Hamming distance, [`cluster`] turns pairs into clusters for every
//! threshold in one sweep, [`report`] writes tables, lists and plots, and [`cli`] wires the
//! stages into the `neardup` commands. [`base`] is the floor they all stand on (atomic files,
//! file maps, the seeded generator, Hamming distances); a module uses only the ones below it
//! (ARCHITECTURE.md says which).

pub mod alloc;
pub mod base;
pub mod cli;
pub mod cluster;
pub mod corpus;
pub mod error;
pub mod fingerprint;
pub mod gpu;
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
