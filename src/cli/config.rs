//! The command line's arguments validated into the library's jobs (`join_job`, `sweep_job`,
//! `cluster_job`, `verify_job`, `evaluate_job`, `write_job`; `dedup`'s goes through its
//! options, [`crate::jobs::options`]), before anything is read or written: a bad option fails
//! here, with the option's name, and never halfway through a run.

use super::args::{ClusterArgs, EvaluateArgs, JoinArgs, SweepArgs, VerifyArgs, WriteArgs};
use crate::jobs::cluster::ClusterJob;
use crate::jobs::corpus::WriteJob;
use crate::jobs::evaluate::EvaluateJob;
use crate::jobs::join::{JoinJob, JoinPairs};
use crate::jobs::spec::check_spec;
use crate::jobs::spec::{outside_stores, verify_spec, CorpusConfig, JoinConfig, Thresholds};
use crate::jobs::sweep::{SweepJob, SweepOptions};
use crate::jobs::verify::{VerifyJob, VerifyPairs};
use crate::join::plan::MAX_TAU;
use crate::verify::VerifySpec;

/// Validates `neardup join`'s arguments.
pub fn join_job(a: &JoinArgs) -> anyhow::Result<JoinJob> {
    let o = JoinPairs {
        stores: a.stores.clone(),
        against: a.against.clone(),
        tau: a.tau,
        tau128: a.tau128,
        join: (&a.join).into(),
    };
    JoinJob::new(&o, a.output.clone(), a.pairs_bin.clone(), a.collapse_exact)
}

/// Validates `neardup sweep`'s arguments.
pub fn sweep_job(a: &SweepArgs) -> anyhow::Result<SweepJob> {
    let o = SweepOptions {
        stores: a.stores.clone(),
        output: a.output.clone(),
        tau_max: a.tau_max,
        tau128_max: a.tau128_max,
        tau: a.tau,
        pairs: a.pairs.clone(),
        verify: a.check.verify.clone(),
        shingle: a.check.shingle,
        shard_dir: a.check.shard_dir.clone(),
        verify_memory: a.check.verify_memory,
        verify_sample: a.verify_sample,
        sample_seed: a.sample_seed,
        join: (&a.join).into(),
    };
    SweepJob::new(&o)
}

/// Validates `neardup cluster`'s arguments.
pub fn cluster_job(a: &ClusterArgs) -> anyhow::Result<ClusterJob> {
    let at = Thresholds::filtering(a.tau, a.tau128, a.pairs.is_some())?;
    let join = JoinConfig::new(&(&a.join).into(), at.tau.min(MAX_TAU))?;
    outside_stores(&a.output, &a.stores)?;
    Ok(ClusterJob {
        stores: a.stores.clone(),
        output: a.output.clone(),
        at,
        representative: a.representative,
        remove_by: a.remove_by,
        pairs: a.pairs.clone(),
        verify: check_spec(
            a.check.verify.as_deref(),
            a.check.shingle,
            a.check.shard_dir.clone(),
            a.check.verify_memory,
        )?,
        join,
    })
}

/// Validates `neardup verify`'s arguments.
pub fn verify_job(a: &VerifyArgs) -> anyhow::Result<VerifyJob> {
    let o = VerifyPairs {
        stores: a.stores.clone(),
        tau: a.tau,
        tau128: a.tau128,
        pairs: a.pairs.clone(),
        shard_dir: a.shard_dir.clone(),
        similarity: (&a.similarity).into(),
        join: (&a.join).into(),
    };
    VerifyJob::new(&o, a.output.clone())
}

