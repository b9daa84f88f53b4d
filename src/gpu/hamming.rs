//! Runs `shaders/hamming_join.wgsl` (contract and CPU reference in `kernels::hamming_join`).
//!
//! [`HammingJoin::load`] uploads a batch (fingerprints, run ends, earlier masks) into device
//! buffers kept from batch to batch, through two staging buffers filled from several threads;
//! [`HammingJoin::dispatch`] uploads the tiles, dispatches one workgroup per tile on a 2-D
//! grid, and reads back the counter, then only the pairs it says were written. The caller
//! sizes batches to [`Gpu::max_binding`] and dispatches again, without loading again, with a
//! larger pair buffer when the counter says it overflowed.

use super::{Gpu, GpuError};
use crate::kernels::hamming_join::{Params, Tile, SPEC};

const SOURCE: &str = include_str!("../../shaders/hamming_join.wgsl");

/// The compiled kernel on one device.
pub struct HammingJoin<'g> {
    gpu: &'g Gpu,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    bufs: std::sync::Mutex<Buffers>,
    timing: std::sync::Mutex<Timing>,
}

impl Gpu {
    /// Compiles the Hamming join kernel.
    pub fn hamming_join(&self) -> Result<HammingJoin<'_>, GpuError> {
        let (layout, mut pipelines) = self.kernel(&SPEC, SOURCE, super::Checks::On)?;
        Ok(HammingJoin {
            gpu: self,
            pipeline: pipelines.remove(0),
            layout,
            bufs: Default::default(),
            timing: Default::default(),
        })
    }
}

/// Bytes of one staging buffer: uploads larger than this go through it in pieces, two
/// buffers taking turns so that filling one overlaps the copy out of the other.
const STAGING: u64 = 64 << 20;

/// Bytes copied by one task when a staging buffer is filled from several threads.
const FILL_PIECE: usize = 2 << 20;

/// Where each binding's data lives on the device, kept from dispatch to dispatch and grown
/// when a batch needs more, so that a dispatch allocates nothing (on NVIDIA's driver, a
/// batch's fresh buffers cost about 0.8 s per dispatch at 82.5 M fingerprints).
#[derive(Default)]
struct Buffers {
    fps: Option<wgpu::Buffer>,
    ends: Option<wgpu::Buffer>,
    earlier: Option<wgpu::Buffer>,
    tiles: Option<wgpu::Buffer>,
    pairs: Option<wgpu::Buffer>,
    readback: Option<wgpu::Buffer>,
    params: Option<wgpu::Buffer>,
    count: Option<wgpu::Buffer>,
    staging: [Option<wgpu::Buffer>; 2],
    /// The next staging buffer to fill, and the submission that last read each.
    turn: usize,
    staged: [Option<wgpu::SubmissionIndex>; 2],
    /// Bytes of the loaded batch: fingerprints, ends, earlier masks.
    loaded: Option<(u64, u64, u64)>,
}

/// Seconds spent in each part of the dispatches so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    /// Loading batches: filling the staging buffers and copying to the device.
    pub upload: f64,
    /// From a dispatch's start (its tiles uploaded, the kernel run) to its counter being
    /// readable.
    pub kernel: f64,
    /// Reading the pairs back.
    pub read: f64,
}

