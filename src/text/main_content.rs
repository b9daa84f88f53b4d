//! A page's main content (`--text main`): one forward pass over the markup, one over its
//! blocks.
//!
//! The pass keeps a stack of open elements (implied end tags as a browser closes them: a `p`
//! by the next block, an `li` by the next `li`, a cell by the next cell or row) and cuts the
//! text into blocks at block-level boundaries. Each block knows its length, how much of it is
//! link text (a `p` inside a link, a card that is one link, is text), and the element that
//! holds it. As in Readability, every block of 25 or more
//! characters scores its container's ancestors (1, plus its commas, plus one per 100
//! characters up to 3; in a block that is mostly links only the commas inside its links
//! count, since a list of links with commas between them is not a paragraph with commas;
//! the parent takes all of it, the grandparent half, further ancestors a third or less),
//! containers start from their tag and from the words of their `class` and
//! `id`, and a container's score shrinks with its share of link text. The best container
//! wins, with an ancestor where most good candidates meet (or, where they do not, a good
//! candidate that holds it and three more good parts: an article whose sections are each a
//! wrapper of their own; or, on a page of many equal parts, a service page's cards, steps and
//! questions in sections from the top of the page to its foot, the element that holds four or
//! more of them beside the choice), and with those of its siblings that score nearly as well
//! (a fifth of its score; a sibling of its own class, a part of the same kind, is given a fifth
//! more, as Readability gives it): so an index page of posts X, Y and Z keeps all three, and a
//! story written in two `div class="rich-text"` around a call to action keeps both. Siblings that are paragraphs come too: a
//! `p`, or a `div` of its own text only, over 80 bytes with few links (Readability reads such
//! a `div` as a `p`: an article's lead beside its story).
//!
//! What is never main content, decided on whole words of `class`, `id` and `role` values
//! (a value `site-header` names a header; `post-header-and-body` and `no-sidebars` do not; a
//! namespace of one or two letters before a name of several parts is passed over, so
//! `sf_comment_list` names comments; a heading marked only as a header, rustdoc's
//! `h4 class="code-header"` over a method's signature, is a heading of the content):
//! `nav`, `header`, `footer` and `aside` elements and elements marked as navigation, menus,
//! sidebars, banners, sharing, comments, bylines (Drupal's `submitted` too), author boxes,
//! related links (`related` and its compounds: `relatedlinks`) and the like. A mark that also
//! names the content (`content with-sidebar`) is not the frame, unless the frame's mark names
//! the plugin that makes it (Jetpack's `sharedaddy` likes, whose id names the post they like;
//! `jp-relatedposts`, Social Pug's `dpsp`, Disqus). A page builder's block (Elementor's
//! `elementor-widget-heading`, `-text-editor`, `-nav-menu`; SiteOrigin's panels, `so-panel
//! widget widget_sow-editor`) is judged by its kind, not as a sidebar's widget, and a Custom
//! HTML widget's body (`custom-html-widget`) by its widget. Where the frame's class and id
//! marks leave less than 500 bytes of text, the choice is made again without them (a page's
//! article sometimes sits in an element marked `related`), and taken where it finds much
//! more; frame tags and roles hold in both. Hidden elements (`hidden`, `aria-hidden`,
//! `display: none`; not a boundary React streams, `div hidden id="S:4"`, which its script
//! shows at once), `template`, `textarea`, `select`, `button` and `iframe` are not text, nor
//! are ruby annotations (`rt`, `rp`), figure captions (`figcaption`, or a class naming a
//! photo's caption or credit, `wp-caption`, `imageEmbedCredit`: what a photo shows and whose
//! it is) or the characters a reader never sees (soft hyphens, zero-width spaces and
//! joiners, private-use icon glyphs). A visible `main` or `article` the
//! author declared (DocBook's `div class="refentry"`, one reference page whole, counts as a
//! declared `main`) is never passed over for a sibling outside it, and a choice inside one
//! that holds under three quarters of its text is one section of many (an API page's method
//! summary; a package page's table of classes beside the package's description): the `main`
//! is taken, and so it is where the `main` holds 200 bytes or more of text beside the choice
//! that are not mostly links (an API page whose trait implementations outweigh the type's
//! description and methods); a choice that is an article, by its tag or by a class or id that
//! names one (`yom-article`, `story-body`), gives way only under a quarter. Each chosen part
//! comes with what introduces it: its preceding siblings back to the nearest heading (or a
//! wrapper holding only a heading, a page builder's heading widget), or
//! back to the chosen part before it, when they hold under 200 bytes in all (a section's
//! heading and the caption that names what its table lists; the caption between a class-use
//! page's two tables; an article's headline and dateline).
//! Every visible `article` is kept when the content is one, unless it holds under a fifth of
//! the longest article's text (a grid of teasers for other stories beside the page's story;
//! an index of posts of about one length keeps them all); an article inside the chosen one
//! that holds under a fifth of its text (a "more news" list, a comment) is left out with what
//! it holds, and so is one inside the chosen region but in no article that holds under a
//! fifth of the longest article's text (teasers after the story's `main` whose classes score
//! them as well as the story, so that the wrapper of both is chosen).
//! Where the strict reading finds nothing (a template marks the wrapper of the whole content
//! as frame, `div class="container penci_sidebar"`), the page is read again without the
//! class and id marks; the marks inside the region then chosen still hold (its comments and
//! share bar are left out) unless they would leave too little. So is a page whose strict
//! reading left out, as frame marked inside its region, five times what it wrote (every
//! product of a review in a `div class="c-product-widget"`). A wrapper marked only as a
//! sidebar or a widget whose child named as the content or declared as `main` holds most of
//! its text (`div id="the-content-container"` in `div class="sidebar-container"`, beside an
//! `aside`) was named for what sits beside the content: the page is read again without that mark,
//! and the reading taken where it finds three times as much. Within the chosen containers,
//! blocks that are mostly links are dropped, unless they have words of their own besides
//! (`Methods in <a>java.io</a> that throw <a>IOException</a>`: a caption naming what the page
//! is about, not a list of links with commas between them; a heading needs fewer: `Uses of
//! <a>Target</a> in <a>java.beans</a>`), or are one link naming the text beside it (a
//! summary table's class name beside its description, a `dt` beside its `dd`: what tells
//! two class-use pages listing the same descriptions apart), or the region is an index: over
//! half its text such lines, 20 or more of them. A block inside a `pre` is code and never a
//! list of links: a declaration whose types are each a link (rustdoc's `pub type U5 =
//! UInt<UInt<...>>`) is the one text of a type alias's page. The first shown `h1` of a
//! declared `main` or `article` is the page's title, kept with whatever region is chosen
//! (even where its `div class="header"` reads as the frame): pages of sibling classes whose
//! descriptions are alike differ there. A page where nothing scores, or where nothing
//! is left, gives its full text (hidden parts excepted): never nothing.
//!
//! Time is linear in the page: end tags look at most 64 elements down the stack,
//! scores reach at most five ancestors, and attribute sets are judged once per distinct set
//! on a thread (a site's template repeats them on every page), by the attributes judged
//! alone (class, id, role, style and a few more; not links or data), and the last sets met are
//! found again by their bytes without being read; a class or id token holding no word of the
//! lists (a utility class, a generated name) is passed over unasked.

use std::cell::RefCell;
use std::collections::HashMap;

use super::html;
use super::labels;
use super::normalize::TextBuilder;
use super::structure::Index;

/// How far down the stack an end tag looks for its element; an end tag with no open
/// element within that reach is ignored (as browsers ignore stray end tags).
const MAX_CLOSE: usize = 64;
/// An article holding under 1 / TEASER of the longest article's text is a teaser of another
/// story, not kept beside the page's own.
const TEASER: u32 = 5;
/// Blocks shorter than this (bytes of text) do not score.
const MIN_SCORED: usize = 25;

/// What [`extract`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// Whether main content was found; otherwise the full text was written.
    pub main: bool,
    /// Bytes of the page's text, hidden parts (whitespace aside) and frame included.
    pub page_bytes: usize,
}

/// Appends the main content's text of `html` to `out` (see the module's notes).
pub fn extract(html: &str, out: &mut String) -> Found {
    let from = out.len();
    let found = extract_as(html, out, false);
    // A page whose script renders its content, given in `noscript` for readers without one:
    // where the page read without it leaves little, it is read again with `noscript` as
    // markup, and that reading taken when it finds much more.
    if out.len() - from < MIN_MAIN_BYTES
        && memchr::memmem::find(html.as_bytes(), b"<noscript").is_some()
    {
        let kept = out.split_off(from);
        let again = extract_as(html, out, true);
        let got = out.len() - from;
        // Taken when it finds main content where the first reading found none (and gave the
        // page's frame as its full text), or much more of it; a shorter story (a line asking
        // for scripts is not one) only on a page that is next to nothing without it, its
        // title or a few links: elsewhere a short reading with `noscript` is the page's own
        // text around a notice that scored ("JavaScript is disabled on your browser.").
        let long = finds_much_more(got, kept.len(), found.main);
        let short = found.page_bytes < NEXT_TO_NOTHING
            && word_bytes(&out[from..]) >= MIN_NOSCRIPT_WORD_BYTES;
        if again.main && (long || short) {
            return again;
        }
        out.truncate(from);
        out.push_str(&kept);
    }
    found
}

/// One extraction; `noscript` read as markup or skipped.
/// Whether a second reading of `got` bytes finds much more than the first, of `kept` bytes
/// (main content where `main`, else the page's full text): 500 bytes or more, and three
/// times as much where the first found main content.
fn finds_much_more(got: usize, kept: usize, main: bool) -> bool {
    got >= MIN_MAIN_BYTES && (!main || got >= 3 * kept)
}

fn extract_as(html: &str, out: &mut String, noscript: bool) -> Found {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        s.clear();
        s.unframed.clear();
        let s = &mut *s;
        scan(html, s, noscript);
        let from = out.len();
        let found = write(s, out);
        named_beside(&s.nodes, &mut s.unframed);
        if s.unframed.is_empty() {
            return found;
        }
        // Read again without the marks of the wrappers named for what sits beside the
        // content, and taken where that finds much more.
        let kept = out.split_off(from);
        s.clear();
        scan(html, s, noscript);
        let again = write(s, out);
        let got = out.len() - from;
        if again.main && finds_much_more(got, kept.len(), found.main) {
            return again;
        }
        out.truncate(from);
        out.push_str(&kept);
        found
    })
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The per-thread buffers of one extraction, kept for the next page.
#[derive(Default)]
struct Scratch {
    text: String,
    nodes: Vec<Node>,
    blocks: Vec<Block>,
    stack: Vec<Open>,
    /// Per node: whether its blocks are in the chosen region.
    region: Vec<bool>,
    /// The first shown `h1` inside a declared `main` or `article`: the page's title, kept
    /// with whatever region is chosen.
    title: Option<u32>,
    /// Attribute sets judged on this thread's earlier pages too: a site's template repeats
    /// its attributes on every page. Cleared when it reaches [`JUDGED_MAX`] sets.
    judged: Judged,
    /// The key of the tag being judged ([`read_attributes`]), and its values lowercased in
    /// turn ([`judge_read`]).
    key: Vec<u8>,
    lower: Vec<u8>,
    /// The last attribute sets judged, by their bytes ([`Recent`]).
    recent: Recent,
    /// The page's structural index.
    index: Index,
    /// Elements whose frame marks the page's second reading ignores (see [`named_beside`]),
    /// in order.
    unframed: Vec<u32>,
    /// Bytes of hidden text (whitespace aside), not in `text`.
    hidden_bytes: usize,
}

