//! The `neardup` binary: parse, run, map the outcome to an exit code.
//!
//! 0 is success (records may have been skipped), 2 is an error, including a shard that could
//! not be read while the others were; a closed pipe (`neardup export -o - | head`) is success.

use std::process::ExitCode;

#[global_allocator]
static ALLOC: neardup::alloc::HugePages = neardup::alloc::HugePages;

fn main() -> ExitCode {
    match neardup::cli::run() {
        Ok(neardup::cli::Outcome::Clean) => ExitCode::SUCCESS,
        Ok(neardup::cli::Outcome::Partial) => ExitCode::from(2),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {}", message(&e));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes, each said once: a cause whose words the message already holds
/// (an I/O error the library's message quotes, say) is not repeated.
fn message(e: &anyhow::Error) -> String {
    let mut msg = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !msg.contains(&c) {
            msg.push_str(": ");
            msg.push_str(&c);
        }
    }
    msg
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
