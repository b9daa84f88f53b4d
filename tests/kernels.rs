//! Kernel contracts without a GPU: every WGSL file is parsed and validated by naga, its
//! bindings and workgroup size match the Rust spec, and the CPU reference finds exactly the
//! pairs inside runs that brute force finds.

use neardup::kernels::hamming_join::{self, reference, tiles, Params, WORKGROUP_SIZE};
use neardup::kernels::BindingKind;

use crate::common::runs_and_a_long_one;
use wgpu::naga;

fn module(file: &str) -> (naga::Module, naga::valid::ModuleInfo) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("shaders")
        .join(file);
    let src = std::fs::read_to_string(&path).unwrap();
    let m = naga::front::wgsl::parse_str(&src)
        .unwrap_or_else(|e| panic!("{file}: {}", e.emit_to_string(&src)));
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&m)
    .unwrap_or_else(|e| panic!("{file}: {}", e.emit_to_string(&src)));
    (m, info)
}

#[test]
fn every_kernel_matches_its_spec() {
    let mut shaders: Vec<&str> = neardup::kernels::ALL.iter().map(|k| k.shader).collect();
    shaders.sort_unstable();
    shaders.dedup();
    assert_eq!(
        shaders.len(),
        neardup::kernels::ALL.len(),
        "a shader listed twice"
    );
    // Every shader on disk has a same-stem spec file and is in kernels::ALL (so it is
    // validated and checked below), and nothing else is.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut on_disk = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "wgsl") {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src/kernels")
                .join(format!("{stem}.rs"));
            assert!(
                spec.is_file(),
                "{} has no src/kernels/{stem}.rs",
                p.display()
            );
            assert!(
                shaders.contains(&format!("{stem}.wgsl").as_str()),
                "{} has no spec in kernels::ALL",
                p.display()
            );
            on_disk += 1;
        }
    }
    assert_eq!(
        on_disk,
        shaders.len(),
        "a spec in kernels::ALL without its shader"
    );
    for spec in neardup::kernels::ALL {
        let file = spec.shader;
        let (m, _) = module(file);
        let mut found = Vec::new();
        for (_, v) in m.global_variables.iter() {
            let Some(b) = &v.binding else { continue };
            assert_eq!(b.group, 0, "{file}");
            let kind = match v.space {
                naga::AddressSpace::Uniform => BindingKind::Uniform,
                naga::AddressSpace::Storage { access }
                    if access.contains(naga::StorageAccess::STORE) =>
                {
                    BindingKind::StorageReadWrite
                }
                naga::AddressSpace::Storage { .. } => BindingKind::StorageRead,
                other => panic!("{file}: unexpected address space {other:?}"),
            };
            found.push((b.binding, v.name.clone().unwrap_or_default(), kind));
        }
        found.sort_by_key(|f| f.0);
        let want: Vec<(u32, String, BindingKind)> = spec
            .bindings
            .iter()
            .map(|(b, n, k)| (*b, n.to_string(), *k))
            .collect();
        assert_eq!(found, want, "{file}");
        assert_eq!(m.entry_points.len(), spec.entries.len(), "{file}");
        for entry in spec.entries {
            let ep = m
                .entry_points
                .iter()
                .find(|e| e.name == *entry)
                .unwrap_or_else(|| panic!("{file}: no entry point {entry}"));
            assert_eq!(ep.workgroup_size, [spec.workgroup_size, 1, 1], "{file}");
        }
        // The shader's constants equal the spec's.
        for (name, want) in spec.constants {
            let (_, c) = m
                .constants
                .iter()
                .find(|(_, c)| c.name.as_deref() == Some(*name))
                .unwrap_or_else(|| panic!("{file}: no constant {name}"));
            match m.global_expressions[c.init] {
                naga::Expression::Literal(naga::Literal::U32(v)) => {
                    assert_eq!(v, *want, "{file}: {name}")
                }
                ref e => panic!("{file}: {name} is {e:?}"),
            }
        }
        // Struct sizes as the shader lays them out.
        for (name, size) in spec.structs {
            let span = m
                .types
                .iter()
                .find_map(|(_, ty)| match ty.inner {
                    naga::TypeInner::Struct { span, .. } if ty.name.as_deref() == Some(*name) => {
                        Some(span as usize)
                    }
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{file}: no struct {name}"));
            assert_eq!(span, *size, "{file}: {name}");
        }
    }
    // The struct every table kernel declares is one text.
    let text = |f: &str| {
        let src = std::fs::read_to_string(dir.join(f)).unwrap();
        let a = src.find("struct TableParams {").unwrap();
        let b = a + src[a..].find('}').unwrap();
        src[a..b].to_string()
    };
    for f in [
        "table_scatter.wgsl",
        "table_runs.wgsl",
        "table_args.wgsl",
        "table_join.wgsl",
    ] {
        assert_eq!(text(f), text("table_key.wgsl"), "{f}");
    }
}

/// The scan by blocks and levels, as the device runs it, equals plain prefix sums, over one
/// level, two and three.
#[test]
fn the_scan_by_blocks_equals_plain_prefix_sums() {
    use neardup::kernels::scan;
    let mut rng = neardup::base::rng::SplitMix64(5);
    for len in [0usize, 1, 1023, 1024, 1025, 5000, 1024 * 1024 + 3] {
        let data: Vec<u32> = (0..len).map(|_| rng.below(1000) as u32).collect();
        let want = scan::reference(&data);
        assert_eq!(scan::by_blocks(&data), want, "{len}");
        assert_eq!(want.1 as u64, data.iter().map(|&x| x as u64).sum::<u64>());
        let levels = scan::levels(len);
        assert_eq!(
            levels.len(),
            if len > 1024 * 1024 {
                3
            } else if len > 1024 {
                2
            } else {
                1
            }
        );
    }
}

/// Keys gathered bit by bit are x86's PEXT: order kept, low half first.
#[test]
fn keys_gather_the_masked_bits_in_order() {
    use neardup::kernels::table_key::gather;
    assert_eq!(gather(0b1011_0110, 0b1111_0000), 0b1011);
    assert_eq!(gather(u64::MAX, 0xF0F0), 0xFF);
    assert_eq!(gather(1 << 63 | 1, 1 << 63 | 1), 0b11);
    assert_eq!(
        gather(0x1234_5678_9ABC_DEF0, u64::MAX),
        0x1234_5678_9ABC_DEF0
    );
    assert_eq!(gather(0x1234_5678_9ABC_DEF0, 0), 0);
}

/// The resident table's pipeline on the CPU, table after table, finds every pair within tau
/// that a plan's table agrees on, each once, from the first such table: exact plans, random
/// samples, keys as buckets and hashed ones, items of one comparison and of many.
#[test]
fn the_resident_tables_on_the_cpu_find_each_pair_once() {
    use neardup::join::plan::{pigeonhole, random};
    use neardup::kernels::pipeline::reference_table;
    use neardup::kernels::table::{params, TableParams};
    let (fp, _) = crate::common::planted(1500, 3);
    let mut vals = fp.clone();
    vals.sort_unstable();
    vals.dedup();
    let halves: Vec<[u32; 2]> = vals.iter().map(|v| [*v as u32, (v >> 32) as u32]).collect();
    for (plan, tau) in [
        (pigeonhole(4, 3), 3u32),
        (pigeonhole(8, 6), 6),
        (pigeonhole(9, 8), 8),
        (random(16, 8, 3, 4), 4),
    ] {
        let masks: Vec<[u32; 2]> = plan
            .tables
            .iter()
            .map(|m| [*m as u32, (m >> 32) as u32])
            .collect();
        let mut want = Vec::new();
        for i in 0..vals.len() {
            for j in i + 1..vals.len() {
                let x = vals[i] ^ vals[j];
                if x.count_ones() <= tau && plan.tables.iter().any(|m| x & m == 0) {
                    want.push([i as u32, j as u32]);
                }
            }
        }
        assert!(want.len() > 100, "{}", plan.name);
        for (chunk, hashed) in [(32, false), (1, false), (3, true)] {
            let mut got = Vec::new();
            let mut counter = 0;
            for t in 0..plan.tables.len() {
                let mut p = params(vals.len(), &plan.tables, t, tau, chunk, u32::MAX);
                if hashed {
                    p = TableParams {
                        exact: 0,
                        bits: 6,
                        ..p
                    };
                }
                let out = reference_table(&p, &halves, &masks, counter);
                assert_eq!(out.record.base, counter);
                counter = out.count;
                got.extend(out.pairs.iter().map(|&[a, b]| [a.min(b), a.max(b)]));
            }
            got.sort_unstable();
            assert_eq!(got, want, "{} chunk {chunk} hashed {hashed}", plan.name);
            assert_eq!(counter as usize, want.len());
        }
    }
}

#[test]
fn the_reference_over_tiles_finds_exactly_the_pairs_inside_runs() {
    let (vals, ends) = runs_and_a_long_one(9, 80, 700);
    let fps: Vec<[u32; 2]> = vals.iter().map(|v| hamming_join::split(*v)).collect();
    let earlier = [hamming_join::split(0x0000_0000_0000_FF00)];
    for span in [1, 7, 64, 4096] {
        let t = tiles(&ends, span);
        assert!(t.iter().all(|t| t.row_end - t.row_start <= t.max_rows()));
        assert!(t.iter().all(|t| t.col_end - t.col_start <= span));
        if span == 4096 {
            // Short runs are compared directly, long ones staged: both ways are checked.
            assert!(t.iter().any(|t| t.direct()) && t.iter().any(|t| !t.direct()));
            // Direct tiles of short runs hold two rows per invocation.
            assert!(t.iter().any(|t| t.row_end - t.row_start > WORKGROUP_SIZE));
        }
        // Lane steps cover every comparison: no lane does more than its tile allows.
        let inside: u64 = (0..vals.len())
            .map(|i| u64::from(ends[i]) - i as u64 - 1)
            .sum();
        let lanes: u64 = t
            .iter()
            .map(|t| t.lane_steps(&ends) * u64::from(WORKGROUP_SIZE))
            .sum();
        assert!(lanes >= inside, "span {span}: {lanes} < {inside}");
        // A lane walks at most two rows of a direct tile, one row of a staged one.
        for t in &t {
            let rows_per_lane = if t.direct() { 2 } else { 1 };
            assert!(t.lane_steps(&ends) <= rows_per_lane * u64::from(t.col_end - t.col_start));
        }
        for (n_earlier, tau) in [(0, 0), (0, 4), (1, 4)] {
            let p = Params {
                tau,
                n_earlier,
                capacity: u32::MAX,
                n_tiles: t.len() as u32,
                ..Params::default()
            };
            let (mut got, count) = reference(&p, &fps, &ends, &t, &earlier);
            got.sort_unstable();
            let mut want = Vec::new();
            for i in 0..vals.len() {
                for j in i + 1..ends[i] as usize {
                    let x = vals[i] ^ vals[j];
                    if x.count_ones() <= tau && (n_earlier == 0 || x & 0xFF00 != 0) {
                        want.push([i as u32, j as u32]);
                    }
                }
            }
            assert_eq!(got, want, "span {span}, tau {tau}, earlier {n_earlier}");
            assert_eq!(count as usize, want.len());
            assert!(!want.is_empty());
            // A small buffer keeps counting past its end.
            let small = Params { capacity: 3, ..p };
            let (few, count) = reference(&small, &fps, &ends, &t, &earlier);
            assert_eq!((few.len(), count as usize), (3.min(want.len()), want.len()));
        }
    }
}
