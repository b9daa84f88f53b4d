//! The mutation experiments of content-reuse detection, on a synthetic crawl of chunk hashes.
//!
//! A site of `pages` pages (chunks per page heavy-tailed: median about 23, mean about 48, at
//! most 428, as the method's test site) is copied `copies` times onto other hosts (each copy
//! takes 85 % of the pages), each copy of each page with a unique paragraph added at its head
//! and tail; a background crawl of other
//! sites (each with its own template paragraphs) surrounds it. Then:
//! - discovery: chunk-level blind discovery labels the copied paragraphs, file-level (whole
//!   pages) labels nothing, since no two copies of a page are the same file;
//! - detection under mutation: every page of the site as ripped (no added head or tail) has `n` chunks added, deleted, or
//!   changed (with replacement), for growing `n`, and the site's average page containment and
//!   its neighbourhood's badness are compared with the thresholds the unmutated crawl sets
//!   (mean + one standard deviation). The tolerance is the largest `n` still detected, in
//!   units of the mean chunks per page (cpp). Labels are blind (discovered) or expert (every
//!   chunk of the original site).

use foldhash::{HashMap, HashMapExt, HashSet};

use super::detect::{detect, page_counts, Docs, Labels, Thresholds};
use super::stop::StopChunks;
use crate::base::rng::SplitMix64;

/// The experiment's settings.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Pages of the copied site.
    pub pages: usize,
    /// Copies of it on other hosts.
    pub copies: usize,
    /// Background sites and pages per site.
    pub background_sites: usize,
    /// Pages per background site.
    pub background_pages: usize,
    /// Discovery threshold: labeled when seen more than this many times.
    pub min_count: u64,
    /// Runs averaged per point.
    pub runs: usize,
    /// Mutations per page, as multiples of cpp, tried in order.
    pub steps: Vec<f64>,
    /// Seed.
    pub seed: u64,
    /// Fixed thresholds (default: mean + one standard deviation over the unmutated crawl).
    pub thresholds: Thresholds,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            pages: 200,
            copies: 50,
            background_sites: 2000,
            background_pages: 30,
            min_count: 40,
            runs: 5,
            steps: (0..=150).map(|i| f64::from(i) * 0.1).collect(),
            seed: 1,
            thresholds: Thresholds::default(),
        }
    }
}

/// A mutation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutation {
    /// New chunks added at random places.
    Add,
    /// Random chunks deleted.
    Delete,
    /// Random chunks replaced, with replacement (one chunk may change twice).
    Change,
}

impl Mutation {
    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Mutation::Add => "add",
            Mutation::Delete => "delete",
            Mutation::Change => "change",
        }
    }
}

/// One point of a curve.
#[derive(Clone, Debug)]
pub struct Point {
    /// The mutation.
    pub mutation: Mutation,
    /// `blind` or `expert`.
    pub labels: &'static str,
    /// Mutations per page, in cpp.
    pub x_cpp: f64,
    /// Average containment over the site's pages (pages left with chunks).
    pub page_containment: f64,
    /// Share of the site's pages above the containment threshold.
    pub pages_detected: f64,
    /// Badness of the site's neighbourhood (all its pages).
    pub badness: f64,
}

/// The tolerance of one mutation under one label set.
#[derive(Clone, Debug)]
pub struct Tolerance {
    /// The mutation.
    pub mutation: Mutation,
    /// `blind` or `expert`.
    pub labels: &'static str,
    /// Largest mutations per page (cpp) at which the average page is still detected (the
    /// last step tried when it never failed).
    pub page_cpp: f64,
    /// The same for the neighbourhood.
    pub hood_cpp: f64,
    /// Whether page and neighbourhood detection failed within the steps tried.
    pub page_failed: bool,
    /// See `page_failed`.
    pub hood_failed: bool,
}

/// Everything measured.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Mean chunks per page of the copied site.
    pub cpp: f64,
    /// Median chunks per page of the copied site.
    pub median_cpp: f64,
    /// Share of the site's distinct chunks that chunk-level discovery labeled.
    pub chunk_discovered: f64,
    /// Share of the site's pages that file-level discovery labeled.
    pub file_discovered: f64,
    /// Labels: blind and expert.
    pub blind_labels: usize,
    /// See `blind_labels`.
    pub expert_labels: usize,
    /// Thresholds set by the unmutated crawl, blind labels: containment, badness.
    pub blind_thresholds: (f64, f64),
    /// The same with expert labels.
    pub expert_thresholds: (f64, f64),
    /// Every point.
    pub points: Vec<Point>,
    /// Tolerances.
    pub tolerances: Vec<Tolerance>,
}

struct Crawl(Vec<(String, Vec<u128>)>);

