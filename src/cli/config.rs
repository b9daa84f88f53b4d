//! Raw arguments of the commands not yet moved into the library's jobs, turned into validated
//! configurations before anything is read or written: a bad option fails here, with the
//! option's name, and never halfway through a run (`dedup`'s spec is the library's,
//! [`crate::jobs::spec`]).

use std::path::PathBuf;

use super::args::{
    CheckOpts, ClusterArgs, EvaluateArgs, JoinArgs, SweepArgs, VerifyArgs, WriteArgs,
};
use crate::cluster::star::RemoveBy;
use crate::cluster::{Axis, Representative};
use crate::jobs::options::SimilarityOptions;
use crate::jobs::spec::{outside_stores, verify_spec, CorpusConfig, JoinConfig, Thresholds};
use crate::join::plan::MAX_TAU;
use crate::verify::VerifySpec;

/// `neardup join`.
#[derive(Clone, Debug)]
pub struct JoinCommand {
    /// Stores of the corpus, then the `--against` stores.
    pub stores: Vec<PathBuf>,
    /// How many of `stores` come before the `--against` ones (all when none).
    pub split: usize,
    /// Whether only pairs across the two collections are kept.
    pub cross: bool,
    /// Pair thresholds.
    pub at: Thresholds,
    /// Plan and backend.
    pub join: JoinConfig,
    /// The TSV (`-` for standard output).
    pub output: PathBuf,
    /// `pairs.bin` to write too.
    pub pairs_bin: Option<PathBuf>,
    /// Units listed as links instead of all their pairs.
    pub collapse_exact: bool,
}

impl JoinCommand {
    /// Validates `neardup join`'s arguments.
    pub fn new(a: &JoinArgs) -> anyhow::Result<JoinCommand> {
        let mut stores = a.stores.clone();
        let split = stores.len();
        stores.extend(a.against.iter().cloned());
        let at = Thresholds::new(a.tau, a.tau128)?;
        let join = JoinConfig::new(&(&a.join).into(), at.tau.min(MAX_TAU))?;
        outside_stores(&a.output, &stores)?;
        if let Some(bin) = &a.pairs_bin {
            outside_stores(bin, &stores)?;
        }
        Ok(JoinCommand {
            stores,
            split,
            cross: !a.against.is_empty(),
            at,
            join,
            output: a.output.clone(),
            pairs_bin: a.pairs_bin.clone(),
            collapse_exact: a.collapse_exact,
        })
    }
}

/// `neardup sweep`.
#[derive(Clone, Debug)]
pub struct SweepCommand {
    /// Stores of the corpus.
    pub stores: Vec<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// The threshold swept.
    pub axis: Axis,
    /// Its largest value.
    pub max: u32,
    /// Thresholds of the join the sweep needs.
    pub at: Thresholds,
    /// A pairs file to reuse.
    pub pairs: Option<PathBuf>,
    /// Verification of the candidates, if asked for.
    pub verify: Option<VerifySpec>,
    /// Pairs drawn per distance to estimate precision, instead of verifying every candidate.
    pub sample: Option<u64>,
    /// Seed of the draws.
    pub sample_seed: u64,
    /// Plan and backend.
    pub join: JoinConfig,
}

impl SweepCommand {
    /// Validates `neardup sweep`'s arguments.
    pub fn new(a: &SweepArgs) -> anyhow::Result<SweepCommand> {
        let pairs = a.pairs.is_some();
        let (axis, max, at) = match (a.tau128_max, a.tau) {
            (Some(m), Some(t)) => (
                Axis::D128 { tau64: t },
                m,
                Thresholds::filtering(t, Some(m), pairs)?,
            ),
            (None, None) => (
                Axis::D64,
                a.tau_max,
                Thresholds::filtering(a.tau_max, None, pairs)?,
            ),
            (None, Some(_)) => anyhow::bail!("--tau fixes the 64-bit threshold of a --tau128-max sweep; for a 64-bit sweep use --tau-max"),
            (Some(_), None) => anyhow::bail!("--tau128-max needs the fixed 64-bit --tau"),
        };
        let join = JoinConfig::new(&(&a.join).into(), at.tau.min(MAX_TAU))?;
        outside_stores(&a.output, &a.stores)?;
        Ok(SweepCommand {
            stores: a.stores.clone(),
            output: a.output.clone(),
            axis,
            max,
            at,
            pairs: a.pairs.clone(),
            verify: check_spec(&a.check)?,
            sample: a.verify_sample,
            sample_seed: a.sample_seed,
            join,
        })
    }
}

