//! The GPU kernels' host-side contracts: one file per WGSL file in `shaders/`, with the same
//! stem. Each holds the structs shared with the shader (`#[repr(C)]`, Pod, size-checked), the
//! binding list and workgroup size that a naga test checks against the WGSL, and a plain CPU
//! reference written in the shader's shape, which the GPU must match pair for pair.
//!
//! Nothing here touches wgpu; `crate::gpu` runs the kernels.

pub mod hamming_join;
pub mod pipeline;
pub mod scan;
pub mod table;
pub mod table_args;
pub mod table_join;
pub mod table_key;
pub mod table_runs;
pub mod table_scatter;

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

/// What a shader promises its host: the file, its entry points, workgroup size, bindings
/// (group 0, in order), the constants it shares with the spec, and the byte sizes of the
/// structs it shares. A naga test checks each against the WGSL.
#[derive(Clone, Copy, Debug)]
pub struct KernelSpec {
    /// File name under `shaders/`.
    pub shader: &'static str,
    /// Entry points, all with `workgroup_size`.
    pub entries: &'static [&'static str],
    /// Invocations per workgroup (x; y and z are 1).
    pub workgroup_size: u32,
    /// Bindings of group 0: number, variable name, kind.
    pub bindings: &'static [(u32, &'static str, BindingKind)],
    /// `const` values of the shader equal to the spec's.
    pub constants: &'static [(&'static str, u32)],
    /// Structs shared with the host, by name, and their size in bytes.
    pub structs: &'static [(&'static str, usize)],
}

/// Every kernel's contract.
pub const ALL: [KernelSpec; 7] = [
    hamming_join::SPEC,
    scan::SPEC,
    table_key::SPEC,
    table_scatter::SPEC,
    table_runs::SPEC,
    table_args::SPEC,
    table_join::SPEC,
];
