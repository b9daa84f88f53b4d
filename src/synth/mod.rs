//! Synthetic crawls with planted near-duplicates, for tests, benchmarks and demos.
//!
//! Pages are HTML built from a Zipfian vocabulary inside per-site boilerplate (navigation,
//! inline script and style, footer). A share of pages are exact copies under another URL and a
//! share are near-duplicate variants made by adding, deleting or changing one paragraph, in the
//! manner of Ardi & Heidemann's mutation experiments. Everything is derived from one seed with
//! SplitMix64, so the same arguments give the same bytes on every machine. Shards are WARC/1.0
//! with one gzip member per record, as Common Crawl writes them, plus a warcinfo record, request
//! records and a few non-200 responses that the filters must drop.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;
use rayon::prelude::*;

use crate::base::rng::SplitMix64;
use crate::{Error, Result};

/// What to generate.
#[derive(Clone, Debug)]
pub struct SynthConfig {
    /// Number of response documents.
    pub docs: usize,
    /// Number of shard files.
    pub shards: usize,
    /// Seed.
    pub seed: u64,
    /// Share of documents that are exact copies of an earlier page.
    pub exact_share: f64,
    /// Share of documents that are near-duplicate variants of an earlier page.
    pub near_share: f64,
    /// Mean paragraphs per page.
    pub paragraphs: usize,
    /// The duplicate structure (`exact_share` and `near_share` are the uniform shape's).
    pub shape: Shape,
    /// Pages of one planted group on top of the shape: its original, `big_group - 1` exact
    /// copies of it and `big_group` variants with one word replaced (0: none).
    pub big_group: usize,
    /// Pages of one planted template site of this size on top of the shape (0: none).
    pub big_site: usize,
}

/// The site number of the planted template site ([`SynthConfig::big_site`]).
pub const BIG_SITE: usize = 900_000;

/// The duplicate structure of a synthetic crawl.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Shape {
    /// Each page is, with the configured shares, an exact copy or a one-paragraph variant of
    /// a uniformly drawn earlier page, or a new page. Groups grow by preferential attachment
    /// but stay small: at a million pages the largest holds about 200.
    #[default]
    Uniform,
    /// Shaped like a day of a national crawl (Chuweb21's Table 2, CopyCat's canonical
    /// classes): [`GROUPED`] of the pages are in groups whose sizes follow a power law
    /// (P(size >= s) = 2/s, from 2 up to 1 % of the crawl), each an original page and its
    /// exact copies and one-paragraph variants (half and half) naming it as their canonical
    /// link, scattered through the crawl; [`TEMPLATED`] of the pages are on template sites of up
    /// to 1 % of the crawl whose pages share [`TEMPLATE_SHARED`] paragraphs of boilerplate
    /// text and differ in the rest (about S3 0.5 between two of them: not near-duplicates, but
    /// many shared shingles); the other pages are new.
    Web,
}

/// Share of pages in near-duplicate groups, in the web shape.
pub const GROUPED: f64 = 0.4;
/// Share of pages on template sites, in the web shape.
pub const TEMPLATED: f64 = 0.05;
/// Paragraphs every page of a template site shares.
pub const TEMPLATE_SHARED: u64 = 5;

impl Default for SynthConfig {
    fn default() -> Self {
        SynthConfig {
            docs: 1000,
            shards: 2,
            seed: 7,
            exact_share: 0.1,
            near_share: 0.2,
            paragraphs: 8,
            shape: Shape::Uniform,
            big_group: 0,
            big_site: 0,
        }
    }
}

/// How a generated document relates to the page it was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A new page.
    Original,
    /// An exact copy of document `of`.
    Exact {
        /// Index of the source page.
        of: usize,
    },
    /// A one-paragraph mutation of document `of`.
    Near {
        /// Index of the source page.
        of: usize,
    },
    /// A new page on template site `site` (the web shape): it shares boilerplate paragraphs
    /// with the site's other pages, and is nobody's near-duplicate.
    Template {
        /// The template site (0, 1, ...).
        site: usize,
    },
}

/// The planted truth: one entry per response document, in generation order.
#[derive(Clone, Debug, Default)]
pub struct Truth {
    /// Document ids (WARC-Record-ID without brackets).
    pub ids: Vec<String>,
    /// How each was made.
    pub origins: Vec<Origin>,
    /// Payload bytes generated.
    pub html_bytes: u64,
}

