//! IR evaluation files: TREC runs and qrels read leniently, deduplicated by a finished `dedup`
//! output (Chuweb21D's rules, each document mapped to the kept document of its star), and
//! inspected for near-duplicates inside each topic on the documents' text (CopyCat's
//! showcase).
//!
//! In: run and qrels files, `clusters.tsv` of a `dedup` output, a store. Out: runs and qrels
//! re-ranked densely, readable by trec_eval, and reports. Uses [`crate::verify`] for the text
//! comparisons and [`crate::fingerprint::store`] to find documents by id.

pub mod clusters;
pub mod dedup;
pub mod format;
pub mod inspect;
pub mod summary;
pub mod transfer;
