//! Everything a run leaves for people and later tools: the pairs TSV, sweep tables (terminal,
//! TSV, JSON), SVG plots, cluster files and keep/remove lists, `summary.json`, and the scores
//! of reported pairs against a planted truth; each file written atomically.

pub mod diff;
pub mod lists;
pub mod page;
pub mod pairs_tsv;
pub mod plot;
pub mod score;
pub mod sites;
pub mod skips;
pub mod summary;
pub mod table;
pub mod typed;
pub mod verified;
