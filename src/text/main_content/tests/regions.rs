//! The region chosen on web pages (articles, mains, sections, teasers, builders' panels,
//! pages of many parts), what no region's text holds (ruby annotations, form controls),
//! pages where nothing scores, and time linear in the page.

use super::*;

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

#[test]
fn a_table_of_contents_heading_goes_with_its_links() {
    // Three shapes of the same table of contents: a heading in its own section, a
    // `details` summary over a `nav`, and a heading in a table's cell. Each heading goes out
    // with the lines of links under it; the article's own headings stay.
    for toc in [
        "<section class=mb-12><h3>Table of contents</h3><ul>\
         <li><a href=#one>The first part of the story</a></li>\
         <li><a href=#two>The second part of the story</a></li></ul></section>",
        "<details><summary>Inhaltsverzeichnis</summary><nav><ul>\
         <li><a href=#one>Der erste Teil</a></li><li><a href=#two>Der zweite Teil</a></li>\
         </ul></nav></details>",
        "<table><tr><td><h4><strong>Spis treści:</strong></h4>\
         <p><a href=#one>Pierwsza część</a></p><p><a href=#two>Druga część</a></p></td></tr></table>",
    ] {
        let page = format!(
            "<body><article><h1>The story</h1><p>{P1}</p>{toc}<h2 id=one>The first part</h2>\
             <p>{P2}</p><h2 id=two>The second part</h2><p>{P1} Again, {P2}</p></article></body>"
        );
        let t = main_text(&page);
        for kept in ["The story", "The first part\n", "The second part\n", P1, "Again, "] {
            assert!(t.contains(kept), "{kept:?} in {t}");
        }
        for out in ["Table of contents", "Inhaltsverzeichnis", "Spis treści", "Pierwsza", "Der erste"] {
            assert!(!t.contains(out), "{out:?} in {t}");
        }
    }
}

#[test]
fn a_page_its_script_shows_is_read_as_shown() {
    // The whole page in a wrapper hidden until its script runs: its article is the content,
    // not the page read whole with its menus and footer.
    let story: String = (0..12)
        .map(|i| format!("<p>{P1} Part {i}. {P2}</p>"))
        .collect();
    let body = format!(
        "<nav><a href=/>Home</a> <a href=/blog>Blog</a> <a href=/pricing>Pricing</a></nav>\
         <main><article><h1>The headline</h1>{story}</article></main>\
         <footer><p>Company</p><p>Imprint Privacy Policy</p></footer>"
    );
    for wrapper in [
        r#"<div class="root hide">"#,
        r#"<div style="display: none">"#,
        r#"<div hidden>"#,
    ] {
        let t = main_text(&format!("<html><body>{wrapper}{body}</div></body></html>"));
        assert!(
            t.contains("Part 11.") && t.contains("The headline"),
            "{wrapper}: {t}"
        );
        assert!(
            !t.contains("Privacy Policy") && !t.contains("Pricing"),
            "{wrapper}: {t}"
        );
    }
    // A hidden block beside a page that is shown is not shown, however long: the page's own
    // text stays the content.
    let shown: String = (0..3).map(|i| format!("<p>{P2} Shown {i}.</p>")).collect();
    let t = main_text(&format!(
        "<html><body><article>{shown}</article><div class=hide><article>{story}</article></div></body></html>"
    ));
    assert!(t.contains("Shown 2."), "{t}");
    assert!(!t.contains("Part 11."), "{t}");
    // A hidden menu holding nine tenths of the page is read again shown, and that reading
    // (the same story, its links left out) is not taken: the story as first read stays.
    let menu: String = (0..150)
        .map(|i| format!("<li><a href=/c{i}>Category number {i} of the shop</a></li>"))
        .collect();
    let t = main_text(&format!(
        "<html><body><div class=hide><ul>{menu}</ul></div><article>{shown}</article></body></html>"
    ));
    assert!(t.contains("Shown 2."), "{t}");
    assert!(!t.contains("Category number"), "{t}");
}

