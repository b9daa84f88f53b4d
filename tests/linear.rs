//! `dedup`'s default verification against the kept texts of each run (`cluster::leaders`)
//! equals the all-pairs path (`--all-pairs`: every candidate pair listed and verified, then
//! the greedy star removal) on the lists, for every rule it serves and any thread count, on
//! random corpora shaped like crawls and on a real sample; and a group of near-duplicates
//! costs comparisons linear in its size.

use std::fmt::Write as _;
use std::path::Path;

use crate::common::{nd, neardup, stderr};
use neardup::base::rng::SplitMix64;
use neardup::report::summary::Summary;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Between `min` and `min + spread - 1` random words.
fn words(rng: &mut SplitMix64, min: usize, spread: u64) -> Vec<String> {
    let n = min + rng.below(spread) as usize;
    (0..n).map(|_| format!("w{}", rng.below(4000))).collect()
}

/// A crawl-shaped corpus as JSON lines: families of near-duplicates (exact copies, edits of a
/// few words to a few dozen, so some pass S3 >= 0.82 and some do not, appended paragraphs),
/// template sites whose pages share most of their words, and unrelated pages; ids random
/// (some sharing a prefix longer than 16 bytes), lines shuffled.
fn corpus(seed: u64) -> String {
    let mut rng = SplitMix64(seed);
    let mut docs: Vec<String> = Vec::new();
    for _ in 0..12 {
        let base = words(&mut rng, 60, 300);
        for _ in 0..1 + rng.below(25) {
            let mut t = base.clone();
            match rng.below(4) {
                0 => {}
                1 | 2 => {
                    let edits = 1 + rng.below(1 + t.len() as u64 / 8);
                    for _ in 0..edits {
                        let i = rng.below(t.len() as u64) as usize;
                        t[i] = format!("e{}", rng.below(100_000));
                    }
                }
                _ => t.extend(words(&mut rng, 5, 60)),
            }
            docs.push(t.join(" "));
        }
    }
    for _ in 0..3 {
        let boiler = words(&mut rng, 150, 1);
        for _ in 0..10 + rng.below(30) {
            let mut t = boiler.clone();
            t.extend(words(&mut rng, 10, 40));
            docs.push(t.join(" "));
        }
    }
    for _ in 0..60 {
        docs.push(words(&mut rng, 30, 200).join(" "));
    }
    // Shuffle, then ids unrelated to the order.
    rng.shuffle(&mut docs);
    let mut out = String::new();
    for (i, t) in docs.iter().enumerate() {
        let id = if rng.below(3) == 0 {
            format!(
                "http://example.org/a/long/shared/path/{:08x}",
                rng.below(1 << 30)
            )
        } else {
            format!("{:06x}-{i}", rng.below(1 << 24))
        };
        writeln!(out, "{{\"id\":\"{id}\",\"text\":\"{t}\"}}").unwrap();
    }
    out
}

