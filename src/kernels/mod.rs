//! The GPU kernels' host-side contracts: one file per WGSL file in `shaders/`, with the same
//! stem. Each holds the structs shared with the shader (`#[repr(C)]`, Pod, size-checked), the
//! binding list and workgroup size that a naga test checks against the WGSL, and a plain CPU
//! reference written in the shader's shape, which the GPU must match pair for pair.
//!
//! Nothing here touches wgpu; `crate::gpu` runs the kernels.

pub mod hamming_join;

/// What a binding is, as the kernels' specs list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingKind {
    /// `var<uniform>`.
    Uniform,
    /// `var<storage, read>`.
    StorageRead,
    /// `var<storage, read_write>`.
    StorageReadWrite,
}
