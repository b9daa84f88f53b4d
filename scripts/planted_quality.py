#!/usr/bin/env python3
"""Removal precision and recall of a `dedup` output against a synthetic crawl's planted truth.

A removal is right when the removed page and the kept page it names descend from one original
(`truth.tsv`: exact copies and one-paragraph variants, followed back to their original);
recall is over every planted member (all pages of a group but one). Variants of short pages
can fall below S3 0.82 and are then rightly kept, so recall against the planted truth is a
floor, not a target of 1.

Usage: scripts/planted_quality.py SYNTH_CRAWL_DIR DEDUP_OUT_DIR
"""
import sys
from collections import Counter


def main(crawl: str, out: str) -> None:
    rows = [line.rstrip("\n").split("\t") for line in open(f"{crawl}/truth.tsv", encoding="utf-8")][1:]
    root = {}
    for doc, origin, of in rows:
        root[doc] = root[of] if origin in ("exact", "near") else doc
    sizes = Counter(root.values())
    planted = sum(s - 1 for s in sizes.values() if s > 1)
    removed = [line.rstrip("\n").split("\t") for line in open(f"{out}/remove.tsv", encoding="utf-8")][1:]
    right = sum(1 for r in removed if root[r[0]] == root[r[1]])
    precision = right / len(removed) if removed else 1.0
    recall = right / planted if planted else 1.0
    print(
        f"pages {len(rows)}, groups {sum(1 for s in sizes.values() if s > 1)} (largest {max(sizes.values())}), "
        f"planted removals {planted}, removed {len(removed)}, right {right}: "
        f"precision {precision:.4f}, recall {recall:.4f}"
    )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
