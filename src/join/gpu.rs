//! The GPU backend of the Hamming join, two ways.
//!
//! **Resident** (the default, [`GpuConfig::resident`]): the distinct fingerprints go to the
//! device once and every table of the plan is keyed, grouped, cut into items and compared
//! there, back to back, with no host round trip per table (`gpu::resident`, the `table_*`
//! kernels); the engine only collapses identical fingerprints before and builds the graph
//! after. A set larger than one storage binding goes through in pairs of chunks.
//!
//! **Batched**: the engine's plans, collapse, families and key order on the host, with the
//! all-pairs comparisons inside runs of equal keys done by `shaders/hamming_join.wgsl`.
//!
//! The engine walks a family table by table ([`Walk::TableMajor`]) and hands over each
//! table's runs as ranges of its order; the driver lays them out back to back in batches that
//! fit the adapter's binding limit. A run larger than a batch is cut into blocks and joined
//! block pair by block pair, so no run is too large. When a dispatch finds more pairs than its
//! buffer holds, the buffer is grown to the count and the batch run again (its results
//! replace, never add to, the first attempt); past the largest buffer the adapter allows, the
//! tiles are split in halves. No pair is lost or reported twice.

use rayon::prelude::*;

use super::engine::{self, Compare, Run, Table, Walk};
use super::graph::PairGraph;
use super::types::{JoinInput, JoinSpec, JoinStats, ValuePair};
use crate::gpu::hamming::HammingJoin;
use crate::gpu::resident::ResidentConfig;
use crate::gpu::{Gpu, GpuError};
use crate::kernels::hamming_join::{cross_tiles, split, tiles, Tile, WORKGROUP_SIZE};

/// Batch sizes; the defaults follow the adapter's limits, tests force tiny ones to reach the
/// overflow and chunking paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuConfig {
    /// First size of the pair buffer, in pairs.
    pub pair_capacity: u32,
    /// Most fingerprints in one batch (None: as many as one binding holds).
    pub batch: Option<usize>,
    /// Most columns in one tile.
    pub col_span: u32,
    /// The resident join's sizes; None: the batched join only.
    pub resident: Option<ResidentConfig>,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            pair_capacity: 1 << 16,
            batch: None,
            col_span: 4096,
            resident: Some(ResidentConfig::default()),
        }
    }
}

impl GpuConfig {
    /// The batched join (host-keyed tables), as before the resident join.
    pub fn batched() -> GpuConfig {
        GpuConfig {
            resident: None,
            ..GpuConfig::default()
        }
    }
}

/// What the driver did, beyond the join's own statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuStats {
    /// Kernel dispatches.
    pub dispatches: u64,
    /// Dispatches rerun because the pair buffer overflowed.
    pub reruns: u64,
    /// Batches (uploads).
    pub batches: u64,
    /// Runs too large for one batch, joined block pair by block pair.
    pub split_runs: u64,
    /// Tables joined in a family (ordered by their shared key bits first), out of all.
    pub family_tables: u64,
    /// Lane steps of the dispatched tiles (each tile's [`Tile::lane_steps`] times the
    /// workgroup size, reruns not counted): with the comparisons, the share of the kernel's
    /// lane time that compares a pair.
    pub lane_steps: u64,
    /// Wall time of the dispatches (upload, kernel, read-back: the sum of the three below),
    /// seconds.
    pub gpu_seconds: f64,
    /// Of which loading batches onto the device (staging and copies), seconds.
    pub upload_seconds: f64,
    /// Of which from a dispatch's start (tiles uploaded, kernel run) to its counter being
    /// readable, seconds.
    pub kernel_seconds: f64,
    /// Of which reading pairs back, seconds.
    pub read_seconds: f64,
    /// Whether the join ran resident on the device (else batched).
    pub resident: bool,
    /// Windows of items run for tables whose pairs exceeded the largest buffer (resident).
    pub windows: u64,
    /// Joins of chunks of a set larger than one binding, or 1 (resident).
    pub chunks: u64,
    /// Device seconds of each stage of the resident join (`gpu::resident::STAGES`), where
    /// the adapter times passes.
    pub stages: Option<[f64; 4]>,
    /// The resident join's host work, seconds: the collapse to distinct values before the
    /// upload, the device's pairs turned into value pairs, and the graph after
    /// ([`HOST_PARTS`]).
    pub host: Option<[f64; 3]>,
}

/// The names of [`GpuStats::host`]'s parts, in order.
pub const HOST_PARTS: [&str; 3] = ["collapse", "pairs mapped", "graph"];

