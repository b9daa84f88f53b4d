//! Stop chunks: paragraphs that every site repeats and that say nothing about copying.
//!
//! As stop words in text retrieval, they are removed before discovery labels anything and
//! before containment and badness are computed, so that the empty idioms of web publishing do
//! not dilute or inflate them. Three sources:
//! - a built-in list ([`BUILT_IN`]): navigation and interface idioms, separators and symbols,
//!   page numbers and years, each in its written, lower-case and upper-case forms;
//! - a user's file (`--stop-chunks FILE`): one chunk per line, as the text a page shows;
//! - an automatic rule (`--auto-stop`): a frequent chunk seen on at least `--stop-sites`
//!   distinct sites is benign infrastructure, not one party's copying (see `discover`).
//!
//! Chunks are compared by their hashes, so the list is a set of hashes.

use std::path::Path;

use foldhash::{HashSet, HashSetExt};

use crate::text::normalize;
use crate::text::paragraphs::{chunk_hash, chunks};
use crate::{Error, Result};

/// Navigation and interface idioms of web pages and generated documentation.
pub const BUILT_IN: &[&str] = &[
    "Home",
    "Next",
    "Previous",
    "Prev",
    "Back",
    "Top",
    "Up",
    "Back to top",
    "Go to top",
    "Menu",
    "Main menu",
    "Navigation",
    "Toggle navigation",
    "Skip to content",
    "Skip to main content",
    "Skip navigation links",
    "Search",
    "Search for:",
    "Go",
    "Submit",
    "Login",
    "Log in",
    "Log out",
    "Logout",
    "Sign in",
    "Sign up",
    "Register",
    "Password",
    "Username",
    "Remember me",
    "Forgot your password?",
    "Share",
    "Share this:",
    "Tweet",
    "Print",
    "Email",
    "Reply",
    "Comments",
    "No comments",
    "Leave a comment",
    "Leave a Reply",
    "Read more",
    "Read More",
    "More",
    "Continue reading",
    "Related",
    "Related posts",
    "Tags",
    "Categories",
    "Archives",
    "Recent Posts",
    "Recent Comments",
    "Subscribe",
    "RSS",
    "Facebook",
    "Twitter",
    "LinkedIn",
    "Instagram",
    "YouTube",
    "Pinterest",
    "Contact",
    "Contact us",
    "Contact Us",
    "About",
    "About us",
    "About Us",
    "Privacy",
    "Privacy Policy",
    "Terms",
    "Terms of Use",
    "Terms of Service",
    "Cookie Policy",
    "Sitemap",
    "Site map",
    "Help",
    "FAQ",
    "Copyright",
    "All rights reserved.",
    "All Rights Reserved.",
    "Powered by WordPress",
    "Advertisement",
    "Loading...",
    "Close",
    "Cancel",
    "OK",
    "Yes",
    "No",
    "Edit",
    "Delete",
    "Download",
    "Table of Contents",
    "Contents",
    "Index",
    "Overview",
    "Summary",
    "Details",
    "Description",
    "Name",
    "Date",
    "Title",
    "Type",
    "Size",
    "Total",
    "Note",
    "Notes",
    "Example",
    "Examples",
    "See also",
    "See Also",
    "References",
    "External links",
    "Parameters",
    "Parameters:",
    "Returns",
    "Returns:",
    "Throws:",
    "Since:",
    "See Also:",
    "Deprecated.",
    "Field Summary",
    "Method Summary",
    "Constructor Summary",
    "Nested Classes",
    "Method Detail",
    "Field Detail",
    "Constructor Detail",
    "All Classes",
    "All Packages",
    "Frames",
    "No Frames",
    "Package",
    "Class",
    "Tree",
    "Use",
    "Module",
    "Modules",
    "Source",
    "Show source",
    "Quick search",
    "Navigation menu",
    "Main page",
    "Page",
    "Pages",
    "|",
    "||",
    "-",
    "--",
    "–",
    "—",
    "•",
    "·",
    "»",
    "«",
    "›",
    "‹",
    ">",
    "<",
    ">>",
    "<<",
    "/",
    "*",
    "#",
    ":",
    ".",
    "..",
    "...",
    "…",
    "©",
    "®",
    "™",
    "x",
    "×",
    "+",
    "=",
    "&",
    "^",
    "↑",
    "→",
    "←",
    "▲",
    "▼",
    "►",
    "◄",
    "[",
    "]",
    "[edit]",
    "(",
    ")",
    "?",
    "!",
    ",",
    ";",
    "~",
];

/// A set of stop chunks, by hash.
#[derive(Clone, Default)]
pub struct StopChunks {
    hashes: HashSet<u128>,
}

impl StopChunks {
    /// The built-in list.
    pub fn built_in() -> StopChunks {
        let mut s = StopChunks {
            hashes: HashSet::new(),
        };
        for c in BUILT_IN {
            s.add(c);
            s.add(&c.to_lowercase());
            s.add(&c.to_uppercase());
        }
        for n in 0..=1000 {
            s.add(&n.to_string());
        }
        for y in 1990..=2040 {
            s.add(&format!("© {y}"));
            s.add(&format!("Copyright {y}"));
        }
        s
    }

    /// An empty set.
    pub fn none() -> StopChunks {
        StopChunks::default()
    }

    /// Adds one chunk, given as a page shows it (it is normalised as page text is).
    pub fn add(&mut self, text: &str) {
        let mut norm = String::new();
        normalize::plain(text, &mut norm);
        for c in chunks(&norm) {
            self.hashes.insert(chunk_hash(c));
        }
    }

    /// Adds the chunk with this hash.
    pub fn add_hash(&mut self, h: u128) {
        self.hashes.insert(h);
    }

    /// Adds every non-empty line of `path`.
    pub fn add_file(&mut self, path: &Path) -> Result<usize> {
        let text = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let text = String::from_utf8_lossy(&text);
        let before = self.hashes.len();
        for line in text.lines() {
            self.add(line);
        }
        Ok(self.hashes.len() - before)
    }

    /// Whether `h` is a stop chunk.
    #[inline]
    pub fn contains(&self, h: u128) -> bool {
        self.hashes.contains(&h)
    }

    /// Number of stop chunk hashes.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// Every hash in the set.
    pub fn hashes(&self) -> impl Iterator<Item = u128> + '_ {
        self.hashes.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::extract::payload_text;

    #[test]
    fn idioms_are_recognised_as_pages_show_them() {
        let stop = StopChunks::built_in();
        let mut text = String::new();
        payload_text(
            b"<ul><li> Home </li><li>NEXT</li><li>&raquo;</li><li>42</li></ul><p>Real text here.</p>",
            None,
            Some(true),
            crate::text::extract::TextMode::Full,
            "",
            &mut text,
        );
        let flags: Vec<bool> = chunks(&text)
            .map(|c| stop.contains(chunk_hash(c)))
            .collect();
        assert_eq!(flags, [true, true, true, true, false]);
    }

    #[test]
    fn a_file_adds_its_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("stop.txt");
        std::fs::write(
            &p,
            "Powered by  Example CMS\n\nSubscribe to our newsletter\n",
        )
        .unwrap();
        let mut stop = StopChunks::none();
        assert_eq!(stop.add_file(&p).unwrap(), 2);
        assert!(stop.contains(chunk_hash("Powered by Example CMS")));
        assert!(!stop.contains(chunk_hash("Home")));
        assert!(stop.add_file(&dir.path().join("missing")).is_err());
    }
}
