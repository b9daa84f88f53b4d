// scan: exclusive prefix sums of u32 in place, a block of BLOCK values per workgroup.
//
// Keep in sync with src/kernels/scan.rs (bindings, entry points, constants, the CPU
// reference there). `scan_blocks` turns each block of `data` into its exclusive prefix sums
// and writes the block's total to `sums[block]`; once `sums` is itself scanned (the same
// kernel one level up, until a level fits one block), `add_sums` adds each block's offset to
// its values. A level of one block leaves the whole total in sums[0].

struct ScanParams {
    len: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> sp: ScanParams;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> sums: array<u32>;

const WORKGROUP_SIZE: u32 = 256u;
const PER_INVOCATION: u32 = 4u;
const BLOCK: u32 = 1024u;

var<workgroup> part: array<u32, 256>;

@compute @workgroup_size(256)
fn scan_blocks(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let block = wid.y * nwg.x + wid.x;
    if (block * BLOCK >= sp.len) {
        return;
    }
    let base = block * BLOCK + lid * PER_INVOCATION;
    var before: array<u32, 4>;
    var sum = 0u;
    for (var k = 0u; k < PER_INVOCATION; k++) {
        before[k] = sum;
        if (base + k < sp.len) {
            sum += data[base + k];
        }
    }
    part[lid] = sum;
    // Inclusive scan of the invocations' sums (Hillis and Steele).
    for (var off = 1u; off < WORKGROUP_SIZE; off <<= 1u) {
        workgroupBarrier();
        var add = 0u;
        if (lid >= off) {
            add = part[lid - off];
        }
        workgroupBarrier();
        part[lid] += add;
    }
    workgroupBarrier();
    let offset = part[lid] - sum;
    for (var k = 0u; k < PER_INVOCATION; k++) {
        if (base + k < sp.len) {
            data[base + k] = offset + before[k];
        }
    }
    if (lid == WORKGROUP_SIZE - 1u) {
        sums[block] = part[lid];
    }
}

@compute @workgroup_size(256)
fn add_sums(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let i = (wid.y * nwg.x + wid.x) * WORKGROUP_SIZE + lid;
    if (i < sp.len) {
        data[i] += sums[i / BLOCK];
    }
}