/// The group structure of a truth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Groups {
    /// Groups of two or more pages (an original and what was made from it).
    pub groups: u64,
    /// Pages in those groups.
    pub grouped: u64,
    /// Pages in the largest.
    pub largest: u64,
    /// Pages on template sites.
    pub templated: u64,
}

impl Truth {
    /// How the pages group: each original with the copies and variants made from it (and
    /// from them).
    pub fn groups(&self) -> Groups {
        let mut root = Vec::with_capacity(self.origins.len());
        let mut size = vec![0u64; self.origins.len()];
        let mut g = Groups::default();
        for (d, o) in self.origins.iter().enumerate() {
            let r = match *o {
                Origin::Exact { of } | Origin::Near { of } => root[of],
                Origin::Template { .. } => {
                    g.templated += 1;
                    d
                }
                Origin::Original => d,
            };
            root.push(r);
            size[r] += 1;
        }
        for s in size.into_iter().filter(|s| *s > 1) {
            g.groups += 1;
            g.grouped += s;
            g.largest = g.largest.max(s);
        }
        g
    }
}

struct Vocab {
    words: Vec<String>,
    cdf: Vec<f64>,
}

impl Vocab {
    fn new(rng: &mut SplitMix64, size: usize) -> Self {
        const SYL: [&str; 24] = [
            "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "wen", "dor", "pel", "qua", "ris",
            "tam", "ul", "xe", "bra", "cin", "fo", "gu", "hal", "jo", "ment", "tion",
        ];
        let words = (0..size)
            .map(|_| {
                let n = 1 + rng.below(3) as usize;
                (0..n)
                    .map(|_| SYL[rng.below(SYL.len() as u64) as usize])
                    .collect()
            })
            .collect();
        let mut acc = 0.0;
        let mut cdf: Vec<f64> = (1..=size)
            .map(|r| {
                acc += 1.0 / r as f64;
                acc
            })
            .collect();
        cdf.iter_mut().for_each(|c| *c /= acc);
        Vocab { words, cdf }
    }

    fn word(&self, rng: &mut SplitMix64) -> &str {
        let u = rng.unit();
        let i = self
            .cdf
            .partition_point(|c| *c < u)
            .min(self.words.len() - 1);
        &self.words[i]
    }

    fn paragraph(&self, rng: &mut SplitMix64) -> String {
        let n = 20 + rng.below(60) as usize;
        let mut p = String::with_capacity(n * 8);
        for i in 0..n {
            if i > 0 {
                p.push(' ');
            }
            p.push_str(self.word(rng));
            if rng.below(12) == 0 {
                p.push(',');
            }
        }
        p.push('.');
        p
    }
}

