#!/usr/bin/env python3
"""Renders the installed manual pages of one language as plain text, one JSON line each.

Real text in scripts written without spaces (Chinese, Japanese) for quality work, without
network access:

    apt-get install manpages-zh manpages-ja groff-base
    python3 scripts/pack_man.py --root /usr/share/man/zh_CN -o crawls/man-zh_CN.jsonl
    python3 scripts/pack_man.py --root /usr/share/man/ja -o crawls/man-ja.jsonl

Every page under --root (gzip or plain roff) is rendered with groff (`preconv -e utf-8 |
groff -Tutf8 -man -P-cbou`: UTF-8, no overstriking or colour) into {"id": PATH, "url":
"file://PATH", "text": TEXT}. Pages that only include another (`.so`) and symbolic links are
left out: they are the package's aliases, not duplicates the crawl should invent. Pages are
visited in sorted order, so the output is reproducible.
"""

import argparse
import concurrent.futures
import gzip
import json
import os
import subprocess
import sys


def render(path):
    raw = open(path, "rb").read()
    if path.endswith(".gz"):
        raw = gzip.decompress(raw)
    if raw.lstrip().startswith(b".so "):
        return None
    out = subprocess.run(
        "preconv -e utf-8 | groff -Tutf8 -man -P-cbou",
        shell=True,
        input=raw,
        capture_output=True,
    )
    text = out.stdout.decode("utf-8", "replace").strip()
    return text or None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True, help="a manual directory, e.g. /usr/share/man/ja")
    ap.add_argument("-o", "--output", required=True, help="the JSON lines file to write")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    paths = []
    for d, _, files in os.walk(a.root):
        for f in files:
            p = os.path.join(d, f)
            if not os.path.islink(p):
                paths.append(p)
    paths.sort()
    written = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex, open(a.output, "w", encoding="utf-8") as out:
        for p, text in zip(paths, ex.map(render, paths)):
            if text is None:
                continue
            out.write(json.dumps({"id": p, "url": "file://" + p, "text": text}, ensure_ascii=False) + "\n")
            written += 1
    print(f"{written} pages of {len(paths)} files under {a.root} -> {a.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
