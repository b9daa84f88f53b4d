//! Raw arguments turned into validated configurations, one per command, before anything is
//! read or written: a bad option fails here, with the option's name, and never halfway through
//! a run. The commands then only call the library and the shared steps of
//! `pipeline` with these.

use std::path::{Path, PathBuf};

use super::args::{
    self, Candidates, CheckOpts, ClusterArgs, CorpusFormat, CorpusOpts, DedupArgs, EvaluateArgs,
    Features, FingerprintOpts, JoinArgs, JoinOpts, SimilarityOpts, SweepArgs, TableFormat,
    TextFormat, VerifyArgs, WriteArgs,
};
use crate::base::paths::within;
use crate::cluster::star::RemoveBy;
use crate::cluster::{Axis, Representative};
use crate::corpus::{PayloadKind, ReadOptions};
use crate::fingerprint::build::BuildConfig;
use crate::fingerprint::minhash::MinhashParams;
use crate::fingerprint::store::Filters;
use crate::fingerprint::Params;
use crate::join::plan::{Method, PlanSpec, MAX_TAU};
use crate::join::BackendChoice;
use crate::text::TokenOptions;
use crate::verify::{Measure, VerifySpec};

/// How a join is planned and where it runs (`--method`, `--blocks`, `--bits`,
/// `--iterations`, `--seed`, `--backend`, `--adapter`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinConfig {
    /// How the plan is made.
    pub plan: PlanSpec,
    /// The backend asked for.
    pub backend: BackendChoice,
    /// The adapter asked for.
    pub adapter: Option<String>,
}

impl JoinConfig {
    /// Validates the join options for a join at `tau`, before anything is read or written:
    /// the plan's own checks ([`PlanSpec::plan`]: bits, iterations, the block count against
    /// tau) run on a token corpus size; the plan itself waits for the real one.
    pub fn new(o: &JoinOpts, tau: u32) -> anyhow::Result<JoinConfig> {
        let method = match o.method {
            args::Method::Exact => Method::Exact,
            args::Method::Random => Method::Random,
        };
        let cfg = JoinConfig {
            plan: PlanSpec {
                method,
                blocks: o.blocks,
                bits: o.bits,
                iterations: o.iterations,
                seed: o.seed,
            },
            backend: match o.backend {
                args::Backend::Auto => BackendChoice::Auto,
                args::Backend::Gpu => BackendChoice::Gpu,
                args::Backend::Cpu => BackendChoice::Cpu,
            },
            adapter: o.adapter.clone(),
        };
        cfg.plan.plan(1, tau)?;
        Ok(cfg)
    }
}

/// The thresholds of pairs: 64-bit `tau` and, when given, 128-bit `tau128`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thresholds {
    /// Largest 64-bit distance.
    pub tau: u32,
    /// Largest 128-bit distance.
    pub tau128: Option<u32>,
}

impl Thresholds {
    /// Validated thresholds.
    pub fn new(tau: u32, tau128: Option<u32>) -> anyhow::Result<Thresholds> {
        anyhow::ensure!(tau <= MAX_TAU, "tau must be below {}", MAX_TAU + 1);
        anyhow::ensure!(
            tau128.is_none_or(|t| t <= 128),
            "thresholds above 128 mean nothing"
        );
        Ok(Thresholds { tau, tau128 })
    }

    /// Validated thresholds that filter the pairs of a pairs file where `pairs` (any 64-bit
    /// distance: MinHash candidates have them all), or those of a join to run.
    pub fn filtering(tau: u32, tau128: Option<u32>, pairs: bool) -> anyhow::Result<Thresholds> {
        if !pairs {
            return Thresholds::new(tau, tau128);
        }
        anyhow::ensure!(tau <= 64, "thresholds above 64 mean nothing");
        Thresholds::new(0, tau128)?;
        Ok(Thresholds { tau, tau128 })
    }
}

