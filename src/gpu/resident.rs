//! A join resident on the device: the fingerprints uploaded once, every table of a plan
//! keyed, grouped, cut into items and compared there, back to back in one submission, and the
//! pairs read back once (contract and CPU references in `kernels::table`).
//!
//! [`Resident::join`] records, for each table, `table_key`, the scan of the bucket sizes,
//! `table_scatter`, `table_runs`, the scan of the items, `table_args` and an indirect dispatch
//! of `table_join`, all appending to one pair buffer through one counter; the record (each
//! table's first pair slot, items, comparisons) comes back with the counter. When the buffer
//! overflowed, the tables whose pairs ran past it are rerun alone, with a buffer of the size
//! their record gives, or, past the largest buffer a binding allows, over windows of their
//! items. A set larger than one binding holds goes through in chunks of half a binding: each
//! alone, then every two together keeping only the pairs across them (`split`), the same pairs.

use super::{Gpu, GpuError};
use crate::kernels::scan::{self, ScanParams};
use crate::kernels::table::{self, TableParams, TableRecord, RECORD_HEAD, RECORD_WORDS};
use crate::kernels::{table_args, table_join, table_key, table_runs, table_scatter};

/// The resident join's kernels, compiled on one device.
pub struct Resident<'g> {
    gpu: &'g Gpu,
    key: Kernel,
    scan: Kernel,
    scatter: Kernel,
    runs: Kernel,
    args: Kernel,
    join: Kernel,
}

struct Kernel {
    layout: wgpu::BindGroupLayout,
    pipelines: Vec<wgpu::ComputePipeline>,
}

/// Sizes the resident join runs with; tests force small ones to reach the rerun paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResidentConfig {
    /// Most comparisons of one item (one invocation of `table_join`).
    pub chunk: u32,
    /// Pair slots of the first attempt (None: as many as fingerprints, at least 2^20).
    pub capacity: Option<u32>,
    /// Most pair slots of any buffer (None: as many as one binding holds).
    pub max_capacity: Option<u32>,
    /// Largest binding, bytes, when below the adapter's (tests force the fallback to the
    /// batched join with it).
    pub max_binding: Option<u64>,
    /// Compare four columns a step (`table_join`'s unrolled entries) instead of one.
    pub unroll: bool,
}

impl Default for ResidentConfig {
    fn default() -> Self {
        ResidentConfig {
            chunk: 32,
            capacity: None,
            max_capacity: None,
            max_binding: None,
            unroll: false,
        }
    }
}

/// Seconds spent in each part of a resident join, and its reruns.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ResidentTiming {
    /// Creating the buffers and uploading the fingerprints and masks.
    pub upload: f64,
    /// From the tables' submission to the record being readable: every table on the device.
    pub tables: f64,
    /// Reading the pairs back.
    pub read: f64,
    /// Tables rerun alone after the pair buffer overflowed.
    pub reruns: u64,
    /// Windows of items run for tables whose pairs exceed the largest buffer.
    pub windows: u64,
    /// Joins of chunks (1 when the set fits one binding; k(k+1)/2 for k chunks).
    pub chunks: u64,
    /// Device time of each of the [`STAGES`], summed over the tables (the first
    /// `TIMED_TABLES`), where the adapter has timestamp queries.
    pub stages: Option<[f64; 4]>,
}

/// What a resident join found.
#[derive(Clone, Debug, Default)]
pub struct ResidentOutput {
    /// Pairs, as indices of the fingerprints given, table after table.
    pub pairs: Vec<[u32; 2]>,
    /// Each table's record (its `base` as in the first attempt).
    pub tables: Vec<TableRecord>,
    /// Where the time went.
    pub timing: ResidentTiming,
}

