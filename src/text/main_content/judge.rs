//! What a start tag's attributes say ([`Marks`]): the attributes read, the tokens judged,
//! and the judgements remembered on a thread.

use super::*;

/// The fixed searches of [`judge`] and [`scan`], each built once: `memmem::find` builds its
/// searcher on every call, which cost more than the search on a short value.
pub(super) struct Finders {
    pub(super) comment_end: memchr::memmem::Finder<'static>,
    pub(super) so_panel: memchr::memmem::Finder<'static>,
    pub(super) none: memchr::memmem::Finder<'static>,
    pub(super) hidden: memchr::memmem::Finder<'static>,
    pub(super) display_none: memchr::memmem::Finder<'static>,
    pub(super) visibility_hidden: memchr::memmem::Finder<'static>,
}

pub(super) static FINDERS: std::sync::LazyLock<Finders> = std::sync::LazyLock::new(|| {
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
pub(super) fn tokens(value: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
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
pub(super) fn may_mark(token: &[u8], written: &[u8]) -> bool {
    token != written || is_hidden_class(token) || parts_of(token).any(in_vocabulary)
}

/// Whether a part of a token (its letters and digits) is a word of any list [`judge`] asks
/// about, begins `related` or ends `credit` or `caption` (plurals too). One letter is none.
pub(super) fn in_vocabulary(p: &[u8]) -> bool {
    p.len() > 1
        && (is_frame_word(p)
            || is_frame_modifier(p)
            || is_content_word(p)
            || is_negative_word(p)
            || is_plugin_word(p)
            || p.starts_with(b"related")
            // A forum's box of the poster (`message-user`, `user-info`; [`is_poster_box`]).
            || p == b"user"
            // A form a reader fills in (`post-form`; [`is_entry_form`]).
            || p == b"form"
            || p.ends_with(b"credit")
            || p.ends_with(b"credits")
            || p.ends_with(b"caption")
            || p.ends_with(b"captions"))
}

/// Judges the attribute bytes of a start tag. The first pass judges a tag's key instead
/// ([`read_attributes`], [`judge_read`]), remembered from tag to tag; this is the tests' way
/// in.
#[cfg_attr(not(test), allow(dead_code))]
pub(super) fn judge(attrs: &[u8]) -> Marks {
    judge_tokens(attrs, may_mark)
}

/// [`judge`], asking every class and id token that `ask` lets through ([`may_mark`]; the
/// tests let every token through, the reference the fast path is held to).
#[cfg_attr(not(test), allow(dead_code))]
pub(super) fn judge_tokens(attrs: &[u8], ask: impl FnMut(&[u8], &[u8]) -> bool) -> Marks {
    let mut key = Vec::new();
    read_attributes(attrs, &mut key);
    judge_read(&key, ask, &mut Vec::new())
}

/// The attributes [`judge`] reads, by their lowercase names: the index in this list is their
/// code in a key ([`read_attributes`]).
pub(super) const READ_ATTRIBUTES: [&[u8]; 7] = [
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
pub(super) fn read_attributes(attrs: &[u8], key: &mut Vec<u8>) {
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
pub(super) fn read_code(name: &[u8]) -> Option<u8> {
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
pub(super) fn read_back(key: &[u8]) -> impl Iterator<Item = (&'static [u8], &[u8])> {
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
pub(super) fn judge_read(
    key: &[u8],
    mut ask: impl FnMut(&[u8], &[u8]) -> bool,
    lower: &mut Vec<u8>,
) -> Marks {
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
                    // A count of columns (`two-column-summary`, javadoc's summary tables;
                    // `3-column`) names a layout, not the content.
                    content |= is_content_word(part) && !(part == b"column" && is_count(last));
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
pub(super) type Judged = HashMap<Box<[u8]>, Marks, foldhash::fast::RandomState>;

/// The most attribute sets a thread remembers (a class name or two each).
pub(super) const JUDGED_MAX: usize = 1 << 15;

/// The last attribute sets judged, by their bytes as written, one a slot chosen by their hash:
/// a site's template repeats the same bytes on every page, and such a set is found again by a
/// hash and one comparison, without reading its attributes. A set longer than a slot, or whose
/// slot another took since, is read ([`read_attributes`]) and found by its key.
pub(super) struct Recent {
    slots: Vec<RecentSlot>,
}

#[derive(Clone, Copy)]
pub(super) struct RecentSlot {
    /// The set's length (0: empty; sets under four bytes are never judged).
    len: u8,
    bytes: [u8; RECENT_BYTES],
    marks: Marks,
}

/// Bytes a slot holds.
pub(super) const RECENT_BYTES: usize = 62;
/// Slots (a power of two).
pub(super) const RECENT_SLOTS: usize = 1 << 10;

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
    pub(super) fn index(attrs: &[u8]) -> usize {
        use std::hash::BuildHasher;
        let h = foldhash::fast::FixedState::with_seed(0x6e64_7265_6365_6e74).hash_one(attrs);
        (h as usize) & (RECENT_SLOTS - 1)
    }

    /// The slot of `attrs` (hashed once, for the look and for keeping them after a miss), or
    /// none for a set longer than a slot, which is not kept.
    pub(super) fn slot(&mut self, attrs: &[u8]) -> Option<&mut RecentSlot> {
        (attrs.len() <= RECENT_BYTES).then(|| &mut self.slots[Self::index(attrs)])
    }
}

impl RecentSlot {
    /// The marks it holds if `attrs` (no longer than a slot) are its set.
    pub(super) fn marks_of(&self, attrs: &[u8]) -> Option<Marks> {
        (usize::from(self.len) == attrs.len() && self.bytes[..attrs.len()] == *attrs)
            .then_some(self.marks)
    }

    /// Holds `attrs` (no longer than a slot) and their marks.
    pub(super) fn hold(&mut self, attrs: &[u8], marks: Marks) {
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
pub(super) const INLINE_WORDS: [&str; 9] = [
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
pub(super) enum InlineWords {
    Packed(aho_corasick::packed::Searcher),
    Automaton(aho_corasick::AhoCorasick),
}

impl InlineWords {
    pub(super) fn get() -> &'static InlineWords {
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
    pub(super) fn any_in(&self, attrs: &[u8]) -> bool {
        match self {
            InlineWords::Packed(s) => s.find(attrs).is_some(),
            InlineWords::Automaton(a) => a.is_match(attrs),
        }
    }
}
