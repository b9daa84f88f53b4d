//! A split run's count of each site's blocks (own content): the scatter stage sends every
//! counted page's (host, block) keys by key range with its title and with its host, and the
//! pages per host; the groups stage decides its share of the keys by one box's rule
//! ([`crate::fingerprint::own::site_keys`]) and writes them here; the verify tasks and the
//! gather read every share back.

use std::path::PathBuf;

use super::plan::Plan;
use super::records;

/// Partition `p`'s keys of site blocks (one partition of (key, 0) pairs).
pub fn site_keys(plan: &Plan, p: u32) -> PathBuf {
    plan.work.join("groups").join(format!("site-p{p:05}.bin"))
}

/// The site blocks of the run (`--site-blocks aside` over stores with block keys), as the
/// groups stage decided them partition by partition; None when the run does not set them
/// aside.
pub fn site_blocks(plan: &Plan) -> anyhow::Result<Option<crate::fingerprint::own::SiteBlocks>> {
    if !plan.own {
        return Ok(None);
    }
    let mut aside = foldhash::HashSet::default();
    for p in 0..plan.partitions {
        let path = site_keys(plan, p);
        aside.extend(records::read_part(&path, 0)?.into_iter().map(|x| x[0]));
    }
    let hosts = host_pages(plan)?
        .values()
        .filter(|p| **p >= u64::from(crate::fingerprint::own::MIN_REPEAT))
        .count() as u64;
    Ok(Some(crate::fingerprint::own::SiteBlocks::from_keys(
        aside,
        hosts,
        plan.partitions,
        plan.verify_memory,
    )))
}

/// The pages each host counts (with a host and a title), over every store of the run, from
/// the scatter stage's files.
pub fn host_pages(plan: &Plan) -> anyhow::Result<std::collections::HashMap<u64, u64>> {
    let mut pages = std::collections::HashMap::new();
    for s in 0..plan.stores.len() {
        for [h, n] in records::read_part(&super::scatter::host_pages(plan, s), 0)? {
            *pages.entry(h).or_insert(0) += n;
        }
    }
    Ok(pages)
}

/// What the count of site blocks `own` found, for the summary, with the pages of `stores`
/// (the run's, in corpus order) that have site blocks counted here.
pub fn own_summary(
    own: Option<&crate::fingerprint::own::SiteBlocks>,
    stores: &crate::fingerprint::store::StoreSet,
) -> Option<crate::report::summary::OwnContentSummary> {
    let own = own?;
    let started = std::time::Instant::now();
    let pages = own.pages_with_site_blocks(stores);
    Some(crate::report::summary::OwnContentSummary {
        rule: crate::fingerprint::own::RULE.into(),
        hosts: own.stats.hosts,
        site_blocks: own.stats.site_blocks,
        pages_with_site_blocks: pages,
        passes: own.stats.passes,
        seconds: started.elapsed().as_secs_f64(),
    })
}
