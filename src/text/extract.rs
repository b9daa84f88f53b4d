//! A payload's text, the one way every stage gets it: fingerprinting, and verification when it
//! reads the same record again, so both see the same words.

use super::{canonical, charset, html, main_content, normalize};

/// Which text of an HTML page is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextMode {
    /// All of it (navigation, headers and footers included): CopyCat's definition.
    #[default]
    Full,
    /// Its main content ([`super::main_content`]) after its title ([`title_lines`]); a page
    /// whose main content has fewer than [`MIN_MAIN_WORDS`] words, or is a sliver of the page
    /// ([`is_sliver`]), is read whole, so the copies of a login or contact page are still
    /// compared.
    Main,
}

/// Below this many words, a page's main content is too short to compare on: its full text is
/// read instead (`--text main`).
pub const MIN_MAIN_WORDS: usize = 20;

/// A main content under this many words that is also under [`SLIVER_SHARE`] of its page's
/// text is a sliver: the block a home page of teasers or a form page was left with (a notice
/// its script shows, the company footer), not the page's content. The page is read whole.
pub const SLIVER_WORDS: usize = 60;

/// See [`SLIVER_WORDS`]: a main content of fewer bytes than the page's text over this.
pub const SLIVER_SHARE: usize = 20;

/// Whether a main content of `main` (its text) is a sliver of a page whose text, hidden parts
/// and frame included, is `page_bytes` long: under [`SLIVER_WORDS`] words and under
/// 1/[`SLIVER_SHARE`] of the page's bytes.
pub fn is_sliver(main: &str, page_bytes: usize) -> bool {
    main.len().saturating_mul(SLIVER_SHARE) < page_bytes && !has_words(main, SLIVER_WORDS)
}

/// The main-content extractor that `--text main` stores were made with (recorded in their
/// manifests): a store made by another reads different text, and is refused.
pub const MAIN_EXTRACTOR: &str =
    "main-content v55 (the page's title compared before its main content, a line a part, a part that is only the site's name left out, block scores (a block mostly links: only its links' own commas), a heading marked only as a header (code-header, section-header) not the frame, bylines, author boxes, Drupal's submitted lines and compounds of related (relatedlinks) the frame, figure captions and classes naming a photo's caption or credit (wp-caption, imageEmbedCredit, credits) not text, an article under a fifth of the longest a teaser, beside it, inside it or in the wrapper chosen, a one- or two-letter namespace before a frame name passed over, a frame word between layout words (region-footer-bottom) the frame, a data table with its wrappers, DocBook's refentry a content word and a declared main, a declared main or article first, frame marks inside the region kept out when read without the wrapper's, a section under three quarters of a declared main (a quarter for an article, by tag or by a class naming one), or one beside 200 bytes or more of the main's text that is not mostly links (not in an article), gives way to it, a short introduction back to a heading or to the chosen sibling before it kept with each chosen part, the declared main's title kept, a linked line with words of its own kept, a linked heading with words of its own kept, a link alone naming the text beside it kept, a data table whole, labels, date lines and lists of other stories the frame, captions and credits on spans, share and like plugins (sharedaddy, jp-relatedposts, addtoany, shariff, sharethis, dpsp, disqus) the frame whatever else they name, a lead written in a div beside the story kept, text for screen readers only and spans hidden in capitals left out, bylines and comments named in Spanish, Portuguese, German, French and Italian the frame, a story of 20 words or more given only in noscript read there, a page builder's widgets (elementor-widget-heading, -nav-menu, SiteOrigin's so-panel widget_sow-editor) judged by their kind and its lists of other posts, forms and testimonials the frame, a Custom HTML widget's body judged by its widget, a wrapper holding only a heading read as the heading that bounds an introduction, a good alternative holding the best and three more good parts chosen where no three alternatives meet, four or more parts beside the choice scoring two fifths of the best, holding twice its text and under 3 in 10 of it links, read whole in the element holding them, a wrapper marked only as a sidebar or widget whose child named as content or declared as main holds most of its text read again without its mark and taken where that finds three times as much, a strict choice that left five times what it wrote out as frame marked inside its region, under 3 in 10 of it links, read again, a region mostly lines of links, 20 or more, kept whole (an index), a paragraph inside a link the card's text, not a link's words, a class or id naming nocontent (robots-nocontent) the frame, a declared main inside an element that is the frame only by its class or role not the frame, a header element named as the content's body (post-content) not the frame, related and recommended as any part of a class or id value (article-recommended-section) the frame, a camelCase class or id whose last word names the frame (docComments, siteFooter) the frame, full text under 20 words or under 60 words and a twentieth of the page's text, hidden text included, a boundary React streams (a hidden div with id S: and a number) not hidden, a sibling of the choice's class given a fifth of its score, a block inside pre (code: a declaration whose types are links) never a list of links, a declared main mostly links the content where nothing scores (an index of items without descriptions), a definition list's value of links kept after its term kept (javadoc's Specified by:), an API's documentation comment (deprecation-comment, doc-comment) not the frame, a count of columns (two-column-summary) a layout, not a content word, a forum's box of the poster (message-user, message-userExtras, postprofile, user-info) the frame, a table of contents' heading (Table of contents, Inhaltsverzeichnis, Spis treści) a label, a form a reader fills in named for what it is for (post-form, answer-form, contact-form) the frame, date lines in Portuguese, Italian, Dutch, Indonesian, Polish and Russian (4 de outubro de 2019, a stamp word between a number and its month), a line of a reading time (5 min read, Lesezeit: 3 Minuten) and lines of sharing on a named network (Share on WhatsApp) labels, one element hidden by its own mark holding nine tenths of the page's text (a page its script shows) read again shown, a comment thread's and a forum's prompts and tools (Be the first to comment, Reply to this topic, Jump to), Was this helpful? and Share this post labels, a line naming a version or a hash (Release 2.4.1 on 2021-06-30) no date line, an item closing its list's open item through the paragraphs, divs and inline elements left open inside it, three or more visible sections of one class each headed by a heading, under 3 in 10 of their bytes links, around the choice or a wrapper of it read whole in the element holding them)";

