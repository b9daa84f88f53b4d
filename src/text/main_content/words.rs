//! The words of class and id values that name a page's frame, its content, its stories and
//! its plugins, and the page builders' names for their blocks.

/// Elements a page's frame is made of.
pub(super) fn is_frame_tag(name: &[u8]) -> bool {
    matches!(name, b"nav" | b"header" | b"footer" | b"aside")
}

/// Words of class and id values that name the frame, matched as a whole value or as the
/// first or last part of one cut at `-` and `_` (see [`frame_token`]; `related` and
/// `recommended` as any part); a compound of
/// `related` written as one word (`relatedlinks`, `relatedarticles`) is one. The author's and
/// the comments' names are also in Spanish, Portuguese, German, French and Italian (`autor`,
/// `auteur`, `autore`; `comentarios`, `kommentare`, `commentaires`, `commenti`).
pub(super) fn is_frame_word(w: &[u8]) -> bool {
    // A literal match compiles to a switch on the length and a few compares.
    matches!(
        w,
        b"nav"
            | b"navbar"
            | b"navigation"
            | b"mainnav"
            | b"topnav"
            | b"subnav"
            | b"menu"
            | b"menubar"
            | b"megamenu"
            | b"sidebar"
            | b"footer"
            | b"copyright"
            | b"copyrights"
            | b"header"
            | b"masthead"
            | b"breadcrumb"
            | b"breadcrumbs"
            | b"byline"
            | b"bylines"
            | b"author"
            | b"authors"
            | b"autor"
            | b"autores"
            | b"auteur"
            | b"auteurs"
            | b"autore"
            | b"autori"
            | b"submitted"
            | b"banner"
            | b"cookie"
            | b"cookies"
            | b"consent"
            | b"gdpr"
            | b"social"
            | b"share"
            | b"sharing"
            | b"sharethis"
            | b"sharedaddy"
            | b"shariff"
            | b"addtoany"
            | b"relatedposts"
            | b"recommended"
            | b"comment"
            | b"comments"
            | b"comentarios"
            | b"commentaires"
            | b"kommentare"
            | b"commenti"
            | b"disqus"
            | b"related"
            | b"sponsor"
            | b"sponsored"
            | b"promo"
            | b"ad"
            | b"ads"
            | b"advert"
            | b"advertisement"
            | b"popup"
            | b"modal"
            | b"newsletter"
            | b"subscribe"
            | b"toc"
            | b"pagination"
            | b"pager"
            | b"skiplink"
            | b"contentinfo"
            | b"complementary"
            | b"widget"
            | b"nocontent"
            // A forum's box of the poster beside a post, in one word: phpBB's `postprofile`,
            // XenForo's `message-userExtras` and `message-userDetails` (lowercased).
            | b"postprofile"
            | b"userinfo"
            | b"userdetails"
            | b"userextras"
            | b"userstats"
    ) || (w.len() > 7 && w.starts_with(b"related"))
}

/// Parts that may follow (or precede) a frame word in one value and keep it the frame:
/// `nav-menu`, `footer-links`, `sidebar-left`, `share-buttons`.
pub(super) fn is_frame_modifier(w: &[u8]) -> bool {
    // A literal match compiles to a switch on the length and a few compares.
    matches!(
        w,
        b"area"
            | b"bar"
            | b"block"
            | b"box"
            | b"btn"
            | b"buttons"
            | b"col"
            | b"column"
            | b"container"
            | b"content"
            | b"holder"
            | b"icons"
            | b"inner"
            | b"item"
            | b"items"
            | b"left"
            | b"link"
            | b"links"
            | b"list"
            | b"main"
            | b"menu"
            | b"nav"
            | b"outer"
            | b"panel"
            | b"posts"
            | b"primary"
            | b"region"
            | b"right"
            | b"secondary"
            | b"section"
            | b"top"
            | b"bottom"
            | b"tools"
            | b"widget"
            | b"widgets"
            | b"wrap"
            | b"wrapper"
            | b"articles"
            | b"stories"
    )
}

/// Words that name the content: a value holding one (and not itself the frame) keeps its
/// element out of the frame, and adds to its score. `refentry` is DocBook's reference page
/// (a function's or a command's page: its name and purpose, synopsis and description, each a
/// `div` of its own, none of which scores much alone on a short page).
pub(super) fn is_content_word(w: &[u8]) -> bool {
    // A literal match compiles to a switch on the length and a few compares.
    matches!(
        w,
        b"article"
            | b"refentry"
            | b"body"
            | b"content"
            | b"entry"
            | b"hentry"
            | b"main"
            | b"page"
            | b"post"
            | b"text"
            | b"blog"
            | b"story"
            | b"column"
            | b"prose"
    )
}