/// A page in a site's template. The boilerplate (head, navigation, inline script, JSON-LD,
/// sidebar, footer) makes markup about two thirds of the bytes, as on typical crawled pages.
fn page(site: usize, title: &str, canonical: &str, paragraphs: &[String]) -> String {
    let mut h =
        String::with_capacity(12_288 + paragraphs.iter().map(|p| p.len() + 32).sum::<usize>());
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    h.push_str(&format!("<title>{title} &mdash; site {site}</title>"));
    h.push_str(&format!(
        "<link rel=\"stylesheet\" href=\"https://cdn.site{site}.example/css/main.min.css?v=20261122\">\
         <link rel=\"canonical\" href=\"{canonical}\">"
    ));
    h.push_str("<style>body{font-family:-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:72em;color:#222}\
        .nav a{padding:4px 8px;text-decoration:none}.sidebar{float:right;width:18em}.cookie{position:fixed;bottom:0}</style>");
    h.push_str("<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}\
        gtag('js',new Date());gtag('config','G-XXXXXXX',{anonymize_ip:true});\
        (function(w,d,s,l,i){w[l]=w[l]||[];w[l].push({'gtm.start':new Date().getTime(),event:'gtm.js'});\
        var f=d.getElementsByTagName(s)[0],j=d.createElement(s),dl=l!='dataLayer'?'&l='+l:'';j.async=true;\
        j.src='https://www.googletagmanager.com/gtm.js?id='+i+dl;f.parentNode.insertBefore(j,f);})\
        (window,document,'script','dataLayer','GTM-XXXX');</script>");
    h.push_str(&format!(
        "<script type=\"application/ld+json\">{{\"@context\":\"https://schema.org\",\"@type\":\"Article\",\
         \"headline\":\"{title}\",\"publisher\":{{\"@type\":\"Organization\",\"name\":\"Site {site}\"}}}}</script>"
    ));
    h.push_str("</head><body><header class=\"site-header\"><nav class=\"nav\" role=\"navigation\"><ul class=\"menu\">");
    for i in 0..24 {
        h.push_str(&format!(
            "<li class=\"menu-item menu-item-{i}\"><a class=\"nav-link\" href=\"https://site{site}.example/section/{i}/\" data-track=\"nav-{i}\">Section {i}</a></li>"
        ));
    }
    h.push_str("</ul></nav></header><div class=\"container\"><main id=\"content\" class=\"post\">");
    h.push_str(&format!(
        "<article><h1 class=\"entry-title\">{title}</h1><div class=\"entry-content\">"
    ));
    for p in paragraphs {
        h.push_str("<p>");
        h.push_str(p);
        h.push_str("</p>\n");
    }
    h.push_str("</div></article></main><aside class=\"sidebar\"><h3>Related</h3><ul>");
    for i in 0..8 {
        h.push_str(&format!(
            "<li><a href=\"https://site{site}.example/related/{i}\" class=\"related-link\" rel=\"bookmark\">Related story {i}</a></li>"
        ));
    }
    h.push_str("</ul></aside></div><footer class=\"site-footer\"><div class=\"footer-links\">");
    for i in 0..12 {
        h.push_str(&format!(
            "<a href=\"https://site{site}.example/page-{i}\" class=\"footer-link\">Link {i}</a> "
        ));
    }
    h.push_str(&format!(
        "</div><p>&copy; 2026 Site {site}. All rights reserved.</p></footer>\
         <div class=\"cookie\" id=\"cookie-banner\">We use cookies to improve your experience. <button onclick=\"this.parentNode.remove()\">OK</button></div>\
         <script src=\"https://cdn.site{site}.example/js/app.min.js\" defer></script></body></html>\n"
    ));
    h
}

fn warc_record(wtype: &str, id: &str, uri: &str, ctype: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {wtype}\r\nWARC-Date: 2026-11-22T00:00:00Z\r\nWARC-Record-ID: <{id}>\r\n"
    );
    if !uri.is_empty() {
        r.push_str(&format!("WARC-Target-URI: {uri}\r\n"));
    }
    r.push_str(&format!(
        "Content-Type: {ctype}\r\nContent-Length: {}\r\n\r\n",
        block.len()
    ));
    let mut v = r.into_bytes();
    v.extend_from_slice(block);
    v.extend_from_slice(b"\r\n\r\n");
    v
}

fn http_response(status: u16, html: &str) -> Vec<u8> {
    let reason = if status == 200 { "OK" } else { "Not Found" };
    let mut v = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Length: {}\r\n\r\n",
        html.len()
    )
    .into_bytes();
    v.extend_from_slice(html.as_bytes());
    v
}

/// Writes one record as its own gzip member.
fn write_member(w: &mut impl Write, record: &[u8]) -> std::io::Result<()> {
    let mut enc = GzEncoder::new(Vec::with_capacity(record.len() / 3), Compression::new(6));
    enc.write_all(record)?;
    w.write_all(&enc.finish()?)
}

/// What one page of the crawl is made as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    Original,
    Exact(usize),
    Near(usize),
    /// A copy with one word replaced.
    Word(usize),
    Template(usize),
}

