//! `shaders/table_key.wgsl`: each fingerprint's bucket under a table's key, and bucket sizes.
//!
//! A key of at most `bits` bits is its own bucket: the masked bits gathered to the bottom,
//! low half first (as x86's PEXT would). A longer key is hashed ([`mix`]) and its top `bits`
//! bits are the bucket. [`reference()`] is the kernel on the CPU.

use super::table::TableParams;
use super::{BindingKind, KernelSpec};

/// Invocations per workgroup, one fingerprint each.
pub const WORKGROUP_SIZE: u32 = 256;

/// The shader's contract.
pub const SPEC: KernelSpec = KernelSpec {
    shader: "table_key.wgsl",
    entries: &["main"],
    workgroup_size: WORKGROUP_SIZE,
    bindings: &[
        (0, "params", BindingKind::Uniform),
        (1, "vals", BindingKind::StorageRead),
        (2, "buckets", BindingKind::StorageReadWrite),
        (3, "counts", BindingKind::StorageReadWrite),
    ],
    constants: &[("WORKGROUP_SIZE", WORKGROUP_SIZE)],
    structs: &[("TableParams", std::mem::size_of::<TableParams>())],
};

/// A 32-bit mix of a 64-bit value given as (low, high) halves. Keep in sync with the shader.
pub fn mix(lo: u32, hi: u32) -> u32 {
    let b = hi.wrapping_mul(0x85EB_CA77);
    let mut h = lo.wrapping_mul(0x9E37_79B1) ^ b.rotate_left(15);
    h ^= h >> 16;
    h = h.wrapping_mul(0x7FEB_352D);
    h ^= h >> 15;
    h = h.wrapping_mul(0x846C_A68B);
    h ^ (h >> 16)
}

/// The bits of `v` under `mask`, gathered to the bottom in order (bit by bit: the plain
/// rule the shader's run-at-a-time loop must equal).
pub fn gather(v: u64, mask: u64) -> u64 {
    let (mut key, mut k) = (0u64, 0);
    for b in 0..64 {
        if mask >> b & 1 == 1 {
            key |= (v >> b & 1) << k;
            k += 1;
        }
    }
    key
}

/// The bucket of fingerprint `v` (low, high) under `p`.
pub fn bucket(p: &TableParams, v: [u32; 2]) -> u32 {
    if p.exact != 0 {
        let mask = u64::from(p.mask_lo) | u64::from(p.mask_hi) << 32;
        gather(u64::from(v[0]) | u64::from(v[1]) << 32, mask) as u32
    } else {
        mix(v[0] & p.mask_lo, v[1] & p.mask_hi) >> (32 - p.bits)
    }
}

/// The kernel on the CPU: each value's bucket, and the `1 << p.bits` bucket sizes.
pub fn reference(p: &TableParams, vals: &[[u32; 2]]) -> (Vec<u32>, Vec<u32>) {
    let mut counts = vec![0u32; 1 << p.bits];
    let buckets: Vec<u32> = vals[..p.n as usize]
        .iter()
        .map(|&v| {
            let b = bucket(p, v);
            counts[b as usize] += 1;
            b
        })
        .collect();
    (buckets, counts)
}