impl Docs for Crawl {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn doc(&self, i: usize) -> (&str, &[u128]) {
        (&self.0[i].0, &self.0[i].1)
    }
}

fn fresh(rng: &mut SplitMix64) -> u128 {
    (u128::from(rng.next_u64()) << 64) | u128::from(rng.next_u64())
}

/// Chunks per page: log-normal with median 23 and mean 48, from 1 to 428.
fn page_len(rng: &mut SplitMix64) -> usize {
    // Box-Muller from two uniforms; sigma^2 = 2 ln(48 / 23).
    let (u1, u2) = (rng.unit().max(1e-12), rng.unit());
    let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
    let sigma = (2.0 * (48.0f64 / 23.0).ln()).sqrt();
    ((23.0f64.ln() + sigma * z).exp().round() as usize).clamp(1, 428)
}

/// Runs the experiment.
pub fn run(s: &Setup) -> Outcome {
    let mut rng = SplitMix64(s.seed);
    // The site: a few template paragraphs on every page, the rest its own text.
    let template: Vec<u128> = (0..6).map(|_| fresh(&mut rng)).collect();
    let site: Vec<Vec<u128>> = (0..s.pages)
        .map(|_| {
            let n = page_len(&mut rng);
            (0..n)
                .map(|j| {
                    if j < template.len().min(n / 4) {
                        template[j]
                    } else {
                        fresh(&mut rng)
                    }
                })
                .collect()
        })
        .collect();
    let mut crawl = Vec::new();
    for b in 0..s.background_sites {
        let tpl: Vec<u128> = (0..8).map(|_| fresh(&mut rng)).collect();
        for p in 0..s.background_pages {
            let n = page_len(&mut rng);
            let mut page: Vec<u128> = tpl[..4].to_vec();
            page.extend((0..n).map(|_| fresh(&mut rng)));
            page.extend_from_slice(&tpl[4..]);
            crawl.push((format!("http://bg{b}.example/d{}/p{p}", p % 3), page));
        }
    }
    let copy_start = crawl.len();
    for c in 0..s.copies {
        // A copier takes most pages, not all: the copied chunks' counts spread around the
        // discovery threshold, so blind labels are a part of the site, expert labels all of it.
        for (p, page) in site.iter().enumerate() {
            if rng.below(100) >= 85 {
                continue;
            }
            let mut copy = vec![fresh(&mut rng)];
            copy.extend_from_slice(page);
            copy.push(fresh(&mut rng));
            crawl.push((format!("http://copy{c}.example/blog/p{p}"), copy));
        }
    }
    // Discovery, chunk level and file level (a file is its whole chunk vector).
    let mut chunk_counts: HashMap<u128, u64> = HashMap::new();
    let mut file_counts: HashMap<Vec<u128>, u64> = HashMap::new();
    for (_, page) in &crawl {
        for h in page {
            *chunk_counts.entry(*h).or_default() += 1;
        }
        *file_counts.entry(page.clone()).or_default() += 1;
    }
    let blind: Labels = chunk_counts
        .iter()
        .filter(|(_, c)| **c > s.min_count)
        .map(|(h, _)| *h)
        .collect();
    let site_chunks: HashSet<u128> = site.iter().flatten().copied().collect();
    let chunk_discovered =
        site_chunks.iter().filter(|h| blind.contains(*h)).count() as f64 / site_chunks.len() as f64;
    let file_discovered = crawl[copy_start..]
        .iter()
        .filter(|(_, p)| file_counts[p] > s.min_count)
        .count() as f64
        / (crawl.len() - copy_start) as f64;
    let expert: Labels = site_chunks.iter().copied().collect();
    let stop = StopChunks::none();
    let lens: Vec<usize> = {
        let mut l: Vec<usize> = site.iter().map(Vec::len).collect();
        l.sort_unstable();
        l
    };
    let cpp = lens.iter().sum::<usize>() as f64 / lens.len() as f64;
    let median_cpp = lens[lens.len() / 2] as f64;
    let mut out = Outcome {
        cpp,
        median_cpp,
        chunk_discovered,
        file_discovered,
        blind_labels: blind.len(),
        expert_labels: expert.len(),
        blind_thresholds: (0.0, 0.0),
        expert_thresholds: (0.0, 0.0),
        points: Vec::new(),
        tolerances: Vec::new(),
    };
    // The pages mutated: the site as it was ripped (a copy without its added paragraphs).
    let target = site;
    let crawl = Crawl(crawl);
    for (name, labels) in [("blind", &blind), ("expert", &expert)] {
        let d = detect(&crawl, labels, &stop, s.thresholds);
        let t = (d.containment_threshold, d.badness_threshold);
        if name == "blind" {
            out.blind_thresholds = t;
        } else {
            out.expert_thresholds = t;
        }
        for m in [Mutation::Add, Mutation::Delete, Mutation::Change] {
            let mut tol = Tolerance {
                mutation: m,
                labels: name,
                page_cpp: 0.0,
                hood_cpp: 0.0,
                page_failed: false,
                hood_failed: false,
            };
            for &x in &s.steps {
                let n = (x * cpp).round() as usize;
                let (mut pc, mut pd, mut bad) = (0.0, 0.0, 0.0);
                let mut gone = false;
                for r in 0..s.runs {
                    let mut rng = SplitMix64(s.seed ^ (r as u64 + 1).wrapping_mul(0x9E37_79B9));
                    let Some((c, share, b)) = mutated(&target, m, n, labels, &stop, t.0, &mut rng)
                    else {
                        gone = true;
                        break;
                    };
                    pc += c;
                    pd += share;
                    bad += b;
                }
                if gone {
                    // Every page deleted whole: nothing is left to detect, or to miss.
                    break;
                }
                let runs = s.runs as f64;
                let p = Point {
                    mutation: m,
                    labels: name,
                    x_cpp: x,
                    page_containment: pc / runs,
                    pages_detected: pd / runs,
                    badness: bad / runs,
                };
                if !tol.page_failed {
                    if p.page_containment > t.0 {
                        tol.page_cpp = x;
                    } else {
                        tol.page_failed = true;
                    }
                }
                if !tol.hood_failed {
                    if p.badness > t.1 {
                        tol.hood_cpp = x;
                    } else {
                        tol.hood_failed = true;
                    }
                }
                out.points.push(p);
            }
            out.tolerances.push(tol);
        }
    }
    out
}

