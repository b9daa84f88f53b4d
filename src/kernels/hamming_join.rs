//! `shaders/hamming_join.wgsl`: compares fingerprints within runs of equal keys.
//!
//! The host lays one table's runs (two or more members) out back to back as `fps`, with
//! `ends[i]` one past the end of row i's run, and cuts the rows into [`Tile`]s of at most
//! [`WORKGROUP_SIZE`] rows and a span of columns. Row i is compared with column j when
//! `i < j < ends[i]` and the column lies in the tile's span. A tile of at most [`DIRECT_SPAN`]
//! columns (short runs) is compared directly: it holds up to twice [`WORKGROUP_SIZE`] rows,
//! and invocation k walks the columns of the tile's k-th row and of its k-th row from the
//! end (the front of one run paired with the back of another, so equal runs give every
//! invocation equal work). A wider tile holds one row per invocation and stages its columns
//! through workgroup memory for all rows at once; a pair within `tau` that no
//! earlier table would have found is appended as (i, j). [`reference()`] is the kernel in plain
//! Rust, loop for loop.

use bytemuck::{Pod, Zeroable};

use super::{BindingKind, KernelSpec};

/// File name under `shaders/`.
pub const SHADER: &str = "hamming_join.wgsl";
/// Entry point.
pub const ENTRY: &str = "main";
/// Invocations per workgroup, and the most rows a tile may hold.
pub const WORKGROUP_SIZE: u32 = 64;

/// Tiles spanning at most this many columns are compared directly (see [`Tile::direct`]).
/// Keep in sync with the shader.
pub const DIRECT_SPAN: u32 = 256;

/// Bindings of group 0, in order. Keep in sync with the shader.
pub const BINDINGS: [(u32, &str, BindingKind); 7] = [
    (0, "params", BindingKind::Uniform),
    (1, "fps", BindingKind::StorageRead),
    (2, "ends", BindingKind::StorageRead),
    (3, "tiles", BindingKind::StorageRead),
    (4, "earlier", BindingKind::StorageRead),
    (5, "count", BindingKind::StorageReadWrite),
    (6, "pairs", BindingKind::StorageReadWrite),
];

/// The shader's contract.
pub const SPEC: KernelSpec = KernelSpec {
    shader: SHADER,
    entries: &[ENTRY],
    workgroup_size: WORKGROUP_SIZE,
    bindings: &BINDINGS,
    constants: &[
        ("WORKGROUP_SIZE", WORKGROUP_SIZE),
        ("DIRECT_SPAN", DIRECT_SPAN),
    ],
    structs: &[
        ("Params", std::mem::size_of::<Params>()),
        ("Tile", std::mem::size_of::<Tile>()),
    ],
};

/// Uniform parameters. Keep in sync with `struct Params` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Params {
    /// Largest 64-bit distance kept.
    pub tau: u32,
    /// Entries of `earlier` in use.
    pub n_earlier: u32,
    /// Pair slots in `pairs`.
    pub capacity: u32,
    /// Tiles in this dispatch.
    pub n_tiles: u32,
    /// Workgroups along x (dispatches are 2-D past the per-dimension limit).
    pub tiles_per_row: u32,
    /// Zero.
    pub pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<Params>() == 32);

/// Rows `row_start..row_end` against columns `col_start..col_end`. Keep in sync with
/// `struct Tile` in the shader.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Tile {
    /// First row.
    pub row_start: u32,
    /// One past the last row (at most `WORKGROUP_SIZE` rows).
    pub row_end: u32,
    /// First column.
    pub col_start: u32,
    /// One past the last column.
    pub col_end: u32,
}
const _: () = assert!(std::mem::size_of::<Tile>() == 16);

impl Tile {
    /// Whether the kernel compares this tile directly, each invocation over its own row's
    /// columns only, rather than staging columns through workgroup memory.
    pub fn direct(&self) -> bool {
        self.col_end - self.col_start <= DIRECT_SPAN
    }

    /// Most rows the tile may hold: twice the workgroup for a direct tile (two rows per
    /// invocation), the workgroup for a staged one.
    pub fn max_rows(&self) -> u32 {
        if self.direct() {
            2 * WORKGROUP_SIZE
        } else {
            WORKGROUP_SIZE
        }
    }

    /// The rows invocation `lid` compares in a direct tile: the `lid`-th and the `lid`-th from
    /// the end (one row when they meet, none past the middle).
    pub fn direct_rows(&self, lid: u32) -> impl Iterator<Item = u32> {
        let rows = self.row_end - self.row_start;
        let n = if lid < rows / 2 {
            2
        } else {
            usize::from(lid < rows.div_ceil(2))
        };
        [self.row_start + lid, self.row_end.wrapping_sub(1 + lid)]
            .into_iter()
            .take(n)
    }

    /// Columns of `row` a direct tile walks.
    pub fn direct_cols(&self, row: u32, ends: &[u32]) -> std::ops::Range<u32> {
        (row + 1).max(self.col_start)..ends[row as usize].min(self.col_end)
    }