/// Fingerprints as the shader reads them, (low, high) halves: on a little-endian host, the
/// values' own bytes, with no copy.
fn halves(vals: &[u64]) -> std::borrow::Cow<'_, [[u32; 2]]> {
    if cfg!(target_endian = "little") {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(vals))
    } else {
        std::borrow::Cow::Owned(vals.iter().map(|v| split(*v)).collect())
    }
}

/// The fingerprints at places `i` and `j` of `vals` (a pair the device wrote) with their
/// distance.
fn value_pair(vals: &[u64], [i, j]: [u32; 2]) -> ValuePair {
    let (x, y) = (vals[i as usize], vals[j as usize]);
    ValuePair {
        x,
        y,
        d64: (x ^ y).count_ones() as u8,
    }
}

/// The GPU backend: one kernel, its batch and buffer sizes, and its counters.
struct Driver<'a, 'g> {
    kernel: &'a HammingJoin<'g>,
    /// Most fingerprints in one batch.
    batch_len: usize,
    /// The current table's distance.
    tau: u32,
    /// The current table's earlier masks, as the shader reads them.
    earlier: Vec<[u32; 2]>,
    capacity: u32,
    max_capacity: u32,
    col_span: u32,
    stats: GpuStats,
}

impl Compare for Driver<'_, '_> {
    type Part = Vec<Run>;
    type Error = GpuError;
    const WALK: Walk = Walk::TableMajor;

    #[inline]
    fn run(&self, _t: &Table, run: &[u64], at: usize, part: &mut Vec<Run>) {
        part.push(Run::at(at, run.len()));
    }

    fn table(
        &mut self,
        t: &Table,
        order: Option<&[u64]>,
        parts: Vec<Vec<Run>>,
        found: &mut Vec<ValuePair>,
    ) -> Result<(), GpuError> {
        let order = order.expect("a table-major walk hands over each table's order");
        if t.in_family {
            self.stats.family_tables += 1;
        }
        self.tau = t.tau;
        self.earlier = t.earlier.iter().map(|m| split(*m)).collect();
        self.table_runs(order, &parts, found)
    }
}

impl Driver<'_, '_> {
    /// Runs `tiles` over the loaded batch and appends the fingerprint pairs found.
    fn dispatch(
        &mut self,
        vals: &[u64],
        tiles: &[Tile],
        found: &mut Vec<ValuePair>,
    ) -> Result<(), GpuError> {
        if tiles.is_empty() {
            return Ok(());
        }
        loop {
            self.stats.dispatches += 1;
            let (pairs, count) =
                self.kernel
                    .dispatch(self.tau, self.earlier.len() as u32, tiles, self.capacity)?;
            if count <= self.capacity {
                found.extend(pairs.iter().map(|p| value_pair(vals, *p)));
                return Ok(());
            }
            self.stats.reruns += 1;
            if count <= self.max_capacity {
                self.capacity = count.next_power_of_two().min(self.max_capacity);
            } else if tiles.len() > 1 {
                let (a, b) = tiles.split_at(tiles.len() / 2);
                self.dispatch(vals, a, found)?;
                return self.dispatch(vals, b, found);
            } else {
                return Err(GpuError::Validation {
                    stage: "sizing the pair buffer",
                    msg: format!(
                        "one tile found {count} pairs, more than the largest buffer holds ({})",
                        self.max_capacity
                    ),
                });
            }
        }
    }

    /// Loads a batch (its fingerprints and ends, and the table's earlier masks).
    fn load(&self, vals: &[u64], ends: &[u32]) -> Result<(), GpuError> {
        self.kernel.load(&halves(vals), ends, &self.earlier)
    }

    /// Counts the lane steps of `tiles` (once per batch, not per rerun or split).
    fn count_lanes(&mut self, tiles: &[Tile], ends: &[u32]) {
        self.stats.lane_steps += tiles
            .par_iter()
            .map(|t| t.lane_steps(ends) * u64::from(WORKGROUP_SIZE))
            .sum::<u64>();
    }

    /// Joins runs laid out back to back (`vals`, with `ends`).
    fn batch(
        &mut self,
        vals: &[u64],
        ends: &[u32],
        found: &mut Vec<ValuePair>,
    ) -> Result<(), GpuError> {
        self.stats.batches += 1;
        let t = tiles(ends, self.col_span);
        if t.is_empty() {
            return Ok(());
        }
        self.load(vals, ends)?;
        self.count_lanes(&t, ends);
        self.dispatch(vals, &t, found)
    }