impl Gpu {
    /// Compiles the resident join's kernels.
    pub fn resident(&self) -> Result<Resident<'_>, GpuError> {
        let k = |spec: &crate::kernels::KernelSpec, src: &str| -> Result<Kernel, GpuError> {
            let (layout, pipelines) = self.kernel(spec, src, super::Checks::Off)?;
            Ok(Kernel { layout, pipelines })
        };
        Ok(Resident {
            gpu: self,
            key: k(
                &table_key::SPEC,
                include_str!("../../shaders/table_key.wgsl"),
            )?,
            scan: k(&scan::SPEC, include_str!("../../shaders/scan.wgsl"))?,
            scatter: k(
                &table_scatter::SPEC,
                include_str!("../../shaders/table_scatter.wgsl"),
            )?,
            runs: k(
                &table_runs::SPEC,
                include_str!("../../shaders/table_runs.wgsl"),
            )?,
            args: k(
                &table_args::SPEC,
                include_str!("../../shaders/table_args.wgsl"),
            )?,
            join: k(
                &table_join::SPEC,
                include_str!("../../shaders/table_join.wgsl"),
            )?,
        })
    }

    /// A device buffer of `size` bytes (at least 16, a multiple of 4).
    fn buffer(&self, label: &'static str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: size.max(16).next_multiple_of(16),
            usage,
            mapped_at_creation: false,
        })
    }

    /// Reads `size` bytes of `buf` from `offset` back, once the work submitted before is done.
    fn read_back(&self, buf: &wgpu::Buffer, offset: u64, size: u64) -> Result<Vec<u8>, GpuError> {
        if size == 0 {
            return Ok(Vec::new());
        }
        let staging = self.buffer(
            "read back",
            size,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("read"),
            });
        enc.copy_buffer_to_buffer(buf, offset, &staging, 0, size);
        let submitted = self.queue.submit([enc.finish()]);
        self.map(&staging, wgpu::MapMode::Read, 0..size, Some(submitted))?;
        let out = staging
            .slice(0..size)
            .get_mapped_range()
            .map_err(|e| GpuError::Map(e.to_string()))?
            .to_vec();
        staging.unmap();
        Ok(out)
    }
}

/// Workgroups for `groups` along x, then y past the adapter's per-dimension limit.
fn grid(groups: u64, max_dim: u32) -> (u32, u32) {
    if groups == 0 {
        return (0, 0);
    }
    let x = groups.min(u64::from(max_dim)) as u32;
    (x, groups.div_ceil(u64::from(x)) as u32)
}

/// Records a dispatch of `entry` of `k` over `g`, when there is any work.
fn dispatch(
    pass: &mut wgpu::ComputePass<'_>,
    k: &Kernel,
    entry: usize,
    g: &wgpu::BindGroup,
    (x, y): (u32, u32),
) {
    if x > 0 {
        pass.set_pipeline(&k.pipelines[entry]);
        pass.set_bind_group(0, g, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }
}

/// A pass of stage `k` of a table, timed into `ts` from its index when given.
fn stage<'e>(
    enc: &'e mut wgpu::CommandEncoder,
    ts: Option<(&wgpu::QuerySet, u32)>,
    k: u32,
) -> wgpu::ComputePass<'e> {
    enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some(STAGES[k as usize]),
        timestamp_writes: ts.map(|(set, at)| wgpu::ComputePassTimestampWrites {
            query_set: set,
            beginning_of_pass_write_index: Some(at + 2 * k),
            end_of_pass_write_index: Some(at + 2 * k + 1),
        }),
    })
}

/// `table_join`'s entry points, in its spec's order.
const PLACES: usize = 0;
const ITEMS: usize = 1;
/// How far `table_join`'s unrolled entries are from the plain ones in its spec's entries.
const UNROLLED: usize = 2;

/// The stages of a table, as its passes are named and timed.
pub const STAGES: [&str; 4] = [
    "keys and bucket starts",
    "scatter",
    "runs and items",
    "comparisons",
];

/// Most tables timed (two timestamps per stage each, within one query set's limit).
const TIMED_TABLES: usize = wgpu::QUERY_SET_MAX_QUERIES as usize / 8;