impl HammingJoin<'_> {
    /// A device buffer at least `size` bytes (never 0) with `usage`, kept in `slot` and grown
    /// by half again past the need, so that a slowly growing need does not allocate each time.
    fn ensure(
        &self,
        slot: &mut Option<wgpu::Buffer>,
        label: &'static str,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> wgpu::Buffer {
        let size = size.max(8).next_multiple_of(8);
        if let Some(b) = slot.as_ref().filter(|b| b.size() >= size) {
            return b.clone();
        }
        let cap = if usage.contains(wgpu::BufferUsages::STORAGE) {
            self.gpu.max_binding()
        } else {
            self.gpu.limits.max_buffer_size
        };
        let grown = (size + size / 2).min(cap.max(size)).next_multiple_of(8);
        slot.take();
        let b = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: grown,
            usage,
            mapped_at_creation: false,
        });
        *slot = Some(b.clone());
        b
    }

    /// Copies `bytes` (a multiple of 4) into `dst` from `offset` through the staging buffers.
    fn upload(
        &self,
        b: &mut Buffers,
        dst: &wgpu::Buffer,
        offset: u64,
        bytes: &[u8],
    ) -> Result<(), GpuError> {
        for (k, piece) in bytes.chunks(STAGING as usize).enumerate() {
            let turn = b.turn;
            b.turn ^= 1;
            let staging = self.ensure(
                &mut b.staging[turn],
                "staging",
                STAGING.min(bytes.len() as u64),
                wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            );
            let len = piece.len() as u64;
            self.gpu.map(
                &staging,
                wgpu::MapMode::Write,
                0..len,
                b.staged[turn].take(),
            )?;
            {
                let slice = staging.slice(0..len);
                let mut view = slice
                    .get_mapped_range_mut()
                    .map_err(|e| GpuError::Map(e.to_string()))?;
                fill(view.slice(..), piece);
            }
            staging.unmap();
            let mut enc = self
                .gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("upload"),
                });
            enc.copy_buffer_to_buffer(&staging, 0, dst, offset + k as u64 * STAGING, len);
            b.staged[turn] = Some(self.gpu.queue.submit([enc.finish()]));
        }
        Ok(())
    }

    /// Loads one batch: its fingerprints, each one's end of run, and the table's earlier
    /// masks. Dispatches then run over it until the next load.
    pub fn load(
        &self,
        fps: &[[u32; 2]],
        ends: &[u32],
        earlier: &[[u32; 2]],
    ) -> Result<(), GpuError> {
        let started = std::time::Instant::now();
        let mut b = self.bufs.lock().unwrap_or_else(|p| p.into_inner());
        b.loaded = None;
        let limit = self.gpu.max_binding();
        let sizes = [
            std::mem::size_of_val(fps),
            std::mem::size_of_val(ends),
            std::mem::size_of_val(earlier),
        ]
        .map(|n| n as u64);
        if let Some(&over) = sizes.iter().find(|&&n| n > limit) {
            return Err(GpuError::Validation {
                stage: "loading a batch",
                msg: format!("{over} bytes exceed the adapter's binding limit of {limit}"),
            });
        }
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        self.gpu
            .scoped("loading a batch", || -> Result<(), GpuError> {
                let f = self.ensure(&mut b.fps, "fps", sizes[0], storage);
                let e = self.ensure(&mut b.ends, "ends", sizes[1], storage);
                let m = self.ensure(&mut b.earlier, "earlier", sizes[2], storage);
                self.upload(&mut b, &f, 0, bytemuck::cast_slice(fps))?;
                self.upload(&mut b, &e, 0, bytemuck::cast_slice(ends))?;
                self.upload(&mut b, &m, 0, bytemuck::cast_slice(earlier))?;
                Ok(())
            })??;
        b.loaded = Some((sizes[0], sizes[1], sizes[2]));
        drop(b);
        self.add_time(|t| t.upload += started.elapsed().as_secs_f64());
        Ok(())
    }

    /// One dispatch over the loaded batch: the pairs written (at most `capacity`, in no
    /// particular order) and the number found, which exceeds `capacity` when the buffer
    /// overflowed. `n_earlier` masks of the loaded ones apply.
    pub fn dispatch(
        &self,
        tau: u32,
        n_earlier: u32,
        tiles: &[Tile],
        capacity: u32,
    ) -> Result<(Vec<[u32; 2]>, u32), GpuError> {
        if tiles.is_empty() {
            return Ok((Vec::new(), 0));
        }
        let gpu = self.gpu;
        let dev = &gpu.device;
        let capacity = capacity.max(1);
        let max_dim = gpu.max_workgroups_per_dim().max(1);
        let n_tiles = tiles.len() as u32;
        let x = n_tiles.min(max_dim);
        let y = n_tiles.div_ceil(x);
        if y > max_dim {
            return Err(GpuError::Validation {
                stage: "planning a dispatch",
                msg: format!("{n_tiles} tiles exceed the adapter's dispatch limit"),
            });
        }
        let params = Params {
            tau,
            n_earlier,
            capacity,
            n_tiles,
            tiles_per_row: x,
            pad: [0; 3],
        };
        let mut b = self.bufs.lock().unwrap_or_else(|p| p.into_inner());
        let Some((fp_bytes, end_bytes, earlier_bytes)) = b.loaded else {
            return Err(GpuError::Validation {
                stage: "running hamming_join",
                msg: "no batch loaded".into(),
            });
        };
        let tile_bytes = std::mem::size_of_val(tiles) as u64;
        let pair_bytes = u64::from(capacity) * 8;
        if tile_bytes.max(pair_bytes) > gpu.max_binding() {
            return Err(GpuError::Validation {
                stage: "running hamming_join",
                msg: format!(
                    "{} bytes exceed the adapter's binding limit of {}",
                    tile_bytes.max(pair_bytes),
                    gpu.max_binding()
                ),
            });
        }
        let storage = wgpu::BufferUsages::STORAGE;
        let copy = wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
        let started = std::time::Instant::now();
        let (submitted, readback) =
            gpu.scoped("running hamming_join", || -> Result<_, GpuError> {
                let b_params = self.ensure(
                    &mut b.params,
                    "params",
                    std::mem::size_of::<Params>() as u64,
                    wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                );
                let b_tiles = self.ensure(&mut b.tiles, "tiles", tile_bytes, storage | copy);
                let b_count = self.ensure(&mut b.count, "count", 8, storage | copy);
                let b_pairs = self.ensure(&mut b.pairs, "pairs", pair_bytes, storage | copy);
                let readback = self.ensure(
                    &mut b.readback,
                    "readback",
                    8 + pair_bytes,
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                );
                let tiles_now = b_tiles.clone();
                self.upload(&mut b, &tiles_now, 0, bytemuck::cast_slice(tiles))?;
                gpu.queue
                    .write_buffer(&b_params, 0, bytemuck::bytes_of(&params));
                let (fps, ends, earlier) = (
                    b.fps.clone().expect("loaded"),
                    b.ends.clone().expect("loaded"),
                    b.earlier.clone().expect("loaded"),
                );
                let resources = [
                    bind(&b_params, std::mem::size_of::<Params>() as u64),
                    bind(&fps, fp_bytes),
                    bind(&ends, end_bytes),
                    bind(&tiles_now, tile_bytes),
                    bind(&earlier, earlier_bytes),
                    bind(&b_count, 4),
                    bind(&b_pairs, pair_bytes),
                ];
                let entries: Vec<wgpu::BindGroupEntry> = resources
                    .into_iter()
                    .enumerate()
                    .map(|(i, resource)| wgpu::BindGroupEntry {
                        binding: i as u32,
                        resource,
                    })
                    .collect();
                let group = dev.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("hamming_join"),
                    layout: &self.layout,
                    entries: &entries,
                });
                let mut enc = dev.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("hamming_join"),
                });
                enc.clear_buffer(&b_count, 0, None);
                {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("hamming_join"),
                        timestamp_writes: None,
                    });
                    pass.set_pipeline(&self.pipeline);
                    pass.set_bind_group(0, &group, &[]);
                    pass.dispatch_workgroups(x, y, 1);
                }
                enc.copy_buffer_to_buffer(&b_count, 0, &readback, 0, 8);
                enc.copy_buffer_to_buffer(&b_pairs, 0, &readback, 8, pair_bytes);
                Ok((gpu.queue.submit([enc.finish()]), readback))
            })??;
        drop(b);
        // The counter first; then only the pairs it says were written.
        self.gpu
            .map(&readback, wgpu::MapMode::Read, 0..8, Some(submitted))?;
        let count = {
            let view = readback
                .slice(0..8)
                .get_mapped_range()
                .map_err(|e| GpuError::Map(e.to_string()))?;
            u32::from_le_bytes([view[0], view[1], view[2], view[3]])
        };
        readback.unmap();
        let kernel_done = std::time::Instant::now();
        let kept = u64::from(count.min(capacity));
        let mut pairs = Vec::with_capacity(kept as usize);
        if kept > 0 {
            let range = 8..8 + kept * 8;
            self.gpu
                .map(&readback, wgpu::MapMode::Read, range.clone(), None)?;
            {
                let view = readback
                    .slice(range)
                    .get_mapped_range()
                    .map_err(|e| GpuError::Map(e.to_string()))?;
                pairs.extend_from_slice(bytemuck::cast_slice::<u8, [u32; 2]>(&view));
            }
            readback.unmap();
        }
        let (k, r) = (
            (kernel_done - started).as_secs_f64(),
            kernel_done.elapsed().as_secs_f64(),
        );
        self.add_time(|t| {
            t.kernel += k;
            t.read += r;
        });
        Ok((pairs, count))
    }

    /// [`load`](Self::load) and one [`dispatch`](Self::dispatch).
    pub fn run(
        &self,
        tau: u32,
        fps: &[[u32; 2]],
        ends: &[u32],
        tiles: &[Tile],
        earlier: &[[u32; 2]],
        capacity: u32,
    ) -> Result<(Vec<[u32; 2]>, u32), GpuError> {
        if tiles.is_empty() {
            return Ok((Vec::new(), 0));
        }
        self.load(fps, ends, earlier)?;
        self.dispatch(tau, earlier.len() as u32, tiles, capacity)
    }

    /// Seconds spent so far in loads, kernels and read-backs.
    pub fn timing(&self) -> Timing {
        *self.timing.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn add_time(&self, f: impl FnOnce(&mut Timing)) {
        f(&mut self.timing.lock().unwrap_or_else(|p| p.into_inner()));
    }
}

