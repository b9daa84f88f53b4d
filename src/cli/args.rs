//! The command line as clap sees it: raw arguments, before validation.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::cluster::star::RemoveBy;
use crate::cluster::Representative;
pub use crate::report::typed::TableFormat;
pub use crate::write::Format as CorpusFormat;

/// The library's choices on the command line: each value is its variant's serde name (the
/// name summary.json and the Python options use; a test holds the two equal), with its help.
/// The library's types know nothing of clap.
macro_rules! library_values {
    ($t:ty { $($v:path => $name:literal: $help:literal),* $(,)? }) => {
        impl ValueEnum for $t {
            fn value_variants<'a>() -> &'a [Self] {
                &[$($v),*]
            }
            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(match *self {
                    $($v => clap::builder::PossibleValue::new($name).help($help),)*
                })
            }
        }
    };
}

library_values!(Representative {
    Representative::LowestId => "lowest-id": "The alphanumerically lowest document id",
    Representative::First => "first": "The first document in corpus order (store order, stores in the order given)",
    Representative::Longest => "longest": "The document with the longest normalised text",
    Representative::Central => "central": "The document with the most near-duplicates (verified neighbours)",
});

library_values!(RemoveBy {
    RemoveBy::Star => "star": "Only near-duplicates of a kept document, each for that one",
    RemoveBy::Component => "component": "Every member of a cluster but its representative (Chuweb21D's rule)",
    RemoveBy::All => "all": "Every document of a star of two or more, its kept one too: no copy kept",
});

library_values!(crate::text::extract::TextMode {
    crate::text::extract::TextMode::Full => "full": "All of a page's text (CopyCat's definition of a near-duplicate)",
    crate::text::extract::TextMode::Main => "main": "Its main content, by block scores (the page's frame, hidden parts and link lists dropped; every article kept but teasers of other stories); the full text where that is under 20 words, or under 60 and a twentieth of the page's text",
});

library_values!(crate::jobs::options::SiteBlocks {
    crate::jobs::options::SiteBlocks::Aside => "aside": "Set aside: pages are compared on their own content (--text main)",
    crate::jobs::options::SiteBlocks::Keep => "keep": "Kept: pages are compared on their main content as extracted",
});

library_values!(TableFormat {
    TableFormat::Parquet => "parquet": "Apache Parquet (zstd)",
    TableFormat::Jsonl => "jsonl": "JSON lines, one object per row",
});

library_values!(CorpusFormat {
    CorpusFormat::WarcGz => "warc.gz": "WARC records, one gzip member each",
    CorpusFormat::JsonlGz => "jsonl.gz": "JSON lines, gzip-compressed",
    CorpusFormat::Parquet => "parquet": "Apache Parquet, zstd-compressed",
});

library_values!(crate::trec::dedup::Rule {
    crate::trec::dedup::Rule::Chuweb21d => "chuweb21d": "The highest-ranked entry of each group stays, replaced by the group's document; the others go",
    crate::trec::dedup::Rule::Mark => "mark": "Every entry stays; those ranked below a near-duplicate are marked `#dup`",
});

const EXIT_CODES: &str = "\
EXIT STATUS:
    0  success; records may have been skipped (the summary says which and why)
    2  an error: bad arguments, an unreadable store, or at least one input shard that could
       not be read at all (the other shards are still processed and the store is written)
  130  interrupted (Ctrl-C, SIGTERM): the run's unfinished files and locks were removed";

/// Near-duplicate detection for web crawls.
#[derive(Debug, Parser)]
#[command(name = "neardup", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    /// Worker threads (default: all cores; at most four per core).
    #[arg(long, global = true, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bar and no summary; errors are still printed.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The whole pipeline: fingerprint, join, sweep, clusters and lists.
    #[command(after_help = DEDUP_HELP)]
    Dedup(Box<DedupArgs>),
    /// A synthetic crawl through the whole pipeline, scored against its planted truth.
    Demo(DemoArgs),
    /// Write the kept documents of a finished run out: WARC.gz, JSONL.gz or Parquet shards.
    #[command(after_help = WRITE_HELP)]
    Write(WriteArgs),
    /// Fingerprint crawl shards into a store.
    #[command(after_help = FINGERPRINT_HELP)]
    Fingerprint(FingerprintArgs),
    /// Show a store's counts, parameters and skipped records by reason.
    Info(InfoArgs),
    /// Write OUT/report.html again for an earlier `dedup` run (every `dedup` writes one).
    Report(ReportArgs),
    /// Why a page of a `dedup` run was removed or kept: the kept page, the score, how the
    /// two became candidates, and the diff of their texts; of two pages, why the run kept them
    /// apart or put them together.
    Explain(ExplainArgs),
    /// Export fingerprints as TSV or as a raw u64 array.
    #[command(after_help = EXPORT_HELP)]
    Export(ExportArgs),
    /// Find all pairs of documents within a Hamming distance.
    #[command(after_help = JOIN_HELP)]
    Join(JoinArgs),
    /// Clusters for every threshold 0..=tau-max from one join: tables and plots.
    #[command(after_help = SWEEP_HELP)]
    Sweep(SweepArgs),
    /// Clusters at one threshold, with keep and remove lists.
    #[command(after_help = CLUSTER_HELP)]
    Cluster(ClusterArgs),
    /// Score candidate pairs on the documents' text (S3, Jaccard, containment of word k-grams).
    #[command(after_help = VERIFY_HELP)]
    Verify(VerifyArgs),
    /// Precision and recall of SimHash (per tau) and MinHash-LSH candidates, and of a remove
    /// list, against text-similarity truth.
    #[command(after_help = EVALUATE_HELP)]
    Evaluate(EvaluateArgs),
    /// TREC runs and qrels: deduplicated by a dedup output, or inspected for near-duplicates
    /// inside each topic.
    #[command(subcommand)]
    Trec(TrecCommand),
    /// Content reuse below the page: paragraph chunks repeated across a corpus, the pages and
    /// the URL neighbourhoods made of them (stores built with `fingerprint --chunks`).
    #[command(subcommand)]
    Reuse(ReuseCommand),
    /// Exact-substring dedup: every span of at least --min-tokens words that occurs more than
    /// once among the documents, each occurrence but the first removed (or all of them).
    #[command(after_help = SUBSTRINGS_HELP)]
    Substrings(SubstringsArgs),
    /// List GPU adapters: backend, type, driver and limits.
    Gpus(GpusArgs),
    /// Join throughput on this machine: pairs compared per second, share of the bound.
    #[command(after_help = BENCH_HELP)]
    Bench(BenchArgs),
    /// Write a synthetic crawl (WARC.gz) with planted exact and near duplicates.
    SynthCrawl(SynthCrawlArgs),
    /// Print the text neardup reads from each document (one JSON line each: id, url, html,
    /// full_text, text, title): what `--text main` or `--text full` keeps of a page (under
    /// `--text main`, title holds the title lines compared before the main content in text).
    Text(TextArgs),
    /// Write a store of random fingerprints with planted near-duplicates.
    Synth(SynthArgs),
}

/// `neardup synth`.
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// Store directory to create.
    #[arg(short, long, value_name = "STORE_DIR")]
    pub output: PathBuf,
    /// Number of fingerprints.
    #[arg(long, default_value_t = 1_000_000)]
    pub docs: usize,
    /// Share of fingerprints that are near copies of an earlier one.
    #[arg(long, default_value_t = 0.1)]
    pub near_share: f64,
    /// Most bits flipped in a near copy.
    #[arg(long, default_value_t = 8)]
    pub max_flips: u32,
    /// Seed.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Replace an existing store.
    #[arg(long)]
    pub force: bool,
}

