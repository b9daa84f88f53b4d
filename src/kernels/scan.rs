//! `shaders/scan.wgsl`: exclusive prefix sums of `u32` values in place, block by block.
//!
//! `scan_blocks` scans each block of [`BLOCK`] values and writes the block's total to the
//! next level; the next level is scanned the same way until one block holds it (its total is
//! then the whole total); `add_sums` adds each block's offset back, level by level downwards.
//! [`levels`] gives the lengths; [`reference()`] is the result on the CPU. Sums wrap at 2^32,
//! as on the device: callers keep totals below it.

use super::{BindingKind, KernelSpec};

/// Invocations per workgroup.
pub const WORKGROUP_SIZE: u32 = 256;
/// Values per invocation in `scan_blocks`.
pub const PER_INVOCATION: u32 = 4;
/// Values per block: one workgroup of `scan_blocks`.
pub const BLOCK: u32 = WORKGROUP_SIZE * PER_INVOCATION;

/// Uniform parameters. Keep in sync with `struct ScanParams` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ScanParams {
    /// Values at this level.
    pub len: u32,
    /// Zero.
    pub pad: [u32; 3],
}

/// The shader's contract.
pub const SPEC: KernelSpec = KernelSpec {
    shader: "scan.wgsl",
    entries: &["scan_blocks", "add_sums"],
    workgroup_size: WORKGROUP_SIZE,
    bindings: &[
        (0, "sp", BindingKind::Uniform),
        (1, "data", BindingKind::StorageReadWrite),
        (2, "sums", BindingKind::StorageReadWrite),
    ],
    constants: &[
        ("WORKGROUP_SIZE", WORKGROUP_SIZE),
        ("PER_INVOCATION", PER_INVOCATION),
        ("BLOCK", BLOCK),
    ],
    structs: &[("ScanParams", std::mem::size_of::<ScanParams>())],
};

/// The lengths of the levels of a scan of `len` values: `len`, then its blocks' totals, and
/// so on; the last level fits one block (and writes one total).
pub fn levels(len: usize) -> Vec<usize> {
    let mut out = vec![len];
    let mut l = len;
    while l > BLOCK as usize {
        l = l.div_ceil(BLOCK as usize);
        out.push(l);
    }
    out
}

/// Exclusive prefix sums of `data` (wrapping) and the total.
pub fn reference(data: &[u32]) -> (Vec<u32>, u32) {
    let mut sum = 0u32;
    let out = data
        .iter()
        .map(|&x| {
            let before = sum;
            sum = sum.wrapping_add(x);
            before
        })
        .collect();
    (out, sum)
}

/// The kernel's two entry points on the CPU, level by level as the host records them: the
/// same result as [`reference()`], through the blocks.
pub fn by_blocks(data: &[u32]) -> (Vec<u32>, u32) {
    let lens = levels(data.len());
    let mut lv: Vec<Vec<u32>> = vec![data.to_vec()];
    for &l in &lens[1..] {
        lv.push(vec![0; l]);
    }
    lv.push(vec![0; 1]);
    let b = BLOCK as usize;
    for k in 0..lens.len() {
        let (lower, upper) = lv.split_at_mut(k + 1);
        let (d, sums) = (&mut lower[k], &mut upper[0]);
        for (block, chunk) in d.chunks_mut(b).enumerate() {
            let (scanned, total) = reference(chunk);
            chunk.copy_from_slice(&scanned);
            sums[block] = total;
        }
    }
    for k in (0..lens.len() - 1).rev() {
        let (lower, upper) = lv.split_at_mut(k + 1);
        for (i, x) in lower[k].iter_mut().enumerate() {
            *x = x.wrapping_add(upper[0][i / b]);
        }
    }
    let total = lv[lens.len()][0];
    (lv.swap_remove(0), total)
}
