//! The region chosen from the scored nodes.

use super::*;

/// The chosen region's nodes: the best container, promoted and with its siblings, and every
/// visible article beside it.
pub(super) fn choose(nodes: &[Node], strict: bool) -> Option<Vec<u32>> {
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
    // Whether node `i` is a visible element of one of `kinds` inside no visible other of them:
    // the outermost of what the author declared.
    let outermost = |i: usize, kinds: &[Tag]| {
        let is = |n: &Node| kinds.contains(&n.tag) && visible(n);
        is(&nodes[i]) && !ancestors(i).iter().any(|&a| is(&nodes[a]))
    };
    let mut top = match top5.first() {
        Some(&t) if fin(t) > 0.0 => t,
        // Nothing scores: a `main` the author declared that is mostly links is an index (a
        // module's list of items without descriptions), and the content; else there is
        // none to choose.
        _ => {
            let index: Vec<u32> = (1..nodes.len())
                .filter(|&i| {
                    outermost(i, &[Tag::Main])
                        && nodes[i].text > 0
                        && link_density(&nodes[i]) >= 0.5
                })
                .map(|i| i as u32)
                .collect();
            return (!index.is_empty()).then_some(index);
        }
    };
    let top_score = fin(top);
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
    // A page of sections of one kind: the choice, or one of its wrappers, is one of them.
    if let Some(whole) = sections_of_one_kind(nodes, top, visible) {
        top = whole;
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
            outermost(i, &[Tag::Main, Tag::Article])
                && nodes[i].text > 0
                && link_density(&nodes[i]) < 0.5
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
