//! What the frame is and what the content is by their names: recommended posts, bylines,
//! labels, plugins, captions, hidden text, and the names that mark content.

use super::*;

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
fn a_forums_box_of_the_poster_is_the_frame() {
    // A thread as XenForo writes it: beside each post, the poster's cell (name, title, counts
    // of messages and likes); as phpBB writes it, the `postprofile` list.
    let xenforo = each(4, |i| {
        format!(
            r#"<article class="message message--post"><div class="message-inner"><div class="message-cell message-cell--user"><section class="message-user"><h4 class="message-name"><a href="/members/u{i}">Poster{i}</a></h4><h5 class="userTitle message-userTitle">Well-known member of rank {i}</h5><div class="message-userExtras"><dl class="pairs"><dt>Messages</dt><dd>13,53{i}</dd></dl><dl class="pairs"><dt>Reaction score</dt><dd>4,21{i}</dd></dl></div></section></div><div class="message-cell message-cell--main"><div class="message-userContent"><article class="message-body"><div class="bbWrapper">{P1} Reply number {i} says what it thinks of the plan.</div></article></div></div></div></article>"#
        )
    });
    let text = main_text(&format!(
        r#"<html><body><div class="p-body-main"><div class="block-body">{xenforo}</div></div></body></html>"#
    ));
    assert!(text.contains("Reply number 3 says"), "{text}");
    assert!(!text.contains("Well-known member"), "{text}");
    assert!(!text.contains("13,53"), "{text}");
    assert!(!text.contains("Reaction score"), "{text}");
    let phpbb = each(4, |i| {
        format!(
            r#"<div class="post bg2"><div class="inner"><dl class="postprofile"><dt><a href="/u{i}" class="username">Poster{i}</a></dt><dd class="profile-rank">Senator of rank {i}</dd><dd class="profile-posts"><strong>Posts:</strong> 403{i}</dd></dl><div class="postbody"><div class="content">{P2} Reply number {i} adds a fixture list.</div></div></div></div>"#
        )
    });
    let text = main_text(&format!(
        r#"<html><body><div id="page-body"><h2>2025-26 Football Season</h2>{phpbb}</div></body></html>"#
    ));
    assert!(text.contains("Reply number 3 adds"), "{text}");
    assert!(!text.contains("Senator of rank"), "{text}");
    assert!(!text.contains("Posts:"), "{text}");
    // By name: the poster's cell and its parts are the frame; the post's own box is not.
    for frame in [
        "message-user",
        "message-userExtras",
        "message-userDetails",
        "postprofile",
        "user-info",
        "MessageCard__user-info",
        "user-details",
    ] {
        assert!(
            judge(format!(r#" class="{frame}""#).as_bytes()).frame,
            "{frame}"
        );
    }
    for not in [
        "message-userContent",
        "user-content",
        "user",
        "message",
        "username",
        "user-guide",
    ] {
        assert!(
            !judge(format!(r#" class="{not}""#).as_bytes()).frame,
            "{not}"
        );
    }
}

#[test]
fn a_form_a_reader_fills_in_is_the_frame() {
    // A question and its answers as Stack Exchange writes them, then the form to answer:
    // its heading, the guest's fields and their notes are the site's.
    let answers = each(3, |i| {
        format!(
            r#"<div class="answer"><div class="s-prose">{P1} Answer {i} tries another way.</div></div>"#
        )
    });
    let text = main_text(&format!(
        r#"<html><body><div id="mainbar"><div class="question"><div class="s-prose">{P2}</div></div>{answers}<form id="post-form" action="/questions/1/answer/submit" method="post" class="js-add-answer-component post-form"><h2 class="space">Your Answer</h2><div class="wmd-container"><textarea name="post-text"></textarea></div><h3>Post as a guest</h3><label for="display-name">Name</label><input id="display-name"><label for="m-address">Email</label><p class="s-description">Required, but never shown</p></form></div></body></html>"#
    ));
    assert!(text.contains("Answer 2 tries"), "{text}");
    for out in [
        "Your Answer",
        "Post as a guest",
        "Required, but never shown",
    ] {
        assert!(!text.contains(out), "{out:?} in {text}");
    }
    for frame in [
        "post-form",
        "js-add-answer-form",
        "contact-form",
        "comment_reply_form",
        "login-form",
    ] {
        assert!(
            judge(format!(r#" class="{frame}""#).as_bytes()).frame,
            "{frame}"
        );
    }
    // A form's parts name nothing alone; ASP.NET's form around the whole page is one word.
    for not in [
        "form",
        "form-group",
        "form-control",
        "aspnetForm",
        "form-post",
        "wpcf7-form",
    ] {
        assert!(
            !judge(format!(r#" class="{not}""#).as_bytes()).frame,
            "{not}"
        );
        assert!(!judge(format!(r#" id="{not}""#).as_bytes()).frame, "{not}");
    }
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
