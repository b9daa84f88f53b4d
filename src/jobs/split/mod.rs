//! `dedup`'s verified default split into tasks that share nothing but files, so that the
//! stages after fingerprinting run on the nodes of a cluster (`neardup.ray.dedup(...,
//! partitions=N)`) or one after another here (`neardup dedup --partitions N`), and give one
//! box's `keep.txt`, `remove.tsv`, `clusters.tsv` and `excluded.tsv`, byte for byte.
//!
//! The stages, each a set of independent tasks whose files appear whole or not at all (a
//! task killed mid-way is run again and writes the same files):
//! 1. **scatter**, a task per store: every document's keys (its MinHash band keys, its
//!    fingerprints, its canonical link and URL, its id), each sent to the partition that
//!    owns its key range ([`crate::join::lsh::KeyRange`]); with own content, every counted
//!    page's (host, block) keys, with its title and with its host, and the pages per host.
//! 2. **groups**, a task per partition: its share of every store's keys, sorted; documents
//!    sharing a key are joined, and each partition's joined documents leave as a spanning
//!    forest (edges between 64-bit document numbers). Repeated ids are found here too, and,
//!    with own content, which of its (host, block) keys are their site's, by one box's rule.
//! 3. **components**: large-star and small-star steps in turn (Kiveris et al., 2014) over the
//!    edges, each a task per partition owning the documents whose hash falls in it, until a
//!    step pair changes nothing: every component is then a star around its smallest document.
//! 4. **verify**, a task per partition: the components whose smallest document it owns, in
//!    batches whose documents are copied out of their stores, deduplicated as one box would
//!    (the candidates, the verification against the kept texts, the stars:
//!    [`crate::cluster::leaders`]), and their documents' lines written out per store.
//! 5. **lists**, a task per store of the new collection: the store's lines in document order,
//!    the verified ones and every other document's (a singleton's).
//! 6. **gather**, here: the stores' lines concatenated in corpus order, and `summary.json`.
//!
//! Why the lists are one box's: the components here are unions of one box's components (every
//! one-box candidate, canonical class and unit of identical fingerprints shares a key that is
//! grouped here), and one box decides each component from its own documents only: ranks from
//! the documents' own keys, runs and classes inside the component, stars inside it. A task
//! deduplicating whole components finds what one box finds for them.

mod components;
mod gather;
mod groups;
mod names;
mod own;
mod plan;
mod records;
mod scatter;
mod verify;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::options::{Candidates, DedupOptions};
use super::spec::DedupSpec;
use crate::base::claim::OutDir;
use crate::fingerprint::store::Store;

pub use plan::{
    memory_per_task, Plan, PlanStore, TaskStats, BATCH_DOCUMENTS, BYTES_FIXED, OUTPUTS,
};
pub use records::Signature;

