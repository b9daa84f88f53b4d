//! The first pass over a page: the stack of open elements, the nodes, the blocks and their
//! scores.

use super::*;

/// The first pass: the stack of open elements, the nodes, the blocks and their scores.
pub(super) fn scan(html_text: &str, s: &mut Scratch, noscript: bool) {
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
        hidden_by,
        revealed,
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
        def: Def::None,
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
        hidden_by,
        revealed: *revealed,
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
pub(super) struct Pass<'a, 'o> {
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
    /// [`Scratch::hidden_by`].
    hidden_by: &'a mut Vec<(u32, usize)>,
    /// [`Scratch::revealed`].
    revealed: u32,
    /// Links begun in the current block.
    block_anchors: u16,
}

impl Pass<'_, '_> {
    pub(super) fn state(&self) -> State {
        self.stack.last().map_or(State::default(), |o| o.state)
    }

    pub(super) fn owner(&self) -> u32 {
        self.stack.last().map_or(0, |o| o.owner)
    }

    /// Text between tags: `html_text[from..to]`, character references decoded. Hidden text
    /// is not written, only counted ([`Scratch::hidden_bytes`]).
    pub(super) fn text(&mut self, html_text: &str, from: usize, to: usize, index: &Index) {
        if from >= to {
            return;
        }
        let state = self.state();
        if state.hidden {
            let n = html_text.as_bytes()[from..to]
                .iter()
                .filter(|c| !c.is_ascii_whitespace())
                .count();
            *self.hidden_bytes += n;
            if state.hide_root != 0 {
                match self.hidden_by.last_mut() {
                    Some((root, bytes)) if *root == state.hide_root => *bytes += n,
                    _ => self.hidden_by.push((state.hide_root, n)),
                }
            }
            return;
        }
        self.append(|tb| html::append_text(html_text, from, to, tb, index));
    }

    /// Appends what `write` writes to the text, counted as link text inside a link, unless
    /// the element it is in is hidden.
    pub(super) fn append(&mut self, write: impl FnOnce(&mut TextBuilder<'_>)) {
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
    pub(super) fn boundary(&mut self) {
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
    pub(super) fn score_block(
        &mut self,
        owner: u32,
        end: usize,
        frame: bool,
        link_commas: Option<u32>,
    ) {
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
    pub(super) fn open(&mut self, name: Name, tag: Tag, marks: Marks, self_closed: bool) {
        let nb = name.as_bytes();
        let block_level = tag != Tag::Inline;
        // Implied end tags.
        if block_level {
            // An item closes its list's open item ([`Pass::close_item`]); any other block
            // closes an open paragraph, a cell the open cell.
            let item = matches!(nb, b"li" | b"dt" | b"dd") && self.close_item(nb);
            if let Some(top) = self.stack.last().filter(|_| !item) {
                let t = top.name.as_bytes();
                let implied = match nb {
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
        let this = self.nodes.len() as u32;
        if marks.hidden && this == self.revealed {
            marks.hidden = false;
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
            hide_root: if parent_state.hidden {
                parent_state.hide_root
            } else if marks.hidden {
                this
            } else {
                0
            },
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
            def: match nb {
                b"dt" => Def::Term,
                b"dd" => Def::Value,
                _ => Def::None,
            },
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

    /// Closes the open item that a start tag `nb` (`li`, `dt` or `dd`) ends, through the
    /// paragraphs, `div`s and inline elements still open inside it, as browsers do:
    /// `<li>text<p><b>Bug fixes:</b><li>` opens the second item beside the first, not inside
    /// it. Any other block stops the search (a nested list's item stays in it). Whether an
    /// item was closed.
    fn close_item(&mut self, nb: &[u8]) -> bool {
        let item = |t: &[u8]| {
            if nb == b"li" {
                t == b"li"
            } else {
                matches!(t, b"dt" | b"dd")
            }
        };
        let through =
            |o: &Open| o.owner != o.node || matches!(o.name.as_bytes(), b"p" | b"div" | b"address");
        let Some(k) = self
            .stack
            .iter()
            .rev()
            .take(MAX_CLOSE)
            .position(|o| item(o.name.as_bytes()) || !through(o))
            .filter(|&k| item(self.stack[self.stack.len() - 1 - k].name.as_bytes()))
        else {
            return false;
        };
        for _ in 0..=k {
            self.pop();
        }
        true
    }

    /// An end tag: closes its element if it is open near the top of the stack.
    pub(super) fn close(&mut self, name: &Name) {
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
    pub(super) fn pop(&mut self) {
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
