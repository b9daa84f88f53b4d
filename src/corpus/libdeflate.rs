//! One gzip member inflated whole by libdeflate, the member's end found as it inflates.
//!
//! A WARC.gz is one small gzip member per record, and inflating is the largest single cost of
//! reading one. libdeflate inflates a whole member into a buffer 1.9-2.4x as fast as a
//! streaming decoder (BENCHMARKS.md, "Reading at the speed of inflate"), because it never
//! stops to hand out bytes. Its safe Rust wrapper (`libdeflater`) wants the member's compressed
//! length up front, which a WARC.gz does not give: the bindings' `libdeflate_gzip_decompress_ex`
//! returns it, so this file calls them directly, behind one safe type.
//!
//! Whatever libdeflate does not finish cleanly (a member larger than the buffer, damage of any
//! kind) is left to the streaming decoder in gzip.rs, which reports damage with its offset as
//! before: this is a fast path for clean members, never a second definition of damage.

use std::ptr::NonNull;

use libdeflate_sys as sys;

/// What inflating one member came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Inflated {
    /// The member inflated and its CRC and length checked: `read` compressed bytes (header and
    /// trailer included) gave the first `written` bytes of the buffer.
    Member { read: usize, written: usize },
    /// The member's inflated bytes do not fit the buffer.
    NoRoom,
    /// Not a clean member: damage, a cut-off file, or not gzip at all.
    Bad,
}

/// A libdeflate decompressor (about 10 KB of tables), reused for every member of a shard.
pub struct Inflater {
    raw: NonNull<sys::libdeflate_decompressor>,
}

impl Inflater {
    /// A decompressor; `None` only when its allocation fails.
    pub fn new() -> Option<Inflater> {
        // SAFETY: takes no arguments; a null return (no memory) is handled by NonNull::new.
        let raw = unsafe { sys::libdeflate_alloc_decompressor() };
        NonNull::new(raw).map(|raw| Inflater { raw })
    }

    /// Inflates the gzip member that starts at `data[0]` (bytes after it are left alone) into
    /// `out`.
    pub fn member(&mut self, data: &[u8], out: &mut [u8]) -> Inflated {
        let (mut read, mut written) = (0usize, 0usize);
        // SAFETY: `raw` is a live decompressor owned by `self`, used by one caller at a time
        // (`&mut self`); the input and output pointers and lengths come from slices that
        // outlive the call, and libdeflate reads at most `data.len()` bytes and writes at most
        // `out.len()`; the two result pointers are valid locals.
        let result = unsafe {
            sys::libdeflate_gzip_decompress_ex(
                self.raw.as_ptr(),
                data.as_ptr().cast(),
                data.len(),
                out.as_mut_ptr().cast(),
                out.len(),
                &mut read,
                &mut written,
            )
        };
        match result {
            sys::libdeflate_result_LIBDEFLATE_SUCCESS => Inflated::Member { read, written },
            sys::libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE => Inflated::NoRoom,
            _ => Inflated::Bad,
        }
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        // SAFETY: `raw` came from libdeflate_alloc_decompressor and is freed once, here.
        unsafe { sys::libdeflate_free_decompressor(self.raw.as_ptr()) }
    }
}

// SAFETY: a decompressor is plain memory with no thread affinity; `member` takes `&mut self`,
// so it is never used from two threads at once.
unsafe impl Send for Inflater {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn a_member_and_its_end_among_others() {
        let a: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let mut file = gz(&a);
        let first = file.len();
        file.extend(gz(b"second member"));
        let mut inf = Inflater::new().unwrap();
        let mut out = vec![0u8; a.len() + 10];
        assert_eq!(
            inf.member(&file, &mut out),
            Inflated::Member {
                read: first,
                written: a.len()
            }
        );
        assert_eq!(&out[..a.len()], &a[..]);
        assert_eq!(
            inf.member(&file[first..], &mut out),
            Inflated::Member {
                read: file.len() - first,
                written: 13
            }
        );
        assert_eq!(&out[..13], b"second member");
    }

    #[test]
    fn no_room_and_damage_are_told_apart() {
        let a = vec![7u8; 100_000];
        let file = gz(&a);
        let mut inf = Inflater::new().unwrap();
        assert_eq!(inf.member(&file, &mut vec![0u8; 1000]), Inflated::NoRoom);
        let mut out = vec![0u8; 200_000];
        // A wrong CRC, a cut-off member, not gzip.
        let mut bad = file.clone();
        let n = bad.len();
        bad[n - 6] ^= 1;
        assert_eq!(inf.member(&bad, &mut out), Inflated::Bad);
        assert_eq!(inf.member(&file[..n - 3], &mut out), Inflated::Bad);
        assert_eq!(inf.member(b"plain text", &mut out), Inflated::Bad);
        assert_eq!(inf.member(b"", &mut out), Inflated::Bad);
    }
}
