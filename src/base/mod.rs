//! The bottom floor: what every stage uses and what uses no stage. Files that appear whole or
//! not at all ([`atomic`]), read-only memory maps ([`mmap`]), one writer per output ([`lock`]), temporaries removed on interrupt ([`interrupt`]), where a path really is ([`paths`]), the seeded random numbers
//! ([`rng`]) and Hamming distances ([`hamming`]). Nothing here imports another module of the
//! crate except the error type.

pub mod atomic;
pub mod hamming;
pub mod interrupt;
pub mod lock;
pub mod mmap;
pub mod paths;
pub mod rng;
