//! The process's peak resident memory, per stage: Linux keeps a high-water mark (`VmHWM` in
//! `/proc/self/status`) that writing `5` to `/proc/self/clear_refs` resets, so each stage of
//! a run can report its own peak. Elsewhere, or where `/proc` is not readable, there is no
//! figure (None), never a wrong one.

/// Starts a new high-water mark at the current resident memory; false where it cannot.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", b"5").is_ok()
}

/// The resident memory now, bytes (None where `/proc` cannot say).
pub fn current() -> Option<u64> {
    status_kb("VmRSS:").map(|kb| kb * 1024)
}

fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.trim_start_matches(field)
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// The peak resident memory since the process started or [`reset_peak`] last succeeded,
/// bytes.
pub fn peak() -> Option<u64> {
    status_kb("VmHWM:").map(|kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    /// The high-water mark is the whole process's, so other tests running beside this one
    /// move it too: the check runs in a child process of this test binary that runs this test
    /// alone.
    #[test]
    fn the_peak_follows_memory_and_resets() {
        const CHILD: &str = "NEARDUP_RSS_TEST_CHILD";
        if super::peak().is_none() {
            eprintln!("no /proc/self/status here: nothing to check");
            return;
        }
        if std::env::var_os(CHILD).is_none() {
            let exe = std::env::current_exe().expect("the test binary");
            let out = std::process::Command::new(exe)
                .args([
                    "base::rss::tests::the_peak_follows_memory_and_resets",
                    "--exact",
                    "--test-threads=1",
                    "--nocapture",
                ])
                .env(CHILD, "1")
                .output()
                .expect("the test binary runs");
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{text}");
            assert!(text.contains("1 passed"), "{text}");
            return;
        }
        let before = super::peak().expect("read above");
        // Touch 64 MB more than the process held, then free it.
        let big = vec![1u8; 64 << 20];
        let touched: u64 = big.iter().step_by(4096).map(|b| u64::from(*b)).sum();
        assert_eq!(touched, (64 << 20) / 4096);
        let high = super::peak().unwrap();
        assert!(high >= before + (60 << 20), "{before} -> {high}");
        drop(big);
        if super::reset_peak() {
            assert!(super::peak().unwrap() < high, "the mark did not reset");
        }
    }
}
