//! `neardup fingerprint`: validates options, runs the build, prints the summary.

use std::time::Instant;

use anyhow::Context;

use std::path::{Path, PathBuf};

use super::args::{Features, FingerprintArgs, FingerprintOpts, TextFormat};
use super::progress::Bar;
use super::Outcome;
use crate::corpus::{PayloadKind, ReadOptions};
use crate::fingerprint::build::{build, BuildConfig, BuildReport};
use crate::fingerprint::store::Filters;
use crate::fingerprint::Params;
use crate::text::TokenOptions;

/// Turns raw arguments into a build configuration.
pub fn config(a: &FingerprintArgs) -> anyhow::Result<BuildConfig> {
    config_for(&a.inputs, &a.output, a.force, &a.opts)
}

/// The build configuration of `opts` over `inputs` into the store `output`.
pub fn config_for(
    inputs: &[PathBuf],
    output: &Path,
    force: bool,
    a: &FingerprintOpts,
) -> anyhow::Result<BuildConfig> {
    let mut ngrams = a.ngrams.clone();
    ngrams.sort_unstable();
    ngrams.dedup();
    anyhow::ensure!(
        !ngrams.is_empty() && ngrams.iter().all(|n| (1..=8).contains(n)),
        "--ngrams takes sizes from 1 to 8, e.g. --ngrams 3,5"
    );
    let params = match a.features {
        Features::SimhashPy => Params::simhash_py(),
        Features::Native => Params {
            ngrams,
            tokens: TokenOptions {
                lowercase: !a.no_lowercase,
                stopwords: !a.no_stopwords,
                stem: !a.no_stem,
                possessive: !a.no_possessive,
            },
            seed: a.hash_seed,
            ..Params::default()
        },
    };
    Ok(BuildConfig {
        inputs: inputs.to_vec(),
        output: output.to_path_buf(),
        force,
        read: ReadOptions {
            id_field: a.id_field.clone(),
            text_field: a.text_field.clone(),
            url_field: a.url_field.clone(),
            jsonl_kind: match a.text_format {
                TextFormat::Auto => PayloadKind::Unknown,
                TextFormat::Html => PayloadKind::Html,
                TextFormat::Text => PayloadKind::Text,
            },
            split_bytes: a.split_mib << 20,
        },
        params,
        filters: Filters {
            status_200_only: !a.any_status,
            html_text_only: !a.any_content_type,
            min_html_len: a.min_html_len,
            min_terms: a.min_terms,
            english_only: a.english,
        },
    })
}

/// Runs the command.
pub fn run(a: FingerprintArgs, quiet: bool) -> anyhow::Result<Outcome> {
    Ok(build_store(&config(&a)?, quiet)?.1)
}

/// Builds a store with a progress bar and prints the summary; shard failures are printed and
/// make the outcome partial.
pub fn build_store(cfg: &BuildConfig, quiet: bool) -> anyhow::Result<(BuildReport, Outcome)> {
    let bar = Bar::new(quiet);
    let started = Instant::now();
    let report = build(cfg, &bar)
        .with_context(|| format!("cannot build the store {}", cfg.output.display()))?;
    bar.finish();
    let secs = started.elapsed().as_secs_f64();
    let s = &report.manifest.stats;
    if !quiet {
        eprintln!(
            "{} documents from {} shards ({:.1} MB) in {secs:.2} s: {:.1} MB/s input, {:.1} MB/s payload, {:.0} docs/s",
            report.manifest.docs,
            report.manifest.shards.len(),
            s.input_bytes as f64 / 1e6,
            s.input_bytes as f64 / 1e6 / secs.max(1e-9),
            s.payload_bytes as f64 / 1e6 / secs.max(1e-9),
            report.manifest.docs as f64 / secs.max(1e-9),
        );
        eprintln!("{}", super::info::skip_summary(&report.manifest));
        if !report.ignored.is_empty() {
            eprintln!(
                "{} files in the input directories are not a known format and were ignored (first: {})",
                report.ignored.len(),
                report.ignored[0].display()
            );
        }
        eprintln!("store written to {}", report.path.display());
    }
    for e in &report.failed {
        eprintln!("error: shard not read: {e}");
    }
    let outcome = if report.failed.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Partial
    };
    Ok((report, outcome))
}
