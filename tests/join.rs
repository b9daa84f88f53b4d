//! The Hamming join against brute force, on planted near-duplicates, at every tau in 0..=8.

use neardup::join::plan::{cheapest_exact, pigeonhole, random, random_recall};
use neardup::join::reference::brute_force;

use crate::common::{cpu_join as join, nd, planted, stderr, zeros};

/// Random fingerprints with planted clusters: copies at exact distances 0..=10 from a base,
/// a giant group of identical values, and near-identical variants.
#[test]
fn exact_plans_equal_brute_force_for_every_tau() {
    let (fp, fp128) = planted(2000, 1);
    let docs: Vec<u32> = (0..fp.len() as u32).collect();
    for tau in 0..=8u32 {
        let want = brute_force(&fp, &fp128, &docs, tau, None);
        assert!(
            want.iter().any(|p| u32::from(p.d64) == tau),
            "nothing planted at tau {tau}"
        );
        for plan in [
            cheapest_exact(docs.len(), tau),
            pigeonhole(tau as usize + 1, tau),
        ] {
            let (got, stats) = join(&fp, &fp128, &docs, &plan, tau, None);
            assert_eq!(got, want, "tau {tau}, {}", plan.name);
            assert_eq!(stats.pairs as usize, want.len());
        }
    }
    // The published shapes.
    for (m, tau) in [(4, 3), (8, 6)] {
        let want = brute_force(&fp, &zeros(&fp), &docs, tau, None);
        assert_eq!(
            join(&fp, &zeros(&fp), &docs, &pigeonhole(m, tau), tau, None).0,
            want
        );
    }
}

#[test]
fn the_128_bit_filter_equals_brute_force() {
    let (fp, fp128) = planted(500, 2);
    let docs: Vec<u32> = (0..fp.len() as u32).collect();
    for tau128 in [0, 3, 6, 10] {
        let want = brute_force(&fp, &fp128, &docs, 6, Some(tau128));
        let got = join(
            &fp,
            &fp128,
            &docs,
            &cheapest_exact(docs.len(), 6),
            6,
            Some(tau128),
        )
        .0;
        assert_eq!(got, want, "tau128 {tau128}");
    }
}

#[test]
fn edge_inputs() {
    let plan = cheapest_exact(10, 3);
    assert!(join(&[], &[], &[], &plan, 3, None).0.is_empty());
    assert!(join(&[5], &[[0; 2]], &[0], &plan, 3, None).0.is_empty());
    // Only the listed documents take part.
    let fp = [1u64, 1, 1, 3];
    let got = join(&fp, &zeros(&fp), &[0, 2, 3], &plan, 3, None).0;
    let pairs: Vec<(u32, u32, u8)> = got.iter().map(|p| (p.a, p.b, p.d64)).collect();
    assert_eq!(pairs, [(0, 2, 0), (0, 3, 1), (2, 3, 1)]);
}

#[test]
fn random_plans_report_each_pair_once_and_meet_their_recall() {
    let (fp, _) = planted(3000, 3);
    let docs: Vec<u32> = (0..fp.len() as u32).collect();
    let tau = 6;
    let truth = brute_force(&fp, &zeros(&fp), &docs, tau, None);
    let (mut found, mut expected) = (0.0, 0.0);
    for seed in 0..10 {
        let plan = random(16, 20, seed, tau);
        let got = join(&fp, &zeros(&fp), &docs, &plan, tau, None).0;
        let mut dedup = got.clone();
        dedup.dedup();
        assert_eq!(dedup.len(), got.len(), "a pair reported twice");
        assert!(
            got.iter().all(|p| truth.binary_search(p).is_ok()),
            "a false pair"
        );
        found += got.len() as f64;
        expected += truth
            .iter()
            .map(|p| random_recall(16, 20, u32::from(p.d64)))
            .sum::<f64>();
    }
    // Measured recall over seeds is within a few percent of the theoretical expectation.
    let ratio = found / expected;
    assert!((0.95..=1.05).contains(&ratio), "found / expected = {ratio}");
}

