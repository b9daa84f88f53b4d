//! The names of ids repeated in the corpus, found by the groups stage and named by
//! `StoreSet`'s own rule ([`qualify`]) over the whole corpus, stored per store for the verify
//! and lists tasks.

use std::path::PathBuf;

use super::plan::Plan;
use super::{groups, records, scatter};
use crate::fingerprint::store::set::qualify;

/// Store `s`'s names of repeated ids: `[(row, name)]`, JSON.
fn names_file(plan: &Plan, s: usize) -> PathBuf {
    plan.work.join("names").join(format!("s{s:05}.json"))
}

/// Names the documents whose id repeats in the corpus ([`qualify`], the rule of one store
/// set) from the groups stage's repeated ids, and writes each store's names.
pub fn names(plan: &Plan) -> anyhow::Result<()> {
    let mut groups: Vec<(String, Vec<u64>)> = Vec::new();
    for p in 0..plan.partitions {
        let path = groups::repeated(plan, p);
        let text = std::fs::read_to_string(&path).map_err(|e| crate::Error::io(&path, e))?;
        groups.extend(serde_json::from_str::<Vec<(String, Vec<u64>)>>(&text)?);
    }
    let mut suspects: Vec<(u64, String)> = Vec::new();
    for s in 0..plan.stores.len() {
        let path = scatter::suspects(plan, s);
        let text = std::fs::read_to_string(&path).map_err(|e| crate::Error::io(&path, e))?;
        suspects.extend(serde_json::from_str::<Vec<(u64, String)>>(&text)?);
    }
    let old = (plan.new_stores < plan.stores.len()).then(|| plan.new_documents());
    let named = qualify(&groups, old, &suspects);
    let mut per: Vec<Vec<(u32, String)>> = vec![Vec::new(); plan.stores.len()];
    for (d, name) in named {
        let (s, row) = plan.locate(d);
        per[s].push((row, name));
    }
    records::dir(plan.work.join("names"))?;
    for (s, mut n) in per.into_iter().enumerate() {
        n.sort_unstable();
        crate::base::atomic::write_unscanned(
            &names_file(plan, s),
            serde_json::to_string(&n)?.as_bytes(),
        )?;
    }
    Ok(())
}

/// Store `s`'s names of repeated ids (row, name).
pub fn load_names(plan: &Plan, s: usize) -> anyhow::Result<Vec<(u32, String)>> {
    let path = names_file(plan, s);
    let text = std::fs::read_to_string(&path).map_err(|e| crate::Error::io(&path, e))?;
    Ok(serde_json::from_str(&text)?)
}