/// The whole of `buf` as a binding.
fn whole(buf: &wgpu::Buffer) -> wgpu::BindingResource<'_> {
    buf.as_entire_binding()
}

/// A scan of one buffer: each level's length and bind group (params, data, sums).
struct ScanChain {
    levels: Vec<(u64, wgpu::BindGroup)>,
    /// Kept alive with their bind groups.
    _buffers: Vec<wgpu::Buffer>,
}

/// One join's buffers on the device.
struct Session<'r, 'g> {
    r: &'r Resident<'g>,
    n: usize,
    /// Bucket bits of the largest bucket array any table uses.
    count_bits: u32,
    vals: wgpu::Buffer,
    buckets: wgpu::Buffer,
    counts: wgpu::Buffer,
    order: wgpu::Buffer,
    sorted: wgpu::Buffer,
    ends: wgpu::Buffer,
    items: wgpu::Buffer,
    masks: wgpu::Buffer,
    record: wgpu::Buffer,
    args: wgpu::Buffer,
    count_scan: ScanChain,
    item_scan: ScanChain,
    max_dim: u32,
    /// `table_join`'s entries that compare four columns a step.
    unroll: bool,
}

/// A table rerun alone: its bind groups, its parameters with the rerun's capacity, its join's
/// bind group and the pair buffer that group writes to.
struct Rerun<'a> {
    b: &'a TableBinds,
    whole: &'a TableParams,
    join: &'a wgpu::BindGroup,
    pairs: &'a wgpu::Buffer,
}

/// One table's parameters on the device and its bind groups (the join's, for one pair buffer).
struct TableBinds {
    params: TableParams,
    buffer: wgpu::Buffer,
    key: wgpu::BindGroup,
    scatter: wgpu::BindGroup,
    runs: wgpu::BindGroup,
    args: wgpu::BindGroup,
}

impl<'g> Resident<'g> {
    /// The pairs of `vals` (distinct fingerprints as (low, high) halves) within `tau` under the
    /// tables `masks`, each pair from the first table whose key bits it agrees on, as indices
    /// of `vals`; with each table's record.
    ///
    /// A set larger than one binding holds goes in chunks of half a binding: each chunk joined
    /// alone, then every two chunks uploaded together with only the pairs across them kept.
    pub fn join(
        &self,
        vals: &[[u32; 2]],
        masks: &[u64],
        tau: u32,
        cfg: &ResidentConfig,
    ) -> Result<ResidentOutput, GpuError> {
        let limit = self
            .gpu
            .max_binding()
            .min(cfg.max_binding.unwrap_or(u64::MAX));
        let most = (limit / 8) as usize;
        if vals.len() <= most {
            let mut out = self.join_part(vals, masks, tau, cfg, 0)?;
            out.timing.chunks = 1;
            return Ok(out);
        }
        let half = (most / 2).max(1);
        let chunks: Vec<std::ops::Range<usize>> = (0..vals.len())
            .step_by(half)
            .map(|s| s..(s + half).min(vals.len()))
            .collect();
        let mut out = ResidentOutput {
            tables: vec![TableRecord::default(); masks.len()],
            ..ResidentOutput::default()
        };
        for p in 0..chunks.len() {
            for q in p..chunks.len() {
                let (a, b) = (chunks[p].clone(), chunks[q].clone());
                let (part, split) = if p == q {
                    (vals[a.clone()].to_vec(), 0)
                } else {
                    let mut v = vals[a.clone()].to_vec();
                    v.extend_from_slice(&vals[b.clone()]);
                    (v, a.len() as u32)
                };
                let o = self.join_part(&part, masks, tau, cfg, split)?;
                let global = |i: u32| {
                    let i = i as usize;
                    if i < a.len() {
                        (a.start + i) as u32
                    } else {
                        (b.start + i - a.len()) as u32
                    }
                };
                out.pairs
                    .extend(o.pairs.iter().map(|&[i, j]| [global(i), global(j)]));
                for (t, r) in out.tables.iter_mut().zip(&o.tables) {
                    t.items += r.items;
                    t.comparisons += r.comparisons;
                    t.most = t.most.max(r.most);
                }
                let (w, x) = (&mut out.timing, o.timing);
                w.upload += x.upload;
                w.tables += x.tables;
                w.read += x.read;
                w.reruns += x.reruns;
                w.windows += x.windows;
                w.chunks += 1;
                if let Some(st) = x.stages {
                    let sum = w.stages.get_or_insert([0.0; 4]);
                    for (s, v) in sum.iter_mut().zip(st) {
                        *s += v;
                    }
                }
            }
        }
        Ok(out)
    }

