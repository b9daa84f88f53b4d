//! `cluster`: clusters at one threshold, with keep and remove lists, from a join made here or
//! read from `pairs.bin`, verified when asked.

use std::path::PathBuf;
use std::time::Instant;

use super::spec::{JoinConfig, Thresholds};
use super::{outputs, steps};
use crate::cluster::star::RemoveBy;
use crate::cluster::Representative;
use crate::fingerprint::store::StoreSet;
use crate::report::summary::Command;
use crate::verify::{Compare, VerifySpec};

/// The `cluster` job, validated.
#[derive(Clone, Debug)]
pub struct ClusterJob {
    /// Stores of the corpus.
    pub stores: Vec<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// Thresholds of the clusters.
    pub at: Thresholds,
    /// How representatives are chosen.
    pub representative: Representative,
    /// How the remove list is made.
    pub remove_by: RemoveBy,
    /// A pairs file to reuse.
    pub pairs: Option<PathBuf>,
    /// Verification of the candidates, if asked for.
    pub verify: Option<VerifySpec>,
    /// Plan and backend.
    pub join: JoinConfig,
}

/// Runs it into its output directory.
pub fn cluster(c: &ClusterJob, quiet: bool) -> anyhow::Result<()> {
    let started = Instant::now();
    let stores = StoreSet::open(&c.stores)?;
    let _out = outputs::out_dir(&c.output, &c.stores, "cluster")?;
    let loaded = steps::join_or_load(&stores, c.pairs.as_deref(), &c.join, c.at, quiet)?;
    let ran = loaded.ran.clone();
    let mut verification = None;
    let (g, scores) = match &c.verify {
        None => (loaded.graph, None),
        Some(spec) => {
            let t = Instant::now();
            // Components skip what they can; stars and 128-bit thresholds compare every pair.
            let mode = Compare::for_lists(true, c.at.tau128, c.remove_by.by_stars());
            let sg = steps::score(&stores, loaded, c.at, spec, mode, quiet)?;
            verification = Some(steps::verification_summary(&sg, spec, t));
            (sg.verified(spec), Some(sg.verified_scores(spec)))
        }
    };
    let removal = outputs::Removal {
        at: c.at,
        rule: c.representative,
        policy: &crate::cluster::policy::KeepPolicy::NONE,
        remove_by: c.remove_by,
        protect: None,
    };
    let (clusters, _, _) = outputs::write_clusters(
        &c.output,
        &stores,
        &g,
        &removal,
        scores.as_deref(),
        None,
        &[],
    )?;
    let join = outputs::join_summary(&c.join, c.at, &g, ran);
    let mut s = outputs::summary(Command::Cluster, &stores, &c.stores, &g, join);
    s.pairs_file = c.pairs.clone();
    s.seconds = started.elapsed().as_secs_f64();
    if !quiet {
        say!(
            "{} clusters ({} of two or more): keep {}, remove {}, excluded {}; written to {}",
            clusters.clusters,
            clusters.clusters_of_two_or_more,
            clusters.keep,
            clusters.remove,
            clusters.excluded,
            c.output.display()
        );
    }
    s.clusters = Some(clusters);
    s.verification = verification;
    s.write(&c.output)?;
    Ok(())
}