/// Plans a split run of `dedup` with `options` (its JSON options by name: `inputs` are the
/// stores, fingerprinted with MinHash keys; `output` the directory) over `partitions`
/// partitions: validates the options, claims the output directory, writes the plan into
/// `output/split`, and prints the memory per task by formula.
pub fn plan(options: &str, partitions: u32, quiet: bool) -> anyhow::Result<Plan> {
    let o = DedupOptions::from_json(options)?;
    let spec = DedupSpec::new(&o)?;
    anyhow::ensure!(
        (1..=1 << 16).contains(&partitions),
        "partitions {partitions}: from 1 to 65536"
    );
    anyhow::ensure!(
        !spec.stores.is_empty() && spec.stores.len() == o.inputs.len(),
        "a split run takes stores (fingerprinted with --minhash), not crawls: fingerprint the crawl first"
    );
    let linear = matches!(&spec.verify, Some(v) if v.leaders.is_some());
    if spec.candidates != Candidates::Minhash || !linear {
        // Name what this run asked for that the default does not do.
        let mut why: Vec<String> = Vec::new();
        if spec.verify.is_none() {
            why.push("--no-verify".into());
        }
        if o.all_pairs {
            why.push("--all-pairs".into());
        }
        if spec.candidates != Candidates::Minhash {
            why.push("--candidates simhash".into());
        }
        if spec.verify.as_ref().is_some_and(|v| v.skip_joined) {
            why.push("--skip-joined".into());
        }
        if spec.representative == crate::cluster::Representative::Central {
            why.push("--representative central".into());
        }
        if !spec.remove_by.by_stars() {
            why.push(format!(
                "--remove-by {}",
                serde_json::to_value(spec.remove_by)?
                    .as_str()
                    .unwrap_or("?")
            ));
        }
        if spec.tau_max != spec.at.tau {
            why.push("--tau-max above --tau".into());
        }
        anyhow::bail!(
            "a split run is the verified default (MinHash candidates verified against the kept texts, removal by stars): not with {}",
            if why.is_empty() { "these options".to_string() } else { why.join(", ") }
        );
    }
    anyhow::ensure!(
        spec.corpus.is_none() && spec.substrings.is_none() && spec.tables.is_empty(),
        "a split run writes the lists (keep.txt, remove.tsv, clusters.tsv, excluded.tsv): --write-corpus, --substrings and --tables run on one box, or later with `neardup write` on keep.txt"
    );
    super::dedup::check_policy(&spec)?;
    let mut paths = spec.stores.clone();
    paths.extend(spec.against.iter().cloned());
    crate::fingerprint::store::set::distinct(&paths)?;
    let mut stores = Vec::new();
    let mut first = 0u64;
    let mut bands = None;
    for p in &paths {
        let s = Store::open(p)?;
        let m = s.manifest.minhash.ok_or_else(|| {
            anyhow::anyhow!(
                "{} has no MinHash band keys: fingerprint it with --minhash",
                p.display()
            )
        })?;
        match bands {
            None => bands = Some(m),
            Some(b) if b == m => {}
            Some(_) => anyhow::bail!(
                "{} has other MinHash band keys than {}: fingerprint every store alike",
                p.display(),
                paths[0].display()
            ),
        }
        stores.push(PlanStore {
            path: crate::base::paths::resolve(p),
            docs: s.len() as u64,
            first,
            manifest: s.manifest_digest(),
        });
        first += s.len() as u64;
    }
    let out = &spec.output;
    // A claim this process still holds on the same output (a run of it that failed) is let go.
    let resolved_out = crate::base::paths::resolve(out);
    plan::held().retain(|(o, _)| *o != resolved_out);
    let claimed = OutDir::claim_for(out, &paths, "dedup", Some(o.force))?;
    claimed.reserve(&OUTPUTS)?;
    // A store an earlier run fingerprinted there may be one of the inputs: kept, as one box keeps it.
    claimed.replace_previous(&["store"], "summary.json")?;
    let work = plan::work_dir(out);
    crate::base::claim::admit(&work)?;
    if work.exists() {
        std::fs::remove_dir_all(&work).map_err(|e| crate::Error::io(&work, e))?;
    }
    std::fs::create_dir_all(&work).map_err(|e| crate::Error::io(&work, e))?;
    // The claim, and the lock with it, is held to the end of the run: the gather takes it.
    claimed.settle()?;
    plan::held().push((resolved_out, claimed));
    let v = spec.verify.as_ref().expect("checked");
    // The blocks each host's pages share are counted by the scatter and groups stages, when
    // the run sets them aside and a store keeps block keys (as one box counts them).
    let block_keys = paths
        .iter()
        .map(|p| {
            let s = Store::open_checked_before(p)?;
            Ok(s.blocks().map(|b| b.hashes.len() as u64))
        })
        .collect::<anyhow::Result<Vec<Option<u64>>>>()?;
    let own = v.own_content && block_keys.iter().any(Option::is_some);
    let plan = Plan {
        output: crate::base::paths::resolve(out),
        work: crate::base::paths::resolve(&work),
        partitions,
        options: options.to_string(),
        stores,
        new_stores: spec.stores.len(),
        bands: bands.expect("a store").bands,
        canonical: spec.canonical,
        documents: first,
        verify_memory: v.spec.memory,
        own,
        block_keys: block_keys.iter().flatten().sum(),
    };
    crate::base::atomic::write(
        &work.join("plan.json"),
        serde_json::to_string_pretty(&plan)?.as_bytes(),
    )?;
    if !quiet {
        say!(
            "split: {} documents in {} stores over {} partitions; memory a task, by formula:",
            plan.documents,
            plan.stores.len(),
            partitions
        );
        let batch = BATCH_DOCUMENTS.min(plan.documents);
        let bounds = memory_per_task(&plan, batch);
        for (stage, bytes, how) in &bounds {
            say!("      {stage:<10} {:>8.0} MB  ({how})", *bytes as f64 / 1e6);
        }
        let most = bounds.iter().map(|b| b.1).max().unwrap_or(0);
        say!(
            "      a node: the tasks it runs at once (one a CPU given to each) x {:.0} MB at most",
            most as f64 / 1e6
        );
    }
    Ok(plan)
}

/// CPU seconds of this process so far (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th.
    let rest = stat.rsplit_once(')').map_or("", |x| x.1);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

/// Runs task `part` of `stage` with the plan in `work`; returns what it did. A task writes
/// its files whole (a rerun replaces them), so a task that fails or dies can be run again.
pub fn run_task(work: &Path, stage: &str, part: u32, step: u32) -> anyhow::Result<TaskStats> {
    let plan = Plan::read(work)?;
    crate::base::rss::reset_peak();
    let start_rss = crate::base::rss::current();
    let (t, cpu) = (Instant::now(), cpu_seconds());
    let mut stats = TaskStats {
        stage: stage.to_string(),
        part,
        node: host(),
        start_rss,
        ..TaskStats::default()
    };
    match stage {
        "scatter" => scatter::run(&plan, part as usize, &mut stats)?,
        "groups" => groups::run(&plan, part, &mut stats)?,
        "components" => components::run(&plan, part, step, &mut stats)?,
        "verify" => verify::run(&plan, part, step, &mut stats)?,
        "lists" => gather::lists(&plan, part as usize, &mut stats)?,
        other => anyhow::bail!("no split stage {other:?}"),
    }
    stats.seconds = t.elapsed().as_secs_f64();
    stats.cpu_seconds = cpu_seconds() - cpu;
    stats.peak_rss = crate::base::rss::peak();
    Ok(stats)
}

