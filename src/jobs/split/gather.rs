//! The end of a split run: the names of repeated ids (after the groups stage), each store's
//! lines in document order (the lists stage, a task per store), and the lists gathered in
//! corpus order with the audit per site, `summary.json` and `report.html`, as one box writes
//! them (here, on the driver: the audit and the page read every document's id and URL).

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use super::names::load_names;
use super::plan::{memory_per_task, Plan, TaskStats};
use super::{records, verify};
use crate::base::atomic::AtomicFile;
use crate::base::claim::OutDir;
use crate::cluster::leaders::LeaderStats;
use crate::fingerprint::store::flags;
use crate::fingerprint::store::StoreSet;
use crate::report::lists::{read_removals, tsv_field, EXCLUDED, KEEP, REMOVE};
use crate::report::summary::{
    ClustersSummary, Command, JoinRun, JoinSummary, SplitNode, SplitStage, SplitSummary, Summary,
    TaskMemory, VerificationSummary,
};

/// The four files' suffixes, in [`crate::report::lists::doc_lines`]'s order.
const PARTS: [&str; 4] = ["clusters", "keep", "remove", "excluded"];

fn part_file(plan: &Plan, s: usize, i: usize) -> PathBuf {
    plan.work
        .join("lists")
        .join(format!("s{s:05}.{}", PARTS[i]))
}

/// The lists stage: store `s`'s lines in document order, the verified documents' from the
/// verify stage, every other's as a singleton's (kept, its own cluster; listed as excluded
/// when it took no part).
pub fn lists(plan: &Plan, s: usize, stats: &mut TaskStats) -> anyhow::Result<()> {
    let ps = &plan.stores[s];
    let store = plan.open_store(s, false)?;
    let mut verified: Vec<(u32, [Vec<u8>; 4])> = Vec::new();
    for p in 0..plan.partitions {
        let path = verify::lines(plan, p, s);
        if path.exists() {
            verified.extend(verify::read_lines(&path)?);
        }
    }
    verified.sort_unstable_by_key(|x| x.0);
    let names: HashMap<u32, String> = load_names(plan, s)?.into_iter().collect();
    records::dir(plan.work.join("lists"))?;
    let mut files: Vec<AtomicFile> = (0..4)
        .map(|i| AtomicFile::create_unscanned(&part_file(plan, s, i)))
        .collect::<crate::Result<_>>()?;
    let mut next = verified.into_iter().peekable();
    let mut counts = [0u64; 4];
    let mut clusters = 0u64;
    let fl = store.flags();
    for row in 0..store.len() as u32 {
        let ls: [Vec<u8>; 4] = match next.next_if(|x| x.0 == row) {
            Some((_, ls)) => ls,
            None => {
                let raw = names
                    .get(&row)
                    .map_or(store.id(row as usize), String::as_str);
                let id = tsv_field(raw);
                let f = fl[row as usize];
                let excluded = if f & flags::NO_FEATURES != 0 {
                    format!("{id}\tno-features\n")
                } else if f & flags::SHORT != 0 {
                    format!("{id}\tshort\n")
                } else {
                    String::new()
                };
                [
                    format!("{id}\t{id}\t1\t{id}\n").into_bytes(),
                    format!("{id}\n").into_bytes(),
                    Vec::new(),
                    excluded.into_bytes(),
                ]
            }
        };
        for (i, (f, l)) in files.iter_mut().zip(&ls).enumerate() {
            if !l.is_empty() {
                counts[i] += 1;
                f.write_all(l).map_err(|e| crate::Error::io(f.path(), e))?;
            }
        }
        // Clusters of two or more: their representative's line says so.
        let mut fields = ls[0].split(|b| *b == b'\t');
        if let (Some(id), Some(rep), Some(size)) = (fields.next(), fields.next(), fields.next()) {
            if id == rep && size != b"1" {
                clusters += 1;
            }
        }
    }
    if let Some((row, _)) = next.next() {
        anyhow::bail!(
            "{}: row {row} has verified lines but the store has {} documents: the store changed during the run",
            ps.path.display(),
            store.len()
        );
    }
    for f in files {
        f.commit()?;
    }
    for (i, name) in PARTS.iter().enumerate() {
        stats.counts.insert((*name).into(), counts[i].into());
    }
    stats
        .counts
        .insert("clusters_of_two_or_more".into(), clusters.into());
    Ok(())
}