/// Validates `neardup evaluate`'s arguments.
pub fn evaluate_job(a: &EvaluateArgs) -> anyhow::Result<EvaluateJob> {
    anyhow::ensure!(a.tau_max <= 64, "--tau-max {}: at most 64", a.tau_max);
    anyhow::ensure!(a.sample != Some(0), "--sample 0: nothing to evaluate");
    outside_stores(&a.output, &a.stores)?;
    Ok(EvaluateJob {
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

/// Validates `neardup write`'s arguments.
pub fn write_job(a: &WriteArgs) -> anyhow::Result<WriteJob> {
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
    Ok(WriteJob {
        stores: a.stores.clone(),
        keep: a.keep.clone(),
        clusters,
        output: a.output.clone(),
        force: a.force,
        shard_dir: a.shard_dir.clone(),
        corpus: CorpusConfig::new(a.format, &(&a.corpus).into())?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::{Cli, Command};
    use crate::cluster::star::RemoveBy;
    use crate::cluster::Representative;
    use clap::Parser;

    fn parse(line: &str) -> Command {
        Cli::try_parse_from(line.split_whitespace())
            .unwrap()
            .command
    }

    /// Why the command line `line` is refused.
    fn refusal(line: &str) -> String {
        let e = match parse(line) {
            Command::Join(a) => join_job(&a).err(),
            Command::Dedup(a) => crate::jobs::spec::DedupSpec::new(&(&*a).into()).err(),
            Command::Sweep(a) => sweep_job(&a).err(),
            Command::Cluster(a) => cluster_job(&a).err(),
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
        same::<crate::text::extract::TextMode>();
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

    /// The TREC and reuse jobs: an empty command line gives the library's defaults.
    #[test]
    fn the_trec_and_reuse_defaults_are_the_library_defaults() {
        use crate::cli::args::{ReuseCommand, TrecCommand};
        use crate::jobs::{reuse, trec};
        let reuse_of = |line: &str| match parse(line) {
            Command::Reuse(r) => r,
            _ => unreachable!(),
        };
        let trec_of = |line: &str| match parse(line) {
            Command::Trec(t) => t,
            _ => unreachable!(),
        };
        let ReuseCommand::Discover(a) = reuse_of("neardup reuse discover s -o o") else {
            unreachable!()
        };
        let want = reuse::DiscoverJob {
            stores: vec!["s".into()],
            output: "o".into(),
            ..Default::default()
        };
        assert_eq!(super::super::reuse::discover_job(&a), want);
        let ReuseCommand::Top(a) = reuse_of("neardup reuse top s") else {
            unreachable!()
        };
        let want = reuse::TopJob {
            stores: vec!["s".into()],
            ..Default::default()
        };
        assert_eq!(super::super::reuse::top_job(&a), want);
        let ReuseCommand::Detect(a) = reuse_of("neardup reuse detect s --labels l -o o") else {
            unreachable!()
        };
        let want = reuse::DetectJob {
            stores: vec!["s".into()],
            labels: "l".into(),
            output: "o".into(),
            ..Default::default()
        };
        assert_eq!(super::super::reuse::detect_job(&a), want);
        let TrecCommand::Inspect(a) = trec_of("neardup trec inspect r --store s -o o") else {
            unreachable!()
        };
        let want = trec::InspectJob {
            files: vec!["r".into()],
            store: vec!["s".into()],
            output: "o".into(),
            ..Default::default()
        };
        assert_eq!(super::super::trec::inspect_job(&a), want);
        let TrecCommand::Run(a) = trec_of("neardup trec run r --clusters c -o o") else {
            unreachable!()
        };
        let mut want = trec::RunJob {
            runs: vec!["r".into()],
            output: "o".into(),
            ..Default::default()
        };
        want.groups.clusters = "c".into();
        assert_eq!(super::super::trec::run_job(&a), want);
        let TrecCommand::Transfer(a) = trec_of("neardup trec transfer q --from a --to b -o o")
        else {
            unreachable!()
        };
        let want = trec::TransferJob {
            qrels: "q".into(),
            from: vec!["a".into()],
            to: vec!["b".into()],
            output: "o".into(),
            ..Default::default()
        };
        assert_eq!(super::super::trec::transfer_job(&a), want);
    }
}
