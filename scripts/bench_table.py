#!/usr/bin/env python3
"""dedup of a pyarrow.Table in memory against the CLI on the same documents as Parquet
(BENCHMARKS.md, "dedup of a table in memory").

Makes N documents (originals of 80-250 words from a 50 000-word vocabulary, exact copies and
copies with one to three words changed), writes them as Parquet, then alternately runs
`neardup dedup docs.parquet -o OUT` (wall time and peak RSS by /usr/bin/time), in a fresh
Python process `neardup.dedup(table)` on the same file read into a pyarrow.Table, and in
another `neardup.dedup(pyarrow.dataset.dataset(file))`, scanned a batch at a time (the call's
wall time; the process's RSS at the call, sampled every 10 ms during it for the peak, and the
table's own bytes). Checks
that both keep the same documents. Reports medians and the ratio.

Usage: python3 scripts/bench_table.py [--docs 1000000] [--runs 2] [--work DIR]
       [--neardup target/release/neardup]
Needs the package installed (pip install ./python).
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

MEM = r"""
import json, os, sys, threading, time
import pyarrow as pa
import pyarrow.parquet as pq
import neardup
scanned = sys.argv[3] == "dataset"
if scanned:
    import pyarrow.dataset as ds
    table = ds.dataset(sys.argv[1])
else:
    table = pq.read_table(sys.argv[1])
# What reading the file held on to is handed back, so that the RSS at the call is the table
# and the interpreter, not the reader's buffers.
pa.default_memory_pool().release_unused()
page = os.sysconf("SC_PAGE_SIZE")
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page
before = rss()
peak = [before]
done = threading.Event()
def watch():
    while not done.wait(0.01):
        peak[0] = max(peak[0], rss())
w = threading.Thread(target=watch)
w.start()
t = time.perf_counter()
r = neardup.dedup(table, text="text", id="id", quiet=True)
secs = time.perf_counter() - t
done.set()
w.join()
peak = max(peak[0], rss())
ids = table.to_table(columns=["id"]).column("id") if scanned else table.column("id")
kept = sorted(ids.filter(r.column("kept")).to_pylist())
with open(sys.argv[2], "w") as f:
    f.write("\n".join(kept) + "\n")
print(json.dumps({"seconds": secs, "peak": peak, "before": before, "table": 0 if scanned else table.nbytes}))
"""


def make(n: int, path: Path, seed: int = 1) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(50_000)], dtype=object)
    texts: list[str] = []
    originals: list[np.ndarray] = []
    kinds = rng.random(n)
    for i in range(n):
        k = kinds[i]
        if k < 0.5 or not originals:
            words = rng.integers(0, len(vocab), rng.integers(80, 251))
            originals.append(words)
            texts.append(" ".join(vocab[words]))
        elif k < 0.75:
            texts.append(" ".join(vocab[originals[rng.integers(len(originals))]]))
        else:
            words = originals[rng.integers(len(originals))].copy()
            for _ in range(rng.integers(1, 4)):
                words[rng.integers(len(words))] = rng.integers(len(vocab))
            texts.append(" ".join(vocab[words]))
    ids = [f"doc-{i:08d}" for i in range(n)]
    pq.write_table(pa.table({"id": ids, "text": texts}), path, row_group_size=65_536)


def cli(binary: str, parquet: Path, out: Path) -> dict:
    p = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", binary, "-q", "dedup", str(parquet), "-o", str(out), "--force"],
        check=True,
        capture_output=True,
        text=True,
    )
    wall, kb = p.stderr.strip().splitlines()[-1].split()
    return {"seconds": float(wall), "peak": int(kb) * 1024}


def mem(parquet: Path, kept: Path, mode: str = "table") -> dict:
    p = subprocess.run(
        [sys.executable, "-c", MEM, str(parquet), str(kept), mode], check=True, capture_output=True, text=True
    )
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--neardup", default="target/release/neardup")
    a = ap.parse_args()
    work = a.work or Path(tempfile.mkdtemp(prefix="neardup-bench-table-"))
    work.mkdir(parents=True, exist_ok=True)
    parquet = work / f"docs-{a.docs}.parquet"
    if not parquet.exists():
        make(a.docs, parquet)
    runs_cli, runs_mem, runs_ds = [], [], []
    for _ in range(a.runs):
        runs_cli.append(cli(a.neardup, parquet, work / "out"))
        runs_mem.append(mem(parquet, work / "kept-mem.txt"))
        runs_ds.append(mem(parquet, work / "kept-ds.txt", "dataset"))
    cli_kept = sorted((work / "out" / "keep.txt").read_text().split("\n")[:-1])
    mem_kept = (work / "kept-mem.txt").read_text().split("\n")[:-1]
    ds_kept = (work / "kept-ds.txt").read_text().split("\n")[:-1]
    med = lambda runs, k: statistics.median(r[k] for r in runs)
    c_s, m_s = med(runs_cli, "seconds"), med(runs_mem, "seconds")
    c_p, m_p = med(runs_cli, "peak"), med(runs_mem, "peak")
    before, table = med(runs_mem, "before"), med(runs_mem, "table")
    print(f"{a.docs} documents, {parquet.stat().st_size / 1e6:.0f} MB of Parquet, {a.runs} runs each, alternating")
    print(f"  same kept documents: {cli_kept == mem_kept == ds_kept} ({len(mem_kept)} kept)")
    print(f"  CLI on Parquet       {c_s:8.2f} s   peak {c_p / 1e9:.2f} GB")
    print(
        f"  in memory (Table)    {m_s:8.2f} s   peak {m_p / 1e9:.2f} GB "
        f"(RSS at the call {before / 1e9:.2f} GB, of which the table {table / 1e9:.2f} GB)"
    )
    d_s, d_p, d_b = med(runs_ds, "seconds"), med(runs_ds, "peak"), med(runs_ds, "before")
    print(
        f"  scanned (Dataset)    {d_s:8.2f} s   peak {d_p / 1e9:.2f} GB (RSS at the call {d_b / 1e9:.2f} GB: "
        "the table is read a batch at a time, twice)"
    )
    print(f"  time ratio in memory / CLI: {m_s / c_s:.3f} (target <= 1.1); scanned / CLI: {d_s / c_s:.3f}")
    print(
        f"  peak: in memory {m_p / 1e9:.2f} GB vs CLI + table {(c_p + table) / 1e9:.2f} GB "
        f"({'within' if m_p <= c_p + table else 'over'}; the interpreter and pyarrow counted)"
    )
    grow = m_p - before
    print(
        f"  the call's own memory (peak - RSS at the call): {grow / 1e9:.3f} GB vs the CLI's peak "
        f"{c_p / 1e9:.3f} GB: {grow / c_p:.3f}x ({'within' if grow <= c_p else 'over'})"
    )


if __name__ == "__main__":
    main()
