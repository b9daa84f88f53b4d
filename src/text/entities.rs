//! HTML character references: numeric (`&#233;`, `&#xE9;`) and named (`&eacute;`).
//!
//! Named references use the WHATWG table shipped by `html-escape` (2,125 names, sorted, binary
//! searched). As browsers do, the legacy names (`&amp`, `&lt`, `&gt`, `&quot`, `&nbsp`, `&copy`,
//! `&reg`) are also recognised without their semicolon; anything unrecognised stays literal.

use html_escape::NAMED_ENTITIES;

/// Longest entity name in the table, plus slack.
const MAX_NAME: usize = 40;

/// A decoded reference: the text it stands for, and how many bytes of input it used.
pub enum Decoded {
    /// A single character.
    Char(char),
    /// A named reference that maps to a string (some map to two code points).
    Str(&'static str),
}

/// Decodes the reference at the start of `s` (which starts with `&`).
pub fn decode(s: &[u8]) -> Option<(Decoded, usize)> {
    debug_assert_eq!(s.first(), Some(&b'&'));
    if s.get(1) == Some(&b'#') {
        return numeric(s);
    }
    let name_len = s[1..]
        .iter()
        .take(MAX_NAME)
        .position(|b| !b.is_ascii_alphanumeric())
        .unwrap_or(s.len().saturating_sub(1).min(MAX_NAME));
    if name_len == 0 {
        return None;
    }
    let name = &s[1..1 + name_len];
    let has_semi = s.get(1 + name_len) == Some(&b';');
    if has_semi {
        if let Some(c) = common(name) {
            return Some((Decoded::Char(c), name_len + 2));
        }
        if let Ok(i) = NAMED_ENTITIES.binary_search_by(|(n, _)| (*n).cmp(name)) {
            return Some((Decoded::Str(NAMED_ENTITIES[i].1), name_len + 2));
        }
    }
    // Legacy references without a semicolon (longest match first, as in `&nbspx`).
    for legacy in ["nbsp", "quot", "copy", "amp", "reg", "lt", "gt"] {
        if name.starts_with(legacy.as_bytes()) {
            let c = match legacy {
                "nbsp" => '\u{a0}',
                "quot" => '"',
                "copy" => '\u{a9}',
                "amp" => '&',
                "reg" => '\u{ae}',
                "lt" => '<',
                _ => '>',
            };
            let used = 1 + legacy.len() + usize::from(has_semi && legacy.len() == name_len);
            return Some((Decoded::Char(c), used));
        }
    }
    None
}

/// The names most pages use, matched without the table's binary search (a dozen string
/// compares each); each maps to what the table maps it to (tested).
#[inline]
fn common(name: &[u8]) -> Option<char> {
    Some(match name {
        b"amp" => '&',
        b"lt" => '<',
        b"gt" => '>',
        b"quot" => '"',
        b"apos" => '\'',
        b"nbsp" => '\u{a0}',
        b"copy" => '\u{a9}',
        b"reg" => '\u{ae}',
        b"ndash" => '\u{2013}',
        b"mdash" => '\u{2014}',
        b"lsquo" => '\u{2018}',
        b"rsquo" => '\u{2019}',
        b"ldquo" => '\u{201c}',
        b"rdquo" => '\u{201d}',
        b"hellip" => '\u{2026}',
        b"middot" => '\u{b7}',
        b"bull" => '\u{2022}',
        b"laquo" => '\u{ab}',
        b"raquo" => '\u{bb}',
        b"times" => '\u{d7}',
        b"trade" => '\u{2122}',
        _ => return None,
    })
}

fn numeric(s: &[u8]) -> Option<(Decoded, usize)> {
    let (hex, start) = match s.get(2) {
        Some(b'x') | Some(b'X') => (true, 3),
        _ => (false, 2),
    };
    let digits = s[start..]
        .iter()
        .take(16)
        .take_while(|b| {
            if hex {
                b.is_ascii_hexdigit()
            } else {
                b.is_ascii_digit()
            }
        })
        .count();
    if digits == 0 {
        return None;
    }
    let text = std::str::from_utf8(&s[start..start + digits]).ok()?;
    let value = u32::from_str_radix(text, if hex { 16 } else { 10 }).unwrap_or(u32::MAX);
    let mut used = start + digits;
    if s.get(used) == Some(&b';') {
        used += 1;
    }
    // Invalid code points and NUL become U+FFFD; C1 controls map as windows-1252 in browsers,
    // which matters little for text features, so they are kept as the replacement too.
    let c = match value {
        0 | 0x80..=0x9f => '\u{fffd}',
        v => char::from_u32(v).unwrap_or('\u{fffd}'),
    };
    Some((Decoded::Char(c), used))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Option<(String, usize)> {
        decode(s.as_bytes()).map(|(d, n)| {
            let t = match d {
                Decoded::Char(c) => c.to_string(),
                Decoded::Str(s) => s.to_string(),
            };
            (t, n)
        })
    }

    #[test]
    fn common_names_decode_as_the_table_does() {
        let names = [
            "amp", "lt", "gt", "quot", "apos", "nbsp", "copy", "reg", "ndash", "mdash", "lsquo",
            "rsquo", "ldquo", "rdquo", "hellip", "middot", "bull", "laquo", "raquo", "times",
            "trade",
        ];
        for (name, value) in NAMED_ENTITIES.iter() {
            let name = std::str::from_utf8(name).unwrap();
            let fast = common(name.as_bytes());
            let listed = names.contains(&name);
            assert_eq!(fast.is_some(), listed, "{name}");
            if let Some(c) = fast {
                assert_eq!(c.to_string(), *value, "{name}");
            }
        }
        assert_eq!(
            names.len(),
            names
                .iter()
                .filter(|n| common(n.as_bytes()).is_some())
                .count()
        );
    }

    #[test]
    fn numeric_named_and_legacy() {
        assert_eq!(dec("&#233;x"), Some(("é".into(), 6)));
        assert_eq!(dec("&#xE9;"), Some(("é".into(), 6)));
        assert_eq!(dec("&#x110000;"), Some(("\u{fffd}".into(), 10)));
        assert_eq!(dec("&eacute; "), Some(("é".into(), 8)));
        assert_eq!(dec("&amp;"), Some(("&".into(), 5)));
        assert_eq!(dec("&amp x"), Some(("&".into(), 4)));
        assert_eq!(dec("&nbsp;"), Some(("\u{a0}".into(), 6)));
        assert_eq!(dec("&notanentity;"), None);
        assert_eq!(dec("& "), None);
        assert_eq!(dec("&#;"), None);
    }
}
