//! Kernel contracts without a GPU: every WGSL file is parsed and validated by naga, its
//! bindings and workgroup size match the Rust spec, and the CPU reference finds exactly the
//! pairs inside runs that brute force finds.

use neardup::kernels::hamming_join::{self, reference, tiles, Params, BINDINGS, WORKGROUP_SIZE};
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
fn every_shader_has_a_kernel_spec_and_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut n = 0;
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
            module(&format!("{stem}.wgsl"));
            n += 1;
        }
    }
    assert!(n >= 1);
}

#[test]
fn hamming_join_bindings_and_workgroup_match_the_spec() {
    let (m, _) = module(hamming_join::SHADER);
    let mut found = Vec::new();
    for (_, v) in m.global_variables.iter() {
        let Some(b) = &v.binding else { continue };
        assert_eq!(b.group, 0);
        let kind = match v.space {
            naga::AddressSpace::Uniform => BindingKind::Uniform,
            naga::AddressSpace::Storage { access }
                if access.contains(naga::StorageAccess::STORE) =>
            {
                BindingKind::StorageReadWrite
            }
            naga::AddressSpace::Storage { .. } => BindingKind::StorageRead,
            other => panic!("unexpected address space {other:?}"),
        };
        found.push((b.binding, v.name.clone().unwrap_or_default(), kind));
    }
    found.sort_by_key(|f| f.0);
    let want: Vec<(u32, String, BindingKind)> = BINDINGS
        .iter()
        .map(|(b, n, k)| (*b, n.to_string(), *k))
        .collect();
    assert_eq!(found, want);
    let ep = m
        .entry_points
        .iter()
        .find(|e| e.name == hamming_join::ENTRY)
        .expect("entry point");
    assert_eq!(ep.workgroup_size, [WORKGROUP_SIZE, 1, 1]);
    // The shader's constants equal the spec's.
    for (name, want) in [
        ("WORKGROUP_SIZE", WORKGROUP_SIZE),
        ("DIRECT_SPAN", hamming_join::DIRECT_SPAN),
    ] {
        let (_, c) = m
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no constant {name} in the shader"));
        match m.global_expressions[c.init] {
            naga::Expression::Literal(naga::Literal::U32(v)) => assert_eq!(v, want, "{name}"),
            ref e => panic!("{name} is {e:?}"),
        }
    }
    // Struct sizes as the shader lays them out.
    for (_, ty) in m.types.iter() {
        if let naga::TypeInner::Struct { span, .. } = ty.inner {
            match ty.name.as_deref() {
                Some("Params") => assert_eq!(span as usize, std::mem::size_of::<Params>()),
                Some("Tile") => {
                    assert_eq!(span as usize, std::mem::size_of::<hamming_join::Tile>())
                }
                _ => {}
            }
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
