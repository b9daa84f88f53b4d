//! `shaders/table_args.wgsl`: a table's item total, the first slot of its pairs, and the
//! indirect dispatch of `table_join` over its items (2-D past the per-dimension limit).

use super::table::{TableParams, JOIN_WORKGROUP};
use super::{BindingKind, KernelSpec};

/// The shader's contract: one invocation.
pub const SPEC: KernelSpec = KernelSpec {
    shader: "table_args.wgsl",
    entries: &["main"],
    workgroup_size: 1,
    bindings: &[
        (0, "params", BindingKind::Uniform),
        (1, "items", BindingKind::StorageRead),
        (2, "record", BindingKind::StorageReadWrite),
        (3, "args", BindingKind::StorageReadWrite),
    ],
    constants: &[
        ("RECORD_HEAD", super::table::RECORD_HEAD as u32),
        ("RECORD_WORDS", super::table::RECORD_WORDS as u32),
        ("JOIN_WORKGROUP", JOIN_WORKGROUP),
    ],
    structs: &[("TableParams", std::mem::size_of::<TableParams>())],
};

/// The kernel on the CPU, given the scanned items and the pair counter: the table's items,
/// its first pair slot, and the dispatch's workgroups (x, y, z).
pub fn reference(p: &TableParams, item_starts: &[u32], counter: u32) -> (u32, u32, [u32; 3]) {
    let total = if p.n > 0 {
        item_starts[p.n as usize - 1]
    } else {
        0
    };
    let groups = total.div_ceil(JOIN_WORKGROUP);
    let x = groups.min(p.max_dim);
    let y = if x > 0 { groups.div_ceil(x) } else { 0 };
    (total, counter, [x, y, 1])
}
