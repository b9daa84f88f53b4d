//! The GPU backend against the CPU backend, pair for pair, and the kernel against its CPU
//! reference. Runs on any adapter, software ones (Mesa's lavapipe in CI) included. Without an
//! adapter the tests say so and pass, unless `NEARDUP_REQUIRE_GPU=1`, when they fail.

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
        ("default", GpuConfig::default()),
        (
            "tiny pair buffer",
            GpuConfig {
                pair_capacity: 1,
                ..GpuConfig::default()
            },
        ),
        (
            "tiny batches",
            GpuConfig {
                batch: Some(16),
                col_span: 5,
                ..GpuConfig::default()
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
