// table_runs: each place's end of bucket, its comparison items, and the table's counts.
//
// Keep in sync with src/kernels/table_runs.rs (bindings, WORKGROUP_SIZE, the CPU reference)
// and with struct TableParams and the record layout in src/kernels/table.rs.
//
// After table_scatter, bucket_ends[b] is one past bucket b's last place. Place p of its
// bucket compares with the w = end - p - 1 places after it, `chunk` at a time: the first
// chunk in table_join's pass over places, each further one an item of table_join's pass over
// items (so a giant bucket becomes many items of equal work). items[p] counts p's further
// chunks. The table's comparisons (the sum of w, 64 bits in two words) and its largest w go
// to its record.

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
@group(0) @binding(1) var<storage, read> buckets: array<u32>;
@group(0) @binding(2) var<storage, read> order: array<u32>;
@group(0) @binding(3) var<storage, read> bucket_ends: array<u32>;
@group(0) @binding(4) var<storage, read_write> ends: array<u32>;
@group(0) @binding(5) var<storage, read_write> items: array<u32>;
@group(0) @binding(6) var<storage, read_write> record: array<atomic<u32>>;

const WORKGROUP_SIZE: u32 = 256u;
// Words before the first table's record, and words per table. Keep in sync with table.rs.
const RECORD_HEAD: u32 = 8u;
const RECORD_WORDS: u32 = 8u;

var<workgroup> low: atomic<u32>;
var<workgroup> high: atomic<u32>;
var<workgroup> most: atomic<u32>;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let p = (wid.y * nwg.x + wid.x) * WORKGROUP_SIZE + lid;
    var w = 0u;
    if (p < params.n) {
        let end = bucket_ends[buckets[order[p]]];
        w = end - p - 1u;
        ends[p] = end;
        items[p] = select(0u, (w - 1u) / params.chunk, w > 0u);
    }
    // Sums of the low and high 16 bits cannot overflow over one workgroup.
    atomicAdd(&low, w & 0xFFFFu);
    atomicAdd(&high, w >> 16u);
    atomicMax(&most, w);
    workgroupBarrier();
    if (lid == 0u) {
        let r = RECORD_HEAD + params.table * RECORD_WORDS;
        let l = atomicLoad(&low);
        let h = atomicLoad(&high);
        add64(r + 2u, l, 0u);
        add64(r + 2u, h << 16u, h >> 16u);
        atomicMax(&record[r + 4u], atomicLoad(&most));
    }
}

// Adds (lo, hi) to the 64-bit count in record[at] (low word) and record[at + 1].
fn add64(at: u32, lo: u32, hi: u32) {
    let old = atomicAdd(&record[at], lo);
    let carry = select(0u, 1u, old + lo < old);
    if (hi + carry != 0u) {
        atomicAdd(&record[at + 1u], hi + carry);
    }
}