/// One stage's tasks summed for `summary.json`: per node, and the critical path (the
/// slowest task of each round of tasks that ran together).
fn stage_summary(name: &str, tasks: &[&TaskStats]) -> SplitStage {
    let mut nodes: std::collections::BTreeMap<&str, SplitNode> = Default::default();
    for t in tasks {
        let n = nodes.entry(t.node.as_str()).or_insert_with(|| SplitNode {
            node: t.node.clone(),
            tasks: 0,
            seconds: 0.0,
            cpu_seconds: 0.0,
            peak_rss: 0,
            peak_growth: 0,
        });
        n.tasks += 1;
        n.seconds += t.seconds;
        n.cpu_seconds += t.cpu_seconds;
        n.peak_rss = n.peak_rss.max(t.peak_rss.unwrap_or(0));
        n.peak_growth = n.peak_growth.max(growth(t));
    }
    // The slowest task of each round, in wall seconds and in CPU seconds (what the round
    // takes on nodes that do not share cores); the components stage runs in steps, each
    // waiting for the one before.
    let path = |of: &dyn Fn(&TaskStats) -> f64| -> f64 {
        let mut by: std::collections::BTreeMap<u64, f64> = Default::default();
        for t in tasks {
            let round = if name == "components" {
                t.counts.get("step").and_then(|v| v.as_u64()).unwrap_or(0)
            } else {
                0
            };
            let e = by.entry(round).or_default();
            *e = e.max(of(t));
        }
        by.values().sum()
    };
    SplitStage {
        name: name.to_string(),
        tasks: tasks.len() as u64,
        critical_path_seconds: path(&|t| t.seconds),
        critical_path_cpu_seconds: path(&|t| t.cpu_seconds),
        cpu_seconds: tasks.iter().map(|t| t.cpu_seconds).sum::<f64>(),
        peak_rss_per_task: tasks.iter().filter_map(|t| t.peak_rss).max(),
        peak_growth_per_task: tasks.iter().map(|t| growth(t)).max().unwrap_or(0),
        nodes: nodes.into_values().collect(),
    }
}

/// A task's memory growth over its process's at its start.
fn growth(t: &TaskStats) -> u64 {
    t.peak_rss
        .unwrap_or(0)
        .saturating_sub(t.start_rss.unwrap_or(0))
}

/// Clusters, those of two or more documents, and the largest, from `clusters.tsv`.
fn cluster_counts(path: &std::path::Path) -> anyhow::Result<(u64, u64, u64)> {
    let text = std::fs::read_to_string(path).map_err(|e| crate::Error::io(path, e))?;
    let mut sizes: HashMap<&str, u64> = HashMap::new();
    for line in text.lines().skip(1) {
        let rep = line.split('\t').nth(1).unwrap_or("");
        *sizes.entry(rep).or_default() += 1;
    }
    let several = sizes.values().filter(|n| **n > 1).count() as u64;
    let largest = sizes.values().copied().max().unwrap_or(0);
    Ok((sizes.len() as u64, several, largest))
}

