//! A payload's text, the one way every stage gets it: fingerprinting, and verification when it
//! reads the same record again, so both see the same words.

use super::{charset, html, main_content, normalize};

/// Which text of an HTML page is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextMode {
    /// All of it (navigation, headers and footers included): CopyCat's definition.
    #[default]
    Full,
    /// Its main content ([`super::main_content`]); a page whose main content has fewer than
    /// [`MIN_MAIN_WORDS`] words is read whole, so the copies of a login or contact page are
    /// still compared.
    Main,
}

/// Below this many words, a page's main content is too short to compare on: its full text is
/// read instead (`--text main`).
pub const MIN_MAIN_WORDS: usize = 20;

/// The main-content extractor that `--text main` stores were made with (recorded in their
/// manifests): a store made by another reads different text, and is refused.
pub const MAIN_EXTRACTOR: &str =
    "main-content v4 (block scores, a declared main or article first, a data table whole, full text under 20 words)";

/// What [`payload_text`] read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Read {
    /// It was read as HTML.
    pub html: bool,
    /// Main content was asked for but the page's full text was read: no main content was
    /// found, or it was under [`MIN_MAIN_WORDS`] words.
    pub full_text: bool,
}

/// Appends the normalised text of `payload` to `out` (cleared first): decoded by its BOM,
/// valid UTF-8, the `charset` its headers named or a guess ([`charset::decode`]), then
/// stripped of markup when it is HTML (`html`: `None` sniffs the first bytes), keeping the
/// text `mode` says.
pub fn payload_text(
    payload: &[u8],
    charset: Option<&str>,
    html: Option<bool>,
    mode: TextMode,
    out: &mut String,
) -> Read {
    let is_html = html.unwrap_or_else(|| looks_like_html(payload));
    let prescan = if mode == TextMode::Main {
        charset::HEAD_PREFIX
    } else {
        charset::META_PREFIX
    };
    let decoded = charset::decode_with(payload, charset, is_html, prescan);
    out.clear();
    let mut full_text = false;
    if is_html && mode == TextMode::Main {
        let found = main_content::extract(&decoded, out).main;
        if !found || !has_words(out, MIN_MAIN_WORDS) {
            out.clear();
            html::to_text(&decoded, out);
            full_text = true;
        }
    } else if is_html {
        html::to_text(&decoded, out);
    } else {
        normalize::plain(&decoded, out);
    }
    // A page whose text is all in `noscript` or `template` (its script renders it) is read
    // with them, rather than as no text at all.
    if is_html && !has_words(out, 1) {
        out.clear();
        html::to_text_with_inert(&decoded, out);
        full_text |= mode == TextMode::Main;
    }
    Read {
        html: is_html,
        full_text,
    }
}

/// Whether `text` has at least `n` words: runs of letters and digits, each Chinese or Japanese
/// character counting as one (as the tokenizer splits them).
pub fn has_words(text: &str, n: usize) -> bool {
    words_up_to(text, n) >= n
}

/// The words of `text` as [`has_words`] counts them, counted up to `limit` at most (the count
/// stops there).
pub fn words_up_to(text: &str, limit: usize) -> usize {
    let mut count = 0;
    let mut in_word = false;
    // ASCII a byte at a time, up to the first other byte (a character boundary there).
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() && bytes[i].is_ascii() {
        let w = bytes[i].is_ascii_alphanumeric();
        count += usize::from(w && !in_word);
        in_word = w;
        if count >= limit {
            return count;
        }
        i += 1;
    }
    for c in text[i..].chars() {
        if is_ideograph(c) {
            count += 1;
            in_word = false;
        } else if c.is_alphanumeric() {
            count += usize::from(!in_word);
            in_word = true;
        } else {
            in_word = false;
        }
        if count >= limit {
            return count;
        }
    }
    count
}

/// Han, hiragana and katakana characters: words of one character each.
pub(crate) fn is_ideograph(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}

/// HTML when the first non-blank byte opens a tag.
pub fn looks_like_html(payload: &[u8]) -> bool {
    let p = payload.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(payload);
    p.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_whose_text_is_all_in_noscript_or_template_is_read_with_it() {
        let mut out = String::new();
        for (page, want) in [
            (
                "<html><body><noscript><p>Enable scripts to read the news of the day.</p></noscript><script>render()</script></body></html>",
                "Enable scripts to read the news of the day.",
            ),
            (
                "<html><body><template><p>A story kept in a template element.</p></template></body></html>",
                "A story kept in a template element.",
            ),
        ] {
            for mode in [TextMode::Main, TextMode::Full] {
                payload_text(page.as_bytes(), None, Some(true), mode, &mut out);
                assert_eq!(out.trim(), want, "{mode:?}");
            }
        }
        // A page with text of its own is read without them.
        let page = "<body><p>Own words here.</p><noscript>no script</noscript></body>";
        payload_text(page.as_bytes(), None, Some(true), TextMode::Full, &mut out);
        assert_eq!(out.trim(), "Own words here.");
    }
}