#[test]
fn join_command_matches_brute_force_on_the_sample_and_crosses_collections() {
    use neardup::fingerprint::store::Store;
    let dir = tempfile::tempdir().unwrap();
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample");
    let s0 = dir.path().join("s0");
    let s1 = dir.path().join("s1");
    let shard = |i: usize| sample.join(format!("synth-0000{i}.warc.gz"));
    nd("fingerprint -q {} -o {}", &[&shard(0), &s0]).ok();
    nd("fingerprint -q {} -o {}", &[&shard(1), &s1]).ok();
    let (a, b) = (Store::open(&s0).unwrap(), Store::open(&s1).unwrap());
    let ids: Vec<String> = (0..a.len())
        .map(|i| a.id(i).to_string())
        .chain((0..b.len()).map(|i| b.id(i).to_string()))
        .collect();
    let fps: Vec<u64> = a.fp64().iter().chain(b.fp64()).copied().collect();
    let parse = |tsv: &str| {
        let mut rows: Vec<String> = tsv.lines().skip(1).map(str::to_string).collect();
        rows.sort();
        rows
    };
    for tau in [0u32, 3, 6] {
        let tsv = nd("join -q {} {} --tau {} -o -", &[&s0, &s1, &tau.to_string()]).ok();
        let mut want = Vec::new();
        let mut cross = Vec::new();
        for i in 0..fps.len() {
            for j in i + 1..fps.len() {
                let d = (fps[i] ^ fps[j]).count_ones();
                if d <= tau {
                    let (x, y) = if ids[i] <= ids[j] {
                        (&ids[i], &ids[j])
                    } else {
                        (&ids[j], &ids[i])
                    };
                    let row = format!("{x}\t{y}\t{d}");
                    // --against: pairs within the new stores and across, never within
                    // the older ones (as dedup --against forms them).
                    if i < a.len() || j < a.len() {
                        cross.push(row.clone());
                    }
                    want.push(row);
                }
            }
        }
        want.sort();
        cross.sort();
        let strip = |rows: Vec<String>| -> Vec<String> {
            rows.iter()
                .map(|r| r.rsplit_once('\t').unwrap().0.to_string())
                .collect()
        };
        assert!(!want.is_empty() || tau == 0);
        assert_eq!(strip(parse(&tsv)), want, "tau {tau}");
        // A plan of more blocks than the planner's, asked for, finds the same pairs.
        let blocks = (tau + 3).to_string();
        let forced = nd(
            "join {} {} --tau {} --blocks {} -o -",
            &[&s0, &s1, &tau.to_string(), &blocks],
        )
        .ok();
        assert_eq!(parse(&forced), parse(&tsv), "tau {tau}, {blocks} blocks");
        let tsv = nd(
            "join -q {} --against {} --tau {} -o -",
            &[&s0, &s1, &tau.to_string()],
        )
        .ok();
        assert_eq!(strip(parse(&tsv)), cross, "cross tau {tau}");
    }
    // Plans that cannot be exact, or are too large, are refused with the reason.
    for (blocks, why) in [("3", "needs 4 to 64 blocks"), ("40", "more than 5000")] {
        let o = nd("join -q {} --tau 3 --blocks {} -o -", &[&s0, &blocks]).output();
        assert!(!o.status.success());
        assert!(stderr(&o).contains(why), "{}", stderr(&o));
    }
}

#[test]
fn collapse_groups_documents_like_a_plain_sort_when_split_across_tasks() {
    use neardup::join::collapse::collapse;
    // Enough documents for the parallel path, with runs of identical 64-bit values whose
    // 128-bit halves sometimes differ.
    let mut rng = neardup::base::rng::SplitMix64(31);
    let n = 60_000;
    let mut fp = Vec::with_capacity(n);
    let mut fp128 = Vec::with_capacity(n);
    for i in 0..n {
        let v = if i > 0 && rng.below(4) == 0 {
            fp[rng.below(i as u64) as usize]
        } else {
            rng.next_u64()
        };
        fp.push(v);
        fp128.push([v, rng.below(3)]);
    }
    let docs: Vec<u32> = (0..n as u32).filter(|d| d % 11 != 0).collect();
    let mut scratch = Vec::new();
    let c = collapse(&fp, &fp128, docs.clone(), &mut scratch);
    assert!(
        scratch.len() >= 2 * docs.len(),
        "the sort buffer is handed on"
    );
    let mut want = docs.clone();
    want.sort_unstable_by_key(|d| (fp[*d as usize], fp128[*d as usize], *d));
    assert_eq!(c.members, want);
    let mut values: Vec<u64> = docs.iter().map(|d| fp[*d as usize]).collect();
    values.sort_unstable();
    values.dedup();
    assert_eq!(c.values, values);
    // Units: maximal runs of equal (fp64, fp128); value_units maps each value to its units.
    let key = |d: u32| (fp[d as usize], fp128[d as usize]);
    let mut starts = vec![];
    for i in 0..want.len() {
        if i == 0 || key(want[i]) != key(want[i - 1]) {
            starts.push(i as u32);
        }
    }
    starts.push(want.len() as u32);
    assert_eq!(c.starts, starts);
    for (x, v) in c.values.iter().enumerate() {
        for u in c.value_units[x]..c.value_units[x + 1] {
            assert_eq!(fp[c.members[c.starts[u as usize] as usize] as usize], *v);
        }
    }
    assert_eq!(*c.value_units.last().unwrap() as usize, c.starts.len() - 1);
}