/// The planted group and site of `cfg` ([`SynthConfig::big_group`], `big_site`) at places
/// drawn with their own generator (so the shape's draws are the same with or without them):
/// None where the shape decides.
fn planted_plan(cfg: &SynthConfig) -> Vec<Option<Plan>> {
    let mut plan = vec![None; cfg.docs];
    let n = (2 * cfg.big_group + cfg.big_site).min(cfg.docs);
    if n == 0 {
        return plan;
    }
    let mut rng = SplitMix64(cfg.seed ^ 0x5eed_b16b_0000_0000);
    let mut perm: Vec<u32> = (0..cfg.docs as u32).collect();
    rng.sample_front(&mut perm, n);
    let group = (2 * cfg.big_group).min(n);
    let mut members = perm[..group].to_vec();
    members.sort_unstable();
    if let Some(first) = members.first().map(|m| *m as usize) {
        plan[first] = Some(Plan::Original);
        // Exact copies and variants alternate along the crawl.
        for (k, m) in members[1..].iter().enumerate() {
            plan[*m as usize] = Some(if k % 2 == 0 {
                Plan::Word(first)
            } else {
                Plan::Exact(first)
            });
        }
    }
    for m in &perm[group..n] {
        plan[*m as usize] = Some(Plan::Template(BIG_SITE));
    }
    plan
}

/// The web shape's plan of `docs` pages ([`Shape::Web`]): groups and template sites on a
/// random permutation of the places, each group's original at its first place.
fn web_plan(rng: &mut SplitMix64, docs: usize) -> Vec<Plan> {
    let mut perm: Vec<u32> = (0..docs as u32).collect();
    rng.shuffle(&mut perm);
    let mut plan = vec![Plan::Original; docs];
    let largest = (docs / 100).max(2);
    let grouped = (docs as f64 * GROUPED) as usize;
    let mut at = 0;
    while at + 2 <= grouped {
        // Pareto with x_min 2 and P(size >= s) = 2/s, cut at 1 % of the crawl.
        let size = (2.0 / (1.0 - rng.unit()).max(1e-12)) as usize;
        let size = size.clamp(2, largest).min(grouped - at);
        let mut members = perm[at..at + size].to_vec();
        members.sort_unstable();
        let first = members[0] as usize;
        for m in &members[1..] {
            plan[*m as usize] = if rng.below(2) == 0 {
                Plan::Exact(first)
            } else {
                Plan::Near(first)
            };
        }
        at += size;
    }
    let templated = (docs as f64 * TEMPLATED) as usize;
    for (k, m) in perm[at..(at + templated).min(docs)].iter().enumerate() {
        plan[*m as usize] = Plan::Template(k / largest);
    }
    plan
}

/// The state of paragraph `k` that every page of template site `t` shares.
fn template_paragraph(seed: u64, t: usize, k: u64) -> u64 {
    SplitMix64(seed ^ 0x7e3a_1b00_0000_0000 ^ ((t as u64) << 8 | k)).next_u64()
}

