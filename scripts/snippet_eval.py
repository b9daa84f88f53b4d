#!/usr/bin/env python3
"""Main content scored as trafilatura's own evaluation scores it: text snippets per page that
the extracted text must hold ("with") and must not hold ("without"), on trafilatura's
multilingual corpus (990 pages of news outlets, magazines, blogs, government and company
pages in German, English, Polish, French, ...), neardup beside trafilatura, readability-lxml
and resiliparse in the same run, each peer run as trafilatura's `tests/evaluate.py` runs it.

The corpus is a copy of github.com/adbar/trafilatura's `tests/` folder: `evaldata.json`
(per page: its file and its snippets) with the pages under `eval/` and `cache/`. This set was
not tuned on: it is the issue's held-out set of real pages, measured only.

Scoring (trafilatura's `tests/eval_common.py`): whitespace runs become one space in the
snippet and in the output, and a snippet counts when it is a substring of the output. A
"with" snippet found is a true positive, one missed a false negative; a "without" snippet
found is a false positive, one absent a true negative. Precision, recall, accuracy and F1 are
taken over the counts pooled across all pages.

The modern-web benchmark (a copy of github.com/tiptopjaw/web-content-extraction-benchmark)
gives its pages snippets in the same form; `--modern modern-tune` scores its even pages (what
main content may be tuned on), `--modern modern-holdout` its odd ones.

Usage:
  git clone https://github.com/adbar/trafilatura; scripts/snippet_eval.py trafilatura/tests \\
      --neardup target/release/neardup [--peers trafilatura,readability,resiliparse] [--rounds 5]
      [--worst 10]

neardup runs as one process on one thread (`--threads 1`: start, reading the files, writing
JSON lines); each peer in this process, on bytes already read. The speed ratio is of CPU times.
"""
import argparse
import gzip
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def norm(text):
    return re.sub(r"\s+", " ", text).strip()


# The modern-web benchmark's snippets write straight quotes where its pages have typographic
# ones (`they're` for `they’re`): folded on both sides there, for every extractor alike.
FOLD = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def count(item, result, fold=False):
    """(tp, fp, fn, tn) of one page, as trafilatura's `count_item` (with `fold`, quotes
    folded first: [`FOLD`])."""
    f = (lambda t: norm(t).translate(FOLD)) if fold else norm
    if isinstance(result, str):
        res = f(result)
        tp = sum(1 for w in item["with"] if f(w) in res)
        fp = sum(1 for w in item["without"] if f(w) in res)
    else:
        tp = fp = 0
    return tp, fp, len(item["with"]) - tp, len(item["without"]) - fp


def scores(c):
    tp, fp, fn, tn = c
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    accuracy = (tp + tn) / max(tp + fp + fn + tn, 1)
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return precision, recall, accuracy, f1


def resolve(tests, name):
    for sub in ("cache", "eval"):
        p = Path(tests) / sub / name
        if p.is_file():
            return p
    return None


def read_page(p):
    """A page's bytes (a `.gz` file inflated)."""
    b = Path(p).read_bytes()
    return gzip.decompress(b) if str(p).endswith(".gz") else b


def modern_pages(root, split):
    """The modern-web benchmark's pages of `split` (`modern-tune`: even numbers,
    `modern-holdout`: odd, as `main_content_eval.py` splits them) that carry snippets:
    ({url: item}, {url: path})."""
    data, pages = {}, {}
    odd = split == "modern-holdout"
    for gt in sorted((Path(root) / "benchmark" / "ground-truth").glob("*.json")):
        if int(gt.stem) % 2 != odd:
            continue
        item = json.load(open(gt, encoding="utf-8"))
        truth = item.get("ground_truth", {})
        html = Path(root) / "release" / "html" / f"{gt.stem}.html.gz"
        if truth.get("with") and truth.get("without") and html.is_file():
            key = f"{gt.stem} {item.get('url', '')}"
            data[key] = {"file": html.name, "with": truth["with"], "without": truth["without"]}
            pages[key] = html
    return data, pages


def run_neardup(exe, paths, threads):
    """neardup's `text` of every page in one process: {path: text}, and its CPU time. The
    pages are written under plain names first (inflated where gzipped), so that no file name
    needs quoting."""
    with tempfile.TemporaryDirectory() as d:
        names = {}
        for i, p in enumerate(paths):
            link = Path(d) / f"{i:05}.html"
            if str(p).endswith(".gz"):
                link.write_bytes(read_page(p))
            else:
                os.symlink(p.resolve(), link)
            names[str(link)] = p
        t0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run(
            [exe, "--threads", str(threads), "-q", "text", "--text", "main", *sorted(names)],
            check=True,
            capture_output=True,
        ).stdout
        t1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    texts = {}
    for line in out.splitlines():
        r = json.loads(line)
        if r["id"] in names:
            texts[names[r["id"]]] = r["text"]
    cpu = (t1.ru_utime - t0.ru_utime) + (t1.ru_stime - t0.ru_stime)
    return texts, cpu