/// What [`payload_text`] read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Read {
    /// It was read as HTML.
    pub html: bool,
    /// Main content was asked for but the page's full text was read: no main content was
    /// found, or it was under [`MIN_MAIN_WORDS`] words, or a sliver of the page
    /// ([`is_sliver`]).
    pub full_text: bool,
    /// Bytes of the text that are the page's title lines ([`title_lines`]), at its start, each
    /// with its line break: written before the main content under `--text main` (0 where
    /// there is no title, and for a page read whole, whose full text begins with its title).
    pub title: usize,
}

/// Appends the normalised text of `payload` to `out` (cleared first): decoded by its BOM,
/// valid UTF-8, the `charset` its headers named or a guess ([`charset::decode`]), then
/// stripped of markup when it is HTML (`html`: `None` sniffs the first bytes), keeping the
/// text `mode` says. `url` is the page's (its host names the site in its title:
/// [`title_lines`]; empty where there is none).
pub fn payload_text(
    payload: &[u8],
    charset: Option<&str>,
    html: Option<bool>,
    mode: TextMode,
    url: &str,
    out: &mut String,
) -> Read {
    read_payload(payload, charset, html, mode, url, out, None)
}

/// [`payload_text`] under `--text main`, and into `main` (cleared first) the page's main
/// content however short, as [`payload_main_text`] gives it: decoded and extracted once for
/// both (a page read whole, read again for verification, needs its full text and its own
/// words).
pub fn payload_text_and_main(
    payload: &[u8],
    charset: Option<&str>,
    html: Option<bool>,
    url: &str,
    out: &mut String,
    main: &mut String,
) -> Read {
    main.clear();
    read_payload(payload, charset, html, TextMode::Main, url, out, Some(main))
}

