//! `shaders/table_runs.wgsl`: each place's end of bucket and items, and the table's counts.
//!
//! Place `p` compares with the `w = end - p - 1` places after it in its bucket, `chunk` at a
//! time: the first chunk in `table_join`'s pass over places, each further one an item
//! (`ceil(w / chunk) - 1` of them); the table's comparisons (the sum of `w`) and largest `w` go to its
//! record. [`reference()`] is the kernel on the CPU.

use super::table::TableParams;
use super::{BindingKind, KernelSpec};

/// Invocations per workgroup, one place each.
pub const WORKGROUP_SIZE: u32 = 256;

/// The shader's contract.
pub const SPEC: KernelSpec = KernelSpec {
    shader: "table_runs.wgsl",
    entries: &["main"],
    workgroup_size: WORKGROUP_SIZE,
    bindings: &[
        (0, "params", BindingKind::Uniform),
        (1, "buckets", BindingKind::StorageRead),
        (2, "order", BindingKind::StorageRead),
        (3, "bucket_ends", BindingKind::StorageRead),
        (4, "ends", BindingKind::StorageReadWrite),
        (5, "items", BindingKind::StorageReadWrite),
        (6, "record", BindingKind::StorageReadWrite),
    ],
    constants: &[
        ("WORKGROUP_SIZE", WORKGROUP_SIZE),
        ("RECORD_HEAD", super::table::RECORD_HEAD as u32),
        ("RECORD_WORDS", super::table::RECORD_WORDS as u32),
    ],
    structs: &[("TableParams", std::mem::size_of::<TableParams>())],
};

/// The kernel on the CPU: each place's end of bucket and item count, the table's comparisons
/// and its largest `w`.
pub fn reference(
    p: &TableParams,
    buckets: &[u32],
    order: &[u32],
    bucket_ends: &[u32],
) -> (Vec<u32>, Vec<u32>, u64, u32) {
    let n = p.n as usize;
    let (mut ends, mut items) = (vec![0u32; n], vec![0u32; n]);
    let (mut comparisons, mut most) = (0u64, 0u32);
    for place in 0..n {
        let end = bucket_ends[buckets[order[place] as usize] as usize];
        let w = end - place as u32 - 1;
        ends[place] = end;
        items[place] = w.div_ceil(p.chunk).saturating_sub(1);
        comparisons += u64::from(w);
        most = most.max(w);
    }
    (ends, items, comparisons, most)
}
