#!/usr/bin/env python3
"""Real web pages, saved as HTML files, into one WARC.gz of HTTP responses with their URLs, so
that `neardup dedup` reads them as a crawl (the site audit needs the URLs).

Sources it knows:
  --formasaurus DIR   formasaurus (PyPI sdist): formasaurus/data/index.json names each saved
                      page's URL (954 pages from 392 sites: shops, forums, login, search and
                      contact pages)
  --pages DIR         any directory of *.html files; the URL is read from the page's
                      canonical link or og:url, else made from the file name

Usage:
  scripts/pack_pages.py OUT.warc.gz --formasaurus formasaurus-0.10.0/formasaurus/data
The bytes are kept as saved: no re-encoding, so a page's charset declaration is what it was.
"""
import argparse
import gzip
import json
import re
import uuid
from pathlib import Path

CANONICAL = re.compile(
    rb"""<link[^>]+rel=["']?canonical["']?[^>]*href=["']([^"']+)|<meta[^>]+property=["']og:url["'][^>]*content=["']([^"']+)""",
    re.I,
)


def record(n, url, body, date="2026-11-26T00:00:00Z"):
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(body)
    block = http + body
    head = (
        "WARC/1.0\r\nWARC-Type: response\r\n"
        f"WARC-Record-ID: <urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, str(n) + ' ' + url)}>\r\n"
        f"WARC-Date: {date}\r\nWARC-Target-URI: {url}\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode()
    return gzip.compress(head + block + b"\r\n\r\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--formasaurus")
    ap.add_argument("--pages")
    a = ap.parse_args()
    pages = []
    if a.formasaurus:
        base = Path(a.formasaurus)
        index = json.loads((base / "index.json").read_text(encoding="utf-8"))
        for rel, meta in sorted(index.items(), key=lambda kv: int(Path(kv[0]).stem)):
            p = base / rel
            if p.exists():
                pages.append((meta["url"], p.read_bytes()))
    if a.pages:
        for p in sorted(Path(a.pages).glob("*.html")):
            body = p.read_bytes()
            m = CANONICAL.search(body[:200_000])
            url = (m.group(1) or m.group(2)).decode("utf-8", "replace") if m else f"http://pages.local/{p.name}"
            pages.append((url, body))
    with open(a.out, "wb") as f:
        for n, (url, body) in enumerate(pages):
            f.write(record(n, url, body))
    print(f"{len(pages)} pages into {a.out}")


if __name__ == "__main__":
    main()
