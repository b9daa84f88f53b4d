//! `neardup report` and `neardup explain`: the page of an earlier run written again, and one
//! page's answer printed (a word diff in the terminal, coloured when it is one).

use std::io::IsTerminal;

use super::args::{ExplainArgs, ReportArgs};
use super::Outcome;
use crate::jobs::explain::{explain, Explanation, RemovedPage};
use crate::report::diff::{Diff, Side};

/// `neardup report OUT`.
pub fn report(a: ReportArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let r = crate::jobs::report::report(&a.output, a.shard_dir.as_deref())?;
    if !quiet {
        say!(
            "wrote {} ({:.1} MB, {} pairs shown{}, {} sites) in {:.2} s",
            a.output.join(crate::report::page::NAME).display(),
            r.bytes as f64 / 1e6,
            r.pairs,
            if r.pairs_without_text > 0 {
                format!(", {} without their texts", r.pairs_without_text)
            } else {
                String::new()
            },
            r.sites,
            r.seconds
        );
    }
    Ok(Outcome::Clean)
}

/// The diff as text: words only in the removed page as `[-...-]`, only in the kept page as
/// `{+...+}` (as `git diff --word-diff` writes them), or in red and green on a terminal.
pub fn diff_text(d: &Diff, colour: bool) -> String {
    let mut out = String::new();
    for p in &d.parts {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push(' ');
        }
        let text = if p.elided > 0 {
            format!("{} [... {} shared words ...] {}", p.text, p.elided, p.tail)
        } else {
            p.text.clone()
        };
        match (p.side, colour) {
            (Side::Both, _) => out.push_str(&text),
            (Side::Old, true) => out.push_str(&format!("\x1b[31;9m{text}\x1b[0m")),
            (Side::New, true) => out.push_str(&format!("\x1b[32m{text}\x1b[0m")),
            (Side::Old, false) => out.push_str(&format!("[-{text}-]")),
            (Side::New, false) => out.push_str(&format!("{{+{text}+}}")),
        }
    }
    out
}

fn score(s: Option<f64>) -> String {
    s.map_or_else(|| "not verified".into(), |s| format!("{s:.4}"))
}

/// `neardup explain OUT ID`.
pub fn run(a: ExplainArgs) -> anyhow::Result<Outcome> {
    let e = explain(&a.output, &a.id, a.shard_dir.as_deref())?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&e)?);
        return Ok(Outcome::Clean);
    }
    match &e {
        Explanation::Unknown { id } => {
            anyhow::bail!(
                "{id:?} is not a document of the run in {} (ids as keep.txt and remove.tsv write them)",
                a.output.display()
            )
        }
        Explanation::Excluded { id, url, reason } => {
            println!("kept, excluded from the join: {id} {url}\nreason: {reason}");
        }
        Explanation::Kept {
            id,
            url,
            removed_for_it,
        } => {
            println!("kept: {id} {url}");
            if removed_for_it.is_empty() {
                println!("no page was removed for it");
            } else {
                println!("{} pages removed for it:", removed_for_it.len());
                for r in removed_for_it {
                    println!("  {}  score {}  {}", r.id, score(r.score), r.url);
                }
            }
        }
        Explanation::Removed(r) => {
            let RemovedPage {
                id,
                url,
                kept,
                kept_url,
                score: s,
                rule,
                hamming64,
                group,
                candidates: c,
                diff,
                note,
            } = &**r;
            println!("removed: {id} {url}");
            println!("kept:    {kept} {kept_url} (a group of {group})");
            println!(
                "score:   {}{}",
                score(*s),
                rule.as_ref()
                    .map_or(String::new(), |r| format!(" (passes {r})"))
            );
            let bands = match (&c.shared_bands, c.bands) {
                (Some(b), Some(n)) => format!(
                    "{} of {n} MinHash band keys shared ({}); ",
                    b.len(),
                    b.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => String::new(),
            };
            println!(
                "candidates: {bands}SimHash distance {}{}",
                c.simhash64_distance,
                hamming64.map_or(String::new(), |h| format!(" (the list's: {h})"))
            );
            if !c.plan.is_empty() {
                println!("            {}", c.plan);
            }
            if let Some(d) = diff {
                println!(
                    "diff, removed -> kept: {} shared words; {} words in the removed page, {} in the kept page{}",
                    d.shared_words,
                    d.old_words,
                    d.new_words,
                    if d.cut_words > 0 { format!("; {} more words not shown", d.cut_words) } else { String::new() }
                );
                println!("{}", diff_text(d, std::io::stdout().is_terminal()));
            }
            if let Some(n) = note {
                println!("no diff: {n}");
            }
        }
    }
    Ok(Outcome::Clean)
}
