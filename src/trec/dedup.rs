//! Runs and qrels after deduplication, by Chuweb21D's rules (section 5.2), each document mapped
//! to the document that stands for it ([`super::clusters`]: its star's kept document by
//! default):
//! - a run, per topic: only the highest-ranked entry of each group stays, with the group's
//!   document in its place (`chuweb21d`); or every entry stays where it is, and one ranked
//!   below a near-duplicate is marked (`mark`, the novelty principle of Bernstein and Zobel:
//!   its docno becomes `DOCNO#dup`, which no qrels judges, so it counts as not relevant);
//! - qrels, per topic: one record per group, the group's document with the highest relevance
//!   of the group's records.
//!
//! Ids not in the corpus are their own group: kept, and counted. Entries are ranked as
//! trec_eval ranks them (score, then docno, descending) and written with dense ranks 1..n and
//! their scores.

use foldhash::{HashMap, HashSet, HashSetExt};

use super::format::{ranked, topics, Qrel, RunEntry};

/// How a run is deduplicated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rule {
    /// The highest-ranked entry of each group stays, replaced by the group's document; the
    /// others go.
    #[default]
    Chuweb21d,
    /// Every entry stays; those ranked below a near-duplicate are marked `#dup`.
    Mark,
}

/// Suffix of a marked docno.
pub const MARK: &str = "#dup";

/// What deduplicating a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RunStats {
    /// Topics.
    pub topics: u64,
    /// Entries read.
    pub entries: u64,
    /// Entries written.
    pub written: u64,
    /// Entries removed (chuweb21d) or marked (mark): ranked below a member of their group.
    pub duplicates: u64,
    /// Entries whose docno was replaced by their group's document (chuweb21d).
    pub replaced: u64,
    /// Entries repeating a docno already in their topic (counted among the duplicates too).
    pub repeated: u64,
    /// Entries whose id is not in the corpus (kept as their own group).
    pub unknown: u64,
}

/// Deduplicates a run; `group` gives the document standing for an id (None: not in the
/// corpus).
pub fn run(
    entries: &[RunEntry],
    group: impl Fn(&str) -> Option<String>,
    rule: Rule,
) -> (Vec<RunEntry>, RunStats) {
    let mut out = Vec::with_capacity(entries.len());
    let mut st = RunStats {
        entries: entries.len() as u64,
        ..RunStats::default()
    };
    for (_, topic) in topics(entries, |e| &e.qid) {
        st.topics += 1;
        let (mut seen, mut docs) = (HashSet::new(), HashSet::new());
        let mut rank = 0;
        for i in ranked(entries, &topic) {
            let e = &entries[i];
            if !docs.insert(e.docno.as_str()) {
                st.repeated += 1;
            }
            let g = group(&e.docno);
            if g.is_none() {
                st.unknown += 1;
            }
            let key = g.unwrap_or_else(|| e.docno.clone());
            let first = seen.insert(key.clone());
            if !first {
                st.duplicates += 1;
            }
            let docno = match (rule, first) {
                (Rule::Chuweb21d, false) => continue,
                (Rule::Chuweb21d, true) => {
                    if key != e.docno {
                        st.replaced += 1;
                    }
                    key
                }
                (Rule::Mark, true) => e.docno.clone(),
                (Rule::Mark, false) => format!("{}{MARK}", e.docno),
            };
            rank += 1;
            out.push(RunEntry {
                docno,
                rank,
                ..e.clone()
            });
        }
    }
    st.written = out.len() as u64;
    (out, st)
}

/// What deduplicating qrels did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct QrelsStats {
    /// Topics.
    pub topics: u64,
    /// Records read.
    pub records: u64,
    /// Records written (one per group and topic).
    pub written: u64,
    /// Records merged into another of their group.
    pub merged: u64,
    /// Relevant records (grade above 0) merged into another of their group.
    pub merged_relevant: u64,
    /// Records whose id is not in the corpus (kept as their own group).
    pub unknown: u64,
}

