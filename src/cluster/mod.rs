//! From pairs to clusters: a lock-free union-find, threshold sweeps from one join, and
//! representatives.
//!
//! Input is a join's [`PairGraph`](crate::join::graph::PairGraph) over the corpus's document
//! index space. Documents that took no part in the join (too short) stay singletons, so they
//! count as kept documents; callers report them separately.

pub mod dsu;
pub mod file;
pub mod leaders;
pub mod policy;
pub mod quality;
pub mod represent;
pub mod star;
pub mod sweep;

pub use dsu::{Dsu, SeqDsu};
pub use represent::{clusters_at, Clusters, Representative};
pub use sweep::{sweep, Axis, Level};
