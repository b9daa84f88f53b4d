//! The content-reuse jobs (`reuse discover|detect|top|experiment|bench`): reuse below the
//! page, over stores built with `fingerprint --chunks`. Each job is a plain spec; what it did
//! goes to its output directory and through the message sink.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use foldhash::{HashMap, HashMapExt, HashSet};
use serde::{Deserialize, Serialize};

use super::Outcome;
use crate::base::atomic;
use crate::base::claim::OutDir;
use crate::fingerprint::store::StoreSet;
use crate::report::plot;
use crate::reuse::count::{Slices, Synthetic};
use crate::reuse::detect::{self, Thresholds};
use crate::reuse::discover::{self, DiscoverConfig, Frequent};
use crate::reuse::experiment::{self, Setup};
use crate::reuse::stop::StopChunks;
use crate::reuse::{neighbourhood, StoreDocs};
use crate::text::paragraphs::{chunk_hash, chunks};
use crate::verify::reread;

/// Stop chunks: a file of them, and whether the built-in list is left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StopOpts {
    /// A file of stop chunks (one a line).
    pub stop_chunks: Option<PathBuf>,
    /// Leave out the built-in stop chunks.
    pub no_builtin_stop: bool,
}

/// `reuse discover`: paragraph chunks counted and the frequent ones labeled.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DiscoverJob {
    /// Stores built with chunks.
    pub stores: Vec<PathBuf>,
    /// Output directory.
    pub output: PathBuf,
    /// Occurrences that make a chunk frequent.
    pub min_count: u64,
    /// Find stop chunks automatically (seen on many sites).
    pub auto_stop: bool,
    /// Sites that make a frequent chunk a stop chunk (with `auto_stop`).
    pub stop_sites: Option<u64>,
    /// Stop chunks given.
    #[serde(flatten)]
    pub stop: StopOpts,
    /// Hashes held per counting pass, in bytes (at least
    /// [`crate::reuse::count::MIN_MEMORY`]).
    #[serde(deserialize_with = "crate::jobs::options::size")]
    pub memory: u64,
    /// Replace an earlier output.
    pub force: bool,
}

/// Hashes held per counting pass by default, in bytes.
pub const DEFAULT_COUNT_MEMORY: u64 = 4 << 30;

impl Default for DiscoverJob {
    fn default() -> Self {
        DiscoverJob {
            stores: Vec::new(),
            output: PathBuf::new(),
            min_count: 1000,
            auto_stop: false,
            stop_sites: None,
            stop: StopOpts::default(),
            memory: DEFAULT_COUNT_MEMORY,
            force: false,
        }
    }
}

/// Refuses a counting budget below [`crate::reuse::count::MIN_MEMORY`].
fn check_memory(m: u64) -> anyhow::Result<()> {
    let min = crate::reuse::count::MIN_MEMORY;
    anyhow::ensure!(
        m >= min,
        "a counting memory of {m} bytes is below the {} MiB that counting needs to work in",
        min >> 20
    );
    Ok(())
}

/// `reuse detect`: pages and URL neighbourhoods scored by their labeled chunks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DetectJob {
    /// Stores built with chunks.
    pub stores: Vec<PathBuf>,
    /// The labels: a discover output or a store.
    pub labels: PathBuf,
    /// Output directory.
    pub output: PathBuf,
    /// Containment that makes a page a target.
    pub containment: Option<f64>,
    /// Badness that makes a neighbourhood bad.
    pub badness: Option<f64>,
    /// Stop chunks given.
    #[serde(flatten)]
    pub stop: StopOpts,
    /// Replace an earlier output.
    pub force: bool,
}

/// `reuse top`: the most repeated chunks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TopJob {
    /// Stores built with chunks.
    pub stores: Vec<PathBuf>,
    /// How many.
    pub n: usize,
    /// Hashes held per counting pass, in bytes (at least
    /// [`crate::reuse::count::MIN_MEMORY`]).
    #[serde(deserialize_with = "crate::jobs::options::size")]
    pub memory: u64,
    /// Stop chunks given.
    #[serde(flatten)]
    pub stop: StopOpts,
}

impl Default for TopJob {
    fn default() -> Self {
        TopJob {
            stores: Vec::new(),
            n: 100,
            memory: DEFAULT_COUNT_MEMORY,
            stop: StopOpts::default(),
        }
    }
}

