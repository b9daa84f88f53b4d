#!/usr/bin/env python3
"""Fingerprinting speed: neardup against the python pipeline Chuweb21D used, side by side.

The peer reads a WARC.gz shard with warcio, keeps HTTP 200 HTML responses, extracts text with
BeautifulSoup (script and style removed) and computes 64- and 128-bit SimHash with the
`simhash` package. neardup reads the same shard with one thread (`--threads 1`), in its
native mode and in its simhash-py compatibility mode. Throughput is MB of HTML payload per
second, so the ratio is per core.

Usage: scripts/peer_fingerprint.py [--neardup target/release/neardup] [--docs 2000]
Needs: pip install warcio beautifulsoup4 simhash numpy; a release build of neardup.
"""
import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

from bs4 import BeautifulSoup
from simhash import Simhash
from warcio.archiveiterator import ArchiveIterator

from main_content_eval import cpu_model


def python_pipeline(path):
    html_bytes = docs = 0
    start = time.perf_counter()
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type != "response" or record.http_headers is None:
                continue
            if record.http_headers.get_statuscode() != "200":
                continue
            if "html" not in (record.http_headers.get_header("Content-Type") or ""):
                continue
            html = record.content_stream().read()
            soup = BeautifulSoup(html, "html.parser")
            for tag in soup(["script", "style"]):
                tag.decompose()
            text = soup.get_text(" ")
            Simhash(text)
            Simhash(text, f=128)
            html_bytes += len(html)
            docs += 1
    return time.perf_counter() - start, html_bytes, docs


def neardup_run(exe, shard, store, extra):
    start = time.perf_counter()
    subprocess.run([exe, "--threads", "1", "fingerprint", "-q", "--force", shard, "-o", store] + extra,
                   check=True)
    secs = time.perf_counter() - start
    out = subprocess.run([exe, "info", "--json", store], check=True, capture_output=True, text=True)
    import json
    m = json.loads(out.stdout)[0]
    return secs, m["stats"]["payload_bytes"], m["docs"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--neardup", default="target/release/neardup")
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--shard", help="an existing WARC.gz shard to use instead of a synthetic one")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        shard = args.shard
        if shard is None:
            subprocess.run([args.neardup, "synth-crawl", "-q", "--docs", str(args.docs), "--shards", "1",
                            "-o", tmp], check=True)
            shard = os.path.join(tmp, "synth-00000.warc.gz")
        size = os.path.getsize(shard)
        rows = []
        secs, html, docs = neardup_run(args.neardup, shard, os.path.join(tmp, "a"), [])
        rows.append(("neardup native (3+5-grams, stemmed)", secs, html, docs))
        secs, html, docs = neardup_run(args.neardup, shard, os.path.join(tmp, "b"), ["--features", "simhash-py"])
        rows.append(("neardup --features simhash-py", secs, html, docs))
        secs, html, docs = python_pipeline(shard)
        rows.append(("python warcio + bs4 + simhash", secs, html, docs))
    peer = rows[-1][2] / rows[-1][1] / 1e6
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; python {platform.python_version()}")
    print(f"shard: {size / 1e6:.1f} MB WARC.gz, {rows[0][3]} documents, {rows[0][2] / 1e6:.1f} MB HTML")
    print(f"{'pipeline':<40} {'seconds':>8} {'docs':>7} {'MB/s HTML':>10} {'vs python':>10}")
    for name, secs, html, docs in rows:
        rate = html / secs / 1e6
        print(f"{name:<40} {secs:>8.2f} {docs:>7} {rate:>10.2f} {rate / peer:>9.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
