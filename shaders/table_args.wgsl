// table_args: a table's item total, its pairs' first slot, and the indirect dispatch of its
// comparisons.
//
// Keep in sync with src/kernels/table_args.rs (bindings, the CPU reference) and with struct
// TableParams, the record layout and JOIN_WORKGROUP in src/kernels/table.rs.
//
// One invocation. `items` holds the exclusive prefix sums of table_runs' items, so its last
// entry (the last place's own item count is 0: nothing follows it in its bucket) is the
// table's total. The pair counter, record[0], is where this table's pairs will begin. The
// dispatch is 2-D past the adapter's per-dimension limit.

struct TableParams {
    mask_lo: u32,
    mask_hi: u32,
    n: u32,
    bits: u32,
    exact: u32,
    tau: u32,
    table: u32,
    capacity: u32,
    chunk: u32,
    item_lo: u32,
    item_hi: u32,
    max_dim: u32,
    split: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> params: TableParams;
@group(0) @binding(1) var<storage, read> items: array<u32>;
@group(0) @binding(2) var<storage, read_write> record: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> args: array<u32>;

const RECORD_HEAD: u32 = 8u;
const RECORD_WORDS: u32 = 8u;
const JOIN_WORKGROUP: u32 = 256u;

@compute @workgroup_size(1)
fn main() {
    var total = 0u;
    if (params.n > 0u) {
        total = items[params.n - 1u];
    }
    let r = RECORD_HEAD + params.table * RECORD_WORDS;
    atomicStore(&record[r], atomicLoad(&record[0]));
    atomicStore(&record[r + 1u], total);
    let groups = (total + JOIN_WORKGROUP - 1u) / JOIN_WORKGROUP;
    let x = min(groups, params.max_dim);
    var y = 0u;
    if (x > 0u) {
        y = (groups + x - 1u) / x;
    }
    args[params.table * 3u] = x;
    args[params.table * 3u + 1u] = y;
    args[params.table * 3u + 2u] = 1u;
}
