//! Where a join's comparisons run, chosen once: the rules that turn `--backend auto|gpu|cpu`
//! and `--adapter` into a [`Backend`].
//!
//! `cpu` is the CPU. `gpu` opens a GPU adapter, software ones (lavapipe) included, and fails
//! when there is none. `auto` opens a hardware adapter when the machine may have one and falls
//! back to the CPU, saying why, when it has none; an adapter named with `--adapter` must open,
//! whatever the choice. The decision is a pure function ([`decide`]) tested on its own.

use crate::gpu::{self, Gpu, GpuError, Selection};

use super::gpu::GpuConfig;
use super::plan::TableWeight;

/// What the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendChoice {
    /// A hardware GPU adapter when one exists, else the CPU.
    #[default]
    Auto,
    /// A GPU adapter, software ones included; an error when there is none.
    Gpu,
    /// The CPU (rayon).
    Cpu,
}

impl BackendChoice {
    /// The choice as the command line and `summary.json` spell it.
    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Gpu => "gpu",
            BackendChoice::Cpu => "cpu",
        }
    }
}

/// An opened backend.
#[derive(Debug)]
pub enum Backend {
    /// The CPU scan.
    Cpu,
    /// A GPU device, with the driver's batch sizes.
    Gpu {
        /// The device (boxed: it is large, and opened once).
        gpu: Box<Gpu>,
        /// Batch and buffer sizes.
        config: GpuConfig,
    },
}

/// What to try first, given the choice and the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// The CPU, with the reason when the user did not ask for it.
    Cpu(Option<String>),
    /// Open an adapter; on failure, fall back to the CPU when `fallback`, else fail.
    Open {
        /// Accept a software adapter.
        allow_software: bool,
        /// Fall back to the CPU when no adapter opens.
        fallback: bool,
    },
}

/// The rule: what `choice` means with an adapter named or not, on a machine that may have a
/// hardware GPU or certainly has none.
pub fn decide(choice: BackendChoice, adapter_named: bool, hardware_possible: bool) -> Attempt {
    match choice {
        BackendChoice::Cpu => Attempt::Cpu(None),
        BackendChoice::Gpu => Attempt::Open {
            allow_software: true,
            fallback: false,
        },
        BackendChoice::Auto if !adapter_named && !hardware_possible => Attempt::Cpu(Some(
            "no GPU device on this machine; --backend gpu accepts software adapters".into(),
        )),
        BackendChoice::Auto => Attempt::Open {
            allow_software: false,
            fallback: !adapter_named,
        },
    }
}

/// Why no backend could be opened.
#[derive(Debug, thiserror::Error)]
#[error("{flag}: {source}")]
pub struct OpenError {
    /// The option that asked for the GPU.
    pub flag: &'static str,
    /// What went wrong.
    pub source: GpuError,
}

impl Backend {
    /// What a table weighs against a comparison here: the GPU's weight on a hardware adapter,
    /// the CPU's on the CPU and on a software adapter (whose comparisons run on the CPU).
    pub fn table_weight(&self) -> TableWeight {
        match self {
            Backend::Gpu { gpu, config } if !gpu.adapter().software => {
                if config.resident.is_some() {
                    TableWeight::GPU_RESIDENT
                } else {
                    TableWeight::GPU
                }
            }
            _ => TableWeight::CPU,
        }
    }

    /// Opens the backend `choice` asks for, on `adapter` when named. Returns the backend and,
    /// when `auto` fell back to the CPU, why.
    pub fn open(
        choice: BackendChoice,
        adapter: Option<&str>,
    ) -> Result<(Backend, Option<String>), OpenError> {
        let (allow_software, fallback) =
            match decide(choice, adapter.is_some(), gpu::hardware_possible()) {
                Attempt::Cpu(why) => return Ok((Backend::Cpu, why)),
                Attempt::Open {
                    allow_software,
                    fallback,
                } => (allow_software, fallback),
            };
        let sel = Selection {
            name: adapter.map(str::to_string),
            allow_software,
        };
        match Gpu::open(&sel) {
            Ok(gpu) => Ok((
                Backend::Gpu {
                    gpu: Box::new(gpu),
                    config: GpuConfig::default(),
                },
                None,
            )),
            Err(e) if fallback => Ok((
                Backend::Cpu,
                Some(format!("{e}; --backend gpu accepts software adapters")),
            )),
            Err(source) => Err(OpenError {
                flag: if choice == BackendChoice::Gpu {
                    "--backend gpu"
                } else {
                    "--adapter"
                },
                source,
            }),
        }
    }

    /// "cpu", or "gpu (ADAPTER)".
    pub fn name(&self) -> String {
        match self {
            Backend::Cpu => "cpu".into(),
            Backend::Gpu { gpu, .. } => format!("gpu ({})", gpu.adapter().name),
        }
    }

    /// The GPU join without its resident path (each table keyed and sorted on the host), for
    /// comparing the two on one device.
    pub fn batched(mut self) -> Backend {
        if let Backend::Gpu { config, .. } = &mut self {
            config.resident = None;
        }
        self
    }

    /// The resident GPU join comparing four columns a step, for comparing the two forms on
    /// one device.
    pub fn unrolled(mut self) -> Backend {
        if let Backend::Gpu { config, .. } = &mut self {
            if let Some(r) = &mut config.resident {
                r.unroll = true;
            }
        }
        self
    }

    /// The GPU, when this is one.
    pub fn gpu(&self) -> Option<&Gpu> {
        match self {
            Backend::Cpu => None,
            Backend::Gpu { gpu, .. } => Some(gpu),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_of_the_choice() {
        use BackendChoice::*;
        for named in [false, true] {
            for hw in [false, true] {
                assert_eq!(decide(Cpu, named, hw), Attempt::Cpu(None));
                assert_eq!(
                    decide(Gpu, named, hw),
                    Attempt::Open {
                        allow_software: true,
                        fallback: false
                    }
                );
            }
        }
        // Auto: the CPU at once where no hardware can exist, unless an adapter is named.
        assert!(matches!(decide(Auto, false, false), Attempt::Cpu(Some(_))));
        let open = |fallback| Attempt::Open {
            allow_software: false,
            fallback,
        };
        assert_eq!(decide(Auto, false, true), open(true));
        // A named adapter must open: no silent fallback.
        assert_eq!(decide(Auto, true, false), open(false));
        assert_eq!(decide(Auto, true, true), open(false));
    }

    #[test]
    fn a_named_adapter_that_does_not_exist_is_an_error() {
        for choice in [BackendChoice::Auto, BackendChoice::Gpu] {
            let e = Backend::open(choice, Some("no such adapter anywhere")).unwrap_err();
            assert!(e.to_string().contains("no such adapter anywhere"), "{e}");
        }
        let (b, why) = Backend::open(BackendChoice::Cpu, Some("ignored")).unwrap();
        assert!(matches!(b, Backend::Cpu) && why.is_none());
        assert_eq!(b.name(), "cpu");
    }
}