/// The tasks the driver runs next: `parts` of `stage` (at components step `step`), any order,
/// any node; or nothing when the run is done.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Next {
    pub stage: String,
    pub step: u32,
    pub parts: Vec<u32>,
}

/// The driver's state between stages: which stage ran last, and what every task reported.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Driver {
    /// The work directory.
    pub work: PathBuf,
    /// The stage last handed out and its step.
    pub stage: String,
    pub step: u32,
    /// Every task's report, in the order received.
    pub done: Vec<TaskStats>,
    /// Started (seconds since the epoch).
    pub started: f64,
    /// Signatures of the components steps' inputs, step by step.
    pub signatures: Vec<Signature>,
}

/// The components steps at most: each pair at least halves the longest path's steps to a
/// component's centre (Kiveris et al., 2014: O(log^2 n) in all); a run that has not
/// converged by then is an error rather than a loop.
pub const MAX_STEPS: u32 = 200;

impl Driver {
    /// A driver for the plan in `work`.
    pub fn new(work: &Path) -> Driver {
        Driver {
            work: work.to_path_buf(),
            started: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64()),
            ..Driver::default()
        }
    }

    /// Takes the reports of the tasks handed out last and says what runs next (None: gather).
    pub fn next(&mut self, reports: Vec<TaskStats>) -> anyhow::Result<Option<Next>> {
        let plan = Plan::read(&self.work)?;
        let all = |n: usize| (0..n as u32).collect::<Vec<u32>>();
        let p = plan.partitions as usize;
        let sig = |reports: &[TaskStats]| {
            reports
                .iter()
                .filter_map(|r| r.signature)
                .fold(Signature::default(), |a, b| a.and(b))
        };
        let next = match self.stage.as_str() {
            "" => Some(("scatter", 0, all(plan.stores.len()))),
            "scatter" => Some(("groups", 0, all(p))),
            "groups" => {
                names::names(&plan)?;
                Some(("components", 0, all(p)))
            }
            "components" => {
                self.signatures.push(sig(&reports));
                let s = &self.signatures;
                let n = s.len();
                // Converged when a large-star and a small-star step left the edges as they
                // found them (their inputs and the next step's are the same set).
                let converged = n >= 3 && s[n - 1] == s[n - 2] && s[n - 2] == s[n - 3];
                if converged {
                    Some(("verify", self.step, all(p)))
                } else {
                    anyhow::ensure!(
                        self.step + 1 < MAX_STEPS,
                        "the components did not converge in {MAX_STEPS} steps"
                    );
                    Some(("components", self.step + 1, all(p)))
                }
            }
            "verify" => Some(("lists", 0, all(plan.new_stores))),
            "lists" => None,
            other => anyhow::bail!("no split stage {other:?}"),
        };
        self.done.extend(reports);
        Ok(next.map(|(stage, step, parts)| {
            self.stage = stage.to_string();
            self.step = step;
            Next {
                stage: stage.to_string(),
                step,
                parts,
            }
        }))
    }

    /// Gathers the lists into the output directory and writes `summary.json`.
    pub fn gather(&self, quiet: bool) -> anyhow::Result<crate::report::summary::Summary> {
        let plan = Plan::read(&self.work)?;
        gather::gather(
            &plan,
            &self.done,
            self.started,
            self.signatures.len(),
            quiet,
        )
    }
}

/// The whole split run here, task after task (rayon inside each): `neardup dedup
/// --partitions N` on stores, and the reference the cluster's runs are tested against.
pub fn run_here(
    options: &str,
    partitions: u32,
    quiet: bool,
) -> anyhow::Result<crate::report::summary::Summary> {
    let plan = plan(options, partitions, quiet)?;
    let run = || -> anyhow::Result<crate::report::summary::Summary> {
        let mut driver = Driver::new(&plan.work);
        let mut reports = Vec::new();
        while let Some(next) = driver.next(std::mem::take(&mut reports))? {
            if !quiet && next.stage != "components" {
                say!("split: {} ({} tasks)", next.stage, next.parts.len());
            }
            for part in &next.parts {
                reports.push(run_task(&plan.work, &next.stage, *part, next.step)?);
            }
        }
        driver.gather(quiet)
    };
    run().inspect_err(|_| abandon(&plan.output))
}

/// Lets go of the output directory `out` of a split run this process planned and that will not
/// be gathered (a task failed): its lock is released, and its record names the work directory,
/// which the next run into `out` removes.
pub fn abandon(out: &Path) {
    drop(plan::take_held(out));
}
