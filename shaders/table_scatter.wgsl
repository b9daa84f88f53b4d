// table_scatter: the fingerprints laid out bucket by bucket.
//
// Keep in sync with src/kernels/table_scatter.rs (bindings, WORKGROUP_SIZE, the CPU
// reference) and with struct TableParams in src/kernels/table.rs.
//
// `starts` holds each bucket's first position (the exclusive prefix sums of table_key's
// counts); each fingerprint takes the next free place of its bucket with one atomic add, so
// that afterwards starts[b] is one past bucket b's last place. Members of a bucket come in no
// particular order: the pairs of a bucket do not depend on it. `order` maps a place to its
// fingerprint's index, `sorted` holds the fingerprint itself, read in order by table_join.

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
@group(0) @binding(1) var<storage, read> vals: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> buckets: array<u32>;
@group(0) @binding(3) var<storage, read_write> starts: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> order: array<u32>;
@group(0) @binding(5) var<storage, read_write> sorted: array<vec2<u32>>;

const WORKGROUP_SIZE: u32 = 256u;

@compute @workgroup_size(256)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = (wid.y * nwg.x + wid.x) * WORKGROUP_SIZE + lid;
    if (i >= params.n) {
        return;
    }
    let at = atomicAdd(&starts[buckets[i]], 1u);
    order[at] = i;
    sorted[at] = vals[i];
}
