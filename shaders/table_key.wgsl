// table_key: each fingerprint's bucket under one table's key, and each bucket's size.
//
// Keep in sync with src/kernels/table_key.rs (bindings, WORKGROUP_SIZE, the CPU reference)
// and with struct TableParams in src/kernels/table.rs (every table_* kernel declares it).
//
// When the table's key has at most `bits` bits (`exact`), the bucket is the key itself: the
// masked bits gathered to the bottom, low half first, a run of set mask bits at a time (as
// x86's PEXT). Otherwise it is the top `bits` bits of a hash of the masked value: fingerprints
// with equal keys share a bucket, a bucket may hold several keys, and table_join tests the
// key of every pair it compares. Bucket sizes are counted with one atomic add each.

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
@group(0) @binding(2) var<storage, read_write> buckets: array<u32>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;

const WORKGROUP_SIZE: u32 = 256u;

// Appends the bits of `v` under `mask` to acc.x, from bit acc.y on; returns (key, next bit).
fn gather(v: u32, mask: u32, acc: vec2<u32>) -> vec2<u32> {
    var m = mask;
    var key = acc.x;
    var k = acc.y;
    while (m != 0u) {
        let b = firstTrailingBit(m);
        let len = countTrailingZeros(~(m >> b));
        key |= extractBits(v, b, len) << k;
        k += len;
        m &= ~insertBits(0u, 0xFFFFFFFFu, b, len);
    }
    return vec2<u32>(key, k);
}

// A 32-bit mix of a 64-bit value (lo, hi). Keep in sync with `mix` in table_key.rs.
fn mix(lo: u32, hi: u32) -> u32 {
    let b = hi * 0x85EBCA77u;
    var h = (lo * 0x9E3779B1u) ^ ((b << 15u) | (b >> 17u));
    h ^= h >> 16u;
    h *= 0x7FEB352Du;
    h ^= h >> 15u;
    h *= 0x846CA68Bu;
    h ^= h >> 16u;
    return h;
}

fn bucket(v: vec2<u32>) -> u32 {
    if (params.exact != 0u) {
        let lo = gather(v.x, params.mask_lo, vec2<u32>(0u, 0u));
        return gather(v.y, params.mask_hi, lo).x;
    }
    return mix(v.x & params.mask_lo, v.y & params.mask_hi) >> (32u - params.bits);
}

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
    let b = bucket(vals[i]);
    buckets[i] = b;
    atomicAdd(&counts[b], 1u);
}