impl Scratch {
    fn clear(&mut self) {
        self.text.clear();
        self.nodes.clear();
        self.blocks.clear();
        self.stack.clear();
        self.region.clear();
        self.title = None;
        self.hidden_bytes = 0;
    }
}

/// An element of the page.
#[derive(Clone, Copy)]
struct Node {
    parent: u32,
    tag: Tag,
    /// Readability's content score (starting from the tag and the marks' weight), from the
    /// blocks outside the frame; and from every shown block.
    score: f32,
    score_all: f32,
    /// Whether a block outside the frame scored it; whether any block did.
    scored: bool,
    scored_all: bool,
    /// Child elements.
    children: u32,
    /// Bytes of text inside it, and of link text.
    text: u32,
    links: u32,
    /// Bytes of text in the blocks it holds itself, not in a block-level element inside it:
    /// all of `text` in a `div` of phrasing content only, which Readability reads as a `p`.
    own: u32,
    /// Not hidden and not in the frame; not hidden and not in a frame element (by tag or
    /// role), what the retry without the frame's class and id marks looks at.
    visible: bool,
    shown: bool,
    /// Its class or id names one piece of writing (see [`is_story_word`]).
    story: bool,
    /// Its own class or id marks it as frame (`comments`, `share-bar`), whatever its
    /// ancestors are.
    marked: bool,
    /// Its own class or id names the content (`content`, `post-body`) and not the frame.
    named: bool,
    /// It is [`marked`](Node::marked) only for a layout's part ([`Marks::layout`]).
    layout: bool,
    /// A hash of its `class` value as written ([`class_key`]; 0: none).
    class: u32,
}

/// An element on the stack.
#[derive(Clone, Copy)]
struct Open {
    name: Name,
    node: u32,
    /// The innermost block-level element at or below this one: the owner of text here.
    owner: u32,
    state: State,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct State {
    hidden: bool,
    /// In the frame, by any sign; by its tag or role (`nav`, `aside`, `role="navigation"`).
    frame: bool,
    frame_tag: bool,
    link: bool,
    /// Inside a declared `main` or `article` (where an `h1` is the page's title).
    in_main: bool,
    /// Inside a `nav`, `header`, `footer` or `aside` element (by its tag).
    in_frame_element: bool,
    /// Inside a `pre` element: code, whose links are its names' references (a signature's
    /// types), not a list of links.
    code: bool,
}

/// A run of text between block boundaries.
#[derive(Clone, Copy)]
struct Block {
    start: u32,
    end: u32,
    owner: u32,
    links: u32,
    /// Word bytes of the link text ([`word_bytes`]).
    link_words: u32,
    /// Links begun in it (saturating).
    anchors: u16,
    frame: bool,
    frame_tag: bool,
    /// Inside a `pre` element ([`State::code`]): never a list of links.
    code: bool,
}

/// An element name, lowercased, cut at 16 bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Name {
    len: u8,
    b: [u8; 16],
}

impl Name {
    /// The name of `len` bytes at `b[start..]`, lowercased. Names are ASCII letters, digits,
    /// `-` and `:` (the scanner's rule), so sixteen bytes are lowercased at once: a byte from
    /// `A` to `Z` gains 0x20, tested in each byte's high bit with no borrow between bytes.
    fn at(b: &[u8], start: usize, len: usize) -> Name {
        let len = len.min(16);
        let word = match b.get(start..start + 16) {
            Some(w) => u128::from_le_bytes(w.try_into().unwrap_or([0; 16])),
            None => {
                let mut w = [0u8; 16];
                w[..len].copy_from_slice(&b[start..start + len]);
                u128::from_le_bytes(w)
            }
        };
        let kept = if len == 16 {
            u128::MAX
        } else {
            (1u128 << (8 * len)) - 1
        };
        let word = word & kept;
        const HIGH: u128 = 0x8080_8080_8080_8080_8080_8080_8080_8080;
        const A: u128 = 0x4141_4141_4141_4141_4141_4141_4141_4141;
        const PAST_Z: u128 = 0x5b5b_5b5b_5b5b_5b5b_5b5b_5b5b_5b5b_5b5b;
        let at_least_a = (word | HIGH) - A;
        let past_z = (word | HIGH) - PAST_Z;
        let upper = at_least_a & !past_z & !word & HIGH;
        Name {
            len: len as u8,
            b: (word | (upper >> 2)).to_le_bytes(),
        }
    }
    #[cfg(test)]
    fn new(raw: &[u8]) -> Name {
        let mut b = [0u8; 16];
        let len = raw.len().min(16);
        for (d, s) in b.iter_mut().zip(&raw[..len]) {
            *d = s.to_ascii_lowercase();
        }
        Name { len: len as u8, b }
    }
    fn as_bytes(&self) -> &[u8] {
        &self.b[..self.len as usize]
    }
}

/// The kinds of element the scoring tells apart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tag {
    Root,
    Div,
    Article,
    Main,
    Para,
    List,
    Heading,
    Cell,
    Quote,
    Table,
    Pre,
    Body,
    Other,
    Inline,
}

fn tag_of(name: &[u8]) -> Tag {
    match name {
        b"div" | b"section" | b"center" => Tag::Div,
        b"article" => Tag::Article,
        b"main" => Tag::Main,
        b"p" => Tag::Para,
        b"ul" | b"ol" | b"dl" | b"li" | b"dd" | b"dt" | b"form" | b"address" | b"menu" => Tag::List,
        b"h1" | b"h2" | b"h3" | b"h4" | b"h5" | b"h6" | b"th" => Tag::Heading,
        b"td" => Tag::Cell,
        b"blockquote" => Tag::Quote,
        b"table" => Tag::Table,
        b"pre" => Tag::Pre,
        b"body" => Tag::Body,
        _ if html::is_block(name) => Tag::Other,
        _ if name.contains(&b'-') => Tag::Div,
        _ => Tag::Inline,
    }
}

/// Readability's starting score of a container by its tag.
fn tag_score(t: Tag) -> f32 {
    match t {
        Tag::Div => 5.0,
        Tag::Pre | Tag::Cell | Tag::Quote => 3.0,
        Tag::List => -3.0,
        Tag::Heading => -5.0,
        _ => 0.0,
    }
}

/// Elements whose content is never main text (raw text to the end tag). A literal match
/// compiles to a switch on the length and word compares, not a call to `memcmp` a name.
fn is_raw(name: &[u8]) -> bool {
    html::is_skipped(name) || matches!(name, b"textarea" | b"select" | b"iframe" | b"button")
}

/// Elements a page's frame is made of.
fn is_frame_tag(name: &[u8]) -> bool {
    matches!(name, b"nav" | b"header" | b"footer" | b"aside")
}

/// Words of class and id values that name the frame, matched as a whole value or as the
/// first or last part of one cut at `-` and `_` (see [`frame_token`]; `related` and
/// `recommended` as any part); a compound of
/// `related` written as one word (`relatedlinks`, `relatedarticles`) is one. The author's and
/// the comments' names are also in Spanish, Portuguese, German, French and Italian (`autor`,
/// `auteur`, `autore`; `comentarios`, `kommentare`, `commentaires`, `commenti`).
fn is_frame_word(w: &[u8]) -> bool {
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
    ) || (w.len() > 7 && w.starts_with(b"related"))
}

