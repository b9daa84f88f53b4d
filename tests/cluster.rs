//! Clustering against simple references: the lock-free union-find against the sequential one
//! over many seeds and thread counts, sweeps against clustering brute-force pairs at each tau,
//! representatives, and the pairs file.

use neardup::cluster::{clusters_at, sweep, Axis, Clusters, Dsu, Level, Representative, SeqDsu};
use neardup::join::graph::PairGraph;
use neardup::join::pairs_file::{self, JoinParams};
use neardup::join::plan::cheapest_exact;
use neardup::join::reference::brute_force;
use neardup::join::Pair;
use proptest::prelude::*;

use crate::common::{cpu_graph, planted};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The same partition, labelled by smallest member, and the same number of merges,
    /// whatever the thread count and the order of the pairs.
    #[test]
    fn lock_free_union_find_equals_the_sequential_one(
        n in 1u32..3000,
        raw in prop::collection::vec((any::<u32>(), any::<u32>()), 0..6000),
        threads in 1usize..9,
        reverse in any::<bool>(),
    ) {
        let mut pairs: Vec<(u32, u32)> = raw.iter().map(|(a, b)| (a % n, b % n)).collect();
        let mut seq = SeqDsu::new(n as usize);
        let seq_merges = pairs.iter().filter(|(a, b)| seq.union(*a, *b)).count() as u64;
        if reverse {
            pairs.reverse();
        }
        let dsu = Dsu::new(n as usize);
        let merges = pool(threads).install(|| dsu.union_all(&pairs));
        prop_assert_eq!(merges, seq_merges);
        let labels = dsu.labels();
        prop_assert_eq!(&labels, &seq.labels());
        let sizes = dsu.sizes();
        for (x, l) in labels.iter().enumerate() {
            prop_assert!(*l as usize <= x);
            prop_assert!(sizes[*l as usize] > 0);
        }
        prop_assert_eq!(sizes.iter().map(|s| *s as usize).sum::<usize>(), n as usize);
    }
}

/// Statistics of clustering `pairs` directly: kept, largest, pairs, in clusters.
fn reference_stats(n: usize, pairs: &[(u32, u32)]) -> (u64, u64, u64, u64) {
    let mut d = SeqDsu::new(n);
    for (a, b) in pairs {
        d.union(*a, *b);
    }
    let labels = d.labels();
    let mut size = vec![0u64; n];
    for l in &labels {
        size[*l as usize] += 1;
    }
    let kept = size.iter().filter(|s| **s > 0).count() as u64;
    let max = size.iter().copied().max().unwrap_or(0);
    let inside = size.iter().filter(|s| **s > 1).sum();
    (kept, max, pairs.len() as u64, inside)
}

/// Checks a sweep row against clustering `pairs` directly; returns the documents kept.
fn assert_level(l: &Level, n: usize, pairs: &[Pair]) -> u64 {
    let links: Vec<(u32, u32)> = pairs.iter().map(|p| (p.a, p.b)).collect();
    let (kept, max, n_pairs, inside) = reference_stats(n, &links);
    assert_eq!(
        (l.docs_kept, l.max_cluster, l.pairs, l.docs_in_clusters),
        (kept, max, n_pairs, inside),
        "threshold {}",
        l.tau
    );
    // The histogram of cluster sizes, counted again from the labels.
    let mut d = SeqDsu::new(n);
    for (a, b) in &links {
        d.union(*a, *b);
    }
    let mut size = vec![0u64; n];
    for x in d.labels() {
        size[x as usize] += 1;
    }
    let mut hist = std::collections::BTreeMap::new();
    for s in size.into_iter().filter(|s| *s > 0) {
        *hist.entry(s).or_insert(0u64) += 1;
    }
    let hist: Vec<(u64, u64)> = hist.into_iter().collect();
    assert_eq!(l.size_histogram, hist, "sizes at threshold {}", l.tau);
    kept
}

fn graph(fp: &[u64], fp128: &[[u64; 2]], docs: &[u32], tau: u32, tau128: Option<u32>) -> PairGraph {
    cpu_graph(
        fp,
        fp128,
        docs,
        &cheapest_exact(docs.len(), tau),
        tau,
        tau128,
    )
    .0
}

#[test]
fn a_64_bit_sweep_equals_clustering_the_pairs_of_each_tau() {
    let (fp, fp128) = planted(1500, 11);
    // Every tenth document is excluded from the join: it must stay a kept singleton.
    let docs: Vec<u32> = (0..fp.len() as u32).filter(|d| d % 10 != 3).collect();
    let g = graph(&fp, &fp128, &docs, 8, None);
    let (levels, _) = sweep(&g, Axis::D64, 8);
    assert_eq!(levels.len(), 9);
    for l in &levels {
        let within = brute_force(&fp, &fp128, &docs, l.tau, None);
        let kept = assert_level(l, fp.len(), &within);
        assert_eq!(l.kept_ratio, kept as f64 / fp.len() as f64);
        let at = within.iter().filter(|p| u32::from(p.d64) == l.tau).count() as u64;
        assert_eq!(l.pairs_at, at, "pairs at {}", l.tau);
        let clusters: u64 = l.size_histogram.iter().map(|(_, c)| c).sum();
        assert_eq!(clusters, kept);
    }
    assert!(levels.windows(2).all(|w| w[1].docs_kept <= w[0].docs_kept));
    assert!(levels[8].max_cluster > levels[0].max_cluster);
}

