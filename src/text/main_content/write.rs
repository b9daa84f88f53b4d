//! The region written: an attempt at the chosen region, the frame inside it left out, teasers
//! and names beside it, and the text written.

use super::*;

pub(super) fn link_density(n: &Node) -> f32 {
    if n.text == 0 {
        0.0
    } else {
        n.links as f32 / n.text as f32
    }
}

/// Whether `n` is an article the content may keep whole: visible (in the strict reading, out
/// of the frame), of 100 bytes of text or more, and not mostly links.
pub(super) fn keepable_article(n: &Node, strict: bool) -> bool {
    let visible = if strict { n.visible } else { n.shown };
    n.tag == Tag::Article && visible && n.text >= 100 && link_density(n) < 0.5
}

/// The text of the longest article the content may keep ([`keepable_article`]), or 0: what
/// tells a teaser (under 1 / [`TEASER`] of it) from a story.
pub(super) fn longest_article(nodes: &[Node], strict: bool) -> u32 {
    nodes
        .iter()
        .skip(1)
        .filter(|n| keepable_article(n, strict))
        .map(|n| n.text)
        .max()
        .unwrap_or(0)
}

/// The most text (bytes) of the siblings that introduce the chosen container.
pub(super) const MAX_INTRO: u32 = 200;

/// Inside a declared `main`, the text (bytes) beside a choice, and its largest share of link
/// text, at which that text is read as content with the choice, whatever the choice's share.
pub(super) const MIN_REST: u32 = 200;
pub(super) const REST_LINKS: f32 = 0.5;

/// Main content shorter than this (bytes) is looked for again with the frame's marks
/// ignored, as Readability retries without its "unlikely candidates": a page's content
/// sometimes sits in an element marked `related` or `sidebar`.
pub(super) const MIN_MAIN_BYTES: usize = 500;

/// The letters and digits (bytes) a short reading with `noscript` as markup must find to be
/// taken: about twenty words, as a page's main content needs ([`crate::text::extract`]'s
/// `MIN_MAIN_WORDS`), where a notice asking for scripts mostly has under ten.
pub(super) const MIN_NOSCRIPT_WORD_BYTES: u32 = 100;

/// A page whose text outside `noscript` (title, frame and hidden parts included) is shorter
/// than this (bytes) is next to nothing without it: its script renders its content.
pub(super) const NEXT_TO_NOTHING: usize = 100;

/// A block that is mostly links is still text when this many bytes of words (letters and
/// digits: not the commas and bars between links) are not links: `Packages that use X`, not
/// `a, b, c` or `Home | About`.
pub(super) const PLAIN_IN_LINKED: u32 = 12;
/// The same for a heading, which is never a list: `Uses of <a>X</a> in <a>p</a>` names the
/// section's subject; a heading that is a link alone (`<h3><a>Related</a></h3>`) is not.
pub(super) const PLAIN_IN_HEADING: u32 = 4;

