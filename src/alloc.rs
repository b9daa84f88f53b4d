//! The global allocator of the `neardup` binary and benchmarks: allocations of 2 MiB or more
//! are anonymous maps advised for transparent huge pages; smaller ones go to the system
//! allocator.
//!
//! The large allocations are the per-document columns of a join (its sort buffers, the
//! collapsed values, unit boundaries, the document lists), written once and freed. With
//! 4 KiB pages every fresh page is a fault and a zeroing in the kernel, which on a virtual
//! machine costs about 2 us, one page at a time; with 2 MiB pages the zeroing remains but the
//! faults are 512 times fewer. Where transparent huge pages are available only on request
//! (`madvise`, a common default), these maps ask for them. A fresh map is already zeroed, so
//! zeroed allocations cost nothing until touched; growing one is an `mremap`, which moves
//! page tables rather than bytes.
//!
//! Small blocks aligned beyond what `malloc` guarantees (zlib-rs's deflate and inflate states,
//! 64-byte aligned, one per gzip member) are carved out of a larger plain `malloc` block instead
//! of `posix_memalign`: glibc rarely reuses freed memalign blocks for the next memalign, so a
//! writer of a million gzip members grew its heap by about 25 KB per member (24 GB at a million
//! pages) while holding 2.5 MB.
//!
//! Only the binary and the benchmarks install it (`#[global_allocator]`); as a library the
//! crate leaves the choice of allocator to its user.

use std::alloc::{GlobalAlloc, Layout, System};

/// Allocations of at least this many bytes are maps of their own.
const MIN_MAP: usize = 2 << 20;

/// The allocator: see the module documentation.
pub struct HugePages;

/// Whether `l` gets a map of its own (page alignment is all a map promises).
fn mapped(l: &Layout) -> bool {
    cfg!(target_os = "linux") && l.size() >= MIN_MAP && l.align() <= 4096
}

/// A transparent huge page.
const HUGE: usize = 2 << 20;

/// The length of the map for `size` bytes: whole huge pages, so that no huge page is shared
/// with another map.
fn map_len(size: usize) -> usize {
    size.next_multiple_of(HUGE)
}

#[cfg(target_os = "linux")]
mod sys {
    use super::HUGE;
    use std::ptr::null_mut;