/// Gathers the stores' lines into the output directory in corpus order, writes the audit
/// per site, `summary.json` (the one box's schema, with the split's part) and the report page,
/// and removes the work directory.
pub fn gather(
    plan: &Plan,
    done: &[TaskStats],
    started: f64,
    steps: usize,
    quiet: bool,
) -> anyhow::Result<Summary> {
    let out = &plan.output;
    let inputs: Vec<PathBuf> = plan.stores.iter().map(|s| s.path.clone()).collect();
    // The planner's claim, held since the plan; a gather in another process claims anew
    // (refused while the planner runs).
    let claimed = match super::plan::take_held(out) {
        Some(c) => c,
        None => OutDir::claim_for(out, &inputs, "dedup", Some(true))?,
    };
    let against = plan.new_stores < plan.stores.len();
    let heads = [
        format!("{}\n", crate::cluster::file::HEADER.join("\t")),
        String::new(),
        format!(
            "id\tkept\thamming64\tscore{}\n",
            if against { "\tkept_in" } else { "" }
        ),
        "id\treason\n".to_string(),
    ];
    let targets = [crate::cluster::file::NAME, KEEP, REMOVE, EXCLUDED];
    for (i, (name, head)) in targets.iter().zip(&heads).enumerate() {
        let mut f = AtomicFile::create(&out.join(name))?;
        f.put(head.as_bytes())?;
        for s in 0..plan.new_stores {
            let part = part_file(plan, s, i);
            let mut r = std::fs::File::open(&part).map_err(|e| crate::Error::io(&part, e))?;
            std::io::copy(&mut r, &mut f).map_err(|e| crate::Error::io(&part, e))?;
        }
        f.commit()?;
    }
    let tasks =
        |stage: &str| -> Vec<&TaskStats> { done.iter().filter(|t| t.stage == stage).collect() };
    let sum = |stage: &str, key: &str| -> u64 {
        tasks(stage)
            .iter()
            .filter_map(|t| t.counts.get(key).and_then(|v| v.as_u64()))
            .sum()
    };
    let batch = tasks("verify")
        .iter()
        .filter_map(|t| t.counts.get("largest_batch").and_then(|v| v.as_u64()))
        .max()
        .unwrap_or(0);
    let stages: Vec<SplitStage> = ["scatter", "groups", "components", "verify", "lists"]
        .iter()
        .map(|s| stage_summary(s, &tasks(s)))
        .collect();
    let mut leaders = LeaderStats::default();
    for t in tasks("verify") {
        if let Some(l) = t
            .counts
            .get("leaders")
            .and_then(|v| serde_json::from_value::<LeaderStats>(v.clone()).ok())
        {
            leaders.add(&l);
        }
    }
    crate::jobs::dedup::say_bound(&leaders, quiet);

    // The run as one box describes it: the stores' audit per site, the summary, the page.
    let spec = plan.spec()?;
    let mut stores = StoreSet::open(&inputs)?;
    if against {
        stores = stores.against(plan.new_stores);
    }
    crate::jobs::outputs::warn_qualified(&stores);
    let protect = stores.old_from();
    let kept = {
        let names = crate::jobs::corpus::ids_of(&stores);
        let mut kept: Vec<u32> = (0..stores.len() as u32).collect();
        for r in read_removals(&out.join(REMOVE))? {
            if let (Some(a), Some(b)) = (names.get(r.id.as_str()), names.get(r.kept.as_str())) {
                kept[*a as usize] = *b;
            }
        }
        kept
    };
    let own = super::own::site_blocks(plan)?;
    let own_summary = super::own::own_summary(own.as_ref(), &stores);
    let (sites, _) =
        crate::jobs::outputs::write_sites(out, &stores, &kept, protect, &[], own.as_ref(), quiet)?;
    drop(kept);
    let (clusters_n, several, largest) = cluster_counts(&out.join(crate::cluster::file::NAME))?;
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
        - started;
    // A clock set back during the run gives no negative time.
    let seconds = seconds.max(0.0);
    let excluded = sum("lists", "excluded");
    let v = spec.verify.as_ref().expect("a split run verifies");
    let candidates_seconds: f64 = stages[..3].iter().map(|s| s.critical_path_seconds).sum();
    let join = JoinSummary {
        method: spec.join.plan.method,
        blocks: spec.join.plan.blocks,
        bits: spec.join.plan.bits,
        iterations: spec.join.plan.iterations,
        seed: spec.join.plan.seed,
        backend: spec.join.backend,
        adapter: None,
        tau: spec.tau_max,
        tau128: spec.at.tau128,
        // A split run forms no pair graph: its candidates are grouped by key range.
        pairs: 0,
        exact_pairs: 0,
        units: 0,
        edges: sum("groups", "edges"),
        ran: Some(JoinRun {
            plan: format!(
                "MinHash-LSH, {} bands, keys grouped over {} partitions{}, runs verified against their kept texts",
                plan.bands,
                plan.partitions,
                if plan.canonical { " with canonical links" } else { "" }
            ),
            backend: "cpu".into(),
            seconds: candidates_seconds,
        }),
    };
    let mut summary = Summary {
        command: Command::Dedup,
        created_by: crate::report::summary::created_by(),
        inputs: Vec::new(),
        stores: inputs.clone(),
        stores_digest: Some(format!("{:016x}", stores.digest())),
        pairs_file: None,
        seconds,
        documents: stores.len() as u64,
        joined: plan.new_documents().saturating_sub(excluded),
        excluded,
        fingerprint: None,
        join,
        sweep: None,
        clusters: Some(ClustersSummary {
            tau: spec.at.tau,
            tau128: spec.at.tau128,
            representative: spec.representative,
            policy: crate::jobs::dedup::policy_summary(&spec, &stores)?,
            remove_by: spec.remove_by,
            clusters: clusters_n,
            clusters_of_two_or_more: several,
            largest_cluster: largest,
            keep: sum("lists", "keep"),
            remove: sum("lists", "remove"),
            excluded,
            qualified_ids: stores.qualified() as u64,
            remove_for_old: 0,
        }),
        verification: Some(VerificationSummary {
            measure: v.spec.measure.name().into(),
            min: v.spec.min,
            shingle: v.spec.k,
            candidate_pairs: 0,
            verified_pairs: 0,
            not_compared_pairs: 0,
            comparisons: leaders.comparisons,
            documents_read: 0,
            sets_from_store: 0,
            sets_from_fingerprinting: 0,
            payload_bytes: 0,
            text_bytes: 0,
            seconds: stages[3].critical_path_seconds,
            leaders: Some(leaders),
            own_content: own_summary,
        }),
        against: None,
        canonical: None,
        tables: Vec::new(),
        corpus: None,
        memory_bound: None,
        sites: Some(sites),
        stages: Vec::new(),
        report: None,
        split: Some(SplitSummary {
            partitions: plan.partitions,
            components_steps: steps as u64,
            components: sum("verify", "components"),
            documents_in_components: sum("verify", "documents"),
            keys: sum("scatter", "keys"),
            forest_edges: sum("groups", "edges"),
            memory_per_task: memory_per_task(plan, batch)
                .into_iter()
                .map(|(stage, bytes, formula)| TaskMemory {
                    stage: stage.to_string(),
                    bytes,
                    formula,
                })
                .collect(),
            stages,
        }),
    };
    summary.report = Some(crate::jobs::report::write_page(
        out,
        &summary,
        &stores,
        spec.shard_dir.as_deref(),
    )?);
    summary.write(out)?;
    std::fs::remove_dir_all(&plan.work).map_err(|e| crate::Error::io(&plan.work, e))?;
    claimed.finish()?;
    if !quiet {
        say!(
            "done in {:.1} s over {} partitions: {} documents, {} kept ({} removed); outputs in {}",
            seconds,
            plan.partitions,
            plan.new_documents(),
            sum("lists", "keep"),
            sum("lists", "remove"),
            out.display()
        );
    }
    Ok(summary)
}
