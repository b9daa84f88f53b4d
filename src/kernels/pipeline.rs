//! The resident join's table on the CPU: the `table_*` kernels' references one after the
//! other, as `gpu::resident` records them on the device.

use super::table::{TableParams, TableRecord};
use super::{scan, table_args, table_join, table_key, table_runs, table_scatter};

/// What one table's pipeline leaves behind, on the CPU.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableOut {
    /// The pairs written (indices of `vals`, in slot order) and the counter's final value.
    pub pairs: Vec<[u32; 2]>,
    /// The counter after the table.
    pub count: u32,
    /// The table's record.
    pub record: TableRecord,
    /// Places in bucket order, and each place's end of bucket.
    pub order: Vec<u32>,
    /// Each place's end of bucket.
    pub ends: Vec<u32>,
}

/// Table `p.table` of `masks` over `vals` on the CPU, the kernels' references one after the
/// other, with the pair counter at `counter` before it.
pub fn reference_table(
    p: &TableParams,
    vals: &[[u32; 2]],
    masks: &[[u32; 2]],
    counter: u32,
) -> TableOut {
    let (buckets, counts) = table_key::reference(p, vals);
    let (starts, _) = scan::reference(&counts);
    let (order, sorted, bucket_ends) = table_scatter::reference(p, vals, &buckets, &starts);
    let (ends, items, comparisons, most) = table_runs::reference(p, &buckets, &order, &bucket_ends);
    let (item_starts, _) = scan::reference(&items);
    let (total, base, _) = table_args::reference(p, &item_starts, counter);
    let laid = table_join::Laid {
        sorted: &sorted,
        order: &order,
        ends: &ends,
        starts: &item_starts,
    };
    let (pairs, count) = table_join::reference(p, laid, masks, total, counter);
    TableOut {
        pairs,
        count,
        record: TableRecord {
            base,
            items: total,
            comparisons,
            most,
        },
        order,
        ends,
    }
}