/// `reuse experiment`: the mutation experiments.
#[derive(Clone, Debug)]
pub struct ExperimentJob {
    /// Output directory, if kept.
    pub output: Option<PathBuf>,
    /// Pages.
    pub pages: usize,
    /// Copies of each.
    pub copies: usize,
    /// Occurrences that make a chunk frequent.
    pub min_count: u64,
    /// Runs.
    pub runs: usize,
    /// Seed.
    pub seed: u64,
    /// Containment threshold.
    pub containment: Option<f64>,
    /// Badness threshold.
    pub badness: Option<f64>,
}

/// `reuse bench`: counting synthetic chunk hashes.
#[derive(Clone, Debug)]
pub struct BenchJob {
    /// Chunk hashes.
    pub chunks: u64,
    /// Hashes held per pass, in bytes.
    pub memory: u64,
    /// Occurrences that make a chunk frequent.
    pub min_count: u64,
    /// Seed.
    pub seed: u64,
}

/// `summary.json` of `reuse discover` (docs/FORMATS.md).
#[derive(Debug, Serialize, Deserialize)]
pub struct DiscoverSummary {
    /// `reuse discover`.
    pub command: String,
    /// The stores, as given.
    pub stores: Vec<String>,
    /// Documents in them.
    pub documents: u64,
    /// Chunks (with repeats) and distinct chunks.
    pub chunks: u64,
    /// See `chunks`.
    pub distinct_chunks: u64,
    /// Labeled when seen more than this many times.
    pub min_count: u64,
    /// Labeled chunks, and their occurrences.
    pub labeled: u64,
    /// See `labeled`.
    pub labeled_occurrences: u64,
    /// Stop chunks in use (hashes), and frequent chunks they kept from the labels.
    pub stop_chunks: u64,
    /// See `stop_chunks`.
    pub listed_stop_frequent: u64,
    /// The automatic rule, when on: sites that make a stop chunk, the chunks it moved, and
    /// how it compares with the stop list (frequent listed chunks it would also have caught).
    pub auto_stop: Option<AutoStop>,
    /// Counting passes, and the memory they were sized for.
    pub passes: usize,
    /// See `passes`.
    pub memory_bytes: u64,
    /// Wall time.
    pub seconds: f64,
    /// Program and version.
    pub created_by: String,
}

/// The automatic stop rule's outcome.
#[derive(Debug, Serialize, Deserialize)]
pub struct AutoStop {
    /// Distinct sites that make a frequent chunk a stop chunk.
    pub min_sites: u64,
    /// Frequent chunks it made stop chunks.
    pub stopped: u64,
    /// Frequent chunks on the stop list.
    pub listed_frequent: u64,
    /// Of those, the ones the rule alone would also have stopped.
    pub listed_caught: u64,
}

/// `summary.json` of `reuse detect`.
#[derive(Debug, Serialize, Deserialize)]
pub struct DetectSummary {
    /// `reuse detect`.
    pub command: String,
    /// The stores, as given.
    pub stores: Vec<String>,
    /// Where the labels came from, and how many.
    pub labels: String,
    /// See `labels`.
    pub label_count: u64,
    /// Pages, pages with a labeled chunk, partial targets.
    pub pages: u64,
    /// See `pages`.
    pub pages_with_labeled: u64,
    /// See `pages`.
    pub targets: u64,
    /// Containment: mean and standard deviation over pages with chunks, threshold used.
    pub containment_mean: f64,
    /// See `containment_mean`.
    pub containment_std: f64,
    /// See `containment_mean`.
    pub containment_threshold: f64,
    /// Neighbourhoods, and bad ones.
    pub neighbourhoods: u64,
    /// See `neighbourhoods`.
    pub bad_neighbourhoods: u64,
    /// Badness: mean and standard deviation over neighbourhoods with chunks, threshold used.
    pub badness_mean: f64,
    /// See `badness_mean`.
    pub badness_std: f64,
    /// See `badness_mean`.
    pub badness_threshold: f64,
    /// Wall time.
    pub seconds: f64,
    /// Program and version.
    pub created_by: String,
}

fn stop_chunks(o: &StopOpts) -> anyhow::Result<StopChunks> {
    let mut s = if o.no_builtin_stop {
        StopChunks::none()
    } else {
        StopChunks::built_in()
    };
    if let Some(f) = &o.stop_chunks {
        s.add_file(f)?;
    }
    Ok(s)
}

