//! `neardup cluster`: clusters at one threshold, with keep and remove lists.

use serde_json::json;

use super::args::ClusterArgs;
use super::{pipeline, Outcome};
use crate::fingerprint::store::Corpus;

/// Runs the command.
pub fn run(a: ClusterArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let corpus = Corpus::open(&a.stores)?;
    pipeline::out_dir(&a.output)?;
    let g = pipeline::join_or_load(&corpus, a.pairs.as_deref(), &a.join, a.tau, a.tau128, quiet)?;
    let (c, counts) =
        pipeline::write_clusters(&a.output, &corpus, &g, a.tau, a.tau128, a.representative)?;
    pipeline::write_summary(
        &a.output,
        &json!({
            "command": "cluster",
            "stores": a.stores,
            "pairs_file": a.pairs,
            "documents": corpus.len(),
            "joined": g.members.len(),
            "excluded": corpus.len() - g.members.len(),
            "join": pipeline::join_json(&a.join, a.tau, a.tau128, &g),
            "clusters": pipeline::clusters_json(a.tau, a.tau128, a.representative, &c, &counts),
        }),
    )?;
    if !quiet {
        eprintln!(
            "{} clusters ({} of two or more): keep {}, remove {}, excluded {}; written to {}",
            c.count(),
            counts.clusters,
            counts.keep,
            counts.remove,
            counts.excluded,
            a.output.display()
        );
    }
    Ok(Outcome::Clean)
}
