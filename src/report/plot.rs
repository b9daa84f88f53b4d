//! SVG plots of a sweep: kept and largest-cluster ratios against the threshold (Chuweb21D
//! Table 2 and Figure 3), pairs per distance (CiteSeerX Table 1), and cluster-size
//! distributions on log axes (Chuweb21D Figure 4), and the frequency of paragraph chunks
//! (content reuse, Figures 1-2).

use plotters::prelude::*;

use crate::cluster::quality::Quality;
use crate::cluster::{Axis, Level};
use crate::verify::evaluate::Evaluation;

type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

const SIZE: (u32, u32) = (720, 440);
const FONT: (&str, u32) = ("sans-serif", 18);

fn render(draw: impl FnOnce(&mut String) -> DrawResult) -> String {
    let mut svg = String::new();
    if let Err(e) = draw(&mut svg) {
        // Plots are a convenience beside the tables: a drawing failure leaves a note, not a
        // failed run.
        return format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><!-- plot failed: {e} --></svg>\n"
        );
    }
    svg
}

/// Kept ratio and largest-cluster ratio (log scale) against the threshold; a verified sweep
/// draws the candidates' precision (and its interval) beside the kept ratio.
pub fn sweep_svg(levels: &[Level], axis: Axis, quality: Option<&[Quality]>) -> String {
    render(|svg| {
        let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let max_t = levels.last().map_or(1, |l| l.tau.max(1));
        let title = match axis {
            Axis::D64 => "Documents kept and largest cluster by 64-bit tau".to_string(),
            Axis::D128 { tau64 } => format!("By 128-bit tau, 64-bit tau = {tau64}"),
        };
        let (top, bottom) = root.split_vertically(SIZE.1 / 2 + 20);
        let mut c = ChartBuilder::on(&top)
            .caption(title, FONT)
            .margin(8)
            .x_label_area_size(24)
            .y_label_area_size(56)
            .build_cartesian_2d(0u32..max_t, 0f64..1.0f64)?;
        c.configure_mesh()
            .y_desc(if quality.is_some() {
                "kept ratio, precision"
            } else {
                "kept ratio"
            })
            .draw()?;
        c.draw_series(LineSeries::new(
            levels.iter().map(|l| (l.tau, l.kept_ratio)),
            BLUE.stroke_width(2),
        ))?
        .label("kept ratio")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLUE.stroke_width(2)));
        c.draw_series(
            levels
                .iter()
                .map(|l| Circle::new((l.tau, l.kept_ratio), 3, BLUE.filled())),
        )?;
        if let Some(q) = quality {
            let green = RGBColor(0, 140, 60);
            c.draw_series(LineSeries::new(
                q.iter().map(|x| (x.tau, x.precision)),
                green.stroke_width(2),
            ))?
            .label("precision of candidates")
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], green.stroke_width(2))
            });
            c.draw_series(q.iter().map(|x| {
                PathElement::new(
                    vec![(x.tau, x.precision_low), (x.tau, x.precision_high)],
                    green.stroke_width(1),
                )
            }))?;
            c.configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
        }
        let lo = levels
            .iter()
            .map(|l| l.max_cluster_ratio)
            .filter(|r| *r > 0.0)
            .fold(1.0f64, f64::min)
            .min(1e-3);
        let mut c = ChartBuilder::on(&bottom)
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(0u32..max_t, (lo..1.0f64).log_scale())?;
        c.configure_mesh()
            .x_desc(axis.name())
            .y_desc("largest cluster ratio")
            .draw()?;
        let pts: Vec<(u32, f64)> = levels
            .iter()
            .filter(|l| l.max_cluster_ratio > 0.0)
            .map(|l| (l.tau, l.max_cluster_ratio))
            .collect();
        c.draw_series(LineSeries::new(pts.iter().copied(), RED.stroke_width(2)))?;
        c.draw_series(pts.iter().map(|p| Circle::new(*p, 3, RED.filled())))?;
        root.present()?;
        Ok(())
    })
}

/// Precision, recall and F1 of SimHash candidates against the 64-bit threshold, with
/// MinHash-LSH's (one operating point) as dashed horizontal lines of the same colours.
pub fn evaluate_svg(e: &Evaluation) -> String {
    render(|svg| {
        let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let max_t = e.rows.last().map_or(1, |r| r.tau.max(1));
        let mut c = ChartBuilder::on(&root)
            .caption("Candidates against text-similarity truth", FONT)
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(0u32..max_t, 0f64..1.0f64)?;
        c.configure_mesh()
            .x_desc("SimHash hamming64 threshold")
            .y_desc("precision, recall, F1")
            .draw()?;
        let green = RGBColor(0, 140, 60);
        type Pick = fn(&crate::verify::evaluate::EvalRow) -> f64;
        let lines: [(&str, RGBColor, Pick); 3] = [
            ("precision", green, |r| r.precision),
            ("recall", BLUE, |r| r.recall),
            ("F1", RED, |r| r.f1),
        ];
        for (name, colour, pick) in lines {
            c.draw_series(LineSeries::new(
                e.rows.iter().map(|r| (r.tau, pick(r))),
                colour.stroke_width(2),
            ))?
            .label(format!("SimHash {name}"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
            });
            if let Some(m) = &e.minhash {
                let y = pick(&m.row);
                c.draw_series(DashedLineSeries::new(
                    [(0, y), (max_t, y)],
                    6,
                    4,
                    colour.stroke_width(1),
                ))?
                .label(format!(
                    "MinHash {}x{} {name}",
                    m.params.bands, m.params.rows
                ))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(1))
                });
            }
        }
        c.configure_series_labels()
            .position(SeriesLabelPosition::MiddleRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    })
}

