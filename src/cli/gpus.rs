//! `neardup gpus`: the adapters wgpu sees, with the limits that size a join's batches.

use super::args::GpusArgs;
use super::Outcome;
use crate::gpu::{adapters, icd};

/// Runs the command.
pub fn run(a: GpusArgs) -> anyhow::Result<Outcome> {
    let list = adapters();
    if a.json {
        println!("{}", serde_json::to_string_pretty(&list)?);
        return Ok(Outcome::Clean);
    }
    if list.is_empty() {
        println!("no GPU adapters (joins run on the CPU; install a Vulkan driver, e.g. mesa-vulkan-drivers, for a software adapter)");
        if std::path::Path::new(icd::NVIDIA_DEVICE).exists() {
            match icd::decided() {
                Some(icd::Decision::Add { lib, var, .. }) => println!(
                    "an NVIDIA device node exists; {} was added as a Vulkan driver (through {var}) and offers no adapter either",
                    lib.display()
                ),
                Some(icd::Decision::Leave(why)) => println!(
                    "an NVIDIA device node exists; NVIDIA's headless Vulkan manifest was not added: {why} (NEARDUP_VULKAN_AS_IS and the VK_*DRIVER_FILES variables turn it off)"
                ),
                None => {}
            }
        }
        return Ok(Outcome::Clean);
    }
    for (i, d) in list.iter().enumerate() {
        println!(
            "{i}: {}\n   backend {}, type {}{}, driver {}\n   max storage binding {} MiB, max buffer {} MiB, {} workgroups per dimension, {} KiB workgroup memory",
            d.name,
            d.backend,
            d.device_type,
            if d.software {
                " (software: used only with --backend gpu)"
            } else {
                ""
            },
            if d.driver.is_empty() { "?" } else { &d.driver },
            d.max_storage_binding >> 20,
            d.max_buffer >> 20,
            d.max_workgroups_per_dim,
            d.max_workgroup_storage >> 10,
        );
    }
    Ok(Outcome::Clean)
}