/// A number of things, two or more, in words or digits: `two` in `two-column-summary`. One
/// (`single-column`, `one-column`) or many (`multi-column`) is not a count: a page's one
/// column is its content, a grid of many a shop's listing.
pub(super) fn is_count(w: &[u8]) -> bool {
    (!w.is_empty() && is_number(w) && !matches!(w, b"0" | b"1"))
        || matches!(w, b"two" | b"three" | b"four" | b"five" | b"six")
}

/// Content words that name one piece of writing, not a layout's region (`content`, `main`,
/// `page`): an element so marked is an article by its author's word.
pub(super) fn is_story_word(w: &[u8]) -> bool {
    matches!(w, b"article" | b"entry" | b"hentry" | b"post" | b"story")
}

/// Names of the plugins that make a page's share buttons, likes, related posts and comment
/// threads (Jetpack's `sharedaddy` and `jp-relatedposts`, AddToAny, Shariff, ShareThis,
/// Social Pug's `dpsp`, Disqus): nothing else is so named, so a part that is one marks the
/// frame even where another token names content (Jetpack's likes are
/// `class="sharedaddy ..." id="like-post-wrapper-..."`).
pub(super) fn is_plugin_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"sharedaddy"
            | b"relatedposts"
            | b"addtoany"
            | b"shariff"
            | b"sharethis"
            | b"dpsp"
            | b"disqus"
    )
}

/// Words that lower a container's score (Readability's negative weights).
pub(super) fn is_negative_word(w: &[u8]) -> bool {
    // A literal match compiles to a switch on the length and a few compares.
    matches!(
        w,
        b"hidden"
            | b"banner"
            | b"combx"
            | b"comment"
            | b"contact"
            | b"footer"
            | b"masthead"
            | b"media"
            | b"meta"
            | b"promo"
            | b"related"
            | b"scroll"
            | b"shoutbox"
            | b"sponsor"
            | b"tags"
            | b"widget"
    )
}

/// Class values that hide an element (Bootstrap's, WordPress's and the usual names).
pub(super) fn is_hidden_class(w: &[u8]) -> bool {
    // A literal match compiles to a switch on the length and a few compares.
    matches!(
        w,
        b"hidden"
            | b"hide"
            | b"d-none"
            | b"is-hidden"
            | b"visually-hidden"
            | b"visuallyhidden"
            | b"sr-only"
            | b"screen-reader-text"
    )
}

/// Whether a class value names a photo's caption or its credit line: its last part (cut at
/// what is not a letter or a digit, plurals read as one) a credit (`credits`, `photo-credit`,
/// `imageEmbedCredit`), or a caption named for what it captions (`wp-caption`,
/// `image-caption`, `imageEmbedCaption`). A bare `caption` is not one: javadoc's tables and
/// Sphinx's menus are titled so, and a table's caption (`table-caption`) names what the table
/// lists.
pub(super) fn is_caption_class(token: &[u8]) -> bool {
    // Cut from the back: only the last part or two are looked at.
    let mut parts = parts_of(token);
    let Some(last) = parts.next_back() else {
        return false;
    };
    let last = last.strip_suffix(b"s").unwrap_or(last);
    if last.ends_with(b"credit") {
        return true;
    }
    if !last.ends_with(b"caption") {
        return false;
    }
    if last.len() > b"caption".len() {
        return !last.starts_with(b"table");
    }
    parts.next_back().is_some_and(|b| b != b"table")
}

/// Roles that name the frame.
pub(super) fn is_frame_role(w: &[u8]) -> bool {
    // A literal match compiles to a switch on the length and a few compares.
    matches!(
        w,
        b"navigation"
            | b"banner"
            | b"contentinfo"
            | b"complementary"
            | b"menu"
            | b"menubar"
            | b"search"
            | b"dialog"
    )
}

