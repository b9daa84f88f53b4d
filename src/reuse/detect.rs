//! Detection: how much of each page, and of each neighbourhood, is labeled content.
//!
//! Stop chunks are removed first. A page's containment is the share of its remaining chunks
//! that are labeled (a chunk repeated on the page counts each time); a page above the page
//! threshold is a partial target. A neighbourhood's badness is the containment of all its
//! pages' chunks together; one above the badness threshold is bad. Both thresholds default to
//! the mean plus one standard deviation over all pages, or all neighbourhoods, that have
//! chunks (the method's default); `--containment` and `--badness` set them instead.

use foldhash::{HashMap, HashMapExt, HashSet};
use rayon::prelude::*;

use super::neighbourhood;
use super::stop::StopChunks;

/// Labeled chunks, by hash.
pub type Labels = HashSet<u128>;

/// The chunks of one document: its URL and its chunk hashes.
pub trait Docs: Sync {
    /// Number of documents.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Document `i`'s URL and chunk hashes.
    fn doc(&self, i: usize) -> (&str, &[u128]);
}

/// Thresholds; `None` is mean + one standard deviation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Thresholds {
    /// Page containment above which a page is a partial target.
    pub containment: Option<f64>,
    /// Neighbourhood badness above which a neighbourhood is bad.
    pub badness: Option<f64>,
}

/// labeled / chunks, 0 without chunks: a page's containment, a neighbourhood's badness.
fn share(labeled: u64, chunks: u64) -> f64 {
    if chunks == 0 {
        0.0
    } else {
        labeled as f64 / chunks as f64
    }
}

/// One page's counts, stop chunks removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageCounts {
    /// Chunks that are not stop chunks.
    pub chunks: u32,
    /// Of those, labeled ones.
    pub labeled: u32,
}

impl PageCounts {
    /// labeled / chunks (0 for a page without chunks).
    pub fn containment(&self) -> f64 {
        share(self.labeled.into(), self.chunks.into())
    }
}

/// One neighbourhood's totals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hood {
    /// The URL prefix (host lower-cased, ending with `/`).
    pub prefix: String,
    /// Pages in it (with or without chunks).
    pub pages: u64,
    /// Their chunks, stop chunks removed.
    pub chunks: u64,
    /// Of those, labeled ones.
    pub labeled: u64,
}

impl Hood {
    /// labeled / chunks.
    pub fn badness(&self) -> f64 {
        share(self.labeled, self.chunks)
    }
}

/// Mean and population standard deviation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    /// Mean.
    pub mean: f64,
    /// Standard deviation.
    pub std: f64,
    /// Values it is over.
    pub n: u64,
}

impl Spread {
    /// Of `values`.
    pub fn of(values: impl Iterator<Item = f64> + Clone) -> Spread {
        let (n, sum) = values.clone().fold((0u64, 0.0), |(n, s), v| (n + 1, s + v));
        if n == 0 {
            return Spread::default();
        }
        let mean = sum / n as f64;
        let var = values.map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
        Spread {
            mean,
            std: var.sqrt(),
            n,
        }
    }

    /// mean + std.
    pub fn threshold(&self) -> f64 {
        self.mean + self.std
    }
}

/// What detection found.
#[derive(Clone, Debug, Default)]
pub struct Detection {
    /// Every page's counts, in document order.
    pub pages: Vec<PageCounts>,
    /// Containment over pages that have chunks.
    pub page_spread: Spread,
    /// The containment threshold used.
    pub containment_threshold: f64,
    /// Every neighbourhood, by prefix.
    pub hoods: Vec<Hood>,
    /// Badness over neighbourhoods that have chunks.
    pub hood_spread: Spread,
    /// The badness threshold used.
    pub badness_threshold: f64,
}

impl Detection {
    /// Whether page `i` is a partial target.
    pub fn is_target(&self, i: usize) -> bool {
        let p = &self.pages[i];
        p.chunks > 0 && p.containment() > self.containment_threshold
    }