def peer(name):
    """Each peer as trafilatura's `tests/evaluate.py` runs it (bytes in)."""
    if name == "trafilatura":
        from trafilatura import extract

        opts = dict(include_comments=False, include_tables=True, include_formatting=False)
        return lambda b: extract(b, fast=False, **opts)
    if name == "readability":
        from readability import Document
        from trafilatura.utils import decode_file

        return lambda b: Document(decode_file(b)).summary()
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.encoding import bytes_to_str, detect_encoding
        from resiliparse.parse.html import HTMLTree

        return lambda b: extract_plain_text(
            HTMLTree.parse(bytes_to_str(b, detect_encoding(b))), main_content=True
        )
    raise SystemExit(f"unknown peer {name}")


def version(name):
    from importlib.metadata import version as v

    try:
        return v({"readability": "readability-lxml"}.get(name, name))
    except Exception:
        return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("tests", help="trafilatura's tests/ folder (evaldata.json, eval/, cache/), "
                    "or with --modern the modern-web benchmark's copy")
    ap.add_argument("--modern", choices=["modern-tune", "modern-holdout"],
                    help="score the modern-web benchmark's snippets of this split instead")
    ap.add_argument("--neardup", default="target/release/neardup")
    ap.add_argument("--peers", default="trafilatura,readability,resiliparse")
    ap.add_argument("--worst", type=int, default=0, help="print neardup's N worst pages")
    ap.add_argument("--dump", help="write neardup's texts here (JSON: url -> text)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run each extractor this many times, alternating; its CPU time is the median")
    a = ap.parse_args()
    if a.modern:
        data, pages = modern_pages(a.tests, a.modern)
    else:
        data = json.load(open(Path(a.tests) / "evaldata.json", encoding="utf-8"))
        pages = {}
        for url, item in data.items():
            p = resolve(a.tests, item["file"])
            if p is None:
                print(f"{url}: {item['file']} not found, left out", file=sys.stderr)
                continue
            pages[url] = p
    html = {u: read_page(p) for u, p in pages.items()}
    mb = sum(len(b) for b in html.values()) / 1e6
    names = [x for x in a.peers.split(",") if x]
    fns = {name: peer(name) for name in names}
    outs, times = {}, {}
    # Rounds alternate the extractors, so that a machine's slow spell falls on all of them.
    for _ in range(max(a.rounds, 1)):
        texts, cpu = run_neardup(a.neardup, list(pages.values()), 1)
        outs["neardup --text main"] = {u: texts.get(p, "") for u, p in pages.items()}
        times.setdefault("neardup --text main", []).append(cpu)
        for name in names:
            out = {}
            t0 = time.process_time()
            for u in pages:
                try:
                    out[u] = fns[name](html[u])
                except Exception:
                    out[u] = None
            label = f"{name} {version(name)}"
            outs[label] = out
            times.setdefault(label, []).append(time.process_time() - t0)
    rows = [(label, outs[label], sorted(t)[len(t) // 2]) for label, t in times.items()]
    by_url = rows[0][1]
    if a.dump:
        json.dump(by_url, open(a.dump, "w", encoding="utf-8"), ensure_ascii=False, indent=0)
    cpu_name = next(
        (l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?"
    )
    rounds = f", median CPU time of {a.rounds} rounds" if a.rounds > 1 else ""
    print(f"{len(pages)} pages, {mb:.1f} MB of HTML; one thread each{rounds}, on {cpu_name}")
    print("| extractor | precision | recall | accuracy | F1 | pages with a snippet wrong | CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, out, cpu in rows:
        tot = [0, 0, 0, 0]
        bad = 0
        for u in pages:
            c = count(data[u], out.get(u), fold=bool(a.modern))
            tot = [x + y for x, y in zip(tot, c)]
            bad += c[1] + c[2] > 0
        p, r, acc, f1 = scores(tot)
        print(f"| {label} | {p:.3f} | {r:.3f} | {acc:.3f} | {f1:.3f} | {bad} | {cpu:.2f} |")
    own = rows[0][2]
    if len(rows) > 1 and own > 0:
        print("neardup's speed against each peer's (CPU time): "
              + ", ".join(f"{l.split()[0]} {c / own:.1f}x" for l, _, c in rows[1:]))
    if a.worst:
        worst = []
        for u in pages:
            tp, fp, fn, tn = count(data[u], by_url[u], fold=bool(a.modern))
            if fp + fn:
                worst.append((fp + fn, u, fp, fn))
        for n, u, fp, fn in sorted(worst, reverse=True)[: a.worst]:
            print(f"    {fn} with missed, {fp} without kept: {u} ({data[u]['file']})", file=sys.stderr)


if __name__ == "__main__":
    main()
