//! Large zeroed scratch buffers for the join, in anonymous maps advised for transparent huge
//! pages.
//!
//! The join's sort buffers are written once, front to back in scattered streams, and freed.
//! With 4 KiB pages every fresh page is a fault and a zeroing in the kernel, which on a
//! virtual machine costs about 2 us: at 1 M fingerprints that was a fifth of the join. Where
//! transparent huge pages are available only on request (`madvise`, a common default), these
//! buffers ask for them; where the map or the advice is refused, an ordinary vector serves.

use bytemuck::Pod;
use memmap2::{Advice, MmapMut};

/// Buffers below this size are ordinary vectors.
const MIN_MAP: usize = 4 << 20;

/// A zeroed buffer of `T`.
pub(crate) enum Buffer<T> {
    Map(MmapMut, usize),
    Vec(Vec<T>),
}

impl<T: Pod> Buffer<T> {
    /// An empty buffer.
    pub fn new() -> Self {
        Buffer::Vec(Vec::new())
    }

    /// `n` zeroed items.
    pub fn zeroed(n: usize) -> Self {
        let bytes = n * std::mem::size_of::<T>();
        if bytes >= MIN_MAP && std::mem::align_of::<T>() <= 4096 {
            if let Ok(map) = MmapMut::map_anon(bytes) {
                #[cfg(target_os = "linux")]
                let _ = map.advise(Advice::HugePage);
                return Buffer::Map(map, n);
            }
        }
        Buffer::Vec(bytemuck::allocation::zeroed_vec(n))
    }

    /// Items.
    pub fn len(&self) -> usize {
        match self {
            Buffer::Map(_, n) => *n,
            Buffer::Vec(v) => v.len(),
        }
    }

    /// The items.
    pub fn as_slice(&self) -> &[T] {
        match self {
            Buffer::Map(m, n) => &bytemuck::cast_slice(&m[..])[..*n],
            Buffer::Vec(v) => v,
        }
    }

    /// The items, writable.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match self {
            Buffer::Map(m, n) => &mut bytemuck::cast_slice_mut(&mut m[..])[..*n],
            Buffer::Vec(v) => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Buffer;

    #[test]
    fn buffers_are_zeroed_and_writable_mapped_or_not() {
        for n in [0usize, 10, 1 << 20] {
            let mut b = Buffer::<u64>::zeroed(n);
            assert_eq!(b.len(), n);
            assert!(b.as_slice().iter().all(|x| *x == 0));
            b.as_mut_slice()
                .iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = i as u64);
            assert!(b.as_slice().iter().enumerate().all(|(i, x)| *x == i as u64));
        }
        assert_eq!(Buffer::<u64>::new().len(), 0);
    }
}
