// hamming_join: every pair of fingerprints within a run of equal keys, within tau.
//
// Keep in sync with src/kernels/hamming_join.rs: Params, Tile, the binding list and
// WORKGROUP_SIZE, and the CPU reference there, which this kernel must match pair for pair.
//
// The host sorts one table's fingerprints by key and uploads the runs of equal keys (two or
// more members) back to back; ends[i] is one past the last member of row i's run. A tile is up
// to WORKGROUP_SIZE consecutive rows and a span of columns, one invocation per row. Row i is
// compared with column j when i < j < ends[i], so small runs pack many to a tile and a giant
// run is cut into many tiles. A tile spanning at most DIRECT_SPAN columns (short runs) is
// compared directly: it holds up to 2 * WORKGROUP_SIZE rows, and invocation k walks the
// columns of row start + k and of row end - 1 - k, read through the cache. A row's work falls
// along its run (the first member has the most columns, the last none) and mirrored rows
// pair the front of one run with the back of another, so with runs of equal length every
// invocation has the same work. A wider tile (a long run) holds up to WORKGROUP_SIZE rows,
// one per invocation, and stages its columns through workgroup memory WORKGROUP_SIZE at a
// time, each loaded once for all rows. A pair is kept when its 64-bit distance is within tau and no earlier table's key bits
// all agree (the earlier table found it). Pairs are appended through an atomic counter; slots
// past `capacity` are counted but not written, so the host can grow the buffer and run again.

struct Params {
    tau: u32,
    n_earlier: u32,
    capacity: u32,
    n_tiles: u32,
    tiles_per_row: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

struct Tile {
    row_start: u32,
    row_end: u32,
    col_start: u32,
    col_end: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> fps: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> ends: array<u32>;
@group(0) @binding(3) var<storage, read> tiles: array<Tile>;
@group(0) @binding(4) var<storage, read> earlier: array<vec2<u32>>;
@group(0) @binding(5) var<storage, read_write> count: atomic<u32>;
@group(0) @binding(6) var<storage, read_write> pairs: array<vec2<u32>>;

const WORKGROUP_SIZE: u32 = 64u;
const DIRECT_SPAN: u32 = 256u;

var<workgroup> cols: array<vec2<u32>, WORKGROUP_SIZE>;

// Keeps the pair (row, j) at difference x when it is within tau and first found here.
fn keep(row: u32, j: u32, x: vec2<u32>) {
    let d = countOneBits(x.x) + countOneBits(x.y);
    if (d <= params.tau && first_table(x)) {
        let slot = atomicAdd(&count, 1u);
        if (slot < params.capacity) {
            pairs[slot] = vec2<u32>(row, j);
        }
    }
}

// Compares `row` with the columns of its run inside the tile's span.
fn walk(row: u32, tile: Tile) {
    let me = fps[row];
    let hi = min(ends[row], tile.col_end);
    for (var j = max(row + 1u, tile.col_start); j < hi; j++) {
        keep(row, j, me ^ fps[j]);
    }
}

// True when no earlier table keys every bit where the two fingerprints differ to zero.
fn first_table(x: vec2<u32>) -> bool {
    for (var t = 0u; t < params.n_earlier; t++) {
        let m = earlier[t];
        if ((x.x & m.x) == 0u && (x.y & m.y) == 0u) {
            return false;
        }
    }
    return true;
}

@compute @workgroup_size(64)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = wid.y * params.tiles_per_row + wid.x;
    if (t >= params.n_tiles) {
        return;
    }
    let tile = tiles[t];
    let row = tile.row_start + lid;
    if (tile.col_end - tile.col_start <= DIRECT_SPAN) {
        let rows = tile.row_end - tile.row_start;
        if (lid < (rows + 1u) / 2u) {
            walk(row, tile);
            let mirror = tile.row_end - 1u - lid;
            if (mirror > row) {
                walk(mirror, tile);
            }
        }
        return;
    }
    let live = row < tile.row_end;
    var me = vec2<u32>(0u, 0u);
    var end = 0u;
    if (live) {
        me = fps[row];
        end = ends[row];
    }
    for (var c0 = tile.col_start; c0 < tile.col_end; c0 += WORKGROUP_SIZE) {
        workgroupBarrier();
        let c = c0 + lid;
        if (c < tile.col_end) {
            cols[lid] = fps[c];
        }
        workgroupBarrier();
        let n = min(WORKGROUP_SIZE, tile.col_end - c0);
        for (var k = 0u; k < n; k++) {
            let j = c0 + k;
            if (live && j > row && j < end) {
                keep(row, j, me ^ cols[k]);
            }
        }
    }
}