    /// [`join`](Self::join) of a set that fits one binding; with `split` set, only the pairs
    /// across it.
    fn join_part(
        &self,
        vals: &[[u32; 2]],
        masks: &[u64],
        tau: u32,
        cfg: &ResidentConfig,
        split: u32,
    ) -> Result<ResidentOutput, GpuError> {
        let mut out = ResidentOutput::default();
        if vals.len() < 2 || masks.is_empty() {
            out.tables = vec![TableRecord::default(); masks.len()];
            return Ok(out);
        }
        let started = std::time::Instant::now();
        let s = self.session(vals, masks, cfg.max_binding, cfg.unroll)?;
        let max_cap = self.max_capacity(cfg);
        let capacity = cfg
            .capacity
            .unwrap_or_else(|| (vals.len() as u32).max(1 << 20))
            .clamp(1, max_cap);
        let chunk = cfg.chunk.max(1);
        let params: Vec<TableParams> = (0..masks.len())
            .map(|t| TableParams {
                max_dim: s.max_dim,
                split,
                ..table::params(vals.len(), masks, t, tau, chunk, capacity)
            })
            .collect();
        let binds: Vec<TableBinds> = params.iter().map(|p| s.table_binds(*p)).collect();
        let pairs = self.pair_buffer(capacity);
        let ts = self.gpu.has_timestamps().then(|| {
            let n = 8 * masks.len().min(TIMED_TABLES) as u32;
            let set = self.gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("stage times"),
                ty: wgpu::QueryType::Timestamp,
                count: n,
            });
            let resolve = self.gpu.buffer(
                "stage times",
                8 * u64::from(n),
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            );
            (set, resolve)
        });
        self.gpu.queue.submit([]);
        self.gpu
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::Map(e.to_string()))?;
        out.timing.upload = started.elapsed().as_secs_f64();

        // Every table, back to back, in one submission.
        let started = std::time::Instant::now();
        self.gpu.scoped("running the resident join", || {
            let mut enc = self
                .gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("resident join"),
                });
            enc.clear_buffer(&s.record, 0, None);
            for (t, b) in binds.iter().enumerate() {
                let at = ts.as_ref().filter(|_| t < TIMED_TABLES);
                let at = at.map(|(set, _)| (set, 8 * t as u32));
                s.encode_table(&mut enc, b, Some(&s.join_group(b, &pairs)), at);
            }
            if let Some((set, resolve)) = &ts {
                let n = 8 * masks.len().min(TIMED_TABLES) as u32;
                enc.resolve_query_set(set, 0..n, resolve, 0);
            }
            self.gpu.queue.submit([enc.finish()]);
        })?;
        let words = RECORD_HEAD + RECORD_WORDS * masks.len();
        let record: Vec<u32> =
            bytemuck::pod_collect_to_vec(&self.gpu.read_back(&s.record, 0, 4 * words as u64)?);
        out.timing.tables = started.elapsed().as_secs_f64();
        if let Some((_, resolve)) = &ts {
            let n = 8 * masks.len().min(TIMED_TABLES) as u64;
            let ticks: Vec<u64> =
                bytemuck::pod_collect_to_vec(&self.gpu.read_back(resolve, 0, 8 * n)?);
            let period = f64::from(self.gpu.queue.get_timestamp_period()) * 1e-9;
            let mut stages = [0.0; 4];
            for t in ticks.chunks_exact(8) {
                for (k, s) in stages.iter_mut().enumerate() {
                    *s += t[2 * k + 1].saturating_sub(t[2 * k]) as f64 * period;
                }
            }
            out.timing.stages = Some(stages);
        }
        out.tables = (0..masks.len())
            .map(|t| TableRecord::of(&record, t))
            .collect();

        // The pairs of the tables that fit; the others again, alone.
        let started = std::time::Instant::now();
        let count = record[0];
        let bounds: Vec<u32> = out.tables.iter().map(|t| t.base).chain([count]).collect();
        // Tables run one after another: those whose pairs all fit come first.
        let kept = (0..masks.len())
            .take_while(|&t| bounds[t + 1] <= capacity)
            .count();
        let fit = bounds[kept];
        out.pairs =
            bytemuck::pod_collect_to_vec(&self.gpu.read_back(&pairs, 0, 8 * u64::from(fit))?);
        out.timing.read = started.elapsed().as_secs_f64();
        drop(pairs);
        for t in kept..masks.len() {
            let need = bounds[t + 1] - bounds[t];
            if need == 0 {
                continue;
            }
            out.timing.reruns += 1;
            let found = s.rerun(
                &params[t],
                need,
                max_cap,
                out.tables[t].items,
                &mut out.timing,
            )?;
            out.pairs.extend(found);
        }
        Ok(out)
    }

    /// Places of `vals` in bucket order under table `t` of `masks`, and each place's end of
    /// bucket, as the device lays them out (for tests of the grouping).
    pub fn group(
        &self,
        vals: &[[u32; 2]],
        masks: &[u64],
        t: usize,
    ) -> Result<(Vec<u32>, Vec<u32>), GpuError> {
        if vals.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        let s = self.session(vals, masks, None, false)?;
        let b = s.table_binds(TableParams {
            max_dim: s.max_dim,
            ..table::params(vals.len(), masks, t, 0, 1, 1)
        });
        self.gpu.scoped("grouping a table", || {
            let mut enc = self
                .gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("group"),
                });
            enc.clear_buffer(&s.record, 0, None);
            s.encode_table(&mut enc, &b, None, None);
            self.gpu.queue.submit([enc.finish()]);
        })?;
        let n = 4 * vals.len() as u64;
        let order = bytemuck::pod_collect_to_vec(&self.gpu.read_back(&s.order, 0, n)?);
        let ends = bytemuck::pod_collect_to_vec(&self.gpu.read_back(&s.ends, 0, n)?);
        Ok((order, ends))
    }

    /// Most pair slots of one buffer.
    fn max_capacity(&self, cfg: &ResidentConfig) -> u32 {
        let binding = (self.gpu.max_binding() / 8).min(u64::from(u32::MAX)) as u32;
        cfg.max_capacity.unwrap_or(binding).clamp(1, binding)
    }

    fn pair_buffer(&self, capacity: u32) -> wgpu::Buffer {
        self.gpu.buffer(
            "pairs",
            8 * u64::from(capacity),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        )
    }

    /// Buffers for a join of `vals` under `masks`, the values and masks uploaded.
    fn session<'r>(
        &'r self,
        vals: &[[u32; 2]],
        masks: &[u64],
        max_binding: Option<u64>,
        unroll: bool,
    ) -> Result<Session<'r, 'g>, GpuError> {
        let gpu = self.gpu;
        let n = vals.len();
        let count_bits = (0..masks.len())
            .map(|t| table::params(n, masks, t, 0, 1, 1).bits)
            .max()
            .unwrap_or(1);
        let limit = gpu.max_binding().min(max_binding.unwrap_or(u64::MAX));
        let biggest = (8 * n as u64).max(4 << count_bits);
        if biggest > limit || n >= u32::MAX as usize / 2 {
            return Err(GpuError::TooLarge {
                bytes: biggest,
                limit,
            });
        }
        let storage = wgpu::BufferUsages::STORAGE;
        let copy = wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        gpu.scoped("creating the resident join's buffers", || {
            let b = |label, size: u64, usage| gpu.buffer(label, size, usage);
            let n64 = n as u64;
            let vals_buf = b("vals", 8 * n64, storage | copy);
            gpu.queue
                .write_buffer(&vals_buf, 0, bytemuck::cast_slice(vals));
            let halves: Vec<[u32; 2]> = masks
                .iter()
                .map(|m| [*m as u32, (m >> 32) as u32])
                .collect();
            let masks_buf = b("masks", 8 * masks.len() as u64, storage | copy);
            gpu.queue
                .write_buffer(&masks_buf, 0, bytemuck::cast_slice(&halves));
            let counts = b("counts", 4 << count_bits, storage | copy);
            let items = b("items", 4 * n64, storage | copy);
            let count_scan = self.scan_chain(&counts, 1 << count_bits);
            let item_scan = self.scan_chain(&items, n);
            Session {
                r: self,
                n,
                count_bits,
                vals: vals_buf,
                buckets: b("buckets", 4 * n64, storage),
                order: b("order", 4 * n64, storage | copy),
                sorted: b("sorted", 8 * n64, storage),
                ends: b("ends", 4 * n64, storage | copy),
                items,
                counts,
                masks: masks_buf,
                record: b(
                    "record",
                    4 * (RECORD_HEAD + RECORD_WORDS * masks.len()) as u64,
                    storage | copy,
                ),
                args: b(
                    "dispatch args",
                    12 * masks.len() as u64,
                    storage | wgpu::BufferUsages::INDIRECT,
                ),
                count_scan,
                item_scan,
                max_dim: gpu.max_workgroups_per_dim().max(1),
                unroll,
            }
        })
    }

    /// The levels of a scan of the first `len` values of `data`.
    fn scan_chain(&self, data: &wgpu::Buffer, len: usize) -> ScanChain {
        let gpu = self.gpu;
        let lens = scan::levels(len);
        let mut data_bufs = vec![data.clone()];
        for &l in &lens[1..] {
            data_bufs.push(gpu.buffer("scan level", 4 * l as u64, wgpu::BufferUsages::STORAGE));
        }
        // The top level's total.
        data_bufs.push(gpu.buffer("scan total", 4, wgpu::BufferUsages::STORAGE));
        let mut buffers = Vec::new();
        let levels = lens
            .iter()
            .enumerate()
            .map(|(k, &l)| {
                let p = gpu.buffer(
                    "scan params",
                    16,
                    wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                );
                let sp = ScanParams {
                    len: l as u32,
                    pad: [0; 3],
                };
                gpu.queue.write_buffer(&p, 0, bytemuck::bytes_of(&sp));
                let group = self.group_of(&self.scan, [&p, &data_bufs[k], &data_bufs[k + 1]]);
                buffers.push(p);
                (l as u64, group)
            })
            .collect();
        buffers.extend(data_bufs);
        ScanChain {
            levels,
            _buffers: buffers,
        }
    }

    /// A bind group of `kernel` over `bufs`, whole, in binding order.
    fn group_of<const N: usize>(
        &self,
        kernel: &Kernel,
        bufs: [&wgpu::Buffer; N],
    ) -> wgpu::BindGroup {
        let entries: Vec<wgpu::BindGroupEntry> = bufs
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: whole(b),
            })
            .collect();
        self.gpu
            .device
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &kernel.layout,
                entries: &entries,
            })
    }
}

