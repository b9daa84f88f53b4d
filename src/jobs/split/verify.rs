//! The verify stage: the components whose smallest document a partition owns, deduplicated
//! as one box deduplicates them, over the stores they touch, and their documents' lines.
//!
//! The components are taken in batches of at most [`BATCH_DOCUMENTS`] documents (a larger
//! component is a batch alone). A batch's documents are copied out of their stores
//! ([`Store::rows`]) into one store set in corpus order, with the corpus's names of repeated
//! ids, so a task holds its batch's documents and never a whole store's; the candidates among
//! them are one box's candidates among them, verified against the kept texts
//! ([`crate::cluster::leaders::remove`]), and the stars and lines are one box's
//! ([`crate::jobs::outputs::assign`], [`crate::report::lists::doc_lines`]). Lines are written
//! per store of the new collection: records of the document's row in its store, the four
//! lines' lengths, and the lines.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;

use super::components;
use super::names::load_names;
use super::plan::{Plan, TaskStats, BATCH_DOCUMENTS};
use super::records;
use crate::base::atomic::AtomicFile;
use crate::cluster::leaders::{LeaderRules, LeaderStats};
use crate::cluster::policy::KeepPolicy;
use crate::fingerprint::store::{flags, Store, StoreSet};
use crate::jobs::steps::{generate_among, Generator};
use crate::report::lists::{doc_lines, Listed};
use crate::verify::OwnContent;

/// Partition `p`'s lines of store `s`.
pub fn lines(plan: &Plan, p: u32, s: usize) -> PathBuf {
    plan.work
        .join("verify")
        .join(format!("s{s:05}"))
        .join(format!("p{p:05}.bin"))
}

