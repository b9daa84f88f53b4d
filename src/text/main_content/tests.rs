use super::*;

/// `n` pieces of a test page, the `i`th made by `f(i)`, one after another.
fn each(n: usize, f: impl FnMut(usize) -> String) -> String {
    (0..n).map(f).collect()
}

/// The one search for the inline words, vector and automaton alike, against a plain
/// search for each word: attribute strings of every length made of the words' letters
/// (capitals among them), the words cut short and whole, near the start and the end.
#[test]
fn inline_words_are_found_as_a_search_for_each_finds_them() {
    let automaton = InlineWords::Automaton(aho_corasick::AhoCorasick::new(INLINE_WORDS).unwrap());
    let forms = [InlineWords::get(), &automaton];
    let mut rng = crate::base::rng::SplitMix64(54);
    let pieces: [&[u8]; 20] = [
        b"hidden",
        b"hidde",
        b"Hidden",
        b"HIDDEN",
        b"HIDDE",
        b"none",
        b"non",
        b"NONE",
        b"NoNE",
        b"sr-only",
        b"sr-onl",
        b"reader-text",
        b"reader-tex",
        b"aption",
        b"Caption",
        b"aptio",
        b"redit",
        b"Credi",
        b" class=\"",
        b"\"",
    ];
    let mut found = 0;
    for _ in 0..20_000 {
        let mut b = Vec::new();
        for _ in 0..rng.below(12) {
            match rng.below(3) {
                0 => b.extend_from_slice(pieces[rng.below(20) as usize]),
                1 => b.push(b"hidenoaptcrHIDENOsly-x"[rng.below(22) as usize]),
                _ => b.push(rng.below(256) as u8),
            }
        }
        let plain = INLINE_WORDS
            .iter()
            .any(|w| memchr::memmem::find(&b, w.as_bytes()).is_some());
        found += usize::from(plain);
        for form in forms {
            assert_eq!(form.any_in(&b), plain, "{:?}", String::from_utf8_lossy(&b));
        }
    }
    assert!(found > 1_000 && found < 19_000, "{found}");
}

/// The tokens [`may_mark`] passes over change nothing: [`judge`] against every token asked,
/// on class and id values made of the lists' words (whole, cut, in compounds, camelCase,
/// after a short namespace), page builders' names, hidden classes, captions and credits,
/// utility classes and generated names, joined at `-`, `_`, `:`, `.` and `/`, some letters in
/// capitals.
#[test]
fn tokens_passed_over_change_no_mark() {
    let mut rng = crate::base::rng::SplitMix64(61);
    let pieces: &[&str] = &[
        "nav",
        "menu",
        "footer",
        "header",
        "sidebar",
        "comments",
        "related",
        "relatedlinks",
        "recommended",
        "widget",
        "widgets",
        "copyright",
        "item",
        "list",
        "wrap",
        "inner",
        "content",
        "article",
        "post",
        "body",
        "refentry",
        "entry",
        "meta",
        "tags",
        "hidden",
        "sharedaddy",
        "dpsp",
        "d-none",
        "sr-only",
        "hide",
        "visually-hidden",
        "wp-caption",
        "imageEmbedCredit",
        "photo-credits",
        "table-caption",
        "captions",
        "elementor-widget-heading",
        "elementor-widget-posts",
        "so-panel",
        "widget_sow-editor",
        "custom-html-widget",
        "siteFooter",
        "mainNav",
        "docComments",
        "headerWrapper",
        "2",
        "js",
        "sf",
        "mt-4",
        "lg:flex",
        "px-2",
        "text-gray-500",
        "css-1x2y3z",
        "w-[550px]",
        "ad",
        "a",
        "toc",
        "x",
    ];
    let (mut passed, mut marked) = (0, 0);
    for _ in 0..30_000 {
        let mut attrs = String::new();
        for name in ["class", "id"] {
            if rng.below(3) == 0 {
                continue;
            }
            let mut value = String::new();
            for _ in 0..rng.below(5) {
                for k in 0..1 + rng.below(3) {
                    if k > 0 {
                        value.push(['-', '_', ':', '.', '/'][rng.below(5) as usize]);
                    }
                    let piece = pieces[rng.below(pieces.len() as u64) as usize];
                    let cut = if rng.below(8) == 0 {
                        rng.below(piece.len() as u64 + 1) as usize
                    } else {
                        piece.len()
                    };
                    for c in piece[..cut].chars() {
                        value.push(if rng.below(12) == 0 {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        });
                    }
                }
                value.push(if rng.below(6) == 0 { '\t' } else { ' ' });
            }
            attrs.push_str(&format!(" {name}=\"{value}\""));
        }
        let every = judge_tokens(attrs.as_bytes(), |_, _| true);
        let fast = judge(attrs.as_bytes());
        assert_eq!(fast, every, "{attrs}");
        marked += usize::from(every != Marks::default());
        judge_tokens(attrs.as_bytes(), |token, written| {
            passed += usize::from(!may_mark(token, written));
            true
        });
    }
    // Both kinds are met many times: values that mark and tokens passed over.
    assert!(marked > 5_000 && passed > 5_000, "{marked} {passed}");
}

/// Sixteen bytes lowercased at once against a byte at a time: every byte value, every
/// length, names near the end of the buffer and longer than sixteen bytes.
#[test]
fn names_lowercase_sixteen_bytes_at_once() {
    let mut rng = crate::base::rng::SplitMix64(9);
    for _ in 0..20_000 {
        let n = rng.below(40) as usize;
        let b: Vec<u8> = (0..n)
            .map(|_| match rng.below(3) {
                0 => b"AZaz09-:@[`{"[rng.below(12) as usize],
                1 => b'A' + rng.below(26) as u8,
                _ => rng.below(256) as u8,
            })
            .collect();
        let start = rng.below(n as u64 + 1) as usize;
        let len = rng.below((n - start) as u64 + 1) as usize;
        let fast = Name::at(&b, start, len);
        let slow = Name::new(&b[start..start + len]);
        assert!(fast == slow, "{:?} at {start} len {len}", b);
    }
}

/// The byte test for invisible characters against the character rule: every character
/// alone, and random text of the characters at the edges of each range.
#[test]
fn invisible_characters_are_told_by_their_bytes() {
    let mut buf = [0u8; 4];
    for c in (0..=0x10ffff).filter_map(char::from_u32) {
        let b = c.encode_utf8(&mut buf).as_bytes();
        assert_eq!(has_invisible(b), invisible(c), "U+{:04X}", c as u32);
    }
    let edges = [
        'a',
        ' ',
        'é',
        '中',
        '“',
        '，',
        '\u{ac}',
        '\u{ad}',
        '\u{ae}',
        '\u{200a}',
        '\u{200b}',
        '\u{200d}',
        '\u{200e}',
        '\u{205f}',
        '\u{2060}',
        '\u{2061}',
        '\u{d7ff}',
        '\u{e000}',
        '\u{efff}',
        '\u{f000}',
        '\u{f8ff}',
        '\u{f900}',
        '\u{fefe}',
        '\u{feff}',
        '\u{ff00}',
        '\u{effff}',
        '\u{f0000}',
        '\u{fffff}',
        '\u{100000}',
        '\u{10ffff}',
    ];
    let mut rng = crate::base::rng::SplitMix64(47);
    let mut with = 0;
    for _ in 0..20_000 {
        let n = rng.below(12) as usize;
        let s: String = (0..n)
            .map(|_| {
                if rng.below(4) == 0 {
                    edges[rng.below(edges.len() as u64) as usize]
                } else {
                    edges[rng.below(6) as usize]
                }
            })
            .collect();
        let want = s.chars().any(invisible);
        assert_eq!(has_invisible(s.as_bytes()), want, "{s:?}");
        with += usize::from(want);
    }
    assert!(with > 2000, "{with}");
}

fn main_text(html: &str) -> String {
    let mut out = String::new();
    extract(html, &mut out);
    out
}

const P1: &str = "The first paragraph of the story, long enough to score, with a comma or two, and more words after them.";
const P2: &str = "A second paragraph that goes on about the same subject, again with commas, clauses, and a full stop.";