/// Claims OUT for a reuse output reading `inputs`: a new or empty directory, or (with
/// --force) an earlier reuse output; a directory holding anything else is never written into.
fn out_dir(dir: &Path, inputs: &[PathBuf], force: bool, command: &str) -> anyhow::Result<OutDir> {
    Ok(OutDir::claim_whole(
        dir,
        inputs,
        force,
        "a reuse output",
        "summary.json",
        command,
    )?)
}

/// What a reuse job reads: its stores, its stop chunks and the labels it detects with, none
/// of which is ever an output.
fn inputs_of(stores: &[PathBuf], stop: &StopOpts, labels: Option<&PathBuf>) -> Vec<PathBuf> {
    let mut v = stores.to_vec();
    v.extend(stop.stop_chunks.iter().cloned());
    v.extend(labels.cloned());
    v
}

fn open_with_chunks(paths: &[PathBuf]) -> anyhow::Result<StoreSet> {
    let stores = StoreSet::open(paths)?;
    if let Err(missing) = discover::chunk_slices(&stores) {
        anyhow::bail!(
            "{}: built without paragraph chunks: fingerprint again with --chunks",
            missing.join(", ")
        );
    }
    Ok(stores)
}

/// One sample text per hash, read from the document `locate` found first.
fn samples(stores: &StoreSet, found: &[Frequent]) -> anyhow::Result<HashMap<u128, String>> {
    let wanted: HashSet<u128> = found.iter().map(|f| f.hash).collect();
    let mut docs: Vec<u32> = found
        .iter()
        .map(|f| f.first_doc)
        .filter(|d| *d != u32::MAX)
        .collect();
    docs.sort_unstable();
    docs.dedup();
    let got = reread::for_each_text(
        stores,
        &docs,
        None,
        || (),
        |_, _, text| {
            chunks(text)
                .filter_map(|c| {
                    let h = chunk_hash(c);
                    wanted.contains(&h).then(|| (h, clip(c)))
                })
                .collect::<Vec<_>>()
        },
    )?;
    let mut out = HashMap::new();
    for (_, v) in got.values {
        for (h, t) in v {
            out.entry(h).or_insert(t);
        }
    }
    Ok(out)
}

/// A chunk's text for a table cell: at most 200 characters, no tabs.
fn clip(c: &str) -> String {
    let mut s: String = c.chars().take(200).collect();
    if s.len() < c.len() {
        s.push('…');
    }
    s.replace('\t', " ")
}

fn hex(h: u128) -> String {
    format!("{h:032x}")
}

fn frequent_tsv(rows: &[Frequent], samples: &HashMap<u128, String>) -> String {
    let mut t = String::from("hash\tcount\tsites\tsample\n");
    for f in rows {
        let s = samples.get(&f.hash).map_or("", String::as_str);
        let _ = writeln!(t, "{}\t{}\t{}\t{s}", hex(f.hash), f.count, f.sites);
    }
    t
}