/// Verifies partition `p`'s components, found in step `step`'s edges.
pub fn run(plan: &Plan, p: u32, step: u32, stats: &mut TaskStats) -> anyhow::Result<()> {
    let edges = components::input(plan, step, p)?;
    let mut comps = components::stars(&edges);
    drop(edges);
    let mut spec = plan.spec()?;
    if let Some(v) = spec.verify.as_mut().filter(|v| v.own_content) {
        v.spec.own = super::own::site_blocks(plan)?.map(|s| OwnContent(std::sync::Arc::new(s)));
    }
    let v = spec.verify.as_ref().expect("planned verified");
    // Batches of whole components, in the order of their smallest documents.
    comps.sort_unstable_by_key(|c| c[0]);
    let mut batches: Vec<Vec<Vec<u64>>> = Vec::new();
    let mut filled = 0u64;
    for c in comps {
        if batches.is_empty() || filled + c.len() as u64 > BATCH_DOCUMENTS {
            batches.push(Vec::new());
            filled = 0;
        }
        filled += c.len() as u64;
        batches.last_mut().expect("a batch").push(c);
    }
    let mut opened: HashMap<usize, Store> = HashMap::new();
    let mut named: HashMap<usize, HashMap<u32, String>> = HashMap::new();
    let mut out: HashMap<usize, AtomicFile> = HashMap::new();
    let mut leaders = LeaderStats::default();
    let (mut documents, mut largest_batch, mut lines_out) = (0u64, 0u64, 0u64);
    let mut components_n = 0u64;
    for comps in batches {
        // The batch's documents, store by store, ascending.
        let mut per: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
        for d in comps.iter().flatten() {
            let (s, row) = plan.locate(*d);
            per.entry(s).or_default().push(row);
        }
        let mut subs = Vec::with_capacity(per.len());
        for (s, rows) in per.iter_mut() {
            rows.sort_unstable();
            rows.dedup();
            let store = match opened.entry(*s) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(plan.open_store(*s, false)?),
            };
            subs.push(store.rows(rows)?);
        }
        let idx: Vec<usize> = per.keys().copied().collect();
        let paths: Vec<PathBuf> = idx.iter().map(|s| plan.stores[*s].path.clone()).collect();
        let new = idx.iter().filter(|s| **s < plan.new_stores).count();
        let mut stores = StoreSet::new(subs)?.against(new);
        largest_batch = largest_batch.max(stores.len() as u64);
        documents += stores.len() as u64;
        components_n += comps.len() as u64;
        // The corpus's names of repeated ids, in this set's numbering.
        let mut names = HashMap::new();
        for (k, (s, rows)) in per.iter().enumerate() {
            if let Entry::Vacant(e) = named.entry(*s) {
                e.insert(load_names(plan, *s)?.into_iter().collect());
            }
            for (i, row) in rows.iter().enumerate() {
                if let Some(name) = named[s].get(row) {
                    names.insert(stores.base(k) + i as u32, name.clone());
                }
            }
        }
        stores.set_names(names);
        let joinable: Vec<u32> = (0..stores.len() as u32)
            .filter(|d| stores.flags(*d) & (flags::SHORT | flags::NO_FEATURES) == 0)
            .collect();
        let protect = stores.old_from();
        let rank = crate::jobs::dedup::store_rank(&paths, &spec.prefer);
        let policy = KeepPolicy::new(&stores, &rank, spec.keep_by.as_ref().map(|k| k.1));
        let own = v.spec.own.as_ref().map(|o| &*o.0);
        let generated = generate_among(
            &stores,
            &joinable,
            Generator::Minhash,
            spec.canonical,
            own,
            true,
        )?;
        let rules = LeaderRules {
            tau: spec.at.tau,
            tau128: spec.at.tau128,
            rule: spec.representative,
            protect,
            max_leaders: v.leaders.expect("planned linear"),
        };
        let (scored, st) =
            crate::cluster::leaders::remove(&stores, generated.graph, &v.spec, &rules, &policy)?;
        leaders.add(&st);
        let g = scored.verified(&v.spec);
        let scores = scored.verified_scores(&v.spec);
        let removal = crate::jobs::outputs::Removal {
            at: spec.at,
            rule: spec.representative,
            policy: &policy,
            remove_by: spec.remove_by,
            protect,
        };
        let a = crate::jobs::outputs::assign(&stores, &g, &removal, None);
        let listed = Listed {
            clusters: &a.clusters,
            kept: &a.kept,
            partner: &a.partner,
            against: protect,
        };
        let score = |d: u32| a.score(d, Some(&scores), spec.remove_by);
        let limit = protect.unwrap_or(stores.len() as u32);
        let rows: Vec<&Vec<u32>> = per.values().collect();
        for d in 0..limit {
            let (k, i) = stores.position(d);
            let (s, row) = (idx[k], rows[k][i]);
            let (ls, _) = doc_lines(&stores, &listed, score, d)?;
            let f = match out.entry(s) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => {
                    let path = lines(plan, p, s);
                    records::dir(path.parent().expect("a directory").into())?;
                    e.insert(AtomicFile::create_unscanned(&path)?)
                }
            };
            let mut head = Vec::with_capacity(20);
            head.extend_from_slice(&row.to_le_bytes());
            for l in &ls {
                head.extend_from_slice(&(l.len() as u32).to_le_bytes());
            }
            f.write_all(&head)
                .map_err(|e| crate::Error::io(f.path(), e))?;
            for l in &ls {
                f.write_all(l).map_err(|e| crate::Error::io(f.path(), e))?;
            }
            lines_out += 1;
        }
    }
    for (_, f) in out {
        f.commit()?;
    }
    stats
        .counts
        .insert("components".into(), components_n.into());
    stats.counts.insert("documents".into(), documents.into());
    stats
        .counts
        .insert("largest_batch".into(), largest_batch.into());
    stats
        .counts
        .insert("documents_listed".into(), lines_out.into());
    stats
        .counts
        .insert("leaders".into(), serde_json::to_value(leaders)?);
    Ok(())
}

/// Reads a file of lines records: (row, the four lines).
pub fn read_lines(path: &std::path::Path) -> anyhow::Result<Vec<(u32, [Vec<u8>; 4])>> {
    let bytes = std::fs::read(path).map_err(|e| crate::Error::io(path, e))?;
    let mut out = Vec::new();
    let mut at = 0usize;
    let bad = |at: usize| {
        crate::Error::Config(format!(
            "{}: offset {at}: a truncated record (a damaged file of a split run)",
            path.display()
        ))
    };
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    while at < bytes.len() {
        let row = word(at).ok_or_else(|| bad(at))?;
        let mut lens = [0usize; 4];
        for (i, l) in lens.iter_mut().enumerate() {
            *l = word(at + 4 + 4 * i).ok_or_else(|| bad(at))? as usize;
        }
        let mut pos = at + 20;
        let mut ls: [Vec<u8>; 4] = Default::default();
        for (i, l) in lens.iter().enumerate() {
            ls[i] = bytes.get(pos..pos + l).ok_or_else(|| bad(at))?.to_vec();
            pos += l;
        }
        out.push((row, ls));
        at = pos;
    }
    Ok(out)
}
