//! `shaders/table_scatter.wgsl`: the fingerprints laid out bucket by bucket.
//!
//! Each fingerprint takes the next place of its bucket with an atomic add on the bucket's
//! start, so the device's order inside a bucket is any order; [`reference()`] takes them in
//! index order, one valid outcome (tests compare buckets as sets).

use super::table::TableParams;
use super::{BindingKind, KernelSpec};

/// Invocations per workgroup, one fingerprint each.
pub const WORKGROUP_SIZE: u32 = 256;

/// The shader's contract.
pub const SPEC: KernelSpec = KernelSpec {
    shader: "table_scatter.wgsl",
    entries: &["main"],
    workgroup_size: WORKGROUP_SIZE,
    bindings: &[
        (0, "params", BindingKind::Uniform),
        (1, "vals", BindingKind::StorageRead),
        (2, "buckets", BindingKind::StorageRead),
        (3, "starts", BindingKind::StorageReadWrite),
        (4, "order", BindingKind::StorageReadWrite),
        (5, "sorted", BindingKind::StorageReadWrite),
    ],
    constants: &[("WORKGROUP_SIZE", WORKGROUP_SIZE)],
    structs: &[("TableParams", std::mem::size_of::<TableParams>())],
};

/// The kernel on the CPU: the places' fingerprint indices, the fingerprints in place order,
/// and the starts as the kernel leaves them (each bucket's end).
pub fn reference(
    p: &TableParams,
    vals: &[[u32; 2]],
    buckets: &[u32],
    starts: &[u32],
) -> (Vec<u32>, Vec<[u32; 2]>, Vec<u32>) {
    let n = p.n as usize;
    let mut next = starts.to_vec();
    let (mut order, mut sorted) = (vec![0u32; n], vec![[0u32; 2]; n]);
    for i in 0..n {
        let at = &mut next[buckets[i] as usize];
        order[*at as usize] = i as u32;
        sorted[*at as usize] = vals[i];
        *at += 1;
    }
    (order, sorted, next)
}
