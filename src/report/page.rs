//! `report.html`: one self-contained page per run that answers "what was removed, and was it
//! right?" (the run and its stages, the per-site audit, the sweep and cluster sizes, and
//! removed pages beside the kept page each was removed for, with a word diff).
//!
//! Everything is inline (CSS, JavaScript, SVG) and nothing is fetched, so the file opens from
//! disk in any browser, offline. The facts are rendered as HTML; the sortable audit table and
//! the searchable sample are drawn by the script from one JSON block ([`Page`]). The page's
//! size is bounded by the caller's choices (sites and pairs at most, a word budget per diff),
//! not by the crawl's size.

use serde::Serialize;

use super::diff::Diff;
use super::summary::StageSummary;

/// The page's name in an output directory.
pub const NAME: &str = "report.html";

const CSS: &str = include_str!("page/report.css");
const JS: &str = include_str!("page/report.js");

/// What the page shows.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Page {
    /// The output directory's name, as the title.
    pub title: String,
    /// The program and version that made the run.
    pub created_by: String,
    /// The run in facts.
    pub run: Run,
    /// The audit: the most removed sites, flagged first.
    pub sites: Vec<Site>,
    /// Sites in `sites.tsv` in all.
    pub sites_total: u64,
    /// The crawl's removal rate.
    pub crawl_rate: f64,
    /// Removed pages beside their kept page.
    pub samples: Vec<Sample>,
    /// Removed pages in all.
    pub removed_total: u64,
    /// Plots, as SVG, by heading.
    #[serde(skip)]
    pub plots: Vec<(String, String)>,
}

/// The run in facts.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Run {
    pub documents: u64,
    pub kept: u64,
    pub removed: u64,
    /// Kept without taking part (too short, no features), by reason.
    pub excluded: Vec<(String, u64)>,
    pub seconds: f64,
    pub stages: Vec<StageSummary>,
    /// The options that decided the lists, by name, in order.
    pub options: Vec<(String, String)>,
}

/// One row of the audit.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Site {
    pub site: String,
    pub documents: u64,
    pub removed: u64,
    pub rate: f64,
    pub kept_on: String,
    pub full_text: u64,
    /// Words its pages set aside as the site's (own content).
    pub words_aside: u64,
    pub flagged: bool,
}

/// A removed page and the kept page it names.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Sample {
    pub id: String,
    pub url: String,
    pub site: String,
    pub kept: String,
    pub kept_url: String,
    /// The verified score (S3 or the measure of the run), where the run verified.
    pub score: Option<f64>,
    pub hamming64: Option<u32>,
    /// Documents in the kept page's group (it and the pages removed for it).
    pub group: u64,
    /// Why it was drawn: `borderline`, `large group`, `site`, `spread`.
    pub why: Vec<String>,
    /// The two texts verification compared, removed against kept.
    pub diff: Option<Diff>,
    /// Why there is no diff, where there is none.
    pub note: Option<String>,
}

