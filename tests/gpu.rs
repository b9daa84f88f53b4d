//! The GPU backend against the CPU backend, pair for pair, and the kernel against its CPU
//! reference. Runs on any adapter, software ones (Mesa's lavapipe in CI) included. Without an
//! adapter the tests say so and pass, unless `NEARDUP_REQUIRE_GPU=1`, when they fail.

use neardup::gpu::resident::ResidentConfig;
use neardup::gpu::{Gpu, Selection};
use neardup::join::gpu::{join_graph, GpuConfig, GpuStats};
use neardup::join::graph::PairGraph;
use neardup::join::plan::Plan;
use neardup::join::plan::{cheapest_exact, pigeonhole, random};
use neardup::join::{JoinInput, JoinSpec, JoinStats};
use neardup::kernels::hamming_join::{reference, split, tiles, Params, WORKGROUP_SIZE};

use crate::common::{cpu_graph, planted, runs_and_a_long_one};

/// The GPU join of `docs` under `plan` at `tau` (and `tau128`).
fn gpu_graph(
    g: &Gpu,
    cfg: &GpuConfig,
    input: JoinInput,
    (plan, tau, tau128): (&Plan, u32, Option<u32>),
) -> (PairGraph, JoinStats, GpuStats) {
    let spec = JoinSpec::new(plan.clone(), tau, tau128).unwrap();
    join_graph(g, cfg, input, &spec).unwrap()
}

/// The input of `docs` of the columns.
fn input<'a>(fp64: &'a [u64], fp128: &'a [[u64; 2]], docs: &[u32]) -> JoinInput<'a> {
    JoinInput {
        fp64,
        fp128,
        docs: docs.to_vec(),
    }
}

fn gpu() -> Option<Gpu> {
    match Gpu::open(&Selection {
        name: None,
        allow_software: true,
    }) {
        Ok(g) => Some(g),
        Err(e) if std::env::var("NEARDUP_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("NEARDUP_REQUIRE_GPU=1 but no GPU adapter: {e}")
        }
        Err(e) => {
            eprintln!("SKIPPED: {e}; install mesa-vulkan-drivers to run these tests");
            None
        }
    }
}

#[test]
fn the_kernel_matches_its_cpu_reference() {
    let Some(g) = gpu() else { return };
    let k = g.hamming_join().unwrap();
    let (vals, ends) = runs_and_a_long_one(9, 80, 700);
    let fps: Vec<[u32; 2]> = vals.iter().map(|v| split(*v)).collect();
    let earlier = [split(0xFF00_0000_0000_0000), split(0x0000_00F0_0000_0000)];
    for (span, tau, n_earlier, capacity) in
        [(4096, 3, 0, 1 << 20), (7, 5, 2, 1 << 20), (64, 5, 1, 5)]
    {
        let t = tiles(&ends, span);
        if span == 4096 {
            // Short runs are compared directly, long ones staged: both ways are checked.
            assert!(t.iter().any(|t| t.direct()) && t.iter().any(|t| !t.direct()));
            // Direct tiles of short runs hold two rows per invocation.
            assert!(t.iter().any(|t| t.row_end - t.row_start > WORKGROUP_SIZE));
        }
        let p = Params {
            tau,
            n_earlier,
            capacity,
            n_tiles: t.len() as u32,
            ..Params::default()
        };
        let (mut want, want_count) = reference(&p, &fps, &ends, &t, &earlier);
        let (mut got, count) = k
            .run(
                tau,
                &fps,
                &ends,
                &t,
                &earlier[..n_earlier as usize],
                capacity,
            )
            .unwrap();
        assert_eq!(count, want_count, "span {span} tau {tau}");
        assert!(count > 0);
        if count <= capacity {
            want.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, want, "span {span} tau {tau}");
        } else {
            assert_eq!(got.len(), capacity as usize);
        }
    }
    // Nothing to do is not an error.
    assert_eq!(k.run(3, &[], &[], &[], &[], 16).unwrap(), (vec![], 0));
}

