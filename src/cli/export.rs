//! `neardup export`: fingerprints out of one or more stores, in store order.

use std::io::Write;

use anyhow::Context;

use super::args::{ExportArgs, ExportFormat};
use super::output;
use super::Outcome;
use crate::fingerprint::store::{open_many, Store};
use crate::report::lists::tsv_field;

/// Picks the format from `--format` or the output's extension.
fn format_of(a: &ExportArgs) -> anyhow::Result<ExportFormat> {
    if let Some(f) = a.format {
        return Ok(f);
    }
    // Standard output has no name to tell by: text, which a terminal or a pipe reads.
    if a.output.as_os_str() == "-" {
        return Ok(ExportFormat::Tsv);
    }
    match a.output.extension().and_then(|e| e.to_str()) {
        Some("tsv") => Ok(ExportFormat::Tsv),
        Some("u64") => Ok(ExportFormat::U64),
        _ => anyhow::bail!(
            "cannot tell the format of {}: use a .tsv or .u64 name, or --format",
            a.output.display()
        ),
    }
}

/// Writes every store's rows to `w`.
pub fn write(stores: &[Store], format: ExportFormat, w: &mut dyn Write) -> std::io::Result<()> {
    if format == ExportFormat::Tsv {
        writeln!(w, "id\turl\tsimhash64\tsimhash128\ttext_len")?;
    }
    for s in stores {
        match format {
            ExportFormat::U64 => {
                for fp in s.fp64() {
                    w.write_all(&fp.to_le_bytes())?;
                }
            }
            ExportFormat::Tsv => {
                let (fp64, fp128, len) = (s.fp64(), s.fp128(), s.text_len());
                for i in 0..s.len() {
                    writeln!(
                        w,
                        "{}\t{}\t{:016x}\t{:016x}{:016x}\t{}",
                        tsv_field(s.id(i)),
                        tsv_field(s.url(i)),
                        fp64[i],
                        fp128[i][1],
                        fp128[i][0],
                        len[i]
                    )?;
                }
            }
        }
    }
    w.flush()
}

/// Runs the command.
pub fn run(a: ExportArgs) -> anyhow::Result<Outcome> {
    let format = format_of(&a)?;
    crate::jobs::spec::outside_stores(&a.output, &a.stores)?;
    let stores = open_many(&a.stores)?;
    let mut w = output::create(&a.output)?;
    write(&stores, format, &mut w)
        .with_context(|| format!("cannot write {}", a.output.display()))?;
    w.finish()?;
    Ok(Outcome::Clean)
}