#[test]
fn an_item_closes_the_open_item_through_a_paragraph_inside_it() {
    // A release's notes: the release's own list first, then the lists carried over from the
    // patch releases, each `ol` of one class with `p` headings written between its items
    // (`<li>text<p><b>Bug fixes:</b><li>`), as a changelog generator writes them.
    let items = |n: usize, w: &str| {
        each(n, |i| {
            format!(
                "<li>Fix {w} {i}: the reader, when a record spans two blocks, now keeps the \
                 tail of the file, which it used to drop early, and warns once.\n"
            )
        })
    };
    let page = format!(
        "<html><body><div class=menu><ul><li><a href=/>Home</a><li><a href=/docs>Docs</a>\
         <li><a href=/dl>Download</a></ul></div>\
         <h2>Release 2.4.2</h2><p><b>Changes in version 2.4.0:</b></p>\
         <p><ol class='lessindent'><p><b>Performance:</b>\n{}<p><b>New features:</b>\n{}\
         <p><b>Bug fixes:</b>\n{}</ol>\
         <p><b>Additional changes in version 2.4.1:</b></p>\
         <p><ol class='lessindent'>{}</ol>\
         <p><b>Additional changes in version 2.4.2:</b></p>\
         <p><ol class='lessindent'>{}</ol></p></body></html>",
        items(5, "alpha"),
        items(5, "epsilon"),
        items(8, "delta"),
        items(3, "beta"),
        items(4, "gamma"),
    );
    let t = main_text(&page);
    for w in [
        "alpha 0",
        "epsilon 4",
        "delta 7",
        "beta 2",
        "gamma 3",
        "version 2.4.1",
    ] {
        assert!(t.contains(w), "{w}: {t}");
    }
    assert!(!t.contains("Download"), "{t}");
    // Through a `div` and inline elements left open too; a nested list's item stays nested.
    let page = format!(
        "<body><ul><li><div><i>First</i> <b>{P1}<li>Second {P2}</ul>\
         <ul><li>Outer {P1}<ul><li>Inner {P2}</ul></ul></body>"
    );
    let mut s = Scratch::default();
    scan(&page, &mut s, false);
    // The lists and items in document order: the first `ul`, its two items, the second `ul`,
    // its item, the nested `ul` and its item.
    let lists: Vec<usize> = (0..s.nodes.len())
        .filter(|&i| s.nodes[i].tag == Tag::List)
        .collect();
    let parent = |i: usize| s.nodes[lists[i]].parent as usize;
    assert_eq!(lists.len(), 7, "{lists:?}");
    assert_eq!(parent(1), lists[0]);
    assert_eq!(
        parent(2),
        lists[0],
        "the second item is the first's sibling"
    );
    assert_eq!(parent(5), lists[4], "the nested list stays in its item");
    assert_eq!(parent(6), lists[5], "the nested item stays in its list");
}

#[test]
fn a_page_of_sections_of_one_kind_is_read_whole() {
    // A manual page: each of its sections a `div class="sect1"` of a heading and its body,
    // the options' list by far the longest.
    let options = each(30, |i| {
        format!(
            "<dt>--option-{i}</dt><dd><p>Sets the {i}th switch, which changes how the \
             records are read, and how many of them are kept.</p></dd>"
        )
    });
    let section = |id: &str, title: &str, body: &str| {
        format!(
            "<div class=\"sect1\"><h2 id=\"{id}\">{title}</h2><div class=\"sectionbody\">\
             {body}</div></div>"
        )
    };
    let page = |class: &str| {
        format!(
            "<body><div id=\"header\"><h1>tool(1) Manual Page</h1></div><div id=\"content\">{}{}{}{}\
             </div><div id=\"footer\"><div id=\"footer-text\">Last updated 2023-01-01</div></div>\
             </body>",
            section("synopsis", "SYNOPSIS", "<pre>tool [options] file</pre>"),
            section(
                "description",
                "DESCRIPTION",
                &format!("<div class=\"paragraph\"><p>{P1}</p></div><div class=\"paragraph\"><p>{P2}</p></div>"),
            ),
            section("options", "OPTIONS", &format!("<div class=\"dlist\"><dl>{options}</dl></div>")),
            section(
                "examples",
                "EXAMPLES",
                "<div class=\"paragraph\"><p>Read two files, keeping every record of the first one.</p></div>"
            ),
        )
        .replace("sect1", class)
    };
    let t = main_text(&page("sect1"));
    for w in [
        "tool [options] file",
        P1,
        P2,
        "--option-29",
        "Read two files",
        "EXAMPLES",
    ] {
        assert!(t.contains(w), "{w}: {t}");
    }
    assert!(!t.contains("Last updated"), "{t}");
    // Sections without a class in common are no such page: the longest is the content.
    let t = main_text(&page("sect1").replace(" class=\"sect1\"", ""));
    assert!(
        t.contains("--option-29") && !t.contains("Read two files"),
        "{t}"
    );
    // Boxes of one class, each a heading and a list of links, beside the story: the story.
    let boxes = each(4, |b| {
        let links = each(6, |i| {
            format!("<li><a href=/t/{b}/{i}>Topic {b}.{i}</a></li>")
        });
        format!("<div class=\"box\"><h3>Box {b}</h3><ul>{links}</ul></div>")
    });
    let t = main_text(&format!(
        "<body><div id=\"wrap\"><div class=\"box\"><h2>The story</h2><p>{P1}</p><p>{P2}</p>\
         <p>{P1} Again, {P2}</p></div>{boxes}</div></body>"
    ));
    assert!(t.contains(P1) && !t.contains("Topic 2.3"), "{t}");
}