fn read_payload(
    payload: &[u8],
    charset: Option<&str>,
    html: Option<bool>,
    mode: TextMode,
    url: &str,
    out: &mut String,
    main: Option<&mut String>,
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
    let mut title = 0;
    if is_html && mode == TextMode::Main {
        let found = main_content::extract(&decoded, out);
        if let Some(main) = main.filter(|_| found.main) {
            main.push_str(out);
        }
        if !found.main || !has_words(out, MIN_MAIN_WORDS) || is_sliver(out, found.page_bytes) {
            out.clear();
            html::to_text(&decoded, out);
            full_text = true;
        } else {
            let mut lines = String::new();
            title_lines(&decoded, url, &mut lines);
            if !lines.is_empty() {
                lines.push('\n');
                out.insert_str(0, &lines);
                title = lines.len();
            }
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
        title: if full_text { 0 } else { title },
    }
}

/// Separators of a title's parts ("Page - Site", "Item in path - Rust", "Story | Paper"):
/// each part is a line of its own, so the part a site writes in every title is a block the
/// site repeats ([`super::blocks`]) and is set aside with the others, where the page's own
/// part is kept.
pub const TITLE_SEPARATORS: [&str; 11] = [
    " | ",
    " - ",
    " \u{2013} ",
    " \u{2014} ",
    " :: ",
    " \u{b7} ",
    " \u{bb} ",
    " \u{203a} ",
    " ~ ",
    " / ",
    " : ",
];

/// Appends to `out` the normalised text of the `<title>` in the head of the decoded page
/// `html` (references decoded, whitespace collapsed), one line a part
/// ([`TITLE_SEPARATORS`]; a part without a word is left out), without a final line break;
/// nothing where there is no title.
///
/// A part that is only the site's name is left out where another part remains: the name the
/// head declares (`og:site_name`, `application-name`), or the host of `url` (the page's; `www.`
/// and the last label or not), each compared on its letters and digits in lower case
/// ("Juragan Cipir" on juragancipir.com, "excursionphuket.com"). The copies of one page on two
/// sites then compare the same title.
///
/// Under `--text main` these lines come before the main content in the text compared: the
/// title is what the page says it is about, and it is often the only words that tell two
/// pages of one kind apart (two items whose documentation is the same trait's methods, the
/// same item under two paths). A main region leaves it out; a page's full text has it.
pub fn title_lines(html: &str, url: &str, out: &mut String) {
    let Some(raw) = canonical::title(html.as_bytes()) else {
        return;
    };
    // `title` cuts at ASCII `>` and `<`, so the bytes are whole characters of `html`.
    let Ok(raw) = std::str::from_utf8(raw) else {
        return;
    };
    let mut text = String::new();
    html::to_text(raw, &mut text);
    let mut parts = Vec::new();
    let mut rest = text.as_str();
    while !rest.is_empty() {
        let cut = TITLE_SEPARATORS
            .iter()
            .filter_map(|s| rest.find(s).map(|at| (at, s.len())))
            .min();
        let (part, next) = match cut {
            Some((at, len)) => (&rest[..at], &rest[at + len..]),
            None => (rest, ""),
        };
        let part = part.trim();
        if has_words(part, 1) {
            parts.push(part);
        }
        rest = next;
    }
    if parts.len() > 1 {
        let mut names = Vec::new();
        if let Some(name) = canonical::site_name(html.as_bytes()) {
            names.push(letters(&name));
        }
        if let Some(host) = crate::base::host::host(url) {
            let host = host.to_lowercase();
            let host = host.strip_prefix("www.").unwrap_or(&host);
            names.push(letters(host));
            if let Some((name, _)) = host.rsplit_once('.') {
                names.push(letters(name));
            }
        }
        names.retain(|n| !n.is_empty());
        let own: Vec<&str> = parts
            .iter()
            .copied()
            .filter(|p| !names.contains(&letters(p)))
            .collect();
        if !own.is_empty() {
            parts = own;
        }
    }
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(part);
    }
}

