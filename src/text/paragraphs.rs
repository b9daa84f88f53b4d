//! Paragraph chunks: the units of content reuse below the page.
//!
//! A chunk is one line of a document's normalised text. HTML becomes text with a line break at
//! every block element (`p`, `div`, `li`, `td`, `br`, headings, ...; see [`super::html`]) and
//! plain text keeps its own line breaks, so a chunk is a paragraph, a list item, a table cell,
//! a heading: the paragraph chunking of content-reuse detection, applied after extraction so
//! that markup and whitespace do not tell copies apart. Whitespace-only paragraphs never reach
//! a chunk (normalisation drops empty lines).
//!
//! Each chunk is hashed exactly with XXH3-128. At the 40.5 billion chunks of a web-scale crawl,
//! the expected number of colliding pairs among distinct chunks is at most
//! n^2 / 2^129 = (4.05e10)^2 / 6.8e38, about 2.4e-18: no collision is to be expected. A 64-bit
//! hash would give about 44 (n^2 / 2^65), so 128 bits it is.

use xxhash_rust::xxh3::xxh3_128;

/// The chunks of normalised `text`, in order (one per line; never empty).
pub fn chunks(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n').filter(|c| !c.is_empty())
}

/// The hash of one chunk.
#[inline]
pub fn chunk_hash(chunk: &str) -> u128 {
    xxh3_128(chunk.as_bytes())
}

/// Appends the hash of every chunk of `text` to `out`, in order.
pub fn chunk_hashes(text: &str, out: &mut Vec<u128>) {
    out.extend(chunks(text).map(chunk_hash));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;
    use crate::text::extract::{payload_text, TextMode};

    /// A plain reference for paragraph chunking of the HTML `random_html` makes: block tags
    /// end a paragraph, inline tags vanish, `script` content is dropped, the few entities used
    /// are decoded, and whitespace is collapsed within each paragraph.
    fn reference(html: &str) -> Vec<String> {
        let mut paragraphs = vec![String::new()];
        let mut rest = html;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix("<script>") {
                let end = after.find("</script>").map_or(after.len(), |e| e + 9);
                rest = &after[end..];
                paragraphs.push(String::new());
            } else if rest.starts_with('<') {
                let end = rest.find('>').map_or(rest.len(), |e| e + 1);
                let name = rest[1..end - 1].trim_start_matches('/');
                let name = name.split(' ').next().unwrap_or("");
                if BLOCK.contains(&name) {
                    paragraphs.push(String::new());
                }
                rest = &rest[end..];
            } else if rest.starts_with('&') {
                let end = rest.find(';').map_or(rest.len(), |e| e + 1);
                let decoded = match &rest[..end] {
                    "&amp;" => "&",
                    "&lt;" => "<",
                    "&nbsp;" => " ",
                    other => other,
                };
                paragraphs.last_mut().unwrap().push_str(decoded);
                rest = &rest[end..];
            } else {
                let end = rest.find(['<', '&']).unwrap_or(rest.len());
                paragraphs.last_mut().unwrap().push_str(&rest[..end]);
                rest = &rest[end..];
            }
        }
        paragraphs
            .iter()
            .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|p| !p.is_empty())
            .collect()
    }

    const BLOCK: [&str; 8] = ["p", "div", "li", "ul", "h2", "td", "tr", "br"];
    const INLINE: [&str; 4] = ["b", "i", "a href=\"x\"", "span"];
    const WORDS: [&str; 10] = [
        "alpha", "beta", "gamma", "Delta", "x1", "&amp;", "&lt;", "&nbsp;", "  ", "\n",
    ];

    fn random_html(rng: &mut SplitMix64) -> String {
        let mut s = String::new();
        for _ in 0..rng.below(80) {
            match rng.below(10) {
                0..=1 => {
                    let t = BLOCK[rng.below(BLOCK.len() as u64) as usize];
                    let close = rng.below(2) == 0 && t != "br";
                    s.push_str(&format!("<{}{t}>", if close { "/" } else { "" }));
                }
                2 => {
                    let t = INLINE[rng.below(INLINE.len() as u64) as usize];
                    let close = rng.below(2) == 0;
                    let t = if close {
                        t.split(' ').next().unwrap()
                    } else {
                        t
                    };
                    s.push_str(&format!("<{}{t}>", if close { "/" } else { "" }));
                }
                3 if rng.below(4) == 0 => s.push_str("<script>var p = '<p>x</p>';</script>"),
                _ => {
                    s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
                    s.push(' ');
                }
            }
        }
        s
    }

    #[test]
    fn chunks_equal_a_plain_reference_on_random_html() {
        let mut rng = SplitMix64(17);
        let mut text = String::new();
        for case in 0..3000 {
            let html = random_html(&mut rng);
            payload_text(
                html.as_bytes(),
                None,
                Some(true),
                TextMode::Full,
                "",
                &mut text,
            );
            let got: Vec<&str> = chunks(&text).collect();
            assert_eq!(got, reference(&html), "case {case}: {html:?}");
            let mut hashes = Vec::new();
            chunk_hashes(&text, &mut hashes);
            let want: Vec<u128> = reference(&html).iter().map(|c| chunk_hash(c)).collect();
            assert_eq!(hashes, want, "case {case}");
        }
    }

    #[test]
    fn copies_that_differ_in_markup_and_spacing_share_chunks() {
        let a = "<div><p>The same  paragraph.</p><p>Another <b>one</b></p></div>";
        let b = "<section>\n<p>The same paragraph.\n</p>\n<li>Another one</section>";
        let (mut ta, mut tb) = (String::new(), String::new());
        payload_text(a.as_bytes(), None, Some(true), TextMode::Full, "", &mut ta);
        payload_text(b.as_bytes(), None, Some(true), TextMode::Full, "", &mut tb);
        let (mut ha, mut hb) = (Vec::new(), Vec::new());
        chunk_hashes(&ta, &mut ha);
        chunk_hashes(&tb, &mut hb);
        assert_eq!(ha, hb);
        assert_eq!(ha.len(), 2);
    }
}
