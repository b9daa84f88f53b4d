//! Leftovers of runs that are gone: whether a process still runs, and the removal of the
//! temporaries a killed run left behind (named after their process). Below the atomic writer,
//! the locks and the output directories' claims, which all ask it.

use std::fs;
use std::path::Path;

/// Removes the entries of `dir` named `prefix` followed by the id of a process that no longer
/// runs: temporaries of killed runs. Anything else, a live run's temporary included, is left.
pub fn clean_stale(dir: &Path, prefix: &str) {
    clean_stale_where(dir, prefix, |_| true)
}

/// As [`clean_stale`], removing only the leftovers that `owned` says are neardup's (in an
/// output directory, those its record names: a user's file named like a temporary is the
/// user's).
pub fn clean_stale_where(dir: &Path, prefix: &str, owned: impl Fn(&str) -> bool) {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let Some(pid) = name.strip_prefix(prefix) else {
            continue;
        };
        if !owned(name) {
            continue;
        }
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() || alive(pid) {
            continue;
        }
        let p = e.path();
        let _ = if p.is_dir() && !p.is_symlink() {
            fs::remove_dir_all(&p)
        } else {
            fs::remove_file(&p)
        };
    }
}

/// Whether process `pid` runs (where that cannot be told, it is taken to run). A process that
/// has exited but not yet been reaped by its parent (a zombie, as a killed worker is until its
/// supervisor waits for it) runs no more: its locks and temporaries are free to take.
pub fn alive(pid: u32) -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name, which is in parentheses and may hold any byte.
        Ok(stat) => !stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_some_and(|state| state == 'Z' || state == 'X'),
        Err(_) => Path::new(&format!("/proc/{pid}")).exists(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_zombie_runs_no_more() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Exited, not yet waited for: a zombie.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while alive(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(
            !alive(pid),
            "the exited child {pid} still counts as running"
        );
        assert!(Path::new(&format!("/proc/{pid}")).exists(), "reaped early");
        child.wait().unwrap();
        assert!(alive(std::process::id()));
    }
}
