#!/usr/bin/env python3
"""Removals scored against an own-content truth that neardup did not make.

Each page's text is extracted by a plain block extractor of its own (Python's html.parser:
every block element a line, script/style/noscript/template dropped, nothing scored, no main
content chosen), and its host's repeated blocks are set aside by counting pages:

  site block   a line carried by at least max(5, ceil(sqrt(n) / 2)) pages of a host of n
               pages (pages, not titles: the truth does not know neardup's title rule)
  own text     the page's lines that are not site blocks
  truth pair   own S3 >= 0.82 (both with 20 words of their own or more), or whole texts
               S3 >= 0.95 with own words alike (S3 of their sets of words >= 0.8)

S3 = |A and B| / ((|A| + |B|) / 2) over word 8-grams. With `--analysis copycat` (the default)
the words are analysed as CopyCat's S3 analyses them (the paper's preprocessing: Lucene's default
English stop words removed, Porter stemming, lowercase), by implementations of this script's own
(the `snowballstemmer` package's Porter stemmer, Lucene's list written out here), so the plural
and the singular of a word are one term as they are in the definition; `--analysis raw` keeps
every lowercase word token as it is (the truth of the figures before 2026-11-29).

Precision: the removal pairs of `remove.tsv` (removed page, the kept page it names) that are
truth pairs. Recall: the truth pairs of which the run removed at least one page (either may
be the one kept). Template only: the removals that are no truth pair and whose pages share
only their site's template, their own texts (however short) at S3 under 0.5; the issue's
"template-only removals" (a sign-up page for a login page, two API stubs under one sidebar).
Truth pairs are found exactly: every pair sharing a shingle in its prefix (the rarest
shingles, prefix filtering for the S3 threshold) is compared.

Usage:
  scripts/pack_docs.py --root .../usr/share/doc --site boost.example -o boost.warc.gz
  scripts/own_content_truth.py boost.warc.gz --neardup target/release/neardup [--runs aside,keep,full]
"""
import argparse
import collections
import math
import os
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from content_dedup_eval import decode, read_warc, tokens  # noqa: E402

BLOCK = set(
    "p div li ul ol h1 h2 h3 h4 h5 h6 br tr td th table pre section article main header "
    "footer nav aside dt dd dl blockquote form title hr figure figcaption option body".split()
)
DROP = {"script", "style", "noscript", "template"}


class Blocks(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines, self.cur, self.skip = [], [], 0

    def brk(self):
        line = " ".join("".join(self.cur).split())
        if line:
            self.lines.append(line)
        self.cur = []

    def handle_starttag(self, tag, attrs):
        if tag in DROP:
            self.skip += 1
        elif tag in BLOCK:
            self.brk()

    def handle_endtag(self, tag):
        if tag in DROP:
            self.skip = max(0, self.skip - 1)
        elif tag in BLOCK:
            self.brk()

    def handle_data(self, data):
        if not self.skip:
            self.cur.append(data)


def lines_of(html):
    p = Blocks()
    try:
        p.feed(html)
        p.close()
    except Exception:
        pass
    p.brk()
    return p.lines


# Lucene's default English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET), as CopyCat's
# preprocessing removes them.
LUCENE_STOP = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then"
    " there these they this to was will with".split()
)
ANALYSIS = {"mode": "copycat"}


def analysed(text):
    words = tokens(text)
    if ANALYSIS["mode"] == "raw":
        return words
    import snowballstemmer

    stem = ANALYSIS.setdefault("stemmer", snowballstemmer.stemmer("porter"))
    memo = ANALYSIS.setdefault("memo", {})
    out = []
    for w in words:
        if w in LUCENE_STOP:
            continue
        t = memo.get(w)
        if t is None:
            t = memo[w] = stem.stemWord(w)
        out.append(t)
    return out


def host(url):
    rest = url.split("://", 1)[-1]
    return rest.split("/", 1)[0].split("@")[-1].split(":")[0].lower()


def sh(words, k=8):
    return {hash(tuple(words[i : i + k])) for i in range(max(len(words) - k + 1, 0))}


def s3(a, b):
    return len(a & b) / ((len(a) + len(b)) / 2) if a and b else 0.0


def truth_pages(warc):
    pages = read_warc(warc)
    lines = [lines_of(decode(body)) for _, _, body in pages]
    hosts = [host(u) for _, u, _ in pages]
    per = collections.Counter(hosts)
    count = collections.Counter()
    for h, ls in zip(hosts, lines):
        for l in set(ls):
            count[(h, l)] += 1
    out = []
    for (rid, _, _), h, ls in zip(pages, hosts, lines):
        t = max(5, math.ceil(math.sqrt(per[h]) / 2))
        own = [l for l in ls if count[(h, l)] < t or per[h] < 5]
        ow = analysed("\n".join(own))
        ww = analysed("\n".join(ls))
        own_all = sh(ow)
        out.append(
            {
                "id": rid,
                "own": own_all if len(ow) >= 20 else set(),
                "own_all": own_all,
                "whole": sh(ww),
                "words": set(ow),
            }
        )
    return out


def is_pair(a, b):
    if s3(a["own"], b["own"]) >= 0.82:
        return True
    ws = s3(a["words"], b["words"]) if (a["words"] or b["words"]) else 1.0
    return s3(a["whole"], b["whole"]) >= 0.95 and ws >= 0.8