    /// The bad neighbourhoods, worst first (ties by prefix).
    pub fn bad(&self) -> Vec<&Hood> {
        let mut bad: Vec<&Hood> = self
            .hoods
            .iter()
            .filter(|h| h.chunks > 0 && h.badness() > self.badness_threshold)
            .collect();
        bad.sort_by(|a, b| {
            b.badness()
                .total_cmp(&a.badness())
                .then_with(|| a.prefix.cmp(&b.prefix))
        });
        bad
    }
}

/// A page's counts.
pub fn page_counts(chunks: &[u128], labels: &Labels, stop: &StopChunks) -> PageCounts {
    let mut c = PageCounts::default();
    for h in chunks {
        if !stop.contains(*h) {
            c.chunks += 1;
            c.labeled += u32::from(labels.contains(h));
        }
    }
    c
}

/// `text` (a document's normalised text) without its labeled paragraphs: the paragraph dedup
/// of text kept for training (repeated boilerplate paragraphs removed, the rest in order).
pub fn drop_labeled(text: &str, labels: &Labels) -> String {
    let mut out = String::with_capacity(text.len());
    for c in crate::text::paragraphs::chunks(text) {
        if !labels.contains(&crate::text::paragraphs::chunk_hash(c)) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(c);
        }
    }
    out
}