pub fn discover(a: DiscoverJob, quiet: bool) -> anyhow::Result<Outcome> {
    check_memory(a.memory)?;
    let started = Instant::now();
    let stores = open_with_chunks(&a.stores)?;
    let stop = stop_chunks(&a.stop)?;
    let _out = out_dir(
        &a.output,
        &inputs_of(&a.stores, &a.stop, None),
        a.force,
        "reuse discover",
    )?;
    let stop_sites = a.auto_stop.then(|| {
        a.stop_sites.unwrap_or_else(|| {
            let sites: HashSet<String> = (0..stores.len() as u32)
                .filter_map(|d| neighbourhood::site(stores.url(d)))
                .collect();
            (sites.len() as u64 / 10).max(10)
        })
    });
    let cfg = DiscoverConfig {
        min_count: a.min_count,
        memory: a.memory,
        stop: stop.clone(),
        stop_sites,
    };
    let d = discover::discover(&stores, &cfg).map_err(|m| anyhow::anyhow!("{m:?}"))?;
    // The listed stop chunks that were frequent, located with the labels, to compare with
    // the rule.
    let listed = &d.listed_stop;
    let mut all: Vec<Frequent> = d.labeled.clone();
    all.extend(d.auto_stop.iter().cloned());
    all.extend(listed.iter().cloned());
    let texts = samples(&stores, &all)?;
    let out = &a.output;
    atomic::write(
        &out.join("labeled.tsv"),
        frequent_tsv(&d.labeled, &texts).as_bytes(),
    )?;
    let mut sorted: Vec<u128> = d.labeled.iter().map(|f| f.hash).collect();
    sorted.sort_unstable();
    atomic::write(&out.join("labels.bin"), bytemuck::cast_slice(&sorted))?;
    let mut stop_tsv = String::from("hash\tcount\tsites\tsource\tsample\n");
    for (f, source) in d
        .auto_stop
        .iter()
        .map(|f| (f, "auto"))
        .chain(listed.iter().map(|f| (f, "list")))
    {
        let s = texts.get(&f.hash).map_or("", String::as_str);
        let _ = writeln!(
            stop_tsv,
            "{}\t{}\t{}\t{source}\t{s}",
            hex(f.hash),
            f.count,
            f.sites
        );
    }
    atomic::write(&out.join("stop.tsv"), stop_tsv.as_bytes())?;
    let mut freq = String::from("occurrences\tdistinct_chunks\n");
    for (c, n) in &d.histogram {
        let _ = writeln!(freq, "{c}\t{n}");
    }
    atomic::write(&out.join("frequency.tsv"), freq.as_bytes())?;
    atomic::write(
        &out.join("frequency.svg"),
        plot::frequency_svg(&d.histogram, a.min_count).as_bytes(),
    )?;
    let summary = DiscoverSummary {
        command: "reuse discover".into(),
        stores: a.stores.iter().map(|p| p.display().to_string()).collect(),
        documents: stores.len() as u64,
        chunks: d.chunks,
        distinct_chunks: d.distinct,
        min_count: a.min_count,
        labeled: d.labeled.len() as u64,
        labeled_occurrences: d.labeled.iter().map(|f| f.count).sum(),
        stop_chunks: stop.len() as u64,
        listed_stop_frequent: listed.len() as u64,
        auto_stop: stop_sites.map(|min_sites| AutoStop {
            min_sites,
            stopped: d.auto_stop.len() as u64,
            listed_frequent: listed.len() as u64,
            listed_caught: listed.iter().filter(|f| f.sites >= min_sites).count() as u64,
        }),
        passes: d.passes,
        memory_bytes: a.memory,
        seconds: started.elapsed().as_secs_f64(),
        created_by: crate::report::summary::created_by(),
    };
    atomic::write(
        &out.join("summary.json"),
        &serde_json::to_vec_pretty(&summary)?,
    )?;
    if !quiet {
        say!(
            "{} chunks ({} distinct) in {} documents: {} labeled (seen more than {} times), {} frequent stop chunks{}; {} pass(es), {:.1} s",
            d.chunks,
            d.distinct,
            stores.len(),
            d.labeled.len(),
            a.min_count,
            listed.len(),
            stop_sites.map_or(String::new(), |s| format!(
                ", {} more stopped on >= {s} sites",
                d.auto_stop.len()
            )),
            d.passes,
            summary.seconds
        );
    }
    Ok(Outcome::Clean)
}

