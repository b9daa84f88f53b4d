#!/usr/bin/env python3
"""Which pages' main text changes between two neardup builds, and whether each change moves it
towards or away from the independent extractors' texts of the same page.

Real pages from many sites (home pages, shops, sign-in forms) have no reviewed reference text,
so a main-content rule tuned on reference pages is checked here against trafilatura's and
readability-lxml's texts (not a truth, an independent opinion): word-bag F1 of each build's
text against each, averaged over the pages whose text changed.

Usage:
  scripts/extraction_diff.py pages.warc.gz --old OLD_BIN --new NEW_BIN --cache texts.json [--show]

The cache is the one `scripts/content_dedup_eval.py --cache` writes (the extractors' texts of
every page, keyed by WARC record id).
"""
import argparse
import collections
import json
import re
import subprocess
import sys

WORD = re.compile(r"\w+", re.UNICODE)


def texts(binary, crawl):
    out = subprocess.run(
        [binary, "text", "-q", crawl], capture_output=True, text=True, check=True
    ).stdout
    return {j["id"].strip("<>"): j["text"] for j in map(json.loads, out.splitlines())}


def f1(a, b):
    ca = collections.Counter(WORD.findall(a.lower()))
    cb = collections.Counter(WORD.findall(b.lower()))
    if not ca or not cb:
        return 1.0 if not ca and not cb else 0.0
    inter = sum((ca & cb).values())
    if inter == 0:
        return 0.0
    p, r = inter / sum(ca.values()), inter / sum(cb.values())
    return 2 * p * r / (p + r)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("crawl")
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--show", action="store_true", help="one line per changed page")
    a = ap.parse_args()
    ref = {k.strip("<>"): v for k, v in json.load(open(a.cache, encoding="utf-8")).items()}
    old, new = texts(a.old, a.crawl), texts(a.new, a.crawl)
    changed = sorted(k for k in old if old[k] != new.get(k) and k in ref)
    print(f"{len(old)} pages, {len(changed)} with a changed main text")
    if not changed:
        return
    print("| against | mean F1 old | mean F1 new | closer | farther |")
    print("|---|---:|---:|---:|---:|")
    for name, key in (("trafilatura", "traf"), ("readability-lxml", "read")):
        fo = [f1(old[k], ref[k].get(key, "")) for k in changed]
        fn = [f1(new[k], ref[k].get(key, "")) for k in changed]
        closer = sum(n > o + 1e-9 for o, n in zip(fo, fn))
        farther = sum(n < o - 1e-9 for o, n in zip(fo, fn))
        print(f"| {name} | {sum(fo) / len(fo):.3f} | {sum(fn) / len(fn):.3f} | {closer} | {farther} |")
    if a.show:
        for k in changed:
            t = ref[k].get("traf", "")
            print(f"{f1(old[k], t):.2f} -> {f1(new[k], t):.2f}  words {len(old[k].split())} -> "
                  f"{len(new[k].split())}  {ref[k].get('url', '')}  {k}")


if __name__ == "__main__":
    sys.exit(main())
