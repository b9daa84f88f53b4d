//! The bottom floor: what every stage uses and what uses no stage. Files that appear whole or
//! not at all ([`atomic`]), read-only memory maps ([`mmap`]), one writer per output ([`lock`]), which files of an output directory neardup made ([`claim`]), temporaries removed on interrupt ([`interrupt`]) and the leftovers of killed runs ([`stale`]), where a path really is ([`paths`]), TSV fields that read back as written ([`tsv`]), the seeded random numbers
//! ([`rng`]), the peak resident memory of each stage ([`rss`]), texts set aside on disk to be read again ([`spool`]), crawl text made safe to show on a terminal ([`shown`]), the AVX-512 paths this process takes ([`simd`]) and Hamming distances ([`hamming`]). Nothing here imports another module of the
//! crate except the error type.

pub mod atomic;
pub mod claim;
pub mod dsu;
pub mod hamming;
pub mod host;
pub mod interrupt;
pub mod lock;
pub mod mmap;
pub mod paths;
pub mod rng;
pub mod rss;
pub mod shown;
pub mod simd;
pub mod spool;
pub mod stale;
pub mod tsv;