/// HTML text: `&`, `<`, `>` and quotes escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON placed inside a `<script>` element: `<` is written `\u003c`, so no text in it can
/// close the element or open a comment, and the JSON reads the same.
fn script_json(page: &Page) -> String {
    serde_json::to_string(page)
        .unwrap_or_else(|_| "{}".into())
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

fn megabytes(b: u64) -> String {
    format!("{:.0} MB", b as f64 / 1e6)
}

/// The whole page.
pub fn render(page: &Page) -> String {
    let r = &page.run;
    let mut h = String::with_capacity(64 << 10);
    let title = escape(&page.title);
    h.push_str(&format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>neardup report: {title}</title><style>{CSS}</style></head><body>\n\
         <script>window.addEventListener('error',function(e){{var p=document.getElementById('errors');\
         if(p){{p.hidden=false;p.textContent+=String(e.message)+'\\n';}}}});</script>\n\
         <pre id=\"errors\" hidden></pre>\n"
    ));
    let rate = if r.documents > 0 {
        100.0 * r.removed as f64 / r.documents as f64
    } else {
        0.0
    };
    h.push_str(&format!(
        "<header><h1>What <code>neardup dedup</code> removed</h1>\
         <p class=\"sub\">{title} &middot; {}</p>\
         <nav><a href=\"#run\">The run</a><a href=\"#sample\">Removed pages</a>\
         <a href=\"#sites\">Per site</a><a href=\"#plots\">Plots</a></nav></header>\n<main>\n\
         <section id=\"run\"><h2>The run</h2><div class=\"tiles\">\
         <div><b>{}</b>documents</div><div><b>{}</b>kept</div>\
         <div><b>{}</b>removed ({rate:.1} %)</div><div><b>{}</b>excluded and kept</div>\
         <div><b>{:.1} s</b>in all</div></div>\n",
        escape(&page.created_by),
        r.documents,
        r.kept,
        r.removed,
        r.excluded.iter().map(|e| e.1).sum::<u64>(),
        r.seconds
    ));
    h.push_str("<div class=\"cols\"><table class=\"facts\"><caption>What decided</caption>");
    for (k, v) in &r.options {
        h.push_str(&format!(
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(k),
            escape(v)
        ));
    }
    h.push_str("</table><table class=\"facts\"><caption>Stages</caption><tr><th>stage</th><th class=\"n\">time</th><th class=\"n\">peak memory</th></tr>");
    for s in &r.stages {
        h.push_str(&format!(
            "<tr><td>{}</td><td class=\"n\">{:.2} s</td><td class=\"n\">{}</td></tr>",
            escape(&s.name),
            s.seconds,
            s.peak_rss.map_or("-".into(), megabytes)
        ));
    }
    h.push_str("</table>");
    h.push_str("<table class=\"facts\"><caption>Excluded from the join, kept</caption>");
    if r.excluded.is_empty() {
        h.push_str("<tr><td>none</td></tr>");
    }
    for (why, n) in &r.excluded {
        h.push_str(&format!(
            "<tr><th>{}</th><td class=\"n\">{n}</td></tr>",
            escape(why)
        ));
    }
    h.push_str("</table></div></section>\n");
    h.push_str(&format!(
        "<section id=\"sample\"><h2>Removed pages beside the page each was removed for</h2>\
         <p>{} of {} removals, drawn to show the borderline scores, the largest groups and the \
         sites removed the most, with a spread of the rest. Each pair shows the texts \
         verification compared: the removed page's first (on the left on a wide screen), the \
         kept page's second. <del>Struck red</del> words are only in the removed page, \
         <ins>green</ins> ones only in the kept page; the rest is shared.</p>\
         <div class=\"controls\"><input id=\"q\" type=\"search\" placeholder=\"Search id, URL or site\" aria-label=\"Search the sample\">\
         <span id=\"whys\"></span> <span id=\"shown\" class=\"count\"></span></div>\
         <div id=\"pairs\"></div></section>\n",
        page.samples.len(),
        page.removed_total
    ));
    h.push_str(&format!(
        "<section id=\"sites\"><h2>Per site</h2><p>The crawl's removal rate is {:.1} %. \
         Sites removed far above it are flagged and listed first; {} of {} sites are here \
         (all are in <code>sites.tsv</code>). Click a heading to sort.</p>\
         <div class=\"controls\"><input id=\"sq\" type=\"search\" placeholder=\"Filter sites\" aria-label=\"Filter sites\"> \
         <label><input id=\"flaggedonly\" type=\"checkbox\"> flagged only</label> <span id=\"sshown\" class=\"count\"></span></div>\
         <div class=\"scroll\"><table id=\"sitetable\"><thead><tr>\
         <th data-k=\"site\">site</th><th data-k=\"documents\" class=\"n\">documents</th>\
         <th data-k=\"removed\" class=\"n\">removed</th><th data-k=\"rate\" class=\"n\">rate</th>\
         <th data-k=\"kept_on\">kept on</th><th data-k=\"full_text\" class=\"n\">full text</th><th data-k=\"words_aside\" class=\"n\" title=\"words its pages share with the site, set aside\">site's words</th></tr></thead>\
         <tbody></tbody></table></div></section>\n",
        100.0 * page.crawl_rate,
        page.sites.len(),
        page.sites_total
    ));
    if !page.plots.is_empty() {
        h.push_str("<section id=\"plots\"><h2>Plots</h2><div class=\"plots\">");
        for (head, svg) in &page.plots {
            h.push_str(&format!(
                "<figure><figcaption>{}</figcaption>{}</figure>",
                escape(head),
                svg.trim()
            ));
        }
        h.push_str("</div></section>\n");
    }
    h.push_str("</main>\n<script type=\"application/json\" id=\"data\">");
    h.push_str(&script_json(page));
    h.push_str("</script>\n<script>");
    h.push_str(JS);
    h.push_str("</script>\n</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_the_crawl_cannot_break_out_of_the_page() {
        let hostile = "</script><script>alert(1)</script><!-- \u{2028}";
        let page = Page {
            title: hostile.into(),
            samples: vec![Sample {
                id: hostile.into(),
                url: hostile.into(),
                ..Sample::default()
            }],
            run: Run {
                options: vec![("text".into(), hostile.into())],
                ..Run::default()
            },
            ..Page::default()
        };
        let html = render(&page);
        // The only script elements are the page's own three.
        assert_eq!(html.matches("<script").count(), 3, "{html}");
        assert_eq!(html.matches("</script>").count(), 3);
        assert!(!html.contains("<!-- "));
        // The data block reads back as the text it was given.
        let start = html.find("id=\"data\">").unwrap() + 10;
        let end = start + html[start..].find("</script>").unwrap();
        let v: serde_json::Value = serde_json::from_str(&html[start..end]).unwrap();
        assert_eq!(v["samples"][0]["id"], hostile);
        assert_eq!(v["title"], hostile);
    }
}