/// The first `size` bytes of `buf` as a binding (at least 8).
fn bind(buf: &wgpu::Buffer, size: u64) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer: buf,
        offset: 0,
        size: std::num::NonZeroU64::new(size.max(8)),
    })
}

/// Copies `src` into mapped memory, pieces on several threads (one thread's copy into
/// mapped memory runs far below what the bus carries).
fn fill(dst: wgpu::WriteOnly<'_, [u8]>, src: &[u8]) {
    use rayon::prelude::*;
    let mut parts = Vec::with_capacity(src.len() / FILL_PIECE + 1);
    let (mut dst, mut src) = (dst, src);
    while src.len() > FILL_PIECE {
        let (d, dr) = dst.split_at(FILL_PIECE);
        let (s, sr) = src.split_at(FILL_PIECE);
        parts.push((Piece(d), s));
        (dst, src) = (dr, sr);
    }
    parts.push((Piece(dst), src));
    parts
        .into_par_iter()
        .for_each(|(Piece(mut d), s)| d.copy_from_slice(s));
}

/// One piece of a mapped range, to be written by another thread.
struct Piece<'a>(wgpu::WriteOnly<'a, [u8]>);

// SAFETY: `WriteOnly<'a, [u8]>` is an exclusive, write-only borrow of bytes, like
// `&'a mut [u8]`, which is `Send`; wgpu implements `Send` for `WriteOnly<T>` only where
// `T: Send` is `Sized`, which leaves slices out although the same reasoning holds for them.
// The pieces come from `split_at`, so no two overlap, and the mapping outlives the parallel
// copy, which ends before `fill` returns.
unsafe impl Send for Piece<'_> {}
