//! Fields of the TSV files neardup writes (lists, pairs, exports): an id or URL is one field
//! whatever it holds, and reads back as it was.

/// An id or URL as one TSV field that reads back as it was: a backslash, tab, line feed and
/// carriage return are written `\\`, `\t`, `\n`, `\r` (docs/FORMATS.md), so two ids that differ
/// only there stay two ids. Anything else is written as it is.
pub fn tsv_field(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['\t', '\n', '\r', '\\']) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.into()
}

/// The value of a field [`tsv_field`] wrote (a backslash before any other character stands
/// for itself).
pub fn tsv_value(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\\') {
        return s.into();
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_back_as_they_were_and_never_collapse() {
        let ids = [
            "a b", "a\nb", "a\tb", "a\rb", "a\\nb", "a\\b", "a\\", "\\", "", "plain", "é\t\\t",
        ];
        let mut seen = std::collections::HashSet::new();
        for id in ids {
            let f = tsv_field(id);
            assert!(!f.contains(['\t', '\n', '\r']), "{f:?}");
            assert_eq!(tsv_value(&f), id);
            assert!(
                seen.insert(f.into_owned()),
                "{id:?} collapsed into another id"
            );
        }
    }
}
