//! TREC runs (`qid Q0 docno rank score tag`) and qrels (`qid iter docno rel`), read leniently:
//! fields split on any whitespace, trailing fields ignored, blank lines and `#` comments
//! skipped. A line that cannot be read is reported by line number and skipped; nothing else in
//! the file is lost.

use std::fmt::Write as _;
use std::path::Path;

use crate::{Error, Result};

/// One line of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunEntry {
    /// Topic.
    pub qid: String,
    /// Document id.
    pub docno: String,
    /// The rank as written (trec_eval orders by score, not by it).
    pub rank: i64,
    /// Retrieval score.
    pub score: f64,
    /// Run tag.
    pub tag: String,
}

/// One line of a qrels file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Qrel {
    /// Topic.
    pub qid: String,
    /// The iteration field, kept as written (usually `0`).
    pub iter: String,
    /// Document id.
    pub docno: String,
    /// Relevance grade; above 0 is relevant.
    pub rel: i32,
}

/// A line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BadLine {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub reason: String,
}

/// A file's readable lines and the ones that were not.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed<T> {
    /// Lines read, in file order.
    pub entries: Vec<T>,
    /// Lines skipped.
    pub bad: Vec<BadLine>,
}

impl<T> Default for Parsed<T> {
    fn default() -> Self {
        Parsed {
            entries: Vec::new(),
            bad: Vec::new(),
        }
    }
}

fn lines(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, f)| !f.is_empty() && !f[0].starts_with('#'))
}

/// Reads a run from its text.
pub fn parse_run(text: &str) -> Parsed<RunEntry> {
    let mut p = Parsed::default();
    for (line, f) in lines(text) {
        let bad = |reason: &str| BadLine {
            line,
            reason: reason.to_string(),
        };
        if f.len() < 6 {
            p.bad
                .push(bad("fewer than 6 fields (qid Q0 docno rank score tag)"));
            continue;
        }
        let Ok(rank) = f[3].parse::<i64>() else {
            p.bad
                .push(bad(&format!("rank {:?} is not an integer", f[3])));
            continue;
        };
        let score = match f[4].parse::<f64>() {
            Ok(s) if s.is_finite() => s,
            _ => {
                p.bad
                    .push(bad(&format!("score {:?} is not a finite number", f[4])));
                continue;
            }
        };
        p.entries.push(RunEntry {
            qid: f[0].to_string(),
            docno: f[2].to_string(),
            rank,
            score,
            tag: f[5].to_string(),
        });
    }
    p
}

/// Reads qrels from their text.
pub fn parse_qrels(text: &str) -> Parsed<Qrel> {
    let mut p = Parsed::default();
    for (line, f) in lines(text) {
        if f.len() < 4 {
            p.bad.push(BadLine {
                line,
                reason: "fewer than 4 fields (qid iter docno rel)".into(),
            });
            continue;
        }
        let Ok(rel) = f[3].parse::<i32>() else {
            p.bad.push(BadLine {
                line,
                reason: format!("relevance {:?} is not an integer", f[3]),
            });
            continue;
        };
        p.entries.push(Qrel {
            qid: f[0].to_string(),
            iter: f[1].to_string(),
            docno: f[2].to_string(),
            rel,
        });
    }
    p
}

/// What a file holds, told from its first readable line: 6 or more fields is a run, 4 or 5 a
/// qrels file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A run.
    Run,
    /// Qrels.
    Qrels,
}

/// The kind of `text`, None when it has no line to tell by.
pub fn kind(text: &str) -> Option<Kind> {
    lines(text)
        .next()
        .map(|(_, f)| if f.len() >= 6 { Kind::Run } else { Kind::Qrels })
}

/// First of the 128 private-use characters that stand for bytes 0x80..=0xFF that are not part
/// of UTF-8 (as Python's `surrogateescape` does with surrogates, which Rust strings cannot hold).
const RAW: u32 = 0x10_FF80;

/// Reads a file as text, naming it on failure. A byte that is not part of UTF-8 (a docid in
/// Latin-1, say) is kept: it stands as a private-use character that [`bytes`] writes back as
/// the byte it was, so a run or qrels file written again matches the one read.
pub fn read(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(decode(&bytes))
}

/// `bytes` as text, each byte that is not part of UTF-8 kept as its stand-in character.
pub fn decode(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        s.push_str(chunk.valid());
        for &b in chunk.invalid() {
            s.push(char::from_u32(RAW + u32::from(b - 0x80).min(0x7F)).expect("a valid char"));
        }
    }
    s
}