const JOIN_HELP: &str = "\
OUTPUT:
    TSV with a header: id_a, id_b, hamming64, hamming128; one line per pair, id_a < id_b.
    tau means distance <= tau. Identical fingerprints are pairs at distance 0.
    Documents flagged short or without features are not joined.

EXAMPLES:
    neardup join crawl.store --tau 3 -o pairs.tsv
    neardup join crawl.store --tau 6 --tau128 10 -o pairs.tsv
    neardup join crawl.store --tau 6 --method random --bits 16 --iterations 20 -o pairs.tsv
    neardup join new.store --against old.store --tau 3 -o new-and-cross.tsv";

/// `neardup join`.
#[derive(Debug, Args)]
pub struct JoinArgs {
    /// Store directories (one corpus).
    #[arg(required = true, value_name = "STORE_DIR")]
    pub stores: Vec<PathBuf>,
    /// Stores of an older collection: pairs within STORE_DIR and across to these are listed,
    /// never pairs within the older collection (as `dedup --against` forms them).
    #[arg(long, num_args = 1.., value_name = "STORE_DIR")]
    pub against: Vec<PathBuf>,
    /// Largest 64-bit Hamming distance of a pair.
    #[arg(long, default_value_t = crate::jobs::join::JoinPairs::default().tau)]
    pub tau: u32,
    /// Also require a 128-bit distance of at most this (Chuweb21D's filter).
    #[arg(long)]
    pub tau128: Option<u32>,
    /// Plan and backend.
    #[command(flatten)]
    pub join: JoinOpts,
    /// Output TSV (`-` for standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Also write the pairs in the compact binary form (`pairs.bin`) that `sweep` and
    /// `cluster` take with --pairs.
    #[arg(long, value_name = "FILE")]
    pub pairs_bin: Option<PathBuf>,
    /// List each group of identical fingerprints as its first document paired with each
    /// other member, instead of every pair within the group.
    #[arg(long)]
    pub collapse_exact: bool,
}

const SWEEP_HELP: &str = "\
OUTPUT (in the -o directory):
    sweep.tsv          tau docs_kept kept_ratio max_cluster max_cluster_ratio pairs docs_in_clusters
    sweep.json         the same with the corpus counts
    sweep.svg          kept ratio and largest-cluster ratio against tau
    distances.tsv/svg  document pairs at each distance
    cluster_sizes.tsv/svg  clusters of each size at each tau (log-log)
    summary.json       parameters and counts, written last
    One join at the largest threshold serves every row. Documents excluded from the join
    (too short) count as kept singletons; summary.json counts them separately.

EXAMPLES:
    neardup sweep crawl.store --tau-max 6 -o sweep/
    neardup sweep crawl.store --tau 6 --tau128-max 16 -o sweep128/
    neardup sweep crawl.store --pairs dedup/pairs.bin --tau-max 6 -o sweep/";

/// `neardup sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Store directories (one corpus).
    #[arg(required = true, value_name = "STORE_DIR")]
    pub stores: Vec<PathBuf>,
    /// Output directory.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Sweep the 64-bit threshold from 0 to this.
    #[arg(long, default_value_t = crate::jobs::sweep::SweepOptions::default().tau_max)]
    pub tau_max: u32,
    /// Sweep the 128-bit threshold from 0 to this instead, at the fixed 64-bit --tau.
    #[arg(long, requires = "tau")]
    pub tau128_max: Option<u32>,
    /// The fixed 64-bit threshold of a 128-bit sweep.
    #[arg(long)]
    pub tau: Option<u32>,
    /// Reuse a join (`pairs.bin` from `dedup` or `join --pairs-bin`) instead of joining.
    #[arg(long, value_name = "FILE")]
    pub pairs: Option<PathBuf>,
    /// With --verify: estimate precision from this many pairs drawn per distance (with a 95 %
    /// interval) instead of comparing every candidate; clusters are then of candidates.
    #[arg(long, value_name = "N", requires = "verify")]
    pub verify_sample: Option<u64>,
    /// Seed of the --verify-sample draws.
    #[arg(long, default_value_t = crate::jobs::sweep::SweepOptions::default().sample_seed)]
    pub sample_seed: u64,
    /// Verification.
    #[command(flatten)]
    pub check: CheckOpts,
    /// Plan and backend.
    #[command(flatten)]
    pub join: JoinOpts,
}

const CLUSTER_HELP: &str = "\
OUTPUT (in the -o directory):
    clusters.tsv   id, representative, cluster_size (every document)
    keep.txt       representatives and singletons, one id per line (an inclusion list)
    remove.tsv     id, representative: every other member of a cluster (an exclusion list)
    excluded.tsv   id, reason: documents not joined (too short, no features); they are on
                   the keep list as singletons
    summary.json   parameters and counts, written last

EXAMPLES:
    neardup cluster crawl.store --tau 3 -o clusters/
    neardup cluster crawl.store --tau 6 --tau128 10 --representative longest -o clusters/";

/// `neardup cluster`.
#[derive(Debug, Args)]
pub struct ClusterArgs {
    /// Store directories (one corpus).
    #[arg(required = true, value_name = "STORE_DIR")]
    pub stores: Vec<PathBuf>,
    /// Output directory.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Largest 64-bit Hamming distance within a cluster's pairs.
    #[arg(long, default_value_t = 3)]
    pub tau: u32,
    /// Also require a 128-bit distance of at most this.
    #[arg(long)]
    pub tau128: Option<u32>,
    /// Which member represents a cluster, and which document of a near-duplicate group is
    /// kept first (the remove list's rank order).
    #[arg(long, value_enum, default_value_t = Representative::LowestId)]
    pub representative: Representative,
    /// The remove list: documents that are near-duplicates of a kept document, each naming
    /// it (star), or every cluster member but its representative (component: clusters chain,
    /// so members may share little with it).
    #[arg(long, value_enum, default_value_t = RemoveBy::Star)]
    pub remove_by: RemoveBy,
    /// Reuse a join (`pairs.bin`) instead of joining.
    #[arg(long, value_name = "FILE")]
    pub pairs: Option<PathBuf>,
    /// Verification.
    #[command(flatten)]
    pub check: CheckOpts,
    /// Plan and backend.
    #[command(flatten)]
    pub join: JoinOpts,
}

const VERIFY_HELP: &str = "\
OUTPUT: a TSV with a header: id_a, id_b, hamming64, hamming128, s3, jaccard, containment,
near_duplicate (1 when --measure is at least --min); one line per candidate pair.
The documents are read again from the shards the store was built from: where the store recorded
them, or under --shard-dir if they moved, and unchanged (size and checksum) since.

EXAMPLES:
    neardup verify out/store --pairs out/pairs.bin --tau 6 -o verified.tsv
    neardup verify crawl.store --tau 3 --measure jaccard --min 0.9 --shingle 3 -o -";

const EVALUATE_HELP: &str = "\
On a sample of the joinable documents (--sample N, or all of them), the truth is every pair
whose measure is at least --min, found by comparing every pair of the sample on its text (no
candidate generator). For each tau up to --tau-max, the candidates are the sample's pairs within
that Hamming distance; MinHash-LSH's are the pairs sharing a band key (the store's keys, or
keys signed from the sample with 40 bands of 7 rows). Precision, recall and F1 follow. After
verification precision is 1 and recall is the same: recall is what the candidates allow.
--removal DIR also scores DIR/remove.tsv: each removed document against the one it names
(precision), and against the greedy removal over the truth in id order (recall).

