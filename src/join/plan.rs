//! Partition plans: which key bits each table groups fingerprints by.
//!
//! A table is a 64-bit mask; two fingerprints meet in a table when they agree on every masked
//! bit. An exact plan guarantees that every pair within distance tau meets in at least one
//! table (pigeonhole: split the 64 bits into m blocks; a pair differing in at most tau bits
//! agrees on at least m - tau whole blocks, so one table per choice of m - tau blocks finds it).
//! A random plan samples B bit positions T times (Chuweb21D, Algorithm 3) and finds a pair at
//! distance h with probability 1 - (1 - C(64-h, B) / C(64, B))^T.

use crate::base::rng::SplitMix64;
use crate::{Error, Result};

/// A list of key masks, and the distance they were made for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// One mask per table, in the order pairs are attributed to tables.
    pub tables: Vec<u64>,
    /// The distance the plan was made for: an exact plan finds every pair within it, a random
    /// one each pair with [`random_recall`]. A join at a larger distance is refused
    /// ([`JoinSpec::new`](super::JoinSpec::new)), since it would miss pairs silently.
    pub tau: u32,
    /// Whether the plan finds every pair within `tau`.
    pub exact: bool,
    /// A short description for reports.
    pub name: String,
}

/// How a plan is made: the method and its parameters, validated by [`PlanSpec::plan`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanSpec {
    /// Exact pigeonhole tables, or random bit samples.
    pub method: Method,
    /// Blocks of an exact plan instead of the planner's cheapest (tuning and benchmarks).
    pub blocks: Option<usize>,
    /// Key bits per random table.
    pub bits: u32,
    /// Random tables.
    pub iterations: u32,
    /// Seed of the random tables.
    pub seed: u64,
}

impl Default for PlanSpec {
    /// The planner's cheapest exact plan; Chuweb21D's 20 tables of 16 bits when random.
    fn default() -> Self {
        PlanSpec {
            method: Method::Exact,
            blocks: None,
            bits: 16,
            iterations: 20,
            seed: 0,
        }
    }
}

/// Join methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Pigeonhole tables chosen by cost: finds every pair.
    Exact,
    /// Random bit samples: finds each pair with the probability [`random_recall`] gives.
    Random,
}

impl Method {
    /// The method's name as the command line and `summary.json` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Random => "random",
        }
    }
}

/// Largest 64-bit distance a join accepts.
pub const MAX_TAU: u32 = 31;

impl PlanSpec {
    /// The plan for a join of `n` fingerprints at `tau` on the CPU, or why there is none.
    pub fn plan(&self, n: usize, tau: u32) -> Result<Plan> {
        self.plan_for(n, tau, TableWeight::CPU)
    }

    /// The plan for a join of `n` fingerprints at `tau` where a table costs `weight`.
    pub fn plan_for(&self, n: usize, tau: u32, weight: TableWeight) -> Result<Plan> {
        let bad = |msg: String| Err(Error::Config(msg));
        if tau > MAX_TAU {
            return bad(format!("tau must be below {}", MAX_TAU + 1));
        }
        if !(1..=64).contains(&self.bits) {
            return bad("--bits must be 1..=64".into());
        }
        if self.iterations == 0 {
            return bad("--iterations must be at least 1".into());
        }
        match (self.method, self.blocks) {
            (Method::Exact, None) => Ok(cheapest_exact_for(n, tau, weight)),
            (Method::Exact, Some(m)) => {
                if m <= tau as usize || m > 64 {
                    return bad(format!(
                        "--blocks {m}: an exact plan at tau {tau} needs {} to 64 blocks",
                        tau + 1
                    ));
                }
                let tables = binomial(m, tau as usize);
                if tables > MAX_TABLES {
                    return bad(format!(
                        "--blocks {m}: {tables} tables at tau {tau}, more than {MAX_TABLES}"
                    ));
                }
                Ok(pigeonhole(m, tau))
            }
            (Method::Random, Some(_)) => bad("--blocks applies to --method exact only".into()),
            (Method::Random, None) => Ok(random(self.bits, self.iterations, self.seed, tau)),
        }
    }
}

/// Masks of `m` contiguous blocks covering the 64 bits (sizes differ by at most one).
pub fn blocks(m: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(m);
    let mut start = 0;
    for i in 0..m {
        let size = 64 / m + usize::from(i < 64 % m);
        let mask = if size == 64 {
            u64::MAX
        } else {
            ((1u64 << size) - 1) << start
        };
        out.push(mask);
        start += size;
    }
    out
}

fn combinations(n: usize, k: usize, f: &mut impl FnMut(&[usize])) {
    fn go(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, f: &mut impl FnMut(&[usize])) {
        if cur.len() == k {
            return f(cur);
        }
        for i in start..n {
            if n - i < k - cur.len() {
                break;
            }
            cur.push(i);
            go(i + 1, n, k, cur, f);
            cur.pop();
        }
    }
    go(0, n, k, &mut Vec::with_capacity(k), f);
}

