//! Structured fuzzing of every parser: the WARC record parser (whole and streaming), the gzip
//! member walker and its window, HTTP heads, the HTML scanner, JSON lines (plain and gzip) and
//! the store reader. Each property runs on generated inputs built from the pieces real damage
//! is made of (records with right, wrong or missing lengths, junk, flipped and cut bytes,
//! damaged columns), checks that nothing panics or loops, and that what was intact is found.
//!
//! `cargo test` runs a few dozen cases of each; CI runs more in a bounded time with
//! `NEARDUP_FUZZ_CASES` (see README, "Reliability").

use std::io::Write;

use neardup::corpus::warc::{Parser, Step};
use neardup::corpus::{discover, gzip, http, read_unit, Document, ReadOptions, Sink, Skip};
use neardup::fingerprint::store::{Row, Store, StoreWriter};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("NEARDUP_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32)
}

#[derive(Default)]
struct Collect {
    ids: Vec<String>,
    skips: Vec<Skip>,
}

impl Sink for Collect {
    fn document(&mut self, doc: Document<'_>) {
        self.ids.push(doc.id.into_owned());
    }
    fn skip(&mut self, skip: Skip, _: u64, _: &str) {
        self.skips.push(skip);
    }
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Bytes drawn from the pieces WARC damage is made of.
fn nasty_bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    let atom = prop_oneof![
        Just(b"WARC/1.0\r\n".to_vec()),
        Just(b"\nWARC/".to_vec()),
        Just(b"\r\n\r\n".to_vec()),
        Just(b"\n\n".to_vec()),
        Just(b"Content-Length: ".to_vec()),
        Just(b"WARC-Type: response\r\n".to_vec()),
        Just(b"HTTP/1.1 200 OK\r\n".to_vec()),
        Just(vec![0x1f, 0x8b, 0x08, 0]),
        (0u32..99_999).prop_map(|n| n.to_string().into_bytes()),
        prop::collection::vec(any::<u8>(), 0..24),
    ];
    prop::collection::vec(atom, 0..max).prop_map(|v| v.concat())
}

/// A well-formed response record with id `urn:N`.
fn record(n: usize, body: &[u8], lf: bool) -> Vec<u8> {
    let nl = if lf { "\n" } else { "\r\n" };
    let mut block = format!("HTTP/1.1 200 OK{nl}Content-Type: text/html{nl}{nl}").into_bytes();
    block.extend_from_slice(body);
    let mut r = format!(
        "WARC/1.0{nl}WARC-Type: response{nl}WARC-Record-ID: <urn:{n}>{nl}Content-Length: {}{nl}{nl}",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(&block);
    r.extend_from_slice(format!("{nl}{nl}").as_bytes());
    r
}

/// Bodies that hold record-like lines (a record's declared length must carry it over them).
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"<p>plain</p>".to_vec()),
        Just(b"quoted\nWARC/1.0\r\nWARC-Type: response\r\n\r\n".to_vec()),
        prop::collection::vec(any::<u8>(), 0..300),
    ]
}

