//! neardup's integration tests, one binary so that the library and wgpu are linked once: the
//! commands end to end through the built binary, every input format and bad-input case, the
//! joins against brute force, clustering against sequential references, the GPU backend
//! against the CPU, and the kernels' contracts.

mod bad_input;
mod canonical;
mod cluster;
mod common;
mod content;
mod corpus_out;
mod dedup;
mod formats;
mod fuzz;
mod gpu;
mod join;
mod kernels;
mod linear;
mod nothing_lost;
mod outputs;
mod own_content;
mod ownership;
mod policy;
mod report;
mod reuse;
mod round5;
mod sites;
mod split;
mod substrings;
mod trec;
mod verify;
