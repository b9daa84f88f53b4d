//! What an interrupted run leaves behind: nothing of its own making.
//!
//! Every temporary a run makes (an [`AtomicFile`](super::atomic::AtomicFile)'s hidden file, a
//! store being written, a lock file) is registered here while it exists. When the run is
//! interrupted (Ctrl-C, SIGTERM, SIGHUP), [`remove_all`] removes them and the process exits;
//! the handler itself is installed by the command line, which owns the process. A rename that
//! swaps an output into place is a [`Critical`] section: the interrupt waits for it to end, so
//! an output is never left half swapped (an old store moved aside, the new one not yet in
//! place). Removing a temporary that a commit already renamed away finds nothing, harmlessly.
//! A `kill -9` cannot be caught: its leftovers are removed by the next run once their process
//! is gone (`atomic::clean_stale`, `lock`).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};
use std::time::{Duration, Instant};

struct Registry {
    next: u64,
    live: Vec<(u64, PathBuf)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next: 0,
    live: Vec::new(),
});

/// Critical sections hold it shared; the interrupt takes it whole, so it waits for the sections
/// that are running and no new one starts after it (it is never given back).
static CRITICAL: RwLock<()> = RwLock::new(());

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    // A panic while holding the lock leaves a usable list: recover it.
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A registered temporary; dropped, it is no longer removed on interrupt.
#[derive(Debug)]
pub struct Temporary(u64);

/// Registers `path` (a file or a directory) to be removed if the run is interrupted.
pub fn register(path: &Path) -> Temporary {
    let Ok((t, ())) = register_with(path, || Ok::<(), std::convert::Infallible>(()));
    t
}

/// Makes a temporary with `make` and registers `path` when it succeeds, in one step under the
/// registry's lock: an interrupt then either finds it registered or waits for the process to
/// exit before it could be made (registering first would let an interrupt clean up between
/// the two and miss it, making first would leave a file nobody removes). Nothing is registered
/// when `make` fails (the path may be another process's, such as its lock).
pub fn register_with<T, E>(
    path: &Path,
    make: impl FnOnce() -> std::result::Result<T, E>,
) -> std::result::Result<(Temporary, T), E> {
    let mut r = registry();
    let made = make()?;
    let id = r.next;
    r.next += 1;
    r.live.push((id, path.to_path_buf()));
    Ok((Temporary(id), made))
}

impl Drop for Temporary {
    fn drop(&mut self) {
        registry().live.retain(|(id, _)| *id != self.0);
    }
}

/// A section the interrupt waits for (a swap of renames); ends when dropped. Once an interrupt
/// has begun, `enter` never returns: the process exits first, before anything is moved.
pub struct Critical(#[allow(dead_code)] RwLockReadGuard<'static, ()>);

impl Critical {
    /// Enters a critical section.
    pub fn enter() -> Critical {
        Critical(CRITICAL.read().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Removes every registered temporary, after waiting (up to ten seconds) for critical sections
/// to end; returns how many were removed. Registrations and critical sections begun meanwhile
/// wait for the process to exit.
pub fn remove_all() -> usize {
    let sections = close(&CRITICAL, Duration::from_secs(10));
    let r = registry();
    let removed = remove(r.live.iter().rev().map(|(_, p)| p.as_path()));
    // Both stay locked: the process is about to exit, and nothing new may be made or moved.
    std::mem::forget(sections);
    std::mem::forget(r);
    removed
}

/// Takes `sections` whole once the sections running in it have ended, or after `patience`
/// (`None`: a section is stuck, and the removal goes on without it).
fn close(sections: &RwLock<()>, patience: Duration) -> Option<RwLockWriteGuard<'_, ()>> {
    let start = Instant::now();
    loop {
        match sections.try_write() {
            Ok(g) => return Some(g),
            Err(TryLockError::Poisoned(e)) => return Some(e.into_inner()),
            Err(TryLockError::WouldBlock) if start.elapsed() < patience => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Err(TryLockError::WouldBlock) => return None,
        }
    }
}

/// Removes each path (a directory with its contents); returns how many were removed.
fn remove<'p>(paths: impl Iterator<Item = &'p Path>) -> usize {
    paths
        .filter(|p| {
            if p.is_dir() {
                // The run's other threads go on while this removes: a store being written
                // may gain a file between the removal of the entries and of the directory.
                // A few tries see it gone (its columns are all made as the store starts).
                (0..50).any(|_| {
                    std::fs::remove_dir_all(p).is_ok() || {
                        std::thread::sleep(Duration::from_millis(2));
                        !p.exists()
                    }
                })
            } else {
                std::fs::remove_file(p).is_ok()
            }
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_paths_are_removed_and_dropped_ones_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let keep = dir.path().join("keep");
        let file = dir.path().join("tmp-file");
        let sub = dir.path().join("tmp-dir");
        std::fs::write(&keep, b"x").unwrap();
        std::fs::write(&file, b"x").unwrap();
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("inner"), b"x").unwrap();
        let _f = register(&file);
        let _d = register(&sub);
        drop(register(&keep));
        // The removal runs on a copy of this test's part of the list, so the process-wide
        // registry stays unlocked for other tests.
        let live: Vec<PathBuf> = registry().live.iter().map(|(_, p)| p.clone()).collect();
        assert!(live.contains(&file) && live.contains(&sub) && !live.contains(&keep));
        let ours = live.iter().filter(|p| p.starts_with(dir.path()));
        assert_eq!(remove(ours.map(PathBuf::as_path)), 2);
        assert!(keep.exists() && !file.exists() && !sub.exists());
    }

    /// The race a killed `dedup --force` lost: the interrupt looked, saw no swap, and a swap
    /// began while it removed the temporaries, so the process exited with the old store moved
    /// aside. Now a swap under way is waited for, and one not yet begun never begins.
    #[test]
    fn an_interrupt_waits_for_a_running_swap_and_blocks_new_ones() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let sections = Arc::new(RwLock::new(()));
        let done = Arc::new(AtomicBool::new(false));
        let entered = Arc::new(std::sync::Barrier::new(2));
        let swap = {
            let (sections, done, entered) = (sections.clone(), done.clone(), entered.clone());
            std::thread::spawn(move || {
                let _g = sections.read().unwrap();
                entered.wait();
                std::thread::sleep(Duration::from_millis(50));
                done.store(true, Ordering::SeqCst);
            })
        };
        entered.wait();
        let closed = close(&sections, Duration::from_secs(10));
        assert!(closed.is_some());
        assert!(
            done.load(Ordering::SeqCst),
            "the interrupt went on before the swap ended"
        );
        assert!(
            matches!(sections.try_read(), Err(TryLockError::WouldBlock)),
            "a new swap could begin after the interrupt"
        );
        swap.join().unwrap();
        drop(closed);
        // A section that never ends is given up on after the patience.
        let _stuck = sections.read().unwrap();
        assert!(close(&sections, Duration::from_millis(20)).is_none());
    }
}