#[test]
fn gpu_joins_equal_cpu_joins_pair_for_pair() {
    let Some(g) = gpu() else { return };
    // 2000 random + planted clusters + a giant group of 300 identical values and 64 one-bit
    // variants: not a multiple of the workgroup size.
    let (fp, fp128) = planted(2000, 21);
    assert_ne!(fp.len() % 64, 0);
    let docs: Vec<u32> = (0..fp.len() as u32).collect();
    let cfgs = [
        ("default", GpuConfig::batched()),
        (
            "tiny pair buffer",
            GpuConfig {
                pair_capacity: 1,
                ..GpuConfig::batched()
            },
        ),
        (
            "tiny batches",
            GpuConfig {
                batch: Some(16),
                col_span: 5,
                ..GpuConfig::batched()
            },
        ),
    ];
    for tau in [0u32, 3, 6] {
        for plan in [
            cheapest_exact(docs.len(), tau),
            pigeonhole(tau as usize + 1, tau),
            pigeonhole(tau as usize + 2, tau),
            random(16, 8, 3, tau),
        ] {
            // Consecutive tables sharing 4 or more key bits are ordered as a family (at this
            // size); they must give the same pairs as table by table.
            let shares = plan
                .tables
                .windows(2)
                .any(|w| (w[0] & w[1]).count_ones() >= 4);
            let (want, ws) = cpu_graph(&fp, &fp128, &docs, &plan, tau, Some(12));
            for (name, cfg) in &cfgs {
                let (got, gs, drv) =
                    gpu_graph(&g, cfg, input(&fp, &fp128, &docs), (&plan, tau, Some(12)));
                assert_eq!(
                    got.pairs(),
                    want.pairs(),
                    "tau {tau}, {}, {name}",
                    plan.name
                );
                assert_eq!(gs, ws, "tau {tau}, {}, {name}", plan.name);
                assert_eq!(drv.family_tables > 0, shares, "{}", plan.name);
                match *name {
                    "tiny pair buffer" if ws.pairs > ws.exact_pairs => {
                        assert!(drv.reruns > 0, "overflow path not taken")
                    }
                    "tiny batches" if ws.largest_run > 16 => {
                        assert!(
                            drv.split_runs > 0 && drv.batches > 1,
                            "chunking path not taken: {drv:?}"
                        )
                    }
                    _ => {}
                }
            }
        }
    }
}

#[test]
fn empty_and_trivial_inputs() {
    let Some(g) = gpu() else { return };
    let plan = cheapest_exact(10, 3);
    let cfg = GpuConfig::default();
    let (e, s, _) = gpu_graph(&g, &cfg, input(&[], &[], &[]), (&plan, 3, None));
    assert_eq!((e.pair_count(), s.pairs), (0, 0));
    let fp = [7u64, 7, 6, 1 << 40];
    let fp128 = [[0u64; 2]; 4];
    let (got, _, _) = gpu_graph(
        &g,
        &cfg,
        input(&fp, &fp128, &[0, 1, 2, 3]),
        (&plan, 0, None),
    );
    assert_eq!(got.pairs().len(), 1);
    let (got, _, _) = gpu_graph(
        &g,
        &cfg,
        input(&fp, &fp128, &[0, 1, 2, 3]),
        (&plan, 1, None),
    );
    assert_eq!(got.pairs().len(), 3);
}

#[test]
fn the_join_command_gives_the_same_pairs_on_both_backends() {
    if gpu().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample");
    let store = dir.path().join("s");
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    crate::common::ok(&["-q", "fingerprint", &s(&sample), "-o", &s(&store)]);
    for tau in ["0", "5"] {
        let run = |backend: &str| {
            crate::common::ok(&[
                "-q",
                "join",
                &s(&store),
                "--tau",
                tau,
                "--backend",
                backend,
                "-o",
                "-",
            ])
        };
        let cpu = run("cpu");
        assert!(cpu.lines().count() > 1);
        assert_eq!(run("gpu"), cpu, "tau {tau}");
    }
    let out = crate::common::neardup(&["gpus", "--json"]);
    assert!(out.status.success());
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!list.as_array().unwrap().is_empty());
    // An adapter name that matches nothing is an error naming the fix, not a panic.
    let out = crate::common::neardup(&[
        "join",
        &s(&store),
        "--backend",
        "gpu",
        "--adapter",
        "no-such-gpu",
        "-o",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        crate::common::stderr(&out).contains("neardup gpus"),
        "{}",
        crate::common::stderr(&out)
    );
}

