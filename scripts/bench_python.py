#!/usr/bin/env python3
"""The Python package against the CLI, and Ray fingerprinting against one process
(BENCHMARKS.md, "Python and Ray").

Usage: python3 scripts/bench_python.py [--work DIR] [--neardup target/release/neardup] [--runs 3]
Needs the package installed (pip install ./python) and, for the Ray part, `pip install ray`.
Each pair of timings runs alternately; the medians are compared.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import neardup


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def cli(binary, *args):
    subprocess.run([binary, "-q", *map(str, args)], check=True)


def pair(name_a, fa, name_b, fb, runs):
    a, b = [], []
    for _ in range(runs):
        a.append(timed(fa))
        b.append(timed(fb))
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{name_a}: {' '.join(f'{x:.2f}' for x in a)} s (median {ma:.2f})")
    print(f"{name_b}: {' '.join(f'{x:.2f}' for x in b)} s (median {mb:.2f})")
    print(f"ratio {name_b} / {name_a}: {mb / ma:.3f}")
    return ma, mb


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/bench-python")
    ap.add_argument("--neardup", default=str(Path(__file__).resolve().parents[1] / "target/release/neardup"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--ray-docs", type=int, default=200_000)
    a = ap.parse_args()
    w = Path(a.work)
    w.mkdir(parents=True, exist_ok=True)
    b = a.neardup
    print(f"machine: {os.cpu_count()} cores; neardup {neardup.__version__}")

    print("== fingerprint 20 000 pages: CLI against neardup.fingerprint")
    crawl = w / "crawl20k"
    if not crawl.exists():
        cli(b, "synth-crawl", "--docs", 20000, "--shards", 4, "-o", crawl)
    pair(
        "cli fingerprint", lambda: cli(b, "fingerprint", crawl, "-o", w / "s_cli", "--force"),
        "python fingerprint", lambda: neardup.fingerprint(crawl, w / "s_py", force=True),
        a.runs,
    )

    print("== join 1 M fingerprints at tau 3: CLI (pairs.tsv) against neardup.join (a pyarrow table)")
    fps = w / "fp1m"
    if not fps.exists():
        cli(b, "synth", "--docs", 1_000_000, "-o", fps)
    pair(
        "cli join", lambda: cli(b, "join", fps, "--tau", 3, "-o", w / "pairs.tsv"),
        "python join", lambda: neardup.join(fps, tau=3),
        a.runs,
    )

    try:
        import ray
    except ImportError:
        print("ray not installed: the Ray part is skipped")
        return
    import neardup.ray as ndray

    print(f"== fingerprint {a.ray_docs} pages: one process (2 threads) against Ray (2 CPUs, 8 tasks)")
    big = w / "crawl_ray"
    if not big.exists():
        cli(b, "synth-crawl", "--docs", a.ray_docs, "--shards", 8, "-o", big)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    ndray.fingerprint([big], w / "warm", force=True)  # workers started once, before timing
    one, dist = pair(
        "one process", lambda: neardup.fingerprint(big, w / "s_one", force=True, threads=2),
        "ray", lambda: ndray.fingerprint([big], w / "s_ray"),
        a.runs,
    )
    print(f"ray throughput / one process: {one / dist:.3f}")
    ray.shutdown()


if __name__ == "__main__":
    sys.exit(main())
