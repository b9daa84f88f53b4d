//! Runs `shaders/hamming_join.wgsl` (contract and CPU reference in `kernels::hamming_join`).
//!
//! One [`HammingJoin::run`] uploads a batch (fingerprints, run ends, tiles, earlier masks),
//! dispatches one workgroup per tile on a 2-D grid, and reads back the counter and the pairs
//! that fit. The caller sizes batches to [`Gpu::max_binding`] and reruns with a larger pair
//! buffer when the counter says it overflowed.

use wgpu::util::DeviceExt;

use super::{Gpu, GpuError};
use crate::kernels::hamming_join::{Params, Tile, BINDINGS, ENTRY};
use crate::kernels::BindingKind;

const SOURCE: &str = include_str!("../../shaders/hamming_join.wgsl");

/// The compiled kernel on one device.
pub struct HammingJoin<'g> {
    gpu: &'g Gpu,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

impl Gpu {
    /// Compiles the Hamming join kernel.
    pub fn hamming_join(&self) -> Result<HammingJoin<'_>, GpuError> {
        self.scoped("compiling hamming_join.wgsl", || {
            let module = self
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("hamming_join"),
                    source: wgpu::ShaderSource::Wgsl(SOURCE.into()),
                });
            let entries: Vec<wgpu::BindGroupLayoutEntry> = BINDINGS
                .iter()
                .map(|(binding, _, kind)| wgpu::BindGroupLayoutEntry {
                    binding: *binding,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: match kind {
                            BindingKind::Uniform => wgpu::BufferBindingType::Uniform,
                            BindingKind::StorageRead => {
                                wgpu::BufferBindingType::Storage { read_only: true }
                            }
                            BindingKind::StorageReadWrite => {
                                wgpu::BufferBindingType::Storage { read_only: false }
                            }
                        },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                })
                .collect();
            let layout = self
                .device
                .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("hamming_join"),
                    entries: &entries,
                });
            let pl = self
                .device
                .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("hamming_join"),
                    bind_group_layouts: &[Some(&layout)],
                    immediate_size: 0,
                });
            let pipeline = self
                .device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some("hamming_join"),
                    layout: Some(&pl),
                    module: &module,
                    entry_point: Some(ENTRY),
                    compilation_options: Default::default(),
                    cache: None,
                });
            HammingJoin {
                gpu: self,
                pipeline,
                layout,
            }
        })
    }
}

/// Bytes of `data`, padded to at least one element (wgpu refuses empty bindings).
fn bytes_or_zero<T: bytemuck::Pod + Default>(data: &[T]) -> Vec<u8> {
    if data.is_empty() {
        bytemuck::bytes_of(&T::default()).to_vec()
    } else {
        bytemuck::cast_slice(data).to_vec()
    }
}

impl HammingJoin<'_> {
    /// One batch: the pairs written (at most `capacity`, in no particular order) and the
    /// number found, which exceeds `capacity` when the buffer overflowed.
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
            n_earlier: earlier.len() as u32,
            capacity,
            n_tiles,
            tiles_per_row: x,
            pad: [0; 3],
        };
        let (pairs, count) = gpu.scoped("running hamming_join", || {
            let init = |label: &str, contents: &[u8], usage: wgpu::BufferUsages| {
                dev.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents,
                    usage,
                })
            };
            let storage = wgpu::BufferUsages::STORAGE;
            let b_params = init(
                "params",
                bytemuck::bytes_of(&params),
                wgpu::BufferUsages::UNIFORM,
            );
            let b_fps = init("fps", &bytes_or_zero(fps), storage);
            let b_ends = init("ends", &bytes_or_zero(ends), storage);
            let b_tiles = init("tiles", bytemuck::cast_slice(tiles), storage);
            let b_earlier = init("earlier", &bytes_or_zero(earlier), storage);
            let b_count = init("count", &[0u8; 4], storage | wgpu::BufferUsages::COPY_SRC);
            let pair_bytes = u64::from(capacity) * 8;
            let b_pairs = dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some("pairs"),
                size: pair_bytes,
                usage: storage | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let staging = dev.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size: 8 + pair_bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let buffers = [
                &b_params, &b_fps, &b_ends, &b_tiles, &b_earlier, &b_count, &b_pairs,
            ];
            let entries: Vec<wgpu::BindGroupEntry> = buffers
                .iter()
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: b.as_entire_binding(),
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
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("hamming_join"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &group, &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
            enc.copy_buffer_to_buffer(&b_count, 0, &staging, 0, 4);
            enc.copy_buffer_to_buffer(&b_pairs, 0, &staging, 8, pair_bytes);
            gpu.queue.submit([enc.finish()]);
            read_back(gpu, &staging)
        })??;
        Ok((pairs, count))
    }
}

fn read_back(gpu: &Gpu, staging: &wgpu::Buffer) -> Result<(Vec<[u32; 2]>, u32), GpuError> {
    let (tx, rx) = std::sync::mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| GpuError::Map(e.to_string()))?;
    rx.recv()
        .map_err(|e| GpuError::Map(e.to_string()))?
        .map_err(|e| GpuError::Map(e.to_string()))?;
    let view = staging
        .get_mapped_range(..)
        .map_err(|e| GpuError::Map(e.to_string()))?;
    let count = u32::from_le_bytes([view[0], view[1], view[2], view[3]]);
    let pairs: &[[u32; 2]] = bytemuck::cast_slice(&view[8..]);
    let kept = pairs[..(count as usize).min(pairs.len())].to_vec();
    drop(view);
    staging.unmap();
    Ok((kept, count))
}
