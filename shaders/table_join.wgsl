// table_join: the comparisons of one table, and the pairs within tau.
//
// Keep in sync with src/kernels/table_join.rs (bindings, entry points, WORKGROUP_SIZE, the CPU
// reference) and with struct TableParams and the record layout in src/kernels/table.rs.
//
// Two passes. `places`: invocation p compares place p with the first `chunk` places after it
// in its bucket (most places have no more). `items`: invocation g takes further item
// g + item_lo (up to the table's total and item_hi): the place r whose items cover it (the last
// r with starts[r] <= g, by binary search over the exclusive prefix sums of the items), and
// r's (g - starts[r] + 1)-th span of `chunk` columns. item_lo and item_hi window the places
// of `places` the same way. A pair is kept when its 64-bit distance is within tau, its key
// bits agree (a hashed bucket may hold several keys), and no earlier table's key bits all
// agree (that table found it). Pairs, as indices of the uploaded fingerprints, are appended
// through the counter record[0]; slots past `capacity` are counted but not written, so the
// host can rerun the table with a larger buffer. With `split` set (two chunks of a set too
// large for one binding, uploaded one after the other), only pairs with one index below it
// and one at or above it are kept.

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
@group(0) @binding(1) var<storage, read> sorted: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> order: array<u32>;
@group(0) @binding(3) var<storage, read> ends: array<u32>;
@group(0) @binding(4) var<storage, read> starts: array<u32>;
@group(0) @binding(5) var<storage, read> masks: array<vec2<u32>>;
@group(0) @binding(6) var<storage, read_write> record: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> pairs: array<vec2<u32>>;

const WORKGROUP_SIZE: u32 = 256u;
const RECORD_HEAD: u32 = 8u;
const RECORD_WORDS: u32 = 8u;

// True when no earlier table keys every bit where the two fingerprints differ to zero.
fn first_table(x: vec2<u32>) -> bool {
    for (var t = 0u; t < params.table; t++) {
        let m = masks[t];
        if ((x.x & m.x) == 0u && (x.y & m.y) == 0u) {
            return false;
        }
    }
    return true;
}

// Compares place r with places first..last, keeping the pairs.
fn compare(r: u32, first: u32, last: u32) {
    let me = sorted[r];
    for (var j = first; j < last; j++) {
        let x = me ^ sorted[j];
        // One 32-bit popcount rejects most pairs before the second.
        let low = countOneBits(x.x);
        if (low > params.tau) {
            continue;
        }
        if (low + countOneBits(x.y) <= params.tau
            && (x.x & params.mask_lo) == 0u && (x.y & params.mask_hi) == 0u
            && first_table(x)) {
            let a = order[r];
            let b = order[j];
            // Two chunks joined together: only pairs across them (each chunk's own were
            // found when it was joined alone).
            if (params.split != 0u && (a < params.split) == (b < params.split)) {
                continue;
            }
            let slot = atomicAdd(&record[0], 1u);
            if (slot < params.capacity) {
                pairs[slot] = vec2<u32>(a, b);
            }
        }
    }
}

@compute @workgroup_size(256)
fn places(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let p = (wid.y * nwg.x + wid.x) * WORKGROUP_SIZE + lid + params.item_lo;
    if (p >= min(params.n, params.item_hi)) {
        return;
    }
    compare(p, p + 1u, min(ends[p], p + 1u + params.chunk));
}

@compute @workgroup_size(256)
fn items(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let g = (wid.y * nwg.x + wid.x) * WORKGROUP_SIZE + lid + params.item_lo;
    let total = min(atomicLoad(&record[RECORD_HEAD + params.table * RECORD_WORDS + 1u]), params.item_hi);
    if (g >= total) {
        return;
    }
    var lo = 0u;
    var hi = params.n;
    while (hi - lo > 1u) {
        let mid = (lo + hi) / 2u;
        if (starts[mid] <= g) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let first = lo + 1u + (g - starts[lo] + 1u) * params.chunk;
    compare(lo, first, min(ends[lo], first + params.chunk));
}
