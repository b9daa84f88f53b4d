#!/usr/bin/env python3
"""Removals on real web pages scored against a main-content truth that neardup did not make:
trafilatura's and readability-lxml's main texts, and resiliparse's full text of each page.

For every pair a `neardup dedup` run removed (remove.tsv: the removed page and the kept page
it names), with S3 = |A and B| / ((|A| + |B|) / 2) over word 8-grams (lowercase word tokens,
Chinese and Japanese characters one token each):

  main S3      the larger of the two extractors' S3 on their main texts (an extractor that
               found nothing on either page does not count)
  full S3      S3 on the whole pages' text
  right        main S3 >= 0.82, or whole pages near-identical (full S3 >= 0.95) without
               distinct main contents
  template     full S3 >= 0.82 but main S3 < 0.5: the pages share their site's template only

Precision = right / removals. Recall: the pairs of pages both extractors call near-duplicates
(S3 >= 0.82 on each one's main text) that the run put together (the same kept page).

Usage:
  scripts/pack_pages.py pages.warc.gz --formasaurus .../formasaurus/data
  scripts/content_dedup_eval.py pages.warc.gz --neardup target/release/neardup \
      [--cache texts.json] [--runs main,full] [--show 10]
"""
import argparse
import collections
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

WORD = re.compile(r"\w+", re.UNICODE)
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
META = re.compile(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_-]+)""", re.I)


def tokens(text):
    out = []
    for w in WORD.findall((text or "").lower()):
        if CJK.search(w):
            out.extend(w)
        else:
            out.append(w)
    return out


def shingles(text, k=8):
    t = tokens(text)
    return {hash(tuple(t[i : i + k])) for i in range(max(len(t) - k + 1, 0))}


def s3(a, b):
    if not a or not b:
        return 0.0
    return len(a & b) / ((len(a) + len(b)) / 2)


def read_warc(path):
    """(record id, url, payload bytes) of each response record."""
    data = gzip.open(path, "rb").read()
    f = io.BytesIO(data)
    out = []
    while True:
        line = f.readline()
        if not line:
            break
        if not line.startswith(b"WARC/"):
            continue
        headers = {}
        while True:
            h = f.readline()
            if h in (b"\r\n", b"\n", b""):
                break
            k, _, v = h.decode("utf-8", "replace").partition(":")
            headers[k.strip().lower()] = v.strip()
        block = f.read(int(headers.get("content-length", "0")))
        if headers.get("warc-type") != "response":
            continue
        _, _, body = block.partition(b"\r\n\r\n")
        rid = headers.get("warc-record-id", "").strip("<>")
        out.append((rid, headers.get("warc-target-uri", ""), body))
    return out


def decode(body):
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        m = META.search(body[:4096])
        try:
            return body.decode(m.group(1).decode() if m else "cp1252", "replace")
        except LookupError:
            return body.decode("cp1252", "replace")


def texts_of(pages):
    import trafilatura
    from readability import Document
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree
    import lxml.html

    out = {}
    for rid, url, body in pages:
        html = decode(body)
        try:
            traf = trafilatura.extract(html) or ""
        except Exception:
            traf = ""
        try:
            summary = Document(html).summary(html_partial=True)
            read = lxml.html.fromstring(summary).text_content() if summary.strip() else ""
        except Exception:
            read = ""
        try:
            full = extract_plain_text(HTMLTree.parse(html), main_content=False)
        except Exception:
            full = ""
        out[rid] = {"url": url, "traf": traf, "read": read, "full": full}
    return out


def run(exe, warc, mode, extra):
    out = Path(tempfile.mkdtemp(prefix="nd-eval-")) / "out"
    subprocess.run(
        [exe, "-q", "dedup", str(warc), "-o", str(out), "--text", mode, *extra],
        check=True,
    )
    removed = {}
    with open(out / "remove.tsv", encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            removed[row[header[0]]] = row
    summary = json.loads((out / "summary.json").read_text())
    sites = (out / "sites.tsv").read_text().splitlines()
    return removed, header, summary, sites


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("warc")
    ap.add_argument("--neardup", default="target/release/neardup")
    ap.add_argument("--cache", help="JSON file of the extractors' texts (made once, then read)")
    ap.add_argument("--runs", default="main,full")
    ap.add_argument("--show", type=int, default=0)
    a = ap.parse_args()
    pages = read_warc(a.warc)
    if a.cache and os.path.exists(a.cache):
        texts = {k.strip("<>"): v for k, v in json.load(open(a.cache, encoding="utf-8")).items()}
    else:
        texts = texts_of(pages)
        if a.cache:
            json.dump(texts, open(a.cache, "w", encoding="utf-8"))
    sh = {
        rid: {k: shingles(t[k]) for k in ("traf", "read", "full")} for rid, t in texts.items()
    }
    hosts = {re.sub(r"^https?://([^/]+).*", r"\1", t["url"]) for t in texts.values()}

    def main_s3(x, y):
        vals = [s3(sh[x][k], sh[y][k]) for k in ("traf", "read") if sh[x][k] or sh[y][k]]
        return max(vals) if vals else None

    # The truth both extractors agree on, over all pairs that share a shingle.
    index = collections.defaultdict(set)
    for rid, s in sh.items():
        for h in s["traf"]:
            index[h].add(rid)
    pairs = set()
    for ids in index.values():
        if len(ids) > 1 and len(ids) < 200:
            ids = sorted(ids)
            for i in range(len(ids)):
                for j in range(i + 1, len(ids)):
                    pairs.add((ids[i], ids[j]))
    agreed = [
        (x, y)
        for x, y in pairs
        if s3(sh[x]["traf"], sh[y]["traf"]) >= 0.82 and s3(sh[x]["read"], sh[y]["read"]) >= 0.82
    ]
    print(f"{len(pages)} pages from {len(hosts)} sites; "
          f"{len(agreed)} pairs both extractors call near-duplicates")
    print("| run | removed | right | precision | template only | recall (both extractors) | full text pages |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode in [m for m in a.runs.split(",") if m]:
        removed, header, summary, site_rows = run(a.neardup, a.warc, mode, [])
        kept_col = header[1]
        right = template = 0
        shown = []
        for rid, row in removed.items():
            k = row[kept_col]
            m = main_s3(rid, k)
            full = s3(sh[rid]["full"], sh[k]["full"])
            is_template = full >= 0.82 and m is not None and m < 0.5
            ok = (m is not None and m >= 0.82) or (full >= 0.95 and not is_template)
            right += ok
            template += is_template
            if not ok:
                shown.append((m, full, texts[rid]["url"], texts[k]["url"]))
        rep = {}
        for rid in texts:
            rep[rid] = removed[rid][kept_col] if rid in removed else rid
        found = sum(1 for x, y in agreed if rep[x] == rep[y])
        for x, y in agreed:
            if rep[x] != rep[y] and a.show:
                print(f"    missed: {texts[x]['url']}  and  {texts[y]['url']}", file=sys.stderr)
        n = len(removed)
        full_pages = summary.get("sites", {}).get("full_text", 0)
        print(
            f"| --text {mode} | {n} | {right} | {right / max(n, 1):.3f} | {template} | "
            f"{found}/{len(agreed)} = {found / max(len(agreed), 1):.3f} | {full_pages} |"
        )
        for m, full, u, v in shown[: a.show]:
            print(f"    wrong: main {m if m is None else round(m, 2)} full {full:.2f}  {u}  for  {v}", file=sys.stderr)


if __name__ == "__main__":
    main()