/// Buffers are kept from batch to batch: a smaller batch loaded over a larger one, several
/// dispatches over one load, and an overflowing dispatch followed by a larger one, all give
/// the reference's pairs (stale bytes past a batch's end are never read).
#[test]
fn batches_share_the_kernels_buffers_without_mixing() {
    let Some(g) = gpu() else { return };
    let k = g.hamming_join().unwrap();
    let big = runs_and_a_long_one(21, 90, 900);
    let small = runs_and_a_long_one(5, 30, 200);
    let earlier = [split(0xFF00_0000_0000_0000)];
    for (vals, ends) in [&big, &small, &big] {
        let fps: Vec<[u32; 2]> = vals.iter().map(|v| split(*v)).collect();
        k.load(&fps, ends, &earlier).unwrap();
        for (span, tau, n_earlier) in [(4096, 5, 0), (64, 4, 1), (7, 6, 1)] {
            let t = tiles(ends, span);
            let p = Params {
                tau,
                n_earlier,
                capacity: 1 << 20,
                n_tiles: t.len() as u32,
                ..Params::default()
            };
            let (mut want, want_count) = reference(&p, &fps, ends, &t, &earlier);
            assert!(want_count > 3);
            // Too small a buffer first: the count is right and the buffer full.
            let (got, count) = k.dispatch(tau, n_earlier, &t, 2).unwrap();
            assert_eq!((count, got.len()), (want_count, 2));
            let (mut got, count) = k.dispatch(tau, n_earlier, &t, want_count).unwrap();
            assert_eq!(count, want_count);
            want.sort_unstable();
            got.sort_unstable();
            assert_eq!(
                got,
                want,
                "{} fingerprints, span {span}, tau {tau}",
                fps.len()
            );
        }
    }
    let t = k.timing();
    assert!(t.upload > 0.0 && t.kernel > 0.0, "{t:?}");
}

#[test]
fn a_binding_over_the_adapters_limit_is_an_error_not_a_panic() {
    let Some(g) = gpu() else { return };
    let limit = g.max_binding();
    if limit > 256 << 20 {
        eprintln!("SKIPPED: binding limit {limit} too large to exceed in a test");
        return;
    }
    let k = g.hamming_join().unwrap();
    let n = (limit / 8 + 1) as usize;
    let fps = vec![[0u32; 2]; n];
    let ends = vec![2u32; 2];
    let t = tiles(&ends, 64);
    let e = k.run(3, &fps, &ends, &t, &[], 16).unwrap_err().to_string();
    assert!(e.contains("GPU error"), "{e}");
}

/// The resident join's configurations: the default, a pair buffer of one slot (every table
/// with pairs rerun alone), a largest buffer of four slots (tables run over windows of
/// items of one comparison each, so that a window can always shrink to fit), items of one
/// comparison, and the comparisons four columns a step (alone and through windows).
fn resident_configs() -> Vec<(&'static str, GpuConfig)> {
    let with = |r: ResidentConfig| GpuConfig {
        resident: Some(r),
        ..GpuConfig::default()
    };
    vec![
        ("resident", GpuConfig::default()),
        (
            "resident, one slot",
            with(ResidentConfig {
                capacity: Some(1),
                ..ResidentConfig::default()
            }),
        ),
        (
            "resident, windows",
            with(ResidentConfig {
                capacity: Some(1),
                max_capacity: Some(4),
                chunk: 1,
                ..ResidentConfig::default()
            }),
        ),
        (
            "resident, chunk 1",
            with(ResidentConfig {
                chunk: 1,
                ..ResidentConfig::default()
            }),
        ),
        (
            "resident, unrolled",
            with(ResidentConfig {
                unroll: true,
                ..ResidentConfig::default()
            }),
        ),
        (
            "resident, unrolled, chunk 7, one slot",
            with(ResidentConfig {
                unroll: true,
                chunk: 7,
                capacity: Some(1),
                ..ResidentConfig::default()
            }),
        ),
    ]
}

