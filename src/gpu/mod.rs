//! The only module that talks to wgpu: adapters, the device, pipelines and buffers.
//!
//! Everything else sees plain slices and [`GpuError`]s. Adapters are chosen by name (a
//! case-insensitive substring), or the first hardware adapter; a software adapter (Mesa's
//! lavapipe, `DeviceType::Cpu`) only when asked for. The device is created with the adapter's
//! own limits, since the defaults cap buffers far below what a join wants. Validation errors
//! are captured by error scopes and an uncaptured-error handler and returned as errors, never
//! panics.

pub mod hamming;
pub mod icd;
pub mod resident;

use std::sync::{Arc, Mutex};

/// What can go wrong on the GPU path.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No adapter matched.
    #[error("no GPU adapter{0}")]
    NoAdapter(String),
    /// Device creation failed.
    #[error("cannot open {adapter}: {msg}")]
    Device {
        /// Adapter name.
        adapter: String,
        /// The driver's message.
        msg: String,
    },
    /// A validation or out-of-memory error reported by wgpu.
    #[error("GPU error in {stage}: {msg}")]
    Validation {
        /// What was being done.
        stage: &'static str,
        /// wgpu's message.
        msg: String,
    },
    /// A buffer the work needs exceeds what one binding holds.
    #[error("{bytes} bytes exceed the adapter's binding limit of {limit}")]
    TooLarge {
        /// Bytes needed.
        bytes: u64,
        /// The adapter's largest binding.
        limit: u64,
    },
    /// Mapping a buffer back failed.
    #[error("cannot read back GPU results: {0}")]
    Map(String),
}

/// One adapter as `neardup gpus` lists it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AdapterDesc {
    /// Adapter name.
    pub name: String,
    /// Graphics API (Vulkan, Metal, Dx12, Gl).
    pub backend: String,
    /// Discrete, integrated, virtual, CPU (software) or other.
    pub device_type: String,
    /// Driver and its version.
    pub driver: String,
    /// True for software rasterisers (lavapipe, llvmpipe, WARP).
    pub software: bool,
    /// Largest storage buffer binding, bytes.
    pub max_storage_binding: u64,
    /// Largest buffer, bytes.
    pub max_buffer: u64,
    /// Most workgroups per dispatch dimension.
    pub max_workgroups_per_dim: u32,
    /// Workgroup memory, bytes.
    pub max_workgroup_storage: u32,
}

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::PRIMARY;
    wgpu::Instance::new(desc)
}

fn describe(a: &wgpu::Adapter) -> AdapterDesc {
    let info = a.get_info();
    let limits = a.limits();
    AdapterDesc {
        name: info.name.clone(),
        backend: format!("{:?}", info.backend),
        device_type: format!("{:?}", info.device_type),
        driver: format!("{} {}", info.driver, info.driver_info)
            .trim()
            .to_string(),
        software: info.device_type == wgpu::DeviceType::Cpu,
        max_storage_binding: limits.max_storage_buffer_binding_size,
        max_buffer: limits.max_buffer_size,
        max_workgroups_per_dim: limits.max_compute_workgroups_per_dimension,
        max_workgroup_storage: limits.max_compute_workgroup_storage_size,
    }
}

/// Every adapter the system offers, each device once (a driver registered by two manifests,
/// as [`icd::prepare`] may leave it, would otherwise be listed twice).
pub fn adapters() -> Vec<AdapterDesc> {
    enumerate().iter().map(describe).collect()
}

/// The adapters, each device once: the first of those with the same backend, vendor, device,
/// name and driver.
fn enumerate() -> Vec<wgpu::Adapter> {
    let inst = instance();
    let mut seen = std::collections::HashSet::new();
    pollster::block_on(inst.enumerate_adapters(wgpu::Backends::PRIMARY))
        .into_iter()
        .filter(|a| {
            let i = a.get_info();
            seen.insert((
                format!("{:?}", i.backend),
                i.vendor,
                i.device,
                i.name.clone(),
                i.driver_info.clone(),
            ))
        })
        .collect()
}

/// Whether this machine may have a hardware GPU. On Linux that needs a device node (a DRM
/// render node, or NVIDIA's); without one, `auto` does not start a Vulkan instance at all,
/// which saves its start-up time and keeps software drivers from printing warnings about
/// displays.
pub fn hardware_possible() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    let dri = std::fs::read_dir("/dev/dri").is_ok_and(|mut d| {
        d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("renderD")))
    });
    dri || std::path::Path::new(icd::NVIDIA_DEVICE).exists()
}

/// Whether a kernel is compiled with wgpu's runtime bounds checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checks {
    /// Every array access checked (indices that depend on uploaded data).
    On,
    /// None: every index is in bounds by construction, as the kernel's spec shows.
    Off,
}

/// Which adapter to open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// A case-insensitive substring of the adapter's name.
    pub name: Option<String>,
    /// Accept a software adapter.
    pub allow_software: bool,
}

/// An open device and the limits it was created with.
pub struct Gpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    desc: AdapterDesc,
    limits: wgpu::Limits,
    /// Errors raised outside any error scope.
    uncaptured: Arc<Mutex<Vec<String>>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("adapter", &self.desc).finish()
    }
}