/// Refuses an output that is one of the input stores or lies inside one: writing there would
/// destroy a column the run is reading.
pub fn outside_stores(output: &Path, stores: &[PathBuf]) -> anyhow::Result<()> {
    if output == Path::new("-") {
        return Ok(());
    }
    if let Some(s) = stores.iter().find(|s| within(output, s)) {
        anyhow::bail!(
            "the output {} lies inside the input store {}: choose an output outside it",
            output.display(),
            s.display()
        );
    }
    Ok(())
}

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
        let join = JoinConfig::new(&a.join, at.tau.min(MAX_TAU))?;
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
        let join = JoinConfig::new(&a.join, at.tau.min(MAX_TAU))?;
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
    let spec = verify_spec(&SimilarityOpts {
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
        let join = JoinConfig::new(&a.join, at.tau.min(MAX_TAU))?;
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
        let join = JoinConfig::new(&a.join, at.tau.min(MAX_TAU))?;
        outside_stores(&a.output, &a.stores)?;
        Ok(VerifyCommand {
            stores: a.stores.clone(),
            output: a.output.clone(),
            at,
            pairs: a.pairs.clone(),
            verify: VerifySpec {
                shard_dir: a.shard_dir.clone(),
                ..verify_spec(&a.similarity)?
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
                ..verify_spec(&a.similarity)?
            },
            removal: a.removal.clone(),
        })
    }
}

/// A validated verification: a known measure, a threshold in [0, 1], shingles of 1 to 64 terms.
pub fn verify_spec(o: &SimilarityOpts) -> anyhow::Result<VerifySpec> {
    let (measure, min, k) = (o.measure.as_str(), o.min, o.shingle);
    let measure = Measure::parse(measure).ok_or_else(|| {
        anyhow::anyhow!("unknown measure {measure:?}: s3, jaccard or containment")
    })?;
    anyhow::ensure!(
        (0.0..=1.0).contains(&min),
        "--min {min}: a similarity is between 0 and 1"
    );
    anyhow::ensure!(
        (1..=64).contains(&k),
        "--shingle {k}: between 1 and 64 terms"
    );
    anyhow::ensure!(
        o.verify_memory >= 1 << 20,
        "--verify-memory {}: at least 1M",
        o.verify_memory
    );
    Ok(VerifySpec {
        k,
        measure,
        min,
        shard_dir: None,
        memory: o.verify_memory,
    })
}

/// `neardup dedup`, and the `demo` that runs it.
#[derive(Clone, Debug)]
pub struct DedupCommand {
    /// The store to build in `output/store`.
    pub build: BuildConfig,
    /// Stores given as the inputs, used as they are (nothing fingerprinted); empty when the
    /// inputs are crawls.
    pub stores: Vec<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// Thresholds of the clusters and lists.
    pub at: Thresholds,
    /// Largest threshold of the sweep (the join's).
    pub tau_max: u32,
    /// How representatives are chosen.
    pub representative: Representative,
    /// How the remove list is made.
    pub remove_by: RemoveBy,
    /// Plan and backend.
    pub join: JoinConfig,
    /// Text verification of the candidates (the default), or None for SimHash alone.
    pub verify: Option<DedupVerify>,
    /// Where candidates come from.
    pub candidates: Candidates,
    /// Stores of an older collection deduplicated against (empty: none).
    pub against: Vec<PathBuf>,
    /// Pages in the same canonical class are candidates too.
    pub canonical: bool,
    /// Write the kept documents out into `output/corpus`.
    pub corpus: Option<CorpusConfig>,
    /// Where the shards of given stores are now, if they moved since fingerprinting.
    pub shard_dir: Option<PathBuf>,
    /// Typed table formats written next to the TSVs.
    pub tables: Vec<TableFormat>,
}

/// How a corpus is written (`write`, `dedup --write-corpus`).
#[derive(Clone, Debug)]
pub struct CorpusConfig {
    /// The format.
    pub format: CorpusFormat,
    /// Target shard size in bytes.
    pub shard_size: u64,
    /// Labeled paragraphs to drop: a discover output or a store (read when writing).
    pub labels: Option<PathBuf>,
}

impl CorpusConfig {
    /// Validates the corpus options for `format`.
    pub fn new(format: CorpusFormat, o: &CorpusOpts) -> anyhow::Result<CorpusConfig> {
        if let Some(l) = &o.drop_labeled_chunks {
            anyhow::ensure!(
                format != CorpusFormat::WarcGz,
                "--drop-labeled-chunks changes the text, and warc.gz copies each record as it was: write jsonl.gz or parquet"
            );
            anyhow::ensure!(
                l.exists(),
                "--drop-labeled-chunks {}: no such reuse discover output or store",
                l.display()
            );
        }
        Ok(CorpusConfig {
            format,
            shard_size: o.shard_size,
            labels: o.drop_labeled_chunks.clone(),
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
            corpus: CorpusConfig::new(a.format, &a.corpus)?,
        })
    }
}

