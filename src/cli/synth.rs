//! `neardup synth-crawl`: writes a synthetic crawl and its planted truth.

use std::io::Write;

use super::args::{SynthArgs, SynthCrawlArgs, SynthShape};
use super::Outcome;
use crate::base::atomic::AtomicFile;
use crate::base::claim::OutDir;
use crate::synth::{write_crawl, write_fingerprint_store, Origin, Shape, SynthConfig};

/// Runs the command.
pub fn run(a: SynthCrawlArgs, quiet: bool) -> anyhow::Result<Outcome> {
    anyhow::ensure!(
        (0.0..=1.0).contains(&(a.exact_share + a.near_share))
            && a.exact_share >= 0.0
            && a.near_share >= 0.0,
        "--exact-share and --near-share must be shares that add up to at most 1"
    );
    anyhow::ensure!(
        2 * a.big_group + a.big_site <= a.docs,
        "--big-group {} and --big-site {} plant {} pages, more than --docs {}",
        a.big_group,
        a.big_site,
        2 * a.big_group + a.big_site,
        a.docs
    );
    let cfg = SynthConfig {
        docs: a.docs,
        shards: a.shards,
        seed: a.seed,
        exact_share: a.exact_share,
        near_share: a.near_share,
        shape: match a.shape {
            SynthShape::Uniform => Shape::Uniform,
            SynthShape::Web => Shape::Web,
        },
        big_group: a.big_group,
        big_site: a.big_site,
        ..SynthConfig::default()
    };
    // A user's files in the directory are never written over (a rerun replaces the crawl).
    let _out = OutDir::claim_for(&a.output, &[], "synth-crawl", None)?;
    let (paths, truth) = write_crawl(&a.output, &cfg)?;
    let tpath = a.output.join("truth.tsv");
    let mut w = AtomicFile::create(&tpath)?;
    writeln!(w, "id\torigin\tof")?;
    for (id, o) in truth.ids.iter().zip(&truth.origins) {
        match o {
            Origin::Original => writeln!(w, "{id}\toriginal\t")?,
            Origin::Exact { of } => writeln!(w, "{id}\texact\t{}", truth.ids[*of])?,
            Origin::Near { of } => writeln!(w, "{id}\tnear\t{}", truth.ids[*of])?,
            Origin::Template { site } => writeln!(w, "{id}\ttemplate\t{site}")?,
        }
    }
    w.commit()?;
    if !quiet {
        let g = truth.groups();
        say!(
            "wrote {} documents ({:.1} MB of HTML) in {} shards to {}: {} groups of near-duplicates holding {} pages (largest {}), {} template-site pages",
            truth.ids.len(),
            truth.html_bytes as f64 / 1e6,
            paths.len(),
            a.output.display(),
            g.groups,
            g.grouped,
            g.largest,
            g.templated
        );
    }
    Ok(Outcome::Clean)
}

/// `neardup synth`: a store of random fingerprints.
pub fn run_store(a: SynthArgs, quiet: bool) -> anyhow::Result<Outcome> {
    anyhow::ensure!(
        (0.0..=1.0).contains(&a.near_share),
        "--near-share must be between 0 and 1"
    );
    write_fingerprint_store(
        &a.output,
        a.docs,
        a.near_share,
        a.max_flips,
        a.seed,
        a.force,
    )?;
    if !quiet {
        say!("wrote {} fingerprints to {}", a.docs, a.output.display());
    }
    Ok(Outcome::Clean)
}