def template_only(a, b):
    """A wrong removal whose pages share only their site's template: their own texts (however
    short; two pages with none share nothing of their own) at S3 under 0.5."""
    return not is_pair(a, b) and s3(a["own_all"], b["own_all"]) < 0.5


def joins(pages, key, t):
    """Pairs (i, j), i < j, with S3 >= t on `key`, by prefix filtering."""
    freq = collections.Counter(x for p in pages for x in p[key])
    jac = t / (2 - t)
    index = collections.defaultdict(list)
    found = set()
    for i, p in enumerate(pages):
        s = sorted(p[key], key=lambda x: (freq[x], x))
        if not s:
            continue
        prefix = len(s) - math.ceil(jac * len(s)) + 1
        cands = set()
        for x in s[:prefix]:
            cands.update(index[x])
            index[x].append(i)
        for j in cands:
            q = pages[j]
            n = min(len(s), len(q[key])) / max(len(s), len(q[key]))
            if n >= jac and s3(p[key], q[key]) >= t:
                found.add((j, i))
    return found


def truth_pairs(pages):
    """The truth's pairs (i, j), i < j, of `truth_pages`' pages: own S3 >= 0.82 or whole
    S3 >= 0.95, each checked by `is_pair`."""
    found = joins(pages, "own", 0.82) | joins(pages, "whole", 0.95)
    return {(i, j) for (i, j) in found if is_pair(pages[i], pages[j])}


def scored(pages, at, pairs, removals):
    """Precision and recall of `removals` (removed, kept ids) against the truth, the indexes
    of the pages removed, and how many removals are template only (`template_only`). `at`
    maps an id to its index in `pages`."""
    right = sum(1 for r, k in removals if r in at and k in at and is_pair(pages[at[r]], pages[at[k]]))
    template = sum(
        1 for r, k in removals if r in at and k in at and template_only(pages[at[r]], pages[at[k]])
    )
    removed = {at[r] for r, _ in removals if r in at}
    precision = right / len(removals) if removals else 1.0
    found = sum(1 for i, j in pairs if i in removed or j in removed)
    recall = found / len(pairs) if pairs else 1.0
    return precision, recall, removed, template


def run(exe, warc, mode, out):
    """`dedup`'s removals with `--site-blocks MODE`, or on the full text (`full`, CopyCat's
    definition)."""
    how = ["--text", "full"] if mode == "full" else ["--site-blocks", mode]
    subprocess.run([exe, "dedup", warc, "-o", out, "--quiet", "--force", *how], check=True)
    rows = open(os.path.join(out, "remove.tsv")).read().splitlines()[1:]
    return [tuple(r.split("\t")[:2]) for r in rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("warc", nargs="+")
    ap.add_argument("--neardup", default="target/release/neardup")
    ap.add_argument("--runs", default="aside,keep", help="comma-separated: aside, keep, full (--text full)")
    ap.add_argument(
        "--analysis",
        choices=["copycat", "raw"],
        default="copycat",
        help="the truth's terms: CopyCat's (stop words out, Porter stems; needs snowballstemmer) or raw lowercase tokens",
    )
    ap.add_argument("--missed", metavar="PREFIX", help="write the truth pairs no removal touched to PREFIX.CRAWL.RUN.tsv")
    ap.add_argument(
        "--wrong",
        metavar="PREFIX",
        help="write the removals that are not truth pairs to PREFIX.CRAWL.RUN.tsv, with the truth's"
        " own S3, whole S3, words S3 and own shingle counts of the pair",
    )
    a = ap.parse_args()
    ANALYSIS["mode"] = a.analysis
    print("| crawl | pages | truth pairs | run | removed | template only | precision | recall |")
    print("|---|---|---|---|---|---|---|---|")
    for warc in a.warc:
        pages = truth_pages(warc)
        at = {p["id"]: i for i, p in enumerate(pages)}
        pairs = truth_pairs(pages)
        for mode in a.runs.split(","):
            with tempfile.TemporaryDirectory() as d:
                removals = run(a.neardup, warc, mode, os.path.join(d, "out"))
            prec, rec, removed, template = scored(pages, at, pairs, removals)
            name = os.path.basename(warc)
            print(
                f"| {name} | {len(pages)} | {len(pairs)} | {mode} | {len(removals)} | {template}"
                f" | {prec:.3f} | {rec:.3f} |"
            )
            sys.stdout.flush()
            if a.wrong:
                with open(f"{a.wrong}.{name}.{mode}.tsv", "w") as f:
                    f.write("removed\tkept\town_s3\twhole_s3\twords_s3\town_removed\town_kept\n")
                    for r, k in removals:
                        if r in at and k in at and not is_pair(pages[at[r]], pages[at[k]]):
                            x, y = pages[at[r]], pages[at[k]]
                            f.write(
                                f"{r}\t{k}\t{s3(x['own'], y['own']):.3f}\t{s3(x['whole'], y['whole']):.3f}"
                                f"\t{s3(x['words'], y['words']):.3f}\t{len(x['own'])}\t{len(y['own'])}\n"
                            )
            if a.missed:
                with open(f"{a.missed}.{name}.{mode}.tsv", "w") as f:
                    for i, j in sorted(pairs):
                        if i not in removed and j not in removed:
                            f.write(f"{pages[i]['id']}\t{pages[j]['id']}\n")


if __name__ == "__main__":
    main()