pub fn detect(a: DetectJob, quiet: bool) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let stores = open_with_chunks(&a.stores)?;
    let stop = stop_chunks(&a.stop)?;
    let (labels, source) = crate::reuse::labels::read(&a.labels)?;
    for (name, v) in [("--containment", a.containment), ("--badness", a.badness)] {
        if let Some(v) = v {
            anyhow::ensure!((0.0..=1.0).contains(&v), "{name} takes a share from 0 to 1");
        }
    }
    let _out = out_dir(
        &a.output,
        &inputs_of(&a.stores, &a.stop, Some(&a.labels)),
        a.force,
        "reuse detect",
    )?;
    let t = Thresholds {
        containment: a.containment,
        badness: a.badness,
    };
    let d = detect::detect(&StoreDocs(&stores), &labels, &stop, t);
    let out = &a.output;
    let mut pages = String::from("id\turl\tchunks\tlabeled\tcontainment\ttarget\n");
    let mut with_labeled = 0u64;
    let mut targets = 0u64;
    for (i, p) in d.pages.iter().enumerate() {
        if p.labeled == 0 {
            continue;
        }
        with_labeled += 1;
        let target = d.is_target(i);
        targets += u64::from(target);
        let doc = i as u32;
        let _ = writeln!(
            pages,
            "{}\t{}\t{}\t{}\t{:.4}\t{}",
            stores.id(doc),
            stores.url(doc),
            p.chunks,
            p.labeled,
            p.containment(),
            u8::from(target)
        );
    }
    atomic::write(&out.join("pages.tsv"), pages.as_bytes())?;
    let bad = d.bad();
    let mut hoods = String::from("prefix\tpages\tchunks\tlabeled\tbadness\n");
    for h in &bad {
        let _ = writeln!(
            hoods,
            "{}\t{}\t{}\t{}\t{:.4}",
            h.prefix,
            h.pages,
            h.chunks,
            h.labeled,
            h.badness()
        );
    }
    atomic::write(&out.join("neighbourhoods.tsv"), hoods.as_bytes())?;
    // The pages of each bad neighbourhood, neighbourhood by neighbourhood.
    let bad_set: HashMap<&str, usize> = bad
        .iter()
        .enumerate()
        .map(|(i, h)| (h.prefix.as_str(), i))
        .collect();
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); bad.len()];
    if !bad.is_empty() {
        for doc in 0..stores.len() as u32 {
            for p in neighbourhood::prefixes(stores.url(doc)) {
                if let Some(&i) = bad_set.get(p.as_str()) {
                    members[i].push(doc);
                }
            }
        }
    }
    let mut np = String::from("prefix\tid\tcontainment\n");
    for (h, docs) in bad.iter().zip(&members) {
        for &doc in docs {
            let _ = writeln!(
                np,
                "{}\t{}\t{:.4}",
                h.prefix,
                stores.id(doc),
                d.pages[doc as usize].containment()
            );
        }
    }
    atomic::write(&out.join("neighbourhood-pages.tsv"), np.as_bytes())?;
    let summary = DetectSummary {
        command: "reuse detect".into(),
        stores: a.stores.iter().map(|p| p.display().to_string()).collect(),
        labels: source,
        label_count: labels.len() as u64,
        pages: d.pages.len() as u64,
        pages_with_labeled: with_labeled,
        targets,
        containment_mean: d.page_spread.mean,
        containment_std: d.page_spread.std,
        containment_threshold: d.containment_threshold,
        neighbourhoods: d.hoods.len() as u64,
        bad_neighbourhoods: bad.len() as u64,
        badness_mean: d.hood_spread.mean,
        badness_std: d.hood_spread.std,
        badness_threshold: d.badness_threshold,
        seconds: started.elapsed().as_secs_f64(),
        created_by: crate::report::summary::created_by(),
    };
    atomic::write(
        &out.join("summary.json"),
        &serde_json::to_vec_pretty(&summary)?,
    )?;
    if !quiet {
        say!(
            "{} pages: {} hold labeled chunks, {} partial targets (containment > {:.3}); {} of {} neighbourhoods bad (badness > {:.3}); {:.1} s",
            d.pages.len(),
            with_labeled,
            targets,
            d.containment_threshold,
            bad.len(),
            d.hoods.len(),
            d.badness_threshold,
            summary.seconds
        );
    }
    Ok(Outcome::Clean)
}

/// One of the most repeated chunks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopChunk {
    /// Occurrences in the corpus.
    pub count: u64,
    /// Distinct sites it occurs on.
    pub sites: u64,
    /// Whether it is a stop chunk.
    pub stop: bool,
    /// Its hash, in hex.
    pub hash: String,
    /// A sample of its text (empty where it could not be read again).
    pub sample: String,
}

/// The `a.n` most repeated chunks, most repeated first.
pub fn top_chunks(a: &TopJob) -> anyhow::Result<Vec<TopChunk>> {
    check_memory(a.memory)?;
    let stores = open_with_chunks(&a.stores)?;
    let stop = stop_chunks(&a.stop)?;
    let slices = discover::chunk_slices(&stores).map_err(|m| anyhow::anyhow!("{m:?}"))?;
    let top = discover::top(&Slices::new(&slices), a.n, a.memory);
    let mut found: Vec<Frequent> = top.iter().map(|(h, c)| Frequent::counted(*h, *c)).collect();
    discover::locate(&stores, &mut found);
    let mut texts = samples(&stores, &found)?;
    Ok(found
        .iter()
        .map(|f| TopChunk {
            count: f.count,
            sites: f.sites,
            stop: stop.contains(f.hash),
            hash: hex(f.hash),
            sample: texts.remove(&f.hash).unwrap_or_default(),
        })
        .collect())
}

/// `reuse top`: the most repeated chunks printed as a table.
pub fn top(a: TopJob, _quiet: bool) -> anyhow::Result<Outcome> {
    let found = top_chunks(&a)?;
    let mut t = String::from("rank\tcount\tsites\tstop\thash\tsample\n");
    for (i, f) in found.iter().enumerate() {
        let _ = writeln!(
            t,
            "{}\t{}\t{}\t{}\t{}\t{}",
            i + 1,
            f.count,
            f.sites,
            u8::from(f.stop),
            f.hash,
            crate::base::shown::terminal(&f.sample)
        );
    }
    use std::io::Write as _;
    let mut o = std::io::stdout().lock();
    o.write_all(t.as_bytes())?;
    o.flush()?;
    Ok(Outcome::Clean)
}