/// How `dedup` verifies.
#[derive(Clone, Debug)]
pub struct DedupVerify {
    /// The measure and its threshold.
    pub spec: VerifySpec,
    /// Skip pairs whose texts are already joined ([`crate::verify::Compare::SkipJoined`]).
    pub skip_joined: bool,
    /// Verify against kept texts only ([`crate::verify::leaders`]), with at most this many
    /// listed per run (0: no bound); None: every candidate pair.
    pub leaders: Option<usize>,
}

/// `dedup --candidates simhash`'s candidate threshold when it verifies. Measured on two crawls of Debian
/// documentation (BENCHMARKS.md, "Quality on real crawls"): recall against S3 >= 0.82 is
/// 0.997 (Boost) and 0.954 (OpenJDK) at 14, and 0.997 and 0.904 at 13.
pub const VERIFIED_TAU: u32 = 14;

/// `dedup --no-verify`'s threshold: Chuweb21D's choice.
pub const SIMHASH_TAU: u32 = 3;

impl DedupCommand {
    /// Validates `neardup dedup`'s arguments.
    pub fn new(a: &DedupArgs) -> anyhow::Result<DedupCommand> {
        // Verified runs take MinHash-LSH candidates unless told otherwise; SimHash alone is the
        // --no-verify way (BENCHMARKS.md, "Candidate methods side by side").
        let candidates = a.candidates.unwrap_or(if a.no_verify {
            Candidates::Simhash
        } else {
            Candidates::Minhash
        });
        let minhash = candidates == Candidates::Minhash;
        let tau = a.tau.unwrap_or(match (minhash, a.no_verify) {
            (true, _) => 64,
            (false, true) => SIMHASH_TAU,
            (false, false) => VERIFIED_TAU,
        });
        let tau_max = a.tau_max.unwrap_or(tau).max(tau);
        let (at, join) = if minhash {
            // No join plan: the distances only filter and sweep the LSH candidates.
            anyhow::ensure!(tau_max <= 64, "--tau-max {tau_max}: at most 64");
            let at = Thresholds {
                tau,
                tau128: a.tau128,
            };
            (at, JoinConfig::new(&a.join, 0)?)
        } else {
            let at = Thresholds::new(tau, a.tau128)?;
            Thresholds::new(tau_max, None)?;
            (at, JoinConfig::new(&a.join, tau_max)?)
        };
        // MinHash candidates need the band keys: --minhash is implied, with the bands and rows
        // given.
        let mut fingerprint = a.fingerprint.clone();
        if minhash {
            anyhow::ensure!(
                fingerprint.features == Features::Native,
                "--candidates minhash needs the native features (its shingles are the store's terms)"
            );
            fingerprint.minhash = true;
        }
        let build = build_config(&a.inputs, &a.output.join("store"), a.force, &fingerprint)?;
        let stores: Vec<PathBuf> = a
            .inputs
            .iter()
            .filter(|p| crate::corpus::discover::is_store(p))
            .cloned()
            .collect();
        if let (Some(store), Some(crawl)) = (
            stores.first(),
            a.inputs
                .iter()
                .find(|p| !crate::corpus::discover::is_store(p)),
        ) {
            anyhow::bail!(
                "{} is a store and {} is not: give dedup crawls, or stores fingerprinted before, not both",
                store.display(),
                crawl.display()
            );
        }
        if !a.against.is_empty() {
            anyhow::ensure!(
                a.remove_by == RemoveBy::Star,
                "--against removes by stars only (a cluster's representative may be an old document, and old documents are never removed)"
            );
            for p in &a.against {
                anyhow::ensure!(
                    crate::corpus::discover::is_store(p),
                    "--against {}: not a store (fingerprint the old collection first, with the same options)",
                    p.display()
                );
            }
            outside_stores(&a.output, &a.against)?;
        }
        anyhow::ensure!(
            a.write_corpus.is_some() || a.corpus.drop_labeled_chunks.is_none(),
            "--drop-labeled-chunks goes with --write-corpus jsonl.gz or parquet"
        );
        Ok(DedupCommand {
            corpus: a
                .write_corpus
                .map(|f| CorpusConfig::new(f, &a.corpus))
                .transpose()?,
            tables: a.tables.clone(),
            shard_dir: a.shard_dir.clone(),
            canonical: a.canonical,
            against: a.against.clone(),
            candidates,
            stores,
            build,
            output: a.output.clone(),
            at,
            tau_max,
            representative: a.representative,
            remove_by: a.remove_by,
            join,
            verify: if a.no_verify {
                None
            } else {
                Some(DedupVerify {
                    spec: VerifySpec {
                        shard_dir: a.shard_dir.clone(),
                        ..verify_spec(&a.similarity)?
                    },
                    skip_joined: a.skip_joined,
                    leaders: (minhash
                        && !a.all_pairs
                        && !a.skip_joined
                        && a.representative != Representative::Central
                        && a.remove_by == RemoveBy::Star
                        && tau_max == tau)
                        .then_some(a.max_leaders),
                })
            },
        })
    }