#[test]
fn bench_reports_the_pairs_that_join_finds_on_the_same_fingerprints() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    nd("-q synth --docs 20000 --seed 5 -o {}", &[&store]).ok();
    let tsv = nd("-q join {} --tau 4 --backend cpu -o -", &[&store]).ok();
    let pairs = tsv.lines().count() - 1;
    assert!(pairs > 100, "{pairs}");
    let report = nd(
        "-q bench --docs 20000 --data-seed 5 --tau 4 --backend cpu --bound 1e9",
        &[],
    )
    .ok();
    assert!(report.contains(&format!(" {pairs} pairs (")), "{report}");
    assert!(report.contains("% of it"), "{report}");
    assert!(
        report.contains("rerun: neardup bench --docs 20000 --tau 4 --method exact --backend cpu"),
        "{report}"
    );
}

#[test]
fn graph_pairs_cover_every_unit_across_blocks() {
    use neardup::join::graph::{Edge, PairGraph};
    // More units than one block of the parallel unit scan, most of them single documents.
    let mut rng = neardup::base::rng::SplitMix64(8);
    let mut starts = vec![0u32];
    while starts.len() < 200_000 {
        let k = [1, 1, 1, 1, 1, 2, 3][rng.below(7) as usize];
        starts.push(starts.last().unwrap() + k);
    }
    let docs = *starts.last().unwrap();
    let edges = vec![Edge {
        u: 3,
        v: 150_000,
        d64: 2,
        d128: 5,
        pad: [0; 2],
    }];
    let g = PairGraph {
        docs,
        members: (0..docs).collect(),
        starts,
        edges,
    };
    let want: Vec<u32> = (0..g.units() as u32)
        .filter(|u| g.unit(*u).len() > 1)
        .collect();
    assert!(
        want.iter().any(|u| *u > 1 << 17),
        "units past the first blocks"
    );
    assert_eq!(g.multi_units(), want);
    let mut all = Vec::new();
    g.for_each_pair(|p| all.push(p));
    all.sort_unstable();
    assert_eq!(g.pairs(), all);
    assert_eq!(g.pair_count(), all.len() as u64);
    let odd = g.pairs_where(|a, b| (a ^ b) & 1 == 1);
    all.retain(|p| (p.a ^ p.b) & 1 == 1);
    assert_eq!(odd, all);
}

/// Tables that share key bits are joined from one order by the shared bits (a family): skewed
/// values, all alike in their top 40 bits, put runs of thousands of members (split across
/// threads) inside such families, beside short runs; the pairs are still brute force's.
#[test]
fn skewed_values_in_tables_that_share_key_bits_equal_brute_force() {
    let mut rng = neardup::base::rng::SplitMix64(11);
    let top = rng.next_u64() & !((1u64 << 24) - 1);
    let mut fp: Vec<u64> = (0..3000).map(|_| top | rng.next_u64() >> 40).collect();
    // And some spread values, with near copies of them.
    for i in 0..1000 {
        let v = rng.next_u64();
        fp.push(v);
        fp.push(v ^ (1 << (i % 64)) ^ (1 << ((i * 7) % 64)));
    }
    let fp128 = zeros(&fp);
    let docs: Vec<u32> = (0..fp.len() as u32).collect();
    for (m, tau) in [(8, 6), (9, 6), (6, 4)] {
        let plan = pigeonhole(m, tau);
        let want = brute_force(&fp, &fp128, &docs, tau, None);
        let (got, stats) = join(&fp, &fp128, &docs, &plan, tau, None);
        assert!(stats.largest_run > 1024, "no long run at m {m}");
        assert_eq!(got, want, "{}", plan.name);
    }
}