/// Runs `dedup` on `inputs` into `out` with `extra`, returning the lists and the summary.
fn dedup(inputs: &[&Path], out: &Path, extra: &[&str]) -> (String, String, Summary) {
    let mut args: Vec<&str> = vec!["dedup"];
    args.extend(inputs.iter().map(|p| s(p)));
    args.extend(["-o", s(out), "-q"]);
    args.extend(extra);
    let o = neardup(&args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let summary: Summary = serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    (
        read(&out.join("remove.tsv")),
        read(&out.join("keep.txt")),
        summary,
    )
}

/// The lists of the default pass equal the all-pairs reference for every rule it serves, 1
/// and 3 threads, on `inputs`; returns how many documents the reference removed, summed.
fn equal_to_all_pairs(inputs: &[&Path], dir: &Path, extra: &[&str]) -> usize {
    let mut removed = 0;
    for rule in ["lowest-id", "first", "longest"] {
        let r = dir.join(format!("ref-{rule}"));
        let mut a = vec!["--representative", rule, "--all-pairs", "--threads", "1"];
        a.extend(extra);
        let (want_remove, want_keep, _) = dedup(inputs, &r, &a);
        removed += want_remove.lines().count() - 1;
        for threads in ["1", "3"] {
            let o = dir.join(format!("lin-{rule}-{threads}"));
            let mut a = vec!["--representative", rule, "--threads", threads];
            a.extend(extra);
            let (remove, keep, summary) = dedup(inputs, &o, &a);
            let l = summary
                .verification
                .as_ref()
                .and_then(|v| v.leaders)
                .expect("the default verification is the linear one");
            assert_eq!(l.capped_groups, 0, "no run reaches the bound here");
            assert_eq!(remove, want_remove, "{rule}, {threads} threads: remove.tsv");
            assert_eq!(keep, want_keep, "{rule}, {threads} threads: keep.txt");
        }
    }
    removed
}

/// A corpus of the scenarios.
#[derive(Clone, Copy, Debug)]
enum Corpus {
    /// [`corpus`] with this seed, as JSON lines.
    Random(u64),
    /// The sample crawl shipped in tests/data.
    Sample,
    /// `synth-crawl --shape web` of this many pages (template sites, canonical links).
    Web(u32),
}

/// The scenarios the two paths must agree on: each corpus with each option set runs through
/// the all-pairs reference and the default pass (every rule, 1 and 3 threads), and the
/// reference removes at least the number given (or the scenario would tell nothing).
const SCENARIOS: &[(Corpus, &[&str], usize)] = &[
    (Corpus::Random(1), &[], 50),
    (Corpus::Random(2), &[], 50),
    (Corpus::Random(3), &[], 50),
    // A 64-bit threshold filters the pairs the same way on both paths.
    (Corpus::Random(1), &["--tau", "12"], 1),
    (Corpus::Random(2), &["--tau", "12"], 1),
    (Corpus::Random(3), &["--tau", "12"], 1),
    (Corpus::Sample, &[], 10),
    (Corpus::Sample, &["--tau", "6"], 1),
    // Canonical classes: groups on the default pass, listed pairs on the reference.
    (Corpus::Web(1500), &["--canonical"], 30),
    (Corpus::Web(1500), &[], 30),
];

/// A store of `c` under `dir`, fingerprinted with band keys.
fn store_of(c: Corpus, dir: &Path) -> std::path::PathBuf {
    let store = dir.join(format!("{c:?}.store"));
    if store.exists() {
        return store;
    }
    let input = match c {
        Corpus::Random(seed) => {
            let p = dir.join(format!("c{seed}.jsonl"));
            std::fs::write(&p, corpus(seed)).unwrap();
            p
        }
        Corpus::Sample => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample"),
        Corpus::Web(docs) => {
            let p = dir.join(format!("web{docs}"));
            nd(
                "-q synth-crawl --shape web --docs {} -o {}",
                &[&docs.to_string(), &p],
            )
            .ok();
            p
        }
    };
    nd("fingerprint {} -o {} --minhash -q", &[&input, &store]).ok();
    store
}

/// Runs the scenarios whose corpus `pick` admits.
fn run_scenarios(pick: impl Fn(Corpus) -> bool) {
    let dir = tempfile::tempdir().unwrap();
    for (i, (c, options, least)) in SCENARIOS.iter().enumerate() {
        if !pick(*c) {
            continue;
        }
        let store = store_of(*c, dir.path());
        let runs = dir.path().join(format!("scenario{i}"));
        std::fs::create_dir(&runs).unwrap();
        let removed = equal_to_all_pairs(&[&store], &runs, options);
        assert!(
            removed >= *least,
            "{c:?} {options:?}: {removed} removed, {least} expected at least"
        );
    }
}

#[test]
fn linear_removal_equals_the_all_pairs_reference_on_random_corpora() {
    run_scenarios(|c| matches!(c, Corpus::Random(_)));
}

#[test]
fn linear_removal_equals_the_all_pairs_reference_on_a_real_sample_and_a_web_crawl() {
    run_scenarios(|c| !matches!(c, Corpus::Random(_)));
}

#[test]
fn linear_removal_equals_the_all_pairs_reference_against_an_old_collection() {
    let dir = tempfile::tempdir().unwrap();
    // The random corpus's documents as the old ones, their copies under other ids as new.
    let old_crawl = dir.path().join("old.jsonl");
    std::fs::write(&old_crawl, corpus(9)).unwrap();
    let new_crawl = dir.path().join("new.jsonl");
    std::fs::write(&new_crawl, corpus(9).replace("\"id\":\"", "\"id\":\"n")).unwrap();
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    nd("fingerprint {} -o {} --minhash -q", &[&old_crawl, &old]).ok();
    nd("fingerprint {} -o {} --minhash -q", &[&new_crawl, &new]).ok();
    let against = dir.path().join("against");
    std::fs::create_dir(&against).unwrap();
    let removed = equal_to_all_pairs(&[&new], &against, &["--against", s(&old)]);
    assert!(
        removed > 100,
        "new copies of old documents are removed ({removed})"
    );
}

#[test]
fn a_group_of_near_duplicates_costs_comparisons_linear_in_its_size() {
    // n copies of one text and n one-word variants of it.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64(5);
    let base = words(&mut rng, 150, 1);
    let n = 1500;
    let mut out = String::new();
    for i in 0..n {
        writeln!(
            out,
            "{{\"id\":\"ex{i:06}\",\"text\":\"{}\"}}",
            base.join(" ")
        )
        .unwrap();
    }
    for i in 0..n {
        let mut t = base.clone();
        t[rng.below(150) as usize] = format!("u{i}");
        writeln!(out, "{{\"id\":\"nr{i:06}\",\"text\":\"{}\"}}", t.join(" ")).unwrap();
    }
    let crawl = dir.path().join("g.jsonl");
    std::fs::write(&crawl, out).unwrap();
    let (remove, _, summary) = dedup(&[&crawl], &dir.path().join("o"), &[]);
    assert_eq!(remove.lines().count() - 1, 2 * n - 1, "one document kept");
    let v = summary.verification.unwrap();
    let l = v.leaders.unwrap();
    assert_eq!(l.leaders, 1);
    assert!(
        l.comparisons <= n as u64,
        "{} comparisons for a group of {}",
        l.comparisons,
        2 * n
    );
    // pairs.bin holds one edge per removed text, not every pair.
    let pairs = std::fs::metadata(dir.path().join("o/pairs.bin"))
        .unwrap()
        .len();
    assert!(pairs < 100 * n as u64, "pairs.bin is {pairs} bytes");
}

#[test]
fn a_bound_on_leaders_is_counted_and_the_lists_stay_stars() {
    let dir = tempfile::tempdir().unwrap();
    let crawl = dir.path().join("c.jsonl");
    std::fs::write(&crawl, corpus(4)).unwrap();
    let (remove, keep, summary) = dedup(&[&crawl], &dir.path().join("o"), &["--max-leaders", "1"]);
    let l = summary.verification.unwrap().leaders.unwrap();
    assert_eq!(l.max_leaders, 1);
    assert!(l.capped_groups > 0 && l.leaders_not_listed >= l.capped_groups);
    assert!(l.capped_visits > 0);
    // Every removed document names a kept one, with a score that passes.
    let kept: std::collections::HashSet<&str> = keep.lines().collect();
    for line in remove.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        assert!(kept.contains(f[1]), "{line}: names a kept document");
        assert!(f[3].parse::<f64>().unwrap() >= 0.82, "{line}");
    }
}

