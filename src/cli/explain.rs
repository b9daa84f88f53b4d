//! `neardup report` and `neardup explain`: the page of an earlier run written again, and one
//! page's answer printed (a word diff in the terminal, coloured when it is one).

use std::fmt::Write as _;
use std::io::IsTerminal;

use super::args::{ExplainArgs, ReportArgs};
use super::Outcome;
use crate::base::shown::{terminal, terminal_text};
use crate::jobs::explain::{
    explain, explain_pair, Candidates, Explanation, OwnCompared, PairAnswer, PairPage, RemovedPage,
};
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
        // The page's words are shown escaped; only the colours are obeyed.
        let text = if p.elided > 0 {
            format!(
                "{} [... {} shared words ...] {}",
                terminal_text(&p.text),
                p.elided,
                terminal_text(&p.tail)
            )
        } else {
            terminal_text(&p.text).into_owned()
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

/// `neardup explain OUT ID [OTHER]`.
pub fn run(a: ExplainArgs) -> anyhow::Result<Outcome> {
    let e = match &a.other {
        Some(other) => explain_pair(&a.output, &a.id, other, a.shard_dir.as_deref())?,
        None => explain(&a.output, &a.id, a.shard_dir.as_deref())?,
    };
    if a.json {
        print(&format!("{}\n", serde_json::to_string_pretty(&e)?))?;
        // An id that is no document of the run fails as it does without --json.
        return Ok(match e {
            Explanation::Unknown { .. } => Outcome::Partial,
            _ => Outcome::Clean,
        });
    }
    let mut o = String::new();
    // Ids, URLs and texts come from the crawl: shown, never obeyed, by a terminal.
    let t = |s: &str| terminal(s).into_owned();
    match &e {
        Explanation::Unknown { id, names } => {
            let hint = if names.is_empty() {
                String::new()
            } else {
                format!(
                    "; the id is repeated in the crawl, and the run names its documents {}",
                    names.iter().map(|n| t(n)).collect::<Vec<_>>().join(", ")
                )
            };
            anyhow::bail!(
                "{} is not a document of the run in {} (ids as keep.txt and remove.tsv write them){hint}",
                t(&format!("{id:?}")),
                a.output.display()
            )
        }
        Explanation::Excluded { id, url, reason } => {
            writeln!(
                o,
                "kept, excluded from the join: {} {}\nreason: {reason}",
                t(id),
                t(url)
            )?;
        }
        Explanation::Kept {
            id,
            url,
            removed_for_it,
        } => {
            writeln!(o, "kept: {} {}", t(id), t(url))?;
            if removed_for_it.is_empty() {
                writeln!(o, "no page was removed for it")?;
            } else {
                writeln!(o, "{} pages removed for it:", removed_for_it.len())?;
                for r in removed_for_it {
                    writeln!(o, "  {}  score {}  {}", t(&r.id), score(r.score), t(&r.url))?;
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
                own_content,
            } = &**r;
            writeln!(o, "removed: {} {}", t(id), t(url))?;
            writeln!(
                o,
                "kept:    {} {} (a group of {group})",
                t(kept),
                t(kept_url)
            )?;
            writeln!(
                o,
                "score:   {}{}",
                score(*s),
                rule.as_ref()
                    .map_or(String::new(), |r| format!(" (passes {r})"))
            )?;
            writeln!(
                o,
                "candidates: {}{}",
                candidates_text(c),
                hamming64.map_or(String::new(), |h| format!(" (the list's: {h})"))
            )?;
            if !c.plan.is_empty() {
                writeln!(o, "            {}", c.plan)?;
            }
            compared_text(
                &mut o,
                own_content.as_ref(),
                diff.as_ref(),
                note.as_deref(),
                ["removed", "kept"],
            )?;
        }
        Explanation::Pair(p) => pair_text(&mut o, p)?,
    }
    print(&o)?;
    Ok(Outcome::Clean)
}

/// How two pages became candidates, in words: the band keys and own lines they share, and
/// their SimHash distance.
fn candidates_text(c: &Candidates) -> String {
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
    let own_lines = match c.own_lines_shared {
        Some(n) if n > 0 => format!("{n} lines of their own shared; "),
        _ => String::new(),
    };
    format!(
        "{bands}{own_lines}SimHash distance {}",
        c.simhash64_distance
    )
}

/// What verification compared of two pages (`names`: how the answer calls the first and the
/// second), their site's lines, and the diff of the texts compared.
fn compared_text(
    o: &mut String,
    own_content: Option<&OwnCompared>,
    diff: Option<&Diff>,
    note: Option<&str>,
    [first, second]: [&str; 2],
) -> anyhow::Result<()> {
    let t = |s: &str| terminal(s).into_owned();
    if let Some(w) = own_content {
        writeln!(
            o,
            "compared: {} (set aside as their site's: {} lines, {} words of the {first} page; {} lines, {} words of the {second} page)",
            w.compared,
            w.removed_lines_aside,
            w.removed_words_aside,
            w.kept_lines_aside,
            w.kept_words_aside
        )?;
        let whole: Vec<String> = [(w.removed_read_whole, first), (w.kept_read_whole, second)]
            .iter()
            .filter(|x| x.0)
            .map(|x| format!("the {} page", x.1))
            .collect();
        if !whole.is_empty() {
            writeln!(
                o,
                "  read whole (main content under 20 words or a sliver of the page, no own content): {}",
                whole.join(", ")
            )?;
        }
        for l in &w.site_lines {
            writeln!(o, "  site's: {}", t(l))?;
        }
    }
    if let Some(d) = diff {
        writeln!(
            o,
            "diff, {first} -> {second}: {} shared words; {} words in the {first} page, {} in the {second} page{}",
            d.shared_words,
            d.old_words,
            d.new_words,
            if d.cut_words > 0 {
                format!("; {} more words not shown", d.cut_words)
            } else {
                String::new()
            }
        )?;
        writeln!(o, "{}", diff_text(d, std::io::stdout().is_terminal()))?;
    }
    if let Some(n) = note {
        writeln!(o, "no diff: {}", terminal_text(n))?;
    }
    Ok(())
}

/// A pair's answer as text.
fn pair_text(o: &mut String, p: &PairAnswer) -> anyhow::Result<()> {
    let t = |s: &str| terminal(s).into_owned();
    let page = |o: &mut String, label: &str, x: &PairPage| -> anyhow::Result<()> {
        let what = match (&x.removed_for, &x.reason) {
            (Some(k), _) => format!("removed for {}", t(k)),
            (None, Some(r)) => format!("kept, excluded from the join ({})", t(r)),
            (None, None) => "kept".into(),
        };
        writeln!(o, "{label} {} {}: {what}", t(&x.id), t(&x.url))?;
        Ok(())
    };
    page(o, "first: ", &p.first)?;
    page(o, "second:", &p.second)?;
    writeln!(
        o,
        "the run {} them together",
        if p.together { "put" } else { "did not put" }
    )?;
    writeln!(
        o,
        "verdict: {} ({}: {:.4}, the rule {})",
        if p.near_duplicates {
            "near-duplicates"
        } else {
            "not near-duplicates"
        },
        p.compared,
        p.score,
        p.rule
    )?;
    writeln!(o, "  why: {}", p.why)?;
    if let Some(s) = &p.parts {
        writeln!(
            o,
            "  own content s3 {:.4} ({} and {} shingles); whole pages s3 {:.4}{}",
            s.own_s3,
            s.own_shingles[0],
            s.own_shingles[1],
            s.whole_s3,
            s.own_words_s3
                .map_or(String::new(), |w| format!("; own words s3 {w:.4}"))
        )?;
    }
    writeln!(o, "candidates: {}", candidates_text(&p.candidates))?;
    if !p.candidates.plan.is_empty() {
        writeln!(o, "            {}", p.candidates.plan)?;
    }
    compared_text(
        o,
        p.own_content.as_ref(),
        p.diff.as_ref(),
        p.note.as_deref(),
        ["first", "second"],
    )
}

/// Writes `s` to stdout: a closed pipe (`explain ... | head`) is an error that `main` reads
/// as success, not a panic.
fn print(s: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())?;
    out.flush()?;
    Ok(())
}
