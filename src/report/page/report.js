// report.html: draws the audit table and the sample from the JSON block, with sorting,
// filtering and search. Text from the crawl is only ever set as text, never as markup.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('data').textContent);

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function pct(x) { return (100 * x).toFixed(1) + ' %'; }

  // ---- the sample: removed pages beside their kept page ----
  function link(url) {
    if (!url) return el('span', null, '(no URL)');
    var a = el('a', null, url);
    if (/^https?:\/\//i.test(url)) { a.href = url; a.rel = 'noreferrer noopener'; a.target = '_blank'; }
    return a;
  }
  function who(label, id, url) {
    var d = el('div', 'who');
    d.appendChild(el('span', 'label', label));
    d.appendChild(el('code', null, id));
    d.appendChild(el('br'));
    d.appendChild(link(url));
    return d;
  }
  function side(parts, mine, mark, label) {
    var d = el('div');
    d.appendChild(el('span', 'col', label));
    parts.forEach(function (p, i) {
      if (p.side !== 'both' && p.side !== mine) return;
      if (i > 0 && d.childNodes.length > 1) d.appendChild(document.createTextNode(' '));
      if (p.side === 'both') {
        if (p.elided) {
          d.appendChild(document.createTextNode(p.text + ' '));
          d.appendChild(el('span', 'elided', '\u2026 ' + p.elided + ' shared words \u2026'));
          d.appendChild(document.createTextNode(' ' + p.tail));
        } else {
          d.appendChild(document.createTextNode(p.text));
        }
      } else {
        d.appendChild(el(mark, null, p.text));
      }
    });
    return d;
  }
  function card(s) {
    var c = el('article', 'pair');
    c.dataset.key = [s.id, s.url, s.site, s.kept, s.kept_url].join('\n').toLowerCase();
    c.dataset.why = s.why.join(' ');
    var head = el('div', 'head');
    head.appendChild(who('removed', s.id, s.url));
    head.appendChild(who('kept', s.kept, s.kept_url));
    var m = el('div', 'meta');
    m.appendChild(document.createTextNode('score '));
    m.appendChild(el('b', null, s.score === null ? 'not verified' : s.score.toFixed(4)));
    if (s.hamming64 !== null) {
      m.appendChild(document.createTextNode(' \u00b7 SimHash distance '));
      m.appendChild(el('b', null, String(s.hamming64)));
    }
    m.appendChild(document.createTextNode(' \u00b7 group of '));
    m.appendChild(el('b', null, String(s.group)));
    m.appendChild(document.createTextNode(' \u00b7 site ' + (s.site || '-')));
    if (s.diff) {
      var d = s.diff;
      m.appendChild(document.createTextNode(' \u00b7 ' + d.shared_words + ' shared words of ' +
        d.old_words + ' removed / ' + d.new_words + ' kept'));
    }
    s.why.forEach(function (w) { m.appendChild(el('span', 'tag', w)); });
    head.appendChild(m);
    c.appendChild(head);
    if (s.diff) {
      var t = el('div', 'texts');
      t.appendChild(side(s.diff.parts, 'old', 'del', 'removed page'));
      t.appendChild(side(s.diff.parts, 'new', 'ins', 'kept page'));
      c.appendChild(t);
      if (s.diff.cut_words) c.appendChild(el('div', 'note', s.diff.cut_words + ' more words not shown'));
    }
    if (s.note) c.appendChild(el('div', 'note', s.note));
    return c;
  }
  var pairs = document.getElementById('pairs');
  var cards = data.samples.map(function (s) { var c = card(s); pairs.appendChild(c); return c; });
  var q = document.getElementById('q');
  var active = {};
  var whys = ['borderline', 'large group', 'site', 'spread'];
  var wbox = document.getElementById('whys');
  whys.forEach(function (w) {
    var n = data.samples.filter(function (s) { return s.why.indexOf(w) >= 0; }).length;
    if (!n) return;
    var b = el('button', 'chip', w + ' (' + n + ')');
    b.type = 'button';
    b.setAttribute('aria-pressed', 'false');
    b.addEventListener('click', function () {
      active[w] = !active[w];
      b.setAttribute('aria-pressed', String(!!active[w]));
      filterPairs();
    });
    wbox.appendChild(b);
  });
  function filterPairs() {
    var needle = q.value.trim().toLowerCase();
    var want = whys.filter(function (w) { return active[w]; });
    var shown = 0;
    cards.forEach(function (c) {
      var ok = (!needle || c.dataset.key.indexOf(needle) >= 0) &&
        (!want.length || want.some(function (w) { return c.dataset.why.indexOf(w) >= 0; }));
      c.hidden = !ok;
      if (ok) shown++;
    });
    document.getElementById('shown').textContent = shown + ' of ' + cards.length + ' shown';
  }
  q.addEventListener('input', filterPairs);
  filterPairs();

  // ---- the audit table ----
  var tbody = document.querySelector('#sitetable tbody');
  var rows = data.sites.map(function (r) {
    var tr = el('tr', r.flagged ? 'flag' : null);
    tr.appendChild(el('td', null, r.site + (r.flagged ? '  \u2691 flagged' : '')));
    tr.appendChild(el('td', 'n', String(r.documents)));
    tr.appendChild(el('td', 'n', String(r.removed)));
    tr.appendChild(el('td', 'n', pct(r.rate)));
    tr.appendChild(el('td', null, r.kept_on));
    tr.appendChild(el('td', 'n', String(r.full_text)));
    tr.appendChild(el('td', 'n', String(r.words_aside || 0)));
    return { r: r, tr: tr, key: (r.site + '\n' + r.kept_on).toLowerCase() };
  });
  var sq = document.getElementById('sq');
  var fo = document.getElementById('flaggedonly');
  var order = { k: null, dir: 1 };
  function drawSites() {
    var needle = sq.value.trim().toLowerCase();
    var list = rows.filter(function (x) {
      return (!needle || x.key.indexOf(needle) >= 0) && (!fo.checked || x.r.flagged);
    });
    if (order.k) {
      var k = order.k, dir = order.dir;
      list.sort(function (a, b) {
        var x = a.r[k], y = b.r[k];
        return (x < y ? -1 : x > y ? 1 : 0) * dir;
      });
    }
    tbody.textContent = '';
    list.forEach(function (x) { tbody.appendChild(x.tr); });
    document.getElementById('sshown').textContent = list.length + ' of ' + rows.length + ' sites shown';
  }
  document.querySelectorAll('#sitetable th').forEach(function (th) {
    th.addEventListener('click', function () {
      var k = th.dataset.k;
      order.dir = order.k === k ? -order.dir : (k === 'site' || k === 'kept_on' ? 1 : -1);
      order.k = k;
      document.querySelectorAll('#sitetable th').forEach(function (o) { o.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', order.dir > 0 ? 'ascending' : 'descending');
      drawSites();
    });
  });
  sq.addEventListener('input', drawSites);
  fo.addEventListener('change', drawSites);
  drawSites();
  document.body.dataset.ready = '1';
})();
