//! The end of a split run: the names of repeated ids (after the groups stage), each store's
//! lines in document order (the lists stage, a task per store), and the lists gathered in
//! corpus order with `summary.json` (here).

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use super::names::load_names;
use super::plan::{memory_per_task, Plan, TaskStats};
use super::{records, verify};
use crate::base::atomic::AtomicFile;
use crate::base::claim::OutDir;
use crate::fingerprint::store::flags;
use crate::report::lists::{tsv_field, EXCLUDED, KEEP, REMOVE};

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
        .map(|i| AtomicFile::create(&part_file(plan, s, i)))
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
fn stage_summary(name: &str, tasks: &[&TaskStats]) -> serde_json::Value {
    let mut nodes: std::collections::BTreeMap<&str, (u64, f64, f64, u64, u64)> = Default::default();
    for t in tasks {
        let n = nodes.entry(t.node.as_str()).or_default();
        n.0 += 1;
        n.1 += t.seconds;
        n.2 += t.cpu_seconds;
        n.3 = n.3.max(t.peak_rss.unwrap_or(0));
        let grew = t
            .peak_rss
            .unwrap_or(0)
            .saturating_sub(t.start_rss.unwrap_or(0));
        n.4 = n.4.max(grew);
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
    let critical = path(&|t| t.seconds);
    let critical_cpu = path(&|t| t.cpu_seconds);
    serde_json::json!({
        "name": name,
        "tasks": tasks.len(),
        "critical_path_seconds": critical,
        "critical_path_cpu_seconds": critical_cpu,
        "cpu_seconds": tasks.iter().map(|t| t.cpu_seconds).sum::<f64>(),
        "peak_rss_per_task": tasks.iter().filter_map(|t| t.peak_rss).max(),
        "peak_growth_per_task": tasks
            .iter()
            .map(|t| t.peak_rss.unwrap_or(0).saturating_sub(t.start_rss.unwrap_or(0)))
            .max(),
        "nodes": nodes.iter().map(|(node, n)| serde_json::json!({
            "node": node,
            "tasks": n.0,
            "seconds": n.1,
            "cpu_seconds": n.2,
            "peak_rss": n.3,
            "peak_growth": n.4,
        })).collect::<Vec<_>>(),
    })
}

/// Gathers the stores' lines into the output directory in corpus order, writes
/// `summary.json`, and removes the work directory.
pub fn gather(
    plan: &Plan,
    done: &[TaskStats],
    started: f64,
    steps: usize,
    quiet: bool,
) -> anyhow::Result<serde_json::Value> {
    let out = &plan.output;
    let inputs: Vec<PathBuf> = plan.stores.iter().map(|s| s.path.clone()).collect();
    let claimed = OutDir::claim_for(out, &inputs, "dedup", Some(true))?;
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
    let stages: Vec<serde_json::Value> = ["scatter", "groups", "components", "verify", "lists"]
        .iter()
        .map(|s| stage_summary(s, &tasks(s)))
        .collect();
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
        - started;
    let summary = serde_json::json!({
        "command": "dedup",
        "version": env!("CARGO_PKG_VERSION"),
        "stores": inputs,
        "documents": plan.documents,
        "new_documents": plan.new_documents(),
        "seconds": seconds,
        "clusters": {
            "keep": sum("lists", "keep"),
            "remove": sum("lists", "remove"),
            "excluded": sum("lists", "excluded"),
            "clusters_of_two_or_more": sum("lists", "clusters_of_two_or_more"),
        },
        "split": {
            "partitions": plan.partitions,
            "components_steps": steps,
            "components": sum("verify", "components"),
            "documents_in_components": sum("verify", "documents"),
            "keys": sum("scatter", "keys"),
            "forest_edges": sum("groups", "edges"),
            "memory_per_task": memory_per_task(plan, batch).into_iter().map(|(stage, bytes, formula)| serde_json::json!({
                "stage": stage, "bytes": bytes, "formula": formula,
            })).collect::<Vec<_>>(),
            "stages": stages,
        },
    });
    crate::base::atomic::write(
        &out.join("summary.json"),
        (serde_json::to_string_pretty(&summary)? + "\n").as_bytes(),
    )?;
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