    /// Joins one run too large for a batch: blocks of half a batch, every pair of blocks.
    fn giant(
        &mut self,
        run: &[u64],
        batch: usize,
        found: &mut Vec<ValuePair>,
    ) -> Result<(), GpuError> {
        self.stats.split_runs += 1;
        let block = (batch / 2).max(1);
        let blocks: Vec<&[u64]> = run.chunks(block).collect();
        for p in 0..blocks.len() {
            for q in p..blocks.len() {
                let (bp, bq) = (blocks[p], blocks[q]);
                if p == q {
                    self.batch(bp, &vec![bp.len() as u32; bp.len()], found)?;
                    continue;
                }
                // Rows from block p, columns from block q, uploaded after it.
                self.stats.batches += 1;
                let vals: Vec<u64> = bp.iter().chain(bq).copied().collect();
                let ends = vec![vals.len() as u32; vals.len()];
                let t = cross_tiles(bp.len() as u32, vals.len() as u32, self.col_span);
                if t.is_empty() {
                    continue;
                }
                self.load(&vals, &ends)?;
                self.count_lanes(&t, &ends);
                self.dispatch(&vals, &t, found)?;
            }
        }
        Ok(())
    }

    /// Joins the runs `groups` of one table's order `entries` (one list per part of the
    /// order), packed into batches of at most a batch of fingerprints; a run longer than a
    /// batch is joined block pair by block pair.
    fn table_runs(
        &mut self,
        entries: &[u64],
        groups: &[Vec<Run>],
        found: &mut Vec<ValuePair>,
    ) -> Result<(), GpuError> {
        let batch = self.batch_len;
        let lens: Vec<usize> = groups
            .par_iter()
            .map(|g| g.iter().map(Run::len).sum())
            .collect();
        let total: usize = lens.iter().sum();
        if total <= batch {
            // The usual case on a hardware adapter: the whole table is one batch, packed
            // region by region in parallel.
            let (vals, ends) = pack(entries, groups, &lens, total);
            return self.batch(&vals, &ends, found);
        }
        let (mut vals, mut ends) = (Vec::new(), Vec::new());
        for r in groups.iter().flatten() {
            let run = &entries[r.start as usize..r.end as usize];
            if run.len() > batch {
                self.giant(run, batch, found)?;
                continue;
            }
            if vals.len() + run.len() > batch {
                self.batch(&vals, &ends, found)?;
                vals.clear();
                ends.clear();
            }
            vals.extend_from_slice(run);
            ends.extend(std::iter::repeat_n(vals.len() as u32, run.len()));
        }
        if !vals.is_empty() {
            self.batch(&vals, &ends, found)?;
        }
        Ok(())
    }
}

/// The runs `groups` of `entries` (one list per region, `lens[r]` members in region `r`'s
/// runs, `total` in all) laid out back to back, each region's from the shortest to the
/// longest, with each member's end of run; filled region by region in parallel.
fn pack(
    entries: &[u64],
    groups: &[Vec<Run>],
    lens: &[usize],
    total: usize,
) -> (Vec<u64>, Vec<u32>) {
    let mut vals = vec![0u64; total];
    let mut ends = vec![0u32; total];
    let mut parts = Vec::with_capacity(groups.len());
    let (mut v, mut e, mut at) = (&mut vals[..], &mut ends[..], 0usize);
    for (g, &len) in groups.iter().zip(lens) {
        let (vh, vt) = v.split_at_mut(len);
        let (eh, et) = e.split_at_mut(len);
        parts.push((g, vh, eh, at));
        (v, e, at) = (vt, et, at + len);
    }
    parts.into_par_iter().for_each(|(g, vals, ends, at)| {
        // Runs of a region by length: a tile's runs then have about equal work per row pair.
        let mut g = g.clone();
        g.sort_by_key(Run::len);
        let mut k = 0;
        for r in &g {
            let n = r.len();
            vals[k..k + n].copy_from_slice(&entries[r.start as usize..r.end as usize]);
            ends[k..k + n].fill((at + k + n) as u32);
            k += n;
        }
    });
    (vals, ends)
}

