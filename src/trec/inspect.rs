//! Near-duplicates inside each topic of runs and qrels, on the documents' text (CopyCat's
//! showcase, its Table 4). Runs and qrels are small, so every pair of documents within a
//! topic's top k (runs) or within a topic (qrels) is compared directly, by the verification
//! measure (S3 >= 0.82 over word 8-grams by default), on texts read again from the store's
//! shards: no fingerprint threshold is involved.
//!
//! An entry is a near-duplicate when an entry ranked before it (runs: trec_eval's order; qrels:
//! file order) in its topic is a near-duplicate of it: the entries that deduplication would
//! drop. Ids not in the store are counted apart and compared with nothing.

use foldhash::{HashMap, HashSet};

use rayon::prelude::*;

use super::format::{ranked, topics, Kind, Parsed, Qrel, RunEntry};
use crate::fingerprint::store::StoreSet;
use crate::verify::{shingle_sets, Overlap, VerifySpec, VerifyStats};
use crate::Result;

/// One file to inspect.
#[derive(Clone, Debug)]
pub enum Input {
    /// A run.
    Run(Parsed<RunEntry>),
    /// Qrels.
    Qrels(Parsed<Qrel>),
}

/// One topic of one file.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TopicRow {
    /// Index of the file among the inputs.
    pub file: usize,
    /// Topic.
    pub qid: String,
    /// Entries inspected (the top k of a run, every record of qrels).
    pub entries: u64,
    /// Of those, found in the store.
    pub found: u64,
    /// Entries with a near-duplicate ranked before them.
    pub near_duplicates: u64,
    /// Qrels only: relevant records (grade above 0), and those that are near-duplicates.
    pub relevant: u64,
    /// See `relevant`.
    pub relevant_near_duplicates: u64,
}

/// A near-duplicate pair found within a topic.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DupPair {
    /// Index of the file.
    pub file: usize,
    /// Topic.
    pub qid: String,
    /// The entry ranked first.
    pub first: String,
    /// The entry ranked after it.
    pub second: String,
    /// The measure's value.
    pub score: f64,
}

/// The inspection of a set of files.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// One row per file and topic.
    pub topics: Vec<TopicRow>,
    /// Near-duplicate pairs.
    pub pairs: Vec<DupPair>,
    /// Each file's kind.
    pub kinds: Vec<Kind>,
    /// What reading the texts took.
    pub read: VerifyStats,
}

/// A topic to inspect: qid, ids in rank order, grades for qrels.
type TopicList = (String, Vec<String>, Option<Vec<i32>>);

/// The topics of `input` to inspect.
fn topic_lists(input: &Input, top: usize) -> Vec<TopicList> {
    match input {
        Input::Run(p) => topics(&p.entries, |e| &e.qid)
            .into_iter()
            .map(|(q, t)| {
                let ids = ranked(&p.entries, &t)
                    .into_iter()
                    .take(top)
                    .map(|i| p.entries[i].docno.clone())
                    .collect();
                (q, ids, None)
            })
            .collect(),
        Input::Qrels(p) => topics(&p.entries, |e| &e.qid)
            .into_iter()
            .map(|(q, t)| {
                let ids = t.iter().map(|i| p.entries[*i].docno.clone()).collect();
                let rel = t.iter().map(|i| p.entries[*i].rel).collect();
                (q, ids, Some(rel))
            })
            .collect(),
    }
}

/// Documents of `stores` by id, for the ids in `wanted` (one pass over the store's ids).
pub fn find_ids(stores: &StoreSet, wanted: &HashSet<&str>) -> HashMap<String, u32> {
    (0..stores.len() as u32)
        .into_par_iter()
        .filter_map(|d| {
            let id = stores.id(d);
            wanted.contains(id).then(|| (id.to_string(), d))
        })
        .collect()
}

/// Inspects `inputs`: the top `top` entries of each run topic, every record of qrels.
pub fn inspect(
    stores: &StoreSet,
    inputs: &[Input],
    top: usize,
    spec: &VerifySpec,
) -> Result<Report> {
    let lists: Vec<_> = inputs.iter().map(|i| topic_lists(i, top)).collect();
    let wanted: HashSet<&str> = lists
        .iter()
        .flatten()
        .flat_map(|(_, ids, _)| ids.iter().map(String::as_str))
        .collect();
    let doc_of = find_ids(stores, &wanted);
    let mut docs: Vec<u32> = doc_of.values().copied().collect();
    docs.sort_unstable();
    let (sets, read) = shingle_sets(stores, &docs, spec)?;
    let work: Vec<(usize, &TopicList)> = lists
        .iter()
        .enumerate()
        .flat_map(|(f, l)| l.iter().map(move |t| (f, t)))
        .collect();
    let done: Vec<(TopicRow, Vec<DupPair>)> = work
        .par_iter()
        .map(|(file, (qid, ids, rel))| {
            let set = |i: usize| doc_of.get(&ids[i]).and_then(|d| sets.get(d));
            let mut row = TopicRow {
                file: *file,
                qid: qid.clone(),
                entries: ids.len() as u64,
                ..TopicRow::default()
            };
            let mut pairs = Vec::new();
            for j in 0..ids.len() {
                let relevant = rel.as_ref().is_some_and(|r| r[j] > 0);
                row.relevant += u64::from(relevant);
                let Some(b) = set(j) else { continue };
                row.found += 1;
                let mut dup = false;
                for i in 0..j {
                    let Some(a) = set(i) else { continue };
                    let o = Overlap::of(a, b);
                    if ids[i] == ids[j] || spec.passes(&o) {
                        let score = if ids[i] == ids[j] {
                            1.0
                        } else {
                            o.score(spec.measure)
                        };
                        pairs.push(DupPair {
                            file: *file,
                            qid: qid.clone(),
                            first: ids[i].clone(),
                            second: ids[j].clone(),
                            score,
                        });
                        dup = true;
                    }
                }
                row.near_duplicates += u64::from(dup);
                row.relevant_near_duplicates += u64::from(dup && relevant);
            }
            (row, pairs)
        })
        .collect();
    let mut report = Report {
        kinds: inputs
            .iter()
            .map(|i| match i {
                Input::Run(_) => Kind::Run,
                Input::Qrels(_) => Kind::Qrels,
            })
            .collect(),
        read,
        ..Report::default()
    };
    for (row, pairs) in done {
        report.topics.push(row);
        report.pairs.extend(pairs);
    }
    Ok(report)
}
