//! The jobs' options validated into the specs they run, before anything is read or written:
//! a bad option fails here, with the option's name (as the command line spells it), and never
//! halfway through a run. The command line and the Python package both come through here.

use std::path::{Path, PathBuf};

use super::options::{
    Candidates, CorpusOptions, DedupOptions, Features, FingerprintOptions, JoinOptions,
    SimilarityOptions, TextFormat,
};
use crate::base::paths::within;
use crate::cluster::star::RemoveBy;
use crate::cluster::Representative;
use crate::corpus::{PayloadKind, ReadOptions};
use crate::fingerprint::build::BuildConfig;
use crate::fingerprint::minhash::MinhashParams;
use crate::fingerprint::store::Filters;
use crate::fingerprint::Params;
use crate::join::plan::{PlanSpec, MAX_TAU};
use crate::join::BackendChoice;
use crate::report::typed::TableFormat;
use crate::text::TokenOptions;
use crate::verify::{Measure, VerifySpec};
use crate::write::Format as CorpusFormat;

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
    pub fn new(o: &JoinOptions, tau: u32) -> anyhow::Result<JoinConfig> {
        let cfg = JoinConfig {
            plan: PlanSpec {
                method: o.method,
                blocks: o.blocks,
                bits: o.bits,
                iterations: o.iterations,
                seed: o.seed,
            },
            backend: o.backend,
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

/// A validated verification: a known measure, a threshold in [0, 1], shingles of 1 to 64 terms.
pub fn verify_spec(o: &SimilarityOptions) -> anyhow::Result<VerifySpec> {
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
        ..VerifySpec::default()
    })
}

/// The `dedup` job, validated: what [`super::dedup::dedup`] runs.
#[derive(Clone, Debug)]
pub struct DedupSpec {
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
    /// `--keep-by`: the field and which end of its numbers is kept first.
    pub keep_by: Option<(String, crate::cluster::policy::Order)>,
    /// `--prefer`: stores whose documents are kept first, in this order.
    pub prefer: Vec<PathBuf>,
    /// Write the kept documents out into `output/corpus`.
    pub corpus: Option<CorpusConfig>,
    /// `--substrings`: the shortest repeated span found among the kept documents, in words.
    pub substrings: Option<usize>,
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
    pub fn new(format: CorpusFormat, o: &CorpusOptions) -> anyhow::Result<CorpusConfig> {
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

/// How `dedup` verifies.
#[derive(Clone, Debug)]
pub struct DedupVerify {
    /// The measure and its threshold.
    pub spec: VerifySpec,
    /// Skip pairs whose texts are already joined ([`crate::verify::Compare::SkipJoined`]).
    pub skip_joined: bool,
    /// Compare pages on their own content: the blocks they share with their whole site set
    /// aside (counted once the stores are open; main content only).
    pub own_content: bool,
    /// Verify against kept texts only ([`crate::cluster::leaders`]), with at most this many
    /// listed per run (0: no bound); None: every candidate pair.
    pub leaders: Option<usize>,
}

/// `dedup --candidates simhash`'s candidate threshold when it verifies. Measured on two crawls of Debian
/// documentation (BENCHMARKS.md, "Quality on real crawls"): recall against S3 >= 0.82 is
/// 0.997 (Boost) and 0.954 (OpenJDK) at 14, and 0.997 and 0.904 at 13.
pub const VERIFIED_TAU: u32 = 14;

/// `dedup --no-verify`'s threshold: Chuweb21D's choice.
pub const SIMHASH_TAU: u32 = 3;

impl DedupSpec {
    /// Validates `dedup`'s options.
    pub fn new(a: &DedupOptions) -> anyhow::Result<DedupSpec> {
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
        let keep_by = a.keep_by.as_deref().map(parse_keep_by).transpose()?;
        if let Some((field, _)) = &keep_by {
            match &fingerprint.keep_field {
                Some(f) if f != field => anyhow::bail!(
                    "--keep-by {field} and --keep-field {f} name different fields: give one"
                ),
                _ => fingerprint.keep_field = Some(field.clone()),
            }
            anyhow::ensure!(
                a.representative != Representative::Central,
                "--keep-by decides before the representative rule, which cannot be central (its order follows the graph): choose lowest-id, first or longest"
            );
        }
        if !a.prefer.is_empty() {
            anyhow::ensure!(
                a.representative != Representative::Central,
                "--prefer decides before the representative rule, which cannot be central: choose lowest-id, first or longest"
            );
        }
        if minhash {
            anyhow::ensure!(
                fingerprint.features == Features::Native,
                "--candidates minhash needs the native features (its shingles are the store's terms)"
            );
            fingerprint.minhash = true;
        }
        let mut build = build_config(&a.inputs, &a.output.join("store"), a.force, &fingerprint)?;
        // Asked to, a verified run keeps the shingle sets of the texts it fingerprints, and
        // verification compares them instead of reading the candidates' records again
        // (BENCHMARKS.md, "Verification from the store").
        if a.keep_shingles {
            anyhow::ensure!(
                !a.no_verify,
                "--keep-shingles keeps what verification compares: not with --no-verify"
            );
            anyhow::ensure!(
                fingerprint.features == Features::Native,
                "--keep-shingles needs the native features (its shingles are the store's terms)"
            );
            build.shingles = Some(a.similarity.shingle);
        }
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
                a.remove_by.by_stars(),
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
            !a.skip_joined || a.remove_by == RemoveBy::Component,
            "--skip-joined leaves out comparisons that the star removal needs (a text would be kept for want of its skipped pair to a kept text): use it with --remove-by component"
        );
        anyhow::ensure!(
            a.write_corpus.is_some() || a.corpus.drop_labeled_chunks.is_none(),
            "--drop-labeled-chunks goes with --write-corpus jsonl.gz or parquet"
        );
        Ok(DedupSpec {
            corpus: a
                .write_corpus
                .map(|f| CorpusConfig::new(f, &a.corpus))
                .transpose()?,
            tables: a.tables.clone(),
            shard_dir: a.shard_dir.clone(),
            canonical: a.canonical,
            keep_by,
            prefer: a.prefer.clone(),
            substrings: match a.substrings {
                Some(0) => anyhow::bail!("--substrings takes a span length of at least 1 word"),
                Some(_) if a.write_corpus == Some(crate::write::Format::WarcGz) => anyhow::bail!(
                    "--substrings cuts spans from the texts, and --write-corpus warc.gz copies records as they were: write jsonl.gz or parquet"
                ),
                k => k,
            },
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
                    own_content: a.site_blocks == super::options::SiteBlocks::Aside,
                    leaders: (minhash
                        && !a.all_pairs
                        && !a.skip_joined
                        && a.representative != Representative::Central
                        && a.remove_by.by_stars()
                        && tau_max == tau)
                        .then_some(a.max_leaders),
                })
            },
        })
    }
}

