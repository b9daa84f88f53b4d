// table_join: the comparisons of one table, and the pairs within tau.
//
// Keep in sync with src/kernels/table_join.rs (bindings, entry points, WORKGROUP_SIZE, the CPU
// reference) and with struct TableParams and the record layout in src/kernels/table.rs.
//
// Two passes (each in two forms: `places`/`items` compare one column a step,
// `places_unrolled`/`items_unrolled` four). `places`: invocation p compares place p with the first `chunk` places after it
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

// Keeps the pair of places r and j, whose values differ in x and whose low words differ in
// `low` bits, when it is within tau, equal on the table's key bits and first found here.
fn keep(r: u32, j: u32, x: vec2<u32>, low: u32) {
    if (low > params.tau) {
        return;
    }
    if (low + countOneBits(x.y) <= params.tau
        && (x.x & params.mask_lo) == 0u && (x.y & params.mask_hi) == 0u
        && first_table(x)) {
        let a = order[r];
        let b = order[j];
        // Two chunks joined together: only pairs across them (each chunk's own were found
        // when it was joined alone).
        if (params.split != 0u && (a < params.split) == (b < params.split)) {
            return;
        }
        let slot = atomicAdd(&record[0], 1u);
        if (slot < params.capacity) {
            pairs[slot] = vec2<u32>(a, b);
        }
    }
}

// Compares place r with places first..last, keeping the pairs, one column a step.
fn compare(r: u32, first: u32, last: u32) {
    let me = sorted[r];
    for (var j = first; j < last; j++) {
        let x = me ^ sorted[j];
        keep(r, j, x, countOneBits(x.x));
    }
}

// As `compare`, four columns a step: four loads and four 32-bit popcounts issued together,
// and one test rejects all four when none is within tau on its low word (most steps); then
// the rest one at a time. The same pairs; which is faster is the device's to say
// (`bench --unroll`).
fn compare4(r: u32, first: u32, last: u32) {
    let me = sorted[r];
    var j = first;
    while (j + 4u <= last) {
        let x0 = me ^ sorted[j];
        let x1 = me ^ sorted[j + 1u];
        let x2 = me ^ sorted[j + 2u];
        let x3 = me ^ sorted[j + 3u];
        let l0 = countOneBits(x0.x);
        let l1 = countOneBits(x1.x);
        let l2 = countOneBits(x2.x);
        let l3 = countOneBits(x3.x);
        if (min(min(l0, l1), min(l2, l3)) <= params.tau) {
            keep(r, j, x0, l0);
            keep(r, j + 1u, x1, l1);
            keep(r, j + 2u, x2, l2);
            keep(r, j + 3u, x3, l3);
        }
        j += 4u;
    }
    for (; j < last; j++) {
        let x = me ^ sorted[j];
        keep(r, j, x, countOneBits(x.x));
    }
}

// The place invocation `p` compares, or n when none.
fn place_of(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    let p = (wid.y * nwg.x + wid.x) * WORKGROUP_SIZE + lid + params.item_lo;
    if (p >= min(params.n, params.item_hi)) {
        return params.n;
    }
    return p;
}

// The place and first column of invocation `g`'s item, or (n, 0) when it has none.
fn item_of(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> vec2<u32> {
    let g = (wid.y * nwg.x + wid.x) * WORKGROUP_SIZE + lid + params.item_lo;
    let total = min(atomicLoad(&record[RECORD_HEAD + params.table * RECORD_WORDS + 1u]), params.item_hi);
    if (g >= total) {
        return vec2<u32>(params.n, 0u);
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
    return vec2<u32>(lo, lo + 1u + (g - starts[lo] + 1u) * params.chunk);
}

@compute @workgroup_size(256)
fn places(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let p = place_of(wid, nwg, lid);
    if (p < params.n) {
        compare(p, p + 1u, min(ends[p], p + 1u + params.chunk));
    }
}

@compute @workgroup_size(256)
fn items(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let it = item_of(wid, nwg, lid);
    if (it.x < params.n) {
        compare(it.x, it.y, min(ends[it.x], it.y + params.chunk));
    }
}

@compute @workgroup_size(256)
fn places_unrolled(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let p = place_of(wid, nwg, lid);
    if (p < params.n) {
        compare4(p, p + 1u, min(ends[p], p + 1u + params.chunk));
    }
}

@compute @workgroup_size(256)
fn items_unrolled(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let it = item_of(wid, nwg, lid);
    if (it.x < params.n) {
        compare4(it.x, it.y, min(ends[it.x], it.y + params.chunk));
    }
}
