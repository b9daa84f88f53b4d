//! The jobs, as library calls: each takes a validated spec ([`spec`], made from plain
//! [`options`] whose defaults live there once) and returns a typed result, running the stages
//! below in order. The command line (`cli`) and the Python package are two thin callers of
//! these: they parse, print and map outcomes, and decide nothing a job decides.
//!
//! - [`dedup`]: the main job (fingerprint or take stores, candidates, verification, sweep,
//!   clusters and lists, the kept corpus);
//! - [`steps`]: the steps jobs share (build a store, a join or MinHash-LSH candidates, a join
//!   loaded from `pairs.bin`, scores on the text);
//! - [`outputs`]: the files of an output directory, one writer each;
//! - `table` (with the `parquet` feature, which brings Arrow): `dedup` of a table held in
//!   memory, its answer per row;
//! - [`say`] and [`progress`]: where messages and progress go (stderr and a bar, or a sink
//!   the host process installs).

pub mod cluster;
pub mod corpus;
pub mod dedup;
pub mod evaluate;
pub mod explain;
pub mod join;
pub mod options;
pub mod outputs;
pub mod progress;
pub mod report;
pub mod reuse;
pub mod say;
pub mod spec;
pub mod split;
pub mod steps;
pub mod substrings;
pub mod sweep;
#[cfg(feature = "parquet")]
pub mod table;
pub mod text;
pub mod trec;
pub mod verify;

/// How a job ended when it did not fail outright.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Everything was read.
    Clean,
    /// Some inputs could not be read; the rest was processed.
    Partial,
}

/// The jobs a caller runs by name with their options as a JSON object of names over their
/// defaults ([`options::from_json`]): the TREC tools (`trec-run`, `trec-qrels`,
/// `trec-inspect`, `trec-transfer`) and the content-reuse jobs (`reuse-discover`,
/// `reuse-detect`). Each writes its output files and says how it ended.
pub fn run_named(job: &str, json: &str, quiet: bool) -> anyhow::Result<Outcome> {
    use options::from_json;
    match job {
        "trec-run" => trec::runs(from_json(json, job)?, quiet),
        "trec-qrels" => trec::qrels(from_json(json, job)?, quiet),
        "trec-inspect" => trec::inspect(from_json(json, job)?, quiet),
        "trec-transfer" => trec::transfer(from_json(json, job)?, quiet),
        "reuse-discover" => reuse::discover(from_json(json, job)?, quiet),
        "reuse-detect" => reuse::detect(from_json(json, job)?, quiet),
        _ => anyhow::bail!(
            "{job:?} is no job run by name (they are: {})",
            NAMED_JOBS.join(", ")
        ),
    }
}

/// The jobs [`run_named`] runs.
pub const NAMED_JOBS: [&str; 6] = [
    "trec-run",
    "trec-qrels",
    "trec-inspect",
    "trec-transfer",
    "reuse-discover",
    "reuse-detect",
];