/// Parts that may follow (or precede) a frame word in one value and keep it the frame:
/// `nav-menu`, `footer-links`, `sidebar-left`, `share-buttons`.
fn is_frame_modifier(w: &[u8]) -> bool {
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
fn is_content_word(w: &[u8]) -> bool {
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

/// Content words that name one piece of writing, not a layout's region (`content`, `main`,
/// `page`): an element so marked is an article by its author's word.
fn is_story_word(w: &[u8]) -> bool {
    matches!(w, b"article" | b"entry" | b"hentry" | b"post" | b"story")
}

/// Names of the plugins that make a page's share buttons, likes, related posts and comment
/// threads (Jetpack's `sharedaddy` and `jp-relatedposts`, AddToAny, Shariff, ShareThis,
/// Social Pug's `dpsp`, Disqus): nothing else is so named, so a part that is one marks the
/// frame even where another token names content (Jetpack's likes are
/// `class="sharedaddy ..." id="like-post-wrapper-..."`).
fn is_plugin_word(w: &[u8]) -> bool {
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
fn is_negative_word(w: &[u8]) -> bool {
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
fn is_hidden_class(w: &[u8]) -> bool {
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
fn is_caption_class(token: &[u8]) -> bool {
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
fn is_frame_role(w: &[u8]) -> bool {
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

/// What one start tag's attributes say.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Marks {
    hidden: bool,
    frame: bool,
    /// A frame role (`navigation`, `banner`, ...), which the retry keeps out too.
    frame_role: bool,
    main: bool,
    article: bool,
    /// Readability's class weight: +25 for content words, -25 for negative ones.
    weight: f32,
    /// A class or id names one piece of writing (`yom-article`, `story-body`, `post`,
    /// `hentry`): marked as an article is, by the author's words rather than the tag.
    story: bool,
    /// Every class or id value that names the frame ends in `header` (`code-header`,
    /// `section-header`): on a heading, that names what the heading is, not the page's header.
    header_only: bool,
    /// A class names a photo's caption or credit (`wp-caption`, `InlineImage-imageEmbedCredit`,
    /// `credits`; [`is_caption_class`]): read as a `figcaption` is, not as text.
    caption: bool,
    /// A class or id names the content and none names the frame.
    content: bool,
    /// Every class or id value that names the frame names a layout's part: a sidebar (the
    /// column beside the content: `sidebar-container` may hold both) or a widget (a page
    /// builder's name for any block: `hs_cos_wrapper_widget`).
    layout: bool,
    /// A class or id value ends in `content` or `body` and names no frame (`post-content`,
    /// `entry-body`): the element is the content's body, whatever its tag.
    body: bool,
    /// [`class_key`] of its `class` value.
    class: u32,
}

/// Whether a value part list (a class or id cut at `-` and `_`) names the frame.
fn frame_token(token: &[u8]) -> bool {
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
    let plain = |p: &[u8]| is_frame_modifier(p) || is_frame_word(p) || is_number(p);
    is_frame_word(last)
        || (is_frame_word(first) && (n == 1 || rest[..n].iter().all(|p| plain(p))))
        // A frame word between layout words (`region-footer-bottom`, `inner-comments-wrap`):
        // every part is the frame's or a layout word.
        || (plain(first)
            && rest[..n].iter().all(|p| plain(p))
            && rest[..n - 1].iter().any(|p| is_frame_word(p)))
}

/// Whether node `i` is a heading, or a wrapper holding one and nothing else (a page builder's
/// heading widget, `div class="section-title"` around an `h2`): looked for among its first
/// eight descendants.
fn heads(nodes: &[Node], i: usize) -> bool {
    let n = &nodes[i];
    n.tag == Tag::Heading
        || (n.text > 0
            && (i + 1..nodes.len())
                .take(8)
                .take_while(|&d| nodes[d].parent as usize >= i)
                .any(|d| nodes[d].tag == Tag::Heading && nodes[d].text == n.text))
}

/// Elementor, a page builder, makes every part of a page it lays out an `elementor-widget`:
/// the page's headings and text as much as its menus and share buttons. Such a value is
/// judged by the widget's kind after it, `heading` and `text-editor` (text), `nav-menu` and
/// `share-buttons` (the frame); the bare `elementor-widget` names no kind, and nothing. The
/// builder's header and footer are marked as such (`elementor-location-header`).
fn builder_kind(token: &[u8]) -> Option<&[u8]> {
    kind_after(token, b"elementor-widget", b"-_")
}

/// The kind a builder's value names after its `prefix` and one of the separators `seps`:
/// empty for the bare prefix, `None` where the value is not the builder's (another name that
/// begins with the prefix).
fn kind_after<'t>(token: &'t [u8], prefix: &[u8], seps: &[u8]) -> Option<&'t [u8]> {
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
fn panel_kind(token: &[u8]) -> Option<&[u8]> {
    kind_after(token, b"widget", b"_")
}

/// Page builders' widgets that are the site's, not the page's: lists of its other posts (a
/// grid, a carousel, an archive), its contact form and its customers' testimonials
/// (Elementor's kinds, then SiteOrigin's).
fn is_builder_listing(kind: &[u8]) -> bool {
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
const CAMEL_MAX: usize = 16;

/// The last word of a camelCase name, lowercased into `buf`: the letters and digits from the
/// last capital that follows a lowercase letter in the value's last part (cut at what is not
/// a letter or a digit), `comments` of `docComments`, `banner` of `o-pageHeroBanner`. `None`
/// where that part has no such capital (`Footer`, `FOOTER`, `footer`) or the word is longer
/// than [`CAMEL_MAX`].
fn camel_last<'b>(written: &[u8], buf: &'b mut [u8; CAMEL_MAX]) -> Option<&'b [u8]> {
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
fn class_key(value: &[u8]) -> u32 {
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
fn is_streamed_id(id: &[u8]) -> bool {
    id.strip_prefix(b"S:")
        .is_some_and(|n| !n.is_empty() && is_number(n))
}

fn is_number(p: &[u8]) -> bool {
    p.iter().all(u8::is_ascii_digit)
}

fn parts_of(token: &[u8]) -> impl DoubleEndedIterator<Item = &[u8]> {
    token
        .split(|c| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
}

/// The fixed searches of [`judge`] and [`scan`], each built once: `memmem::find` builds its
/// searcher on every call, which cost more than the search on a short value.
struct Finders {
    comment_end: memchr::memmem::Finder<'static>,
    so_panel: memchr::memmem::Finder<'static>,
    none: memchr::memmem::Finder<'static>,
    hidden: memchr::memmem::Finder<'static>,
    display_none: memchr::memmem::Finder<'static>,
    visibility_hidden: memchr::memmem::Finder<'static>,
}

static FINDERS: std::sync::LazyLock<Finders> = std::sync::LazyLock::new(|| {
    use memchr::memmem::Finder;
    Finders {
        comment_end: Finder::new(b"-->"),
        so_panel: Finder::new(b"so-panel"),
        none: Finder::new(b"none"),
        hidden: Finder::new(b"hidden"),
        display_none: Finder::new(b"display:none"),
        visibility_hidden: Finder::new(b"visibility:hidden"),
    }
});

/// The places of the tokens of a class or id value: its runs of bytes that are not ASCII
/// whitespace.
fn tokens(value: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < value.len() && value[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == value.len() {
            return None;
        }
        let from = i;
        while i < value.len() && !value[i].is_ascii_whitespace() {
            i += 1;
        }
        Some((from, i))
    })
}

/// Whether a class or id token (`token` lowercased, `written` as written) can mark its
/// element at all: many tokens of a page (utility classes, `mt-4`, `lg:flex`; generated
/// names) hold none of the words [`judge`] asks about, and are passed over without the
/// questions. A token with a capital (a camelCase name), one whose part is a word of any
/// list (or begins `related`, or ends `credit` or `caption`) or a hidden class is judged.
fn may_mark(token: &[u8], written: &[u8]) -> bool {
    token != written || is_hidden_class(token) || parts_of(token).any(in_vocabulary)
}

/// Whether a part of a token (its letters and digits) is a word of any list [`judge`] asks
/// about, begins `related` or ends `credit` or `caption` (plurals too). One letter is none.
fn in_vocabulary(p: &[u8]) -> bool {
    p.len() > 1
        && (is_frame_word(p)
            || is_frame_modifier(p)
            || is_content_word(p)
            || is_negative_word(p)
            || is_plugin_word(p)
            || p.starts_with(b"related")
            || p.ends_with(b"credit")
            || p.ends_with(b"credits")
            || p.ends_with(b"caption")
            || p.ends_with(b"captions"))
}

/// Judges the attribute bytes of a start tag. The first pass judges a tag's key instead
/// ([`read_attributes`], [`judge_read`]), remembered from tag to tag; this is the tests' way
/// in.
#[cfg_attr(not(test), allow(dead_code))]
fn judge(attrs: &[u8]) -> Marks {
    judge_tokens(attrs, may_mark)
}

/// [`judge`], asking every class and id token that `ask` lets through ([`may_mark`]; the
/// tests let every token through, the reference the fast path is held to).
#[cfg_attr(not(test), allow(dead_code))]
fn judge_tokens(attrs: &[u8], ask: impl FnMut(&[u8], &[u8]) -> bool) -> Marks {
    let mut key = Vec::new();
    read_attributes(attrs, &mut key);
    judge_read(&key, ask, &mut Vec::new())
}

/// The attributes [`judge`] reads, by their lowercase names: the index in this list is their
/// code in a key ([`read_attributes`]).
const READ_ATTRIBUTES: [&[u8]; 7] = [
    b"class",
    b"id",
    b"role",
    b"hidden",
    b"aria-hidden",
    b"style",
    b"itemprop",
];

/// Writes into `key` what [`judge`] reads of a start tag's attribute bytes, in their order:
/// for each attribute of [`READ_ATTRIBUTES`], its code (one byte), its value's length (four
/// bytes, little-endian) and its value as written. The rest (links, sources, data) is left
/// out, so that tags which differ only there share one key and one judgement. Empty where
/// the tag has none of them: the marks are then the defaults.
fn read_attributes(attrs: &[u8], key: &mut Vec<u8>) {
    key.clear();
    html::attributes(attrs, |name, value| {
        if let Some(code) = read_code(name) {
            key.push(code);
            let len = u32::try_from(value.len()).unwrap_or(u32::MAX);
            key.extend_from_slice(&len.to_le_bytes());
            key.extend_from_slice(&value[..len as usize]);
        }
    });
}

/// The code of an attribute [`judge`] reads (its index in [`READ_ATTRIBUTES`]), by its name in
/// any case: one comparison or two, chosen by the name's length (most names a tag holds,
/// `href`, `src`, `title`, `data-*`, are told apart there).
#[inline]
fn read_code(name: &[u8]) -> Option<u8> {
    let is = |code: u8| name.eq_ignore_ascii_case(READ_ATTRIBUTES[usize::from(code)]);
    let code = match name.len() {
        2 => 1,
        4 => 2,
        5 if is(0) => return Some(0),
        5 => 5,
        6 => 3,
        11 => 4,
        8 => 6,
        _ => return None,
    };
    is(code).then_some(code)
}

/// The attributes of a key written by [`read_attributes`]: each one's lowercase name and value.
fn read_back(key: &[u8]) -> impl Iterator<Item = (&'static [u8], &[u8])> {
    let mut i = 0;
    std::iter::from_fn(move || {
        let (&code, rest) = key.get(i..)?.split_first()?;
        let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let value = rest.get(4..4 + len)?;
        i += 5 + len;
        Some((READ_ATTRIBUTES[usize::from(code)], value))
    })
}

/// [`judge_tokens`] of the attributes that [`read_attributes`] wrote into `key` (`lower` holds
/// each value lowercased in turn: the caller's buffer, kept from tag to tag).
fn judge_read(key: &[u8], mut ask: impl FnMut(&[u8], &[u8]) -> bool, lower: &mut Vec<u8>) -> Marks {
    let mut m = Marks::default();
    let mut frame_tokens = 0;
    let mut footer_tokens = 0;
    let mut header_tokens = 0;
    let mut layout_tokens = 0;
    let mut content_tokens = 0;
    let mut plugin = false;
    let (mut hidden_attr, mut streamed) = (false, false);
    // Only these attributes are in the key: the others' values (often long) are not even
    // lowercased.
    for (name, value) in read_back(key) {
        lower.clear();
        lower.extend_from_slice(value);
        lower.make_ascii_lowercase();
        let lower = &*lower;
        let (class, id) = (name == b"class", name == b"id");
        if class {
            m.class = class_key(value);
        }
        if id {
            streamed |= is_streamed_id(value);
        }
        if class || id {
            // A SiteOrigin panel's widget values are its builder's (see [`panel_kind`]).
            let panel = class
                && FINDERS.so_panel.find(lower).is_some()
                && lower
                    .split(|c| c.is_ascii_whitespace())
                    .any(|t| t == b"so-panel");
            // Each token as written beside its lowercase copy (the same bytes' places): its
            // capitals are where a camelCase name's words begin (see [`camel_last`]).
            for (from, to) in tokens(lower) {
                let (token, written) = (&lower[from..to], &value[from..to]);
                if !ask(token, written) {
                    continue;
                }
                let mut camel = [0u8; CAMEL_MAX];
                let camel = camel_last(written, &mut camel);
                if is_hidden_class(token) {
                    m.hidden = true;
                }
                m.caption |= class && is_caption_class(token);
                // A page builder's block is judged by its kind (see [`builder_kind`] and
                // [`panel_kind`]); lists of the site's other posts, its form and testimonials
                // are the frame.
                let kind = builder_kind(token)
                    .or_else(|| if panel { panel_kind(token) } else { None })
                    .or_else(|| (token == b"custom-html-widget").then_some(&b""[..]));
                let (token, listing) = match kind {
                    Some(kind) => (kind, is_builder_listing(kind)),
                    None => (token, false),
                };
                // A camelCase name whose last word names the frame (`docComments`, `siteFooter`,
                // `mainNav`) is the frame as `doc-comments` is. A frame word first
                // (`headerWrapper`, `menuContent`) is not enough: such names wrap whole pages.
                let camel_frame = kind.is_none() && camel.is_some_and(is_frame_word);
                let frame = listing || frame_token(token) || camel_frame;
                // The token's parts are cut once and each asked every question.
                let (mut content, mut story, mut negative, mut named) =
                    (false, false, false, false);
                let mut last: &[u8] = b"";
                for part in parts_of(token) {
                    content |= is_content_word(part);
                    story |= is_story_word(part);
                    negative |= is_negative_word(part);
                    named |= is_plugin_word(part);
                    last = part;
                }
                if camel_frame {
                    last = camel.unwrap_or(last);
                }
                plugin |= named;
                let frame = frame || named;
                if frame {
                    frame_tokens += 1;
                    header_tokens += usize::from(last == b"header");
                    let layout = |p: &[u8]| matches!(p, b"sidebar" | b"widget" | b"widgets");
                    layout_tokens += usize::from(
                        !listing && (parts_of(token).any(layout) || (camel_frame && layout(last))),
                    );
                    // A page's footer or its legal lines (`copyright-footer`, `site-footer`,
                    // `copyright`): kept out by the retry too, which would otherwise give a
                    // page of short sections its copyright notice.
                    footer_tokens +=
                        usize::from(matches!(last, b"footer" | b"copyright" | b"copyrights"));
                } else if content {
                    content_tokens += 1;
                }
                m.body |= !frame && matches!(last, b"content" | b"body");
                if content {
                    m.weight += 25.0;
                    // Every story word is a content word: a part that is one makes `content`.
                    m.story |= story;
                }
                // DocBook's reference entry (`div class="refentry"`): the whole of one
                // reference page (its name, synopsis, description and sections), as a
                // declared `main` is.
                m.main |= token == b"refentry";
                if frame || negative {
                    m.weight -= 25.0;
                }
            }
        } else if name == b"role" {
            for token in lower.split(|c| c.is_ascii_whitespace()) {
                if is_frame_role(token) {
                    m.frame_role = true;
                } else if token == b"main" {
                    m.main = true;
                } else if token == b"article" {
                    m.article = true;
                }
            }
        } else if name == b"hidden" {
            hidden_attr = true;
        } else if name == b"aria-hidden" {
            m.hidden |= lower.trim_ascii() == b"true";
        } else if name == b"style" {
            if FINDERS.none.find(lower).is_some() || FINDERS.hidden.find(lower).is_some() {
                let squeezed: Vec<u8> = lower
                    .iter()
                    .copied()
                    .filter(|c| !c.is_ascii_whitespace())
                    .collect();
                m.hidden |= FINDERS.display_none.find(&squeezed).is_some()
                    || FINDERS.visibility_hidden.find(&squeezed).is_some();
            }
        } else if name == b"itemprop" {
            m.article |= lower
                .split(|c| c.is_ascii_whitespace())
                .any(|t| t == b"articlebody" || t == b"text");
        }
    }
    // React's streamed boundary is hidden only until its script moves it into the page.
    m.hidden |= hidden_attr && !streamed;
    m.frame = frame_tokens > 0 && (content_tokens == 0 || plugin) && !m.main && !m.article;
    m.content = content_tokens > 0 && frame_tokens == 0;
    m.layout = frame_tokens > 0 && frame_tokens == layout_tokens;
    m.header_only = frame_tokens > 0 && frame_tokens == header_tokens;
    m.frame_role |= m.frame && footer_tokens > 0;
    m.frame_role &= !m.main;
    m
}

/// Attribute sets judged so far on this thread, by their keys ([`read_attributes`]); [`judge`]
/// reads nothing else, so a set judged on one page holds on the next.
type Judged = HashMap<Box<[u8]>, Marks, foldhash::fast::RandomState>;

/// The most attribute sets a thread remembers (a class name or two each).
const JUDGED_MAX: usize = 1 << 15;

/// The last attribute sets judged, by their bytes as written, one a slot chosen by their hash:
/// a site's template repeats the same bytes on every page, and such a set is found again by a
/// hash and one comparison, without reading its attributes. A set longer than a slot, or whose
/// slot another took since, is read ([`read_attributes`]) and found by its key.
struct Recent {
    slots: Vec<RecentSlot>,
}

#[derive(Clone, Copy)]
struct RecentSlot {
    /// The set's length (0: empty; sets under four bytes are never judged).
    len: u8,
    bytes: [u8; RECENT_BYTES],
    marks: Marks,
}

/// Bytes a slot holds.
const RECENT_BYTES: usize = 62;
/// Slots (a power of two).
const RECENT_SLOTS: usize = 1 << 10;

impl Default for Recent {
    fn default() -> Recent {
        let empty = RecentSlot {
            len: 0,
            bytes: [0; RECENT_BYTES],
            marks: Marks::default(),
        };
        Recent {
            slots: vec![empty; RECENT_SLOTS],
        }
    }
}

impl Recent {
    /// The index of the slot of `attrs`.
    fn index(attrs: &[u8]) -> usize {
        use std::hash::BuildHasher;
        let h = foldhash::fast::FixedState::with_seed(0x6e64_7265_6365_6e74).hash_one(attrs);
        (h as usize) & (RECENT_SLOTS - 1)
    }

    /// The slot of `attrs` (hashed once, for the look and for keeping them after a miss), or
    /// none for a set longer than a slot, which is not kept.
    fn slot(&mut self, attrs: &[u8]) -> Option<&mut RecentSlot> {
        (attrs.len() <= RECENT_BYTES).then(|| &mut self.slots[Self::index(attrs)])
    }
}

impl RecentSlot {
    /// The marks it holds if `attrs` (no longer than a slot) are its set.
    fn marks_of(&self, attrs: &[u8]) -> Option<Marks> {
        (usize::from(self.len) == attrs.len() && self.bytes[..attrs.len()] == *attrs)
            .then_some(self.marks)
    }

    /// Holds `attrs` (no longer than a slot) and their marks.
    fn hold(&mut self, attrs: &[u8], marks: Marks) {
        self.len = attrs.len() as u8;
        self.bytes[..attrs.len()].copy_from_slice(attrs);
        self.marks = marks;
    }
}

/// The words whose absence from an inline element's attributes says [`judge`] would find
/// nothing there: `hidden` and `none` (a hidden class, `display: none`; in capitals too, and
/// `Hidden` as in `visuallyHidden`), the screen readers' text (`sr-only`,
/// `screen-reader-text`), and a photo's caption or credit (`Caption` or `caption`, `Credit` or
/// `credit`).
const INLINE_WORDS: [&str; 9] = [
    "hidden",
    "Hidden",
    "HIDDEN",
    "none",
    "NONE",
    "sr-only",
    "reader-text",
    "aption",
    "redit",
];

/// One search for all of [`INLINE_WORDS`]: a vector search (Teddy) where the CPU has one (a
/// `memmem` search a word cost 2.6 % of main content with four words, the one search 0.1 %);
/// an automaton where it has none.
enum InlineWords {
    Packed(aho_corasick::packed::Searcher),
    Automaton(aho_corasick::AhoCorasick),
}

impl InlineWords {
    fn get() -> &'static InlineWords {
        static WORDS: std::sync::OnceLock<InlineWords> = std::sync::OnceLock::new();
        WORDS.get_or_init(|| match aho_corasick::packed::Searcher::new(INLINE_WORDS) {
            Some(packed) => InlineWords::Packed(packed),
            None => InlineWords::Automaton(
                aho_corasick::AhoCorasick::new(INLINE_WORDS)
                    .expect("nine short words build an automaton"),
            ),
        })
    }

    /// Whether any of the words is in `attrs`.
    fn any_in(&self, attrs: &[u8]) -> bool {
        match self {
            InlineWords::Packed(s) => s.find(attrs).is_some(),
            InlineWords::Automaton(a) => a.is_match(attrs),
        }
    }
}

/// The first pass: the stack of open elements, the nodes, the blocks and their scores.
fn scan(html_text: &str, s: &mut Scratch, noscript: bool) {
    let b = html_text.as_bytes();
    let n = b.len();
    let inline_words = InlineWords::get();
    let Scratch {
        text,
        nodes,
        blocks,
        stack,
        judged,
        key,
        lower,
        recent,
        title,
        index,
        unframed,
        hidden_bytes,
        ..
    } = s;
    index.build(b);
    let index = &*index;
    if judged.len() >= JUDGED_MAX {
        judged.clear();
    }
    nodes.push(Node {
        parent: 0,
        tag: Tag::Root,
        score: 0.0,
        score_all: 0.0,
        scored: false,
        scored_all: false,
        children: 0,
        text: 0,
        links: 0,
        own: 0,
        visible: true,
        shown: true,
        story: false,
        marked: false,
        named: false,
        layout: false,
        class: 0,
    });
    let mut p = Pass {
        tb: TextBuilder::new(text),
        nodes,
        blocks,
        stack,
        title,
        unframed,
        block_start: 0,
        block_links: 0,
        block_link_words: 0,
        block_link_commas: 0,
        block_anchors: 0,
        hidden_bytes,
    };
    let mut i = 0;
    while i < n {
        let at = index.next_lt(i);
        p.text(html_text, i, at, index);
        if at >= n {
            break;
        }
        i = at;
        let next = b.get(i + 1).copied().unwrap_or(b' ');
        if b[i..].starts_with(b"<!--") {
            i = FINDERS
                .comment_end
                .find(&b[i + 4..])
                .map_or(n, |e| i + 4 + e + 3);
            continue;
        }
        if next == b'!' || next == b'?' {
            i = (index.next_gt(i) + 1).min(n);
            continue;
        }
        if next != b'/' && !next.is_ascii_alphabetic() {
            p.append(|tb| tb.text("<", false));
            i += 1;
            continue;
        }
        let closing = next == b'/';
        let name_start = i + 1 + usize::from(closing);
        let name_len = html::name_len(b, name_start);
        let end = html::tag_end(b, name_start + name_len);
        i = end;
        if name_len == 0 {
            continue;
        }
        let name = Name::at(b, name_start, name_len);
        let nb = name.as_bytes();
        if closing {
            p.close(&name);
            continue;
        }
        let attrs = &b[name_start + name_len..end];
        let self_closed = attrs.ends_with(b"/>");
        if is_raw(nb) && !(noscript && nb == b"noscript") {
            if !self_closed {
                i = html::skip_raw_text(b, i, nb, index);
            }
            if nb != b"button" {
                p.boundary();
            }
            continue;
        }
        if nb == b"br" {
            p.tb.brk();
            continue;
        }
        if html::is_void(nb) || nb == b"html" || nb == b"head" {
            if html::is_block(nb) {
                p.boundary();
            }
            continue;
        }
        let tag = tag_of(nb);
        // Inline elements are judged only when they might be hidden, or a photo's caption or
        // credit (`span class="newsCaption"`): most of a page's tags are links and spans read
        // as they are.
        // The judgement is remembered by the set's bytes while it is recent ([`Recent`]), and
        // by what it reads ([`read_attributes`]): tags that differ only in their links or data
        // share it.
        let marks = if attrs.len() < 4 || (tag == Tag::Inline && !inline_words.any_in(attrs)) {
            Marks::default()
        } else {
            let slot = recent.slot(attrs);
            match slot.as_deref().and_then(|s| s.marks_of(attrs)) {
                Some(m) => m,
                None => {
                    read_attributes(attrs, key);
                    let m = if key.is_empty() {
                        Marks::default()
                    } else if let Some(m) = judged.get(key.as_slice()) {
                        *m
                    } else {
                        let m = judge_read(key, may_mark, lower);
                        judged.insert(key.as_slice().into(), m);
                        m
                    };
                    if let Some(s) = slot {
                        s.hold(attrs, m);
                    }
                    m
                }
            }
        };
        p.open(name, tag, marks, self_closed);
    }
    while !p.stack.is_empty() {
        p.pop();
    }
    p.boundary();
}

/// The state of the first pass.
struct Pass<'a, 'o> {
    tb: TextBuilder<'o>,
    nodes: &'a mut Vec<Node>,
    blocks: &'a mut Vec<Block>,
    stack: &'a mut Vec<Open>,
    title: &'a mut Option<u32>,
    /// Elements whose frame marks are ignored ([`Scratch::unframed`]).
    unframed: &'a [u32],
    /// Where the current block's text starts, and its link bytes so far.
    block_start: usize,
    block_links: u32,
    /// Word bytes ([`word_bytes`]) of the current block's link text.
    block_link_words: u32,
    /// Commas ([`commas`]) in the current block's link text.
    block_link_commas: u32,
    /// [`Scratch::hidden_bytes`].
    hidden_bytes: &'a mut usize,
    /// Links begun in the current block.
    block_anchors: u16,
}

impl Pass<'_, '_> {
    fn state(&self) -> State {
        self.stack.last().map_or(State::default(), |o| o.state)
    }

    fn owner(&self) -> u32 {
        self.stack.last().map_or(0, |o| o.owner)
    }

    /// Text between tags: `html_text[from..to]`, character references decoded. Hidden text
    /// is not written, only counted ([`Scratch::hidden_bytes`]).
    fn text(&mut self, html_text: &str, from: usize, to: usize, index: &Index) {
        if from >= to {
            return;
        }
        if self.state().hidden {
            *self.hidden_bytes += html_text.as_bytes()[from..to]
                .iter()
                .filter(|c| !c.is_ascii_whitespace())
                .count();
            return;
        }
        self.append(|tb| html::append_text(html_text, from, to, tb, index));
    }

    /// Appends what `write` writes to the text, counted as link text inside a link, unless
    /// the element it is in is hidden.
    fn append(&mut self, write: impl FnOnce(&mut TextBuilder<'_>)) {
        let state = self.state();
        if state.hidden {
            return;
        }
        let before = self.tb.len();
        write(&mut self.tb);
        if state.link {
            self.block_links += (self.tb.len() - before) as u32;
            let written = &self.tb.as_str()[before..];
            self.block_link_words += word_bytes(written);
            self.block_link_commas += commas(written) as u32;
        }
    }

    /// Ends the current block (a block-level boundary).
    fn boundary(&mut self) {
        self.tb.brk();
        let end = self.tb.len();
        if end > self.block_start {
            let owner = self.owner();
            let len = (end - self.block_start) as u32;
            let links = self.block_links.min(len);
            let link_words = self.block_link_words;
            let anchors = self.block_anchors;
            let State {
                frame,
                frame_tag,
                code,
                ..
            } = self.state();
            self.blocks.push(Block {
                start: self.block_start as u32,
                end: end as u32,
                owner,
                links,
                link_words,
                anchors,
                frame,
                frame_tag,
                code,
            });
            // The text and link bytes count for the owner (and its ancestors when it closes).
            let o = &mut self.nodes[owner as usize];
            o.text += len;
            o.own += len;
            o.links += links;
            if len as usize >= MIN_SCORED && !frame_tag {
                // A block that is mostly links (a list of them with commas between) is not a
                // paragraph with commas: only the commas inside its links (a linked teaser's
                // sentences) score, not those between them.
                let link_commas = (links * 2 > len).then_some(self.block_link_commas);
                self.score_block(owner, end, frame, link_commas);
            }
        }
        self.block_start = end;
        self.block_links = 0;
        self.block_link_words = 0;
        self.block_link_commas = 0;
        self.block_anchors = 0;
    }

    /// Adds a block's score to its owner's ancestors, as Readability does for a paragraph.
    fn score_block(&mut self, owner: u32, end: usize, frame: bool, link_commas: Option<u32>) {
        let text = &self.tb.as_str()[self.block_start..end];
        let bytes = text.as_bytes();
        let commas = link_commas.map_or_else(|| commas(text), |c| c as usize);
        let chars = if bytes.is_ascii() {
            bytes.len()
        } else {
            bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count()
        };
        let score = 1.0 + commas as f32 + (chars / 100).min(3) as f32;
        let mut at = self.nodes[owner as usize].parent;
        for level in 0..5 {
            let node = &mut self.nodes[at as usize];
            if node.tag == Tag::Root || !node.shown {
                break;
            }
            let divider = match level {
                0 => 1.0,
                1 => 2.0,
                l => l as f32 * 3.0,
            };
            node.score_all += score / divider;
            node.scored_all = true;
            if !frame && node.visible {
                node.score += score / divider;
                node.scored = true;
            }
            at = node.parent;
        }
    }

    /// A start tag.
    fn open(&mut self, name: Name, tag: Tag, marks: Marks, self_closed: bool) {
        let nb = name.as_bytes();
        let block_level = tag != Tag::Inline;
        // Implied end tags: a block closes an open paragraph, an item the open item, a
        // cell the open cell.
        if block_level {
            if let Some(top) = self.stack.last() {
                let t = top.name.as_bytes();
                let implied = match nb {
                    b"li" => t == b"li" || t == b"p",
                    b"dt" | b"dd" => matches!(t, b"dt" | b"dd" | b"p"),
                    b"td" | b"th" => matches!(t, b"td" | b"th" | b"p"),
                    b"tr" => matches!(t, b"td" | b"th" | b"tr" | b"p"),
                    b"option" => t == b"option",
                    _ => t == b"p",
                };
                if implied {
                    self.pop();
                    // A row also closes its row once its cell is gone.
                    if nb == b"tr"
                        && self
                            .stack
                            .last()
                            .is_some_and(|o| o.name.as_bytes() == b"tr")
                    {
                        self.pop();
                    }
                }
            }
            self.boundary();
        }
        let parent_state = self.state();
        let parent = self.stack.last().map_or(0, |o| o.node);
        let tag = if marks.main && tag != Tag::Body {
            Tag::Main
        } else if marks.article && tag != Tag::Body {
            Tag::Article
        } else {
            tag
        };
        // A heading marked only as a header (rustdoc's `h4 class="code-header"` over each
        // method's signature, `h2 class="section-header"`) is a heading of the content: the
        // page's header is a container, not a heading.
        let mut marks = marks;
        if marks.frame
            && !self.unframed.is_empty()
            && self
                .unframed
                .binary_search(&(self.nodes.len() as u32))
                .is_ok()
        {
            marks.frame = false;
        }
        if tag == Tag::Heading && marks.header_only && !marks.frame_role {
            marks.frame = false;
        }
        // A `header` named as the content's body (`header class="section_blog-post-content"`
        // around a whole post) is not the page's header.
        let header_as_body = nb == b"header" && marks.body;
        let by_tag =
            ((is_frame_tag(nb) && !header_as_body) || marks.frame_role) && tag != Tag::Body;
        // A declared `main` is never the frame's: HTML allows none inside a `nav`, `header`,
        // `footer` or `aside`. One inside an element that is the frame only by its class or
        // role (arXiv's `div class="flex-wrap-footer"` around its whole page) ends that frame.
        let main_resets = tag == Tag::Main && !parent_state.in_frame_element;
        let state = State {
            // Ruby annotations (`rt`, `rp`) are a reading aid printed above the text, not text
            // read inline with it; a figure's caption (`figcaption`, or an element whose class
            // names a caption or a credit: what a photo shows and whose it is) describes the
            // figure, not the story. A declared `main` or `article` is never one.
            hidden: parent_state.hidden
                || marks.hidden
                || matches!(nb, b"rt" | b"rp" | b"figcaption")
                || (marks.caption && !matches!(tag, Tag::Main | Tag::Article | Tag::Body)),
            frame: (parent_state.frame && !main_resets)
                || by_tag
                || (marks.frame && tag != Tag::Body),
            frame_tag: (parent_state.frame_tag && !main_resets) || by_tag,
            in_frame_element: parent_state.in_frame_element || is_frame_tag(nb),
            // A paragraph inside a link (a card that is one link, `a href` around a heading
            // and a paragraph, as a listing's entries are written) is the card's text, not a
            // link's words: its heading stays the link.
            link: (parent_state.link && nb != b"p") || nb == b"a",
            in_main: parent_state.in_main || matches!(tag, Tag::Main | Tag::Article),
            code: parent_state.code || nb == b"pre",
        };
        if nb == b"a" && !parent_state.link && !state.hidden {
            self.block_anchors = self.block_anchors.saturating_add(1);
        }
        let id = self.nodes.len() as u32;
        if nb == b"h1" && state.in_main && !state.hidden && !state.frame_tag && self.title.is_none()
        {
            *self.title = Some(id);
        }
        self.nodes[parent as usize].children += 1;
        self.nodes.push(Node {
            parent,
            tag,
            score: tag_score(tag) + marks.weight,
            score_all: tag_score(tag) + marks.weight,
            scored: false,
            scored_all: false,
            children: 0,
            text: 0,
            links: 0,
            own: 0,
            visible: !state.hidden && !state.frame,
            shown: !state.hidden && !state.frame_tag,
            story: marks.story,
            marked: marks.frame && tag != Tag::Body,
            named: marks.content,
            layout: marks.layout,
            class: marks.class,
        });
        if self_closed {
            return;
        }
        let owner = if block_level { id } else { self.owner() };
        self.stack.push(Open {
            name,
            node: id,
            owner,
            state,
        });
    }

    /// An end tag: closes its element if it is open near the top of the stack.
    fn close(&mut self, name: &Name) {
        if matches!(name.as_bytes(), b"body" | b"html" | b"br") {
            return;
        }
        let depth = self.stack.len();
        let Some(k) = self
            .stack
            .iter()
            .rev()
            .take(MAX_CLOSE)
            .position(|o| o.name == *name)
        else {
            return;
        };
        for _ in 0..=k.min(depth - 1) {
            self.pop();
        }
    }

    /// Closes the top element; its text counts for its parent.
    fn pop(&mut self) {
        let Some(top) = self.stack.last().copied() else {
            return;
        };
        if top.owner == top.node {
            self.boundary();
        }
        self.stack.pop();
        let node = self.nodes[top.node as usize];
        let parent = &mut self.nodes[node.parent as usize];
        parent.text += node.text;
        parent.links += node.links;
    }
}

fn link_density(n: &Node) -> f32 {
    if n.text == 0 {
        0.0
    } else {
        n.links as f32 / n.text as f32
    }
}

/// Whether `n` is an article the content may keep whole: visible (in the strict reading, out
/// of the frame), of 100 bytes of text or more, and not mostly links.
fn keepable_article(n: &Node, strict: bool) -> bool {
    let visible = if strict { n.visible } else { n.shown };
    n.tag == Tag::Article && visible && n.text >= 100 && link_density(n) < 0.5
}

/// The text of the longest article the content may keep ([`keepable_article`]), or 0: what
/// tells a teaser (under 1 / [`TEASER`] of it) from a story.
fn longest_article(nodes: &[Node], strict: bool) -> u32 {
    nodes
        .iter()
        .skip(1)
        .filter(|n| keepable_article(n, strict))
        .map(|n| n.text)
        .max()
        .unwrap_or(0)
}

/// The most text (bytes) of the siblings that introduce the chosen container.
const MAX_INTRO: u32 = 200;

/// Inside a declared `main`, the text (bytes) beside a choice, and its largest share of link
/// text, at which that text is read as content with the choice, whatever the choice's share.
const MIN_REST: u32 = 200;
const REST_LINKS: f32 = 0.5;

/// Main content shorter than this (bytes) is looked for again with the frame's marks
/// ignored, as Readability retries without its "unlikely candidates": a page's content
/// sometimes sits in an element marked `related` or `sidebar`.
const MIN_MAIN_BYTES: usize = 500;

/// The letters and digits (bytes) a short reading with `noscript` as markup must find to be
/// taken: about twenty words, as a page's main content needs ([`crate::text::extract`]'s
/// `MIN_MAIN_WORDS`), where a notice asking for scripts mostly has under ten.
const MIN_NOSCRIPT_WORD_BYTES: u32 = 100;

/// A page whose text outside `noscript` (title, frame and hidden parts included) is shorter
/// than this (bytes) is next to nothing without it: its script renders its content.
const NEXT_TO_NOTHING: usize = 100;

/// A block that is mostly links is still text when this many bytes of words (letters and
/// digits: not the commas and bars between links) are not links: `Packages that use X`, not
/// `a, b, c` or `Home | About`.
const PLAIN_IN_LINKED: u32 = 12;
/// The same for a heading, which is never a list: `Uses of <a>X</a> in <a>p</a>` names the
/// section's subject; a heading that is a link alone (`<h3><a>Related</a></h3>`) is not.
const PLAIN_IN_HEADING: u32 = 4;

/// The commas in `s`, as Readability counts them: ASCII's and the other scripts' (Arabic,
/// the ideographic and full-width ones, ...).
fn commas(s: &str) -> usize {
    let bytes = s.as_bytes();
    // A link's or a short block's few bytes are counted in a plain loop: `memchr`'s vector
    // count costs more to set up than such a piece holds.
    let mut n = if bytes.len() < 64 {
        bytes.iter().filter(|b| **b == b',').count()
    } else {
        memchr::memchr_iter(b',', bytes).count()
    };
    if !bytes.is_ascii() {
        n += other_commas(bytes);
    }
    n
}

/// The commas of the other scripts (U+060C, U+3001, U+FF0C, U+FE10, U+FE11, U+FE50, U+2E32,
/// U+2E34 and U+2E41) in UTF-8 text, found by their bytes:
/// each begins with a lead byte, never a character's inner byte, so a match is the character.
/// Only the places of their four lead bytes are looked at (most of a Latin page's non-ASCII
/// bytes are accents and quotes, `C3` and `E2 80`), not every character decoded.
fn other_commas(bytes: &[u8]) -> usize {
    let at = |i: usize| {
        usize::from(matches!(
            bytes[i..],
            [0xD8, 0x8C, ..]
                | [0xE2, 0xB9, 0x81, ..]
                | [0xE2, 0xB8, 0xB4 | 0xB2, ..]
                | [0xE3, 0x80, 0x81, ..]
                | [0xEF, 0xB9, 0x90, ..]
                | [0xEF, 0xB8, 0x90 | 0x91, ..]
                | [0xEF, 0xBC, 0x8C, ..]
        ))
    };
    memchr::memchr3_iter(0xD8, 0xE2, 0xE3, bytes)
        .map(at)
        .sum::<usize>()
        + memchr::memchr_iter(0xEF, bytes).map(at).sum::<usize>()
}

/// The bytes of `s` that are letters or digits (every byte of a non-ASCII character counts).
fn word_bytes(s: &str) -> u32 {
    s.bytes()
        .filter(|c| c.is_ascii_alphanumeric() || *c >= 0x80)
        .count() as u32
}

/// The second pass: the chosen containers' blocks into `out`.
fn write(s: &mut Scratch, out: &mut String) -> Found {
    // Hidden text counts: a page whose content a script shows (a shop's whole `main` in a
    // `display: none` wrapper until a lockdown app lets the reader in) is not its banner.
    let page_bytes = s.text.len() + s.hidden_bytes;
    let main = |main| Found { main, page_bytes };
    let from = out.len();
    let strict = attempt(s, true, false, out);
    if strict >= MIN_MAIN_BYTES && !framed_most(s, strict) {
        return main(true);
    }
    let kept = out.split_off(from);
    // Taken only where it finds real content the strict choice missed, not a dialog or a
    // notice beside a short form: first with the frame marks inside the chosen region kept
    // out, then, where that leaves too little, with everything the region holds.
    for inner_out in [true, false] {
        let relaxed = attempt(s, false, inner_out, out);
        if relaxed >= MIN_MAIN_BYTES && relaxed >= 3 * strict {
            return main(true);
        }
        out.truncate(from);
    }
    out.push_str(&kept);
    if strict > 0 {
        return main(true);
    }
    // Nothing scored or nothing was left: the full text, hidden parts excepted.
    let mut tb = TextBuilder::new(out);
    for b in s.blocks.iter() {
        tb.text(&visible(&s.text[b.start as usize..b.end as usize]), true);
        tb.brk();
    }
    main(false)
}

/// Whether the strict choice left out, as frame marked by a class or id inside its region,
/// over five times the text it wrote, under 3 in 10 of it links: a review of the year's
/// best products whose every product is a `div class="c-product-widget"`, a service page
/// whose every programme is an accordion in a `div class="card-header"`. Such marks name
/// the site's parts the content is made of, not the frame around it, and the page is read
/// again as where the strict choice finds too little (taken where that finds three times as
/// much). A region's menus, headers and footers by tag (`nav`, `header`, `footer`, `aside`)
/// do not count.
fn framed_most(s: &Scratch, written: usize) -> bool {
    let (mut bytes, mut links) = (0u64, 0u64);
    for b in &s.blocks {
        if s.region[b.owner as usize] && b.frame && !b.frame_tag && s.title != Some(b.owner) {
            bytes += u64::from(b.end - b.start);
            links += u64::from(b.links);
        }
    }
    bytes > 5 * written as u64 && links * 10 < bytes * 3
}

/// One choice of the content, written to `out`: returns the bytes written. `strict` keeps
/// the frame out; otherwise only hidden parts are, and with `inner_out` the parts of the
/// chosen region marked as frame ([`keep_inner_frame_out`]).
fn attempt(s: &mut Scratch, strict: bool, inner_out: bool, out: &mut String) -> usize {
    let Scratch {
        text,
        nodes,
        blocks,
        region,
        title,
        ..
    } = s;
    let Some(chosen) = choose(nodes, strict) else {
        return 0;
    };
    region.clear();
    region.resize(nodes.len(), false);
    for &c in &chosen {
        region[c as usize] = true;
    }
    if let Some(t) = *title {
        region[t as usize] = true;
    }
    let longest = longest_article(nodes, strict);
    for i in 1..nodes.len() {
        if region[nodes[i].parent as usize] && !region[i] {
            // An article inside the chosen one that holds under a fifth of its text is a
            // teaser of another story or a comment; one in no article that holds under a
            // fifth of the longest article is a teaser beside the story (the "more news"
            // list a site puts after its `main`, inside the container chosen): left out,
            // with what it holds.
            region[i] = !(nodes[i].tag == Tag::Article && teaser(nodes, i, longest));
        }
    }
    if inner_out {
        keep_inner_frame_out(nodes, blocks, region);
    }
    let from = out.len();
    let mut tb = TextBuilder::new(out);
    let link_list = |b: &Block| {
        let least = if nodes[b.owner as usize].tag == Tag::Heading {
            PLAIN_IN_HEADING
        } else {
            PLAIN_IN_LINKED
        };
        !b.code
            && b.links * 2 > b.end - b.start
            && word_bytes(&text[b.start as usize..b.end as usize]).saturating_sub(b.link_words)
                < least
    };
    // Whether a block is left out whatever it holds: outside the region, a frame element, or
    // framed where the frame is kept out (the title is kept where its header carries a frame
    // word, `div class="header"`).
    let left_out = |b: &Block| {
        let framed = strict && b.frame && *title != Some(b.owner);
        !region[b.owner as usize] || b.frame_tag || framed
    };
    // A region whose text is mostly lines of links, and many of them (an index of a
    // language's topics, a listing of programmes, a collection's products), keeps them: they
    // are what the page is. A story's few lines of other headlines are still left out.
    let keep_lists = {
        let (mut all, mut lists, mut n) = (0u32, 0u32, 0usize);
        for b in blocks.iter().filter(|b| !left_out(b)) {
            all += b.end - b.start;
            if link_list(b) {
                lists += b.end - b.start;
                n += 1;
            }
        }
        lists * 2 > all && n >= MIN_INDEX_ENTRIES
    };
    // The element whose blocks after a label of other stories are that list, not text.
    let mut section: Option<u32> = None;
    let mut judge = labels::Judge::default();
    for (i, b) in blocks.iter().enumerate() {
        if left_out(b) {
            continue;
        }
        if let Some(p) = section {
            // The list goes on under the label's parent, up to the next heading beside the
            // label (a teaser's headline is further in) or a block of text long enough to be
            // the story's own again.
            let own = (b.end - b.start).saturating_sub(b.links);
            let owner = &nodes[b.owner as usize];
            if !(owner.tag == Tag::Heading && owner.parent == p)
                && own < MAX_TEASER
                && descends(nodes, b.owner, p)
            {
                continue;
            }
            section = None;
        }
        if !keep_lists && link_list(b) && !names_the_next(nodes, blocks, i, &left_out, &link_list) {
            continue;
        }
        let t = visible(&text[b.start as usize..b.end as usize]);
        // A label between the content's parts, a date line, a byline: not the content's
        // text (the page's title is, whatever it reads).
        if *title != Some(b.owner) {
            match judge.kind(&t) {
                labels::Kind::Text => {}
                labels::Kind::Label => continue,
                labels::Kind::Section => {
                    section = Some(nodes[b.owner as usize].parent);
                    continue;
                }
            }
        }
        tb.text(&t, true);
        tb.brk();
    }
    out.len() - from
}

/// The fewest lines of links that make a region whose text is mostly links an index, kept
/// whole ([`attempt`]): a story's list of other headlines is shorter.
const MIN_INDEX_ENTRIES: usize = 20;

/// The most bytes of text, besides link text, of a block in a list of other stories after
/// its label: a teaser's headline and line of summary; a longer block is the story's again.
const MAX_TEASER: u32 = 200;

/// Whether node `i` is `p` or lies inside it (looked for at most [`MAX_CLOSE`] levels up).
fn descends(nodes: &[Node], mut i: u32, p: u32) -> bool {
    for _ in 0..MAX_CLOSE {
        if i == p {
            return true;
        }
        if i == 0 {
            return false;
        }
        i = nodes[i as usize].parent;
    }
    false
}

/// Read without the frame's class and id marks (where a template marks the wrapper of the
/// whole content as frame, `div class="container penci_sidebar"`, and the strict reading
/// found nothing), the marks inside the chosen region still hold: the comments, share bar
/// and author box inside the story are left out of `region`, with what they hold, unless
/// they hold half of the region's text or more.
fn keep_inner_frame_out(nodes: &[Node], blocks: &[Block], region: &mut [bool]) {
    let mut inner = vec![false; nodes.len()];
    for i in 1..nodes.len() {
        let p = nodes[i].parent as usize;
        // A region's root (its parent outside it) is what the relaxed choice took, marks
        // and all.
        inner[i] = region[i] && region[p] && (inner[p] || nodes[i].marked);
    }
    let (mut all, mut framed) = (0u64, 0u64);
    for b in blocks {
        let o = b.owner as usize;
        if region[o] && !b.frame_tag {
            let len = u64::from(b.end - b.start);
            all += len;
            if inner[o] {
                framed += len;
            }
        }
    }
    if framed > 0 && framed * 2 < all {
        for (r, i) in region.iter_mut().zip(&inner) {
            *r &= !i;
        }
    }
}

/// A page of many equal parts (a service page's cards, steps and questions, each a short text
/// under a heading of its own, in sections from the top of the page to its foot) has no best
/// part: the choice is one card. Where four or more parts beside the choice (not inside it, not
/// above it), each scoring two fifths of the best or more, hold twice its text or more between
/// them, and under 3 in 10 of their bytes are links (not a list of teasers of other pages), the
/// content is the lowest element holding them all and the choice, up to the `body`. Only in
/// the strict choice, where the frame's marks keep the page's header, menus and footer out of
/// what that element holds. A part is counted once: the outermost of those that score, so that
/// a card and the paragraph in it are one part.
fn many_equal_parts(
    nodes: &[Node],
    candidates: &[usize],
    choice: usize,
    top_score: f32,
    fin: impl Fn(usize) -> f32,
) -> Option<usize> {
    let (up, parts) = parts_beside(nodes, candidates, choice, top_score, fin);
    let text: u64 = parts.iter().map(|&(c, _)| u64::from(nodes[c].text)).sum();
    let links: u64 = parts.iter().map(|&(c, _)| u64::from(nodes[c].links)).sum();
    let meet = parts.iter().map(|&(_, m)| m).max()?;
    let enough =
        parts.len() >= 4 && text >= 2 * u64::from(nodes[choice].text) && links * 10 < text * 3;
    enough.then(|| up[meet])
}

/// The parts beside a choice: candidates scoring two fifths of the best or more that are not
/// the choice, not inside it and not above it, each counted once (the outermost of those that
/// score: a section's wrapper and the text inside it are one part). Returns the choice's
/// ancestors, its parent first, and each part with the place among them where it meets the
/// choice. Linear in the candidates and their depth (at most 64 levels up).
fn parts_beside(
    nodes: &[Node],
    candidates: &[usize],
    choice: usize,
    top_score: f32,
    fin: impl Fn(usize) -> f32,
) -> (Vec<usize>, Vec<(usize, usize)>) {
    const INSIDE: u32 = u32::MAX - 1;
    // For each node, its place among the choice's ancestors (0 its parent), INSIDE for the
    // choice itself, u32::MAX for the rest.
    let mut place = vec![u32::MAX; nodes.len()];
    place[choice] = INSIDE;
    let mut up = Vec::new();
    let mut n = choice;
    for _ in 0..64 {
        n = nodes[n].parent as usize;
        if n == 0 {
            break;
        }
        place[n] = up.len() as u32;
        up.push(n);
    }
    let mut part = vec![false; nodes.len()];
    for &c in candidates {
        part[c] = place[c] == u32::MAX && fin(c) >= 0.4 * top_score;
    }
    let mut parts = Vec::new();
    for &c in candidates {
        if !part[c] {
            continue;
        }
        // Up from the part to where it meets the choice's ancestors: a part above it, or the
        // choice, on the way means it is not one of the parts beside the choice.
        let mut p = nodes[c].parent as usize;
        let mut depth = 0;
        while p != 0 && place[p] == u32::MAX && !part[p] && depth < 64 {
            p = nodes[p].parent as usize;
            depth += 1;
        }
        if p == 0 || part[p] || place[p] >= INSIDE {
            continue;
        }
        parts.push((c, place[p] as usize));
    }
    (up, parts)
}

/// A wrapper marked as frame by its class or id, where the frame begins, whose child named
/// as the content (`div id="the-content-container"` in `div class="sidebar-container"`) or
/// declared as the page's `main` (in `div class="interior-page-content-has-sidebar"`) holds
/// most of its text, was named for what sits beside the content (the sidebar, which has marks
/// of its own), not for the content: such wrappers, in `unframed`, are read again without
/// their marks.
fn named_beside(nodes: &[Node], unframed: &mut Vec<u32>) {
    for n in &nodes[1..] {
        let w = &nodes[n.parent as usize];
        if (n.named || n.tag == Tag::Main)
            && n.shown
            && w.marked
            && w.layout
            && w.shown
            && nodes[w.parent as usize].visible
            && n.text >= MIN_MAIN_BYTES as u32
            && n.text.saturating_mul(2) > w.text
        {
            unframed.push(n.parent);
        }
    }
    unframed.sort_unstable();
    unframed.dedup();
}

/// Whether the article `nodes[i]` holds under 1 / [`TEASER`] of the text of the article it
/// sits in (its nearest, within [`MAX_CLOSE`] levels), or, in none, of the `longest` article's.
fn teaser(nodes: &[Node], i: usize, longest: u32) -> bool {
    let mut up = nodes[i].parent as usize;
    for _ in 0..MAX_CLOSE {
        if up == 0 {
            return nodes[i].text.saturating_mul(TEASER) < longest;
        }
        if nodes[up].tag == Tag::Article {
            return nodes[i].text.saturating_mul(TEASER) < nodes[up].text;
        }
        up = nodes[up].parent as usize;
    }
    false
}

/// A link alone of at most this many bytes can be a name (see [`names_the_next`]).
const MAX_NAME: u32 = 120;
/// How many elements up from the next block's owner [`names_the_next`] looks for the name's.
const NAME_REACH: usize = 3;

/// Whether the link-only block `blocks[i]` is the name of what the next block says: one
/// link of at most [`MAX_NAME`] bytes, followed by a block the content keeps (in the chosen
/// region and not left out as frame: `left_out`, the rule the writing loop applies), of text of
/// its own, not a heading, that sits in the element beside the name's (or inside it): a
/// summary table's row (`BeanProperty` and its description), a `dt` and its `dd`; not the
/// last name of a list of inherited methods before the next list's heading. Such a name is
/// what tells the rows of one page from another's (two class-use pages listing the same
/// descriptions name different classes); a run of links (a menu, a list of related posts) is
/// never one link followed by text beside it.
fn names_the_next(
    nodes: &[Node],
    blocks: &[Block],
    i: usize,
    left_out: &impl Fn(&Block) -> bool,
    link_list: &impl Fn(&Block) -> bool,
) -> bool {
    let b = &blocks[i];
    let Some(next) = blocks.get(i + 1) else {
        return false;
    };
    if b.anchors != 1 || b.end - b.start > MAX_NAME || b.owner == 0 {
        return false;
    }
    if left_out(next) || link_list(next) || nodes[next.owner as usize].tag == Tag::Heading {
        return false;
    }
    let parent = nodes[b.owner as usize].parent;
    let mut up = next.owner;
    for _ in 0..NAME_REACH {
        if up == b.owner || up == parent {
            return true;
        }
        if up == 0 {
            break;
        }
        up = nodes[up as usize].parent;
    }
    false
}

/// Whether `c` is never seen in a page: a soft hyphen (shown only where a line breaks), a
/// zero-width space, joiner or word joiner, a byte-order mark, or a private-use character (an
/// icon font's glyph).
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}'
        | '\u{e000}'..='\u{f8ff}' | '\u{f0000}'..='\u{10ffff}'
    )
}

/// `s` without the characters a reader never sees ([`invisible`]): `Donau\u{ad}dampf` is the
/// word `Donaudampf`.
fn visible(s: &str) -> std::borrow::Cow<'_, str> {
    if !has_invisible(s.as_bytes()) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(s.chars().filter(|c| !invisible(*c)).collect())
}

/// Whether UTF-8 text holds an [`invisible`] character, told by its bytes: each one's encoding
/// starts with one of six lead bytes, which a vector search finds (a block's text is mostly
/// without any), and the bytes after a lead say which character it is:
///
/// | characters | bytes |
/// |---|---|
/// | U+00AD | `C2 AD` |
/// | U+200B to U+200D, U+2060 | `E2 80 8B`-`8D`, `E2 81 A0` |
/// | U+FEFF; U+F000 to U+F8FF | `EF BB BF`; `EF 80`-`A3` |
/// | U+E000 to U+EFFF | `EE` |
/// | U+F0000 to U+FFFFF | `F3 B0`-`BF` |
/// | U+100000 to U+10FFFF | `F4` |
///
/// A lead byte is never a continuation byte (those are 0x80 to 0xBF), so each one found starts
/// a character.
fn has_invisible(b: &[u8]) -> bool {
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    memchr::memchr3_iter(0xc2, 0xe2, 0xef, b).any(|i| match b[i] {
        0xc2 => at(i + 1) == 0xad,
        0xe2 => matches!((at(i + 1), at(i + 2)), (0x80, 0x8b..=0x8d) | (0x81, 0xa0)),
        _ => matches!((at(i + 1), at(i + 2)), (0xbb, 0xbf) | (0x80..=0xa3, _)),
    }) || memchr::memchr3_iter(0xee, 0xf3, 0xf4, b).any(|i| b[i] != 0xf3 || at(i + 1) >= 0xb0)
}

/// The chosen region's nodes: the best container, promoted and with its siblings, and every
/// visible article beside it.
fn choose(nodes: &[Node], strict: bool) -> Option<Vec<u32>> {
    let score = |i: usize| {
        if strict {
            nodes[i].score
        } else {
            nodes[i].score_all
        }
    };
    let scored = |i: usize| {
        if strict {
            nodes[i].scored
        } else {
            nodes[i].scored_all
        }
    };
    let visible = |n: &Node| if strict { n.visible } else { n.shown };
    let fin = |i: usize| score(i) * (1.0 - link_density(&nodes[i]));
    let candidates: Vec<usize> = (1..nodes.len())
        .filter(|&i| scored(i) && visible(&nodes[i]))
        .collect();
    // The five best by final score, earlier nodes first among equals; each score is
    // computed once, and most candidates lose to the fifth at one compare.
    let mut best: Vec<(f32, usize)> = Vec::with_capacity(6);
    for &c in &candidates {
        let fc = fin(c);
        if best.len() == 5 && best[4].0 >= fc {
            continue;
        }
        let at = best.partition_point(|&(ft, _)| ft >= fc);
        best.insert(at, (fc, c));
        best.truncate(5);
    }
    let top5: Vec<usize> = best.iter().map(|&(_, c)| c).collect();
    let mut top = *top5.first()?;
    let top_score = fin(top);
    if top_score <= 0.0 {
        return None;
    }
    let ancestors = |mut n: usize| {
        let mut v = Vec::new();
        for _ in 0..64 {
            n = nodes[n].parent as usize;
            if n == 0 {
                break;
            }
            v.push(n);
        }
        v
    };
    // Where three good alternatives meet above the best, that ancestor holds the content.
    let alternatives: Vec<Vec<usize>> = top5[1..]
        .iter()
        .filter(|&&c| fin(c) / top_score >= 0.75)
        .map(|&c| ancestors(c))
        .collect();
    let best = top;
    if alternatives.len() >= 3 {
        for a in ancestors(top) {
            if nodes[a].tag == Tag::Body {
                break;
            }
            if alternatives.iter().filter(|l| l.contains(&a)).count() >= 3 {
                top = a;
                break;
            }
        }
    }
    // Where no three alternatives meet, a good alternative that holds the best and three
    // more parts scoring two fifths of it (an article whose sections are each a wrapper of
    // their own, the best one section) is the whole of which the best is one part.
    if top == best {
        let up = ancestors(best);
        let good = |h: usize| fin(h) / top_score >= 0.75 && up.contains(&h);
        if top5[1..].iter().any(|&h| good(h)) {
            // The parts beside the best, found once for every alternative asked: a part sits
            // inside an alternative (one of the best's ancestors) where it meets the best's
            // ancestors at or below it.
            let (_, parts) = parts_beside(nodes, &candidates, best, top_score, fin);
            let holder = top5[1..].iter().copied().filter(|&h| good(h)).find(|&h| {
                up.iter()
                    .position(|&a| a == h)
                    .is_some_and(|at| parts.iter().filter(|&&(_, meet)| meet <= at).count() >= 3)
            });
            if let Some(h) = holder {
                top = h;
            }
        }
    }
    // A page of many equal parts: the element that holds them all.
    if strict {
        if let Some(whole) = many_equal_parts(nodes, &candidates, top, top_score, fin) {
            top = whole;
        }
    }
    // A parent scoring higher than the best on the way up takes its place.
    let mut last = fin(top);
    let threshold = last / 3.0;
    for a in ancestors(top).into_iter().take(8) {
        if nodes[a].tag == Tag::Body {
            break;
        }
        if !scored(a) {
            continue;
        }
        let s = fin(a);
        if s < threshold {
            break;
        }
        if s > last {
            top = a;
            break;
        }
        last = s;
    }
    // A cell or row of a table of data (holding under three quarters of its table's text) is
    // one of many: the table is the content, with what stands beside it (its caption, the
    // text that introduces it). A layout table's content cell holds most of its table's text
    // and stays.
    if matches!(nodes[top].tag, Tag::Cell | Tag::Other) {
        let table = ancestors(top)
            .into_iter()
            .take(4)
            .take_while(|&a| matches!(nodes[a].tag, Tag::Other | Tag::Cell | Tag::Table))
            .find(|&a| nodes[a].tag == Tag::Table);
        if let Some(t) = table {
            if nodes[top].text * 4 < nodes[t].text * 3 && visible(&nodes[t]) {
                top = t;
            }
        }
    }
    // A table of data chosen, or a wrapper holding little but one: the wrappers around it
    // that hold little but the table (a `div class="table"` with its title, a
    // `div class="table-contents"`) stand for it, so that the text that introduces the
    // table, beside its wrapper, comes with it.
    // Nodes are in document order, so `top`'s descendants are the nodes after it up to the
    // first whose parent comes before it.
    let holds_table = nodes[top].tag == Tag::Table
        || (top + 1..nodes.len())
            .take_while(|&i| nodes[i].parent as usize >= top)
            .any(|i| nodes[i].tag == Tag::Table && nodes[i].text * 10 >= nodes[top].text * 9);
    if holds_table {
        for _ in 0..4 {
            let p = nodes[top].parent as usize;
            if p == 0
                || nodes[p].tag == Tag::Body
                || !visible(&nodes[p])
                || nodes[top].text * 10 < nodes[p].text * 9
            {
                break;
            }
            top = p;
        }
    }
    // Inside a `main` the author declared, a choice holding under three quarters of its text
    // is one section of many (an API page's constructor or method summary, of its
    // description, summaries and details; a class-use page's table beside its captions; a
    // package page's table of classes, two thirds of its `main`, beside the package's
    // description): the declared `main` is the content. A choice that is or sits in an
    // article gives way only under a quarter (an article holding a third of a `main` of
    // sidebars and related stories stays the content): an `article` element, or an element
    // whose class or id names one (`yom-article`, `story-body`: [`is_story_word`]).
    if let Some(m) = ancestors(top)
        .into_iter()
        .find(|&a| nodes[a].tag == Tag::Main && visible(&nodes[a]))
    {
        let article = |a: usize| nodes[a].tag == Tag::Article || nodes[a].story;
        let in_article = article(top)
            || ancestors(top)
                .iter()
                .take_while(|&&a| a != m)
                .any(|&a| article(a));
        let (part, whole) = if in_article { (1, 4) } else { (3, 4) };
        // A larger choice gives way too where what the `main` holds beside it reads as text,
        // not as lists of links (an API page whose trait implementations outweigh the type's
        // description and methods, above them in the same `main`; a story's teasers beside
        // it are links).
        let rest = nodes[m].text.saturating_sub(nodes[top].text);
        let rest_links = nodes[m].links.saturating_sub(nodes[top].links);
        let rest_is_text =
            !in_article && rest >= MIN_REST && (rest_links as f32) < REST_LINKS * rest as f32;
        if (nodes[top].text * whole < nodes[m].text * part || rest_is_text)
            && link_density(&nodes[m]) < 0.5
        {
            top = m;
        }
    }
    // An only child stands for its parent.
    for _ in 0..64 {
        let p = nodes[top].parent as usize;
        if p == 0 || nodes[p].tag == Tag::Body || nodes[p].children != 1 || !visible(&nodes[p]) {
            break;
        }
        top = p;
    }
    let mut chosen = vec![top as u32];
    // Siblings that score nearly as well, or read as paragraphs of the same text.
    let parent = nodes[top].parent;
    let best = fin(top);
    let threshold = (best * 0.2).max(10.0);
    for (i, n) in nodes.iter().enumerate().skip(1) {
        if i == top || n.parent != parent || !visible(n) || parent == 0 {
            continue;
        }
        let ld = link_density(n);
        let long_prose = n.text > 80 && ld < 0.25;
        // A `div` of phrasing content only (an article's lead written straight into
        // `div class="summary"` beside the story) is a paragraph, as Readability reads it;
        // only a long one with few links, since the short rule has no sentence to look for.
        let own_div = n.tag == Tag::Div && n.own == n.text;
        // A sibling of the choice's own class is a part of the same kind (a story written in
        // two `div class="rich-text"` around a call to action): Readability adds a fifth of
        // the best's score to it.
        let kin = nodes[top].class != 0 && n.class == nodes[top].class;
        let bonus = if kin { best * 0.2 } else { 0.0 };
        let keep = (scored(i) && fin(i) + bonus >= threshold)
            || (own_div && long_prose)
            || (n.tag == Tag::Para && (long_prose || (n.text > 0 && ld == 0.0)));
        if keep {
            chosen.push(i as u32);
        }
    }
    // What introduces each chosen container: its preceding siblings back to the nearest
    // heading, or back to the chosen sibling before it, when short (a section's heading and
    // the caption that names what its table lists; the caption between two tables of a
    // class-use page, naming what the second lists).
    if parent != 0 {
        let mut picked = chosen.clone();
        picked.sort_unstable();
        let mut intros = Vec::new();
        for (k, &c) in picked.iter().enumerate() {
            let stop = if k == 0 { parent } else { picked[k - 1] } as usize;
            let mut intro = Vec::new();
            let mut bytes = 0;
            let mut bounded = k > 0;
            for i in (stop + 1..c as usize).rev() {
                let n = &nodes[i];
                if n.parent != parent || !visible(n) {
                    continue;
                }
                bytes += n.text;
                if bytes > MAX_INTRO {
                    bounded = false;
                    break;
                }
                intro.push(i as u32);
                if heads(nodes, i) {
                    bounded = true;
                    break;
                }
            }
            if bounded {
                intros.extend(intro);
            }
        }
        chosen.extend(intros);
    }
    // A visible `main` or `article` the author declared never loses to a sibling blurb (a
    // welcome text of short comma-heavy sentences outscores two short news articles): where
    // the choice is neither inside one nor holds one, the declared elements are the content,
    // beside the choice when they are short.
    let declared: Vec<usize> = (1..nodes.len())
        .filter(|&i| {
            let n = &nodes[i];
            matches!(n.tag, Tag::Main | Tag::Article)
                && visible(n)
                && n.text > 0
                && link_density(n) < 0.5
                && !ancestors(i).iter().any(|&a| {
                    matches!(nodes[a].tag, Tag::Main | Tag::Article) && visible(&nodes[a])
                })
        })
        .collect();
    let related = |d: usize| d == top || ancestors(d).contains(&top) || ancestors(top).contains(&d);
    if !declared.is_empty() && !declared.iter().any(|&d| related(d)) {
        let declared_text: u32 = declared.iter().map(|&d| nodes[d].text).sum();
        if declared_text >= 100 {
            chosen.clear();
        }
        chosen.extend(declared.iter().map(|&d| d as u32));
        return Some(chosen);
    }
    // Every visible article, when the content is one or sits in one.
    let in_article = nodes[top].tag == Tag::Article
        || ancestors(top).iter().any(|&a| nodes[a].tag == Tag::Article)
        || nodes
            .iter()
            .enumerate()
            .any(|(i, n)| n.tag == Tag::Article && visible(n) && ancestors(i).contains(&top));
    if in_article {
        // Beside a story, the short articles of a grid of other stories are its teasers:
        // an article is kept when it holds at least a fifth of the longest one's text.
        let longest = longest_article(nodes, strict);
        for (i, n) in nodes.iter().enumerate().skip(1) {
            if keepable_article(n, strict) && n.text.saturating_mul(TEASER) >= longest {
                chosen.push(i as u32);
            }
        }
    }
    Some(chosen)
}

#[cfg(test)]
mod tests {
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
        let automaton =
            InlineWords::Automaton(aho_corasick::AhoCorasick::new(INLINE_WORDS).unwrap());
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
            .map(|i| {
                format!("Welcome, friend, to our site, number {i}, read on, enjoy, share, smile.")
            })
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
            format!("<a href=\"../{to}.html\" title=\"interface in javax.management.openbean\">{to}</a>")
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
            text.contains(
                "Classes in javax.management.openbean that implement OpenBeanAttributeInfo"
            ),
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
            format!("<div class=\"orderedlist\"><ol class=\"orderedlist\" type=\"1\">{items}</ol></div>")
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
        let page =
            format!("<div><nav><a>Home</a> <a>About</a></div><div><p>{P1}</p><p>{P2}</p></div>");
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
}