/// Text made by [`decode`] as the bytes it was read from.
pub fn bytes(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match u32::from(c) {
            u @ RAW..=0x10_FFFF => out.push((u - RAW + 0x80) as u8),
            _ => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

/// Topics in order of first appearance, each with the indices of its entries.
pub fn topics<T>(entries: &[T], qid: impl Fn(&T) -> &str) -> Vec<(String, Vec<usize>)> {
    let mut order: Vec<(String, Vec<usize>)> = Vec::new();
    let mut at = std::collections::HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        let q = qid(e);
        let k = *at.entry(q.to_string()).or_insert_with(|| {
            order.push((q.to_string(), Vec::new()));
            order.len() - 1
        });
        order[k].1.push(i);
    }
    order
}

/// A topic's entries in the order trec_eval ranks them: score descending, then docno
/// descending (trec_eval's tie-break). Returns indices into `entries`.
pub fn ranked(entries: &[RunEntry], topic: &[usize]) -> Vec<usize> {
    let mut o = topic.to_vec();
    o.sort_by(|a, b| {
        let (a, b) = (&entries[*a], &entries[*b]);
        b.score
            .total_cmp(&a.score)
            .then_with(|| b.docno.cmp(&a.docno))
    });
    o
}

/// Writes a run: one line per entry, as given.
pub fn run_text(entries: &[RunEntry]) -> String {
    let mut s = String::new();
    for e in entries {
        let _ = writeln!(
            s,
            "{} Q0 {} {} {} {}",
            e.qid, e.docno, e.rank, e.score, e.tag
        );
    }
    s
}

/// Writes qrels: one line per record, as given.
pub fn qrels_text(entries: &[Qrel]) -> String {
    let mut s = String::new();
    for q in entries {
        let _ = writeln!(s, "{} {} {} {}", q.qid, q.iter, q.docno, q.rel);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_read_leniently_and_bad_lines_are_numbered() {
        let text = "1 Q0 d1 1 9.5 tagA\n\n# comment\n1\tQ0\td2\t2\t8 tagA extra\n1 Q0 d3 x 7 t\n1 Q0 d4 4 nan t\n2 Q0 d5\n2 Q0 d6 1 1e3 t\n";
        let p = parse_run(text);
        let docs: Vec<&str> = p.entries.iter().map(|e| e.docno.as_str()).collect();
        assert_eq!(docs, ["d1", "d2", "d6"]);
        assert_eq!(p.entries[2].score, 1000.0);
        let lines: Vec<usize> = p.bad.iter().map(|b| b.line).collect();
        assert_eq!(lines, [5, 6, 7]);
        assert_eq!(kind(text), Some(Kind::Run));
        let round = parse_run(&run_text(&p.entries));
        assert_eq!(round.entries, p.entries);
    }

    #[test]
    fn qrels_read_leniently_and_bad_lines_are_numbered() {
        let text = "301 0 a 2\n301 0 b\n301 0 c high\n302\t0\td\t-1\textra\n";
        let p = parse_qrels(text);
        assert_eq!(p.entries.len(), 2);
        assert_eq!(p.entries[1].rel, -1);
        assert_eq!(p.bad.iter().map(|b| b.line).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(kind(text), Some(Kind::Qrels));
        assert_eq!(parse_qrels(&qrels_text(&p.entries)).entries, p.entries);
    }

    #[test]
    fn ranked_follows_trec_eval() {
        let p = parse_run("1 Q0 a 1 1 t\n1 Q0 b 2 3 t\n1 Q0 c 3 3 t\n1 Q0 d 4 2 t\n");
        let t = topics(&p.entries, |e| &e.qid);
        let o: Vec<&str> = ranked(&p.entries, &t[0].1)
            .iter()
            .map(|i| p.entries[*i].docno.as_str())
            .collect();
        assert_eq!(o, ["c", "b", "d", "a"]);
    }

    #[test]
    fn bytes_that_are_not_utf8_are_written_back_as_they_were() {
        let raw: &[u8] = b"1 Q0 caf\xe9-\xff\x80 1 2.5 tag\n2 Q0 \xc3\xa9t\xc3 1 1 tag\n";
        let text = decode(raw);
        let p = parse_run(&text);
        assert_eq!(p.entries.len(), 2);
        assert_ne!(p.entries[0].docno, p.entries[1].docno);
        assert_eq!(bytes(&run_text(&p.entries)), raw);
        assert_eq!(bytes("plain é"), "plain é".as_bytes());
    }
}
