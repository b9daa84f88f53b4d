//! The groups stage: one partition's share of every store's keys, sorted; the documents of
//! each run of equal keys are joined, and the partition's joined documents leave as a
//! spanning forest (each joined document with the smallest of its tree), the first input of
//! the components stage. The partition's id hashes are sorted too, and the ids that repeat
//! listed with their documents.

use std::collections::HashMap;
use std::path::PathBuf;

use rayon::prelude::*;

use super::plan::{Plan, TaskStats};
use super::records::{self, read_parts};
use super::{components, scatter};
use crate::base::dsu::SeqDsu;
use crate::fingerprint::store::Store;

/// Partition `p`'s repeated ids: `[(id, [documents])]`, JSON.
pub fn repeated(plan: &Plan, p: u32) -> PathBuf {
    plan.work.join("groups").join(format!("ids-p{p:05}.json"))
}

/// With own content: which of partition `p`'s (host, block) keys are their site's (written
/// for the verify tasks and the gather), and the keys of the lines that are not, with their
/// documents, as keys of the forest (pages sharing an own line are one box's candidates).
fn own_lines(plan: &Plan, p: u32, stats: &mut TaskStats) -> anyhow::Result<Vec<[u64; 2]>> {
    let stores = plan.stores.len();
    let paths =
        |f: fn(&Plan, usize) -> PathBuf| (0..stores).map(|s| f(plan, s)).collect::<Vec<_>>();
    let titles = read_parts(&paths(scatter::block_titles), p)?;
    let hosts = read_parts(&paths(scatter::block_hosts), p)?;
    stats.counts.insert("blocks".into(), titles.len().into());
    let aside = crate::fingerprint::own::site_keys(titles, hosts, &super::own::host_pages(plan)?);
    stats
        .counts
        .insert("site_blocks".into(), aside.len().into());
    records::dir(plan.work.join("groups"))?;
    let mut out = records::Buckets::create(1, &super::own::site_keys(plan, p))?;
    for k in &aside {
        out.push(0, [*k, 0])?;
    }
    out.commit()?;
    let mut lines = read_parts(&paths(scatter::block_docs), p)?;
    lines.retain(|x| aside.binary_search(&x[0]).is_err());
    for x in &mut lines {
        x[0] = records::mix(scatter::OWN_LINE, x[0]);
    }
    Ok(lines)
}

/// The spanning forest of the documents that share a key in `keyed` (pairs of key and
/// document), as edges (the smallest document of a tree, another of its documents).
pub fn forest(mut keyed: Vec<[u64; 2]>) -> Vec<[u64; 2]> {
    keyed.par_sort_unstable();
    let mut edges: Vec<[u64; 2]> = Vec::new();
    for run in keyed.chunk_by(|a, b| a[0] == b[0]).filter(|r| r.len() > 1) {
        edges.extend(run[1..].iter().map(|x| [run[0][1], x[1]]));
    }
    drop(keyed);
    // A group's runs repeat over the bands: the same edges, joined once.
    edges.par_sort_unstable();
    edges.dedup();
    let mut docs: Vec<u64> = edges.iter().flatten().copied().collect();
    docs.par_sort_unstable();
    docs.dedup();
    let at = |d: u64| docs.binary_search(&d).expect("a joined document") as u32;
    let mut dsu = SeqDsu::new(docs.len());
    for e in &edges {
        dsu.union(at(e[0]), at(e[1]));
    }
    drop(edges);
    let label = dsu.labels();
    // Documents ascending: the first of each tree met is its smallest.
    let mut smallest: HashMap<u32, u64> = HashMap::new();
    let mut out = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        let s = *smallest.entry(label[i]).or_insert(*d);
        if s != *d {
            out.push([s, *d]);
        }
    }
    out
}

/// Groups partition `p`.
pub fn run(plan: &Plan, p: u32, stats: &mut TaskStats) -> anyhow::Result<()> {
    let stores = plan.stores.len();
    let mut keyed = read_parts(
        &(0..stores)
            .map(|s| scatter::keys(plan, s))
            .collect::<Vec<_>>(),
        p,
    )?;
    stats.counts.insert("keys".into(), keyed.len().into());
    if plan.own {
        keyed.extend(own_lines(plan, p, stats)?);
    }
    let edges = forest(keyed);
    stats.counts.insert("edges".into(), edges.len().into());
    components::send(plan, 0, p, edges.iter().copied())?;
    drop(edges);
    // Ids: equal hashes compared as strings, the stores opened only where hashes repeat.
    let mut hashed = read_parts(
        &(0..stores)
            .map(|s| scatter::ids(plan, s))
            .collect::<Vec<_>>(),
        p,
    )?;
    hashed.par_sort_unstable();
    let mut open: HashMap<usize, Store> = HashMap::new();
    let mut groups: Vec<(String, Vec<u64>)> = Vec::new();
    for run in hashed.chunk_by(|a, b| a[0] == b[0]).filter(|r| r.len() > 1) {
        let mut named: Vec<(String, u64)> = Vec::with_capacity(run.len());
        for x in run {
            let (s, i) = plan.locate(x[1]);
            let store = match open.entry(s) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(plan.open_store(s, false)?)
                }
            };
            named.push((store.id(i as usize).to_string(), x[1]));
        }
        named.sort_unstable();
        for g in named.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
            groups.push((g[0].0.clone(), g.iter().map(|x| x.1).collect()));
        }
    }
    stats
        .counts
        .insert("repeated_ids".into(), groups.len().into());
    records::dir(plan.work.join("groups"))?;
    crate::base::atomic::write_unscanned(
        &repeated(plan, p),
        serde_json::to_string(&groups)?.as_bytes(),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forest_joins_what_shares_a_key() {
        // Keys 7: {5, 1, 9}; key 8: {9, 4}; key 3: {2} alone; key 6: {10, 11}.
        let keyed = vec![
            [7, 5],
            [8, 9],
            [7, 1],
            [3, 2],
            [8, 4],
            [7, 9],
            [6, 11],
            [6, 10],
        ];
        let mut f = forest(keyed);
        f.sort_unstable();
        assert_eq!(f, vec![[1, 4], [1, 5], [1, 9], [10, 11]]);
    }
}
