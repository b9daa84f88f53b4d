//! `neardup text`: each document's text as neardup reads it, one JSON line each.

use super::args::TextArgs;
use super::Outcome;
use crate::corpus::ReadOptions;
use crate::jobs::text::{texts, TextJob};

pub fn run(a: TextArgs, quiet: bool) -> anyhow::Result<Outcome> {
    let job = TextJob {
        inputs: a.inputs,
        read: ReadOptions {
            follow: a.follow,
            ..ReadOptions::default()
        },
        mode: a.text,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout);
    let (counts, errors, outcome) = texts(&job, &mut out)?;
    std::io::Write::flush(&mut out)?;
    for e in &errors {
        say_warning!("{e}");
    }
    if !quiet {
        say!(
            "{} documents ({} read whole for lack of main content), {} records skipped",
            counts.documents,
            counts.full_text,
            counts.skipped
        );
    }
    Ok(outcome)
}