/// Self-join of `input` as `spec` says, with the comparisons on `gpu`; the same result as
/// [`cpu::join_graph`](super::cpu::join_graph), with the driver's counters.
pub fn join_graph(
    gpu: &Gpu,
    cfg: &GpuConfig,
    input: JoinInput,
    spec: &JoinSpec,
) -> Result<(PairGraph, JoinStats, GpuStats), GpuError> {
    if let Some(rc) = &cfg.resident {
        match resident_graph(gpu, rc, input.clone(), spec) {
            Err(GpuError::TooLarge { .. }) => {}
            other => return other,
        }
    }
    let kernel = gpu.hamming_join()?;
    // A batch's fingerprints (8 bytes) must fit one binding; ends take 4, tiles less.
    let limit = (gpu.max_binding() / 8).min(u64::from(u32::MAX / 2)) as usize;
    let mut d = Driver {
        kernel: &kernel,
        batch_len: cfg.batch.unwrap_or(limit).clamp(2, limit.max(2)),
        tau: spec.tau(),
        earlier: Vec::new(),
        capacity: cfg.pair_capacity.max(1),
        max_capacity: (gpu.max_binding() / 8).min(u64::from(u32::MAX)) as u32,
        col_span: cfg.col_span.max(1),
        stats: GpuStats::default(),
    };
    let (graph, stats) = engine::join(input, spec, &mut d)?;
    let t = kernel.timing();
    d.stats.upload_seconds = t.upload;
    d.stats.kernel_seconds = t.kernel;
    d.stats.read_seconds = t.read;
    d.stats.gpu_seconds = t.upload + t.kernel + t.read;
    Ok((graph, stats, d.stats))
}

/// The join resident on the device: the distinct values uploaded once, every table there.
fn resident_graph(
    gpu: &Gpu,
    rc: &ResidentConfig,
    input: JoinInput,
    spec: &JoinSpec,
) -> Result<(PairGraph, JoinStats, GpuStats), GpuError> {
    let kernels = gpu.resident()?;
    let masks = &spec.plan().tables;
    let mut g = GpuStats {
        resident: true,
        ..GpuStats::default()
    };
    let started = std::time::Instant::now();
    // The host's parts: until the closure runs, the pairs' mapping, and after it.
    let (mut collapsed, mut mapping, mut mapped) = (0.0, 0.0, 0.0);
    let (graph, stats) = engine::join_with(input, spec, |values, _, stats| {
        collapsed = started.elapsed().as_secs_f64();
        let out = kernels.join(&halves(values), masks, spec.tau(), rc)?;
        for t in &out.tables {
            stats.comparisons += t.comparisons;
            if t.comparisons > 0 {
                stats.largest_run = stats.largest_run.max(u64::from(t.most) + 1);
            }
        }
        g.batches = 1;
        g.dispatches = masks.len() as u64;
        g.reruns = out.timing.reruns;
        g.windows = out.timing.windows;
        g.chunks = out.timing.chunks;
        g.stages = out.timing.stages;
        g.upload_seconds = out.timing.upload;
        g.kernel_seconds = out.timing.tables;
        g.read_seconds = out.timing.read;
        g.gpu_seconds = out.timing.upload + out.timing.tables + out.timing.read;
        let map = std::time::Instant::now();
        let pairs = out
            .pairs
            .par_iter()
            .map(|p| value_pair(values, *p))
            .collect();
        mapping = map.elapsed().as_secs_f64();
        mapped = started.elapsed().as_secs_f64();
        Ok(pairs)
    })?;
    g.host = Some([collapsed, mapping, started.elapsed().as_secs_f64() - mapped]);
    Ok((graph, stats, g))
}

#[cfg(test)]
mod tests {
    use super::{pack, Run};

    /// The parallel pack lays the runs out as one pass over them would, each region's
    /// runs from the shortest to the longest (equal lengths in order).
    #[test]
    fn pack_lays_runs_out_by_length_region_by_region() {
        let entries: Vec<u64> = (0..1000u64).map(|i| i * 7919 % 1009).collect();
        // Regions of runs (empty ones included), ranges of `entries` in order.
        let run = |start, end| Run { start, end };
        let groups: Vec<Vec<Run>> = vec![
            vec![run(0, 2), run(5, 9)],
            vec![],
            vec![run(100, 103), run(103, 140), run(200, 202)],
            vec![run(998, 1000)],
        ];
        let lens: Vec<usize> = groups
            .iter()
            .map(|g| g.iter().map(Run::len).sum())
            .collect();
        let total = lens.iter().sum();
        let (vals, ends) = pack(&entries, &groups, &lens, total);
        let (mut want_vals, mut want_ends) = (Vec::new(), Vec::new());
        for g in &groups {
            let mut g = g.clone();
            g.sort_by_key(Run::len);
            for r in g {
                want_vals.extend_from_slice(&entries[r.start as usize..r.end as usize]);
                let end = want_vals.len() as u32;
                want_ends.extend(std::iter::repeat_n(end, r.len()));
            }
        }
        assert_eq!(vals, want_vals);
        assert_eq!(ends, want_ends);
        assert_eq!(total, 50);
    }
}