/// The letters and digits of `s`, in lower case: a name as a title, a host and a declared
/// site name all write it.
fn letters(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Appends to `out` (cleared first) the main content of the HTML page `payload` as
/// `--text main` extracts it, however short: nothing where no main content is found. This is
/// what a page read whole ([`Read::full_text`]) has of its own: its words tell two forms of one
/// template apart (a login page and a sign-up page), where their whole texts are alike.
pub fn payload_main_text(payload: &[u8], charset: Option<&str>, out: &mut String) {
    let decoded = charset::decode_with(payload, charset, true, charset::HEAD_PREFIX);
    out.clear();
    if !main_content::extract(&decoded, out).main {
        out.clear();
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
    let bytes = text.as_bytes();
    let mut i = 0;
    // ASCII eight bytes at a time: a word starts where a letter or digit follows a byte that
    // is neither (or the run's start outside a word).
    while let Some(w) = bytes.get(i..i + 8) {
        let w = u64::from_le_bytes(w.try_into().unwrap_or([0x80; 8]));
        if w & HIGH != 0 {
            break;
        }
        let word = ascii_alnum(w);
        let before = (word << 8) | u64::from(in_word) << 7;
        count += (word & !before).count_ones() as usize;
        in_word = word >> 63 != 0;
        if count >= limit {
            return limit;
        }
        i += 8;
    }
    // The rest (under eight bytes, or from a window holding a non-ASCII byte: `i` is a
    // character boundary) a character at a time.
    words_by_chars(&text[i..], count, in_word, limit)
}

/// The word count a character at a time, from `count` words so far (`in_word`: the last
/// character before `text` was in a word): the rule itself, and what [`words_up_to`] uses
/// past its ASCII windows.
fn words_by_chars(text: &str, mut count: usize, mut in_word: bool, limit: usize) -> usize {
    for c in text.chars() {
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

const HIGH: u64 = 0x8080_8080_8080_8080;

/// Each byte's high bit set where the byte (all eight ASCII) is at least `c`; no borrow
/// crosses a byte, since every byte is at least 0x80 before the subtraction.
#[inline]
fn at_least(w: u64, c: u8) -> u64 {
    ((w | HIGH) - u64::from(c) * 0x0101_0101_0101_0101) & HIGH
}

/// The ASCII letters and digits of eight ASCII bytes, flagged in their high bits.
#[inline]
fn ascii_alnum(w: u64) -> u64 {
    let digit = at_least(w, b'0') & !at_least(w, b'9' + 1);
    let folded = w | 0x2020_2020_2020_2020;
    let letter = at_least(folded, b'a') & !at_least(folded, b'z' + 1);
    digit | letter
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

    /// [`payload_text`] of an HTML page without a URL.
    fn html_text(page: &str, mode: TextMode, out: &mut String) -> Read {
        payload_text(page.as_bytes(), None, Some(true), mode, "", out)
    }

    /// The text and the main content read in one pass are those read one after the other.
    #[test]
    fn text_and_main_at_once_equal_each_alone() {
        let menu: String = (0..300)
            .map(|i| format!("<li><a href=/m{i}>menu item {i}</a></li>"))
            .collect();
        let story = vec!["the harbour was quiet that morning"; 30].join(". ");
        let pages = [
            format!("<html><body><ul>{menu}</ul><main><p>{story}</p></main></body></html>"),
            format!("<html><body><ul>{menu}</ul><main><p>Log in here</p></main></body></html>"),
            format!(
                "<html><body><ul>{menu}</ul><div><p>{}</p></div></body></html>",
                &story[..200]
            ),
            "<html><body><ul><li><a href=/a>only links</a></li></ul></body></html>".into(),
            "plain text, not a page at all".into(),
            String::new(),
        ];
        for page in &pages {
            for html in [None, Some(true), Some(false)] {
                let (mut text, mut main) = (String::new(), String::new());
                let read =
                    payload_text_and_main(page.as_bytes(), None, html, "", &mut text, &mut main);
                let mut alone = String::new();
                let want =
                    payload_text(page.as_bytes(), None, html, TextMode::Main, "", &mut alone);
                assert_eq!((read, &text), (want, &alone), "{page:.80}");
                let mut main_alone = String::new();
                if html.unwrap_or_else(|| looks_like_html(page.as_bytes())) {
                    payload_main_text(page.as_bytes(), None, &mut main_alone);
                }
                assert_eq!(main, main_alone, "{page:.80} {html:?}");
            }
        }
    }

    /// A sliver is short in words and small beside its page; either alone is not one.
    #[test]
    fn a_sliver_is_under_sixty_words_and_a_twentieth_of_the_page() {
        let words = |n: usize| vec!["word"; n].join(" ");
        let short = words(SLIVER_WORDS - 1);
        assert!(is_sliver(&short, SLIVER_SHARE * short.len() + 1));
        assert!(
            !is_sliver(&short, SLIVER_SHARE * short.len()),
            "a twentieth"
        );
        let long = words(SLIVER_WORDS);
        assert!(!is_sliver(&long, 1 << 30), "sixty words are content");
        // Main content read whole where it is a sliver, the full text given instead.
        let teasers: String = (0..200)
            .map(|i| format!("<li><a href=/s{i}>story {i} of the week in the city</a></li>"))
            .collect();
        let notice = "You are leaving this site for the site of another of the foundation's \
                      centres around the world, kept by another office";
        let page =
            format!("<html><body><ul>{teasers}</ul><div><p>{notice}</p></div></body></html>");
        let mut out = String::new();
        let read = html_text(&page, TextMode::Main, &mut out);
        assert!(read.full_text, "{out}");
        assert!(out.contains("story 7 of the week"), "{out}");
        let alone = format!("<html><body><div><p>{notice}</p></div></body></html>");
        let read = html_text(&alone, TextMode::Main, &mut out);
        assert!(!read.full_text, "{out}");
        // The page's text a sliver is measured against counts its hidden text: a shop whose
        // whole `main` a lockdown app keeps in a `display: none` wrapper until a script shows
        // it is not its banner.
        let shut = format!(
            "<html><body><div class=top><p>{notice}</p></div><main><div style=\"display: none\"><ul>{teasers}</ul></div></main></body></html>"
        );
        let read = html_text(&shut, TextMode::Main, &mut out);
        assert!(read.full_text, "{out}");
        assert!(out.contains("story 7 of the week"), "{out}");
    }

    /// The word count eight bytes at a time against a character at a time, on random text of
    /// ASCII letters, digits, punctuation, every control and some non-ASCII characters.
    #[test]
    fn words_counted_eight_bytes_at_a_time_as_one_at_a_time() {
        let reference = |text: &str, limit: usize| words_by_chars(text, 0, false, limit);
        let alphabet = [
            'a', 'Z', 'q', '0', '9', ' ', ' ', '\n', '/', ':', '@', '[', '`', '{', '\x7f', '\x00',
            '-', 'é', '中', '\u{a0}', 'ß',
        ];
        let mut rng = crate::base::rng::SplitMix64(56);
        for _ in 0..20_000 {
            let n = rng.below(60) as usize;
            let rare = rng.below(3) == 0;
            let text: String = (0..n)
                .map(|_| alphabet[rng.below(if rare { 21 } else { 17 }) as usize])
                .collect();
            let limit = [1, 3, 20, usize::MAX][rng.below(4) as usize];
            assert_eq!(
                words_up_to(&text, limit),
                reference(&text, limit),
                "{text:?} {limit}"
            );
        }
    }

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
                html_text(page, mode, &mut out);
                assert_eq!(out.trim(), want, "{mode:?}");
            }
        }
        // A page whose title is its only text outside `noscript`, and whose short story is
        // inside it, is read as that story's main content, not as its title alone.
        let story = "The council voted on Tuesday to keep the old bridge open for walkers and \
                     cyclists, after a year of talks with the people who cross it every day.";
        let page = format!(
            "<html><head><title>Bridge</title></head><body><div id=app></div><noscript>\
             <p>{story}</p></noscript></body></html>"
        );
        let read = html_text(&page, TextMode::Main, &mut out);
        assert!(out.contains(story) && !read.full_text, "{out:?} {read:?}");
        // A page with text of its own is read without them.
        let page = "<body><p>Own words here.</p><noscript>no script</noscript></body>";
        html_text(page, TextMode::Full, &mut out);
        assert_eq!(out.trim(), "Own words here.");
    }

    /// A title's parts are lines of their own, references decoded and spaces collapsed; a
    /// `title` in the body (an SVG's) is not the page's. A part that is only the site's name
    /// (declared, or its host's) is left out where another part remains.
    #[test]
    fn a_titles_parts_are_lines_of_their_own_and_the_sites_name_is_left_out() {
        for (page, url, want) in [
            (
                "<head><title>Iter in std::iter - Rust</title></head>",
                "",
                "Iter in std::iter\nRust",
            ),
            (
                "<title> A &amp; B  |  News \u{2014} Site </title>",
                "",
                "A & B\nNews\nSite",
            ),
            ("<title>co-op: a - b</title>", "", "co-op: a\nb"),
            ("<title>Only words</title>", "", "Only words"),
            ("<title> | </title>", "", ""),
            ("<body><svg><title>icon</title></svg></body>", "", ""),
            ("<p>no title</p>", "", ""),
            // The host's name, with its last label or without, with `www.` or without.
            (
                "<title>Lost Password ~ Juragan Cipir</title>",
                "http://juragancipir.com/lostpassword/",
                "Lost Password",
            ),
            (
                "<title>excursionphuket.com \u{203a} Lost Password</title>",
                "http://www.excursionphuket.com/wp-login.php",
                "Lost Password",
            ),
            // The name the head declares.
            (
                "<head><meta property=og:site_name content='The Coast Times'>\
                 <title>Harbour reopens | The Coast Times</title></head>",
                "https://coast.example/a",
                "Harbour reopens",
            ),
            // A title that is only the site's name stays.
            (
                "<title>Juragan Cipir</title>",
                "http://juragancipir.com/",
                "Juragan Cipir",
            ),
            (
                "<title>Juragan Cipir | Juragan Cipir</title>",
                "http://juragancipir.com/",
                "Juragan Cipir\nJuragan Cipir",
            ),
            // The whole name goes; a word of it is the page's.
            (
                "<title>Rust docs - Rust</title>",
                "https://rust-docs.example/std/",
                "Rust",
            ),
        ] {
            let mut out = String::new();
            title_lines(page, url, &mut out);
            assert_eq!(out, want, "{page}");
        }
    }

    /// Under `--text main` the title lines come first and `Read::title` says how long they
    /// are; the main content after them is what it was. A page read whole, and `--text full`,
    /// read the title where the page has it, once.
    #[test]
    fn main_content_is_compared_after_the_pages_title() {
        let story = vec!["the harbour was quiet that morning"; 30].join(". ");
        let menu: String = (0..300)
            .map(|i| format!("<li><a href=/m{i}>menu item {i}</a></li>"))
            .collect();
        let page = format!(
            "<html><head><title>Harbour news - Coast Times</title></head><body><ul>{menu}</ul>\
             <main><p>{story}</p></main></body></html>"
        );
        let mut out = String::new();
        let read = html_text(&page, TextMode::Main, &mut out);
        assert!(!read.full_text);
        assert_eq!(&out[..read.title], "Harbour news\nCoast Times\n");
        let mut main = String::new();
        payload_main_text(page.as_bytes(), None, &mut main);
        assert_eq!(&out[read.title..], main);
        // Without a title, nothing is added.
        let bare = page.replace("<title>Harbour news - Coast Times</title>", "");
        let read = html_text(&bare, TextMode::Main, &mut out);
        assert_eq!((read.title, out.as_str()), (0, main.as_str()));
        // A page read whole: its full text, which starts with its title, and no title lines.
        let login = page.replace(&story, "Log in here");
        let read = html_text(&login, TextMode::Main, &mut out);
        assert!(read.full_text && read.title == 0);
        assert!(out.starts_with("Harbour news - Coast Times\n"), "{out:.80}");
        let read = html_text(&page, TextMode::Full, &mut out);
        assert_eq!(read.title, 0);
        assert_eq!(out.matches("Harbour news").count(), 1);
    }
}