/// Parses `data` whole, then streamed in chunks of `step` bytes; returns both record lists
/// (a record over the limit, streamed, only drops the window here).
fn parse_both(data: &[u8], step: usize) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut whole = Vec::new();
    let mut p = Parser::new(1 << 20);
    let mut pos = 0;
    let mut guard = 0;
    loop {
        guard += 1;
        assert!(guard < 10 * data.len() + 10, "no progress");
        match p.next(&data[pos..], true) {
            Step::Record(r) => {
                assert!(r.consumed > 0);
                whole.push(r.body.to_vec());
                pos += r.consumed;
            }
            Step::Skip(n, _) => pos += n.max(1),
            Step::End | Step::NeedMore | Step::TooLarge(_) => break,
        }
        if pos >= data.len() {
            break;
        }
    }
    let mut streamed = Vec::new();
    let mut p = Parser::new(1 << 20);
    let (mut pos, mut avail) = (0usize, 0usize);
    let mut guard = 0;
    loop {
        guard += 1;
        assert!(guard < 10 * data.len() + 10, "no progress");
        let eof = avail >= data.len();
        let window = &data[pos..avail.min(data.len())];
        match p.next(window, eof) {
            Step::Record(r) => {
                streamed.push(r.body.to_vec());
                pos += r.consumed;
            }
            Step::Skip(n, _) => pos += n.max(1),
            Step::NeedMore if !eof => avail += step,
            // A declared length over the limit (digits run together): the window is dropped.
            Step::TooLarge(_) => pos = avail.min(data.len()),
            _ => break,
        }
        if eof && pos >= data.len() {
            break;
        }
    }
    (whole, streamed)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Any bytes: the parser ends, whole or streamed in any chunk size.
    #[test]
    fn warc_parser_survives_anything(data in nasty_bytes(60), step in 1usize..300) {
        parse_both(&data, step);
    }

    /// Records between runs of junk (junk that ends its line): every record is found, in
    /// order, whole and streamed alike.
    #[test]
    fn warc_parser_finds_every_record_between_junk(
        pieces in prop::collection::vec((body(), any::<bool>(), prop::collection::vec(b'a'..=b'z', 0..40)), 1..12),
        step in 1usize..500,
    ) {
        let mut data = Vec::new();
        let mut want = Vec::new();
        for (i, (b, lf, junk)) in pieces.iter().enumerate() {
            if !junk.is_empty() {
                data.extend_from_slice(junk);
                data.push(b'\n');
            }
            let r = record(i, b, *lf);
            data.extend_from_slice(&r);
            want.push(i);
        }
        let (whole, streamed) = parse_both(&data, step);
        prop_assert_eq!(whole.len(), want.len());
        prop_assert_eq!(&whole, &streamed);
    }

    /// Gzip members, some damaged (flipped bytes, a smashed header, junk between members, a
    /// cut-off end): every record of an untouched member is found, no record is invented, and
    /// the window stays within its bound.
    #[test]
    fn gzip_members_survive_damage(
        bodies in prop::collection::vec(body(), 1..10),
        damage in prop::collection::vec((0usize..10, any::<u16>(), any::<u8>(), 0u8..4), 0..4),
        cut in prop::option::of(any::<u16>()),
    ) {
        let members: Vec<Vec<u8>> = bodies
            .iter()
            .enumerate()
            .map(|(i, b)| gz(&record(i, b, false)))
            .collect();
        let mut damaged = vec![false; members.len()];
        let mut parts = members.clone();
        for (m, at, byte, kind) in &damage {
            let m = m % parts.len();
            let len = parts[m].len();
            if len == 0 {
                continue;
            }
            let at = *at as usize % len;
            damaged[m] = true;
            match kind {
                0 => parts[m][at] ^= byte | 1,
                1 => parts[m][0] = *byte ^ 0x1f ^ 1,
                2 => parts[m].splice(0..0, std::iter::repeat_n(*byte | 1, 1 + at % 64)).for_each(drop),
                _ => parts[m].truncate(at),
            }
        }
        let mut file = parts.concat();
        if let Some(c) = cut.filter(|_| !file.is_empty()) {
            let c = file.len() - (c as usize % file.len());
            file.truncate(c);
            let mut end = 0;
            for (i, p) in parts.iter().enumerate() {
                end += p.len();
                if end > c {
                    damaged[i] = true;
                }
            }
        }
        let mut sink = Collect::default();
        let peak = gzip::read_members(&file, 0, 1 << 20, &mut sink);
        prop_assert!(peak <= (1 << 20) + (2 << 20));
        let all: Vec<String> = (0..members.len()).map(|i| format!("urn:{i}")).collect();
        for id in &sink.ids {
            prop_assert!(all.contains(id), "invented {}", id);
        }
        for (i, d) in damaged.iter().enumerate() {
            if !d {
                prop_assert!(sink.ids.contains(&all[i]), "lost intact member {}: {:?}", i, sink.ids);
            }
        }
    }

    /// HTTP heads: any bytes parse or are refused without a panic; generated heads give their
    /// status and payload back.
    #[test]
    fn http_heads(
        junk in nasty_bytes(20),
        status in 100u16..600,
        lf in any::<bool>(),
        headers in prop::collection::vec(("[A-Za-z-]{1,12}", "[ -~]{0,30}"), 0..6),
        payload in prop::collection::vec(any::<u8>(), 0..100),
    ) {
        let _ = http::parse(&junk);
        let nl = if lf { "\n" } else { "\r\n" };
        let mut head = format!("HTTP/1.1 {status} Reason{nl}");
        for (k, v) in &headers {
            head.push_str(&format!("{k}: {}{nl}", v.trim()));
        }
        head.push_str(nl);
        let mut block = head.clone().into_bytes();
        block.extend_from_slice(&payload);
        match http::parse(&block) {
            Some(Ok(h)) => {
                prop_assert_eq!(h.status, status);
                prop_assert_eq!(&block[h.payload_start..], &payload[..]);
            }
            other => prop_assert!(false, "{:?} for {:?}", other.map(|r| r.is_ok()), head),
        }
    }

    /// The HTML scanner: any markup ends without a panic; words in text survive, words inside
    /// script, style and comments do not.
    #[test]
    fn html_scanner(
        nodes in prop::collection::vec((0u8..8, 0u32..1000), 0..40),
        noise in "[<>!/a-z\"'=&#;-]{0,80}",
    ) {
        let mut out = String::new();
        neardup::text::html::to_text(&noise, &mut out);
        let mut html = String::from("<html><body>");
        let (mut shown, mut hidden) = (Vec::new(), Vec::new());
        for (kind, n) in &nodes {
            match kind {
                0 | 1 => {
                    html.push_str(&format!(" shown{n} "));
                    shown.push(format!("shown{n}"));
                }
                2 => html.push_str(&format!("<script>var hidden{n} = '<p>';</script>")),
                3 => html.push_str(&format!("<style>.hidden{n} {{}}</style>")),
                4 => html.push_str(&format!("<!-- hidden{n} -->")),
                5 => html.push_str("<p class=\"a\">"),
                6 => html.push_str("<br/>&amp;&#65;&lt;"),
                _ => html.push_str("</div>"),
            }
            if (2..=4).contains(kind) {
                hidden.push(format!("hidden{n}"));
            }
        }
        let mut text = String::new();
        neardup::text::html::to_text(&html, &mut text);
        for w in &shown {
            prop_assert!(text.contains(w.as_str()), "{} missing from {:?}", w, text);
        }
        for w in &hidden {
            prop_assert!(!text.contains(w.as_str()), "{} shown in {:?}", w, text);
        }
    }

    /// JSON lines, plain and gzip: good lines are read in order whatever lies between them
    /// (broken JSON, invalid UTF-8, blank lines, CRLF, lines over the limit).
    #[test]
    fn jsonl_lines(
        lines in prop::collection::vec((0u8..6, nasty_bytes(6)), 1..20),
        crlf in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut data = Vec::new();
        let mut want = Vec::new();
        for (i, (kind, junk)) in lines.iter().enumerate() {
            match kind {
                0 | 1 => {
                    data.extend_from_slice(format!("{{\"id\": \"j{i}\", \"text\": \"words {i}\"}}").as_bytes());
                    want.push(format!("j{i}"));
                }
                // Junk that looks like no format (a file's first line decides its format).
                2 => {
                    data.push(b'~');
                    data.extend(junk.iter().filter(|b| **b != b'\n'));
                }
                3 => data.extend_from_slice(b"{\"id\": \"x\", \"text\": \"caf\xe9\""),
                4 => data.extend_from_slice(format!("{{\"id\": \"big\", \"text\": \"{}\"}}", "a".repeat(5000)).as_bytes()),
                _ => {}
            }
            data.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        for (name, bytes) in [("a.jsonl", data.clone()), ("a.jsonl.gz", gz(&data))] {
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            let opts = ReadOptions { max_record: 4096, ..ReadOptions::default() };
            let found = discover(std::slice::from_ref(&path), &opts);
            let mut sink = Collect::default();
            for u in &found.units {
                read_unit(u, &found.shards, &opts, &mut sink).unwrap();
            }
            let got: Vec<String> = sink.ids.iter().filter(|i| i.starts_with('j')).cloned().collect();
            prop_assert_eq!(&got, &want, "{}", name);
        }
    }

    /// The store reader: a store with a damaged column, index or manifest is refused or read
    /// without a panic, every column and string of it.
    #[test]
    fn store_reader_survives_damage(
        ids in prop::collection::vec("[a-z#]{0,6}", 0..12),
        file in 0usize..13,
        op in 0u8..4,
        at in any::<u32>(),
        byte in any::<u8>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s");
        let mut w = StoreWriter::create(&path, false).unwrap();
        for (i, id) in ids.iter().enumerate() {
            w.push(&Row { id: id.clone(), url: format!("u{i}"), fp64: i as u64, ..Row::default() }).unwrap();
        }
        w.finish(neardup::fingerprint::store::Manifest::new(
            Default::default(), Default::default(), Default::default(), vec![],
        )).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()).collect();
        names.sort();
        let target = &names[file % names.len()];
        let mut bytes = std::fs::read(target).unwrap();
        let at = if bytes.is_empty() { 0 } else { at as usize % bytes.len() };
        match op {
            0 => bytes.truncate(at),
            1 if !bytes.is_empty() => bytes[at] ^= byte | 1,
            2 => bytes.splice(at..at, [byte; 8]).for_each(drop),
            _ => bytes = bytes.iter().map(|b| if b.is_ascii_digit() { b'9' } else { *b }).collect(),
        }
        std::fs::write(target, &bytes).unwrap();
        if let Ok(s) = Store::open(&path) {
            for i in 0..s.len() {
                let _ = (s.id(i), s.url(i));
            }
            let _ = (s.fp64().len(), s.fp128().len(), s.flags().len(), s.source().len());
            let _ = (s.text_len().len(), s.terms().len(), s.content_hash().len());
        }
    }
}
