//! The process's peak resident memory, per stage: Linux keeps a high-water mark (`VmHWM` in
//! `/proc/self/status`) that writing `5` to `/proc/self/clear_refs` resets, so each stage of
//! a run can report its own peak. Elsewhere, or where `/proc` is not readable, there is no
//! figure (None), never a wrong one.

/// Starts a new high-water mark at the current resident memory; false where it cannot.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", b"5").is_ok()
}

/// The peak resident memory since the process started or [`reset_peak`] last succeeded,
/// bytes.
pub fn peak() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_peak_follows_memory_and_resets() {
        let Some(before) = super::peak() else {
            eprintln!("no /proc/self/status here: nothing to check");
            return;
        };
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
