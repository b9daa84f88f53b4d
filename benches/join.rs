//! Criterion benches of the Hamming join on planted fingerprints: the CPU backend at the peer
//! comparison's two points (tau 3 over 1 M, tau 6 over 200 k), and the GPU backend at tau 6
//! over 200 k on whatever adapter exists (lavapipe in CI: a regression guard, not a speed
//! figure). Throughput is fingerprints joined.
//!
//! Rerun with `cargo bench --bench join`; results and the machine go in BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use neardup::gpu::{Gpu, Selection};
use neardup::join::cpu::join_graph;
use neardup::join::gpu::{self, GpuConfig};
use neardup::join::plan::cheapest_exact;
use neardup::join::{JoinInput, JoinSpec};
use neardup::synth::planted_fingerprints;

// The allocator the binary runs with, so the join's buffers get the same pages.
#[global_allocator]
static ALLOC: neardup::alloc::HugePages = neardup::alloc::HugePages;

fn joins(c: &mut Criterion) {
    let mut g = c.benchmark_group("join");
    g.sample_size(10);
    for (docs, tau) in [(1_000_000usize, 3u32), (200_000, 6)] {
        let (fp, fp128) = planted_fingerprints(docs, 0.1, 8, 7);
        let spec = JoinSpec::new(cheapest_exact(docs, tau), tau, None).expect("a valid spec");
        let input = JoinInput::all(&fp, &fp128);
        g.throughput(Throughput::Elements(docs as u64));
        g.bench_function(format!("cpu_tau{tau}_{}k", docs / 1000), |b| {
            b.iter(|| join_graph(input.clone(), &spec).1)
        });
        if tau != 6 {
            continue;
        }
        let sel = Selection {
            name: None,
            allow_software: true,
        };
        match Gpu::open(&sel) {
            Ok(dev) => {
                let name = format!("gpu_tau{tau}_{}k", docs / 1000);
                g.bench_function(name, |b| {
                    b.iter(|| {
                        let cfg = GpuConfig::default();
                        gpu::join_graph(&dev, &cfg, input.clone(), &spec)
                            .expect("GPU join")
                            .1
                    })
                });
            }
            Err(e) => eprintln!("gpu bench skipped: {e}"),
        }
    }
    g.finish();
}

criterion_group!(benches, joins);
criterion_main!(benches);