/// The pigeonhole plan with `m` blocks for distance `tau`: C(m, tau) tables, each keyed on
/// m - tau blocks.
pub fn pigeonhole(m: usize, tau: u32) -> Plan {
    let tau = tau as usize;
    assert!(m > tau && m <= 64, "need tau < m <= 64");
    let b = blocks(m);
    let mut tables = Vec::new();
    combinations(m, m - tau, &mut |c| {
        tables.push(c.iter().fold(0, |acc, i| acc | b[*i]))
    });
    Plan {
        tables,
        tau: tau as u32,
        exact: true,
        name: format!(
            "exact: {m} blocks, {} tables keyed on {} block(s) each",
            binomial(m, tau),
            m - tau
        ),
    }
}

/// C(n, k) as f64.
pub fn binomial(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// What one fingerprint costs in one table (keying, sorting, and on a GPU loading it), in
/// units of one XOR-popcount comparison where the comparisons run. Fewer tables mean longer
/// runs of equal keys and more comparisons, so the weight decides how many tables the
/// cheapest exact plan has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TableWeight(pub f64);

impl TableWeight {
    /// On the CPU: a sort step costs about 30 comparisons (measured here).
    pub const CPU: TableWeight = TableWeight(32.0);
    /// On a GPU: the host keys, sorts and packs each table (3.4 ns a fingerprint on the H200
    /// machine's 16 cores, 82.5 M fingerprints, 28 tables) and loads it (12 bytes a
    /// fingerprint, about 1.2 ns), while the kernel compares a pair in about 1.25 ps (8e11
    /// compares/s, from the 100 M random-plan run there): about 4 000 comparisons. At 82.5 M
    /// fingerprints and tau 6 this picks 8 blocks (28 tables), not the CPU's 9 (84).
    pub const GPU: TableWeight = TableWeight(4096.0);
    /// On a GPU with the join resident there: a table's keying, scatter, runs and scans read
    /// and write about 70 bytes and make two atomic adds a fingerprint on the device, no host
    /// work. An estimate until measured on NVIDIA hardware (`neardup bench` prints the weight
    /// its stage times imply): about 0.1 ns a fingerprint against 1.25 ps a comparison. At
    /// 82.5 M fingerprints this picks the CPU's plans (9 blocks, 84 tables at tau 6).
    pub const GPU_RESIDENT: TableWeight = TableWeight(64.0);
}

/// Expected work of a plan on `n` uniformly spread fingerprints: sorting all of them per
/// table, plus comparing the pairs that share the table's key (CPU weights).
pub fn cost(plan: &Plan, n: usize) -> f64 {
    cost_for(plan, n, TableWeight::CPU)
}

/// [`cost`] with a table weighing `w`.
pub fn cost_for(plan: &Plan, n: usize, w: TableWeight) -> f64 {
    let n = n as f64;
    plan.tables
        .iter()
        .map(|m| w.0 * n + n * n / 2f64.powi(m.count_ones() as i32 + 1))
        .sum()
}

/// Most tables an exact plan may have.
pub const MAX_TABLES: f64 = 5000.0;

/// [`cost`] of [`pigeonhole`]`(m, tau)` without building it: a table keyed on `k = m - tau`
/// blocks, `j` of them among the `64 % m` one bit larger, has `k * (64 / m) + j` key bits, and
/// there are C(64 % m, j) * C(m - 64 % m, k - j) such tables.
fn pigeonhole_cost(m: usize, tau: u32, n: usize, w: TableWeight) -> f64 {
    let (k, small, big) = (m - tau as usize, 64 / m, 64 % m);
    let n = n as f64;
    (0..=k.min(big))
        .map(|j| {
            let tables = binomial(big, j) * binomial(m - big, k - j);
            let bits = (k * small + j) as i32;
            tables * (w.0 * n + n * n / 2f64.powi(bits + 1))
        })
        .sum()
}

/// The cheapest exact pigeonhole plan for `n` fingerprints at distance `tau` on the CPU.
pub fn cheapest_exact(n: usize, tau: u32) -> Plan {
    cheapest_exact_for(n, tau, TableWeight::CPU)
}

/// The cheapest exact pigeonhole plan where a table weighs `w`.
pub fn cheapest_exact_for(n: usize, tau: u32, w: TableWeight) -> Plan {
    let mut best: Option<(f64, usize)> = None;
    for m in (tau as usize + 1)..=64 {
        if binomial(m, tau as usize) > MAX_TABLES {
            break;
        }
        let c = pigeonhole_cost(m, tau, n, w);
        if best.is_none_or(|(bc, _)| c < bc) {
            best = Some((c, m));
        }
    }
    let (_, m) = best.expect("tau < 64 always has a plan");
    pigeonhole(m, tau)
}

/// `iterations` tables of `bits` distinct random bit positions each, for joins at `tau`.
pub fn random(bits: u32, iterations: u32, seed: u64, tau: u32) -> Plan {
    let mut rng = SplitMix64(seed);
    let tables = (0..iterations)
        .map(|_| {
            let mut positions: Vec<u32> = (0..64).collect();
            // The first `bits` positions are a uniform sample.
            rng.sample_front(&mut positions, bits.min(64) as usize);
            positions[..bits.min(64) as usize]
                .iter()
                .fold(0u64, |acc, p| acc | (1 << p))
        })
        .collect();
    Plan {
        tables,
        tau,
        exact: false,
        name: format!("random: {iterations} tables of {bits} sampled bits, seed {seed}"),
    }
}

/// Probability that a random plan finds a pair at distance `h`.
pub fn random_recall(bits: u32, iterations: u32, h: u32) -> f64 {
    let p = binomial(64 - h as usize, bits as usize) / binomial(64, bits as usize);
    1.0 - (1.0 - p).powi(iterations as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_every_bit_once() {
        for m in 1..=64 {
            let b = blocks(m);
            assert_eq!(b.len(), m);
            assert_eq!(b.iter().fold(0, |a, x| a | x), u64::MAX);
            assert_eq!(b.iter().map(|x| x.count_ones()).sum::<u32>(), 64);
        }
    }

    #[test]
    fn named_plans_have_the_published_shapes() {
        let p = pigeonhole(4, 3);
        assert_eq!(p.tables.len(), 4);
        assert!(p.tables.iter().all(|m| m.count_ones() == 16));
        let p = pigeonhole(8, 6);
        assert_eq!(p.tables.len(), 28);
        assert!(p.tables.iter().all(|m| m.count_ones() == 16));
    }

    #[test]
    fn pigeonhole_plans_catch_every_pattern_within_tau() {
        // Any set of at most tau differing bits leaves some table's mask untouched.
        let mut s = SplitMix64(3);
        for tau in 0..=8u32 {
            let p = cheapest_exact(1_000_000, tau);
            for _ in 0..2000 {
                let mut diff = 0u64;
                for _ in 0..tau {
                    diff |= 1 << s.below(64);
                }
                assert!(
                    p.tables.iter().any(|m| m & diff == 0),
                    "tau {tau} {}",
                    p.name
                );
            }
        }
    }

    /// A heavier table buys fewer tables: at the H200 run's size, 8 blocks on a GPU where
    /// the CPU takes 9, and never more tables than the CPU at any size.
    #[test]
    fn a_gpu_plan_has_fewer_longer_tables() {
        let key_bits = |p: &Plan| p.tables[0].count_ones();
        let (cpu, gpu) = (
            cheapest_exact_for(82_500_000, 6, TableWeight::CPU),
            cheapest_exact_for(82_500_000, 6, TableWeight::GPU),
        );
        assert_eq!(
            (cpu.tables.len(), gpu.tables.len()),
            (84, 28),
            "{} / {}",
            cpu.name,
            gpu.name
        );
        // Shorter keys: longer runs of equal keys.
        assert_eq!((key_bits(&cpu), key_bits(&gpu)), (22, 16));
        for tau in 0..=8 {
            for n in [10_000, 1_000_000, 100_000_000] {
                let (c, g) = (
                    cheapest_exact_for(n, tau, TableWeight::CPU),
                    cheapest_exact_for(n, tau, TableWeight::GPU),
                );
                assert!(g.tables.len() <= c.tables.len(), "tau {tau} n {n}");
                assert!(g.exact && g.tau == tau);
            }
        }
    }

    #[test]
    fn counted_cost_is_the_cost_of_the_built_plan() {
        for tau in 0..=8u32 {
            for m in tau as usize + 1..=40 {
                if binomial(m, tau as usize) > 3000.0 {
                    break;
                }
                for n in [1000, 1_000_000, 100_000_000] {
                    for w in [TableWeight::CPU, TableWeight::GPU] {
                        let (built, counted) = (
                            cost_for(&pigeonhole(m, tau), n, w),
                            pigeonhole_cost(m, tau, n, w),
                        );
                        assert!(
                            (built - counted).abs() <= 1e-9 * built,
                            "m {m} tau {tau} n {n} {w:?}: {built} against {counted}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn plan_specs_refuse_what_cannot_be_exact_or_random() {
        let spec = |method, blocks| PlanSpec {
            method,
            blocks,
            ..PlanSpec::default()
        };
        let p = spec(Method::Exact, None).plan(1000, 3).unwrap();
        assert!(p.exact && p.tau == 3);
        assert_eq!(
            spec(Method::Exact, Some(5))
                .plan(10, 3)
                .unwrap()
                .tables
                .len(),
            10
        );
        for (s, tau, why) in [
            (spec(Method::Exact, Some(3)), 3, "4 to 64 blocks"),
            (spec(Method::Exact, Some(40)), 8, "more than 5000"),
            (spec(Method::Random, Some(5)), 3, "exact only"),
            (spec(Method::Exact, None), 32, "below 32"),
        ] {
            let e = s.plan(1000, tau).unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
        let r = spec(Method::Random, None).plan(1000, 4).unwrap();
        assert!(!r.exact && r.tau == 4 && r.tables.len() == 20);
    }

    #[test]
    fn chuweb_random_parameters_reach_97_percent() {
        for h in 0..=6 {
            assert!(random_recall(16, 20, h) > 0.97, "h {h}");
        }
        let p = random(16, 20, 1, 6);
        assert!(p.tables.iter().all(|m| m.count_ones() == 16));
        assert_eq!(p, random(16, 20, 1, 6));
    }
}
