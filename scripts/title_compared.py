#!/usr/bin/env python3
"""What comparing a page's <title> would do to the default's removals, simulated on a crawl.

neardup compares a page's main content; the own-content truth (`own_content_truth.py`) counts
the page's <title> as a line of its own. This script measures, without a change to neardup,
what the title in the compared text would change: it writes a copy of the crawl in which each
page's <title> is a paragraph at the top of its main region, so neardup's main content holds
it, runs the default `dedup` on the crawl and on the copy, and scores both lists of removals
against the truth of the unchanged crawl (precision and recall as `own_content_truth.py`
scores them).

Where the title goes, the first that the page has:
  rustdoc    just inside <section id="main-content">
  <main>     just inside the first <main> element (javadoc, most sites that declare one)
  <h1>       just before the first <h1>
A page with none of them, or with no title, is copied as it is (the count is printed).

The copy keeps each record's id (`pack_docs.py` makes ids from the path), so the removals of
both runs are scored against one truth.

Usage:
  scripts/title_compared.py openjdk.warc.gz --neardup target/release/neardup
"""
import argparse
import gzip
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import own_content_truth as truth  # noqa: E402
import pack_docs  # noqa: E402
from content_dedup_eval import read_warc  # noqa: E402

TITLE = re.compile(rb"<title[^>]*>(.*?)</title>", re.S | re.I)
PLACES = [
    (re.compile(rb'(<section id="main-content"[^>]*>)', re.I), True),
    (re.compile(rb"(<main\b[^>]*>)", re.I), True),
    (re.compile(rb"(<h1\b)", re.I), False),
]


def with_title(body):
    """The page with its title as a paragraph at the top of its main region, or None."""
    m = TITLE.search(body)
    if not m or not m.group(1).strip():
        return None
    para = b"<p>" + m.group(1) + b"</p>"
    for place, after in PLACES:
        if place.search(body):
            put = (lambda s: s.group(1) + para) if after else (lambda s: para + s.group(1))
            return place.sub(put, body, count=1)
    return None


def write_copy(src, dst):
    """Writes the copy; returns (pages, pages given their title)."""
    n = given = 0
    with open(dst, "wb") as out:
        for _, url, body in read_warc(src):
            new = with_title(body)
            if new is not None:
                body, given = new, given + 1
            site, _, rest = url.split("://", 1)[1].partition("/")
            out.write(gzip.compress(pack_docs.record("/" + rest, body, site), compresslevel=1))
            n += 1
    return n, given


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("warc", nargs="+", help="crawls packed by pack_docs.py (record ids from paths)")
    ap.add_argument("--neardup", default="target/release/neardup")
    a = ap.parse_args()
    print("| crawl | pages | given their title | truth pairs | as it is: removed, precision, recall | title compared |")
    print("|---|---:|---:|---:|---|---|")
    for warc in a.warc:
        pages = truth.truth_pages(warc)
        at = {p["id"]: i for i, p in enumerate(pages)}
        pairs = truth.truth_pairs(pages)
        with tempfile.TemporaryDirectory() as d:
            copy = os.path.join(d, "titled.warc.gz")
            n, given = write_copy(warc, copy)
            cells = []
            for w in (warc, copy):
                rem = truth.run(a.neardup, w, "aside", os.path.join(d, "out"))
                precision, recall, _ = truth.scored(pages, at, pairs, rem)
                cells.append("%d, %.3f, %.3f" % (len(rem), precision, recall))
        print(f"| {os.path.basename(warc)} | {n} | {given} | {len(pairs)} | {cells[0]} | {cells[1]} |", flush=True)


if __name__ == "__main__":
    main()