OUTPUT (in the -o directory): evaluate.tsv (method, threshold, candidates, true_positives,
precision, recall, f1), evaluate.svg, and evaluate.json (the same with the sample's counts).

EXAMPLES:
    neardup evaluate crawl.store --sample 5000 --tau-max 12 -o eval/
    neardup evaluate out/store --removal out -o eval/";

/// `neardup evaluate`.
#[derive(Debug, Args)]
pub struct EvaluateArgs {
    /// Store directories (one corpus).
    #[arg(required = true, value_name = "STORE_DIR")]
    pub stores: Vec<PathBuf>,
    /// Output directory.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Documents to sample uniformly (default: all joinable documents; the cost grows with
    /// the square of this).
    #[arg(long, value_name = "N")]
    pub sample: Option<usize>,
    /// Seed of the sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Largest tau evaluated.
    #[arg(long, default_value_t = 12)]
    pub tau_max: u32,
    /// Also score the remove list of this dedup or cluster output directory (made from the
    /// same stores): removal precision (each removed document against the one it names) and
    /// recall (against the greedy removal over the truth, documents in id order).
    #[arg(long, value_name = "DIR")]
    pub removal: Option<PathBuf>,
    /// How pairs are compared on their text.
    #[command(flatten)]
    pub similarity: SimilarityOpts,
    /// Where the shards are now, if they moved since fingerprinting.
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
}

/// How two documents' texts are compared (`verify`, `evaluate`, `dedup --verify`).
#[derive(Debug, Args)]
pub struct SimilarityOpts {
    /// The measure that decides whether a pair is a near-duplicate: s3 (CopyCat), jaccard or
    /// containment.
    #[arg(long, default_value = "s3", value_parser = ["s3", "jaccard", "containment"])]
    pub measure: String,
    /// A pair is a near-duplicate when the measure is at least this (CopyCat: S3 0.82).
    #[arg(long, default_value_t = 0.82)]
    pub min: f64,
    /// Terms per shingle (CopyCat: word 8-grams).
    #[arg(long, default_value_t = 8, value_name = "K")]
    pub shingle: usize,
    /// Shingle sets held at once, about (the documents of whole connected components of the
    /// candidates are verified together): bytes, or with a K, M or G suffix.
    #[arg(long, default_value = "2G", value_name = "SIZE", value_parser = parse_size)]
    pub verify_memory: u64,
}

/// Verification of a sweep's or clusters' candidate pairs.
#[derive(Clone, Debug, Args)]
pub struct CheckOpts {
    /// Verify the candidate pairs on their text, MEASURE:MIN (s3, jaccard or containment and
    /// a threshold, e.g. s3:0.82, CopyCat's): clusters keep only near-duplicates, and a sweep
    /// adds candidates, verified pairs and precision per threshold. Scores kept in --pairs
    /// are reused.
    #[arg(long, value_name = "MEASURE:MIN")]
    pub verify: Option<String>,
    /// Terms per shingle (CopyCat: word 8-grams).
    #[arg(long, default_value_t = 8, value_name = "K")]
    pub shingle: usize,
    /// Where the shards are now, if they moved since fingerprinting (looked up by file name).
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
    /// Shingle sets held at once, about: bytes, or with a K, M or G suffix.
    #[arg(long, default_value = "2G", value_name = "SIZE", value_parser = parse_size)]
    pub verify_memory: u64,
}

/// `neardup verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Store directories (one corpus).
    #[arg(required = true, value_name = "STORE_DIR")]
    pub stores: Vec<PathBuf>,
    /// Output TSV (`-` for stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Candidate pairs: those within this 64-bit Hamming distance.
    #[arg(long, default_value_t = 3)]
    pub tau: u32,
    /// Also require a 128-bit distance of at most this.
    #[arg(long)]
    pub tau128: Option<u32>,
    /// Reuse a join (`pairs.bin`) instead of joining.
    #[arg(long, value_name = "FILE")]
    pub pairs: Option<PathBuf>,
    /// How pairs are compared on their text.
    #[command(flatten)]
    pub similarity: SimilarityOpts,
    /// Where the shards are now, if they moved since fingerprinting (found by file name).
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
    /// Plan and backend.
    #[command(flatten)]
    pub join: JoinOpts,
}

const DEDUP_HELP: &str = "\
OUTPUT (in the -o directory):
    store/         the fingerprint store
    pairs.bin      the join at --tau-max (reuse with sweep/cluster --pairs)
    sweep.*, distances.*, cluster_sizes.*   the sweep over tau = 0..=tau-max
    clusters.tsv, keep.txt, remove.tsv, excluded.tsv   clusters at --tau
    *.parquet, *.jsonl   the same tables typed, with --tables parquet,jsonl
    corpus/        the kept documents, with --write-corpus (manifest.json lists the shards)
    summary.json   parameters and counts, written last

