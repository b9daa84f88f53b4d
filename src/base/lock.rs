//! One writer per output: a lock file holding the writer's process id, made with
//! `create_new` so that two runs cannot both take it. A second run into the same output is
//! refused with the holder's pid; a lock left by a killed run (its process gone) is taken
//! over, and so is one still empty a second after it was made (its taker was killed before it
//! wrote its pid). The lock is removed when its guard is dropped, however the run ends short of
//! a kill.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// A held lock; dropped, it removes its file.
#[derive(Debug)]
pub struct Lock {
    path: PathBuf,
    _interrupt: super::interrupt::Temporary,
}

impl Lock {
    /// Takes the lock file `path` for `what` (the output it guards, for messages).
    pub fn acquire(path: &Path, what: &Path) -> Result<Lock> {
        for _ in 0..3 {
            let made = super::interrupt::register_with(path, || {
                fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(path)
            });
            match made {
                Ok((registered, mut f)) => {
                    f.write_all(std::process::id().to_string().as_bytes())
                        .map_err(|e| Error::io(path, e))?;
                    return Ok(Lock {
                        path: path.to_path_buf(),
                        _interrupt: registered,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = fs::read_to_string(path).unwrap_or_default();
                    match holder.trim().parse::<u32>() {
                        Ok(pid) if pid != std::process::id() && !super::stale::alive(pid) => {
                            // A killed run's lock: take it over.
                            let _ = fs::remove_file(path);
                        }
                        Ok(pid) => {
                            return Err(Error::Config(format!(
                                "{} is being written by another neardup run (pid {pid}); wait for it, or remove {} if that process is not neardup",
                                what.display(),
                                path.display()
                            )))
                        }
                        // Being written by its taker this instant: wait a little. Still without
                        // a pid a second after it was made, its taker was killed between making
                        // it and writing to it: take it over.
                        Err(_) => {
                            let age = fs::metadata(path)
                                .and_then(|m| m.modified())
                                .ok()
                                .and_then(|t| t.elapsed().ok());
                            if age.is_some_and(|a| a >= std::time::Duration::from_secs(1))
                                && fs::read_to_string(path).is_ok_and(|h| h.trim().is_empty())
                            {
                                let _ = fs::remove_file(path);
                            } else {
                                std::thread::sleep(std::time::Duration::from_millis(50));
                            }
                        }
                    }
                }
                Err(e) => return Err(Error::io(path, e)),
            }
        }
        Err(Error::Config(format!(
            "{} is locked by {}, which names no process",
            what.display(),
            path.display()
        )))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_and_stale_locks_are_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".lock");
        let held = Lock::acquire(&p, dir.path()).unwrap();
        // This process holds it: a second taker in the same process is refused too.
        fs::write(&p, "1").unwrap();
        let e = Lock::acquire(&p, dir.path()).unwrap_err().to_string();
        assert!(e.contains("pid 1"), "{e}");
        drop(held);
        assert!(!p.exists());
        fs::write(&p, "4999999").unwrap();
        let taken = Lock::acquire(&p, dir.path()).unwrap();
        assert_eq!(
            fs::read_to_string(&p).unwrap(),
            std::process::id().to_string()
        );
        drop(taken);
        assert!(!p.exists());
        // A taker killed before it wrote its pid left an empty lock: taken over once it is a
        // second old, never while it may still be written.
        fs::write(&p, "").unwrap();
        assert!(Lock::acquire(&p, dir.path()).is_err());
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(5);
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let taken = Lock::acquire(&p, dir.path()).unwrap();
        drop(taken);
        assert!(!p.exists());
    }
}