#[test]
fn values_name_the_frame_by_whole_words() {
    assert!(frame_token(b"site-header"));
    assert!(frame_token(b"nav-menu"));
    assert!(frame_token(b"footer-links"));
    assert!(frame_token(b"sidebar"));
    assert!(!frame_token(b"post-header-and-body"));
    assert!(frame_token(b"footer-law"));
    assert!(judge(br#" class="modal upload-modal hide""#).hidden);
    assert!(!frame_token(b"no-sidebars"));
    assert!(!frame_token(b"evolve-shared-mutable-history"));
    assert!(!frame_token(b"canvas"));
    assert!(!frame_token(b"navigator-guide"));
    // A namespace before the name: passed over.
    assert!(frame_token(b"sf_comment_list"));
    assert!(frame_token(b"js-nav-menu-left"));
    assert!(!frame_token(b"sf_comment_form_container"));
    assert!(!frame_token(b"no-sidebars-here"));
    // A frame word between layout words.
    assert!(frame_token(b"region-footer-bottom"));
    assert!(frame_token(b"inner-comments-wrap"));
    assert!(frame_token(b"section-share-top"));
    assert!(!frame_token(b"main-content-area"));
    assert!(!frame_token(b"story-share-text"));
    assert!(!frame_token(b"region-footer-law-notes"));
    // Lists of other things, wherever the name says so.
    assert!(frame_token(b"article-recommended-section"));
    assert!(frame_token(b"article-related-posts"));
    assert!(frame_token(b"recommended"));
    assert!(!frame_token(b"recommendations-wrapper"));
    assert!(!frame_token(b"unrelated-content"));
    let m = judge(br#" class="content with-sidebar""#);
    assert!(!m.frame);
    let m = judge(br#" id="comments""#);
    assert!(m.frame);
    let m = judge(br#" role="navigation""#);
    assert!(m.frame_role);
}

#[test]
fn camel_case_names_end_in_their_last_word() {
    let mut buf = [0u8; CAMEL_MAX];
    assert_eq!(camel_last(b"docComments", &mut buf), Some(&b"comments"[..]));
    assert_eq!(
        camel_last(b"o-pageHeroBanner", &mut buf),
        Some(&b"banner"[..])
    );
    assert_eq!(
        camel_last(b"HeroTextBelow-authorName", &mut buf),
        Some(&b"name"[..])
    );
    assert_eq!(camel_last(b"mainNav2", &mut buf), Some(&b"nav2"[..]));
    assert_eq!(camel_last(b"siteFooter-", &mut buf), Some(&b"footer"[..]));
    // No capital after a lowercase letter in the last part: no camelCase word.
    assert_eq!(camel_last(b"Footer", &mut buf), None);
    assert_eq!(camel_last(b"FOOTER", &mut buf), None);
    assert_eq!(camel_last(b"pageFooter-links", &mut buf), None);
    assert_eq!(camel_last(b"", &mut buf), None);
    assert_eq!(
        camel_last(b"aVeryLongLastWordIndeedHereAndMore", &mut buf),
        Some(&b"more"[..])
    );
    assert_eq!(
        camel_last(b"anUnbelievablyextraordinarilylong", &mut buf),
        None
    );
    // The frame by its last word; not by its first (such names wrap whole pages).
    assert!(judge(br#" id="docComments""#).frame);
    assert!(judge(br#" class="siteFooter""#).frame);
    assert!(judge(br#" class="siteFooter""#).frame_role);
    assert!(!judge(br#" class="headerWrapper""#).frame);
    assert!(!judge(br#" class="menuContent""#).frame);
    assert!(!judge(br#" class="textDisplay""#).frame);
    // A heading named as a section's header stays a heading.
    assert!(judge(br#" class="sectionHeader""#).header_only);
    assert!(judge(br#" class="leftSidebar""#).layout);
}

#[test]
fn a_camel_case_frame_name_is_the_frame() {
    // A manual's chapter: its title, a table of contents of links and one sentence of its
    // own; below it, a form's invitation to report errors, in a `div id="docComments"`.
    let toc: String = (1..=12)
        .map(|i| format!(r#"<dt><a href="s{i}.html">11.{i}. Section {i}</a></dt>"#))
        .collect();
    let page = format!(
        r#"<html><body><div id="pgContentWrap"><div id="docContent"><div class="chapter"><h2>Chapter 11. Indexes</h2><div class="toc"><dl>{toc}</dl></div><p>Indexes are a common way to enhance database performance, and to find rows faster.</p></div></div><div id="docComments"><p>If you see anything in the documentation that is not correct, does not match your experience, or needs clarification, please use this form to report a documentation issue.</p></div></div></body></html>"#
    );
    let text = main_text(&page);
    assert!(text.contains("Indexes are a common way"), "{text}");
    assert!(!text.contains("please use this form"), "{text}");
}

#[test]
fn recommended_posts_inside_the_story_are_left_out() {
    // A shop's blog: the story's column holds, after the story, the posts the site
    // recommends, each a linked title and the first words of its story.
    let teasers: String = (1..=5)
        .map(|i| format!(r#"<div class="post-card"><h4><a href="/blogs/p{i}">Other post number {i} about earbuds</a></h4><p>Imagine slipping on your earbuds not just to drown out the world, but to invite in a gentle wave number {i}...</p></div>"#))
        .collect();
    let page = format!(
        r#"<html><body><main><div class="article-container"><div class="article-main-content"><h1>Future Outlook</h1><p>{P1}</p><p>{P2}</p><p>{P1}</p><p>{P2}</p><p>{P1}</p><p>{P2}</p><div class="article-recommended-section"><h3>Recommend Posts</h3>{teasers}</div></div></div></main></body></html>"#
    );
    let text = main_text(&page);
    assert!(text.contains("A second paragraph"), "{text}");
    assert!(!text.contains("Imagine slipping"), "{text}");
    assert!(!text.contains("Recommend Posts"), "{text}");
}

#[test]
fn an_index_of_links_is_the_content_and_a_few_headlines_are_not() {
    // An encyclopedia's index: a sentence on what it lists, then one linked entry a line.
    let entries = each(30, |i| {
        format!(r#"<li><a href="/wiki/L{i}">Language {i}</a></li>"#)
    });
    let page = format!(
        r#"<html><body><nav><a href="/">Home</a> <a href="/random">Random</a></nav><main><div class="mw-content"><p>This is an index to notable programming languages, in current or historical use, with a comma or two.</p><ul>{entries}</ul></div></main></body></html>"#
    );
    let text = main_text(&page);
    assert!(
        text.contains("Language 7") && text.contains("Language 29"),
        "{text}"
    );
    // A short story beside ten of the site's other headlines: those are not its text.
    let headlines = each(10, |i| {
        format!(r#"<li><a href="/news/{i}">Headline {i} of the day</a></li>"#)
    });
    let page = format!(
        r#"<html><body><main><div class="story"><p>{P1}</p><p>{P2}</p><ul>{headlines}</ul></div></main></body></html>"#
    );
    let text = main_text(&page);
    assert!(text.contains("A second paragraph"), "{text}");
    assert!(!text.contains("Headline 3"), "{text}");
}

#[test]
fn a_paragraph_inside_a_link_is_the_cards_text() {
    // A listing whose entries are cards that are each one link: a linked heading and
    // a paragraph describing the page it leads to. Beside them, a short notice.
    let cards = each(6, |i| {
        format!(
            r#"<a class="card" href="/story/{i}"><div class="card-body"><h3>Story number {i} of the day</h3><p>What happened on day {i}, told in a sentence of its own, with a comma, a clause, and a full stop.</p></div></a>"#
        )
    });
    let page = format!(
        r#"<html><body><div class="intro"><p>Our newsroom, its readers, and this notice about them, written once for the whole site.</p></div><div class="listing">{cards}</div></body></html>"#
    );
    let text = main_text(&page);
    assert!(text.contains("told in a sentence of its own"), "{text}");
    assert!(!text.contains("Our newsroom"), "{text}");
}

#[test]
fn a_part_named_nocontent_is_the_frame() {
    // Search engines' convention for what a page says is not its content
    // (`class="nocontent"`, `robots-nocontent`), here around a teaser of another video
    // and a widget inside the story's article.
    let page = format!(
        r#"<html><body><article><h1>The story</h1><p>{P1}</p><p>{P2}</p><div class="col-12 nocontent"><p>A teaser of another video, with commas, clauses, and words enough to score on its own.</p></div><p>{P1}</p><p>{P2}</p><div class="robots-nocontent sd-block"><p>More words of a widget, with a comma, and another, and yet more words after them.</p></div></article></body></html>"#
    );
    let text = main_text(&page);
    assert!(text.contains("A second paragraph"), "{text}");
    assert!(!text.contains("A teaser of another video"), "{text}");
    assert!(!text.contains("More words of a widget"), "{text}");
}

#[test]
fn a_header_named_as_the_contents_body_is_the_content() {
    // A site builder's blog post: its title in one `header`, its whole text in another,
    // named for the post's content.
    let page = format!(
        r#"<html><body><div class="nav-block"><nav><a href="/">Home</a> <a href="/f">Features</a> <a href="/p">Pricing</a></nav></div><main class="main-wrapper"><header class="section_blog-post-header"><h1>Tips for Practices</h1></header><header class="section_blog-post-content"><div class="padding-global"><p>{P1}</p><p>{P2}</p><p>{P1}</p><p>{P2}</p><p>{P1}</p><p>{P2}</p></div></header></main><footer class="site-footer"><p>Copyright, all rights reserved, and more lines of the footer here.</p></footer></body></html>"#
    );
    let text = main_text(&page);
    assert!(text.contains("A second paragraph"), "{text}");
    assert!(!text.contains("Pricing"), "{text}");
    assert!(!text.contains("rights reserved"), "{text}");
    // Named as a header of the content, it is the frame still.
    assert!(!judge(br#" class="entry-content-header""#).body);
    assert!(judge(br#" class="post-content""#).body);
    assert!(!judge(br#" class="text-white""#).body);
}

#[test]
fn a_main_inside_an_element_named_as_the_frame_is_the_content() {
    // The whole page in a wrapper whose class ends in `footer` (a sticky footer's layout),
    // the page's `main` inside it.
    let page = format!(
        r#"<html><body><div class="flex-wrap-footer"><header><a href="/">Home</a> <a href="/s">Search</a></header><main><div id="content"><h1>A paper's title</h1><blockquote class="abstract"><p>{P1}</p><p>{P2}</p><p>{P1}</p><p>{P2}</p><p>{P1}</p><p>{P2}</p></blockquote></div></main><footer><p>About, Help, Contact, and the copyright of the site here.</p></footer></div></body></html>"#
    );
    let text = main_text(&page);
    assert!(text.contains("A second paragraph"), "{text}");
    assert!(!text.contains("Search"), "{text}");
    assert!(!text.contains("copyright"), "{text}");
}

#[test]
fn a_body_class_never_empties_the_page() {
    let page = format!(
        "<body class=\"no-sidebars sidebar header\"><div><p>{P1}</p><p>{P2}</p></div></body>"
    );
    let t = main_text(&page);
    assert!(
        t.contains("first paragraph") && t.contains("second paragraph"),
        "{t}"
    );
    let page = format!("<div class=\"post-header-and-body\"><p>{P1}</p><p>{P2}</p></div>");
    assert!(main_text(&page).contains("first paragraph"));
}

/// A welcome text of short sentences and many commas: it outscores short articles.
fn blurb() -> String {
    (0..12)
        .map(|i| format!("Welcome, friend, to our site, number {i}, read on, enjoy, share, smile."))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_declared_main_or_article_never_loses_to_a_sibling_blurb() {
    let b = blurb();
    let two_articles = |x: &str, y: &str| {
        format!(
            "<html><body><div><p>{b}</p></div>\
             <article><h2>{x}</h2><p>{x} happened today in the city, said the mayor.</p></article>\
             <article><h2>{y}</h2><p>{y} was reported by the harbour office this morning.</p></article>\
             </body></html>"
        )
    };
    let t = main_text(&two_articles("Flood", "Storm"));
    assert!(
        t.contains("Flood happened") && t.contains("Storm was reported"),
        "{t}"
    );
    assert!(!t.contains("Welcome, friend"), "{t}");
    assert_ne!(t, main_text(&two_articles("Fire", "Strike")));
    let words: Vec<String> = (0..50).map(|i| format!("real{i}")).collect();
    let t = main_text(&format!(
        "<body><main><p>{}</p></main><div><p>{b}</p></div></body>",
        words.join(" ")
    ));
    assert!(t.contains("real0 real1") && !t.contains("Welcome"), "{t}");
    let t = main_text(&format!(
        "<body><div><p>{b}</p></div><main><p>REAL news of the day, in full.</p></main></body>"
    ));
    assert!(t.contains("REAL news"), "{t}");
}

#[test]
fn ruby_annotations_and_invisible_characters_are_not_text() {
    let page = format!(
        "<body><article><p>{P1}</p><p><ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp>字<rt>ji</rt></ruby>を読む。\
         Donau\u{ad}dampf\u{200b}schiff &shy;fährt \u{e601}heute, weit.</p><p>{P2}</p></article></body>"
    );
    let t = main_text(&page);
    assert!(t.contains("漢字を読む。"), "{t}");
    assert!(!t.contains("kan") && !t.contains("(ji"), "{t}");
    assert!(t.contains("Donaudampfschiff fährt heute, weit."), "{t:?}");
    assert!(!t.contains(['\u{ad}', '\u{200b}', '\u{e601}']), "{t:?}");
}

#[test]
fn content_given_only_in_noscript_is_read_there() {
    let links = each(30, |i| format!("<li><a href=/s/{i}>Section {i}</a></li>"));
    let page = format!(
        "<body><nav><ul>{links}</ul></nav><div id=app></div><noscript><div class=story>\
         <h1>The story</h1><p>{P1}</p><p>{P2}</p><p>{P1} Again, {P2}</p><p>{P2} More, {P1}</p>\
         </div></noscript><footer><p>Copyright, all rights reserved, 2024, the publisher.</p></footer></body>"
    );
    let t = main_text(&page);
    assert!(t.contains("The story") && t.contains(P1), "{t}");
    assert!(!t.contains("Section 3") && !t.contains("Copyright"), "{t}");
    // A short story (under MIN_MAIN_BYTES) given only there, beside a menu or alone
    // under the page's title, is read there too; a notice asking for scripts is not.
    let story = "The council voted on Tuesday to keep the old bridge open for walkers, \
                 after a year of talks with the people who cross it every day.";
    for frame in [
        "<div class=menu><a href=/>Home</a> <a href=/b>About</a></div>",
        "",
    ] {
        let page = format!(
            "<html><head><title>Bridge</title></head><body><div id=app></div>{frame}\
             <noscript><article><p>{story} {story}</p></article></noscript></body></html>"
        );
        assert!(page.len() < 3 * MIN_MAIN_BYTES, "{page}");
        let t = main_text(&page);
        assert!(t.contains(story) && !t.contains("About"), "{t}");
    }
    let page = "<html><head><title>App</title></head><body><div id=app></div><div class=menu>\
                <a href=/>Home</a> <a href=/b>About</a></div><noscript><p>Please enable \
                JavaScript to view this page.</p></noscript></body></html>";
    let t = main_text(page);
    assert!(!t.contains("JavaScript"), "{t}");
    // Nor is a page with text of its own outside it (a class hierarchy's lines), where the
    // notice is long enough to read as a short story.
    let items = each(12, |i| {
        format!("<li>java.rmi.Exception{i} (implements Serializable)</li>")
    });
    let page = format!(
        "<html><head><title>Hierarchy</title></head><body><noscript><div>JavaScript is \
         disabled on your browser, so the search and the menus of these pages, and the links \
         of its index, do not work here.</div></noscript><h1>Hierarchy For Package java.rmi</h1>\
         <ul>{items}</ul></body></html>"
    );
    let t = main_text(&page);
    assert!(!t.contains("JavaScript"), "{t}");
    // A page with content of its own is read without it, as before.
    let page = format!("<body><article><p>{P1}</p><p>{P2}</p><p>{P1}</p><p>{P2}</p><p>{P1}</p></article><noscript><p>Turn on scripts to comment, it is needed, really.</p></noscript></body>");
    assert!(!main_text(&page).contains("Turn on scripts"));
}

#[test]
fn an_article_whose_sections_are_each_a_wrapper_is_read_whole() {
    // A site's article template puts each section's heading and text in wrappers of their
    // own. The longest section's text scores best; the article (its `content` class
    // word counting) scores nearly as well and holds seven more sections, and it is the
    // content: every section of it.
    let section = |i: usize, paragraphs: usize| {
        format!(
            "<section class=blogSection id=section_{i}><div class=container>\
             <div class=wrapper><h2>Section heading number {i}</h2></div></div>\
             <div class=container><div class=wrapper><div class=richText>{}</div></div>\
             </div></section>",
            each(paragraphs, |j| format!(
                "<p>Section {i} part {j}: {P1} {P2}</p>"
            ))
        )
    };
    let menu = each(12, |i| {
        format!("<li><a href=/m/{i}>Menu entry {i}</a></li>")
    });
    let related = each(4, |i| {
        format!(
            "<div class=teaser><a href=/r/{i}>Related article {i}</a>\
             <p>A teaser of another article, with commas, number {i}.</p></div>"
        )
    });
    let sections: String = [1, 2, 2, 5, 2, 3, 2, 1]
        .iter()
        .enumerate()
        .map(|(i, &n)| section(i + 1, n))
        .collect();
    let page = format!(
        "<body><div id=app><header><nav><ul>{menu}</ul></nav></header>\
         <div class=articlePage><div class=articlePage_content><div id=blog-main-content>\
         {sections}</div></div><div class=relatedArticles>{related}</div></div>\
         <footer><p>{P2}</p></footer></div></body>"
    );
    let t = main_text(&page);
    for i in 1..=8 {
        assert!(
            t.contains(&format!("Section {i} part 0")),
            "section {i} not in {t}"
        );
    }
    for frame in ["Menu entry", "Related article", "A teaser"] {
        assert!(!t.contains(frame), "{frame} in {t}");
    }
}

#[test]
fn a_page_builders_widgets_are_judged_by_their_kind() {
    // Elementor lays out every part of a page as an `elementor-widget`: the page's
    // headings and text, its menu, share buttons, contact form and a grid of other posts.
    let widget = |kind: &str, inner: &str| {
        format!(
            "<div class=\"elementor-element elementor-widget elementor-widget-{kind}\">\
             <div class=elementor-widget-container>{inner}</div></div>"
        )
    };
    let menu = each(12, |i| format!("<li><a href=/p/{i}>Service {i}</a></li>"));
    let teasers = each(4, |i| {
        format!(
            "<article class=\"elementor-post\"><h3><a href=/o/{i}>Other post {i}</a></h3>\
             <p>A teaser of another post, with commas, written to be clicked, number {i}.</p></article>"
        )
    });
    let page = format!(
        "<body><header class=\"elementor elementor-location-header\">{}</header>\
         <div class=\"elementor elementor-9572\">{}{}{}{}{}{}{}{}</div>\
         <div class=site-info><p>{P2} {P2}</p></div></body>",
        widget("nav-menu", &format!("<ul>{menu}</ul>")),
        widget("heading", "<h2>We combine creativity and thinking</h2>"),
        widget("text-editor", &format!("<p>{P1}</p><p>{P2}</p>")),
        widget(
            "share-buttons",
            "<p>Share this page on the networks you use, all of them, now.</p>"
        ),
        widget(
            "text-editor",
            &format!("<p>{P2}</p><p>{P1} Again, {P2}</p>")
        ),
        widget(
            "form",
            "<label>First name</label><label>Tell us more about your project, please</label>"
        ),
        widget("posts", &teasers),
        widget("heading", "<h2>What we do next</h2>"),
        widget("text-editor", &format!("<p>{P2} More, {P1}</p><p>{P1}</p>")),
    );
    // The first heading comes with the text it introduces though it sits in a widget of
    // its own, not beside the text as a heading element.
    let t = main_text(&page);
    for text in ["creativity", P1, "Again, ", "What we do next", "More, "] {
        assert!(t.contains(text), "{text} not in {t}");
    }
    for frame in [
        "Service 3",
        "Share this",
        "Tell us more",
        "Other post",
        "A teaser",
    ] {
        assert!(!t.contains(frame), "{frame} in {t}");
    }
    // The bare `elementor-widget` names no kind; a widget of another builder's namespace
    // is not one (`my-elementor-widget` is judged as any value ending in `widget`).
    assert_eq!(builder_kind(b"elementor-widget"), Some(&b""[..]));
    assert_eq!(
        builder_kind(b"elementor-widget-nav-menu"),
        Some(&b"nav-menu"[..])
    );
    assert_eq!(builder_kind(b"elementor-widgets"), None);
    assert!(frame_token(b"my-elementor-widget"));
}

#[test]
fn a_cell_of_a_data_table_brings_its_table_and_what_introduces_it() {
    let row = |name: &str, what: &str| {
        format!("<tr><td class=entry><p><code>{name}</code> <code>sql_identifier</code></p><p>{what}</p></td></tr>")
    };
    let html = format!(
        "<html><body><div class=navheader><table><tr><td><a href=a>Prev</a></td><td><a href=b>Next</a></td></tr></table></div>\
         <div class=sect1><h2>applicable_roles</h2><p>The view applicable_roles identifies all roles whose privileges the current user can use, through some chain of role grants.</p>\
         <div class=table><table class=table><tbody>{}{}{}</tbody></table></div></div></body></html>",
        row("grantee", "Name of the role to which this role membership was granted, which can be the current user or a different role in case of nested role memberships"),
        row("role_name", "Name of a role"),
        row("is_grantable", "YES if the grantee has the admin option on the role, NO if not")
    );
    let text = main_text(&html);
    assert!(text.contains("identifies all roles"), "{text}");
    assert!(
        text.contains("role_name") && text.contains("admin option"),
        "{text}"
    );
    assert!(!text.contains("Prev"), "{text}");
    // A layout table's content cell stays the content.
    let layout = format!(
        "<html><body><table><tr><td><a href=/>Home</a> <a href=/x>Menu</a></td><td><p>{}</p><p>{}</p></td></tr></table></body></html>",
        "A long story told in one cell of a layout table, with commas, and more words, so it scores. ".repeat(4),
        "Another paragraph of the same story, with commas, and words, and more words again. ".repeat(4)
    );
    let text = main_text(&layout);
    assert!(
        text.contains("A long story") && !text.contains("Menu"),
        "{text}"
    );
}

#[test]
fn a_page_of_short_sections_never_reads_as_its_copyright_footer() {
    let legal = "Copyright 2001, 2002 Indiana University, the University of Notre Dame, and others. Distributed under the Boost Software License, Version 1.0, or at your choice, any later version, with the permission notice in all copies. ";
    let html = format!(
        "<html><body><div class=refentry><h2>Concept Assignable</h2>\
         <div class=refsect1><h2>Description</h2><p>Assignable types must have copy constructors.</p></div>\
         <div class=refsect1><h2>Models</h2><p>int</p></div></div>\
         <table><tr><td></td><td><div class=copyright-footer>{}</div></td></tr></table></body></html>",
        legal.repeat(2)
    );
    let text = main_text(&html);
    assert!(
        !text.contains("Indiana") || text.contains("Assignable types"),
        "{text}"
    );
}

#[test]
fn a_section_of_a_declared_main_brings_the_main() {
    let detail = |name: &str, what: &str| {
        format!("<section class=detail><h3>{name}</h3><div class=block>{what}</div></section>")
    };
    let html = format!(
        "<html><body><nav><a href=/>Overview</a><a href=/p>Package</a></nav><main role=main>\
         <div class=header><h1>Class DateTimeException</h1></div>\
         <section class=class-description><div class=block>Exception used to indicate a problem while calculating a date-time.</div></section>\
         <section class=summary><div class=caption>Constructors</div><div class=summary-table>\
         <div class=col-last><div class=block>Constructs a new date-time exception with the specified message, as given by the caller of the method.</div></div>\
         <div class=col-last><div class=block>Constructs a new date-time exception with the specified message and cause, as given by the caller of the method.</div></div></div></section>\
         <section class=details>{}{}{}</section></main></body></html>",
        detail("DateTimeException", "Constructs a new date-time exception with the specified message."),
        detail("getMessage", "Returns the detail message string of this throwable, which names the problem."),
        detail("getCause", "Returns the cause of this throwable or null if the cause is nonexistent or unknown.")
    );
    let text = main_text(&html);
    assert!(text.contains("indicate a problem"), "{text}");
    assert!(text.contains("Returns the cause"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
}

/// A blog whose template marks the wrapper of the whole content as frame (`penci_sidebar`:
/// a layout with a sidebar), so that the strict reading finds nothing and the page is read
/// again without the class marks. The comments inside the chosen story keep their marks:
/// they are left out, and the story is the content.
#[test]
fn frame_marks_inside_the_story_hold_when_its_wrapper_is_marked() {
    let story = each(10, |i| {
        format!(
                "<p>Paragraph {i} of the hike: we climbed the first flat iron in the morning, with water, snacks and a map, and the boys, the dog and I reached the top by noon.</p>"
            )
    });
    let comments = each(3, |i| {
        format!(
                "<div class=\"comment even depth-1\" id=\"comment-{i}\"><div class=\"comment-text\"><span class=\"author\">Reader {i}</span>\
                 <p>Comment {i}: we also fill our refillable bottles before heading out, and this fall we are mostly on the soccer circuit with both of my sons.</p></div></div>"
            )
    });
    let html = format!(
        "<html><body><div class=\"wrapper-boxed\"><header id=\"header\"><nav><a href=\"/\">Home</a></nav></header>\
         <div class=\"container container-single penci_sidebar\"><div id=\"main\"><article class=\"post type-post hentry\" id=\"post-1\">\
         <h1 class=\"post-title\">Hiking the flat irons</h1><div class=\"post-entry\"><div class=\"inner-post-entry entry-content\">{story}</div></div>\
         <div class=\"post-comments\" id=\"comments\"><div class=\"comments\">{comments}</div></div></article></div></div>\
         <footer id=\"footer\"><p>Copyright</p></footer></div></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("Hiking the flat irons"), "{text}");
    assert!(text.contains("Paragraph 0 of the hike"), "{text}");
    assert!(text.contains("Paragraph 9 of the hike"), "{text}");
    assert!(!text.contains("refillable"), "{text}");
    assert!(!text.contains("Copyright"), "{text}");
}

/// A post in `div id="the-content-container"` beside its sidebar (an `aside`), both in
/// `div class="sidebar-container"`, the layout's wrapper, followed by a list of recent
/// posts. The wrapper's mark held for everything inside it, so the recent posts were the
/// content; read without it (the sidebar keeps its own tag) the post is, and the sidebar
/// and the recent posts are not.
#[test]
fn a_wrapper_named_for_the_sidebar_beside_the_content_is_not_the_frame() {
    let story = each(20, |i| {
        format!(
            "<p>Paragraph {i} of the review: each command line tool built the same small application, and we judged its code, its speed, its ease of use and how often it failed.</p>"
        )
    });
    let posts = each(5, |i| {
        format!(
            "<div class=\"card\"><a href=\"/p{i}\">Post {i}</a><p>Learn how teaser {i} explains typing children in a framework, with props, components and the reasons one helper is no longer recommended.</p></div>"
        )
    });
    let html = format!(
        "<html><body><header><nav><a href=\"/\">Home</a></nav></header><div class=\"content-max-width\"><div class=\"sidebar-container\">\
         <aside><div class=\"sticky\"><p>Stop guessing about your digital experience with our tool.</p></div></aside>\
         <div id=\"the-content-container\"><div class=\"lr-content\"><h1>Five tools tested</h1>{story}</div></div></div>\
         <div id=\"recent-posts\"><h2>Recent posts:</h2>{posts}</div></div><footer><p>Copyright</p></footer></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("Five tools tested"), "{text}");
    assert!(text.contains("Paragraph 0 of the review"), "{text}");
    assert!(text.contains("Paragraph 19 of the review"), "{text}");
    assert!(!text.contains("Stop guessing"), "{text}");
    assert!(!text.contains("teaser"), "{text}");
    assert!(!text.contains("Copyright"), "{text}");
}

#[test]
fn a_page_builders_panels_in_a_main_beside_a_sidebar_are_the_content() {
    // SiteOrigin's Page Builder lays the page's text out as WordPress widgets (`so-panel
    // widget widget_sow-editor`, a Custom HTML widget's `custom-html-widget` body) in a
    // declared `main`, whose wrapper is named for the sidebar beside it.
    let panel = |kind: &str, body: &str| {
        format!(
            "<div class=\"so-panel widget widget_{kind}\"><div class=\"panel-widget-style\">\
             <div class=\"textwidget custom-html-widget\">{body}</div></div></div>"
        )
    };
    let paragraphs = |what: &str, n: usize| {
        each(n, |i| {
            format!(
                "<p>{what} {i}: the electrician checks the panel, the breakers and the wiring, and quotes a flat rate before any work begins.</p>"
            )
        })
    };
    let prices = each(8, |i| {
        format!("<div class=\"price-line\"><div>Replacing part {i} of the house</div><div>${i}89 - ${i}49+</div></div>")
    });
    let html = format!(
        "<html><body><header><nav><a href=\"/\">Home</a> <a href=\"/services\">Services</a></nav></header>\
         <div class=\"interior-page-content-has-sidebar\"><main><div class=\"panel-layout\"><div class=\"panel-grid-cell\">{1}{2}{3}</div></div></main>\
         <aside><div class=\"widget widget_text\"><div class=\"textwidget\"><p>Call us today for a free estimate, any day of the week, day or night.</p></div></div></aside></div>\
         <footer><p>Copyright</p></footer><div id=\"request\"><form>{0}</form></div></body></html>",
        each(5, |i| format!("<label>Question {i} of the request form: which service, where, and when would suit you, morning or afternoon?</label>")),
        panel("sow-editor", &paragraphs("Intro paragraph", 6)),
        panel("custom_html", &prices),
        panel("sow-editor", &paragraphs("Closing paragraph", 10)),
    );
    let text = main_text(&html);
    for kept in [
        "Intro paragraph 0",
        "Replacing part 3",
        "Closing paragraph 9",
    ] {
        assert!(text.contains(kept), "{kept} not in {text}");
    }
    for frame in ["Call us today", "Copyright", "Services"] {
        assert!(!text.contains(frame), "{frame} in {text}");
    }
    // Only a panel's values are its builder's: a sidebar's `widget widget_text` is frame.
    assert_eq!(panel_kind(b"widget"), Some(&b""[..]));
    assert_eq!(panel_kind(b"widget_sow-editor"), Some(&b"sow-editor"[..]));
    assert_eq!(panel_kind(b"widgets"), None);
    assert!(judge(b"class=\"widget widget_text\"").frame);
    assert!(!judge(b"class=\"so-panel widget widget_text\"").frame);
    assert!(judge(b"class=\"so-panel widget widget_sow-contact-form\"").frame);
    // A Custom HTML widget's body is judged by its widget, not again by its own name.
    assert!(!judge(b"class=\"textwidget custom-html-widget\"").frame);
    assert!(judge(b"class=\"textwidget custom-widget\"").frame);
}

/// A service page of many equal parts (modern-0714's shape): sections of cards, each a
/// heading and a short paragraph, and two plans, each a card of three paragraphs and a
/// list. The plans score best, the cards three fifths of them, no three of the best meet
/// below the page: all of it is the content, the header's menu and the footer are not.
#[test]
fn a_page_of_many_equal_parts_is_read_whole() {
    let card = |kind: &str, i: usize| {
        format!(
            "<div class=\"card\"><div class=\"card-body\"><h3>{kind} {i}</h3>\
             <p>{kind} {i} answers your team's questions from the documents it already keeps, in seconds, with sources.</p></div></div>"
        )
    };
    let plan = |i: usize| {
        format!(
            "<div class=\"card plan\"><div class=\"card-body\"><h3>Plan {i}</h3>{}<ul>{}</ul></div></div>",
            each(3, |k| format!("<p>Plan {i}, part {k}, connects the assistant to your knowledge base, fine-tuned, online, and checked by a colleague when in doubt.</p>")),
            each(3, |k| format!("<li>Feature {k} of plan {i}, included, supported, and updated</li>"))
        )
    };
    let section = |title: &str, body: String| {
        format!("<section class=\"block\"><div class=\"container\"><h2>{title}</h2><div class=\"row\">{body}</div></div></section>")
    };
    let html = format!(
        "<html><body><header><nav>{}</nav></header>\
         <div class=\"site\">{}{}{}{}</div>\
         <footer><p>Copyright, all rights reserved, every day of the year.</p></footer></body></html>",
        each(6, |i| format!("<a href=\"/p{i}\">Product {i}</a> ")),
        section("Problems", each(3, |i| card("Problem", i))),
        section("Plans", each(2, plan)),
        section("Benefits", each(6, |i| card("Benefit", i))),
        section("Questions", each(4, |i| card("Question", i))),
    );
    let text = main_text(&html);
    for kept in [
        "Problem 0 answers",
        "Feature 2 of plan 1",
        "Benefit 5 answers",
        "Question 3 answers",
    ] {
        assert!(text.contains(kept), "{kept} not in {text}");
    }
    for frame in ["Product 3", "Copyright"] {
        assert!(!text.contains(frame), "{frame} in {text}");
    }
}

/// A review of the year's best products (modern-0010's shape): a short introduction, then
/// every product in a `div class="c-product-widget"`, a widget by its class and so frame
/// to the strict choice, which wrote the introduction only (over the 500 bytes that would
/// have it read again anyway). What the widgets hold is five times that and more, few of
/// it links: the page is read again and the products are the content; the menu and
/// footer are still not.
#[test]
fn a_region_left_out_mostly_as_frame_is_read_again() {
    let product = |i: usize| {
        format!(
            "<div class=\"c-product-widget\"><div class=\"c-product-widget__product\"><h3>Best appliance {i}</h3>{}\
             <ul><li>Pros: quiet, fast, and efficient</li><li>Cons: pricey</li></ul>\
             <a href=\"/buy/{i}\">Buy now</a></div></div>",
            each(3, |k| format!("<p>Appliance {i}, paragraph {k}: we tested it for weeks, in our lab and at home, and it cleaned, dried, and saved water better than the rest.</p>"))
        )
    };
    let html = format!(
        "<html><body><header><nav>{}</nav></header><main><div class=\"article_show\"><h1>The best appliances of the year</h1>\
         <div class=\"feature__content-block\"><p>Every year, we test and review the latest large appliances, in our lab and in our homes, so that you do not have to.</p>\
         <p>These are the winners of this year's awards, chosen by our editors after months of testing, one for each kind of appliance.</p>\
         <p>Products are chosen independently by our editors, and purchases made through our links may earn us a commission.</p>\
         <p>Our testers ran every washer, dryer, range and refrigerator through the same tests, with the same loads, for the same hours.</p>{}</div></div></main>\
         <footer><p>Copyright, all rights reserved, every day of the year.</p></footer></body></html>",
        each(6, |i| format!("<a href=\"/c{i}\">Category {i}</a> ")),
        each(8, product),
    );
    let text = main_text(&html);
    for kept in [
        "Every year, we test",
        "Appliance 0, paragraph 0",
        "Appliance 7, paragraph 2",
    ] {
        assert!(text.contains(kept), "{kept} not in {text}");
    }
    for frame in ["Category 3", "Copyright"] {
        assert!(!text.contains(frame), "{frame} in {text}");
    }
}

/// A news page whose story sits in a declared `main`, followed (outside it, in the same
/// wrapper) by a "more news" list of teaser articles, each a headline and an excerpt.
/// The teasers' classes (`post`, `hentry`) score them as well as the story scores, so
/// their wrapper, which holds the story too, is chosen; the teasers, each under a fifth of
/// the story's text, are left out of it, and the story is the whole main content.
#[test]
fn teaser_articles_beside_the_story_are_left_out_of_a_wrapper_chosen() {
    let story = each(14, |i| {
        format!(
                "<p>Paragraph {i} of the story tells how the team played in the cold, with the coach saying that the veterans, the rookies and the goalie all did their part tonight.</p>"
            )
    });
    let teasers = each(6, |i| {
        format!(
                "<li><article class=\"more-posts-view archive-view post type-post hentry category-sports\"><figure><a href=\"/t{i}\"><img src=\"/i{i}.jpg\"></a></figure>\
                 <div class=\"article-info\"><header><h5 class=\"entry-title\"><a href=\"/t{i}\">Other story number {i} of the week</a></h5>\
                 <div class=\"entry-meta\"><time>November 18, 2019</time></div></header>\
                 <div class=\"excerpt\">Teaser {i}: maybe the team has found, at last, its own way to fix the problems of the season, and the forwards, the defence and the coach agree on it...</div></div></article></li>"
            )
    });
    let html = format!(
        "<html><body><header><nav><a href=\"/\">Home</a> <a href=\"/sports\">Sports</a></nav></header>\
         <div id=\"content\" class=\"site-content\"><div class=\"header-banners\"><div class=\"dfp-ad\"></div></div>\
         <div id=\"primary\" class=\"content-area\"><main id=\"main\" class=\"site-main\" role=\"main\">\
         <article class=\"full-view post type-post hentry category-sports\"><header><h1 class=\"entry-title\">The team wins in the cold</h1></header>\
         <div class=\"entry-content\"><div class=\"article-body\"><div class=\"body-copy\">{story}</div></div></div></article></main></div>\
         <div class=\"more-news\"><h2 class=\"widget-title\">More news</h2><ul>{teasers}</ul></div></div>\
         <footer><p>Copyright</p></footer></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("Paragraph 0 of the story"), "{text}");
    assert!(text.contains("Paragraph 13 of the story"), "{text}");
    assert!(!text.contains("Teaser"), "{text}");
}

/// A story's byline (`div class="byline"`, with the author's name, title and links) and
/// the author box under it (`div class="post-author"`) name who wrote it, not what it
/// says: left out, as the frame is, while the story is kept; so are those named in other
/// languages, and the comments.
#[test]
fn bylines_and_author_boxes_are_left_out_of_the_story() {
    let story = each(8, |i| {
        format!(
                "<p>Paragraph {i} of the review: the new consoles, the streaming services and the phones all want a share of what we spend on games, and each asks for it again.</p>"
            )
    });
    let html = format!(
        "<html><body><div id=\"page\"><div class=\"story\"><h1>So many ways to play</h1>\
         <div class=\"clearfix byline-wrap\"><div class=\"byline article__byline\"><span>By</span>\
         <div class=\"author\"><span class=\"name\">Pat Example</span><div class=\"info-title\">The Daily Paper</div></div></div></div>\
         {story}<div class=\"post-author\"><h3>About Pat Example</h3><p>Pat writes about games and gadgets, and lives with two cats, a piano and far too many consoles.</p></div>\
         </div></div></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("So many ways to play"), "{text}");
    assert!(text.contains("Paragraph 0 of the review"), "{text}");
    assert!(text.contains("Paragraph 7 of the review"), "{text}");
    assert!(!text.contains("Pat Example"), "{text}");
    assert!(!text.contains("The Daily Paper"), "{text}");
    assert!(!text.contains("two cats"), "{text}");
    // The same in Spanish and French: `autor`, `auteur`, and the comments' `comentarios`.
    let historia = each(8, |i| {
        format!(
            "<p>Párrafo {i} de la noticia: el juez decidirá la semana que viene si acepta el recurso, \
             y la fiscalía estudia ahora los argumentos de las dos partes.</p>"
        )
    });
    let es = main_text(&format!(
        "<html><body><article><h3>El juez decidirá sobre el recurso</h3>\
         <div class=\"box valora\"><p class=\"autor pull-left\"><strong>Ana Ejemplo</strong> | Palma | 08/01/2014</p></div>\
         {historia}<div class=\"auteur\">Par Jean Exemple, correspondant à Palma depuis dix ans.</div>\
         <div id=\"comentarios\"><p>Un comentario de un lector que opina sobre la noticia de hoy, con muchas palabras.</p></div>\
         </article></body></html>"
    ));
    assert!(es.contains("Párrafo 0 de la noticia"), "{es}");
    assert!(es.contains("Párrafo 7 de la noticia"), "{es}");
    for frame in ["Ana Ejemplo", "Jean Exemple", "Un comentario"] {
        assert!(!es.contains(frame), "{frame}: {es}");
    }
}

/// The labels a site puts between a story's parts, its date lines and byline are left
/// out (the headline stays); a label of other stories takes their list with it, up to a
/// block long enough to be the story's own; a label's words inside a sentence stay.
#[test]
fn labels_date_lines_and_lists_of_other_stories_are_left_out() {
    let story = each(6, |i| {
        format!(
            "<p>Paragraph {i} of the match report: the visitors pressed from the start, hit the post twice and still went home with nothing, as the rain came down.</p>"
        )
    });
    let teasers = each(4, |i| {
        format!(
            "<li><a href=\"/news/{i}\"><figure></figure></a><h4><a href=\"/news/{i}\">Other match {i}</a></h4><p>A short line on other match {i} and its coach.</p></li>"
        )
    });
    let html = format!(
        "<html><body><div class=\"story\"><h1>Rain and the post</h1>\
         <div class=\"meta\">Posted: Fri 6:45 PM, Feb 16, 2018 |</div><div class=\"meta\">By Leigh Ann Caldwell</div>\
         {story}<div class=\"slot\">ADVERTISEMENT</div><p>Comments from the coach came later: advertisement boards, he said, had blocked the view of the bench for the whole second half.</p>\
         <div class=\"latest-news-box\"><div class=\"title\"><span>Our Latest Stories</span></div><ul>{teasers}</ul>\
         <p>The last word of the report, long enough to be its own paragraph again: the club said the pitch would be relaid over the summer, at a cost the board would not name, and that the new drains would be tested before the first home game of the season.</p></div>\
         </div></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("Rain and the post"), "{text}");
    assert!(text.contains("Paragraph 5 of the match report"), "{text}");
    assert!(text.contains("Comments from the coach"), "{text}");
    assert!(text.contains("The last word of the report"), "{text}");
    for gone in [
        "Posted:",
        "Leigh Ann",
        "ADVERTISEMENT",
        "Our Latest",
        "Other match",
        "A short line",
    ] {
        assert!(!text.contains(gone), "{gone}: {text}");
    }
}

/// A story's Drupal byline (`div class="submitted"`) and the list of related links after
/// it, named by a compound of `related` (`li-relatedlinks`, `relatedarticles`) with
/// teasers that each carry a date and a topic, are the frame.
#[test]
fn drupal_bylines_and_related_compounds_are_left_out_of_the_story() {
    let story = each(8, |i| {
        format!(
                "<p>Paragraph {i} of the report: the council met on Monday, heard the residents, the builders and the inspectors, and put off its vote until the new year.</p>"
            )
    });
    let related = each(4, |i| {
        format!(
                "<li class=\"teaser\"><a href=\"/news/{i}\">Earlier report {i} on the building works</a><p class=\"date\">6 December 2012</p>, <p class=\"topics\"><a href=\"/topics/city\">City</a></p></li>"
            )
    });
    let html = format!(
        "<html><body><div class=\"story-body\"><h1>Council puts off its vote</h1>\
         <div class=\"submitted\">Submitted on Mon, 2019-01-21 13:49 by the city desk</div>{story}\
         <div class=\"list li-relatedlinks\"><h3 class=\"title\">Related content</h3><ul>{related}</ul></div>\
         <div class=\"relatedarticles\"><h3>More from the city desk, with the week's other stories</h3></div>\
         </div></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("Council puts off its vote"), "{text}");
    assert!(text.contains("Paragraph 0 of the report"), "{text}");
    assert!(text.contains("Paragraph 7 of the report"), "{text}");
    assert!(!text.contains("Submitted on"), "{text}");
    assert!(!text.contains("Related content"), "{text}");
    assert!(!text.contains("6 December 2012"), "{text}");
    assert!(!text.contains("More from the city desk"), "{text}");
}

/// An article's lead written straight into a `div` beside the story's container (no `p`
/// in it), too long to be kept as what introduces the story (over 200 bytes with the
/// headline), is a paragraph of the story, as Readability reads it, and kept with the
/// story; the share bar beside it is not.
#[test]
fn a_lead_in_a_div_of_its_own_text_is_kept_with_the_story() {
    let story = each(7, |i| {
        format!(
            "<p>Paragraph {i} of the report: the clashes went on through the night near the \
             fuel plant, and the public defender's office counted the injured.</p>"
        )
    });
    let html = format!(
        "<html><body><div class=\"article\"><h1>Three die in clashes near a fuel plant</h1>\
         <div class=\"article__share\"><a href=\"/s\">Share</a></div>\
         <div class=\"article__summary summary\">Three people have died during protests \
         against the interim government, after clashes erupted between the former leader's \
         supporters and the security forces; thirty more were hurt, the public defender's office \
         said, and the roads to the capital stayed closed.</div>\
         <div class=\"article__text text\">{story}</div></div></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("Three people have died"), "{text}");
    assert!(text.contains("Paragraph 0 of the report"), "{text}");
    assert!(text.contains("Paragraph 6 of the report"), "{text}");
    assert!(!text.contains("Share"), "{text}");
}

/// Share and like blocks named by their plugin (Jetpack's `sharedaddy` likes, whose id
/// names the post they like; Social Pug's `dpsp-share-text`) are the frame, even where
/// another token of the element names content; a story word alone is still content.
#[test]
fn plugin_blocks_are_the_frame_whatever_their_ids_say() {
    let story = each(8, |i| {
        format!(
            "<p>Paragraph {i} of the post: the senate rose early on Tuesday after a motion \
             in honour of two former members, and will sit again next week.</p>"
        )
    });
    let html = format!(
        "<html><body><div class=\"post-entry\"><h1>The senate rises early</h1>\
         <p class=\"dpsp-share-text\">Sharing is caring!</p>{story}\
         <div class=\"sharedaddy sd-block sd-like\" id=\"like-post-wrapper-6032\">\
         <h3 class=\"sd-title\">Like this:</h3><span class=\"loading\">Loading...</span></div>\
         <div id=\"jp-relatedposts\" class=\"jp-relatedposts\"><h3>Related posts on the same page</h3></div>\
         </div></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("The senate rises early"), "{text}");
    assert!(text.contains("Paragraph 0 of the post"), "{text}");
    assert!(text.contains("Paragraph 7 of the post"), "{text}");
    assert!(!text.contains("Sharing is caring"), "{text}");
    assert!(!text.contains("Like this"), "{text}");
    assert!(!text.contains("Loading"), "{text}");
    assert!(!text.contains("Related posts"), "{text}");
}

/// A photo's caption and credit (`figcaption`) describe the figure, not the story: left
/// out of the text, while the story around the figure is kept.
#[test]
fn figure_captions_are_not_text() {
    let story = each(8, |i| {
        format!(
                "<p>Paragraph {i} of the story: the carmaker showed its new sedan on Tuesday, with a range of 300 miles, a price under $40,000 and deliveries next spring.</p>"
            )
    });
    let html = format!(
        "<html><body><article><h1>A new sedan</h1><figure><img src=\"car.jpg\" alt=\"\">\
         <figcaption>The designers stand beside the sedan at the show in Los Angeles. Photo: A. Photographer, Wire Service</figcaption></figure>\
         {story}</article></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("A new sedan"), "{text}");
    assert!(text.contains("Paragraph 0 of the story"), "{text}");
    assert!(text.contains("Paragraph 7 of the story"), "{text}");
    assert!(!text.contains("designers stand"), "{text}");
    assert!(!text.contains("Wire Service"), "{text}");
}

/// Captions and credits marked by their class (a `div`, not a `figcaption`) describe a
/// photo too: left out, with the story around them kept; a bare `caption` (javadoc titles
/// its tables so) and a table's caption stay text.
#[test]
fn captions_and_credits_named_by_class_are_not_text() {
    let story = each(8, |i| {
        format!(
            "<p>Paragraph {i} of the story: the airline ordered thirty new jets on Monday, \
             with options for twenty more, and said deliveries would start in two years.</p>"
        )
    });
    let html = format!(
        "<html><body><article><h1>Thirty new jets</h1>\
         <div class=\"InlineImage-imageEmbed\"><img src=\"jet.jpg\" alt=\"\">\
         <div class=\"InlineImage-imageEmbedCaption\">The chairman passes a jet at the air show in Dubai on Monday.</div>\
         <div class=\"InlineImage-imageEmbedCredit\">A. Photographer | Wire Service</div></div>\
         <div class=\"content-img\"><img src=\"a.jpg\"><div class=\"credits\">Copyright Second Photographer</div></div>\
         <div class=\"wp-caption aligncenter\"><img src=\"b.jpg\"><p class=\"wp-caption-text\">The hangar where the jets are built.</p></div>\
         <div class=\"photo\"><p><img src=\"c.jpg\"></p><span class=\"newsCaption\">Crowds fill the terminal at dawn \
         <span class=\"photoCredit\">(Image: Agency)</span></span></div>\
         {story}\
         <div class=\"caption\"><span>Orders by year</span></div>\
         <div class=\"table-caption\">Deliveries by month</div>\
         <table><tr><td>2024</td><td>12 jets ordered and delivered</td></tr></table>\
         </article></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("Thirty new jets"), "{text}");
    assert!(text.contains("Paragraph 0 of the story"), "{text}");
    assert!(text.contains("Paragraph 7 of the story"), "{text}");
    assert!(!text.contains("chairman passes"), "{text}");
    assert!(!text.contains("Wire Service"), "{text}");
    assert!(!text.contains("Second Photographer"), "{text}");
    assert!(!text.contains("hangar"), "{text}");
    assert!(!text.contains("Crowds fill"), "{text}");
    assert!(!text.contains("Agency"), "{text}");
    assert!(text.contains("Orders by year"), "{text}");
    assert!(text.contains("Deliveries by month"), "{text}");
}

/// A story written in two parts of one class around a call to action (Webflow's two `div
/// class="w-richtext"` with a demo's sign-up between them): the shorter part, its
/// introduction, scores under a fifth of the longer, and comes with it as a part of the
/// same kind, as Readability adds a fifth of the best's score to a sibling of its class
/// (the short call to action between two chosen parts comes as what introduces the
/// second). A sibling of another class scoring as little stays out.
#[test]
fn a_sibling_of_the_choices_class_is_a_part_of_it() {
    let intro = "<p>Electrical contractors build the power systems of homes and plants and \
                 their work grows every year with new data centres across the country</p>\
                 <p>We read the two best known yearly lists of them to find the firms that \
                 lead the trade and what sets each of them apart from the rest</p>";
    let body = each(14, |i| {
        format!(
            "<p>Firm {i} of the list, with its seat in a large city, employs many thousands \
             of people, grew its revenue by a third last year, and builds substations, \
             transmission lines, and the wiring of new towers, mostly for utilities.</p>"
        )
    });
    let page = |class: &str| {
        format!(
            "<html><body><div id=\"post\"><div class=\"{class}\">{intro}</div>\
             <div class=\"cta\"><p>See the tool they use.</p><a href=\"/demo\">Book a demo</a></div>\
             <div class=\"w-richtext\">{body}</div></div></body></html>"
        )
    };
    let text = main_text(&page("w-richtext"));
    assert!(text.contains("Firm 13 of the list"), "{text}");
    assert!(text.contains("Electrical contractors build"), "{text}");
    assert!(text.contains("what sets each of them apart"), "{text}");
    let text = main_text(&page("w-teaser"));
    assert!(text.contains("Firm 13 of the list"), "{text}");
    assert!(!text.contains("Electrical contractors build"), "{text}");
    assert_eq!(class_key(b" a b "), class_key(b"a b"));
    assert_ne!(class_key(b"a b"), class_key(b"a  b"));
    assert_eq!(class_key(b"  "), 0);
}

/// A page React streams: its shell (a menu, a "Loading" placeholder) first, then each
/// Suspense boundary's content in a `div hidden id="S:n"` that an inline script moves into
/// place. That content is the page's; a `div hidden` with any other id, or `S:` and no
/// number, stays hidden.
#[test]
fn a_boundary_react_streams_is_the_pages_content() {
    let story = each(6, |i| {
        format!(
            "<p>Paragraph {i} of the review: the new kettle boils a litre in three minutes, \
             keeps the water warm for an hour and is quiet enough for an early kitchen.</p>"
        )
    });
    let html = format!(
        "<html><body><nav><a href=\"/\">Home</a> <a href=\"/shop\">Shop</a> \
         <a href=\"/blog\">Blog</a></nav>\
         <main><!--$?--><template id=\"B:0\"></template><p>Loading</p><!--/$--></main>\
         <footer><p>Kettles and more, since 1990. All rights reserved.</p></footer>\
         <div hidden id=\"S:0\"><article><h1>The quiet kettle</h1>{story}</article></div>\
         <div hidden id=\"drawer\"><p>Your basket holds the cordless kettle and three \
         filters, saved from your last visit to the shop a week ago.</p></div>\
         <div hidden id=\"S:x\"><p>Sign up for our letter and hear of every new kettle \
         before it reaches the shop, with a tenth off your first order.</p></div>\
         <script>$RC(\"B:0\",\"S:0\")</script></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("The quiet kettle"), "{text}");
    assert!(text.contains("Paragraph 5 of the review"), "{text}");
    for hidden in ["Your basket", "Sign up for our letter", "Kettles and more"] {
        assert!(!text.contains(hidden), "{hidden}: {text}");
    }
    assert!(is_streamed_id(b"S:12") && !is_streamed_id(b"S:") && !is_streamed_id(b"s:1"));
    assert!(!is_streamed_id(b"S:x") && !is_streamed_id(b"B:0"));
}

/// Inline elements hidden from the eye are left out as hidden blocks are: text for screen
/// readers only (`sr-only`, `screen-reader-text`, `visuallyHidden`) and `display` written in
/// capitals; the words around them stay.
#[test]
fn hidden_spans_are_left_out_however_they_are_named() {
    let story = each(6, |i| {
        format!(
            "<p>Paragraph {i} of the report: the council voted to rebuild the old bridge over \
             the river, and work on the new deck starts in the spring.</p>"
        )
    });
    let html = format!(
        "<html><body><article><h1>The bridge will be rebuilt</h1>\
         <p><span class=\"sr-only\">Published on</span> Monday, by the city desk. \
         <a href=\"/more\">Read on<span class=\"screen-reader-text\"> about the vote in full</span></a></p>\
         {story}\
         <p>The mayor welcomed the vote<span class=\"visuallyHidden\"> (opens a transcript)</span>, \
         and the works begin in April<span STYLE=\"DISPLAY: NONE\">tracking pixel text</span>.</p>\
         </article></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("Monday, by the city desk"), "{text}");
    assert!(text.contains("Paragraph 5 of the report"), "{text}");
    assert!(
        text.contains("The mayor welcomed the vote, and the works begin in April."),
        "{text}"
    );
    for hidden in [
        "Published on",
        "in full",
        "opens a transcript",
        "tracking pixel",
    ] {
        assert!(!text.contains(hidden), "{hidden}: {text}");
    }
}

/// Class values that name a caption or a credit, and those that do not.
#[test]
fn caption_classes_are_told_from_table_captions() {
    for yes in [
        "credits",
        "photo-credit",
        "inlineimage-imageembedcredit",
        "wp-caption",
        "image-caption",
        "imageembedcaption",
        "photocaptions",
    ] {
        assert!(is_caption_class(yes.as_bytes()), "{yes}");
    }
    for no in [
        "caption",
        "captions",
        "table-caption",
        "tablecaption",
        "caption-text",
        "captiontitle",
        "",
        "-",
    ] {
        assert!(!is_caption_class(no.as_bytes()), "{no}");
    }
}

/// An API page as rustdoc writes it: each method's signature is a heading marked
/// `code-header` (and each section's title `section-header`), and the trait
/// implementations, one long list of the trait's provided methods, outweigh the type's
/// description and its own methods above them in the same `main`. The signatures are text
/// of the content (a heading marked a header is not the page's header), and the whole
/// `main` is the content: what it holds beside the implementations reads as text.
#[test]
fn an_api_page_keeps_its_signatures_and_its_description_beside_long_trait_docs() {
    let provided = each(60, |i| {
        format!(
                "<details class=\"toggle method-toggle\" open><summary><section id=\"method.m{i}\" class=\"method trait-impl\">\
                 <a class=\"src rightside\" href=\"s.html\">Source</a><h4 class=\"code-header\">fn <a href=\"#method.m{i}\" class=\"fn\">method_{i}</a>(self) -&gt; \
                 <a href=\"o.html\">Option</a>&lt;Self::Item&gt;</h4></section></summary>\
                 <div class=\"docblock\">Provided method {i} consumes the iterator, folding every element into an accumulator, and returns the result. <a href=\"x\">Read more</a></div></details>"
            )
    });
    let html = format!(
        "<html><body><nav class=\"sidebar\"><a href=\"/\">crate</a></nav><main><div class=\"width-limiter\"><section id=\"main-content\" class=\"content\">\
         <div class=\"main-heading\"><h1>Struct <span class=\"struct\">Needles</span></h1></div>\
         <pre class=\"rust item-decl\"><code>pub struct Needles&lt;'h&gt; {{ /* private fields */ }}</code></pre>\
         <details class=\"toggle top-doc\" open><summary class=\"hideme\"><span>Expand description</span></summary><div class=\"docblock\">\
         <p>An iterator over all occurrences of a single byte in a haystack, from the front or from the back.</p></div></details>\
         <h2 id=\"implementations\" class=\"section-header\">Implementations</h2><div id=\"implementations-list\"><details class=\"toggle implementors-toggle\" open><summary>\
         <section class=\"impl\"><h3 class=\"code-header\">impl&lt;'h&gt; <a href=\"#\">Needles</a>&lt;'h&gt;</h3></section></summary><div class=\"impl-items\">\
         <section id=\"method.new\" class=\"method\"><h4 class=\"code-header\">pub fn <a href=\"#method.new\" class=\"fn\">new</a>(needle: u8, haystack: &amp;'h [u8]) -&gt; Needles&lt;'h&gt;</h4></section>\
         <div class=\"docblock\"><p>Returns an iterator over all occurrences of the needle byte in the given haystack.</p></div></div></details></div>\
         <h2 id=\"trait-implementations\" class=\"section-header\">Trait Implementations</h2><div id=\"trait-implementations-list\">\
         <details class=\"toggle implementors-toggle\" open><summary><section class=\"impl\"><h3 class=\"code-header\">impl&lt;'h&gt; <a href=\"i.html\">Iterator</a> for Needles&lt;'h&gt;</h3></section></summary>\
         <div class=\"impl-items\">{provided}</div></details></div></section></div></main></body></html>"
    );
    let text = main_text(&html);
    assert!(
        text.contains("pub fn new(needle: u8, haystack: &'h [u8]) -> Needles<'h>"),
        "{text}"
    );
    assert!(
        text.contains("fn method_7(self) -> Option<Self::Item>"),
        "{text}"
    );
    assert!(text.contains("An iterator over all occurrences"), "{text}");
    assert!(text.contains("Returns an iterator over all"), "{text}");
    assert!(text.contains("Provided method 59"), "{text}");
    assert!(!text.contains("crate"), "{text}");
}

/// A declaration whose names are all links (rustdoc's type alias `pub type U5 = UInt<...>`,
/// each type a link to its page) is code, not a list of links: a block in a `pre` is never
/// left out as one, so the page's main content holds its declaration. A line of the same
/// links outside a `pre` still is one.
#[test]
fn a_declaration_of_links_in_pre_is_code_not_a_list_of_links() {
    let ty = |name: &str| {
        format!("<a class=\"struct\" href=\"../uint/struct.{name}.html\" title=\"struct typenum::uint::{name}\">{name}</a>")
    };
    let decl = format!(
        "pub type U5 = {u}&lt;{u}&lt;{u}&lt;{t}, {b1}&gt;, {b0}&gt;, {b1}&gt;;",
        u = ty("UInt"),
        t = ty("UTerm"),
        b1 = ty("B1"),
        b0 = ty("B0")
    );
    let html = format!(
        "<html><body><nav class=\"sidebar\"><a href=\"/\">typenum</a></nav><main><section id=\"main-content\" class=\"content\">\
         <div class=\"main-heading\"><h1>Type Alias <span class=\"type\">U5</span></h1></div>\
         <pre class=\"rust item-decl\"><code>{decl}</code></pre>\
         <h2 id=\"aliased-type\" class=\"section-header\">Aliased Type</h2>\
         <pre class=\"rust item-decl\"><code>pub struct U5 {{ /* private fields */ }}</code></pre>\
         <div class=\"see\">{u} {t} {b1} {b0}</div></section></main></body></html>",
        u = ty("UInt"),
        t = ty("UTerm"),
        b1 = ty("B1"),
        b0 = ty("B0")
    );
    let text = main_text(&html);
    assert!(
        text.contains("pub type U5 = UInt<UInt<UInt<UTerm, B1>, B0>, B1>;"),
        "{text}"
    );
    assert!(text.contains("pub struct U5"), "{text}");
    assert!(!text.contains("UInt UTerm B1 B0"), "{text}");
}

/// A class page of an API site whose summary is the lists of methods it inherits: long
/// lists of links with commas between them, which must not outscore the class's
/// description by the commas between their links (they are left out of the text as link
/// lists), so the page's main content is its description and not the lists' headings.
/// [`commas`] as it was first written: each character decoded and compared.
fn commas_by_char(s: &str) -> usize {
    s.chars()
        .filter(|c| {
            matches!(
                c,
                ',' | '\u{060C}'
                    | '\u{FE50}'
                    | '\u{FE10}'
                    | '\u{FE11}'
                    | '\u{2E41}'
                    | '\u{2E34}'
                    | '\u{2E32}'
                    | '\u{FF0C}'
                    | '\u{3001}'
            )
        })
        .count()
}

#[test]
fn commas_found_by_their_bytes_are_the_characters() {
    // Random text of the commas, characters that share their lead bytes (`’`, `€`, `…`,
    // kana, `﻿`, Arabic letters), other scripts and ASCII, at every length around the
    // 64-byte switch.
    let pieces = [
        ",",
        "a",
        " ",
        "\u{060C}",
        "\u{FE50}",
        "\u{FE10}",
        "\u{FE11}",
        "\u{2E41}",
        "\u{2E34}",
        "\u{2E32}",
        "\u{FF0C}",
        "\u{3001}",
        "\u{2019}",
        "\u{20AC}",
        "\u{2026}",
        "\u{2E33}",
        "\u{3002}",
        "\u{3042}",
        "\u{FEFF}",
        "\u{FF0E}",
        "\u{0628}",
        "\u{060D}",
        "é",
        "\u{1F600}",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut with_other = 0;
    for round in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = (state % 90) as usize;
        let mut s = String::new();
        let mut r = state;
        for _ in 0..len {
            r = r
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(round);
            s.push_str(pieces[(r >> 33) as usize % pieces.len()]);
        }
        let want = commas_by_char(&s);
        assert_eq!(commas(&s), want, "{s:?}");
        with_other += usize::from(want > s.matches(',').count());
    }
    assert!(with_other > 10_000, "{with_other} texts held other commas");
}

#[test]
fn a_tags_key_holds_what_judge_reads_and_nothing_else() {
    let mut key = Vec::new();
    read_attributes(
        br#" href="/a" class="Post-Body" data-x=1 ID='main' STYLE="display: none" hidden aria-hidden="true" role=main itemprop="text" title="x""#,
        &mut key,
    );
    let read: Vec<(&[u8], &[u8])> = read_back(&key).collect();
    let want: [(&[u8], &[u8]); 7] = [
        (b"class", b"Post-Body"),
        (b"id", b"main"),
        (b"style", b"display: none"),
        (b"hidden", b""),
        (b"aria-hidden", b"true"),
        (b"role", b"main"),
        (b"itemprop", b"text"),
    ];
    assert_eq!(read, want);
    // Tags that differ in their links or data share a key (and a judgement); a class
    // that differs does not.
    let key_of = |attrs: &[u8]| {
        let mut k = Vec::new();
        read_attributes(attrs, &mut k);
        k
    };
    assert_eq!(
        key_of(br#" class="card" href="/one" data-id="1""#),
        key_of(br#" data-id="2" class="card" href="/two""#)
    );
    assert_ne!(
        key_of(br#" class="card""#),
        key_of(br#" class="card hidden""#)
    );
    assert_ne!(key_of(br#" class="nav""#), key_of(br#" id="nav""#));
    assert!(key_of(br#" href="/a" src="b.png" alt="c""#).is_empty());
    assert_eq!(judge(br#" href="/a" src="b.png""#), Marks::default());
    // A key is read back whole, whatever its values hold.
    let odd = b" class=\"\x00\x01\x05\xff\" id=\"\"";
    let odd_key = key_of(odd);
    let read: Vec<(&[u8], &[u8])> = read_back(&odd_key).collect();
    assert_eq!(
        read,
        [(&b"class"[..], &b"\x00\x01\x05\xff"[..]), (b"id", b"")]
    );
}

#[test]
fn read_codes_are_the_listed_names_in_any_case() {
    let reference = |name: &[u8]| {
        READ_ATTRIBUTES
            .iter()
            .position(|n| name.eq_ignore_ascii_case(n))
            .map(|c| c as u8)
    };
    let mut names: Vec<Vec<u8>> = Vec::new();
    for n in READ_ATTRIBUTES {
        names.push(n.to_vec());
        names.push(n.to_ascii_uppercase());
        let mut mixed = n.to_vec();
        mixed[0] = mixed[0].to_ascii_uppercase();
        names.push(mixed);
        // One byte changed, at each place: a name of the same length that is not one.
        for i in 0..n.len() {
            let mut near = n.to_vec();
            near[i] ^= 1;
            names.push(near);
        }
        names.push(n[1..].to_vec());
        names.push([n, b"x"].concat());
    }
    for other in [
        "href", "src", "title", "lang", "data-id", "ide", "", "styles", "rolex",
    ] {
        names.push(other.as_bytes().to_vec());
    }
    for name in &names {
        assert_eq!(
            read_code(name),
            reference(name),
            "{:?}",
            String::from_utf8_lossy(name)
        );
    }
}

#[test]
fn recent_sets_are_found_by_their_bytes_only() {
    let mut recent = Recent::default();
    let marks = |w: f32| Marks {
        weight: w,
        ..Marks::default()
    };
    fn put(recent: &mut Recent, attrs: &[u8], m: Marks) {
        if let Some(s) = recent.slot(attrs) {
            s.hold(attrs, m);
        }
    }
    fn get(recent: &mut Recent, attrs: &[u8]) -> Option<Marks> {
        recent.slot(attrs).and_then(|s| s.marks_of(attrs))
    }
    put(&mut recent, b" class=\"post\"", marks(25.0));
    assert_eq!(get(&mut recent, b" class=\"post\""), Some(marks(25.0)));
    assert_eq!(get(&mut recent, b" class=\"Post\""), None);
    // Sets longer than a slot are not kept.
    let long = [b" class=\"".as_slice(), &[b'a'; RECENT_BYTES]].concat();
    put(&mut recent, &long, marks(1.0));
    assert_eq!(get(&mut recent, &long), None);
    // Two sets of one length that share a slot: the later one holds it, and the earlier
    // is not mistaken for it.
    let first = b" id=\"00000\"".to_vec();
    let second = (1..100_000)
        .map(|i| format!(" id=\"{i:05}\"").into_bytes())
        .find(|c| Recent::index(c) == Recent::index(&first))
        .expect("a set in the same slot");
    put(&mut recent, &first, marks(-25.0));
    put(&mut recent, &second, marks(50.0));
    assert_eq!(get(&mut recent, &second), Some(marks(50.0)));
    assert_eq!(get(&mut recent, &first), None);
}

#[test]
fn lists_of_links_do_not_outscore_the_description_by_their_commas() {
    let names = [
        "addFocusListener",
        "contains",
        "getAccessibleAt",
        "getBackground",
        "getBounds",
        "getCursor",
        "getFont",
        "getFontMetrics",
        "getForeground",
        "getLocation",
        "getLocationOnScreen",
        "getSize",
        "isEnabled",
        "isFocusTraversable",
        "isShowing",
        "isVisible",
        "removeFocusListener",
        "requestFocus",
        "setBackground",
        "setBounds",
        "setCursor",
        "setEnabled",
        "setFont",
        "setForeground",
        "setLocation",
        "setSize",
        "setVisible",
    ];
    let inherited: String = ["AccessibleContext", "AccessibleComponent", "AccessibleAWTComponent"]
        .iter()
        .map(|c| {
            let links: Vec<String> = names
                .iter()
                .map(|m| format!("<a href=\"{c}.html#{m}()\">{m}</a>"))
                .collect();
            format!(
                "<div class=\"inherited-list\"><h3>Methods declared in class&nbsp;javax.accessibility.<a href=\"{c}.html\">{c}</a></h3><code>{}</code></div>",
                links.join(", ")
            )
        })
        .collect();
    let html = format!(
        "<html><body><header><nav><a href=/>Overview</a></nav></header><main role=\"main\">\
         <section class=\"class-description\"><div class=\"block\">This class implements accessibility support for the <code>JProgressBar</code> class. \
         It provides an implementation of the Java Accessibility API appropriate to progress bar user-interface elements. \
         <p>Serialized objects of this class will not be compatible with future releases, and the current serialization support is appropriate for short term storage.</div></section>\
         <section class=\"summary\"><ul class=\"summary-list\"><li><section class=\"method-summary\">{inherited}</section></li></ul></section></main></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("implements accessibility support"), "{text}");
    assert!(!text.contains("setVisible"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
}

/// A package page of an API site: its table of classes holds about two thirds of the
/// declared `main`, its description (sentences with linked names in them) and the related
/// packages the rest. The description is the page's own, what tells it from the package's
/// use page, which lists the same classes with the same descriptions.
#[test]
fn a_table_of_two_thirds_of_a_declared_main_brings_the_main() {
    let rows = each(24, |k| {
        format!("<div class=col-first><a href=E{k}.html>Kind{k}Event</a></div><div class=col-last><div class=block>Notification of an event of kind {k} in the target VM.</div></div>")
    });
    let html = format!(
        "<html><body><nav><a href=/>Overview</a><a href=/p>Package</a></nav><main role=main>\
         <div class=header><h1>Package com.sun.jdi.event</h1></div>\
         <section class=package-description><div class=block>This package defines JDI events and event processing. \
         An <a href=Event.html>Event</a> is always a member of an <a href=EventSet.html>EventSet</a>, which is retrieved \
         from the <a href=EventQueue.html>EventQueue</a>. Examples of events include <a href=B.html>breakpoint events</a>, \
         <a href=T.html>thread creation events</a> and <a href=D.html>virtual machine death events</a>. With the exception \
         of termination events, all events received must be requested with an <a href=R.html>EventRequest</a>. The \
         <a href=r.html>com.sun.jdi.request</a> package defines event requests and event request management.\
         <p>Methods may be added to the interfaces in the JDI packages in future releases. Existing packages may be \
         renamed if the JDI becomes a standard extension.</div></section>\
         <section class=summary><ul class=summary-list><li><div id=related-package-summary><div class=caption>Related Packages</div>\
         <div class=summary-table><div class=col-first><a href=../package-summary.html>com.sun.jdi</a></div>\
         <div class=col-last><div class=block>This is the core package of the Java Debug Interface.</div></div></div></div></li>\
         <li><div id=class-summary><div class=caption>Interfaces</div><div class=summary-table>{rows}</div></div></li></ul></section>\
         </main></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("defines JDI events"), "{text}");
    assert!(text.contains("of kind 23 in the target"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
}

/// An interface's page whose method summary holds between a fifth and a quarter of the
/// declared `main` (its description, summary and details): the `main` is the content, not
/// the summary the interface shares with every class that implements it.
#[test]
fn a_method_summary_of_under_a_quarter_of_the_main_brings_the_main() {
    let methods = [
        ("addLayoutComponent", "If the layout manager uses a per-component string, adds the component comp to the layout, associating it with the string given."),
        ("layoutContainer", "Lays out the specified container, placing each of its components where the manager says."),
        ("minimumLayoutSize", "Calculates the minimum size dimensions for the specified container, given the components it contains."),
    ];
    let summary: String = methods
        .iter()
        .map(|(m, d)| format!("<div class=col-first><code>void</code></div><div class=col-second><code><a href=#{m}>{m}</a></code></div><div class=col-last><div class=block>{d}</div></div>"))
        .collect();
    // Each method's details: short notes (none long enough to score), much text in all.
    let notes = each(16, |k| format!("<dt>Note {k}:</dt><dd>see the manual</dd>"));
    let details: String = methods
        .iter()
        .map(|(m, _)| format!("<section class=detail><h3>{m}</h3><div class=block>Lays it out.</div><dl class=notes>{notes}</dl></section>"))
        .collect();
    let html = format!(
        "<html><body><nav><a href=/>Overview</a><a href=/p>Package</a></nav><main role=main>\
         <div class=header><h1>Interface LayoutManager</h1></div>\
         <section class=class-description><div class=type-signature>public interface LayoutManager</div>\
         <div class=block>Defines the interface for classes that know how to lay out Containers.</div></section>\
         <section class=summary><div class=summary-table>{summary}</div></section>\
         <section class=details>{details}</section></main></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("know how to lay out"), "{text}");
    assert!(text.contains("see the manual"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
}

/// A class-use page of an API site: its title sits in a header marked as such, its
/// captions name the class in a link, and its table is what scores. The title and the
/// captions are the page's own (what tells it from the same page of a sibling class);
/// a line of links with commas between them is not.
#[test]
fn a_declared_mains_title_and_its_linked_captions_are_kept() {
    let rows = each(3, |k| {
        format!("<div class=col-first><code>abstract void</code></div><div class=col-second><code><a href=#m{k}>check{k}</a>()</code></div><div class=col-last><div class=block>Checks that the certificate is currently valid, given the date {k}.</div></div>")
    });
    let html = format!(
        "<html><body><header class=flex-header><nav><a href=/>Overview</a></nav></header>\
         <main role=main><div class=header><h1 title=x class=title>Uses of Class<br>java.security.cert.CertificateExpiredException</h1></div>\
         <div class=caption><span>Methods in <a href=p.html>java.security.cert</a> that throw <a href=c.html>CertificateExpiredException</a></span></div>\
         <div class=summary-table>{rows}</div>\
         <div class=inherited><a href=a>addNotify</a>, <a href=b>addAncestorListener</a>, <a href=c>computeVisibleRect</a>, <a href=d>createToolTip</a></div></main>\
         <footer><p>Copyright the site, all rights reserved.</p></footer></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("CertificateExpiredException\n"), "{text}");
    assert!(
        text.contains("Methods in java.security.cert that throw"),
        "{text}"
    );
    assert!(text.contains("currently valid"), "{text}");
    assert!(!text.contains("addNotify"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
    assert!(!text.contains("Copyright"), "{text}");
    // A site's header outside any `main` is its banner still.
    let banner = format!(
        "<html><body><div class=header><h1>The Site</h1></div><div class=post><p>{P1}</p><p>{P2}</p></div></body></html>"
    );
    let text = main_text(&banner);
    assert!(!text.contains("The Site"), "{text}");
    assert!(text.contains(&P1[..40]), "{text}");
}

/// A summary table's linked names (the annotations a class-use page lists, each beside
/// its description) and a section's heading that names its subject in links are the
/// page's text; a run of links is not, nor a heading that is a link alone, nor the last
/// name of a list of links before the next list's heading.
#[test]
fn linked_names_beside_their_text_and_linked_headings_are_kept() {
    let rows: String = ["BeanProperty", "Serial", "Documented"]
        .iter()
        .map(|n| format!("<div class=col-first><code>@interface</code></div><div class=col-second><code><a href=#{n} class=type-name-link>{n}</a></code></div><div class=col-last><div class=block>An annotation that tells the compiler something about the element it marks.</div></div>"))
        .collect();
    let html = format!(
        "<html><body><nav><a href=/>Overview</a></nav><main role=main>\
         <div class=header><h1>Uses of Annotation Interface<br>java.lang.annotation.Target</h1></div>\
         <section class=detail><h2>Uses of <a href=t.html>Target</a> in <a href=p.html>java.beans</a></h2>\
         <div class=caption><span>Classes in <a href=p.html>java.beans</a> with annotations of type <a href=t.html>Target</a></span></div>\
         <div class=summary-table>{rows}</div></section>\
         <section class=inherited><h3><a href=r.html>Related</a></h3>\
         <div class=list><a href=a>addNotify</a>, <a href=b>addAncestorListener</a>, <a href=c>computeVisibleRect</a></div>\
         <div class=list><code><a href=d>itemStateChanged</a></code></div>\
         <h3>Methods declared in class AccessibleAbstractButton</h3></section></main></body></html>"
    );
    let text = main_text(&html);
    for n in ["BeanProperty", "Serial", "Documented"] {
        assert!(text.contains(&format!("\n{n}\n")), "{n}: {text}");
    }
    assert!(text.contains("Uses of Target in java.beans"), "{text}");
    assert!(text.contains("tells the compiler"), "{text}");
    assert!(!text.contains("Related"), "{text}");
    assert!(!text.contains("addNotify"), "{text}");
    assert!(!text.contains("itemStateChanged"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
}

/// A link is kept as the name of the text beside it only when that text is kept: a name
/// beside a share box, which the content leaves out as frame, goes with it.
#[test]
fn a_name_beside_text_left_out_as_frame_goes_with_it() {
    let para = "The roses in the north bed flowered late this year, after a cold spring and a wet start to the summer that kept the soil heavy.";
    let html = format!(
        "<html><body><nav><a href=/>Home</a> <a href=/a>About</a></nav><article>\
         <h1>Garden notes</h1><p>{para}</p><p>{para}</p>\
         <div class=row><div class=name><a href=/tell>Tell a friend</a></div>\
         <div class=share-box>Share this page with your friends on the networks you use every day.</div></div>\
         <p>{para}</p></article></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("cold spring"), "{text}");
    assert!(!text.contains("Share this page"), "{text}");
    assert!(!text.contains("Tell a friend"), "{text}");
}

/// A class-use page of an API site, as its generator writes it: the table of subclasses
/// is the choice, and the section's heading and the caption before it name the class the
/// page is about. Pages of sibling classes list the same subclasses with the same
/// descriptions; their headings and captions differ.
#[test]
fn the_heading_and_caption_before_the_choice_come_with_it() {
    let row = |parity: &str, k: u32| {
        format!(
            "<div class=\"col-first {parity}-row-color\"><code>class&nbsp;</code></div>\n\
             <div class=\"col-second {parity}-row-color\"><code><a href=\"../Walker{k}.html\" class=\"type-name-link\">Walker{k}</a>&lt;R,<wbr>P&gt;</code></div>\n\
             <div class=\"col-last {parity}-row-color\">\n<div class=\"block\">A walker of syntax trees sorted by their <a href=\"../../tree/Kind.html\">kind</a> with default behavior suited to the <a href=\"../../Level.html#LEVEL_{k}\"><code>LEVEL_{k}</code></a> language level.</div>\n</div>\n"
        )
    };
    let page = |name: &str, more: &str| {
        format!(
            "<html><body><header><nav><a href=/>Overview</a><a href=/p>Package</a></nav></header>\n\
             <main role=\"main\">\n<div class=\"header\">\n<h1 title=\"Uses of Class x.{name}\" class=\"title\">Uses of Class<br>x.{name}</h1>\n</div>\n\
             <div class=\"caption\"><span>Packages that use <a href=\"../{name}.html\">{name}</a></span></div>\n\
             <div class=\"summary-table two-column-summary\">\n<div class=\"table-header col-first\">Package</div>\n<div class=\"table-header col-last\">Description</div>\n\
             <div class=\"col-first even-row-color\"><a href=\"#x.walk\">x.walk</a></div>\n<div class=\"col-last even-row-color\">\n\
             <div class=\"block\">Helpers for walking <a href=\"../../tree/package-summary.html\">syntax trees</a> and <a href=\"../../sym/package-summary.html\">symbols</a>.</div>\n</div>\n</div>\n\
             <section class=\"class-uses\">\n<ul class=\"block-list\">\n<li>\n<section class=\"detail\" id=\"x.walk\">\n\
             <h2>Uses of <a href=\"../{name}.html\">{name}</a> in <a href=\"../package-summary.html\">x.walk</a></h2>\n\
             <div class=\"caption\"><span>Subclasses of <a href=\"../{name}.html\">{name}</a> in <a href=\"../package-summary.html\">x.walk</a></span></div>\n\
             <div class=\"summary-table three-column-summary\">\n<div class=\"table-header col-first\">Modifier and Type</div>\n\
             <div class=\"table-header col-second\">Class</div>\n<div class=\"table-header col-last\">Description</div>\n{}{}{}{more}</div>\n\
             </section>\n</li>\n</ul>\n</section>\n</main></body></html>",
            row("even", 14),
            row("odd", 8),
            row("even", 9)
        )
    };
    let text = main_text(&page("Walker7", ""));
    assert!(text.contains("Subclasses of Walker7 in x.walk"), "{text}");
    assert!(text.contains("suited to the LEVEL_8"), "{text}");
    assert!(!text.contains("Overview"), "{text}");
    // Without a heading before it, a caption is not an introduction the rule knows (the
    // table, with more rows, holding over three quarters of the declared `main`, so that
    // the `main` is not taken whole).
    let more: String = (20..26)
        .map(|k| row(if k % 2 == 0 { "even" } else { "odd" }, k))
        .collect();
    let text = main_text(
        &page("Walker7", &more)
            .replace("<h2>", "<div class=uses>")
            .replace("</h2>", "</div>"),
    );
    assert!(!text.contains("Subclasses of"), "{text}");
    assert!(text.contains("suited to the LEVEL_8"), "{text}");
}

/// A class-use page as an API site's generator writes it, whose section holds two
/// tables (the classes that implement an interface; the constructors taking it, the
/// larger): both are the content, and the caption between them, naming the interface,
/// comes with the second, as the heading and caption before the first come with the first
/// (all three together are over the 200 bytes of one introduction). Pages of two
/// interfaces taken by the same constructors differ only there.
#[test]
fn the_caption_between_two_chosen_tables_comes_with_the_second() {
    let link = |to: &str| {
        format!(
            "<a href=\"../{to}.html\" title=\"interface in javax.management.openbean\">{to}</a>"
        )
    };
    let signature = |extra: &str| {
        format!(
            "<code><a href=\"../Support.html#init\" class=\"member-name-link\">OpenBeanInfoSupport</a><wbr>(\
             {s}&nbsp;className, {s}&nbsp;description, {}[]&nbsp;openAttributes, {}[]&nbsp;openConstructors, \
             {}[]&nbsp;openOperations{extra})</code>",
            link("OpenBeanAttributeInfo"),
            link("OpenBeanConstructorInfo"),
            link("OpenBeanOperationInfo"),
            s = "<a href=\"../../String.html\" title=\"class in x.lang\">String</a>"
        )
    };
    let header = |cols: &[&str]| -> String {
        cols.iter()
            .map(|c| format!("<div class=\"table-header col-first\">{c}</div>\n"))
            .collect()
    };
    let page = |name: &str, between: &str| {
        format!(
            "<html><body><header><nav><a href=/>Overview</a> <a href=/p>Package</a></nav></header>\n\
             <main role=\"main\">\n<div class=\"header\"><h1 class=\"title\">Uses of Interface<br>javax.management.openbean.{name}</h1></div>\n\
             <div class=\"caption\"><span>Packages that use {l}</span></div>\n\
             <div class=\"summary-table two-column-summary\">{h2}<div class=\"col-first\"><a href=\"#javax.management.openbean\">javax.management.openbean</a></div>\n\
             <div class=\"col-last\"><div class=\"block\">Provides the open data types and open bean descriptor classes.</div></div></div>\n\
             <section class=\"class-uses\"><ul class=\"block-list\"><li><section class=\"detail\" id=\"javax.management.openbean\">\n\
             <h2>Uses of {l} in <a href=\"../package-summary.html\">javax.management.openbean</a></h2>\n\
             <div class=\"caption\"><span>Classes in <a href=\"../package-summary.html\">javax.management.openbean</a> that implement {l}</span></div>\n\
             <div class=\"summary-table three-column-summary\">{h3}<div class=\"col-first\"><code>class&nbsp;</code></div>\n\
             <div class=\"col-second\"><code><a href=\"../{name}Support.html\">{name}Support</a></code></div>\n\
             <div class=\"col-last\"><div class=\"block\">Describes one part of an open bean.</div></div></div>\n\
             {between}<div class=\"caption\"><span>Constructors in <a href=\"../package-summary.html\">javax.management.openbean</a> with parameters of type {l}</span></div>\n\
             <div class=\"summary-table three-column-summary\">{h3c}<div class=\"col-first\"><code>&nbsp;</code></div>\n\
             <div class=\"col-second\">{}</div>\n<div class=\"col-last\"><div class=\"block\">Constructs an <code>OpenBeanInfoSupport</code> instance, which describes a class of open beans with the specified <code>className</code>, <code>description</code>, <code>openAttributes</code>, <code>openConstructors</code> and <code>openOperations</code>.</div></div>\n\
             <div class=\"col-first\"><code>&nbsp;</code></div>\n<div class=\"col-second\">{}</div>\n<div class=\"col-last\"><div class=\"block\">Constructs an <code>OpenBeanInfoSupport</code> instance, which describes a class of open beans with the specified <code>className</code>, <code>description</code>, <code>openAttributes</code>, <code>openConstructors</code>, <code>openOperations</code>, and <code>descriptor</code>.</div></div></div>\n\
             </section></li></ul></section></main>\n<footer><p>Copyright the site, all rights reserved.</p></footer></body></html>",
            signature(""),
            signature(&format!(", {}&nbsp;descriptor", link("Descriptor"))),
            l = link(name),
            h2 = header(&["Package", "Description"]),
            h3 = header(&["Modifier and Type", "Class", "Description"]),
            h3c = header(&["Modifier", "Constructor", "Description"]),
        )
    };
    let text = main_text(&page("OpenBeanAttributeInfo", ""));
    assert!(
        text.contains("Classes in javax.management.openbean that implement OpenBeanAttributeInfo"),
        "{text}"
    );
    assert!(
        text.contains("Constructors in javax.management.openbean with parameters of type OpenBeanAttributeInfo"),
        "{text}"
    );
    assert!(text.contains("Describes one part"), "{text}");
    assert!(text.contains("and descriptor."), "{text}");
    assert!(!text.contains("Overview"), "{text}");
    assert!(!text.contains("Copyright"), "{text}");
    // A long line between the two tables (over 200 bytes, mostly links, so it is not a
    // part of its own) is not an introduction.
    let long = each(12, |k| {
        format!("<a href=\"../T{k}.html\">javax.management.openbean.SomeOtherType{k}</a> ")
    });
    let text = main_text(&page(
        "OpenBeanAttributeInfo",
        &format!("<div class=\"caption\"><span>See also {long}</span></div>\n"),
    ));
    assert!(!text.contains("SomeOtherType"), "{text}");
    assert!(
        !text.contains("Constructors in javax.management.openbean"),
        "{text}"
    );
    assert!(text.contains("and descriptor."), "{text}");
}

/// A DocBook reference page (a constant of a units library, as its generator chunks one
/// per page): the name and purpose, the synopsis and the description are three `div`s of
/// a `refentry`, none of which scores much alone. The page is the `refentry`, not its
/// purpose line, which every constant of the family repeats.
#[test]
fn a_docbook_reference_page_is_its_refentry() {
    let page = |name: &str, value: &str, what: &str| {
        format!(
            "<html><body><table width=\"100%\"><tr><td><img alt=\"Units\" src=u.png></td>\
             <td><a href=/index.html>Home</a></td><td><a href=/libs.html>Libraries</a></td><td><a href=/faq.html>FAQ</a></td></tr></table><hr>\
             <div class=\"spirit-nav\"><a href=prev.html><img alt=Prev src=p.png></a><a href=next.html><img alt=Next src=n.png></a></div>\
             <div class=\"refentry\"><a name=\"x\"></a><div class=\"titlepage\"></div>\
             <div class=\"refnamediv\"><h2><span class=\"refentrytitle\">Function PHYSICAL_CONSTANT</span></h2>\
             <p>units::si::constants::codata::PHYSICAL_CONSTANT — CODATA recommended values of the fundamental physical constants: NIST SP 961.</p></div>\
             <h2 class=\"refsynopsisdiv-title\">Synopsis</h2>\
             <div class=\"refsynopsisdiv\"><pre class=\"synopsis\"><span class=\"comment\">// In header: &lt;<a class=\"link\" href=\"ref.html#h\">units/systems/si/codata/alpha_constants.hpp</a>&gt;\n\n</span> \
             <span class=\"identifier\">PHYSICAL_CONSTANT</span>(<span class=\"identifier\">{name}</span>, quantity&lt; mass &gt;, {value} * kilograms, 3.3e-34 * kilograms);</pre></div>\
             <div class=\"refsect1\"><a name=\"d\"></a><h2>Description</h2><p>{what}</p></div></div>\
             <table width=\"100%\"><tr><td></td><td><div class=\"copyright-footer\">Copyright 2003-2008 the authors<p>Distributed under the Software License, Version 1.0. (See accompanying file LICENSE or copy at <a href=\"http://example.org/LICENSE\">http://example.org/LICENSE</a>)</p></div></td></tr></table>\
             </body></html>"
        )
    };
    let text = main_text(&page("m_alpha", "6.64465620e-27", "alpha particle mass"));
    assert!(text.contains("CODATA recommended values"), "{text}");
    assert!(text.contains("m_alpha"), "{text}");
    assert!(text.contains("alpha particle mass"), "{text}");
    assert!(!text.contains("Libraries"), "{text}");
    assert!(!text.contains("Distributed under"), "{text}");
}

/// A class template's reference page as DocBook writes it: its name and purpose, a
/// synopsis, a description, then sections of member functions, the last holding most of
/// the page's text. The reference entry is the content, as a declared `main` is: the
/// member functions alone are what every container of the library repeats, and the
/// name, synopsis and description are what tell the page from its siblings'.
#[test]
fn a_section_of_a_docbook_reference_entry_brings_the_entry() {
    let item = |name: &str, what: &str| {
        format!(
            "<li class=\"listitem\"><pre class=\"literallayout\"><span class=\"identifier\">iterator</span> <span class=\"identifier\">{name}</span><span class=\"special\">()</span> <span class=\"keyword\">noexcept</span>;</pre>\
             <p><span class=\"bold\"><strong>Effects</strong></span>: {what} Throws: if value_traits::node_traits::node constructor throws (this does not happen with predefined hooks), or the copy constructor of the key_compare object throws, basic guarantee.</p>\
             <p><span class=\"bold\"><strong>Complexity</strong></span>: Constant.</p><p><span class=\"bold\"><strong>Throws</strong></span>: Nothing.</p></li>"
        )
    };
    let list = |items: String| {
        format!(
            "<div class=\"orderedlist\"><ol class=\"orderedlist\" type=\"1\">{items}</ol></div>"
        )
    };
    let synopsis = each(40, |k| {
        format!("  <span class=\"keyword\">typedef</span> <a class=\"link\" href=\"t.html#t{k}\">implementation_defined</a>::<span class=\"identifier\">type{k}</span> <span class=\"identifier\">name{k}</span>;\n")
    });
    let ctors = each(6, |k| {
        item(
            &format!("avltree{k}"),
            &format!(
                "Constructs a container from the range number {k}, with the given comparison."
            ),
        )
    });
    let members = each(30, |k| {
        item(
            &format!("member{k}"),
            &format!("Returns an iterator pointing to element {k} of the container."),
        )
    });
    let html = format!(
        "<html><body><table width=\"100%\"><tr><td><a href=/index.html>Home</a></td><td><a href=/libs.html>Libraries</a></td></tr></table><hr>\
         <div class=\"refentry\"><a name=\"x\"></a><div class=\"titlepage\"></div>\
         <div class=\"refnamediv\"><h2><span class=\"refentrytitle\">Class template avltree</span></h2><p>boost::intrusive::avltree</p></div>\
         <h2 class=\"refsynopsisdiv-title\">Synopsis</h2>\
         <div class=\"refsynopsisdiv\"><pre class=\"synopsis\"><span class=\"keyword\">class</span> <a class=\"link\" href=\"avltree.html\">avltree</a> {{\n{synopsis}}};</pre></div>\
         <div class=\"refsect1\"><a name=\"d\"></a><h2>Description</h2>\
         <p>The class template avltree is an intrusive AVL tree container, that is used to construct intrusive <a class=\"link\" href=\"avl_set.html\">avl_set</a> and <a class=\"link\" href=\"avl_multiset.html\">avl_multiset</a> containers.</p>\
         <p>The template parameter <code class=\"computeroutput\">T</code> is the type to be managed by the container.</p>\
         <div class=\"refsect2\"><a name=\"c\"></a><h3><code class=\"computeroutput\">avltree</code> public construct/copy/destruct</h3>{}</div>\
         <div class=\"refsect2\"><a name=\"m\"></a><h3><code class=\"computeroutput\">avltree</code> public member functions</h3>{}</div>\
         </div></div>\
         <table width=\"100%\"><tr><td><div class=\"copyright-footer\">Copyright 2005 the authors</div></td></tr></table></body></html>",
        list(ctors),
        list(members)
    );
    let text = main_text(&html);
    assert!(text.contains("Class template avltree"), "{text}");
    assert!(text.contains("intrusive AVL tree container"), "{text}");
    assert!(text.contains("from the range number 5"), "{text}");
    assert!(text.contains("element 29 of the container"), "{text}");
    assert!(!text.contains("Libraries"), "{text}");
}

/// A database manual's page of one view (as a DocBook generator writes it): a paragraph
/// saying what the view is, then its columns in a table inside two wrappers (`div
/// class="table"` with the table's title, `div class="table-contents"`). The table is the
/// choice, and the paragraph beside its wrapper comes with it: two views of the same
/// columns differ only there.
#[test]
fn a_tables_wrappers_stand_for_it_so_its_introduction_comes_with_it() {
    let row = |name: &str, what: &str| {
        format!(
            "<tr><td class=\"catalog_table_entry\"><p class=\"column_definition\"><code class=\"structfield\">{name}</code> <code class=\"type\">sql_identifier</code></p><p>{what}</p></td></tr>"
        )
    };
    let rows: String = [
        ("grantor", "Name of the role that granted the privilege"),
        (
            "grantee",
            "Name of the role that the privilege was granted to",
        ),
        (
            "specific_catalog",
            "Name of the database containing the function (always the current database)",
        ),
        (
            "specific_schema",
            "Name of the schema containing the function",
        ),
        (
            "routine_name",
            "Name of the function (might be duplicated in case of overloading)",
        ),
        (
            "is_grantable",
            "YES if the privilege is grantable, NO if not",
        ),
    ]
    .iter()
    .map(|(n, w)| row(n, w))
    .collect();
    let html = format!(
        "<html><body><div class=\"navheader\"><table width=\"100%\"><tr><th colspan=\"5\">36.36. role_routine_grants</th></tr>\
         <tr><td><a href=p.html>Prev</a></td><td><a href=u.html>Up</a></td><th>Chapter 36. The Information Schema</th><td><a href=/>Home</a></td><td><a href=n.html>Next</a></td></tr></table><hr></div>\
         <div class=\"sect1\" id=\"X\"><div class=\"titlepage\"><div><div><h2 class=\"title\">36.36. <code class=\"literal\">role_routine_grants</code></h2></div></div></div>\
         <p>The view <code class=\"literal\">role_routine_grants</code> identifies all privileges granted on functions where the grantor or grantee is a currently enabled role. Further information can be found under <code class=\"literal\">routine_privileges</code>.</p>\
         <div class=\"table\" id=\"t\"><p class=\"title\"><strong>Table 36.34. <code class=\"structname\">role_routine_grants</code> Columns</strong></p>\
         <div class=\"table-contents\"><table class=\"table\" border=\"1\"><thead><tr><th class=\"catalog_table_entry\"><p class=\"column_definition\">Column Type</p><p>Description</p></th></tr></thead>\
         <tbody>{rows}</tbody></table></div></div></div></body></html>"
    );
    let text = main_text(&html);
    assert!(text.contains("identifies all privileges granted"), "{text}");
    assert!(text.contains("Name of the schema containing"), "{text}");
    assert!(!text.contains("Prev"), "{text}");
}

#[test]
fn word_bytes_counts_letters_and_digits_not_separators() {
    assert_eq!(word_bytes("a, b | c9"), 4);
    assert_eq!(word_bytes(" , | "), 0);
    assert_eq!(word_bytes("Grüße"), 7);
}

/// A news site's `main` holds its story in a section its class calls an article
/// (`yom-article`), beside listings of other stories with their blurbs: the story holds
/// a third of the `main`, and it is the content, as an `article` element would be.
#[test]
fn a_story_marked_by_its_class_holds_its_place_in_a_main_of_listings() {
    let story =
        format!("<p>{P1}</p><p>{P2}</p><p>{P1} Once more, in the words of the veteran.</p>");
    let listing = |name: &str| -> String {
        let items = each(3, |k| {
            format!("<li><h3><a href=/s{k}>Headline {k} of {name}</a></h3><p>Blurb {k} of {name}: what the other story says, told in a line or two for readers of the front page.</p></li>")
        });
        format!("<section class=\"yom-mod\"><ul>{items}</ul></section>")
    };
    let page = |class: &str| {
        format!(
            "<html><body><nav><a href=/>Home</a></nav><div role=main>\
             <section class=\"yom-mod {class}\" id=mediacontentstory>{story}</section>{}{}</div></body></html>",
            listing("top"),
            listing("featured")
        )
    };
    let t = main_text(&page("yom-article"));
    assert!(t.contains("veteran"), "{t}");
    assert!(!t.contains("Blurb"), "{t}");
    // Without the author's word the story is one section of the `main` among others.
    let t = main_text(&page("yom-card"));
    assert!(t.contains("veteran") && t.contains("Blurb"), "{t}");
}

#[test]
fn every_article_is_kept() {
    let page = format!(
        "<nav><a>Home</a> <a>Blog</a></nav><div id=posts>\
         <article><h2>X</h2><p>X: {P1}</p><p>{P2}</p></article>\
         <article><h2>Y</h2><p>Y: {P1}</p><p>{P2}</p></article>\
         <article><h2>Z</h2><p>Z: {P1}</p></article></div>\
         <footer>(c) the site</footer>"
    );
    let t = main_text(&page);
    for w in ["X:", "Y:", "Z:"] {
        assert!(t.contains(w), "{w} missing in {t}");
    }
    assert!(!t.contains("Home") && !t.contains("(c)"), "{t}");
}

#[test]
fn teasers_of_other_stories_beside_an_article_are_not_kept() {
    let story = each(8, |i| format!("<p>Part {i}: {P1} {P2}</p>"));
    let teaser = |n: usize| {
        format!(
            "<div class=col><article class=card><h3>Other story {n}</h3>\
             <p>Teaser {n} says what the other story is about, in a sentence or two of its own, \
             with a clause or two more, and then it stops to let the reader click on.</p>\
             </article></div>"
        )
    };
    let grid: String = (0..6).map(teaser).collect();
    let page = format!(
        "<nav><a>Home</a></nav><article><h1>The story</h1>{story}</article>\
         <section class=grid>{grid}</section><footer>(c) the site</footer>"
    );
    let t = main_text(&page);
    assert!(t.contains("Part 0:") && t.contains("Part 7:"), "{t}");
    assert!(!t.contains("Teaser"), "{t}");
    // Inside the story's article (a "more news" list at its end): left out too.
    let page = format!(
        "<nav><a>Home</a></nav><article><h1>The story</h1>{story}\
         <div class=more><ul><li>{}</li><li>{}</li></ul></div></article>",
        teaser(0),
        teaser(1)
    );
    let t = main_text(&page);
    assert!(t.contains("Part 0:") && t.contains("Part 7:"), "{t}");
    assert!(!t.contains("Teaser"), "{t}");
    // Articles of about one length are an index of posts: every one is kept.
    let page = format!("<div id=posts>{grid}</div><div><p>{P1}</p></div>");
    let t = main_text(&page);
    for n in 0..6 {
        assert!(t.contains(&format!("Teaser {n}")), "{n} missing in {t}");
    }
}

#[test]
fn hidden_and_form_controls_are_not_text() {
    let page = format!(
        "<main hidden><p>hidden main {P1}</p></main><div><p>{P1}</p><p>{P2}</p>\
         <textarea><p>typed {P2}</p></textarea><div style=\"display: none\">secret</div>\
         <template><p>tpl</p></template><span aria-hidden=\"true\">icon</span></div>"
    );
    let t = main_text(&page);
    assert!(t.contains("first paragraph"), "{t}");
    for w in ["hidden main", "typed", "secret", "tpl", "icon"] {
        assert!(!t.contains(w), "{w} in {t}");
    }
}

#[test]
fn an_unclosed_frame_element_ends_with_its_parent() {
    let page = format!("<div><nav><a>Home</a> <a>About</a></div><div><p>{P1}</p><p>{P2}</p></div>");
    let t = main_text(&page);
    assert!(t.contains("first paragraph") && t.contains("second"), "{t}");
    assert!(!t.contains("Home"), "{t}");
}

#[test]
fn boilerplate_is_dropped_and_the_content_kept() {
    let links = each(20, |i| format!("<li><a href=/{i}>Link {i}</a></li>"));
    let page = format!(
        "<html><head><title>T</title></head><body><div class=top>Welcome guest</div>\
         <div class=menu><ul>{links}</ul></div><div class=wrap><div class=\"main\">\
         <h1>Title</h1><p>{P1}</p><p>{P2}</p><ul class=\"links\">{links}</ul></div>\
         <div class=\"sidebar\"><p>{P2} sidebar</p></div></div>\
         <div id=footer>Copyright</div></body></html>"
    );
    let t = main_text(&page);
    assert!(
        t.contains("first paragraph") && t.contains("second paragraph"),
        "{t}"
    );
    for w in ["Link 3", "sidebar", "Copyright", "Welcome"] {
        assert!(!t.contains(w), "{w} in {t}");
    }
}

#[test]
fn a_page_where_nothing_scores_gives_its_full_text() {
    assert_eq!(main_text("<p>a</p><p>b</p>"), "a\nb");
    assert_eq!(
        main_text("<nav>Home</nav><form>Email <input> Password</form>"),
        "Home\nEmail Password"
    );
    assert_eq!(main_text("<div hidden>x</div>"), "");
}

#[test]
fn hostile_pages_are_linear() {
    let deep = "<div>".repeat(100_000) + P1 + &"</div>".repeat(100_000);
    assert!(main_text(&deep).contains("first"));
    let spans = "<span>".repeat(100_000) + &"</div>".repeat(100_000) + "end";
    assert!(main_text(&spans).ends_with("end"));
    let many = "<div class=menu>m</div>".repeat(50_000) + "end";
    assert!(main_text(&many).ends_with("end"));
    let attrs: String = (0..100_000).map(|i| format!(" class=\"c{i}\"")).collect();
    assert_eq!(main_text(&format!("<div{attrs}>x</div>")), "x");
}