    /// A fresh zeroed map of `len` bytes (a multiple of [`HUGE`]) on a huge-page boundary,
    /// advised for huge pages, or null.
    pub fn map(len: usize) -> *mut u8 {
        // Map a huge page more than asked, then trim the ends to the boundary: the kernel
        // places anonymous maps on page boundaries only.
        let Some(over) = len.checked_add(HUGE) else {
            return null_mut();
        };
        // SAFETY: an anonymous private map at an address of the kernel's choosing touches no
        // existing memory; the result is checked before use.
        let p = unsafe {
            libc::mmap(
                null_mut(),
                over,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return null_mut();
        }
        let head = (p as usize).next_multiple_of(HUGE) - p as usize;
        let start = p.cast::<u8>().wrapping_add(head);
        // SAFETY: the head `p..start` and the tail `start + len..p + over` (never empty, as
        // `head < HUGE`) lie inside the map just made and are never handed out.
        unsafe {
            if head > 0 {
                libc::munmap(p, head);
            }
            libc::munmap(start.add(len).cast(), HUGE - head);
            // The advice is a hint; a kernel without transparent huge pages refuses it and
            // the map works as before.
            libc::madvise(start.cast(), len, libc::MADV_HUGEPAGE);
        }
        start
    }

    /// Unmaps a map from [`map`] of `len` bytes.
    ///
    /// # Safety
    /// `p` and `len` must be a live map from [`map`] or [`remap`], not used afterwards.
    pub unsafe fn unmap(p: *mut u8, len: usize) {
        // SAFETY: the caller passes a live map of this length.
        unsafe { libc::munmap(p.cast(), len) };
    }

    /// Resizes a map from [`map`]; it may move. Null where the kernel refuses.
    ///
    /// # Safety
    /// `p` and `old` must be a live map from [`map`] or [`remap`]; on success it is replaced
    /// by the result.
    pub unsafe fn remap(p: *mut u8, old: usize, new: usize) -> *mut u8 {
        // SAFETY: the caller passes a live map; MREMAP_MAYMOVE keeps its contents and advice.
        let q = unsafe { libc::mremap(p.cast(), old, new, libc::MREMAP_MAYMOVE) };
        if q == libc::MAP_FAILED {
            null_mut()
        } else {
            q.cast()
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    pub fn map(_: usize) -> *mut u8 {
        unreachable!("maps are used on Linux only")
    }
    pub unsafe fn unmap(_: *mut u8, _: usize) {
        unreachable!("maps are used on Linux only")
    }
    pub unsafe fn remap(_: *mut u8, _: usize, _: usize) -> *mut u8 {
        unreachable!("maps are used on Linux only")
    }
}

/// The alignment every `malloc` block has on the platforms neardup runs on (glibc, 64-bit).
const MALLOC_ALIGN: usize = 16;

/// Whether `l` is a small block aligned beyond `malloc`'s own alignment.
fn over_aligned(l: &Layout) -> bool {
    cfg!(target_os = "linux") && l.align() > MALLOC_ALIGN && !mapped(l)
}

/// The plain block an over-aligned block of `l` is carved from: `align` bytes more, so that an
/// aligned address with room for the raw pointer before it always lies inside.
fn carrier(l: &Layout) -> Option<Layout> {
    Layout::from_size_align(l.size().checked_add(l.align())?, MALLOC_ALIGN).ok()
}

/// Allocates an over-aligned block of `l` (zeroed if asked): the first `l.align()`-aligned
/// address past the start of a plain block, with the plain block's address stored in the 8
/// bytes before it.
///
/// # Safety
/// `l` must have a non-zero size and an alignment above [`MALLOC_ALIGN`].
unsafe fn alloc_over_aligned(l: &Layout, zeroed: bool) -> *mut u8 {
    let Some(c) = carrier(l) else {
        return std::ptr::null_mut();
    };
    // SAFETY: `c` has a non-zero size.
    let raw = unsafe {
        if zeroed {
            System.alloc_zeroed(c)
        } else {
            System.alloc(c)
        }
    };
    if raw.is_null() {
        return raw;
    }
    // `raw` is 16-aligned and `align` a larger power of two, so the offset is a multiple of 16
    // from 16 to `align`: room for the pointer before, and `size` bytes after, inside `c`.
    let offset = (raw as usize + 1).next_multiple_of(l.align()) - raw as usize;
    // SAFETY: `offset <= align`, so `raw + offset` and the 8 bytes before it lie in the block.
    unsafe {
        let p = raw.add(offset);
        p.sub(8).cast::<*mut u8>().write_unaligned(raw);
        p
    }
}

/// Frees a block from [`alloc_over_aligned`].
///
/// # Safety
/// `p` must be a live block from [`alloc_over_aligned`] of layout `l`.
unsafe fn dealloc_over_aligned(p: *mut u8, l: &Layout) {
    // SAFETY: the plain block's address was stored before `p`, and it was made with `carrier(l)`.
    unsafe {
        let raw = p.sub(8).cast::<*mut u8>().read_unaligned();
        if let Some(c) = carrier(l) {
            System.dealloc(raw, c);
        }
    }
}

// SAFETY: large blocks are whole maps of their own, returned only once each and unmapped with
// the length they were made with (recomputed from the layout the caller must pass back); all
// other blocks are the system allocator's, with the caller's layout passed on unchanged.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if mapped(&l) {
            sys::map(map_len(l.size()))
        } else if over_aligned(&l) {
            // SAFETY: a non-zero size (the caller's contract) and an alignment above malloc's.
            unsafe { alloc_over_aligned(&l, false) }
        } else {
            // SAFETY: the caller's contract (non-zero size) is passed on.
            unsafe { System.alloc(l) }
        }
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if mapped(&l) {
            // Fresh anonymous maps read as zeros.
            sys::map(map_len(l.size()))
        } else if over_aligned(&l) {
            // SAFETY: as for `alloc`.
            unsafe { alloc_over_aligned(&l, true) }
        } else {
            // SAFETY: as for `alloc`.
            unsafe { System.alloc_zeroed(l) }
        }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if mapped(&l) {
            // SAFETY: a block of this layout came from `sys::map` of this length.
            unsafe { sys::unmap(p, map_len(l.size())) }
        } else if over_aligned(&l) {
            // SAFETY: a block of this layout came from `alloc_over_aligned`.
            unsafe { dealloc_over_aligned(p, &l) }
        } else {
            // SAFETY: a block of this layout came from the system allocator.
            unsafe { System.dealloc(p, l) }
        }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees a valid layout for the new size.
        let nl = unsafe { Layout::from_size_align_unchecked(new_size, l.align()) };
        match (mapped(&l), mapped(&nl)) {
            // SAFETY: both blocks are the system allocator's, plain ones.
            (false, false) if !over_aligned(&l) => unsafe { System.realloc(p, l, new_size) },
            // SAFETY: `p` is a live map of the old layout's length.
            (true, true) => unsafe { sys::remap(p, map_len(l.size()), map_len(new_size)) },
            _ => {
                // SAFETY: `nl` has a non-zero size (the caller's contract); the old block is live for `l.size()` bytes and the new one for
                // `new_size`, and they do not overlap.
                unsafe {
                    let q = self.alloc(nl);
                    if !q.is_null() {
                        std::ptr::copy_nonoverlapping(p, q, l.size().min(new_size));
                        self.dealloc(p, l);
                    }
                    q
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocates, writes, grows across the threshold both ways, and frees, checking the
    /// contents survive each step (the test binary does not install the allocator, so it is
    /// called directly).
    #[test]
    #[cfg_attr(
        miri,
        ignore = "Miri models a map as one allocation: no partial munmap or mremap"
    )]
    fn blocks_keep_their_contents_across_sizes() {
        let a = HugePages;
        for (start, grown, shrunk) in [
            (1024, 2048, 512),
            (1024, MIN_MAP + 5, 100),
            (MIN_MAP, 3 * MIN_MAP + 1, MIN_MAP),
            (MIN_MAP + 8, 2 * MIN_MAP, 64),
        ] {
            let l = Layout::from_size_align(start, 8).unwrap();
            // SAFETY: layouts are non-zero; each block is used within its size and freed
            // once, with the layout it has at that point.
            unsafe {
                let z = a.alloc_zeroed(l);
                assert!(!z.is_null());
                assert!((0..start).all(|i| *z.add(i) == 0), "zeroed {start}");
                a.dealloc(z, l);
                let p = a.alloc(l);
                assert!(!p.is_null());
                for i in 0..start {
                    *p.add(i) = (i % 251) as u8;
                }
                let p = a.realloc(p, l, grown);
                assert!(!p.is_null());
                assert!(
                    (0..start).all(|i| *p.add(i) == (i % 251) as u8),
                    "grown {start}"
                );
                *p.add(grown - 1) = 7;
                let lg = Layout::from_size_align(grown, 8).unwrap();
                let p = a.realloc(p, lg, shrunk);
                assert!(!p.is_null());
                let keep = start.min(shrunk);
                assert!(
                    (0..keep).all(|i| *p.add(i) == (i % 251) as u8),
                    "shrunk {start}"
                );
                a.dealloc(p, Layout::from_size_align(shrunk, 8).unwrap());
            }
        }
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "Miri models a map as one allocation: no partial munmap or mremap"
    )]
    fn only_large_page_aligned_blocks_are_mapped() {
        let l = |size, align| Layout::from_size_align(size, align).unwrap();
        assert!(!mapped(&l(MIN_MAP - 1, 8)));
        assert_eq!(mapped(&l(MIN_MAP, 8)), cfg!(target_os = "linux"));
        assert!(!mapped(&l(MIN_MAP, 8192)));
        assert_eq!(map_len(1), 2 << 20);
        assert_eq!(map_len(2 << 20), 2 << 20);
        assert_eq!(map_len((2 << 20) + 1), 4 << 20);
    }

    /// Blocks aligned beyond malloc's are aligned, zeroed when asked, keep their contents when
    /// resized (within and across the kind of block), and free cleanly (Miri checks the
    /// carving: every access inside the plain block, the plain block freed with its layout).
    #[test]
    fn over_aligned_blocks_are_aligned_and_keep_their_contents() {
        let a = HugePages;
        for align in [32usize, 64, 4096, 8192] {
            for size in [1usize, 63, 300, 5000] {
                let l = Layout::from_size_align(size, align).unwrap();
                // SAFETY: non-zero sizes; each block is used within its size and freed with
                // the layout it has at that moment.
                unsafe {
                    let z = a.alloc_zeroed(l);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, l);
                    let p = a.alloc(l);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "align {align} size {size}");
                    for i in 0..size {
                        *p.add(i) = (i % 251) as u8;
                    }
                    let grown = size * 3 + 17;
                    let q = a.realloc(p, l, grown);
                    assert_eq!(q as usize % align, 0);
                    assert!((0..size).all(|i| *q.add(i) == (i % 251) as u8));
                    let lg = Layout::from_size_align(grown, align).unwrap();
                    let r = a.realloc(q, lg, 1);
                    assert_eq!(*r, 0);
                    a.dealloc(r, Layout::from_size_align(1, align).unwrap());
                }
            }
        }
    }
}
