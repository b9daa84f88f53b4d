//! Everything a run leaves for people and later tools: sweep tables (terminal, TSV, JSON),
//! SVG plots, cluster files and keep/remove lists, each written atomically.

pub mod atomic;
pub mod lists;
pub mod plot;
pub mod table;