/// Writes `cfg.shards` WARC.gz files into `dir` and returns their paths and the truth.
pub fn write_crawl(dir: &Path, cfg: &SynthConfig) -> Result<(Vec<PathBuf>, Truth)> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut rng = SplitMix64(cfg.seed);
    let vocab = Vocab::new(&mut rng, 20_000);
    let shards = cfg.shards.max(1);
    let paths: Vec<PathBuf> = (0..shards)
        .map(|i| dir.join(format!("synth-{i:05}.warc.gz")))
        .collect();
    let mut writers = paths
        .iter()
        .map(|p| {
            // In a claimed output directory, a user's file of the same name is refused.
            crate::base::claim::admit(p)?;
            File::create(p)
                .map(BufWriter::new)
                .map_err(|e| Error::io(p, e))
        })
        .collect::<Result<Vec<_>>>()?;
    for (i, w) in writers.iter_mut().enumerate() {
        let info = warc_record(
            "warcinfo",
            &format!("urn:uuid:info-{i}"),
            "",
            "application/warc-fields",
            b"software: neardup synth\r\nformat: WARC File Format 1.0\r\n",
        );
        write_member(w, &info).map_err(|e| Error::io(&paths[i], e))?;
    }
    let mut truth = Truth::default();
    // Each page as the generator states its text came from (site, title, paragraphs): a
    // paragraph is made again from its state when copied, so memory stays about 100 bytes a
    // page however many pages (the texts themselves took 24 GB at a million pages).
    let mut bodies: Vec<(usize, u64, Vec<u64>)> = Vec::new();
    let paragraph = |rng: &mut SplitMix64| {
        let state = rng.0;
        vocab.paragraph(rng);
        state
    };
    let plan = (cfg.shape == Shape::Web).then(|| web_plan(&mut rng, cfg.docs));
    let planted = planted_plan(cfg);
    const BATCH: usize = 4096;
    let mut batch: Vec<Page> = Vec::with_capacity(BATCH);
    for d in 0..cfg.docs {
        let kind = match (&planted[d], &plan) {
            (Some(p), _) => *p,
            // A copy of a page the planted group or site took is a new page instead: the
            // planted group stays the size asked for.
            (None, Some(p)) => match p[d] {
                Plan::Exact(of) | Plan::Near(of) if planted[of].is_some() => Plan::Original,
                kind => kind,
            },
            (None, None) => {
                let roll = rng.unit();
                if d > 0 && roll < cfg.exact_share {
                    Plan::Exact(rng.below(d as u64) as usize)
                } else if d > 0 && roll < cfg.exact_share + cfg.near_share {
                    Plan::Near(rng.below(d as u64) as usize)
                } else {
                    Plan::Original
                }
            }
        };
        let mut edit = None;
        let (origin, site, title, paras) = if let Plan::Word(of) = kind {
            let (site, title, paras) = bodies[of].clone();
            edit = Some(rng.next_u64());
            (Origin::Near { of }, site, title, paras)
        } else if let Plan::Exact(of) = kind {
            let (site, title, paras) = bodies[of].clone();
            (Origin::Exact { of }, site, title, paras)
        } else if let Plan::Near(of) = kind {
            let (site, title, mut paras) = bodies[of].clone();
            match rng.below(3) {
                0 => {
                    let at = rng.below(paras.len() as u64 + 1) as usize;
                    paras.insert(at, paragraph(&mut rng));
                }
                1 if paras.len() > 2 => {
                    let at = rng.below(paras.len() as u64) as usize;
                    paras.remove(at);
                }
                _ => {
                    let at = rng.below(paras.len() as u64) as usize;
                    paras[at] = paragraph(&mut rng);
                }
            }
            (Origin::Near { of }, site, title, paras)
        } else if let Plan::Template(t) = kind {
            let mut paras: Vec<u64> = (0..TEMPLATE_SHARED)
                .map(|k| template_paragraph(cfg.seed, t, k))
                .collect();
            let unique = TEMPLATE_SHARED as usize - 1 + rng.below(3) as usize;
            paras.extend((0..unique).map(|_| paragraph(&mut rng)));
            let title = rng.0;
            for _ in 0..4 {
                vocab.word(&mut rng);
            }
            (Origin::Template { site: t }, 1000 + t, title, paras)
        } else {
            let n = 2 + rng.below(2 * cfg.paragraphs as u64 - 2) as usize;
            let paras: Vec<u64> = (0..n).map(|_| paragraph(&mut rng)).collect();
            let title = rng.0;
            for _ in 0..4 {
                vocab.word(&mut rng);
            }
            (Origin::Original, rng.below(200) as usize, title, paras)
        };
        bodies.push((site, title, paras.clone()));
        truth.ids.push(format!("urn:uuid:synth-{d:09}"));
        truth.origins.push(origin);
        batch.push(Page {
            d,
            origin,
            site,
            title,
            paras,
            edit,
        });
        if batch.len() == BATCH || d + 1 == cfg.docs {
            // Rendering and compressing, the costly part, run on every core; the pages are
            // written in order, so the bytes do not depend on the number of threads.
            let made: Vec<(usize, u64, std::io::Result<Vec<u8>>)> = batch
                .par_iter()
                .map(|p| {
                    let (html_len, members) = render(p, &truth.ids[p.d], &vocab, cfg.shape);
                    (p.d % shards, html_len, members)
                })
                .collect();
            batch.clear();
            for (shard, html_len, members) in made {
                truth.html_bytes += html_len;
                members
                    .and_then(|m| writers[shard].write_all(&m))
                    .map_err(|e| Error::io(&paths[shard], e))?;
            }
        }
    }
    for (i, mut w) in writers.into_iter().enumerate() {
        w.flush().map_err(|e| Error::io(&paths[i], e))?;
    }
    Ok((paths, truth))
}