/// Whether every table of `plan` keys `n` values by the key itself (no hashed buckets):
/// then the device compares exactly the CPU's runs.
fn exact_buckets(plan: &Plan, n: usize) -> bool {
    plan.tables
        .iter()
        .all(|m| neardup::kernels::table::bucket_bits(n, m.count_ones()).1)
}

/// The resident join against the CPU join at tau 0, 3, 6 and 8, exact plans and random
/// samples, through the rerun and window paths.
#[test]
fn resident_joins_equal_cpu_joins_pair_for_pair() {
    let Some(g) = gpu() else { return };
    let (fp, fp128) = planted(2000, 21);
    let docs: Vec<u32> = (0..fp.len() as u32).collect();
    let mut distinct = fp.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let (mut reruns, mut windows) = (0, 0);
    for tau in [0u32, 3, 6, 8] {
        for plan in [
            cheapest_exact(docs.len(), tau),
            pigeonhole(tau as usize + 1, tau),
            pigeonhole(tau as usize + 3, tau),
            random(16, 8, 3, tau),
            random(10, 12, 5, tau),
        ] {
            let (want, ws) = cpu_graph(&fp, &fp128, &docs, &plan, tau, Some(12));
            for (name, cfg) in resident_configs() {
                let (got, gs, drv) =
                    gpu_graph(&g, &cfg, input(&fp, &fp128, &docs), (&plan, tau, Some(12)));
                let what = format!("tau {tau}, {}, {name}", plan.name);
                assert!(drv.resident && drv.chunks == 1, "{what}");
                // The host's parts are timed, each a time in seconds (none negative, none absurd).
                let host = drv.host.expect("the resident join times its host work");
                assert!(
                    host.iter().all(|s| (0.0..60.0).contains(s)),
                    "{what}: {host:?}"
                );
                assert_eq!(got.pairs(), want.pairs(), "{what}");
                // The device compares buckets: the CPU's runs when keys are buckets, more
                // when a bucket holds several keys.
                let same = JoinStats {
                    comparisons: ws.comparisons,
                    largest_run: ws.largest_run,
                    ..gs.clone()
                };
                assert_eq!(same, ws, "{what}");
                if exact_buckets(&plan, distinct.len()) {
                    assert_eq!(
                        (gs.comparisons, gs.largest_run),
                        (ws.comparisons, ws.largest_run),
                        "{what}"
                    );
                } else {
                    assert!(gs.comparisons >= ws.comparisons, "{what}");
                }
                reruns += drv.reruns;
                windows += drv.windows;
            }
        }
    }
    assert!(
        reruns > 0 && windows > 0,
        "reruns {reruns}, windows {windows}"
    );
}