impl Gpu {
    /// Opens the selected adapter. Hardware adapters come first; a software one only when
    /// `sel.allow_software`.
    pub fn open(sel: &Selection) -> Result<Gpu, GpuError> {
        let mut all = enumerate();
        all.sort_by_key(|a| match a.get_info().device_type {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Other => 3,
            wgpu::DeviceType::Cpu => 4,
        });
        let wanted = sel.name.as_ref().map(|n| n.to_lowercase());
        let adapter = all
            .into_iter()
            .find(|a| {
                let d = describe(a);
                (sel.allow_software || !d.software)
                    && wanted
                        .as_ref()
                        .is_none_or(|w| d.name.to_lowercase().contains(w))
            })
            .ok_or_else(|| {
                GpuError::NoAdapter(match (&sel.name, sel.allow_software) {
                    (Some(n), _) => format!(" matches {n:?} (see `neardup gpus`)"),
                    (None, false) => " with hardware acceleration".into(),
                    (None, true) => " at all (is a Vulkan driver installed?)".into(),
                })
            })?;
        let desc = describe(&adapter);
        let limits = adapter.limits();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("neardup"),
            // Timestamps where the adapter has them: the resident join times its stages.
            required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| GpuError::Device {
            adapter: desc.name.clone(),
            msg: e.to_string(),
        })?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut v) = sink.lock() {
                v.push(e.to_string());
            }
        }));
        Ok(Gpu {
            device,
            queue,
            desc,
            limits,
            uncaptured,
        })
    }

    /// The adapter.
    pub fn adapter(&self) -> &AdapterDesc {
        &self.desc
    }

    /// Largest storage binding, bytes.
    pub fn max_binding(&self) -> u64 {
        self.limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
    }

    /// Whether passes can be timed on the device.
    pub fn has_timestamps(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    /// Most workgroups along one dispatch dimension.
    pub fn max_workgroups_per_dim(&self) -> u32 {
        self.limits.max_compute_workgroups_per_dimension
    }

    /// Compiles `source` (the WGSL of `spec`): one bind group layout from the spec's bindings
    /// and one pipeline per entry point, in the spec's order. [`Checks::Off`] compiles
    /// without the bounds checks wgpu adds to every array access, for kernels whose every
    /// index is in bounds by construction (see its SAFETY note); `NEARDUP_GPU_CHECKED=1`
    /// keeps them everywhere.
    fn kernel(
        &self,
        spec: &crate::kernels::KernelSpec,
        source: &str,
        checks: Checks,
    ) -> Result<(wgpu::BindGroupLayout, Vec<wgpu::ComputePipeline>), GpuError> {
        use crate::kernels::BindingKind;
        self.scoped("compiling a kernel", || {
            let desc = wgpu::ShaderModuleDescriptor {
                label: Some(spec.shader),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            };
            let checked = checks == Checks::On
                || std::env::var("NEARDUP_GPU_CHECKED").is_ok_and(|v| v == "1");
            let module = if checked {
                self.device.create_shader_module(desc)
            } else {
                // SAFETY: wgpu's bounds checks are what keep an out-of-range index from
                // reading or writing outside a binding. `Checks::Off` is passed only for the
                // resident join's kernels (`gpu::resident`), whose indices never come from
                // data: buckets are below 2^bits by construction (a gathered key of at most
                // `bits` bits, or a hash shifted right by 32 - bits) and the bucket array holds
                // 2^bits of the largest table; places and ends come from the scan of the
                // bucket sizes, so they are below n; items are searched among n offsets; pair
                // slots are tested against a capacity equal to the pair buffer's slots; scan
                // indices are tested against each level's length. The CPU references of
                // `kernels::table_*` compute the same indices with Rust's checked indexing,
                // and the lavapipe tests hold the device to them, hostile shapes included.
                unsafe {
                    self.device
                        .create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
                }
            };
            let entries: Vec<wgpu::BindGroupLayoutEntry> = spec
                .bindings
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
                    label: Some(spec.shader),
                    entries: &entries,
                });
            let pl = self
                .device
                .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(spec.shader),
                    bind_group_layouts: &[Some(&layout)],
                    immediate_size: 0,
                });
            let pipelines = spec
                .entries
                .iter()
                .map(|entry| {
                    self.device
                        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                            label: Some(entry),
                            layout: Some(&pl),
                            module: &module,
                            entry_point: Some(entry),
                            compilation_options: Default::default(),
                            cache: None,
                        })
                })
                .collect();
            (layout, pipelines)
        })
    }

    /// Waits until `buf` is mapped for `mode` over `range` (after `after`, when given).
    pub(super) fn map(
        &self,
        buf: &wgpu::Buffer,
        mode: wgpu::MapMode,
        range: std::ops::Range<u64>,
        after: Option<wgpu::SubmissionIndex>,
    ) -> Result<(), GpuError> {
        let (tx, rx) = std::sync::mpsc::channel();
        buf.map_async(mode, range, move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: after,
                timeout: None,
            })
            .map_err(|e| GpuError::Map(e.to_string()))?;
        // The callback may come with a later poll when `after` is an older submission.
        loop {
            match rx.try_recv() {
                Ok(r) => return r.map_err(|e| GpuError::Map(e.to_string())),
                Err(std::sync::mpsc::TryRecvError::Empty) => {
                    self.device
                        .poll(wgpu::PollType::wait_indefinitely())
                        .map_err(|e| GpuError::Map(e.to_string()))?;
                }
                Err(e) => return Err(GpuError::Map(e.to_string())),
            }
        }
    }

    /// Runs `f` inside validation and out-of-memory error scopes; any error raised inside, or
    /// uncaptured since, becomes a [`GpuError::Validation`].
    fn scoped<T>(&self, stage: &'static str, f: impl FnOnce() -> T) -> Result<T, GpuError> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let val = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        let errors = [pollster::block_on(val.pop()), pollster::block_on(oom.pop())];
        if let Some(e) = errors.into_iter().flatten().next() {
            return Err(GpuError::Validation {
                stage,
                msg: e.to_string(),
            });
        }
        if let Some(msg) = self.uncaptured.lock().ok().and_then(|mut v| v.pop()) {
            return Err(GpuError::Validation { stage, msg });
        }
        Ok(out)
    }
}
