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
//! containers start from their tag and from the words of their `class` and `id` (a count
//! of columns, javadoc's `two-column-summary`, names a layout, not the content, though a
//! `column` does), and a container's score shrinks with its share of link text. The best
//! container wins, with an ancestor where most good candidates meet (or, where they do not, a good
//! candidate that holds it and three more good parts: an article whose sections are each a
//! wrapper of their own; or, on a page of many equal parts, a service page's cards, steps and
//! questions in sections from the top of the page to its foot, the element that holds four or
//! more of them beside the choice), and with those of its siblings that score nearly as well
//! (a fifth of its score; a sibling of its own class, a part of the same kind, is given a fifth
//! more, as Readability gives it): so an index page of posts X, Y and Z keeps all three, and a
//! story written in two `div class="rich-text"` around a call to action keeps both. Siblings
//! that are paragraphs come too: a `p`, or a `div` of its own text only, over 80 bytes with
//! few links (Readability reads such a `div` as a `p`: an article's lead beside its story).
//!
//! What is never main content, decided on whole words of `class`, `id` and `role` values
//! (a value `site-header` names a header; `post-header-and-body` and `no-sidebars` do not; a
//! namespace of one or two letters before a name of several parts is passed over, so
//! `sf_comment_list` names comments, and an API's documentation comment, javadoc's
//! `deprecation-comment`, does not; a heading marked only as a header, rustdoc's
//! `h4 class="code-header"` over a method's signature, is a heading of the content):
//! `nav`, `header`, `footer` and `aside` elements and elements marked as navigation, menus,
//! sidebars, banners, sharing, comments, bylines (Drupal's `submitted` too), author boxes, a
//! forum's box of the poster beside each post (XenForo's `message-user`, phpBB's
//! `postprofile`, `user-info`: a title and counts of posts, not the post), a form a reader
//! fills in, named for what it is for (`post-form`, `answer-form`, `contact-form`; not
//! ASP.NET's one-word `aspnetForm` around a whole page), related links
//! (`related` and its compounds: `relatedlinks`) and the like. A mark that also
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
//! shows at once, nor one element hidden by its own mark that holds nine tenths of the page's
//! text, a page its script shows, `div class="root hide"` around it all: the page is read
//! again with it shown, and that reading taken where it finds much more), `template`,
//! `textarea`, `select`, `button` and `iframe` are not text, nor are ruby annotations
//! (`rt`, `rp`), figure captions (`figcaption`, or a class naming a photo's caption or
//! credit, `wp-caption`, `imageEmbedCredit`: what a photo shows and whose it is) or the
//! characters a reader never sees (soft hyphens, zero-width spaces and joiners, private-use
//! icon glyphs). A visible `main` or `article` the author declared (DocBook's `div
//! class="refentry"`, one reference page whole, counts as a declared `main`) is never passed
//! over for a sibling outside it, and a choice inside one that holds under three quarters
//! of its text is one section of many (an API page's method
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
//! two class-use pages listing the same descriptions apart), or are a definition list's value
//! right after its term (javadoc's `Specified by:` and `trySplit in interface
//! <a>Spliterator</a>&lt;Double&gt;`: the term kept without its value would name nothing, and
//! the value tells generated pages apart), or the region is an index: over
//! half its text such lines, 20 or more of them. A block inside a `pre` is code and never a
//! list of links: a declaration whose types are each a link (rustdoc's `pub type U5 =
//! UInt<UInt<...>>`) is the one text of a type alias's page. The first shown `h1` of a
//! declared `main` or `article` is the page's title, kept with whatever region is chosen
//! (even where its `div class="header"` reads as the frame): pages of sibling classes whose
//! descriptions are alike differ there. Where nothing scores, a declared `main` that is
//! mostly links is the content, an index (a module's page listing its items without a
//! description: the list is what the page is, not its sidebar). A page where nothing else
//! scores, or where nothing is left, gives its full text (hidden parts excepted): never
//! nothing.
//!
//! Time is linear in the page: end tags look at most 64 elements down the stack,
//! scores reach at most five ancestors, and attribute sets are judged once per distinct set
//! on a thread (a site's template repeats them on every page), by the attributes judged
//! alone (class, id, role, style and a few more; not links or data), and the last sets met are
//! found again by their bytes without being read; a class or id token holding no word of the
//! lists (a utility class, a generated name) is passed over unasked.

mod choose;
mod judge;
mod scan;
#[cfg(test)]
mod tests;
mod words;
mod write;

use choose::*;
use judge::*;
use scan::*;
use words::*;
use write::*;

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

/// The element to show in a second reading of a page whose script shows it
/// ([`extract_as`]): the element hidden by its own mark that holds the most hidden text,
/// where that is nine tenths of the page's text or more (a wrapper of the whole page, not a
/// hidden block beside what is shown) and at least [`MIN_REVEALED`] bytes.
fn revealing(s: &Scratch) -> Option<u32> {
    let &(root, bytes) = s.hidden_by.iter().max_by_key(|(_, b)| *b)?;
    if bytes < MIN_REVEALED {
        return None;
    }
    let shown = s.text.bytes().filter(|c| !c.is_ascii_whitespace()).count();
    (bytes * 10 >= 9 * (shown + s.hidden_bytes)).then_some(root)
}

/// The fewest bytes of hidden text (white space aside) one element must hold to be shown in
/// a second reading ([`revealing`]): a page's worth of text, not a dialog.
const MIN_REVEALED: usize = 2000;

fn extract_as(html: &str, out: &mut String, noscript: bool) -> Found {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        s.clear();
        s.unframed.clear();
        s.revealed = 0;
        let s = &mut *s;
        scan(html, s, noscript);
        let from = out.len();
        let mut found = write(s, out);
        named_beside(&s.nodes, &mut s.unframed);
        // A page a script shows: most of its text in one element hidden by its own mark
        // (`div class="root hide"` around the whole page until its script runs) is read
        // again with that element shown, and taken where that finds much more. The wrappers
        // the unframed reading below ignores are those of the reading taken.
        if let Some(root) = revealing(s) {
            let kept = out.split_off(from);
            let first = std::mem::take(&mut s.unframed);
            s.clear();
            s.revealed = root;
            scan(html, s, noscript);
            let again = write(s, out);
            if again.main && finds_much_more(out.len() - from, kept.len(), found.main) {
                found = again;
                named_beside(&s.nodes, &mut s.unframed);
            } else {
                out.truncate(from);
                out.push_str(&kept);
                s.unframed = first;
                s.revealed = 0;
            }
        }
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
    /// Per element whose own mark hides it (in document order): the bytes of hidden text it
    /// holds ([`State::hide_root`]).
    hidden_by: Vec<(u32, usize)>,
    /// The element whose hidden mark the page's second reading ignores ([`revealing`]).
    revealed: u32,
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
        self.hidden_by.clear();
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
    /// A definition list's term (`dt`) or its description (`dd`), or neither.
    def: Def,
}

/// What an element is in a definition list ([`Node::def`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Def {
    None,
    Term,
    Value,
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
    /// The element whose own mark hides this one (itself or its outermost hidden ancestor
    /// hidden by a mark; 0: none), whose hidden text is counted ([`Scratch::hidden_by`]).
    hide_root: u32,
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