EXAMPLES:
    neardup dedup crawl/ -o out/ --tau 3
    neardup dedup CC-MAIN-*.warc.gz -o out/ --tau 3 --tau-max 6 --min-html-len 1000
    neardup dedup data/*.parquet --id-field id --text-field text -o out/ --write-corpus parquet";

const WRITE_HELP: &str = "\
OUTPUT (in the -o directory):
    part-00000.warc.gz ...   shards of about --shard-size, in store order
    manifest.json            the shards, their documents and bytes; written last

warc.gz copies each kept record's gzip member byte for byte where it was alone in it, and
compresses records of plain WARC/WET (or that shared a member) one per member; documents
from JSONL, Parquet or plain files become WARC resource records. jsonl.gz and parquet hold
one row per document: id, url, text, cluster_id, cluster_size, duplicates (docs/FORMATS.md).

EXAMPLES:
    neardup write out/store --keep out/keep.txt --format parquet -o corpus/
    neardup write out/store --keep out/keep.txt --format warc.gz --shard-size 256M -o warc/";

/// `neardup dedup`.
#[derive(Debug, Args)]
pub struct DedupArgs {
    /// Crawl files or directories; or stores made by `fingerprint`, used as they are.
    #[arg(required = true, value_name = "CRAWL_DIR_OR_FILES")]
    pub inputs: Vec<PathBuf>,
    /// Output directory.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Replace an existing store in the output directory.
    #[arg(long)]
    pub force: bool,
    /// 64-bit threshold of the candidate pairs behind the clusters and lists (default: 14 when
    /// verifying, 3 with --no-verify).
    #[arg(long)]
    pub tau: Option<u32>,
    /// Largest threshold of the sweep (default: --tau).
    #[arg(long)]
    pub tau_max: Option<u32>,
    /// Also require a 128-bit distance of at most this.
    #[arg(long)]
    pub tau128: Option<u32>,
    /// Which member represents a cluster, and which document of a near-duplicate group is
    /// kept first (the remove list's rank order).
    #[arg(long, value_enum, default_value_t = Representative::LowestId)]
    pub representative: Representative,
    /// The remove list: documents that are near-duplicates of a kept document, each naming
    /// it (star), or every cluster member but its representative (component: clusters chain,
    /// so members may share little with it).
    #[arg(long, value_enum, default_value_t = RemoveBy::Star)]
    pub remove_by: RemoveBy,
    /// Deduplicate the inputs against an older collection's stores: only input documents are
    /// removed, each for the old (or input) document it duplicates; the lists name input
    /// documents only, and pairs within the old collection are not formed. The old stores
    /// must be fingerprinted with the same options (and --minhash for MinHash candidates).
    #[arg(long, num_args = 1.., value_name = "OLD_STORE")]
    pub against: Vec<PathBuf>,
    /// Keep, of each group, the document with the largest number in FIELD (`:min`: the
    /// smallest): a JSONL field or Parquet column (a quality score; a date as ISO 8601 text),
    /// or `WARC-Date` (`WARC-Date:min` keeps the oldest). Documents without one come last;
    /// ties go to --representative. Stores given as inputs must be fingerprinted with
    /// --keep-field FIELD.
    #[arg(long, value_name = "FIELD[:max|min]")]
    pub keep_by: Option<String>,
    /// Keep the documents of these input stores before any other's, in the order given (a
    /// curated source over a crawl); then --keep-by, then --representative.
    #[arg(long, num_args = 1.., value_name = "STORE")]
    pub prefer: Vec<PathBuf>,
    /// Also take pages in the same canonical class (the same canonical link, or one's URL is
    /// the other's canonical link) as candidates; verified like every candidate.
    #[arg(long, conflicts_with = "no_verify")]
    pub canonical: bool,
    /// Where candidate pairs come from: MinHash-LSH over word 8-gram shingles (documents
    /// sharing a band key; --tau then filters by SimHash distance, default 64: no limit; the
    /// default when verifying), or SimHash fingerprints within --tau (exact join; the default
    /// with --no-verify).
    #[arg(long, value_enum)]
    pub candidates: Option<Candidates>,
    /// Cluster on SimHash distance alone, without verifying the candidate pairs on their text
    /// (the Chuweb21D way).
    #[arg(long)]
    pub no_verify: bool,
    /// Skip the comparison of a candidate pair whose texts are already joined by verified
    /// pairs at no larger a distance: the clusters and lists are the same, but those pairs go
    /// unscored in pairs.bin and the sweep's precision is bounded rather than exact. With
    /// --remove-by component only (a star removal needs every pair).
    #[arg(long, conflicts_with = "no_verify")]
    pub skip_joined: bool,
    /// What is done with the blocks (paragraphs, list items, headings) a page shares with
    /// many pages of its host about other things (menus, footers, a section repeated on every
    /// page of a kind): set aside, so that pages are compared on their own content, or kept.
    /// A page with under 20 words of its own, or read whole because its main content is under
    /// 20 words or a sliver of the page, is compared on its whole text and removed only as a near-identical copy (S3
    /// >= 0.95, its own words alike). Main content only (--text main).
    #[arg(long, value_enum, default_value_t = crate::jobs::options::SiteBlocks::Aside)]
    pub site_blocks: crate::jobs::options::SiteBlocks,
    /// Keep every document's shingle set in the store (about 8 bytes per word of text, more
    /// than the WARC.gz on web pages) and verify from the sets: no record is read twice, and a
    /// later `dedup` of the store verifies without reading the shards (pages with blocks of
    /// their site, compared on their own content, are still read again). Without it,
    /// verification reads the candidates' records again (BENCHMARKS.md: on crawls that fit
    /// the page cache the two cost the same).
    #[arg(long, conflicts_with = "no_verify")]
    pub keep_shingles: bool,
    /// Verify every candidate pair, as lists of pairs (cost grows with the square of a
    /// group's size), instead of comparing each text only with the kept texts of its runs of
    /// equal band keys: the same lists, but pairs.bin and the sweep then hold every verified
    /// pair and clusters.tsv their connected components. Taken anyway with --candidates
    /// simhash, --representative central, --remove-by component, --skip-joined or a --tau-max
    /// above --tau.
    #[arg(long, conflicts_with = "no_verify")]
    pub all_pairs: bool,
    /// Kept texts listed per run of equal band keys at most (0: no bound): where a run's
    /// members are not near-duplicates (pages sharing a template), a text is compared with
    /// at most this many of its kept members; summary.json counts what the bound left out.
    #[arg(long, default_value_t = crate::cluster::leaders::DEFAULT_MAX_LEADERS, value_name = "N")]
    pub max_leaders: usize,
    /// Split the stages after fingerprinting into tasks over N partitions of the key space
    /// and of the documents, run one after another here (the stages a Ray cluster runs on its
    /// nodes with `neardup.ray.dedup(..., partitions=N)`): the same keep.txt, remove.tsv,
    /// clusters.tsv and excluded.tsv, each task's memory bounded by formula. Takes stores
    /// fingerprinted with --minhash, and the verified default only.
    #[arg(long, value_name = "N")]
    pub partitions: Option<u32>,
    /// Where the shards of the stores given (inputs or --against) are now, if they moved
    /// since fingerprinting: a shard is looked for there by its file name.
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
    /// How pairs are compared on their text.
    #[command(flatten)]
    pub similarity: SimilarityOpts,
    /// Plan and backend.
    #[command(flatten)]
    pub join: JoinOpts,
    /// Also write the kept documents out, into OUT/corpus: warc.gz (each record as it was),
    /// jsonl.gz or parquet (id, url, extracted text, cluster).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub write_corpus: Option<CorpusFormat>,
    /// Also find the spans of at least N words repeated among the kept documents (the first
    /// copy kept): substrings.tsv and substrings.json, and a corpus written as jsonl.gz or
    /// parquet has them cut (as `neardup substrings`).
    #[arg(long, value_name = "N")]
    pub substrings: Option<usize>,
    /// How the corpus is written.
    #[command(flatten)]
    pub corpus: CorpusOpts,
    /// Also write the tables (clusters, keep and remove lists, excluded documents, sweep,
    /// pairs) as typed Parquet or JSON lines next to the TSVs: parquet, jsonl, or both
    /// (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "FORMAT")]
    pub tables: Vec<TableFormat>,
    /// How documents are read, filtered and fingerprinted.
    #[command(flatten)]
    pub fingerprint: FingerprintOpts,
}

/// How a corpus is written (`write`, `dedup --write-corpus`).
#[derive(Clone, Debug, Args)]
pub struct CorpusOpts {
    /// Target size of an output shard: bytes, or with a K, M or G suffix (powers of 1024).
    #[arg(long, default_value = "1G", value_name = "SIZE", value_parser = parse_size)]
    pub shard_size: u64,
    /// Drop from each written document's text the paragraphs labeled as repeated content: a
    /// `reuse discover` output (its labels.bin) or a store whose paragraph chunks are the
    /// labels (jsonl.gz and parquet only).
    #[arg(long, value_name = "LABELS")]
    pub drop_labeled_chunks: Option<PathBuf>,
}

/// `neardup write`.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// The stores the documents are in (a dedup output's OUT/store, or the stores it was
    /// given).
    #[arg(required = true, value_name = "STORE")]
    pub stores: Vec<PathBuf>,
    /// The documents to write: one id per line, such as a dedup output's keep.txt.
    #[arg(long, value_name = "FILE")]
    pub keep: PathBuf,
    /// The documents' clusters (a clusters.tsv; default: the one beside the keep list, if
    /// any). Without one, every document is its own cluster.
    #[arg(long, value_name = "FILE")]
    pub clusters: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum)]
    pub format: CorpusFormat,
    /// Output directory.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Replace a corpus written earlier into the output directory.
    #[arg(long)]
    pub force: bool,
    /// Where the crawl's shards are now, if they moved since fingerprinting.
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
    /// How the corpus is written.
    #[command(flatten)]
    pub corpus: CorpusOpts,
}

/// `neardup demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Documents in the synthetic crawl.
    #[arg(long, default_value_t = 20_000)]
    pub docs: usize,
    /// Seed of the synthetic crawl.
    #[arg(long, default_value_t = 7)]
    pub crawl_seed: u64,
    /// Threshold of the clusters (default: dedup's, 14).
    #[arg(long)]
    pub tau: Option<u32>,
    /// Largest threshold of the sweep (default: --tau).
    #[arg(long)]
    pub tau_max: Option<u32>,
    /// Pages of the crawl compared pair by pair for the S3 truth.
    #[arg(long, default_value_t = 2000)]
    pub truth_sample: usize,
    /// Keep the crawl and the outputs in this directory (default: a temporary one, removed).
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}

/// How a join runs: shared by `join`, `sweep`, `cluster` and `dedup`.
#[derive(Clone, Debug, Args)]
pub struct JoinOpts {
    /// Exact pigeonhole tables (every pair), or random bit samples (Chuweb21D Algorithm 3).
    #[arg(long, value_enum, default_value_t = Method::Exact)]
    pub method: Method,
    /// Blocks of the exact pigeonhole plan (tables keyed on all but tau of them), instead of
    /// the planner's cheapest for the corpus size; for tuning and benchmarks.
    #[arg(long, value_name = "M")]
    pub blocks: Option<usize>,
    /// Key bits per random table.
    #[arg(long, default_value_t = 16)]
    pub bits: u32,
    /// Random tables.
    #[arg(long, default_value_t = 20)]
    pub iterations: u32,
    /// Seed of the random tables.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where the comparisons run: a hardware GPU if there is one (auto), a GPU adapter even a
    /// software one (gpu), or the CPU.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    pub backend: Backend,
    /// GPU adapter to use: a case-insensitive part of its name (see `neardup gpus`).
    #[arg(long, value_name = "NAME")]
    pub adapter: Option<String>,
}

/// Join backends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// A hardware GPU adapter when one exists, else the CPU.
    Auto,
    /// A GPU adapter, software ones (lavapipe) included; an error when there is none.
    Gpu,
    /// The CPU (rayon).
    Cpu,
}

/// `neardup gpus`.
#[derive(Debug, Args)]
pub struct GpusArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

const BENCH_HELP: &str = "\
Generates random 64-bit fingerprints in memory (10 % near copies of an earlier one with 0-8
flipped bits), joins them, and reports the join's time, fingerprint pairs compared per second,
and that rate as a share of the device's popcount bound (16 popcounts per clock per SM, two
per 64-bit compare: about 2.1e12 compares/s on an H100 SXM) when the bound is known or given.

EXAMPLES:
    neardup bench --docs 100000000 --tau 6
    neardup bench --docs 100000000 --tau 3 --method random --bits 16 --iterations 20
    neardup bench --docs 1000000 --tau 3 --backend cpu";

/// `neardup bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Fingerprints to generate.
    #[arg(long, default_value_t = 10_000_000)]
    pub docs: usize,
    /// Largest 64-bit distance of a pair.
    #[arg(long, default_value_t = 6)]
    pub tau: u32,
    /// Seed of the fingerprints.
    #[arg(long, default_value_t = 7)]
    pub data_seed: u64,
    /// The device's bound in compares per second (default: known for H100 and H200 only).
    #[arg(long, value_name = "COMPARES_PER_S")]
    pub bound: Option<f64>,
    /// On the GPU backend, the batched join (each table keyed and sorted on the host) instead
    /// of the join resident on the device, to compare the two.
    #[arg(long)]
    pub batched: bool,
    /// On the GPU backend, the resident join's comparisons four columns a step (unrolled)
    /// instead of one, to compare the two on one device.
    #[arg(long, conflicts_with = "batched")]
    pub unroll: bool,
    /// Plan and backend.
    #[command(flatten)]
    pub join: JoinOpts,
}

/// Join methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// Pigeonhole tables chosen by cost: finds every pair.
    Exact,
    /// Random bit samples: finds each pair with the printed probability.
    Random,
}

/// `neardup synth-crawl`.
#[derive(Debug, Args)]
pub struct SynthCrawlArgs {
    /// Directory to write the shards and `truth.tsv` into.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Number of HTML documents.
    #[arg(long, default_value_t = 1000)]
    pub docs: usize,
    /// Number of WARC.gz shards.
    #[arg(long, default_value_t = 2)]
    pub shards: usize,
    /// Seed.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Share of exact copies.
    #[arg(long, default_value_t = 0.1)]
    pub exact_share: f64,
    /// Share of near-duplicate variants.
    #[arg(long, default_value_t = 0.2)]
    pub near_share: f64,
    /// The duplicate structure: `uniform` (copies and variants of uniformly drawn pages, at
    /// --exact-share and --near-share), or `web`: 40 % of the pages in groups of power-law
    /// sizes up to 1 % of the crawl (copies and one-paragraph variants naming their original
    /// as canonical link) and 5 % on template sites (shared boilerplate text, distinct content).
    #[arg(long, value_enum, default_value_t = SynthShape::Uniform)]
    pub shape: SynthShape,
    /// Also plant one group of N pages and N one-word variants of them (an original and N - 1
    /// exact copies), scattered through the crawl.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub big_group: usize,
    /// Also plant one template site of N pages (shared boilerplate, distinct content).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub big_site: usize,
}

/// `synth-crawl --shape`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SynthShape {
    /// Copies and variants of uniformly drawn earlier pages.
    Uniform,
    /// Power-law groups, template sites, canonical links: a day of a national crawl.
    Web,
}

const FINGERPRINT_HELP: &str = "\
INPUTS:
    Files and directories; directories are walked. Formats are detected from content:
    WARC 1.0/1.1 and WARC/0.18 (ClueWeb09), plain or gzip (one member per record or one
    stream), WET, JSON lines (plain or gzip), and single .html/.htm/.txt files (id = path
    relative to the directory argument).

EXAMPLES:
    neardup fingerprint crawl/ -o crawl.store
    neardup fingerprint CC-MAIN-*.warc.gz -o day.store --english --min-html-len 1000
    neardup fingerprint docs.jsonl.gz --id-field doc_id --text-field html -o docs.store
    neardup fingerprint pages/ --features simhash-py -o compat.store

EXIT STATUS:
    0 when every shard was read (records may have been skipped: see the summary),
    2 when a shard could not be read at all or on any other error.";

const EXPORT_HELP: &str = "\
FORMATS (picked by the extension of -o, or --format):
    .tsv   id, url, simhash64 (16 hex), simhash128 (32 hex), text_len; with a header line
    .u64   raw little-endian u64 SimHash-64 array in store order (8 bytes per document)

EXAMPLES:
    neardup export crawl.store -o fps.tsv
    neardup export a.store b.store -o fps.u64
    neardup export crawl.store --format tsv -o - | head";

/// `neardup fingerprint`.
#[derive(Debug, Args)]
pub struct FingerprintArgs {
    /// Crawl files or directories.
    #[arg(required = true, value_name = "CRAWL_DIR_OR_FILES")]
    pub inputs: Vec<PathBuf>,
    /// Store directory to create.
    #[arg(short, long, value_name = "STORE_DIR")]
    pub output: PathBuf,
    /// Replace an existing store.
    #[arg(long)]
    pub force: bool,
    /// How documents are read, filtered and fingerprinted.
    #[command(flatten)]
    pub opts: FingerprintOpts,
}

/// Fingerprinting options shared by `fingerprint` and `dedup`.
#[derive(Clone, Debug, Args)]
pub struct FingerprintOpts {
    /// Follow symbolic links inside input directories, to files and directories alike (each
    /// file is read once, however many links lead to it). Without it such links are passed
    /// over and counted; a path named on the command line is always read.
    #[arg(long)]
    pub follow: bool,
    /// Feature mode: term n-grams, or the python `simhash` package's character 4-grams.
    #[arg(long, value_enum, default_value_t = Features::Native)]
    pub features: Features,
    /// Also compute MinHash band keys of each document's word 8-gram shingles (for
    /// `--candidates minhash`).
    #[arg(long)]
    pub minhash: bool,
    /// Also hash every paragraph chunk (each block element's text) exactly, for `reuse`:
    /// content reuse below the page, paragraph dedup.
    #[arg(long)]
    pub chunks: bool,
    /// Also keep each document's shingle set (verification's word 8-grams, about 8 bytes per
    /// word of text), so that a verified `dedup` of the store compares them instead of
    /// reading the candidates' records again (`dedup --keep-shingles` keeps them).
    #[arg(long)]
    pub shingles: bool,
    /// MinHash bands (keys per document).
    #[arg(long, default_value_t = 40, value_name = "B")]
    pub minhash_bands: u32,
    /// MinHash bins per band.
    #[arg(long, default_value_t = 7, value_name = "R")]
    pub minhash_rows: u32,
    /// Word n-gram sizes (1..8), comma separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "3,5",
        value_name = "N,.."
    )]
    pub ngrams: Vec<usize>,
    /// Keep case.
    #[arg(long)]
    pub no_lowercase: bool,
    /// Keep stop words.
    #[arg(long)]
    pub no_stopwords: bool,
    /// Do not stem.
    #[arg(long)]
    pub no_stem: bool,
    /// Keep possessive 's.
    #[arg(long)]
    pub no_possessive: bool,
    /// Keep the words of scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer,
    /// Myanmar) as Unicode word segmentation finds them, instead of cutting them into single
    /// characters (whose word n-grams are then character n-grams).
    #[arg(long)]
    pub no_unspaced_chars: bool,
    /// Seed of the feature hashes.
    #[arg(long, default_value_t = 0)]
    pub hash_seed: u64,
    /// Keep records whatever their HTTP status (default: 200 only).
    #[arg(long)]
    pub any_status: bool,
    /// Keep records whatever their media type (default: HTML and text only).
    #[arg(long)]
    pub any_content_type: bool,
    /// Skip payloads shorter than this many bytes (Chuweb21 used 1000).
    #[arg(long, default_value_t = 0, value_name = "BYTES")]
    pub min_html_len: u64,
    /// Flag documents with fewer terms as short: kept in the store, excluded from joins
    /// (CopyCat used 10).
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub min_terms: u32,
    /// Keep only documents identified as English.
    #[arg(long)]
    pub english: bool,
    /// JSONL field (or Parquet column) with the document id.
    #[arg(long, default_value = "id")]
    pub id_field: String,
    /// JSONL field (or Parquet column) with the text (HTML or plain text).
    #[arg(long, default_value = "text")]
    pub text_field: String,
    /// JSONL field (or Parquet column) with the URL.
    #[arg(long, default_value = "url")]
    pub url_field: String,
    /// How JSONL and Parquet text is read: sniffed per document, or always HTML, or always
    /// plain text.
    #[arg(long, value_enum, default_value_t = TextFormat::Auto)]
    pub text_format: TextFormat,
    /// Which text of an HTML page is fingerprinted and verified: its main content (a page
    /// whose main content is under 20 words, or under 60 and a twentieth of the page's text,
    /// is compared on its full text), or all of it,
    /// CopyCat's definition (recorded in the store; verification reads the same).
    #[arg(long, value_enum, default_value_t = crate::text::extract::TextMode::Main)]
    pub text: crate::text::extract::TextMode,
    /// Split uncompressed shards larger than this (MiB) across workers; 0 never splits.
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    pub split_mib: u64,
    /// Skip (and count) WARC record blocks, HTML or text files and JSON lines larger than this,
    /// without reading them whole: bytes, or with a K, M or G suffix (powers of 1024).
    #[arg(long, default_value = "32M", value_name = "SIZE", value_parser = parse_size)]
    pub max_record_size: u64,
    /// Keep each document's number from this JSONL field or Parquet column (a number, or a
    /// number or ISO 8601 date as text; dates and times in seconds since 1970), or its
    /// record's WARC-Date (`WARC-Date`), for `dedup --keep-by`.
    #[arg(long, value_name = "FIELD")]
    pub keep_field: Option<String>,
}

pub use crate::jobs::options::parse_size;

/// A memory budget for counting chunks: a size of at least [`crate::reuse::count::MIN_MEMORY`]
/// (below it, passes multiply and every pass reads every hash again).
pub fn parse_count_memory(s: &str) -> Result<u64, String> {
    let m = parse_size(s)?;
    let min = crate::reuse::count::MIN_MEMORY;
    if m < min {
        return Err(format!(
            "{s:?} is below the {} MiB that counting needs to work in (each pass reads every chunk hash again: a smaller budget multiplies the passes)",
            min >> 20
        ));
    }
    Ok(m)
}

/// Feature modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Features {
    /// Lucene-style terms, word n-grams, XXH3.
    Native,
    /// Bit-for-bit the python `simhash` package (2.x) on the extracted text.
    SimhashPy,
}

/// JSONL text handling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TextFormat {
    /// HTML when the text starts with a tag.
    Auto,
    /// Always HTML.
    Html,
    /// Always plain text.
    Text,
}

/// `neardup text`.
#[derive(Debug, Args)]
pub struct TextArgs {
    /// Crawl files or directories.
    #[arg(required = true, value_name = "CRAWL_DIR_OR_FILES")]
    pub inputs: Vec<PathBuf>,
    /// Which text of an HTML page: its main content (the full text where that is under 20
    /// words), or all of it.
    #[arg(long, value_enum, default_value_t = crate::text::extract::TextMode::Main)]
    pub text: crate::text::extract::TextMode,
    /// Follow symbolic links inside input directories.
    #[arg(long)]
    pub follow: bool,
}

/// `neardup info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// Store directories.
    #[arg(required = true, value_name = "STORE_DIR")]
    pub stores: Vec<PathBuf>,
    /// Print the manifests as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `neardup report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The output directory of a `dedup` run.
    #[arg(value_name = "DEDUP_OUT")]
    pub output: PathBuf,
    /// Where to look for shards that moved since the run (by file name).
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
}

/// `neardup explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The output directory of a `dedup` run.
    #[arg(value_name = "DEDUP_OUT")]
    pub output: PathBuf,
    /// A document id, as the lists write it (TSV-escaped) or as it is.
    #[arg(value_name = "ID")]
    pub id: String,
    /// A second document: the two pages side by side (what the run did with each, and what
    /// verification makes of the pair, compared or not).
    #[arg(value_name = "OTHER")]
    pub other: Option<String>,
    /// Print the answer as JSON.
    #[arg(long)]
    pub json: bool,
    /// Where to look for shards that moved since the run (by file name).
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
}

/// `neardup export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Store directories (exported in order, as one corpus).
    #[arg(required = true, value_name = "STORE_DIR")]
    pub stores: Vec<PathBuf>,
    /// Output file (`-` for standard output).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Output format (default: from the extension of -o; TSV for `-`).
    #[arg(long, value_enum)]
    pub format: Option<ExportFormat>,
}

/// Export formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// Tab-separated text.
    Tsv,
    /// Raw little-endian u64 SimHash-64 array.
    U64,
}

/// Candidate generators of `dedup`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Candidates {
    /// Pairs within a Hamming distance of the 64-bit SimHash.
    Simhash,
    /// MinHash-LSH: pairs sharing a band key.
    Minhash,
}

/// `neardup trec ...`.
#[derive(Debug, Subcommand)]
pub enum TrecCommand {
    /// Runs after deduplication: per topic, the highest-ranked entry of each group stays, as
    /// the group's document (Chuweb21D), or later near-duplicates are marked.
    #[command(after_help = TREC_RUN_HELP)]
    Run(TrecRunArgs),
    /// Qrels after deduplication: per topic, one record per group, the group's document with
    /// the group's highest relevance (Chuweb21D).
    #[command(after_help = TREC_QRELS_HELP)]
    Qrels(TrecQrelsArgs),
    /// Near-duplicates inside each topic of runs and qrels, every pair compared on its text.
    #[command(after_help = TREC_INSPECT_HELP)]
    Inspect(TrecInspectArgs),
    /// Judgments of an older crawl transferred to a newer one: same URL, same canonical
    /// class, or a verified near-duplicate (CopyCat).
    #[command(after_help = TREC_TRANSFER_HELP)]
    Transfer(TrecTransferArgs),
}

/// `neardup reuse`.
#[derive(Debug, Subcommand)]
pub enum ReuseCommand {
    /// Blind discovery: every chunk of the stores counted at once, those seen more than
    /// --min-count times labeled (stop chunks never are).
    #[command(after_help = REUSE_DISCOVER_HELP)]
    Discover(ReuseDiscoverArgs),
    /// Detection: containment of labeled chunks per page, and bad URL neighbourhoods.
    #[command(after_help = REUSE_DETECT_HELP)]
    Detect(ReuseDetectArgs),
    /// The most frequent chunks, with their counts, sites and a sample of their text.
    Top(ReuseTopArgs),
    /// The mutation experiments on a synthetic crawl: discovery at chunk and file level, and
    /// how many added, deleted or changed chunks page and neighbourhood detection survive.
    Experiment(ReuseExperimentArgs),
    /// Discovery's counting on synthetic heavy-tailed chunk hashes, made on the fly: time,
    /// passes and what was found (run it under `/usr/bin/time -v` for its memory).
    Bench(ReuseBenchArgs),
}

/// `neardup reuse bench`.
#[derive(Debug, Args)]
pub struct ReuseBenchArgs {
    /// Chunk hashes to count.
    #[arg(long, default_value_t = 100_000_000)]
    pub chunks: u64,
    /// Memory for counting: bytes, or with K, M or G (at least 16M).
    #[arg(long, default_value = "4G", value_name = "SIZE", value_parser = parse_count_memory)]
    pub memory: u64,
    /// Discovery threshold.
    #[arg(long, default_value_t = 1000)]
    pub min_count: u64,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

const REUSE_DISCOVER_HELP: &str = "Writes to OUT: labeled.tsv (hash, count, sites, sample text), \
labels.bin (the labeled hashes for `reuse detect --labels`), frequency.tsv and frequency.svg (distinct \
chunks per number of occurrences), stop.tsv (frequent stop chunks, listed or automatic) and summary.json.

Counting is exact and runs in passes that each hold at most --memory of hashes.";

const REUSE_DETECT_HELP: &str = "Writes to OUT: pages.tsv (every page holding a labeled chunk: \
chunks, labeled, containment, target), neighbourhoods.tsv (the bad neighbourhoods: URL prefix, pages, \
chunks, labeled, badness), neighbourhood-pages.tsv (the pages of each bad neighbourhood) and \
summary.json. Stop chunks are removed before anything is counted.";

/// Stop chunk options shared by the reuse commands.
#[derive(Clone, Debug, Args)]
pub struct StopOpts {
    /// More stop chunks: one per line, as the page shows it.
    #[arg(long, value_name = "FILE")]
    pub stop_chunks: Option<PathBuf>,
    /// Leave out the built-in stop chunks (navigation idioms, separators, page numbers).
    #[arg(long)]
    pub no_builtin_stop: bool,
}

/// `neardup reuse discover`.
#[derive(Debug, Args)]
pub struct ReuseDiscoverArgs {
    /// Stores built with `fingerprint --chunks`, counted as one corpus.
    #[arg(required = true, value_name = "STORE")]
    pub stores: Vec<PathBuf>,
    /// Output directory.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// A chunk is labeled when seen more than this many times.
    #[arg(long, default_value_t = crate::jobs::reuse::DiscoverJob::default().min_count, value_name = "N")]
    pub min_count: u64,
    /// The automatic stop rule: frequent chunks seen on at least --stop-sites distinct sites
    /// are stop chunks, not labels.
    #[arg(long)]
    pub auto_stop: bool,
    /// Distinct sites that make a frequent chunk an automatic stop chunk (default: a tenth
    /// of the corpus's sites, at least 10).
    #[arg(long, value_name = "N")]
    pub stop_sites: Option<u64>,
    #[command(flatten)]
    pub stop: StopOpts,
    /// Memory for counting: bytes, or with K, M or G (at least 16M).
    #[arg(long, default_value = "4G", value_name = "SIZE", value_parser = parse_count_memory)]
    pub memory: u64,
    /// Replace an earlier reuse output in OUT.
    #[arg(long)]
    pub force: bool,
}

/// `neardup reuse detect`.
#[derive(Debug, Args)]
pub struct ReuseDetectArgs {
    /// Stores built with `fingerprint --chunks`.
    #[arg(required = true, value_name = "STORE")]
    pub stores: Vec<PathBuf>,
    /// The labels: a `reuse discover` output, or a store whose chunks are all labels (a
    /// reference collection an expert chose).
    #[arg(long, value_name = "REUSE|STORE")]
    pub labels: PathBuf,
    /// Output directory.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// Containment above which a page is a partial target (default: mean + one standard
    /// deviation over the pages).
    #[arg(long, value_name = "X")]
    pub containment: Option<f64>,
    /// Badness above which a neighbourhood is bad (default: mean + one standard deviation
    /// over the neighbourhoods).
    #[arg(long, value_name = "X")]
    pub badness: Option<f64>,
    #[command(flatten)]
    pub stop: StopOpts,
    /// Replace an earlier reuse output in OUT.
    #[arg(long)]
    pub force: bool,
}

/// `neardup reuse top`.
#[derive(Debug, Args)]
pub struct ReuseTopArgs {
    /// Stores built with `fingerprint --chunks`.
    #[arg(required = true, value_name = "STORE")]
    pub stores: Vec<PathBuf>,
    /// How many chunks.
    #[arg(short, default_value_t = crate::jobs::reuse::TopJob::default().n, value_name = "N")]
    pub n: usize,
    /// Memory for counting: bytes, or with K, M or G (at least 16M).
    #[arg(long, default_value = "4G", value_name = "SIZE", value_parser = parse_count_memory)]
    pub memory: u64,
    #[command(flatten)]
    pub stop: StopOpts,
}

/// `neardup reuse experiment`.
#[derive(Debug, Args)]
pub struct ReuseExperimentArgs {
    /// Output directory for points.tsv and tolerances.tsv (default: print the tolerances).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Pages of the copied site.
    #[arg(long, default_value_t = 200)]
    pub pages: usize,
    /// Copies of the site.
    #[arg(long, default_value_t = 50)]
    pub copies: usize,
    /// Discovery threshold.
    #[arg(long, default_value_t = 40)]
    pub min_count: u64,
    /// Runs averaged per point.
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A fixed page containment threshold (default: mean + one standard deviation over the
    /// unmutated crawl).
    #[arg(long, value_name = "X")]
    pub containment: Option<f64>,
    /// A fixed neighbourhood badness threshold (default as for --containment).
    #[arg(long, value_name = "X")]
    pub badness: Option<f64>,
}

/// `neardup trec transfer`.
#[derive(Debug, Args)]
pub struct TrecTransferArgs {
    /// Qrels of the old crawl.
    #[arg(value_name = "QRELS")]
    pub qrels: PathBuf,
    /// Stores of the old crawl (fingerprinted with --minhash).
    #[arg(long = "from", required = true, num_args = 1.., value_name = "OLD_STORE")]
    pub from: Vec<PathBuf>,
    /// Stores of the new crawl (fingerprinted with the same options).
    #[arg(long = "to", required = true, num_args = 1.., value_name = "NEW_STORE")]
    pub to: Vec<PathBuf>,
    /// How documents are compared.
    #[command(flatten)]
    pub similarity: SimilarityOpts,
    /// Where the shards are now, if they moved since fingerprinting (found by file name).
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
    /// The new crawl's qrels (FILE.tsv: judgments per grade and stage; FILE.json).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Replace output files that exist (never an input).
    #[arg(long)]
    pub force: bool,
}

const TREC_TRANSFER_HELP: &str = "\
A judged page of the old crawl passes its judgment to every page of the new crawl that is the
same page: (1) the same URL, (2) the same canonical class (the new page's canonical link is the
judged page's URL or canonical link, or its URL is the judged page's canonical link), (3) a
near-duplicate: pages sharing a MinHash band key with a judged page, compared on their text
(S3 >= 0.82 by default). Only judged pages are joined against the new crawl. A judgment counts
at its first stage; in a topic, a new page reached from several judged pages takes the
highest grade.

OUTPUT: FILE (qrels of the new crawl), FILE.tsv (rel, judgments, unknown, url, canonical,
near_duplicate, transferred, share: CopyCat's Table 6), FILE.json.

EXAMPLES:
    neardup fingerprint old-crawl/ --minhash -o old.store
    neardup fingerprint new-crawl/ --minhash -o new.store
    neardup trec transfer qrels.txt --from old.store --to new.store -o new.qrels";

/// Where documents' groups come from.
#[derive(Clone, Debug, Args)]
pub struct GroupOpts {
    /// A `dedup` (or `cluster`) output directory, or its clusters.tsv.
    #[arg(long, value_name = "OUT")]
    pub clusters: PathBuf,
    /// Map each document to the kept document of its star (what remove.tsv names; the
    /// default), or to its cluster's representative (component).
    #[arg(long, value_enum, default_value_t = RemoveBy::Star)]
    pub by: RemoveBy,
    /// Replace output files that exist (never an input).
    #[arg(long)]
    pub force: bool,
}

/// `neardup trec run`.
#[derive(Debug, Args)]
pub struct TrecRunArgs {
    /// Run files (TREC format: qid Q0 docno rank score tag).
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<PathBuf>,
    /// Groups.
    #[command(flatten)]
    pub groups: GroupOpts,
    /// chuweb21d: the highest-ranked entry of each group stays, as the group's document;
    /// mark: every entry stays, those ranked below a near-duplicate become DOCNO#dup (judged by
    /// no qrels: the novelty principle).
    #[arg(long, value_enum, default_value_t = crate::trec::dedup::Rule::Chuweb21d)]
    pub rule: crate::trec::dedup::Rule,
    /// Output directory: each run under its file name, and trec.json.
    #[arg(short, long, value_name = "RUN_DIR")]
    pub output: PathBuf,
}

/// `neardup trec qrels`.
#[derive(Debug, Args)]
pub struct TrecQrelsArgs {
    /// Qrels file (TREC format: qid iter docno rel).
    #[arg(value_name = "QRELS")]
    pub qrels: PathBuf,
    /// Groups.
    #[command(flatten)]
    pub groups: GroupOpts,
    /// Output qrels file (its statistics in FILE.json).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}

/// `neardup trec inspect`.
#[derive(Debug, Args)]
pub struct TrecInspectArgs {
    /// Run and qrels files, told apart by their fields (6 or more: a run).
    #[arg(required = true, value_name = "RUN|QRELS")]
    pub files: Vec<PathBuf>,
    /// Store directories holding the documents (one corpus).
    #[arg(long, required = true, value_name = "STORE")]
    pub store: Vec<PathBuf>,
    /// Entries per run topic compared (trec_eval's order); qrels: every record.
    #[arg(long, default_value_t = crate::jobs::trec::InspectJob::default().top)]
    pub top: usize,
    /// How documents are compared.
    #[command(flatten)]
    pub similarity: SimilarityOpts,
    /// Where the shards are now, if they moved since fingerprinting (found by file name).
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
    /// Output directory: inspect.tsv, pairs.tsv, inspect.json.
    #[arg(short, long, value_name = "REPORT")]
    pub output: PathBuf,
}

const TREC_RUN_HELP: &str = "\
Each document is mapped to the document that stands for it in clusters.tsv: its star's kept
document (--by star, the document remove.tsv names) or its cluster's representative (--by
component). Per topic, entries are ranked as trec_eval ranks them (score, then docno,
descending); written with dense ranks 1..n and their scores. Ids not in the corpus are kept
and counted. Bad lines are reported by line number and skipped.

OUTPUT: RUN_DIR/<run file name> for each run, RUN_DIR/trec.json (what each run lost).

EXAMPLES:
    neardup dedup crawl.warc.gz -o out
    neardup trec run runs/*.txt --clusters out -o runs-dedup/
    trec_eval qrels.txt runs-dedup/bm25.txt";

const TREC_QRELS_HELP: &str = "\
Per topic, the records of one group become one record: the group's document (--by star: the
kept document of its star; component: the cluster's representative) with the maximum
relevance of the group's records, written in the order of the group's first record. Ids not
in the corpus are kept and counted.

OUTPUT: the qrels file, and FILE.json with the counts.

EXAMPLES:
    neardup trec qrels qrels.txt --clusters out -o qrels-dedup.txt";

const TREC_INSPECT_HELP: &str = "\
Runs and qrels are small, so every pair of documents within a run topic's top --top entries,
or within a qrels topic, is compared on the documents' text read again from the store's
shards (S3 >= 0.82 over word 8-grams by default; no fingerprint threshold). An entry is a
near-duplicate when an entry ranked before it (qrels: before it in the file) is one of it.
Shares are reported per topic and overall, relevant and irrelevant records apart for qrels.

OUTPUT (in the -o directory): inspect.tsv (file, kind, qid, entries, found, near_duplicates,
share, relevant, relevant_near_duplicates), pairs.tsv (file, qid, first, second, score),
inspect.json (totals per file, and bad lines).

EXAMPLES:
    neardup trec inspect runs/*.txt qrels.txt --store out/store --top 10 -o report/";

const SUBSTRINGS_HELP: &str = "\
Words are the Unicode word segments of each document's normalised text (the text the store
fingerprinted); two spans are the same when their words are. The first occurrence is the first
in store order, then position. Writes to OUT: removed.tsv (id, start, end, bytes: byte ranges
of the normalised text, on word boundaries) and summary.json (bytes and documents touched, the
most repeated spans with a sample).

EXAMPLES:
    neardup dedup crawl/ -o out
    neardup substrings out/store --keep out/keep.txt -o spans";

/// `neardup substrings`.
#[derive(Debug, Args)]
pub struct SubstringsArgs {
    /// Stores of the corpus, in order.
    #[arg(required = true, value_name = "STORE")]
    pub stores: Vec<PathBuf>,
    /// Output directory.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// The shortest span removed, in words.
    #[arg(long, default_value_t = crate::jobs::substrings::SubstringsJob::default().min_tokens, value_name = "N")]
    pub min_tokens: usize,
    /// Remove every occurrence of a repeated span, the first too (as Lee et al. do).
    #[arg(long)]
    pub all_copies: bool,
    /// Only the documents of this keep list (`dedup`'s keep.txt).
    #[arg(long, value_name = "KEEP")]
    pub keep: Option<PathBuf>,
    /// Where the shards are now, if they moved since fingerprinting (found by file name).
    #[arg(long, value_name = "DIR")]
    pub shard_dir: Option<PathBuf>,
    /// The most repeated spans named in summary.json.
    #[arg(long, default_value_t = crate::jobs::substrings::SubstringsJob::default().top, value_name = "N")]
    pub top: usize,
    /// Also write the documents with their repeated spans cut into OUT/corpus (jsonl.gz or
    /// parquet).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub write_corpus: Option<crate::write::Format>,
    /// Memory for the table of seen windows and the windows of a pass: bytes, or with K, M or
    /// G (half for the table, 20 bytes a window taken); a smaller budget makes more passes
    /// over the texts, which wait on disk in OUT meanwhile (at least 1M). Each document costs
    /// about 100 bytes besides, and the largest about three times its text.
    #[arg(long, default_value = "1G", value_name = "SIZE", value_parser = parse_size)]
    pub memory: u64,
    /// Also write the documents' words as fixed-width tokens (OUT/tokens.bin, with
    /// tokens.words.bin and tokens.docs.txt to map them back), the input of byte-level
    /// suffix-array tools.
    #[arg(long)]
    pub write_tokens: bool,
    /// Replace what another command wrote in OUT (a dedup output, say): only what neardup
    /// made there, never a user's file, and never the store read.
    #[arg(long)]
    pub force: bool,
}