/// Each table on the device against its pipeline on the CPU: the same records (first pair
/// slot, items, comparisons, largest bucket) and the same pairs, table by table.
#[test]
fn resident_tables_match_their_cpu_reference() {
    let Some(g) = gpu() else { return };
    let r = g.resident().unwrap();
    let (fp, _) = planted(3000, 8);
    let mut vals = fp;
    vals.sort_unstable();
    vals.dedup();
    let halves: Vec<[u32; 2]> = vals.iter().map(|v| split(*v)).collect();
    for (plan, tau) in [
        (pigeonhole(5, 3), 3),
        (pigeonhole(9, 6), 6),
        (random(12, 6, 2, 5), 5),
    ] {
        let masks: Vec<[u32; 2]> = plan.tables.iter().map(|m| split(*m)).collect();
        let out = r
            .join(&halves, &plan.tables, tau, &ResidentConfig::default())
            .unwrap();
        let mut counter = 0;
        let mut want_all = Vec::new();
        for t in 0..plan.tables.len() {
            let p = neardup::kernels::table::params(vals.len(), &plan.tables, t, tau, 32, u32::MAX);
            let want = neardup::kernels::pipeline::reference_table(&p, &halves, &masks, counter);
            assert_eq!(out.tables[t], want.record, "{} table {t}", plan.name);
            counter = want.count;
            want_all.extend(want.pairs);
        }
        let norm = |v: &[[u32; 2]]| {
            let mut v: Vec<[u32; 2]> = v.iter().map(|&[a, b]| [a.min(b), a.max(b)]).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(norm(&out.pairs), norm(&want_all), "{}", plan.name);
        assert!(!want_all.is_empty());
    }
}

/// The device's grouping of a table against `sort_unstable` of the keys: every bucket holds
/// exactly the values of one key (or of one hash, for long keys), whatever their order.
#[test]
fn the_device_groups_values_as_a_sort_of_their_keys_does() {
    let Some(g) = gpu() else { return };
    let r = g.resident().unwrap();
    let (fp, _) = planted(5000, 13);
    let mut vals = fp;
    vals.sort_unstable();
    vals.dedup();
    let halves: Vec<[u32; 2]> = vals.iter().map(|v| split(*v)).collect();
    // Keys of 7 to 16 bits are buckets here; 21 and 32 bits are hashed.
    let masks = [
        0x7Fu64 << 20,
        0xFFFF_0000_0000_0000,
        0x00FF_0000_0000_00FF,
        0x1F_FFFF << 30,
        0xFFFF_FFFF,
        0x8000_0001_8000_0001,
    ];
    for t in 0..masks.len() {
        let p = neardup::kernels::table::params(vals.len(), &masks, t, 0, 1, 1);
        let (order, ends) = r.group(&halves, &masks, t).unwrap();
        // A permutation of the values, cut into buckets.
        let mut seen = order.clone();
        seen.sort_unstable();
        assert_eq!(
            seen,
            (0..vals.len() as u32).collect::<Vec<_>>(),
            "table {t}"
        );
        let mut got = Vec::new();
        let mut at = 0usize;
        while at < order.len() {
            let end = ends[at] as usize;
            assert!(end > at && ends[at..end].iter().all(|&e| e as usize == end));
            let mut members = order[at..end].to_vec();
            members.sort_unstable();
            got.push(members);
            at = end;
        }
        got.sort_unstable();
        // The same buckets from sorting (bucket, index) pairs.
        let mut keyed: Vec<(u32, u32)> = (0..vals.len() as u32)
            .map(|i| {
                (
                    neardup::kernels::table_key::bucket(&p, halves[i as usize]),
                    i,
                )
            })
            .collect();
        keyed.sort_unstable();
        let mut want: Vec<Vec<u32>> = Vec::new();
        for w in keyed.chunk_by(|a, b| a.0 == b.0) {
            want.push(w.iter().map(|x| x.1).collect());
        }
        want.sort_unstable();
        assert_eq!(got, want, "table {t} (exact {})", p.exact);
        if p.exact == 1 {
            // Exact buckets are runs of equal keys: a key sort gives the same groups.
            let mut by_key: Vec<(u64, u32)> = (0..vals.len() as u32)
                .map(|i| {
                    (
                        neardup::kernels::table_key::gather(vals[i as usize], masks[t]),
                        i,
                    )
                })
                .collect();
            by_key.sort_unstable();
            let runs = by_key.chunk_by(|a, b| a.0 == b.0).count();
            assert_eq!(runs, got.len(), "table {t}");
        }
    }
}

/// Hostile shapes on the device: every key equal (one bucket of every value), one giant run
/// beside many single values, 100 000 identical fingerprints among others.
#[test]
fn resident_joins_survive_hostile_shapes() {
    let Some(g) = gpu() else { return };
    let mut rng = neardup::base::rng::SplitMix64(77);
    let top = 0xABCD_u64 << 48;
    // Every value shares the top 16 bits: table 0 of pigeonhole(4, 3) is one bucket.
    let mut same_key: Vec<u64> = (0..2500)
        .map(|_| top | (rng.next_u64() >> 16) & !(0xFFu64 << 20) | (rng.below(4) << 20))
        .collect();
    // With near copies of some of them, so that there are pairs to find.
    let copies: Vec<u64> = same_key[..300]
        .iter()
        .map(|v| v ^ (1 << rng.below(48)) ^ (1 << rng.below(48)))
        .collect();
    same_key.extend(copies);
    // One giant run of near copies beside 20 000 random values.
    let mut giant: Vec<u64> = (0..20_000).map(|_| rng.next_u64()).collect();
    let base = rng.next_u64();
    giant.extend((0..1500).map(|_| base ^ (1 << rng.below(40)) ^ (1 << rng.below(40))));
    // 100 000 copies of one fingerprint, and its one-bit variants.
    let mut copies = vec![base; 100_000];
    copies.extend((0..64).map(|b| base ^ (1 << b)));
    copies.extend((0..3000).map(|_| rng.next_u64()));
    for (name, fp) in [
        ("every key equal", same_key),
        ("a giant run", giant),
        ("copies", copies),
    ] {
        let fp128 = vec![[0u64; 2]; fp.len()];
        let docs: Vec<u32> = (0..fp.len() as u32).collect();
        for (plan, tau) in [(pigeonhole(4, 3), 3u32), (cheapest_exact(fp.len(), 6), 6)] {
            let (want, ws) = cpu_graph(&fp, &fp128, &docs, &plan, tau, None);
            let (got, gs, drv) = gpu_graph(
                &g,
                &GpuConfig::default(),
                input(&fp, &fp128, &docs),
                (&plan, tau, None),
            );
            assert!(drv.resident);
            // Compared as graphs: 100 000 copies are five billion document pairs.
            assert_eq!(got.edges, want.edges, "{name}, {}", plan.name);
            assert_eq!((&got.members, &got.starts), (&want.members, &want.starts));
            assert_eq!(gs.pairs, ws.pairs, "{name}");
            assert!(gs.comparisons >= ws.comparisons, "{name}");
            assert!(ws.pairs > 0, "{name}");
        }
    }
}

/// `sweep` on the GPU (the join resident there) writes the CPU's table, tau by tau.
#[test]
fn the_sweep_tables_are_equal_on_both_backends() {
    if gpu().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let store = dir.path().join("s");
    crate::common::ok(&["-q", "synth", "--docs", "20000", "-o", &s(&store)]);
    let sweep = |backend: &str| {
        let out = dir.path().join(backend);
        crate::common::ok(&[
            "-q",
            "sweep",
            &s(&store),
            "--tau-max",
            "8",
            "--backend",
            backend,
            "-o",
            &s(&out),
        ]);
        std::fs::read_to_string(out.join("sweep.tsv")).unwrap()
    };
    let cpu = sweep("cpu");
    assert_eq!(cpu.lines().count(), 10, "{cpu}");
    assert_eq!(sweep("gpu"), cpu);
}

/// A set larger than one binding (a limit forced small here) goes through the resident join
/// in chunks, each alone and every two together: the same pairs, at tau 3 and 8.
#[test]
fn a_set_past_one_binding_goes_through_in_chunks_with_the_same_pairs() {
    let Some(g) = gpu() else { return };
    let (fp, fp128) = planted(3000, 4);
    let docs: Vec<u32> = (0..fp.len() as u32).collect();
    for (plan, tau) in [(pigeonhole(5, 3), 3), (pigeonhole(10, 8), 8)] {
        let (want, ws) = cpu_graph(&fp, &fp128, &docs, &plan, tau, None);
        let cfg = GpuConfig {
            resident: Some(ResidentConfig {
                max_binding: Some(8 * 1024),
                ..ResidentConfig::default()
            }),
            ..GpuConfig::default()
        };
        let (got, gs, drv) = gpu_graph(&g, &cfg, input(&fp, &fp128, &docs), (&plan, tau, None));
        // 1 024 values a binding, 512 a chunk: k chunks, k(k + 1) / 2 joins.
        let k = ws.distinct.div_ceil(512);
        assert!(
            k > 2 && drv.resident && drv.chunks == k * (k + 1) / 2,
            "{drv:?}"
        );
        assert_eq!(got.pairs(), want.pairs(), "tau {tau}");
        assert_eq!(gs.pairs, ws.pairs);
        assert!(ws.pairs > ws.exact_pairs);
    }
}