    /// Column steps the tile's invocations take in the kernel: those of the busiest
    /// invocation for a direct tile (lanes of a group wait for the longest), every column for a
    /// staged one. With the pairs compared, the share of lane time that does useful work.
    pub fn lane_steps(&self, ends: &[u32]) -> u64 {
        if self.direct() {
            let busiest = (0..WORKGROUP_SIZE)
                .map(|lid| {
                    self.direct_rows(lid)
                        .map(|r| self.direct_cols(r, ends).len())
                        .sum::<usize>()
                })
                .max()
                .unwrap_or(0);
            busiest as u64
        } else {
            u64::from(self.col_end - self.col_start)
        }
    }
}

/// A fingerprint as the shader sees it: (low 32 bits, high 32 bits).
#[inline]
pub fn split(v: u64) -> [u32; 2] {
    [v as u32, (v >> 32) as u32]
}

/// The kernel on the CPU, invocation by invocation: the pairs a dispatch writes (in slot
/// order, up to `capacity`) and the counter's final value.
pub fn reference(
    p: &Params,
    fps: &[[u32; 2]],
    ends: &[u32],
    tiles: &[Tile],
    earlier: &[[u32; 2]],
) -> (Vec<[u32; 2]>, u32) {
    let first_table = |x: [u32; 2]| {
        earlier[..p.n_earlier as usize]
            .iter()
            .all(|m| !(x[0] & m[0] == 0 && x[1] & m[1] == 0))
    };
    let (mut pairs, mut count) = (Vec::new(), 0u32);
    for tile in &tiles[..p.n_tiles as usize] {
        for lid in 0..WORKGROUP_SIZE {
            // Direct: up to two rows, each over its own columns; staged: one row over every
            // column of the span, tested.
            let rows: Vec<(u32, std::ops::Range<u32>)> = if tile.direct() {
                tile.direct_rows(lid)
                    .map(|r| (r, tile.direct_cols(r, ends)))
                    .collect()
            } else if tile.row_start + lid < tile.row_end {
                vec![(tile.row_start + lid, tile.col_start..tile.col_end)]
            } else {
                Vec::new()
            };
            for (row, cols) in rows {
                let (me, end) = (fps[row as usize], ends[row as usize]);
                for j in cols {
                    if j > row && j < end {
                        let c = fps[j as usize];
                        let x = [me[0] ^ c[0], me[1] ^ c[1]];
                        let d = x[0].count_ones() + x[1].count_ones();
                        if d <= p.tau && first_table(x) {
                            if count < p.capacity {
                                pairs.push([row, j]);
                            }
                            count += 1;
                        }
                    }
                }
            }
        }
    }
    (pairs, count)
}

/// Tiles covering every (row, column) pair with `row < column < ends[row]` over rows
/// `0..ends.len()`, at most `col_span` columns and [`Tile::max_rows`] rows each: short runs
/// in direct tiles of up to twice `WORKGROUP_SIZE` rows, long ones in tiles of
/// `WORKGROUP_SIZE` rows cut into spans of columns. `ends` must be non-decreasing (runs laid
/// out back to back).
pub fn tiles(ends: &[u32], col_span: u32) -> Vec<Tile> {
    let mut out = Vec::new();
    let n = ends.len() as u32;
    let mut r = 0;
    while r < n {
        // Whole runs (or the rest of one) while they fit a direct tile: cut at run ends, the
        // mirrored rows of runs of equal length have equal work together.
        let most = (2 * WORKGROUP_SIZE).min(DIRECT_SPAN.min(col_span) + 1);
        let mut e = r;
        while e < n && ends[e as usize] - r <= most {
            e = ends[e as usize];
        }
        if e > r {
            if e - r > 1 {
                out.push(Tile {
                    row_start: r,
                    row_end: e,
                    col_start: r + 1,
                    col_end: e,
                });
            }
            r = e;
            continue;
        }
        // The next rows of a longer run, while its columns are few enough to walk directly.
        let wide_end = (r + 2 * WORKGROUP_SIZE).min(n);
        let span = ends[wide_end as usize - 1] - (r + 1);
        if span <= DIRECT_SPAN.min(col_span) {
            out.push(Tile {
                row_start: r,
                row_end: wide_end,
                col_start: r + 1,
                col_end: r + 1 + span,
            });
            r = wide_end;
            continue;
        }
        let row_end = (r + WORKGROUP_SIZE).min(n);
        let col_end = ends[row_end as usize - 1];
        let mut c = r + 1;
        while c < col_end {
            let ce = (c + col_span).min(col_end);
            out.push(Tile {
                row_start: r,
                row_end,
                col_start: c,
                col_end: ce,
            });
            c = ce;
        }
        r = row_end;
    }
    out
}

/// Tiles covering rows `0..rows` against columns `rows..total`, and nothing else: two blocks
/// of one giant run uploaded one after the other, whose pairs within a block are joined
/// elsewhere.
pub fn cross_tiles(rows: u32, total: u32, col_span: u32) -> Vec<Tile> {
    let mut out = Vec::new();
    for r in (0..rows).step_by(WORKGROUP_SIZE as usize) {
        let mut c = rows;
        while c < total {
            out.push(Tile {
                row_start: r,
                row_end: (r + WORKGROUP_SIZE).min(rows),
                col_start: c,
                col_end: (c + col_span).min(total),
            });
            c += col_span;
        }
    }
    out
}