pub fn experiment(a: ExperimentJob) -> anyhow::Result<Outcome> {
    anyhow::ensure!(
        a.pages > 0 && a.copies > 0 && a.runs > 0,
        "--pages, --copies and --runs must be at least 1"
    );
    let setup = Setup {
        pages: a.pages,
        copies: a.copies,
        min_count: a.min_count,
        runs: a.runs,
        seed: a.seed,
        thresholds: Thresholds {
            containment: a.containment,
            badness: a.badness,
        },
        ..Setup::default()
    };
    let o = experiment::run(&setup);
    let mut tol =
        String::from("mutation\tlabels\tpage_tolerance_cpp\tneighbourhood_tolerance_cpp\tratio\n");
    for t in &o.tolerances {
        let mark = |v: f64, failed: bool| {
            if failed {
                format!("{v:.1}")
            } else {
                format!(">={v:.1}")
            }
        };
        let ratio = if t.page_cpp > 0.0 && t.page_failed && t.hood_failed {
            format!("{:.2}", t.hood_cpp / t.page_cpp)
        } else {
            "-".into()
        };
        let _ = writeln!(
            tol,
            "{}\t{}\t{}\t{}\t{ratio}",
            t.mutation.name(),
            t.labels,
            mark(t.page_cpp, t.page_failed),
            mark(t.hood_cpp, t.hood_failed)
        );
    }
    let head = format!(
        "# cpp {:.1} (median {:.0}); chunk-level discovery {:.1} % of the site's chunks, file-level {:.1} % of its pages; labels: blind {}, expert {}; thresholds (containment, badness): blind {:.3} {:.3}, expert {:.3} {:.3}\n",
        o.cpp,
        o.median_cpp,
        100.0 * o.chunk_discovered,
        100.0 * o.file_discovered,
        o.blind_labels,
        o.expert_labels,
        o.blind_thresholds.0,
        o.blind_thresholds.1,
        o.expert_thresholds.0,
        o.expert_thresholds.1
    );
    match &a.output {
        Some(dir) => {
            // Synthetic data in, so no input to overlap; a user's file is never replaced.
            let _out = OutDir::claim(dir, &[])?;
            let mut pts = String::from(
                "mutation\tlabels\tx_cpp\tpage_containment\tpages_detected\tbadness\n",
            );
            for p in &o.points {
                let _ = writeln!(
                    pts,
                    "{}\t{}\t{:.2}\t{:.4}\t{:.4}\t{:.4}",
                    p.mutation.name(),
                    p.labels,
                    p.x_cpp,
                    p.page_containment,
                    p.pages_detected,
                    p.badness
                );
            }
            atomic::write(&dir.join("points.tsv"), pts.as_bytes())?;
            atomic::write(
                &dir.join("tolerances.tsv"),
                format!("{head}{tol}").as_bytes(),
            )?;
        }
        None => print!("{head}{tol}"),
    }
    Ok(Outcome::Clean)
}

pub fn bench(a: BenchJob) -> anyhow::Result<Outcome> {
    anyhow::ensure!(a.chunks > 0, "--chunks must be at least 1");
    let started = Instant::now();
    let cfg = DiscoverConfig {
        min_count: a.min_count,
        memory: a.memory,
        stop: StopChunks::none(),
        stop_sites: None,
    };
    let d = discover::frequent(
        &Synthetic {
            n: a.chunks,
            seed: a.seed,
        },
        &cfg,
    );
    let secs = started.elapsed().as_secs_f64();
    println!(
        "chunks {}\tdistinct {}\tseen once {}\tlabeled (> {}) {}\tmost frequent {}\tpasses {}\tmemory {} MiB\tthreads {}\tseconds {:.1}\tchunks/s {:.3e}",
        d.chunks,
        d.distinct,
        d.histogram.get(&1).copied().unwrap_or(0),
        a.min_count,
        d.labeled.len(),
        d.labeled.first().map_or(0, |f| f.count),
        d.passes,
        a.memory >> 20,
        rayon::current_num_threads(),
        secs,
        d.chunks as f64 / secs
    );
    Ok(Outcome::Clean)
}
