//! Criterion benches of clustering: unions per second of the lock-free union-find against the
//! sequential reference, and the cost of a whole tau sweep against a single-threshold run (the
//! join included in both, since a sweep's point is to need one join).
//!
//! Rerun with `cargo bench --bench cluster`; results and the machine go in BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

use neardup::base::rng::SplitMix64;
use neardup::cluster::{clusters_at, sweep, Axis, Dsu, SeqDsu};
use neardup::join::cpu::join_graph;
use neardup::join::plan::cheapest_exact;
use neardup::join::{JoinInput, JoinSpec};
use neardup::synth::planted_fingerprints;

// The allocator the binary runs with, so the join's buffers get the same pages.
#[global_allocator]
static ALLOC: neardup::alloc::HugePages = neardup::alloc::HugePages;

fn union_find(c: &mut Criterion) {
    let n = 2_000_000u32;
    let mut rng = SplitMix64(1);
    let pairs: Vec<(u32, u32)> = (0..4_000_000)
        .map(|_| {
            (
                rng.below(u64::from(n)) as u32,
                rng.below(u64::from(n)) as u32,
            )
        })
        .collect();
    let mut g = c.benchmark_group("union_find");
    g.sample_size(10);
    g.throughput(Throughput::Elements(pairs.len() as u64));
    g.bench_function("sequential", |b| {
        b.iter_batched(
            || SeqDsu::new(n as usize),
            |mut d| {
                for (x, y) in &pairs {
                    d.union(*x, *y);
                }
                d
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("lock_free", |b| {
        b.iter_batched(
            || Dsu::new(n as usize),
            |d| {
                d.union_all(&pairs);
                d
            },
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn sweep_vs_single(c: &mut Criterion) {
    let docs = 1_000_000;
    let (fp, fp128) = planted_fingerprints(docs, 0.2, 8, 7);
    let spec = JoinSpec::new(cheapest_exact(docs, 6), 6, None).expect("a valid spec");
    let input = JoinInput::all(&fp, &fp128);
    let mut g = c.benchmark_group("sweep_1M");
    g.sample_size(10);
    g.throughput(Throughput::Elements(docs as u64));
    g.bench_function("join_and_clusters_at_tau6", |b| {
        b.iter(|| {
            let (graph, _) = join_graph(input.clone(), &spec);
            clusters_at(&graph, |e| e.d64 <= 6).labels()
        })
    });
    g.bench_function("join_and_sweep_tau0to6", |b| {
        b.iter(|| {
            let (graph, _) = join_graph(input.clone(), &spec);
            sweep(&graph, Axis::D64, 6).0
        })
    });
    g.finish();
}

criterion_group!(benches, union_find, sweep_vs_single);
criterion_main!(benches);