impl Session<'_, '_> {
    /// `table_join`'s entry for `PLACES` or `ITEMS`, in the form this join compares with.
    fn entry(&self, plain: usize) -> usize {
        plain + if self.unroll { UNROLLED } else { 0 }
    }

    /// Table parameters on the device, and the bind groups of every kernel but the join's.
    fn table_binds(&self, params: TableParams) -> TableBinds {
        let r = self.r;
        let buffer = r.gpu.buffer(
            "table params",
            std::mem::size_of::<TableParams>() as u64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        r.gpu
            .queue
            .write_buffer(&buffer, 0, bytemuck::bytes_of(&params));
        let p = &buffer;
        TableBinds {
            params,
            key: r.group_of(&r.key, [p, &self.vals, &self.buckets, &self.counts]),
            scatter: r.group_of(
                &r.scatter,
                [
                    p,
                    &self.vals,
                    &self.buckets,
                    &self.counts,
                    &self.order,
                    &self.sorted,
                ],
            ),
            runs: r.group_of(
                &r.runs,
                [
                    p,
                    &self.buckets,
                    &self.order,
                    &self.counts,
                    &self.ends,
                    &self.items,
                    &self.record,
                ],
            ),
            args: r.group_of(&r.args, [p, &self.items, &self.record, &self.args]),
            buffer,
        }
    }

    /// The join's bind group of a table, writing to `pairs`.
    fn join_group(&self, b: &TableBinds, pairs: &wgpu::Buffer) -> wgpu::BindGroup {
        let r = self.r;
        r.group_of(
            &r.join,
            [
                &b.buffer,
                &self.sorted,
                &self.order,
                &self.ends,
                &self.items,
                &self.masks,
                &self.record,
                pairs,
            ],
        )
    }

    /// Records one table in four passes (keys and bucket starts; the scatter; runs, item
    /// offsets and the dispatch's size; with a join group, the comparisons, dispatched
    /// indirectly), each timed into `ts` from the given index when given.
    fn encode_table(
        &self,
        enc: &mut wgpu::CommandEncoder,
        b: &TableBinds,
        join: Option<&wgpu::BindGroup>,
        ts: Option<(&wgpu::QuerySet, u32)>,
    ) {
        let r = self.r;
        let per_value = grid((self.n as u64).div_ceil(256), self.max_dim);
        enc.clear_buffer(&self.counts, 0, Some(4 << self.count_bits));
        {
            let mut pass = stage(enc, ts, 0);
            dispatch(&mut pass, &r.key, 0, &b.key, per_value);
            self.record_scan(&mut pass, &self.count_scan);
        }
        {
            let mut pass = stage(enc, ts, 1);
            dispatch(&mut pass, &r.scatter, 0, &b.scatter, per_value);
        }
        {
            let mut pass = stage(enc, ts, 2);
            dispatch(&mut pass, &r.runs, 0, &b.runs, per_value);
            self.record_scan(&mut pass, &self.item_scan);
            dispatch(&mut pass, &r.args, 0, &b.args, (1, 1));
        }
        if let Some(join) = join {
            let mut pass = stage(enc, ts, 3);
            dispatch(&mut pass, &r.join, self.entry(PLACES), join, per_value);
            pass.set_pipeline(&r.join.pipelines[self.entry(ITEMS)]);
            pass.set_bind_group(0, join, &[]);
            pass.dispatch_workgroups_indirect(&self.args, 12 * u64::from(b.params.table));
        }
    }

    /// Records a scan: every level's blocks upwards, then the offsets added downwards.
    fn record_scan(&self, pass: &mut wgpu::ComputePass<'_>, chain: &ScanChain) {
        let k = &self.r.scan;
        for (len, g) in &chain.levels {
            let blocks = len.div_ceil(u64::from(scan::BLOCK));
            dispatch(pass, k, 0, g, grid(blocks, self.max_dim));
        }
        for (len, g) in chain.levels.iter().rev().skip(1) {
            dispatch(pass, k, 1, g, grid(len.div_ceil(256), self.max_dim));
        }
    }

    /// Table `p` alone, its `need` pairs into a buffer of their own: at once when they fit the
    /// largest buffer, else over windows of its `items`, halved until each window's pairs fit.
    fn rerun(
        &self,
        p: &TableParams,
        need: u32,
        max_cap: u32,
        items: u32,
        timing: &mut ResidentTiming,
    ) -> Result<Vec<[u32; 2]>, GpuError> {
        let gpu = self.r.gpu;
        let capacity = need.min(max_cap);
        let pairs = self.r.pair_buffer(capacity);
        let whole = TableParams { capacity, ..*p };
        let b = self.table_binds(whole);
        let join = self.join_group(&b, &pairs);
        if need <= max_cap {
            gpu.scoped("rerunning a table", || {
                let mut enc = gpu.device.create_command_encoder(&Default::default());
                enc.clear_buffer(&self.record, 0, Some(4));
                self.encode_table(&mut enc, &b, Some(&join), None);
                gpu.queue.submit([enc.finish()]);
            })?;
            let count = self.counter()?;
            if count != need {
                return Err(GpuError::Validation {
                    stage: "rerunning a table",
                    msg: format!("{count} pairs where the first attempt counted {need}"),
                });
            }
            return Ok(bytemuck::pod_collect_to_vec(&gpu.read_back(
                &pairs,
                0,
                8 * u64::from(count),
            )?));
        }
        // The table's places and items once, then its comparisons a window at a time.
        gpu.scoped("rerunning a table", || {
            let mut enc = gpu.device.create_command_encoder(&Default::default());
            self.encode_table(&mut enc, &b, None, None);
            gpu.queue.submit([enc.finish()]);
        })?;
        let mut out = Vec::with_capacity(need as usize);
        let rerun = Rerun {
            b: &b,
            whole: &whole,
            join: &join,
            pairs: &pairs,
        };
        for (entry, count) in [
            (self.entry(PLACES), self.n as u32),
            (self.entry(ITEMS), items),
        ] {
            self.windows(&rerun, (entry, count), timing, &mut out)?;
        }
        Ok(out)
    }

    /// Runs `entry` of `table_join` over its `count` places or items in windows whose pairs
    /// fit `pairs` (`whole.capacity` slots), halving a window that overflows, and appends the
    /// pairs to `out`.
    fn windows(
        &self,
        rerun: &Rerun<'_>,
        (entry, count): (usize, u32),
        timing: &mut ResidentTiming,
        out: &mut Vec<[u32; 2]>,
    ) -> Result<(), GpuError> {
        let Rerun {
            b,
            whole,
            join,
            pairs,
        } = *rerun;
        let gpu = self.r.gpu;
        let capacity = whole.capacity;
        let (mut lo, mut width) = (0u32, count);
        while lo < count {
            let hi = lo.saturating_add(width).min(count);
            timing.windows += 1;
            let wp = TableParams {
                item_lo: lo,
                item_hi: hi,
                ..*whole
            };
            gpu.queue
                .write_buffer(&b.buffer, 0, bytemuck::bytes_of(&wp));
            gpu.scoped("running a window of a table", || {
                let mut enc = gpu.device.create_command_encoder(&Default::default());
                enc.clear_buffer(&self.record, 0, Some(4));
                let mut pass = enc.begin_compute_pass(&Default::default());
                let groups = u64::from(hi - lo).div_ceil(256);
                dispatch(
                    &mut pass,
                    &self.r.join,
                    entry,
                    join,
                    grid(groups, self.max_dim),
                );
                drop(pass);
                gpu.queue.submit([enc.finish()]);
            })?;
            let found = self.counter()?;
            if found > capacity {
                if hi - lo == 1 {
                    return Err(GpuError::Validation {
                        stage: "sizing the pair buffer",
                        msg: format!(
                            "one item found {found} pairs, more than the largest buffer holds ({capacity})"
                        ),
                    });
                }
                width = (hi - lo) / 2;
                continue;
            }
            out.extend(bytemuck::pod_collect_to_vec::<u8, [u32; 2]>(
                &gpu.read_back(pairs, 0, 8 * u64::from(found))?,
            ));
            lo = hi;
        }
        Ok(())
    }

    /// The pair counter.
    fn counter(&self) -> Result<u32, GpuError> {
        let b = self.r.gpu.read_back(&self.record, 0, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}
