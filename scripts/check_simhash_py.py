#!/usr/bin/env python3
"""Checks `neardup fingerprint --features simhash-py` against the python `simhash` package.

Writes a few hundred documents (ASCII, accented Latin, Greek with final sigma, CJK, digits and
underscores, very short and empty texts, long repetitive texts) as JSONL, fingerprints them
with neardup in simhash-py mode, and compares every 64- and 128-bit value with
`Simhash(text).value` and `Simhash(text, f=128).value` computed by the package itself.

Usage: scripts/check_simhash_py.py [--neardup target/release/neardup] [--docs 300]
Needs: pip install simhash numpy. Exit status 0 when every document matches.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

from simhash import Simhash

WORDS = [
    "rose", "garden", "Crawl", "near", "DUPLICATE", "café", "naïve", "Zürich", "straße",
    "ΣΊΣΥΦΟΣ", "λόγος", "東京", "日本語", "数据", "x_y", "3.14", "2026", "don't", "e.g.",
    "İstanbul", "ﬁne", "Ǆemal", "über", "½", "Ⅻ", "①", "_", "a", "is",
]


def make_docs(n, rng):
    docs = ["", " ", "ab", "abc", "abcd", "a rose is a rose is a rose", "!!! ,,, ...", "ΣΣ ς"]
    while len(docs) < n:
        k = rng.choice([1, 3, 10, 50, 200, 1000])
        sep = rng.choice([" ", "  ", "\n", ", ", "\t"])
        docs.append(sep.join(rng.choice(WORDS) for _ in range(k)))
    return docs[:n]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--neardup", default="target/release/neardup")
    ap.add_argument("--docs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    docs = make_docs(args.docs, rng)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "docs.jsonl")
        with open(src, "w", encoding="utf-8") as f:
            for i, t in enumerate(docs):
                f.write(json.dumps({"id": f"d{i}", "text": t}, ensure_ascii=False) + "\n")
        store = os.path.join(tmp, "store")
        tsv = os.path.join(tmp, "fps.tsv")
        subprocess.run([args.neardup, "fingerprint", "-q", src, "-o", store,
                        "--features", "simhash-py", "--text-format", "text"], check=True)
        subprocess.run([args.neardup, "export", store, "-o", tsv], check=True)
        with open(tsv, encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f][1:]
    got = {r[0]: (int(r[2], 16), int(r[3], 16)) for r in rows}
    checked = mismatched = package_errors = 0
    for i, t in enumerate(docs):
        try:
            want = (Simhash(t).value, Simhash(t, f=128).value)
        except (OverflowError, ValueError) as e:
            # numpy 2 refuses weights above 255 in the package's own arithmetic.
            package_errors += 1
            print(f"d{i}: the package itself fails ({e}); not compared", file=sys.stderr)
            continue
        checked += 1
        if got.get(f"d{i}") != want:
            mismatched += 1
            if mismatched <= 5:
                print(f"d{i}: neardup {got.get(f'd{i}')} != package {want} for {t[:60]!r}", file=sys.stderr)
    print(f"simhash-py: {checked - mismatched} passed, {mismatched} failed"
          + (f" ({package_errors} documents the package cannot hash)" if package_errors else ""))
    return 1 if mismatched or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