/// Whether a value part list (a class or id cut at `-` and `_`) names the frame.
pub(super) fn frame_token(token: &[u8]) -> bool {
    if is_frame_word(token) {
        return true;
    }
    if !token.iter().any(|c| *c == b'-' || *c == b'_') {
        return false;
    }
    let mut parts = token
        .split(|c| *c == b'-' || *c == b'_')
        .filter(|p| !p.is_empty());
    let Some(first) = parts.next() else {
        return false;
    };
    let rest: [&[u8]; 8] = std::array::from_fn(|_| parts.next().unwrap_or(b""));
    let n = rest.iter().take_while(|p| !p.is_empty()).count();
    if n == 0 {
        return false;
    }
    // A namespace of a letter or two before a name of several parts (`sf_comment_list`,
    // `js-nav-menu`) is passed over: the name is what follows it.
    let (first, rest, n) = if first.len() <= 2 && !is_frame_word(first) && n >= 2 {
        (rest[0], &rest[1..], n - 1)
    } else {
        (first, &rest[..], n)
    };
    // More than nine parts: the last one is not known here, and it is not a frame's name.
    let last = rest[n - 1];
    // Lists of other things, wherever the name says so (`article-related-posts`,
    // `article-recommended-section`): a content word first does not make them the story's.
    if std::iter::once(first)
        .chain(rest[..n].iter().copied())
        .any(|p| matches!(p, b"related" | b"recommended"))
    {
        return true;
    }
    // A forum's box of the poster beside each post (XenForo's `message-user`, a user's
    // `user-info` or `user-details`): a title, counts of posts and likes, a join date.
    if is_poster_box(first, &rest[..n]) {
        return true;
    }
    // A form a reader fills in (an answer's, a reply's, a contact form): its headings and
    // labels are the site's (`post-form`, `js-add-answer-form`, `contact-form`).
    if is_entry_form(first, &rest[..n]) {
        return true;
    }
    // An API's documentation comment (javadoc's `deprecation-comment`, what replaces a
    // deprecated item; `doc-comment`) is the page's text, not its readers' comments.
    if n == 1 && matches!(last, b"comment") && matches!(first, b"deprecation" | b"doc") {
        return false;
    }
    let plain = |p: &[u8]| is_frame_modifier(p) || is_frame_word(p) || is_number(p);
    is_frame_word(last)
        || (is_frame_word(first) && (n == 1 || rest[..n].iter().all(|p| plain(p))))
        // A frame word between layout words (`region-footer-bottom`, `inner-comments-wrap`):
        // every part is the frame's or a layout word.
        || (plain(first)
            && rest[..n].iter().all(|p| plain(p))
            && rest[..n - 1].iter().any(|p| is_frame_word(p)))
}

/// Whether a value's parts (`first`, then `rest`) name a forum's box of the poster: `user`
/// followed by `info`, `details`, `extras` or `stats` anywhere (`user-info`,
/// `MessageCard__user-info`), or XenForo's cell `message-user` (or `post-user`). Such a box
/// named in one word (`postprofile`, `userextras`) is a frame word ([`is_frame_word`]).
/// `user-content` and `message-userContent` are the post.
pub(super) fn is_poster_box(first: &[u8], rest: &[&[u8]]) -> bool {
    let details = |p: &[u8]| matches!(p, b"info" | b"details" | b"extras" | b"stats");
    let mut prev = first;
    for &p in rest {
        if prev == b"user" && details(p) {
            return true;
        }
        prev = p;
    }
    rest.len() == 1 && rest[0] == b"user" && matches!(first, b"message" | b"post")
}

/// Whether a value's parts (`first`, then `rest`) name a form a reader fills in: `form` as
/// the last part after what it is for (`post-form`, `reply-form`, `answer-form`,
/// `contact-form`, `login-form`). `form-group` and `form-control` are a form's parts and
/// name nothing alone; ASP.NET's `aspnetForm`, around a whole page, is one word.
pub(super) fn is_entry_form(first: &[u8], rest: &[&[u8]]) -> bool {
    let Some((&last, before)) = rest.split_last() else {
        return false;
    };
    let what = before.last().copied().unwrap_or(first);
    last == b"form"
        && matches!(
            what,
            b"post"
                | b"reply"
                | b"answer"
                | b"contact"
                | b"login"
                | b"signin"
                | b"signup"
                | b"register"
                | b"registration"
                | b"search"
        )
}

/// Elementor, a page builder, makes every part of a page it lays out an `elementor-widget`:
/// the page's headings and text as much as its menus and share buttons. Such a value is
/// judged by the widget's kind after it, `heading` and `text-editor` (text), `nav-menu` and
/// `share-buttons` (the frame); the bare `elementor-widget` names no kind, and nothing. The
/// builder's header and footer are marked as such (`elementor-location-header`).
pub(super) fn builder_kind(token: &[u8]) -> Option<&[u8]> {
    kind_after(token, b"elementor-widget", b"-_")
}

