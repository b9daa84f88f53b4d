//! Near-duplicates inside each topic of runs and qrels, on the documents' text (CopyCat's
//! showcase, its Table 4). Runs and qrels are small, so every pair of documents within a
//! topic's top k (runs) or within a topic (qrels) is compared directly, by the verification
//! measure (S3 >= 0.82 over word 8-grams by default), on texts read again from the store's
//! shards: no fingerprint threshold is involved.
//!
//! An entry is a near-duplicate when an entry ranked before it (runs: trec_eval's order; qrels:
//! file order) in its topic is a near-duplicate of it: the entries that deduplication would
//! drop. Ids not in the store are counted apart and compared with nothing.
//!
//! A topic is not compared pair by pair (4 000 judged documents are 8 M pairs): entries with
//! identical shingle sets are one class, compared once; classes are compared only where they
//! share a shingle of their prefixes (prefix filtering: a set's rarest shingles, as many as a
//! passing partner must share at least one of), then exactly. The result equals the all-pairs
//! comparison, which the tests check.

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
    /// Near-duplicate pairs of the topic beyond [`MAX_PAIRS`], counted and not listed.
    pub pairs_not_listed: u64,
}

/// Near-duplicate pairs listed per topic at most (a topic of n copies of one page has
/// n(n-1)/2 of them; the counts stay exact).
pub const MAX_PAIRS: usize = 100_000;

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
            let set = |i: usize| -> Option<&[u64]> {
                doc_of.get(&ids[i]).and_then(|d| sets.get(d)).map(|s| &**s)
            };
            let found: Vec<Option<&[u64]>> = (0..ids.len()).map(set).collect();
            let t = topic(ids, &found, spec);
            let mut row = TopicRow {
                file: *file,
                qid: qid.clone(),
                entries: ids.len() as u64,
                pairs_not_listed: t.not_listed,
                ..TopicRow::default()
            };
            for j in 0..ids.len() {
                let relevant = rel.as_ref().is_some_and(|r| r[j] > 0);
                row.relevant += u64::from(relevant);
                row.found += u64::from(found[j].is_some());
                row.near_duplicates += u64::from(t.dup[j]);
                row.relevant_near_duplicates += u64::from(t.dup[j] && relevant);
            }
            let pairs = t
                .pairs
                .into_iter()
                .map(|(i, j, score)| DupPair {
                    file: *file,
                    qid: qid.clone(),
                    first: ids[i].clone(),
                    second: ids[j].clone(),
                    score,
                })
                .collect();
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

/// What one topic's comparison found.
struct Topic {
    /// Whether each entry has a near-duplicate ranked before it.
    dup: Vec<bool>,
    /// The pairs `(i, j, score)`, i ranked before j, ordered by j then i (at most
    /// [`MAX_PAIRS`]).
    pairs: Vec<(usize, usize, f64)>,
    /// Pairs beyond the cap.
    not_listed: u64,
}

/// The fewest shingles a set of `x` must share with any set that passes `spec` with it (a
/// lower bound; 0 when every pair may pass).
fn min_common(x: usize, spec: &VerifySpec) -> usize {
    use crate::verify::Measure;
    let t = spec.min;
    if t <= 0.0 {
        return 0;
    }
    let x = x as f64;
    let bound = match spec.measure {
        // c >= t(x + y)/2 with c <= y gives y >= tx/(2 - t), so c >= tx/(2 - t).
        Measure::S3 => t * x / (2.0 - t),
        // The union holds x at least.
        Measure::Jaccard => t * x,
        // The partner may have a single shingle.
        Measure::Containment => t,
    };
    // Rounding down, with a margin for the floating point, keeps the bound a lower one.
    ((bound - 1e-9).ceil().max(1.0)) as usize
}

