//! The site of a URL: its host, as every stage that groups pages by site names it (the
//! removal audit, own content).

use std::borrow::Cow;

/// The site of a URL: its host as the WHATWG URL standard's host parser gives it (lower case,
/// percent-decoded, international names in their ASCII form, `xn--`), without user, port or
/// a trailing dot; None when `url` has no `scheme://host`. A host that parser refuses is
/// kept as written, lower-cased.
pub fn site_of(url: &str) -> Option<String> {
    host(url).map(|h| normal(h).into_owned())
}

/// `host` as the WHATWG host parser writes it; borrowed when it is already so (lower-case
/// ASCII letters, digits, `-` and `.` only, no label starting `xn--`, which the parser
/// checks, and a last label that cannot be a number).
pub fn normal(host: &str) -> Cow<'_, str> {
    let plain = host
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
        && !host.contains("xn--")
        // A name whose last label starts with a digit may be an IPv4 address (`0x7f.1`).
        && !host
            .rsplit('.')
            .next()
            .is_some_and(|l| l.starts_with(|c: char| c.is_ascii_digit()));
    if plain {
        return Cow::Borrowed(host);
    }
    match url::Host::parse(host) {
        Ok(url::Host::Domain(d)) => Cow::Owned(d.trim_end_matches('.').to_string()),
        Ok(url::Host::Ipv4(a)) => Cow::Owned(a.to_string()),
        Ok(url::Host::Ipv6(a)) => Cow::Owned(format!("[{a}]")),
        Err(_) => Cow::Owned(host.to_lowercase()),
    }
}

/// The key of the host of a page with `url` and `id`: XXH3 of its [`normal`] host, taken from
/// the URL, or from the id when that is a URL and the URL has none; 0 when neither has one.
/// Own content counts blocks per host by it.
pub fn key(url: &str, id: &str) -> u64 {
    match host(url).or_else(|| host(id)) {
        Some(h) => xxhash_rust::xxh3::xxh3_64(normal(h).as_bytes()).max(1),
        None => 0,
    }
}

/// The host of a URL as written (see [`site_of`]).
pub fn host(url: &str) -> Option<&str> {
    let rest = &url[url.find("://")? + 3..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let auth = &rest[..end];
    let host = auth.rsplit_once('@').map_or(auth, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.find(']').map_or(host, |i| &host[..=i])
    } else {
        host.split(':').next().unwrap_or(host)
    };
    let host = host.trim_end_matches('.');
    (!host.is_empty()).then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_key_is_the_normal_host_of_the_url_or_else_of_the_id() {
        let k = |h: &str| xxhash_rust::xxh3::xxh3_64(h.as_bytes()).max(1);
        assert_eq!(key("https://Example.COM:8080/a?b", "x"), k("example.com"));
        assert_eq!(key("https://user@example.com./", "x"), k("example.com"));
        // The URL first; the id only when the URL has no host.
        assert_eq!(key("https://a.org/", "https://b.org/"), k("a.org"));
        assert_eq!(key("", "https://b.org/x"), k("b.org"));
        assert_eq!(key("not a url", "doc-17"), 0);
        assert_ne!(key("https://a.org/", ""), key("https://b.org/", ""));
    }
}