/// Deduplicates qrels; `group` as for [`run`]. Groups are written in the order of their first
/// record in the topic.
pub fn qrels(records: &[Qrel], group: impl Fn(&str) -> Option<String>) -> (Vec<Qrel>, QrelsStats) {
    let mut out: Vec<Qrel> = Vec::new();
    let mut st = QrelsStats {
        records: records.len() as u64,
        ..QrelsStats::default()
    };
    for (_, topic) in topics(records, |q| &q.qid) {
        st.topics += 1;
        let mut at = HashMap::default();
        for i in topic {
            let q = &records[i];
            let g = group(&q.docno);
            if g.is_none() {
                st.unknown += 1;
            }
            let key = g.unwrap_or_else(|| q.docno.clone());
            match at.get(&key) {
                Some(&k) => {
                    let o: &mut Qrel = &mut out[k];
                    o.rel = o.rel.max(q.rel);
                    st.merged += 1;
                    if q.rel > 0 {
                        st.merged_relevant += 1;
                    }
                }
                None => {
                    at.insert(key.clone(), out.len());
                    out.push(Qrel {
                        docno: key,
                        ..q.clone()
                    });
                }
            }
        }
    }
    st.written = out.len() as u64;
    (out, st)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;
    use std::collections::HashMap;

    fn random_groups(rng: &mut SplitMix64, n: usize) -> HashMap<String, String> {
        // Documents d0..dn; a tenth not in the corpus; the rest in groups of 1 to 3.
        let mut of = HashMap::new();
        let mut i = 0;
        while i < n {
            let size = 1 + rng.below(3) as usize;
            let head = format!("d{i}");
            for j in i..(i + size).min(n) {
                if rng.below(10) != 0 {
                    of.insert(format!("d{j}"), head.clone());
                }
            }
            i += size;
        }
        of
    }

    /// Chuweb21D's rules restated over all pairs: an entry stays when no entry ranked above it
    /// in its topic has the same group.
    fn run_reference(
        entries: &[RunEntry],
        of: &HashMap<String, String>,
        rule: Rule,
    ) -> Vec<(String, String, i64)> {
        let g = |d: &str| of.get(d).cloned().unwrap_or(d.to_string());
        let mut qids: Vec<String> = Vec::new();
        for e in entries {
            if !qids.contains(&e.qid) {
                qids.push(e.qid.clone());
            }
        }
        let mut out = Vec::new();
        for q in qids {
            let mut t: Vec<&RunEntry> = entries.iter().filter(|e| e.qid == q).collect();
            t.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.docno.cmp(&a.docno)));
            let mut rank = 0;
            for (i, e) in t.iter().enumerate() {
                let dup = t[..i].iter().any(|x| g(&x.docno) == g(&e.docno));
                let docno = match (rule, dup) {
                    (Rule::Chuweb21d, true) => continue,
                    (Rule::Chuweb21d, false) => g(&e.docno),
                    (Rule::Mark, false) => e.docno.clone(),
                    (Rule::Mark, true) => format!("{}#dup", e.docno),
                };
                rank += 1;
                out.push((q.clone(), docno, rank));
            }
        }
        out
    }

    fn random_run(rng: &mut SplitMix64, n: usize) -> Vec<RunEntry> {
        (0..rng.below(40))
            .map(|_| RunEntry {
                qid: format!("q{}", rng.below(3)),
                docno: format!("d{}", rng.below(n as u64)),
                rank: 0,
                score: rng.below(12) as f64 / 2.0,
                tag: "t".into(),
            })
            .collect()
    }

    #[test]
    fn runs_equal_the_pairwise_reference() {
        let mut rng = SplitMix64(5);
        for round in 0..300 {
            let n = 1 + rng.below(30) as usize;
            let of = random_groups(&mut rng, n);
            let entries = random_run(&mut rng, n);
            for rule in [Rule::Chuweb21d, Rule::Mark] {
                let (out, st) = run(&entries, |d| of.get(d).cloned(), rule);
                let got: Vec<(String, String, i64)> = out
                    .iter()
                    .map(|e| (e.qid.clone(), e.docno.clone(), e.rank))
                    .collect();
                assert_eq!(got, run_reference(&entries, &of, rule), "round {round}");
                assert_eq!(
                    st.written + st.duplicates * u64::from(rule == Rule::Chuweb21d),
                    st.entries
                );
                let unknown = entries
                    .iter()
                    .filter(|e| !of.contains_key(&e.docno))
                    .count();
                assert_eq!(st.unknown, unknown as u64);
            }
        }
    }

    #[test]
    fn qrels_equal_the_groupwise_reference() {
        let mut rng = SplitMix64(9);
        for round in 0..300 {
            let n = 1 + rng.below(30) as usize;
            let of = random_groups(&mut rng, n);
            let records: Vec<Qrel> = (0..rng.below(40))
                .map(|_| Qrel {
                    qid: format!("q{}", rng.below(3)),
                    iter: "0".into(),
                    docno: format!("d{}", rng.below(n as u64)),
                    rel: rng.below(4) as i32 - 1,
                })
                .collect();
            let (out, st) = qrels(&records, |d| of.get(d).cloned());
            let g = |d: &str| of.get(d).cloned().unwrap_or(d.to_string());
            // Reference: per (topic, group), the maximum grade; one record each.
            let mut want: HashMap<(String, String), i32> = HashMap::new();
            for r in &records {
                let e = want.entry((r.qid.clone(), g(&r.docno))).or_insert(i32::MIN);
                *e = (*e).max(r.rel);
            }
            let got: HashMap<(String, String), i32> = out
                .iter()
                .map(|q| ((q.qid.clone(), q.docno.clone()), q.rel))
                .collect();
            assert_eq!(got, want, "round {round}");
            assert_eq!(out.len(), want.len(), "round {round}: one record per group");
            assert_eq!(st.written + st.merged, st.records);
        }
    }

    #[test]
    fn chuweb21d_example() {
        // The paper's example: a1 b2 c2 c1 d1 b1 becomes a1 b1 c1 d1.
        let of: HashMap<String, String> = [
            ("a1", "a1"),
            ("b1", "b1"),
            ("b2", "b1"),
            ("c1", "c1"),
            ("c2", "c1"),
            ("d1", "d1"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        let entries: Vec<RunEntry> = ["a1", "b2", "c2", "c1", "d1", "b1"]
            .iter()
            .enumerate()
            .map(|(i, d)| RunEntry {
                qid: "1".into(),
                docno: d.to_string(),
                rank: i as i64 + 1,
                score: 10.0 - i as f64,
                tag: "t".into(),
            })
            .collect();
        let (out, _) = run(&entries, |d| of.get(d).cloned(), Rule::Chuweb21d);
        let docs: Vec<&str> = out.iter().map(|e| e.docno.as_str()).collect();
        assert_eq!(docs, ["a1", "b1", "c1", "d1"]);
        let q: Vec<Qrel> = [("a1", 2), ("a2", 3), ("a3", 1)]
            .iter()
            .map(|(d, r)| Qrel {
                qid: "1".into(),
                iter: "0".into(),
                docno: d.to_string(),
                rel: *r,
            })
            .collect();
        let (out, _) = qrels(&q, |d| {
            Some(if d.starts_with('a') {
                "a1".into()
            } else {
                d.into()
            })
        });
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].docno.as_str(), out[0].rel), ("a1", 3));
    }
}