/// Containment of every page and badness of every neighbourhood of `docs`.
pub fn detect(docs: &dyn Docs, labels: &Labels, stop: &StopChunks, t: Thresholds) -> Detection {
    let n = docs.len();
    let pages: Vec<PageCounts> = (0..n)
        .into_par_iter()
        .map(|i| page_counts(docs.doc(i).1, labels, stop))
        .collect();
    let parts: Vec<HashMap<String, Hood>> = super::doc_ranges(n)
        .map(|range| {
            let mut m: HashMap<String, Hood> = HashMap::new();
            for (i, p) in range.clone().zip(&pages[range]) {
                for prefix in neighbourhood::prefixes(docs.doc(i).0) {
                    let h = m.entry(prefix).or_default();
                    h.pages += 1;
                    h.chunks += u64::from(p.chunks);
                    h.labeled += u64::from(p.labeled);
                }
            }
            m
        })
        .collect();
    let mut all: HashMap<String, Hood> = HashMap::new();
    for part in parts {
        for (prefix, h) in part {
            let e = all.entry(prefix).or_default();
            e.pages += h.pages;
            e.chunks += h.chunks;
            e.labeled += h.labeled;
        }
    }
    let mut hoods: Vec<Hood> = all
        .into_iter()
        .map(|(prefix, mut h)| {
            h.prefix = prefix;
            h
        })
        .collect();
    hoods.sort_unstable_by(|a, b| a.prefix.cmp(&b.prefix));
    let page_spread = Spread::of(
        pages
            .iter()
            .filter(|p| p.chunks > 0)
            .map(PageCounts::containment),
    );
    let hood_spread = Spread::of(hoods.iter().filter(|h| h.chunks > 0).map(Hood::badness));
    Detection {
        containment_threshold: t.containment.unwrap_or(page_spread.threshold()),
        badness_threshold: t.badness.unwrap_or(hood_spread.threshold()),
        pages,
        page_spread,
        hoods,
        hood_spread,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;
    use std::collections::BTreeMap;

    struct Mem(Vec<(String, Vec<u128>)>);

    impl Docs for Mem {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn doc(&self, i: usize) -> (&str, &[u128]) {
            (&self.0[i].0, &self.0[i].1)
        }
    }

    /// (pages, chunks, labeled) per prefix.
    type HoodTotals = BTreeMap<String, (u64, u64, u64)>;

    /// The definitions written out plainly: every page, every prefix by string operations.
    fn reference(docs: &Mem, labels: &[u128], stop: &[u128]) -> (Vec<(u32, u32)>, HoodTotals) {
        let mut pages = Vec::new();
        let mut hoods = HoodTotals::new();
        for (url, chunks) in &docs.0 {
            let kept: Vec<u128> = chunks
                .iter()
                .copied()
                .filter(|h| !stop.contains(h))
                .collect();
            let lab = kept.iter().filter(|h| labels.contains(h)).count() as u32;
            pages.push((kept.len() as u32, lab));
            let path = url.trim_start_matches("http://");
            let parts: Vec<&str> = path.split('/').collect();
            for depth in 1..parts.len() {
                let prefix = parts[..depth].join("/") + "/";
                let e = hoods.entry(prefix).or_default();
                e.0 += 1;
                e.1 += kept.len() as u64;
                e.2 += lab as u64;
            }
        }
        (pages, hoods)
    }

    #[test]
    fn dropping_labeled_paragraphs_keeps_the_rest_in_order() {
        use crate::text::paragraphs::chunk_hash;
        let labels: Labels = ["Subscribe now", "Share"]
            .iter()
            .map(|c| chunk_hash(c))
            .collect();
        let text = "Title\nSubscribe now\nBody one.\nShare\nBody two.\nShare";
        assert_eq!(drop_labeled(text, &labels), "Title\nBody one.\nBody two.");
        assert_eq!(drop_labeled("Share", &labels), "");
        assert_eq!(drop_labeled("", &labels), "");
    }

    #[test]
    fn containment_and_badness_equal_a_short_reference() {
        let mut rng = SplitMix64(11);
        let mut docs = Vec::new();
        for i in 0..3000 {
            let url = format!(
                "http://s{}.example/{}/{}/p{i}",
                rng.below(20),
                rng.below(3),
                rng.below(3)
            );
            let chunks: Vec<u128> = (0..rng.below(30)).map(|_| rng.below(200) as u128).collect();
            docs.push((url, chunks));
        }
        let docs = Mem(docs);
        let label_list: Vec<u128> = (0..200).filter(|h| h % 3 == 0).collect();
        let stop_list: Vec<u128> = vec![0, 1, 2, 5];
        let labels: Labels = label_list.iter().copied().collect();
        let mut stop = StopChunks::none();
        for h in &stop_list {
            stop.add_hash(*h);
        }
        let d = detect(&docs, &labels, &stop, Thresholds::default());
        let (pages, hoods) = reference(&docs, &label_list, &stop_list);
        let got: Vec<(u32, u32)> = d.pages.iter().map(|p| (p.chunks, p.labeled)).collect();
        assert_eq!(got, pages);
        let got: HoodTotals = d
            .hoods
            .iter()
            .map(|h| (h.prefix.clone(), (h.pages, h.chunks, h.labeled)))
            .collect();
        assert_eq!(got, hoods);
        // Thresholds: mean + std of the plain values.
        let vals: Vec<f64> = pages
            .iter()
            .filter(|p| p.0 > 0)
            .map(|p| p.1 as f64 / p.0 as f64)
            .collect();
        let mean = vals.iter().sum::<f64>() / vals.len() as f64;
        let std = (vals.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / vals.len() as f64).sqrt();
        assert!((d.containment_threshold - (mean + std)).abs() < 1e-12);
        for (i, p) in pages.iter().enumerate() {
            let c = if p.0 == 0 {
                0.0
            } else {
                p.1 as f64 / p.0 as f64
            };
            assert_eq!(d.is_target(i), p.0 > 0 && c > mean + std, "page {i}");
        }
        let bad = d.bad();
        assert!(!bad.is_empty() && bad.len() < d.hoods.len());
        assert!(bad.iter().all(|h| h.badness() > d.badness_threshold));
        let d2 = detect(
            &docs,
            &labels,
            &stop,
            Thresholds {
                containment: Some(0.5),
                badness: Some(2.0),
            },
        );
        assert!(d2.bad().is_empty());
        assert_eq!(d2.containment_threshold, 0.5);
    }
}