/// One page as the plan made it, before its HTML is rendered.
struct Page {
    d: usize,
    origin: Origin,
    site: usize,
    title: u64,
    paras: Vec<u64>,
    /// One word of the first paragraph replaced (a copy with one word changed).
    edit: Option<u64>,
}

/// Renders page `p` (its record id `id`) and compresses its records (request, response, and for
/// some pages a not-found response the status filter must drop), one gzip member each, in the
/// order they are written; returns the HTML's length and the members.
fn render(p: &Page, id: &str, vocab: &Vocab, shape: Shape) -> (u64, std::io::Result<Vec<u8>>) {
    let (d, site, origin) = (p.d, p.site, p.origin);
    let title = {
        let mut r = SplitMix64(p.title);
        (0..4)
            .map(|_| vocab.word(&mut r))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut paras: Vec<String> = p
        .paras
        .iter()
        .map(|s| vocab.paragraph(&mut SplitMix64(*s)))
        .collect();
    if let (Some(r), Some(first)) = (p.edit, paras.first_mut()) {
        // One word of the first paragraph replaced by a word of this page's own.
        let mut words: Vec<&str> = first.split(' ').collect();
        let at = (r % words.len() as u64) as usize;
        let own = format!("variant{d}");
        words[at] = &own;
        *first = words.join(" ");
    }
    let uri = format!("https://site{site}.example/page/{d}");
    // The uniform shape names each site's home page as every page's canonical link; the web
    // shape names a group's original for its members, and a page itself otherwise.
    let canonical = match (shape, origin) {
        (Shape::Uniform, _) => format!("https://site{site}.example/"),
        (Shape::Web, Origin::Exact { of } | Origin::Near { of }) => {
            format!("https://site{site}.example/page/{of}")
        }
        (Shape::Web, _) => uri.clone(),
    };
    let html = page(site, &title, &canonical, &paras);
    let req = warc_record(
        "request",
        &format!("urn:uuid:req-{d:09}"),
        &uri,
        "application/http; msgtype=request",
        format!("GET /page/{d} HTTP/1.1\r\nHost: site{site}.example\r\n\r\n").as_bytes(),
    );
    let resp = warc_record(
        "response",
        id,
        &uri,
        "application/http; msgtype=response",
        &http_response(200, &html),
    );
    let mut out = Vec::with_capacity((req.len() + resp.len()) / 3);
    let mut res = write_member(&mut out, &req).and_then(|_| write_member(&mut out, &resp));
    if d % 97 == 50 {
        // A not-found page that the status filter must drop.
        let nf = warc_record(
            "response",
            &format!("urn:uuid:nf-{d:09}"),
            &format!("{uri}/missing"),
            "application/http; msgtype=response",
            &http_response(404, "<html><body>Not found</body></html>"),
        );
        res = res.and_then(|_| write_member(&mut out, &nf));
    }
    (html.len() as u64, res.map(|_| out))
}

/// Random fingerprints with planted near-duplicates: `docs` (64-bit, 128-bit) pairs, a
/// `near_share` of which are copies of an earlier fingerprint with 0 to `max_flips` bits
/// flipped (the same flips in the low half of the 128-bit fingerprint, whose high half is
/// fresh noise). For join tests and benchmarks without a crawl.
pub fn planted_fingerprints(
    docs: usize,
    near_share: f64,
    max_flips: u32,
    seed: u64,
) -> (Vec<u64>, Vec<[u64; 2]>) {
    let mut rng = SplitMix64(seed);
    let mut fps: Vec<u64> = Vec::with_capacity(docs);
    let mut fp128 = Vec::with_capacity(docs);
    for i in 0..docs {
        let fp = if i > 0 && rng.unit() < near_share {
            let mut v = fps[rng.below(i as u64) as usize];
            for _ in 0..rng.below(u64::from(max_flips) + 1) {
                v ^= 1 << rng.below(64);
            }
            v
        } else {
            rng.next_u64()
        };
        fps.push(fp);
        fp128.push([fp, rng.next_u64()]);
    }
    (fps, fp128)
}

/// [`planted_fingerprints`] written as a store, with ids `s000000000`...
pub fn write_fingerprint_store(
    path: &Path,
    docs: usize,
    near_share: f64,
    max_flips: u32,
    seed: u64,
    force: bool,
) -> Result<crate::fingerprint::store::Manifest> {
    use crate::fingerprint::store::{Filters, Manifest, Row, Stats, StoreWriter};
    let (fps, fp128) = planted_fingerprints(docs, near_share, max_flips, seed);
    let mut w = StoreWriter::create(path, force)?;
    for (i, (fp, f128)) in fps.iter().zip(&fp128).enumerate() {
        w.push(&Row {
            id: format!("s{i:09}"),
            fp64: *fp,
            fp128: (u128::from(f128[1]) << 64) | u128::from(f128[0]),
            terms: 100,
            text_len: 1000,
            ..Row::default()
        })?;
    }
    let params = crate::fingerprint::Params {
        hash: format!("synthetic fingerprints, seed {seed}"),
        ..Default::default()
    };
    w.finish(Manifest::new(
        params,
        Filters::default(),
        Stats::default(),
        vec![],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_web_shape_has_its_groups_and_template_sites() {
        let docs = 200_000;
        let plan = web_plan(&mut SplitMix64(3), docs);
        let mut size = vec![0usize; docs];
        let mut sites = std::collections::HashMap::new();
        for (d, p) in plan.iter().enumerate() {
            match *p {
                Plan::Exact(of) | Plan::Near(of) | Plan::Word(of) => {
                    // The original comes first and is a new page.
                    assert!(of < d && plan[of] == Plan::Original, "{d} -> {of}");
                    size[of] += 1;
                }
                Plan::Template(t) => *sites.entry(t).or_insert(0usize) += 1,
                Plan::Original => {}
            }
        }
        let groups: Vec<usize> = size.iter().filter(|s| **s > 0).map(|s| s + 1).collect();
        let grouped: usize = groups.iter().sum();
        assert!(
            grouped.abs_diff(docs * 2 / 5) <= 1,
            "{grouped} pages in groups"
        );
        let largest = *groups.iter().max().unwrap();
        assert_eq!(largest, docs / 100, "the largest group is 1 % of the crawl");
        // A power law: most groups are pairs, a few are large.
        let pairs = groups.iter().filter(|s| **s == 2).count();
        assert!(
            pairs * 3 > groups.len(),
            "{pairs} pairs of {} groups",
            groups.len()
        );
        assert!(groups.iter().filter(|s| **s >= 100).count() >= 10);
        assert_eq!(sites.values().sum::<usize>(), docs / 20);
        assert!(sites.values().all(|n| *n <= docs / 100));
    }

    #[test]
    fn the_planted_group_and_site_have_their_sizes() {
        let cfg = SynthConfig {
            docs: 10_000,
            big_group: 1000,
            big_site: 3000,
            ..SynthConfig::default()
        };
        let plan = planted_plan(&cfg);
        let (mut exact, mut word, mut site, mut original) = (0, 0, 0, None);
        for (d, p) in plan.iter().enumerate() {
            match p {
                Some(Plan::Original) => original = Some(d),
                Some(Plan::Exact(of)) => {
                    assert_eq!(Some(*of), original, "the original comes first");
                    exact += 1;
                }
                Some(Plan::Word(of)) => {
                    assert_eq!(Some(*of), original, "the original comes first");
                    word += 1;
                }
                Some(Plan::Template(t)) => {
                    assert_eq!(*t, BIG_SITE);
                    site += 1;
                }
                Some(Plan::Near(_)) => panic!("no paragraph variants planted"),
                None => {}
            }
        }
        assert_eq!((exact, word, site), (999, 1000, 3000));
        assert!(planted_plan(&SynthConfig::default())
            .iter()
            .all(Option::is_none));
    }

    #[test]
    fn the_truth_counts_groups_through_copies_of_copies() {
        let t = Truth {
            ids: (0..6).map(|i| i.to_string()).collect(),
            origins: vec![
                Origin::Original,
                Origin::Exact { of: 0 },
                Origin::Near { of: 1 },
                Origin::Original,
                Origin::Template { site: 0 },
                Origin::Near { of: 3 },
            ],
            html_bytes: 0,
        };
        let g = t.groups();
        assert_eq!((g.groups, g.grouped, g.largest, g.templated), (2, 5, 3, 1));
    }
}