/// Document pairs at each distance, log scale.
pub fn distances_svg(levels: &[Level], axis: Axis) -> String {
    render(|svg| {
        let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let max_t = levels.last().map_or(0, |l| l.tau);
        let top = levels.iter().map(|l| l.pairs_at).max().unwrap_or(1).max(1) as f64 * 2.0;
        let mut c = ChartBuilder::on(&root)
            .caption("Pairs per Hamming distance", FONT)
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d((0u32..max_t).into_segmented(), (0.5f64..top).log_scale())?;
        c.configure_mesh()
            .x_desc(if axis == Axis::D64 {
                "hamming64"
            } else {
                "hamming128"
            })
            .y_desc("pairs")
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        c.draw_series(levels.iter().filter(|l| l.pairs_at > 0).map(|l| {
            Rectangle::new(
                [
                    (SegmentValue::Exact(l.tau), 0.5),
                    (SegmentValue::Exact(l.tau + 1), l.pairs_at as f64),
                ],
                BLUE.mix(0.6).filled(),
            )
        }))?;
        root.present()?;
        Ok(())
    })
}

/// Clusters of each size, log-log, one line per threshold.
pub fn cluster_sizes_svg(levels: &[Level], axis: Axis) -> String {
    render(|svg| {
        let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let max_size = levels
            .iter()
            .flat_map(|l| l.size_histogram.iter().map(|(s, _)| *s))
            .max()
            .unwrap_or(2)
            .max(2) as f64;
        let max_n = levels
            .iter()
            .flat_map(|l| l.size_histogram.iter().map(|(_, n)| *n))
            .max()
            .unwrap_or(1)
            .max(1) as f64;
        let mut c = ChartBuilder::on(&root)
            .caption("Cluster sizes", FONT)
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(
                (1.0f64..max_size * 1.5).log_scale(),
                (0.8f64..max_n * 2.0).log_scale(),
            )?;
        c.configure_mesh()
            .x_desc("cluster size")
            .y_desc("clusters")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        for (i, l) in levels.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let pts: Vec<(f64, f64)> = l
                .size_histogram
                .iter()
                .map(|(s, n)| (*s as f64, *n as f64))
                .collect();
            c.draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
                .label(format!("{} = {}", axis.name(), l.tau))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
        }
        c.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    })
}

/// The frequency-occurrence distribution of chunks, log-log (content reuse's Figures 1-2):
/// for each number of occurrences, how many distinct chunks were seen that often, with the
/// discovery threshold drawn.
pub fn frequency_svg(histogram: &std::collections::BTreeMap<u64, u64>, min_count: u64) -> String {
    render(|svg| {
        let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let max_x = histogram
            .keys()
            .last()
            .copied()
            .unwrap_or(1)
            .max(min_count + 1) as f64
            * 2.0;
        let max_y = histogram.values().max().copied().unwrap_or(1).max(1) as f64 * 2.0;
        let mut c = ChartBuilder::on(&root)
            .caption("Chunks by number of occurrences", FONT)
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d((0.8f64..max_x).log_scale(), (0.8f64..max_y).log_scale())?;
        c.configure_mesh()
            .x_desc("occurrences")
            .y_desc("distinct chunks")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        c.draw_series(
            histogram
                .iter()
                .map(|(x, y)| Circle::new((*x as f64, *y as f64), 2, BLUE.mix(0.7).filled())),
        )?;
        let t = min_count as f64 + 0.5;
        c.draw_series(LineSeries::new([(t, 0.8), (t, max_y)], RED.stroke_width(2)))?
            .label(format!("discovery threshold (> {min_count})"))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], RED.stroke_width(2)));
        c.configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE.mix(0.8))
            .draw()?;
        root.present()?;
        Ok(())
    })
}

/// The removal audit: each site's removal rate against its size (documents, log scale), the
/// crawl's rate drawn across, flagged sites in red.
pub fn sites_svg(
    a: &crate::report::sites::Audit,
    flagged: &[&crate::report::sites::Row],
) -> String {
    render(|svg| {
        let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let max_docs = a
            .sites
            .iter()
            .map(|r| r.documents)
            .max()
            .unwrap_or(1)
            .max(2) as f64;
        let mut c = ChartBuilder::on(&root)
            .caption("Removal rate by site size", FONT)
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d((0.8f64..max_docs * 1.5).log_scale(), 0f64..1.02f64)?;
        c.configure_mesh()
            .x_desc("documents of the site")
            .y_desc("removal rate")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()?;
        let is_flagged = |r: &crate::report::sites::Row| flagged.iter().any(|f| f.site == r.site);
        c.draw_series(a.sites.iter().filter(|r| !is_flagged(r)).map(|r| {
            Circle::new(
                (r.documents as f64, r.removal_rate),
                2,
                BLUE.mix(0.5).filled(),
            )
        }))?
        .label("site")
        .legend(|(x, y)| Circle::new((x + 8, y), 3, BLUE.filled()));
        c.draw_series(
            flagged
                .iter()
                .map(|r| Circle::new((r.documents as f64, r.removal_rate), 4, RED.filled())),
        )?
        .label("flagged: removed far above the crawl's rate")
        .legend(|(x, y)| Circle::new((x + 8, y), 4, RED.filled()));
        c.draw_series(LineSeries::new(
            [(0.8, a.rate), (max_docs * 1.5, a.rate)],
            BLACK.stroke_width(1),
        ))?
        .label(format!("the crawl's rate ({:.3})", a.rate))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLACK.stroke_width(1)));
        c.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    })
}
