#!/usr/bin/env python3
"""Two neardup builds side by side: the same join commands, run alternately, medians.

Each case is run `--repeat` times by build A and build B in turn (A, B, A, B, ...), so a slow
spell of this noisy machine falls on both; the median wall time of each is reported with the
ratio B / A, and both builds' outputs are checked to be byte for byte the same.

Usage: scripts/ab_join.py --a OLD_BINARY --b NEW_BINARY [--repeat 15] [--threads 2] [--gpu]
Stores are made with `neardup synth` (1 M and 200 k fingerprints) under a temporary directory.
--gpu adds the GPU backend (any adapter, software ones included) at tau 6 on 200 k.
"""
import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run(binary, args, out):
    start = time.perf_counter()
    subprocess.run([binary, *args, "-o", out], check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True, help="build A (the baseline)")
    ap.add_argument("--b", required=True, help="build B")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--gpu", action="store_true")
    o = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="neardup-ab-")
    stores = {}
    for n in (1_000_000, 200_000):
        stores[n] = os.path.join(tmp, f"s{n}")
        subprocess.run([o.a, "-q", "synth", "--docs", str(n), "-o", stores[n]], check=True)
    t = ["--threads", str(o.threads), "-q"]
    cases = [
        ("join tau 3, 1 M, cpu", t + ["join", stores[1_000_000], "--tau", "3", "--backend", "cpu"]),
        ("join tau 6, 200 k, cpu", t + ["join", stores[200_000], "--tau", "6", "--backend", "cpu"]),
        ("join tau 8, 200 k, cpu", t + ["join", stores[200_000], "--tau", "8", "--backend", "cpu"]),
        ("join random 16x20 tau 6, 1 M, cpu",
         t + ["join", stores[1_000_000], "--tau", "6", "--method", "random", "--backend", "cpu"]),
    ]
    if o.gpu:
        cases.append(("join tau 6, 200 k, gpu",
                      t + ["join", stores[200_000], "--tau", "6", "--backend", "gpu"]))
    print(f"A = {o.a}\nB = {o.b}\n{o.repeat} alternating runs each, medians of wall time\n")
    print("| case | A s | B s | B / A | same output |")
    print("|---|---:|---:|---:|---|")
    for name, args in cases:
        ta, tb = [], []
        outa, outb = os.path.join(tmp, "a.tsv"), os.path.join(tmp, "b.tsv")
        for _ in range(o.repeat):
            ta.append(run(o.a, args, outa))
            tb.append(run(o.b, args, outb))
        same = filecmp.cmp(outa, outb, shallow=False)
        ma, mb = statistics.median(ta), statistics.median(tb)
        print(f"| {name} | {ma:.4f} | {mb:.4f} | {mb / ma:.3f} | {'yes' if same else 'NO'} |")
        sys.stdout.flush()
        if not same:
            sys.exit(f"outputs differ: {name}")


if __name__ == "__main__":
    main()