/// Compares the entries of one topic (`sets[j]`: entry j's shingles, None when not found).
fn topic(ids: &[String], sets: &[Option<&[u64]>], spec: &VerifySpec) -> Topic {
    let n = ids.len();
    // Classes: entries with one id, or with one non-empty shingle set, are identical texts.
    let mut class_of = vec![usize::MAX; n];
    let mut members: Vec<Vec<usize>> = Vec::new();
    {
        let mut by_id: HashMap<&str, usize> = HashMap::default();
        let mut by_set: HashMap<&[u64], usize> = HashMap::default();
        for j in 0..n {
            let Some(set) = sets[j] else { continue };
            let c = match (by_id.get(ids[j].as_str()), by_set.get(set)) {
                (Some(c), _) => *c,
                (None, Some(c)) if !set.is_empty() => *c,
                _ => {
                    members.push(Vec::new());
                    members.len() - 1
                }
            };
            by_id.entry(ids[j].as_str()).or_insert(c);
            if !set.is_empty() {
                by_set.entry(set).or_insert(c);
            }
            class_of[j] = c;
            members[c].push(j);
        }
    }
    let rep = |c: usize| sets[members[c][0]].expect("a class holds found entries");
    // Pairs of classes that pass, with their score, found by prefix filtering over the
    // classes in order of their first entry.
    let mut passing: Vec<(usize, usize, f64)> = Vec::new();
    let all_pairs = min_common(1, spec) == 0;
    if all_pairs {
        for b in 0..members.len() {
            for a in 0..b {
                let o = Overlap::of(rep(a), rep(b));
                if spec.passes(&o) {
                    passing.push((a, b, o.score(spec.measure)));
                }
            }
        }
    } else {
        // Shingles ordered by their frequency among the classes, rarest first.
        let mut freq: HashMap<u64, u32> = HashMap::default();
        for c in 0..members.len() {
            for s in rep(c) {
                *freq.entry(*s).or_default() += 1;
            }
        }
        let mut index: HashMap<u64, Vec<usize>> = HashMap::default();
        let mut seen = vec![usize::MAX; members.len()];
        let mut prefix: Vec<u64> = Vec::new();
        for b in 0..members.len() {
            let set = rep(b);
            prefix.clear();
            prefix.extend_from_slice(set);
            prefix.sort_unstable_by_key(|s| (freq[s], *s));
            let need = min_common(set.len(), spec);
            prefix.truncate((set.len() + 1).saturating_sub(need));
            for s in &prefix {
                for &a in index.get(s).map_or(&[][..], Vec::as_slice) {
                    if seen[a] == b {
                        continue;
                    }
                    seen[a] = b;
                    let o = Overlap::of(rep(a), set);
                    if spec.passes(&o) {
                        passing.push((a, b, o.score(spec.measure)));
                    }
                }
            }
            for s in &prefix {
                index.entry(*s).or_default().push(b);
            }
        }
    }
    // An entry is a near-duplicate when an earlier entry of its class, or of a passing class,
    // comes before it.
    let first = |c: usize| members[c][0];
    let mut earliest = vec![usize::MAX; members.len()];
    let mut neighbours: Vec<Vec<(usize, f64)>> = vec![Vec::new(); members.len()];
    for &(a, b, score) in &passing {
        earliest[a] = earliest[a].min(first(b));
        earliest[b] = earliest[b].min(first(a));
        neighbours[a].push((b, score));
        neighbours[b].push((a, score));
    }
    let mut dup = vec![false; n];
    for j in 0..n {
        let c = class_of[j];
        if c != usize::MAX {
            dup[j] = first(c) < j || earliest[c] < j;
        }
    }
    // The pairs, by j then i, up to the cap: each entry's earlier classmates (score 1) and the
    // earlier members of the classes that pass with its own.
    let mut pairs = Vec::new();
    let mut not_listed = 0u64;
    let mut row: Vec<(usize, f64)> = Vec::new();
    for j in 0..n {
        let c = class_of[j];
        if c == usize::MAX || !dup[j] {
            continue;
        }
        row.clear();
        row.extend(members[c].iter().take_while(|i| **i < j).map(|i| (*i, 1.0)));
        for &(other, score) in &neighbours[c] {
            row.extend(
                members[other]
                    .iter()
                    .take_while(|i| **i < j)
                    .map(|i| (*i, score)),
            );
        }
        row.sort_unstable_by_key(|p| p.0);
        for &(i, score) in &row {
            if pairs.len() < MAX_PAIRS {
                pairs.push((i, j, score));
            } else {
                not_listed += 1;
            }
        }
    }
    Topic {
        dup,
        pairs,
        not_listed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;
    use crate::verify::Measure;

    /// The all-pairs comparison the inspection replaced.
    fn reference(ids: &[String], sets: &[Option<&[u64]>], spec: &VerifySpec) -> Topic {
        let mut dup = vec![false; ids.len()];
        let mut pairs = Vec::new();
        for j in 0..ids.len() {
            let Some(b) = sets[j] else { continue };
            for i in 0..j {
                let Some(a) = sets[i] else { continue };
                let o = Overlap::of(a, b);
                if ids[i] == ids[j] || spec.passes(&o) {
                    let score = if ids[i] == ids[j] {
                        1.0
                    } else {
                        o.score(spec.measure)
                    };
                    pairs.push((i, j, score));
                    dup[j] = true;
                }
            }
        }
        Topic {
            dup,
            pairs,
            not_listed: 0,
        }
    }

    #[test]
    fn the_filtered_comparison_equals_all_pairs() {
        let mut rng = SplitMix64(11);
        for case in 0..300 {
            let n = 1 + rng.below(40) as usize;
            // A few base texts and variants of them, some repeated, some ids repeated.
            let bases: Vec<Vec<u64>> = (0..1 + rng.below(4))
                .map(|_| (0..rng.below(60)).map(|_| rng.below(200)).collect())
                .collect();
            let mut ids = Vec::new();
            let mut owned: Vec<Option<Vec<u64>>> = Vec::new();
            for _ in 0..n {
                let mut s = bases[rng.below(bases.len() as u64) as usize].clone();
                for _ in 0..rng.below(6) {
                    if !s.is_empty() && rng.below(2) == 0 {
                        s.remove(rng.below(s.len() as u64) as usize);
                    } else {
                        s.push(200 + rng.below(50));
                    }
                }
                s.sort_unstable();
                s.dedup();
                ids.push(format!("d{}", rng.below(n as u64 + 5)));
                owned.push((rng.below(8) != 0).then_some(s));
            }
            // An id names one document: its set is the same wherever it appears.
            for j in 0..n {
                if let Some(i) = (0..j).find(|i| ids[*i] == ids[j]) {
                    owned[j] = owned[i].clone();
                }
            }
            let sets: Vec<Option<&[u64]>> = owned.iter().map(|s| s.as_deref()).collect();
            for (measure, min) in [
                (Measure::S3, 0.82),
                (Measure::S3, 0.5),
                (Measure::Jaccard, 0.7),
                (Measure::Containment, 0.9),
                (Measure::S3, 0.0),
            ] {
                let spec = VerifySpec {
                    measure,
                    min,
                    ..VerifySpec::default()
                };
                let (got, want) = (topic(&ids, &sets, &spec), reference(&ids, &sets, &spec));
                assert_eq!(got.dup, want.dup, "case {case} {measure:?} {min}");
                assert_eq!(got.pairs, want.pairs, "case {case} {measure:?} {min}");
            }
        }
    }

    #[test]
    fn a_topic_of_copies_is_counted_exactly_and_its_pairs_capped() {
        let ids: Vec<String> = (0..600).map(|i| format!("d{i}")).collect();
        let set: Vec<u64> = (0..50).collect();
        let sets = vec![Some(&set[..]); 600];
        let t = topic(&ids, &sets, &VerifySpec::default());
        assert_eq!(t.dup.iter().filter(|d| **d).count(), 599);
        assert_eq!(t.pairs.len() as u64 + t.not_listed, 600 * 599 / 2);
        assert!(t.pairs.len() <= MAX_PAIRS);
    }
}