/// `FIELD[:max|min]` read: the field and which end of its numbers is kept first (max when not
/// given).
pub fn parse_keep_by(s: &str) -> anyhow::Result<(String, crate::cluster::policy::Order)> {
    use crate::cluster::policy::Order;
    let (field, order) = match s.rsplit_once(':') {
        Some((f, "max")) => (f, Order::Max),
        Some((f, "min")) => (f, Order::Min),
        _ => (s, Order::Max),
    };
    anyhow::ensure!(
        !field.is_empty(),
        "--keep-by {s:?}: name a field, e.g. --keep-by quality or --keep-by WARC-Date:min"
    );
    Ok((field.to_string(), order))
}

/// The build configuration of `opts` over `inputs` into the store `output`.
pub fn build_config(
    inputs: &[PathBuf],
    output: &Path,
    force: bool,
    a: &FingerprintOptions,
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
                unspaced_chars: !a.no_unspaced_chars,
            },
            seed: a.hash_seed,
            ..Params::default()
        },
    };
    let params = params.with_text(a.text);
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
            value_field: a
                .keep_field
                .clone()
                .filter(|f| !f.eq_ignore_ascii_case(crate::fingerprint::build::WARC_DATE)),
        },
        params,
        keep_field: a.keep_field.clone(),
        early_sets: None,
        filters: Filters {
            status_200_only: !a.any_status,
            html_text_only: !a.any_content_type,
            min_html_len: a.min_html_len,
            min_terms: a.min_terms,
            english_only: a.english,
        },
        chunks: a.chunks,
        shingles: if a.shingles {
            anyhow::ensure!(
                a.features == Features::Native,
                "--shingles needs the native features (its shingles are the store's terms)"
            );
            Some(crate::verify::shingle::DEFAULT_K)
        } else {
            None
        },
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

/// The verification `--verify MEASURE:MIN` asks for, if any.
pub fn check_spec(
    verify: Option<&str>,
    shingle: usize,
    shard_dir: Option<PathBuf>,
    verify_memory: u64,
) -> anyhow::Result<Option<VerifySpec>> {
    let Some(v) = verify else {
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
        shingle,
        verify_memory,
    })?;
    Ok(Some(VerifySpec { shard_dir, ..spec }))
}