    /// The default run over `inputs` into `output` (replacing its store), at `tau` (default:
    /// as `dedup --candidates simhash`'s) with a sweep up to `tau_max` (default: `tau`): what
    /// `demo` runs. The demo's tables are per SimHash threshold, so its candidates are SimHash
    /// pairs within tau.
    pub fn defaults(
        inputs: Vec<PathBuf>,
        output: PathBuf,
        tau: Option<u32>,
        tau_max: Option<u32>,
    ) -> anyhow::Result<DedupCommand> {
        use clap::Parser;
        #[derive(Parser)]
        struct Defaults {
            #[command(flatten)]
            fingerprint: FingerprintOpts,
            #[command(flatten)]
            join: JoinOpts,
            #[command(flatten)]
            similarity: SimilarityOpts,
        }
        let d = Defaults::try_parse_from(["neardup"])?;
        let tau = tau.unwrap_or(VERIFIED_TAU);
        let tau_max = tau_max.unwrap_or(tau).max(tau);
        Ok(DedupCommand {
            build: build_config(&inputs, &output.join("store"), true, &d.fingerprint)?,
            stores: Vec::new(),
            output,
            at: Thresholds::new(tau, None)?,
            tau_max,
            representative: Representative::default(),
            remove_by: RemoveBy::default(),
            join: JoinConfig::new(&d.join, tau_max)?,
            verify: Some(DedupVerify {
                spec: verify_spec(&d.similarity)?,
                skip_joined: false,
                leaders: None,
            }),
            candidates: Candidates::Simhash,
            against: Vec::new(),
            canonical: false,
            corpus: None,
            shard_dir: None,
            tables: Vec::new(),
        })
    }
}

/// The build configuration of `opts` over `inputs` into the store `output`.
pub fn build_config(
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
            max_record: usize::try_from(a.max_record_size).unwrap_or(usize::MAX),
            follow: a.follow,
        },
        params,
        filters: Filters {
            status_200_only: !a.any_status,
            html_text_only: !a.any_content_type,
            min_html_len: a.min_html_len,
            min_terms: a.min_terms,
            english_only: a.english,
        },
        chunks: a.chunks,
        minhash: if a.minhash {
            anyhow::ensure!(
                a.features == Features::Native,
                "--minhash needs the native features (its shingles are the store's terms)"
            );
            anyhow::ensure!(
                a.minhash_bands >= 1
                    && a.minhash_rows >= 1
                    && a.minhash_bands * a.minhash_rows <= 4096,
                "--minhash-bands and --minhash-rows: at least 1 each, at most 4096 bins in all"
            );
            Some(MinhashParams {
                bands: a.minhash_bands,
                rows: a.minhash_rows,
                ..MinhashParams::default()
            })
        } else {
            None
        },
    })
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
            Command::Dedup(a) => DedupCommand::new(&a).err(),
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
    fn the_demo_runs_dedup_with_its_defaults() {
        let Command::Dedup(a) =
            parse("neardup dedup crawl -o out --force --candidates simhash --tau 3 --tau-max 8")
        else {
            unreachable!()
        };
        let parsed = DedupCommand::new(&a).unwrap();
        let d =
            DedupCommand::defaults(vec!["crawl".into()], "out".into(), Some(3), Some(8)).unwrap();
        assert_eq!(format!("{parsed:?}"), format!("{d:?}"));
        let Command::Dedup(a) = parse("neardup dedup crawl -o out --force --candidates simhash")
        else {
            unreachable!()
        };
        let parsed = DedupCommand::new(&a).unwrap();
        let d = DedupCommand::defaults(vec!["crawl".into()], "out".into(), None, None).unwrap();
        assert_eq!(format!("{parsed:?}"), format!("{d:?}"));
    }
}
