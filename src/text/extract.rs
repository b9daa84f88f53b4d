//! A payload's text, the one way every stage gets it: fingerprinting, and verification when it
//! reads the same record again, so both see the same words.

use super::{charset, html, normalize};

/// Which text of an HTML page is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextMode {
    /// All of it (navigation, headers and footers included).
    #[default]
    Full,
    /// Its main content only ([`html::to_main_text`]).
    Main,
}

/// Appends the normalised text of `payload` to `out` (cleared first): decoded by its BOM, the
/// `charset` its headers named or a guess, then stripped of markup when it is HTML (`html`:
/// `None` sniffs the first bytes), keeping the text `mode` says. Returns whether it was read
/// as HTML.
pub fn payload_text(
    payload: &[u8],
    charset: Option<&str>,
    html: Option<bool>,
    mode: TextMode,
    out: &mut String,
) -> bool {
    let is_html = html.unwrap_or_else(|| looks_like_html(payload));
    let decoded = charset::decode(payload, charset, is_html);
    out.clear();
    if is_html && mode == TextMode::Main {
        html::to_main_text(&decoded, out);
    } else if is_html {
        html::to_text(&decoded, out);
    } else {
        normalize::plain(&decoded, out);
    }
    is_html
}

/// HTML when the first non-blank byte opens a tag.
pub fn looks_like_html(payload: &[u8]) -> bool {
    let p = payload.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(payload);
    p.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<')
}
