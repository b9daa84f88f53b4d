//! The attributes judged: tokens, words of the frame, the tag's key and the sets remembered, and
//! the byte counts the scores use.

use super::*;

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
        "message",
        "user",
        "info",
        "userExtras",
        "postprofile",
        "form",
        "answer",
        "aspnetForm",
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
    // An API's documentation comment is its text; readers' comments are the frame.
    assert!(!frame_token(b"deprecation-comment"));
    assert!(!frame_token(b"doc-comment"));
    assert!(frame_token(b"user-comment"));
    assert!(frame_token(b"post-comment"));
    // A column is the content's (`main-column`, `column`), a count of columns a layout
    // (javadoc's `summary-table two-column-summary` around a constructor's one line).
    assert_eq!(judge(br#" class="column""#).weight, 25.0);
    assert_eq!(judge(br#" class="left-column""#).weight, 25.0);
    assert_eq!(
        judge(br#" class="summary-table two-column-summary""#).weight,
        0.0
    );
    assert_eq!(judge(br#" class="layout-3-column""#).weight, 0.0);
    assert_eq!(judge(br#" class="single-column""#).weight, 25.0);
    assert_eq!(judge(br#" class="grid-view-multi-column""#).weight, 25.0);
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
fn word_bytes_counts_letters_and_digits_not_separators() {
    assert_eq!(word_bytes("a, b | c9"), 4);
    assert_eq!(word_bytes(" , | "), 0);
    assert_eq!(word_bytes("Grüße"), 7);
}
