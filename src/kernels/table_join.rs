//! `shaders/table_join.wgsl`: one table's comparisons and the pairs within tau that this
//! table finds first.
//!
//! Entry `places` compares each place with the first `chunk` places after it in its bucket;
//! entry `items` takes the further chunks of long buckets, item `g` belonging to the last place
//! `r` whose first item is at or before it (the exclusive prefix sums of the items, searched)
//! and comparing `r` with its `(g - starts[r] + 1)`-th span of `chunk` places, up to `r`'s end
//! of bucket. `places_unrolled` and `items_unrolled` are the same passes comparing four
//! columns a step (the same pairs, in another order). A pair is kept when within tau, equal on the table's key bits, and equal on no
//! earlier table's. [`reference()`] is both passes on the CPU, invocation by invocation.

use super::table::TableParams;
use super::{BindingKind, KernelSpec};

/// Invocations per workgroup, one item each.
pub const WORKGROUP_SIZE: u32 = super::table::JOIN_WORKGROUP;

/// The shader's contract.
pub const SPEC: KernelSpec = KernelSpec {
    shader: "table_join.wgsl",
    entries: &["places", "items", "places_unrolled", "items_unrolled"],
    workgroup_size: WORKGROUP_SIZE,
    bindings: &[
        (0, "params", BindingKind::Uniform),
        (1, "sorted", BindingKind::StorageRead),
        (2, "order", BindingKind::StorageRead),
        (3, "ends", BindingKind::StorageRead),
        (4, "starts", BindingKind::StorageRead),
        (5, "masks", BindingKind::StorageRead),
        (6, "record", BindingKind::StorageReadWrite),
        (7, "pairs", BindingKind::StorageReadWrite),
    ],
    constants: &[
        ("WORKGROUP_SIZE", WORKGROUP_SIZE),
        ("RECORD_HEAD", super::table::RECORD_HEAD as u32),
        ("RECORD_WORDS", super::table::RECORD_WORDS as u32),
    ],
    structs: &[("TableParams", std::mem::size_of::<TableParams>())],
};

/// One table laid out bucket by bucket, as `table_join` reads it.
#[derive(Clone, Copy, Debug)]
pub struct Laid<'a> {
    /// The values in place order.
    pub sorted: &'a [[u32; 2]],
    /// Each place's value index.
    pub order: &'a [u32],
    /// Each place's end of bucket.
    pub ends: &'a [u32],
    /// Each place's first item (exclusive prefix sums of the items).
    pub starts: &'a [u32],
}

/// Both passes on the CPU: places `item_lo..min(n, item_hi)`, then items
/// `item_lo..min(total, item_hi)`; the pairs written (in slot order, up to the capacity) and
/// the counter's final value, from `counter`.
pub fn reference(
    p: &TableParams,
    laid: Laid<'_>,
    masks: &[[u32; 2]],
    total: u32,
    counter: u32,
) -> (Vec<[u32; 2]>, u32) {
    let Laid {
        sorted,
        order,
        ends,
        starts,
    } = laid;
    let (mut pairs, mut count) = (Vec::new(), counter);
    let n = p.n as usize;
    let mut compare = |r: usize, first: u32, last: u32| {
        let me = sorted[r];
        for j in first..last {
            let c = sorted[j as usize];
            let x = [me[0] ^ c[0], me[1] ^ c[1]];
            let d = x[0].count_ones() + x[1].count_ones();
            let key = x[0] & p.mask_lo == 0 && x[1] & p.mask_hi == 0;
            let first_table = masks[..p.table as usize]
                .iter()
                .all(|m| !(x[0] & m[0] == 0 && x[1] & m[1] == 0));
            let (a, b) = (order[r], order[j as usize]);
            let across = p.split == 0 || (a < p.split) != (b < p.split);
            if d <= p.tau && key && first_table && across {
                if count < p.capacity {
                    pairs.push([a, b]);
                }
                count += 1;
            }
        }
    };
    for r in p.item_lo..p.n.min(p.item_hi) {
        compare(r as usize, r + 1, ends[r as usize].min(r + 1 + p.chunk));
    }
    for g in p.item_lo..total.min(p.item_hi) {
        let r = starts[..n].partition_point(|&s| s <= g) - 1;
        let first = r as u32 + 1 + (g - starts[r] + 1) * p.chunk;
        compare(r, first, ends[r].min(first + p.chunk));
    }
    (pairs, count)
}
