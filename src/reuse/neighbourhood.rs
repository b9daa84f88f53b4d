//! Neighbourhoods: the pages that share a URL prefix.
//!
//! A page at `http://arxiv.org/archive/physics/x.html` lies in three neighbourhoods:
//! `arxiv.org/`, `arxiv.org/archive/` and `arxiv.org/archive/physics/` (the site, then each
//! directory level of its path). Scheme, user info, port, query and fragment are not part of
//! a prefix, and the host is compared without case. A page without a URL is in none.

/// The site and directory prefixes of `url`, shortest first, each ending with `/`.
pub fn prefixes(url: &str) -> Vec<String> {
    let rest = match url.find("://") {
        Some(i) => &url[i + 3..],
        None => url,
    };
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let host = authority.rsplit('@').next().unwrap_or("");
    let host = match host.rfind(':') {
        // An IPv6 literal keeps its colons; a port goes.
        Some(i) if !host[i..].contains(']') => &host[..i],
        _ => host,
    };
    if host.is_empty() {
        return Vec::new();
    }
    let mut prefix = host.to_ascii_lowercase();
    prefix.push('/');
    let mut out = vec![prefix.clone()];
    // Directories: every segment followed by a slash (the last segment is the page itself).
    let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    for seg in &segments[..segments.len().saturating_sub(1)] {
        if seg.is_empty() {
            continue;
        }
        prefix.push_str(seg);
        prefix.push('/');
        out.push(prefix.clone());
    }
    out
}

/// The site of `url` (its first prefix), if it has one.
pub fn site(url: &str) -> Option<String> {
    prefixes(url).into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_in_its_site_and_every_directory_above_it() {
        assert_eq!(
            prefixes("http://arxiv.org/archive/physics/x.html?y=1#z"),
            [
                "arxiv.org/",
                "arxiv.org/archive/",
                "arxiv.org/archive/physics/"
            ]
        );
        assert_eq!(
            prefixes("https://User@Example.COM:8080/a/"),
            ["example.com/", "example.com/a/"]
        );
        assert_eq!(prefixes("https://example.com"), ["example.com/"]);
        assert_eq!(
            prefixes("https://example.com//a//b"),
            ["example.com/", "example.com/a/"]
        );
        assert_eq!(prefixes("http://[::1]:80/a/b"), ["[::1]/", "[::1]/a/"]);
        assert!(prefixes("").is_empty());
        assert_eq!(site("https://s.example/p/1"), Some("s.example/".into()));
    }
}