#[test]
fn a_128_bit_sweep_equals_clustering_the_filtered_pairs() {
    let (fp, fp128) = planted(800, 12);
    let docs: Vec<u32> = (0..fp.len() as u32).collect();
    let g = graph(&fp, &fp128, &docs, 5, Some(12));
    let (levels, _) = sweep(&g, Axis::D128 { tau64: 5 }, 12);
    for l in &levels {
        assert_level(
            l,
            fp.len(),
            &brute_force(&fp, &fp128, &docs, 5, Some(l.tau)),
        );
    }
}

#[test]
fn clusters_at_one_tau_equal_the_sweep_and_representatives_follow_the_rule() {
    let (fp, fp128) = planted(600, 13);
    let docs: Vec<u32> = (0..fp.len() as u32).collect();
    let g = graph(&fp, &fp128, &docs, 6, None);
    // Ids sort in reverse of corpus order, and lengths repeat (ties go to the first member), so
    // the three rules pick different members.
    let ids: Vec<String> = (0..fp.len())
        .map(|i| format!("d{:06}", fp.len() - i))
        .collect();
    let len = |d: u32| d % 7;
    let degree = neardup::cluster::star::degrees(&g, |e| e.d64 <= 4);
    let deg = |d: u32| degree[d as usize];
    let (levels, _) = sweep(&g, Axis::D64, 6);
    let mut seen = Vec::new();
    for rule in [
        Representative::LowestId,
        Representative::First,
        Representative::Longest,
        Representative::Central,
    ] {
        let mut per_threads = Vec::new();
        for threads in [1, 3] {
            let c = pool(threads).install(|| {
                let dsu = clusters_at(&g, |e| e.d64 <= 4);
                Clusters::new(
                    &dsu,
                    rule,
                    &neardup::cluster::policy::KeepPolicy::NONE,
                    |d| ids[d as usize].as_str(),
                    len,
                    deg,
                )
            });
            per_threads.push(c);
        }
        assert_eq!(
            per_threads[0], per_threads[1],
            "{rule:?} depends on threads"
        );
        let c = &per_threads[0];
        assert_eq!(c.count() as u64, levels[4].docs_kept);
        for d in 0..c.len() as u32 {
            let members: Vec<u32> = (0..c.len() as u32)
                .filter(|m| c.root[*m as usize] == c.root[d as usize])
                .collect();
            if members.len() < 2 {
                assert_eq!(c.rep[d as usize], d);
                continue;
            }
            let want = match rule {
                Representative::First => members[0],
                Representative::LowestId => {
                    *members.iter().min_by_key(|m| &ids[**m as usize]).unwrap()
                }
                Representative::Longest => *members
                    .iter()
                    .max_by_key(|m| (len(**m), std::cmp::Reverse(**m)))
                    .unwrap(),
                Representative::Central => *members
                    .iter()
                    .max_by_key(|m| (deg(**m), std::cmp::Reverse(**m)))
                    .unwrap(),
            };
            assert_eq!(c.rep[d as usize], want, "{rule:?}, document {d}");
        }
        seen.push(c.rep.clone());
    }
    assert_ne!(seen[0], seen[1]);
    assert_ne!(seen[1], seen[2]);
    assert_ne!(seen[2], seen[3]);
}

#[test]
fn pairs_files_round_trip_and_damage_is_reported_not_panicked() {
    let (fp, fp128) = planted(300, 14);
    let docs: Vec<u32> = (0..fp.len() as u32).collect();
    let g = graph(&fp, &fp128, &docs, 6, Some(20));
    assert!(!g.edges.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pairs.bin");
    let p = JoinParams {
        tau: 6,
        tau128: Some(20),
        corpus_digest: 42,
    };
    pairs_file::write(&path, &g, p).unwrap();
    let (back, q) = pairs_file::read(&path).unwrap();
    assert_eq!((back, q), (g.clone(), p));
    let bytes = std::fs::read(&path).unwrap();
    let bad = dir.path().join("bad.bin");
    let mut cases: Vec<(Vec<u8>, &str)> = vec![
        (bytes[..bytes.len() - 5].to_vec(), "bytes"),
        (bytes[..10].to_vec(), "too short"),
        ([b"XXXXXXXX", &bytes[8..]].concat(), "magic"),
    ];
    let mut member = bytes.clone();
    member[64..68].copy_from_slice(&u32::MAX.to_le_bytes());
    cases.push((member, "member"));
    let mut edge = bytes.clone();
    let at = bytes.len() - 12;
    edge[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    cases.push((edge, "edge"));
    for (data, what) in cases {
        std::fs::write(&bad, &data).unwrap();
        let e = pairs_file::read(&bad).unwrap_err().to_string();
        assert!(e.contains("bad.bin") && e.contains(what), "{what}: {e}");
    }
}

#[test]
fn expanded_pairs_count_what_the_units_stand_for() {
    let (fp, _) = planted(400, 15);
    // Three 128-bit variants of every 64-bit value.
    let fp128: Vec<[u64; 2]> = fp
        .iter()
        .enumerate()
        .map(|(i, v)| [*v, (i % 3) as u64])
        .collect();
    let docs: Vec<u32> = (0..fp.len() as u32).collect();
    let g = graph(&fp, &fp128, &docs, 5, None);
    let want = brute_force(&fp, &fp128, &docs, 5, None);
    assert_eq!(g.pairs(), want);
    assert_eq!(g.pair_count(), want.len() as u64);
    // The giant group of 300 identical 64-bit values is three units, not 300 singletons.
    assert!(g.units() < docs.len() - 250, "{} units", g.units());
}
