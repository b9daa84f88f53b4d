//! Which AVX-512 paths this process takes: found once, for the SimHash counters, the band
//! keys' densification and the join's popcounts alike, so that one switch (`NEARDUP_NO_AVX512`) turns every one of them off for
//! measuring them against the portable paths.

/// The AVX-512 extensions the fast paths use.
#[derive(Clone, Copy, Debug, Default)]
pub struct Avx512 {
    /// AVX-512F and AVX-512BW: masked byte adds (the SimHash counters).
    pub bytes: bool,
    /// AVX-512F and AVX-512 VPOPCNTDQ: eight 64-bit popcounts (the join's comparisons).
    pub popcount: bool,
    /// AVX-512F: sixteen 32-bit minimums (fast densification's table of first throws).
    pub dwords: bool,
    /// AVX-512F, AVX-512BW and AVX-512DQ: eight 64-bit multiplies (the SimHash features'
    /// hashes, eight n-grams at a time, beside the byte counters).
    pub quads: bool,
}

/// What the CPU offers, unless `NEARDUP_NO_AVX512` is set or Miri is running (which has no
/// such instructions): all false then, and off x86-64.
pub fn avx512() -> Avx512 {
    use std::sync::OnceLock;
    static FOUND: OnceLock<Avx512> = OnceLock::new();
    *FOUND.get_or_init(|| {
        if cfg!(miri) || std::env::var_os("NEARDUP_NO_AVX512").is_some() {
            return Avx512::default();
        }
        detect()
    })
}

/// Whether the AVX2 paths are taken (the structural index, the text's 64-byte skip): where
/// the CPU has AVX2, unless `NEARDUP_NO_AVX2` is set or Miri is running. Paths that have an
/// AVX-512 twin take that one first.
pub fn avx2() -> bool {
    use std::sync::OnceLock;
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        if cfg!(miri) || std::env::var_os("NEARDUP_NO_AVX2").is_some() {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        {
            is_x86_feature_detected!("avx2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    })
}

/// Which byte-vector path a text scanner takes over 64 bytes at a time (the structural
/// index's masks, the normaliser's skip): the widest this CPU has of the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bytes64 {
    /// One AVX-512BW register a window (AVX-512F and AVX-512BW).
    Avx512,
    /// Two AVX2 registers a window.
    Avx2,
    /// No vector path: the scanner's portable loop.
    Portable,
}

/// The path [`Bytes64`] names for this CPU, from what [`avx512`] and [`avx2`] keep (so the
/// same switches turn it off; `Portable` off x86-64 and under Miri).
pub fn bytes64() -> Bytes64 {
    if avx512().bytes {
        Bytes64::Avx512
    } else if avx2() {
        Bytes64::Avx2
    } else {
        Bytes64::Portable
    }
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Avx512 {
    let f = is_x86_feature_detected!("avx512f");
    Avx512 {
        bytes: f && is_x86_feature_detected!("avx512bw"),
        popcount: f && is_x86_feature_detected!("avx512vpopcntdq"),
        dwords: f,
        quads: f && is_x86_feature_detected!("avx512bw") && is_x86_feature_detected!("avx512dq"),
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Avx512 {
    Avx512::default()
}
