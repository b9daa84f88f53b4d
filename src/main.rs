//! The `neardup` binary: parse, run, map the outcome to an exit code.
//!
//! 0 is success (records may have been skipped), 2 is an error, including a shard that could
//! not be read while the others were; a closed pipe (`neardup export -o - | head`) is success.

use std::process::ExitCode;

#[global_allocator]
static ALLOC: neardup::alloc::HugePages = neardup::alloc::HugePages;

fn main() -> ExitCode {
    // First, while this is the only thread: the environment variable it may set is read by
    // Vulkan's loader when a GPU is opened.
    neardup::gpu::icd::prepare();
    match neardup::cli::run() {
        Ok(neardup::cli::Outcome::Clean) => ExitCode::SUCCESS,
        Ok(neardup::cli::Outcome::Partial) => ExitCode::from(2),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!(
                "error: {}",
                neardup::base::shown::terminal_text(&neardup::cli::message(&e))
            );
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