/// A bound under which no text was kept after meeting a kept text left unlisted changes no
/// text's fate: the same documents are kept as without the bound. Where the kept documents
/// differ, such texts are counted.
#[test]
fn a_bound_that_kept_no_text_after_an_unlisted_leader_changes_no_fate() {
    let dir = tempfile::tempdir().unwrap();
    let (mut unchanged, mut at_risk, mut differ) = (0, 0, 0);
    for seed in 1..=6 {
        let crawl = dir.path().join(format!("c{seed}.jsonl"));
        std::fs::write(&crawl, corpus(seed)).unwrap();
        let free = dir.path().join(format!("free{seed}"));
        let (_, want_keep, _) = dedup(&[&crawl], &free, &["--max-leaders", "0"]);
        for cap in ["1", "2", "4", "8", "16"] {
            let o = dir.path().join(format!("b{seed}-{cap}"));
            let (_, keep, summary) = dedup(&[&crawl], &o, &["--max-leaders", cap]);
            let l = summary.verification.unwrap().leaders.unwrap();
            if l.kept_after_full == 0 {
                unchanged += usize::from(l.capped_groups > 0);
                assert_eq!(keep, want_keep, "seed {seed}, --max-leaders {cap}: {l:?}");
            } else {
                at_risk += 1;
            }
            if keep != want_keep {
                differ += 1;
                assert!(l.kept_after_full > 0, "seed {seed}, --max-leaders {cap}");
            }
        }
    }
    // Bounds reached with no fate changed, and bounds that put texts at risk, both occur.
    assert!(
        unchanged > 0 && at_risk > 0,
        "{unchanged} {at_risk} {differ}"
    );
    eprintln!("bounds reached with nothing at risk {unchanged}, at risk {at_risk}, lists changed {differ}");
}

#[test]
fn linear_removal_equals_the_all_pairs_reference_where_texts_have_many_leaders() {
    // Pages of one template that share band keys but do not pass S3 lead each (a later page
    // is compared with many leaders, several at a time), and copies of them with a word
    // changed find their page among those leaders, mostly not the first.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64(9);
    let boiler = words(&mut rng, 200, 1);
    let pages: Vec<Vec<String>> = (0..28)
        .map(|_| {
            let mut t = boiler.clone();
            t.extend(words(&mut rng, 45, 15));
            t
        })
        .collect();
    let mut out = String::new();
    for (i, t) in pages.iter().enumerate() {
        writeln!(out, "{{\"id\":\"p{i:03}\",\"text\":\"{}\"}}", t.join(" ")).unwrap();
    }
    for i in 0..12 {
        let mut t = pages[rng.below(pages.len() as u64) as usize].clone();
        let at = rng.below(t.len() as u64) as usize;
        t[at] = format!("c{i}");
        writeln!(out, "{{\"id\":\"q{i:03}\",\"text\":\"{}\"}}", t.join(" ")).unwrap();
    }
    let crawl = dir.path().join("t.jsonl");
    std::fs::write(&crawl, out).unwrap();
    let removed = equal_to_all_pairs(&[&crawl], dir.path(), &[]);
    assert!(
        removed >= 3 * 12,
        "the copies are removed under each rule: {removed}"
    );
    let (_, _, summary) = dedup(&[&crawl], &dir.path().join("n"), &[]);
    let l = summary.verification.unwrap().leaders.unwrap();
    assert!(
        l.comparisons > 5 * l.leaders,
        "texts are compared with many leaders: {l:?}"
    );
}
