//! One table of a join resident on the device: the contract the `table_*` kernels share.
//!
//! The fingerprints are uploaded once; each table of a plan then runs, on the device and with
//! no host round trip, `table_key` (each value's bucket under the table's key, bucket sizes),
//! `scan` (bucket starts), `table_scatter` (values laid out bucket by bucket), `table_runs`
//! (each place's end of bucket and its further chunks of at most `chunk` comparisons), `scan`
//! again (item offsets), `table_args` (the indirect dispatch) and `table_join` (the
//! comparisons, pairs appended to one buffer).
//!
//! A one-pass counting scatter stands where a radix sort of the keys would: runs of equal keys
//! need grouping, not order. A key of at most `bits` bits (`bits` about log2 of the values)
//! is its own bucket; a longer one is hashed to `bits` bits and the comparison tests the key,
//! so a bucket may cost a few comparisons more than a run of equal keys but never loses a
//! pair. [`super::pipeline`] is the whole pipeline on the CPU.

use bytemuck::{Pod, Zeroable};

/// Uniform parameters of one table, bound in every `table_*` kernel. Keep in sync with
/// `struct TableParams` in each of their shaders.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct TableParams {
    /// The table's key mask, low 32 bits.
    pub mask_lo: u32,
    /// The key mask, high 32 bits.
    pub mask_hi: u32,
    /// Fingerprints (distinct values).
    pub n: u32,
    /// Bucket bits: `1 << bits` buckets.
    pub bits: u32,
    /// 1 when the key has at most `bits` bits and is its own bucket, 0 when it is hashed.
    pub exact: u32,
    /// Largest 64-bit distance kept.
    pub tau: u32,
    /// The table's place in the plan: the masks before it are the earlier tables'.
    pub table: u32,
    /// Pair slots in the pair buffer.
    pub capacity: u32,
    /// Most comparisons of one item.
    pub chunk: u32,
    /// First item compared (0 but when a table's items are run in windows).
    pub item_lo: u32,
    /// One past the last item compared (`u32::MAX`: every item).
    pub item_hi: u32,
    /// Most workgroups along one dispatch dimension.
    pub max_dim: u32,
    /// 0, or where the second of two chunks joined together begins: only pairs across it
    /// are kept.
    pub split: u32,
    /// Zero.
    pub pad: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<TableParams>() == 64);

/// Words of the record before the first table's: word 0 is the pair counter.
pub const RECORD_HEAD: usize = 8;
/// Words of the record per table: its first pair slot, its items, its comparisons (two
/// words, low first), its largest count of comparisons of one place, and three unused.
pub const RECORD_WORDS: usize = 8;
/// Invocations per workgroup of `table_join`, which `table_args` dispatches.
pub const JOIN_WORKGROUP: u32 = 256;

/// What the record says about one table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableRecord {
    /// The pair counter when the table's comparisons began.
    pub base: u32,
    /// Its items: the further chunks of places with more than one chunk of comparisons.
    pub items: u32,
    /// Its comparisons.
    pub comparisons: u64,
    /// The most comparisons of one place: its largest bucket's size less one.
    pub most: u32,
}

impl TableRecord {
    /// Table `t`'s entry of a record read back.
    pub fn of(record: &[u32], t: usize) -> TableRecord {
        let r = &record[RECORD_HEAD + t * RECORD_WORDS..][..RECORD_WORDS];
        TableRecord {
            base: r[0],
            items: r[1],
            comparisons: u64::from(r[2]) | u64::from(r[3]) << 32,
            most: r[4],
        }
    }
}

/// Bucket bits for `n` values under a key of `key_bits` bits: about twice as many buckets as
/// values (at least 2^10, at most 2^26, and never more than the key has), and whether the key
/// is its own bucket.
pub fn bucket_bits(n: usize, key_bits: u32) -> (u32, bool) {
    let want = (usize::BITS - n.leading_zeros()).clamp(10, 26);
    if key_bits <= want {
        (key_bits.max(1), true)
    } else {
        (want, false)
    }
}

/// The parameters of table `t` of `masks` over `n` values.
pub fn params(
    n: usize,
    masks: &[u64],
    t: usize,
    tau: u32,
    chunk: u32,
    capacity: u32,
) -> TableParams {
    let mask = masks[t];
    let (bits, exact) = bucket_bits(n, mask.count_ones());
    TableParams {
        mask_lo: mask as u32,
        mask_hi: (mask >> 32) as u32,
        n: n as u32,
        bits,
        exact: u32::from(exact),
        tau,
        table: t as u32,
        capacity,
        chunk: chunk.max(1),
        item_lo: 0,
        item_hi: u32::MAX,
        max_dim: 65535,
        split: 0,
        pad: [0; 3],
    }
}