/// The verification `--verify MEASURE:MIN` asks for, if any.
pub fn check_spec(o: &CheckOpts) -> anyhow::Result<Option<VerifySpec>> {
    let Some(v) = &o.verify else {
        return Ok(None);
    };
    let (measure, min) = v
        .split_once(':')
        .ok_or_else(|| anyhow::anyhow!("--verify {v:?}: expected MEASURE:MIN, such as s3:0.82"))?;
    let min: f64 = min
        .trim()
        .parse()
        .map_err(|_| anyhow::anyhow!("--verify {v:?}: {min:?} is not a number"))?;
    let spec = verify_spec(&SimilarityOptions {
        measure: measure.trim().to_string(),
        min,
        shingle: o.shingle,
        verify_memory: o.verify_memory,
    })?;
    Ok(Some(VerifySpec {
        shard_dir: o.shard_dir.clone(),
        ..spec
    }))
}

/// `neardup cluster`.
#[derive(Clone, Debug)]
pub struct ClusterCommand {
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

impl ClusterCommand {
    /// Validates `neardup cluster`'s arguments.
    pub fn new(a: &ClusterArgs) -> anyhow::Result<ClusterCommand> {
        let at = Thresholds::filtering(a.tau, a.tau128, a.pairs.is_some())?;
        let join = JoinConfig::new(&(&a.join).into(), at.tau.min(MAX_TAU))?;
        outside_stores(&a.output, &a.stores)?;
        Ok(ClusterCommand {
            stores: a.stores.clone(),
            output: a.output.clone(),
            at,
            representative: a.representative,
            remove_by: a.remove_by,
            pairs: a.pairs.clone(),
            verify: check_spec(&a.check)?,
            join,
        })
    }
}

/// `neardup verify`.
#[derive(Clone, Debug)]
pub struct VerifyCommand {
    /// Stores of the corpus.
    pub stores: Vec<PathBuf>,
    /// Output TSV.
    pub output: PathBuf,
    /// Thresholds of the candidate pairs.
    pub at: Thresholds,
    /// A pairs file to reuse.
    pub pairs: Option<PathBuf>,
    /// How pairs are verified.
    pub verify: VerifySpec,
    /// Plan and backend.
    pub join: JoinConfig,
}

impl VerifyCommand {
    /// Validates `neardup verify`'s arguments.
    pub fn new(a: &VerifyArgs) -> anyhow::Result<VerifyCommand> {
        let at = Thresholds::filtering(a.tau, a.tau128, a.pairs.is_some())?;
        let join = JoinConfig::new(&(&a.join).into(), at.tau.min(MAX_TAU))?;
        outside_stores(&a.output, &a.stores)?;
        Ok(VerifyCommand {
            stores: a.stores.clone(),
            output: a.output.clone(),
            at,
            pairs: a.pairs.clone(),
            verify: VerifySpec {
                shard_dir: a.shard_dir.clone(),
                ..verify_spec(&(&a.similarity).into())?
            },
            join,
        })
    }
}

/// `neardup evaluate`.
#[derive(Clone, Debug)]
pub struct EvaluateCommand {
    /// Stores of the corpus.
    pub stores: Vec<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// Documents to sample.
    pub sample: Option<usize>,
    /// Seed of the sample.
    pub seed: u64,
    /// Largest tau.
    pub tau_max: u32,
    /// The truth's definition.
    pub verify: VerifySpec,
    /// A remove list to score: the `remove.tsv` of this directory.
    pub removal: Option<PathBuf>,
}

impl EvaluateCommand {
    /// Validates `neardup evaluate`'s arguments.
    pub fn new(a: &EvaluateArgs) -> anyhow::Result<EvaluateCommand> {
        anyhow::ensure!(a.tau_max <= 64, "--tau-max {}: at most 64", a.tau_max);
        anyhow::ensure!(a.sample != Some(0), "--sample 0: nothing to evaluate");
        outside_stores(&a.output, &a.stores)?;
        Ok(EvaluateCommand {
            stores: a.stores.clone(),
            output: a.output.clone(),
            sample: a.sample,
            seed: a.seed,
            tau_max: a.tau_max,
            verify: VerifySpec {
                shard_dir: a.shard_dir.clone(),
                ..verify_spec(&(&a.similarity).into())?
            },
            removal: a.removal.clone(),
        })
    }
}

/// `neardup write`, validated.
#[derive(Clone, Debug)]
pub struct WriteCommand {
    /// The stores.
    pub stores: Vec<PathBuf>,
    /// The keep list.
    pub keep: PathBuf,
    /// The clusters file, if any.
    pub clusters: Option<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// Replace an earlier corpus there.
    pub force: bool,
    /// Where the shards are now.
    pub shard_dir: Option<PathBuf>,
    /// How it is written.
    pub corpus: CorpusConfig,
}

impl WriteCommand {
    /// Validates `neardup write`'s arguments.
    pub fn new(a: &WriteArgs) -> anyhow::Result<WriteCommand> {
        anyhow::ensure!(
            a.keep.is_file(),
            "--keep {}: no such file (a dedup output's keep.txt, or one id per line)",
            a.keep.display()
        );
        let clusters = match &a.clusters {
            Some(c) => {
                anyhow::ensure!(c.is_file(), "--clusters {}: no such file", c.display());
                Some(c.clone())
            }
            None => Some(a.keep.with_file_name("clusters.tsv")).filter(|c| c.is_file()),
        };
        for s in &a.stores {
            anyhow::ensure!(
                crate::corpus::discover::is_store(s),
                "{}: not a store (write takes the stores a run deduplicated)",
                s.display()
            );
        }
        outside_stores(&a.output, &a.stores)?;
        Ok(WriteCommand {
            stores: a.stores.clone(),
            keep: a.keep.clone(),
            clusters,
            output: a.output.clone(),
            force: a.force,
            shard_dir: a.shard_dir.clone(),
            corpus: CorpusConfig::new(a.format, &(&a.corpus).into())?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::{Cli, Command};
    use clap::Parser;

    fn parse(line: &str) -> Command {
        Cli::try_parse_from(line.split_whitespace())
            .unwrap()
            .command
    }

    /// Why the command line `line` is refused.
    fn refusal(line: &str) -> String {
        let e = match parse(line) {
            Command::Join(a) => JoinCommand::new(&a).err(),
            Command::Dedup(a) => crate::jobs::spec::DedupSpec::new(&(&*a).into()).err(),
            Command::Sweep(a) => SweepCommand::new(&a).err(),
            Command::Cluster(a) => ClusterCommand::new(&a).err(),
            _ => unreachable!("a command with a config"),
        };
        e.unwrap_or_else(|| panic!("{line}: accepted")).to_string()
    }

    #[test]
    fn bad_options_fail_before_anything_runs() {
        for (line, why) in [
            ("neardup join s -o x --tau 40", "tau must be below 32"),
            ("neardup join s -o x --method random --blocks 4", "--blocks"),
            ("neardup join s -o x --tau 3 --blocks 3", "4 to 64 blocks"),
            ("neardup dedup c -o out --bits 0", "--bits"),
            (
                "neardup dedup c -o out --candidates simhash --tau 3 --tau-max 8 --blocks 6",
                "9 to 64 blocks",
            ),
            ("neardup sweep s -o out --tau 3", "--tau-max"),
            ("neardup cluster s -o out --tau128 200", "above 128"),
        ] {
            let e = refusal(line);
            assert!(e.contains(why), "{line}: {e}");
        }
    }

    #[test]
    fn library_values_are_named_on_the_command_line_as_in_their_files() {
        use crate::trec::dedup::Rule;
        use crate::write::Format;
        use clap::ValueEnum;
        fn same<T: ValueEnum + serde::Serialize>() {
            for v in T::value_variants() {
                let cli = v.to_possible_value().unwrap().get_name().to_string();
                assert_eq!(serde_json::to_value(v).unwrap(), serde_json::json!(cli));
            }
        }
        same::<Representative>();
        same::<RemoveBy>();
        same::<crate::report::typed::TableFormat>();
        same::<Format>();
        same::<Rule>();
    }

    #[test]
    fn the_command_line_defaults_are_the_library_defaults() {
        use crate::jobs::options::DedupOptions;
        let Command::Dedup(a) = parse("neardup dedup crawl -o out") else {
            unreachable!()
        };
        let parsed: DedupOptions = (&*a).into();
        let d = DedupOptions {
            inputs: vec!["crawl".into()],
            output: "out".into(),
            ..DedupOptions::default()
        };
        assert_eq!(parsed, d);
    }
}