/// The site's pages mutated `n` times each: (average page containment, share of pages above
/// `containment`, neighbourhood badness); `None` when no page has a chunk left.
fn mutated(
    pages: &[Vec<u128>],
    m: Mutation,
    n: usize,
    labels: &Labels,
    stop: &StopChunks,
    containment: f64,
    rng: &mut SplitMix64,
) -> Option<(f64, f64, f64)> {
    let (mut sum, mut detected, mut alive) = (0.0, 0usize, 0usize);
    let (mut chunks, mut labeled) = (0u64, 0u64);
    for page in pages {
        let mut p = page.clone();
        match m {
            Mutation::Add => {
                for _ in 0..n {
                    let at = rng.below(p.len() as u64 + 1) as usize;
                    p.insert(at, fresh(rng));
                }
            }
            Mutation::Delete => {
                for _ in 0..n.min(p.len()) {
                    let at = rng.below(p.len() as u64) as usize;
                    p.swap_remove(at);
                }
            }
            Mutation::Change => {
                for _ in 0..n {
                    let at = rng.below(p.len() as u64) as usize;
                    p[at] = fresh(rng);
                }
            }
        }
        let c = page_counts(&p, labels, stop);
        if c.chunks == 0 {
            continue;
        }
        alive += 1;
        sum += c.containment();
        detected += usize::from(c.containment() > containment);
        chunks += u64::from(c.chunks);
        labeled += u64::from(c.labeled);
    }
    if alive == 0 {
        return None;
    }
    Some((
        sum / alive as f64,
        detected as f64 / pages.len() as f64,
        labeled as f64 / chunks as f64,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_find_what_files_miss_and_neighbourhoods_outlast_pages() {
        let s = Setup {
            pages: 120,
            copies: 30,
            background_sites: 100,
            background_pages: 10,
            min_count: 20,
            runs: 2,
            steps: (0..=40).map(|i| f64::from(i) * 0.25).collect(),
            seed: 3,
            thresholds: Thresholds::default(),
        };
        let o = run(&s);
        assert!(o.chunk_discovered > 0.9, "{}", o.chunk_discovered);
        assert_eq!(o.file_discovered, 0.0);
        assert!(
            o.cpp > 30.0 && o.median_cpp < o.cpp,
            "{} {}",
            o.cpp,
            o.median_cpp
        );
        let add: Vec<&Tolerance> = o
            .tolerances
            .iter()
            .filter(|t| t.mutation == Mutation::Add)
            .collect();
        for t in add {
            assert!(t.page_failed, "{t:?}");
            assert!(t.hood_cpp > t.page_cpp, "{t:?}");
        }
        // Deleting chunks of fully labeled pages never lowers expert containment.
        let del = o
            .points
            .iter()
            .filter(|p| p.mutation == Mutation::Delete && p.labels == "expert");
        assert!(del.clone().all(|p| p.page_containment == 1.0));
    }
}