/// The commas in `s`, as Readability counts them: ASCII's and the other scripts' (Arabic,
/// the ideographic and full-width ones, ...).
pub(super) fn commas(s: &str) -> usize {
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
pub(super) fn other_commas(bytes: &[u8]) -> usize {
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
pub(super) fn word_bytes(s: &str) -> u32 {
    s.bytes()
        .filter(|c| c.is_ascii_alphanumeric() || *c >= 0x80)
        .count() as u32
}

/// The second pass: the chosen containers' blocks into `out`.
pub(super) fn write(s: &mut Scratch, out: &mut String) -> Found {
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
pub(super) fn framed_most(s: &Scratch, written: usize) -> bool {
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
pub(super) fn attempt(s: &mut Scratch, strict: bool, inner_out: bool, out: &mut String) -> usize {
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
    // The last block written, for a term's value ([`values_the_term`]).
    let mut written: Option<usize> = None;
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
        // A line of links is left out unless the region is an index, or it names the text
        // after it, or it is the value of the term written just before it.
        let value = || written == Some(i.wrapping_sub(1)) && values_the_term(nodes, blocks, i);
        if !keep_lists
            && link_list(b)
            && !names_the_next(nodes, blocks, i, &left_out, &link_list)
            && !value()
        {
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
        written = Some(i);
    }
    out.len() - from
}

/// The fewest lines of links that make a region whose text is mostly links an index, kept
/// whole ([`attempt`]): a story's list of other headlines is shorter.
pub(super) const MIN_INDEX_ENTRIES: usize = 20;

/// The most bytes of text, besides link text, of a block in a list of other stories after
/// its label: a teaser's headline and line of summary; a longer block is the story's again.
pub(super) const MAX_TEASER: u32 = 200;

/// Whether node `i` is `p` or lies inside it (looked for at most [`MAX_CLOSE`] levels up).
pub(super) fn descends(nodes: &[Node], mut i: u32, p: u32) -> bool {
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
pub(super) fn keep_inner_frame_out(nodes: &[Node], blocks: &[Block], region: &mut [bool]) {
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
pub(super) fn many_equal_parts(
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

/// A page of sections of one kind (a manual page's `div class="sect1"` for each of its NAME,
/// SYNOPSIS, DESCRIPTION, OPTIONS and EXAMPLES, each a heading and its body) has its longest
/// section's body as the choice, and drops the rest: the page's description, its examples.
/// Where the choice, or one of its wrappers up to [`SECTION_UP`] levels above it, has a class
/// that [`MIN_SECTIONS`] or more visible siblings share (itself counted), each of them headed
/// by a heading, and under 3 in 10 of their bytes are links (not a column of link boxes), the
/// content is the element that holds them; never the `body`, which holds the page's frame.
pub(super) fn sections_of_one_kind(
    nodes: &[Node],
    choice: usize,
    visible: impl Fn(&Node) -> bool,
) -> Option<usize> {
    let mut s = choice;
    for _ in 0..=SECTION_UP {
        let p = nodes[s].parent as usize;
        if p == 0 || nodes[p].tag == Tag::Body || !visible(&nodes[p]) {
            return None;
        }
        let class = nodes[s].class;
        if class != 0 {
            let (mut kin, mut headed, mut text, mut links) = (0, 0, 0u64, 0u64);
            // Nodes are in document order: `p`'s descendants are the nodes after it up to
            // the first whose parent comes before it.
            for i in (p + 1..nodes.len()).take_while(|&i| nodes[i].parent as usize >= p) {
                let n = &nodes[i];
                if n.parent as usize != p || n.class != class || !visible(n) || n.text == 0 {
                    continue;
                }
                kin += 1;
                text += u64::from(n.text);
                links += u64::from(n.links);
                let first = i + 1;
                if first < nodes.len()
                    && nodes[first].parent as usize == i
                    && nodes[first].text > 0
                    && heads(nodes, first)
                {
                    headed += 1;
                }
            }
            if kin >= MIN_SECTIONS && headed == kin && links * 10 < text * 3 {
                return Some(p);
            }
        }
        s = p;
    }
    None
}

/// How many levels above the choice a section of [`sections_of_one_kind`] is looked for: a
/// section's body, its list, an item of it.
const SECTION_UP: usize = 3;

/// The fewest sections of one kind ([`sections_of_one_kind`]) that make a page of them.
const MIN_SECTIONS: usize = 3;

/// The parts beside a choice: candidates scoring two fifths of the best or more that are not
/// the choice, not inside it and not above it, each counted once (the outermost of those that
/// score: a section's wrapper and the text inside it are one part). Returns the choice's
/// ancestors, its parent first, and each part with the place among them where it meets the
/// choice. Linear in the candidates and their depth (at most 64 levels up).
pub(super) fn parts_beside(
    nodes: &[Node],
    candidates: &[usize],
    choice: usize,
    top_score: f32,
    fin: impl Fn(usize) -> f32,
) -> (Vec<usize>, Vec<(usize, usize)>) {
    pub(super) const INSIDE: u32 = u32::MAX - 1;
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
pub(super) fn named_beside(nodes: &[Node], unframed: &mut Vec<u32>) {
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
pub(super) fn teaser(nodes: &[Node], i: usize, longest: u32) -> bool {
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
pub(super) const MAX_NAME: u32 = 120;
/// How many elements up from the next block's owner [`names_the_next`] looks for the name's.
pub(super) const NAME_REACH: usize = 3;

/// Whether the link-only block `blocks[i]` is the name of what the next block says: one
/// link of at most [`MAX_NAME`] bytes, followed by a block the content keeps (in the chosen
/// region and not left out as frame: `left_out`, the rule the writing loop applies), of text of
/// its own, not a heading, that sits in the element beside the name's (or inside it): a
/// summary table's row (`BeanProperty` and its description), a `dt` and its `dd`; not the
/// last name of a list of inherited methods before the next list's heading. Such a name is
/// what tells the rows of one page from another's (two class-use pages listing the same
/// descriptions name different classes); a run of links (a menu, a list of related posts) is
/// never one link followed by text beside it.
pub(super) fn names_the_next(
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

/// The most bytes of a line of links kept as a term's value ([`values_the_term`]).
pub(super) const MAX_VALUE: u32 = 400;

/// Whether the link-only block `blocks[i]` is the value of the term written just before it
/// (the caller checks that `blocks[i - 1]` was written): a definition list's description
/// (`dd`) of at most [`MAX_VALUE`] bytes after its term (`dt`) in the same list. An API
/// page's "All Implemented Interfaces:", "Specified by:" and "See Also:" are terms whose
/// values are links, and the values are what tell one generated page from another
/// (`trySplit in interface Spliterator<Double>` and `<Long>`); the term kept without its
/// value would be a label of nothing.
pub(super) fn values_the_term(nodes: &[Node], blocks: &[Block], i: usize) -> bool {
    let (Some(term), Some(b)) = (i.checked_sub(1).and_then(|t| blocks.get(t)), blocks.get(i))
    else {
        return false;
    };
    if b.end - b.start > MAX_VALUE {
        return false;
    }
    let (Some(dt), Some(dd)) = (
        def_up(nodes, term.owner, Def::Term),
        def_up(nodes, b.owner, Def::Value),
    ) else {
        return false;
    };
    nodes[dt as usize].parent == nodes[dd as usize].parent
}

/// The `dt` or `dd` (by `def`) at or above node `i`, looked for at most [`NAME_REACH`]
/// levels up (the block's owner is the element itself, or a `div` or `p` inside it).
fn def_up(nodes: &[Node], mut i: u32, def: Def) -> Option<u32> {
    for _ in 0..NAME_REACH {
        if nodes[i as usize].def == def {
            return Some(i);
        }
        if i == 0 {
            return None;
        }
        i = nodes[i as usize].parent;
    }
    None
}

/// Whether `c` is never seen in a page: a soft hyphen (shown only where a line breaks), a
/// zero-width space, joiner or word joiner, a byte-order mark, or a private-use character (an
/// icon font's glyph).
pub(super) fn invisible(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}'
        | '\u{e000}'..='\u{f8ff}' | '\u{f0000}'..='\u{10ffff}'
    )
}

/// `s` without the characters a reader never sees ([`invisible`]): `Donau\u{ad}dampf` is the
/// word `Donaudampf`.
pub(super) fn visible(s: &str) -> std::borrow::Cow<'_, str> {
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
pub(super) fn has_invisible(b: &[u8]) -> bool {
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    memchr::memchr3_iter(0xc2, 0xe2, 0xef, b).any(|i| match b[i] {
        0xc2 => at(i + 1) == 0xad,
        0xe2 => matches!((at(i + 1), at(i + 2)), (0x80, 0x8b..=0x8d) | (0x81, 0xa0)),
        _ => matches!((at(i + 1), at(i + 2)), (0xbb, 0xbf) | (0x80..=0xa3, _)),
    }) || memchr::memchr3_iter(0xee, 0xf3, 0xf4, b).any(|i| b[i] != 0xf3 || at(i + 1) >= 0xb0)
}