/// The kind a builder's value names after its `prefix` and one of the separators `seps`:
/// empty for the bare prefix, `None` where the value is not the builder's (another name that
/// begins with the prefix).
pub(super) fn kind_after<'t>(token: &'t [u8], prefix: &[u8], seps: &[u8]) -> Option<&'t [u8]> {
    let rest = token.strip_prefix(prefix)?;
    match rest.split_first() {
        None => Some(b""),
        Some((sep, kind)) if seps.contains(sep) => Some(kind),
        Some(_) => None,
    }
}

/// SiteOrigin's Page Builder lays a page out as panels (`so-panel`), each a WordPress widget
/// named as a sidebar's widgets are, `widget widget_sow-editor`: on a panel, `widget` is the
/// builder's name for any block and `widget_<kind>` its kind, judged as an Elementor widget's
/// is. The bare `widget` names no kind; other values are not a panel's (`None`).
pub(super) fn panel_kind(token: &[u8]) -> Option<&[u8]> {
    kind_after(token, b"widget", b"_")
}

/// Page builders' widgets that are the site's, not the page's: lists of its other posts (a
/// grid, a carousel, an archive), its contact form and its customers' testimonials
/// (Elementor's kinds, then SiteOrigin's).
pub(super) fn is_builder_listing(kind: &[u8]) -> bool {
    matches!(
        kind,
        b"posts"
            | b"archive-posts"
            | b"loop-grid"
            | b"loop-carousel"
            | b"portfolio"
            | b"form"
            | b"testimonial"
            | b"testimonial-carousel"
            | b"sow-post-carousel"
            | b"sow-contact-form"
            | b"sow-testimonials"
    )
}

/// The longest camelCase word [`camel_last`] gives: longer than every frame word.
pub(super) const CAMEL_MAX: usize = 16;

/// The last word of a camelCase name, lowercased into `buf`: the letters and digits from the
/// last capital that follows a lowercase letter in the value's last part (cut at what is not
/// a letter or a digit), `comments` of `docComments`, `banner` of `o-pageHeroBanner`. `None`
/// where that part has no such capital (`Footer`, `FOOTER`, `footer`) or the word is longer
/// than [`CAMEL_MAX`].
pub(super) fn camel_last<'b>(written: &[u8], buf: &'b mut [u8; CAMEL_MAX]) -> Option<&'b [u8]> {
    let part = written
        .split(|c| !c.is_ascii_alphanumeric())
        .rfind(|p| !p.is_empty())?;
    let start = (1..part.len())
        .rev()
        .find(|&i| part[i - 1].is_ascii_lowercase() && part[i].is_ascii_uppercase())?;
    let word = &part[start..];
    let out = buf.get_mut(..word.len())?;
    for (o, c) in out.iter_mut().zip(word) {
        *o = c.to_ascii_lowercase();
    }
    Some(out)
}

/// A key for a `class` value as written, its spaces at either end aside: two elements share
/// it where they share their class (foldhash with a fixed seed, eight bytes a step, folded to
/// 32 bits; never 0, which stands for no class).
pub(super) fn class_key(value: &[u8]) -> u32 {
    use std::hash::BuildHasher;
    let value = value.trim_ascii();
    if value.is_empty() {
        return 0;
    }
    let h = foldhash::fast::FixedState::with_seed(0x6e64_636c_6173_7331).hash_one(value);
    ((h ^ (h >> 32)) as u32).max(1)
}

/// Whether an id is one React's streaming server rendering gives a resolved Suspense
/// boundary (`S:` and a number): the boundary's content is sent late, at the end of the page,
/// in a `div hidden id="S:4"`, and an inline script (`$RC("B:4", "S:4")`) moves it into the
/// place of its placeholder at once. It is the page's content, not a hidden part; such a page
/// sends all of its text so (a Next.js store page's product grid, a blog's post).
pub(super) fn is_streamed_id(id: &[u8]) -> bool {
    id.strip_prefix(b"S:")
        .is_some_and(|n| !n.is_empty() && is_number(n))
}

pub(super) fn is_number(p: &[u8]) -> bool {
    p.iter().all(u8::is_ascii_digit)
}

pub(super) fn parts_of(token: &[u8]) -> impl DoubleEndedIterator<Item = &[u8]> {
    token
        .split(|c| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
}
