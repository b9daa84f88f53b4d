#!/usr/bin/env python3
"""Join speed: neardup's CPU backend against faiss-cpu IndexBinaryMultiHash, side by side.

Both get the same 64-bit fingerprints (`neardup synth`, exported with `neardup export -o
fps.u64`), the same thread count, and must report the same number of pairs within distance tau.
FAISS range search returns distances strictly below its radius, so it is called with tau + 1.
Its MultiHash index is made exact by pigeonhole: tau + 1 hash tables of 64 // (tau + 1) bits,
no bit flips (every pair within tau agrees on one whole table key).

Both tools run `--repeat` times, alternating, and the median time of each is reported (these
machines are noisy; alternating spreads any slow spell over both).

Usage: scripts/peer_join.py [--neardup target/release/neardup] [--threads 2] [--repeat 5]
Needs: pip install faiss-cpu numpy; a release build of neardup.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import faiss
import numpy as np


def faiss_pairs(fps, tau, threads):
    faiss.omp_set_num_threads(threads)
    nhash = tau + 1
    bits = 64 // nhash
    data = fps.view(np.uint8).reshape(-1, 8)
    start = time.perf_counter()
    index = faiss.IndexBinaryMultiHash(64, nhash, bits)
    index.nflip = 0
    index.add(data)
    lims, dist, ids = index.range_search(data, tau + 1)
    secs = time.perf_counter() - start
    # Every pair appears twice (once from each side) and every document matches itself.
    query = np.repeat(np.arange(len(fps)), np.diff(lims).astype(np.int64))
    pairs = int(np.count_nonzero(query < ids))
    return secs, pairs


def neardup_pairs(exe, store, tau, threads, out):
    start = time.perf_counter()
    subprocess.run([exe, "--threads", str(threads), "join", "-q", store, "--tau", str(tau), "--backend", "cpu", "-o", out],
                   check=True)
    secs = time.perf_counter() - start
    with open(out) as f:
        pairs = sum(1 for _ in f) - 1
    return secs, pairs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--neardup", default="target/release/neardup")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cases", default="3:1000000,6:200000", help="tau:documents, comma separated")
    ap.add_argument("--repeat", type=int, default=5,
                    help="runs of each tool per case, alternating; medians are reported")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores; faiss {faiss.__version__}; threads {args.threads}; "
          f"median of {args.repeat} alternating runs each")
    print(f"{'tau':>3} {'docs':>9} {'pairs':>8} {'neardup s':>10} {'faiss s':>9} {'speed-up':>9}")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases.split(","):
            tau, docs = (int(x) for x in case.split(":"))
            store = os.path.join(tmp, f"s{docs}")
            raw = os.path.join(tmp, f"s{docs}.u64")
            subprocess.run([args.neardup, "synth", "-q", "--force", "--docs", str(docs), "-o", store], check=True)
            subprocess.run([args.neardup, "export", store, "-o", raw], check=True)
            fps = np.fromfile(raw, dtype="<u8")
            n_runs, f_runs = [], []
            for _ in range(args.repeat):
                # FAISS's OpenMP workers spin for a while after each search; let them sleep so
                # they do not take the cores from the next run.
                time.sleep(0.5)
                n_runs.append(neardup_pairs(args.neardup, store, tau, args.threads, os.path.join(tmp, "p.tsv")))
                time.sleep(0.5)
                f_runs.append(faiss_pairs(fps, tau, args.threads))
            n_secs, n_pairs = statistics.median(r[0] for r in n_runs), n_runs[0][1]
            f_secs, f_pairs = statistics.median(r[0] for r in f_runs), f_runs[0][1]
            same = "" if n_pairs == f_pairs else f"  MISMATCH: faiss {f_pairs}"
            ok &= n_pairs == f_pairs
            print(f"{tau:>3} {docs:>9} {n_pairs:>8} {n_secs:>10.3f} {f_secs:>9.3f} {f_secs / n_secs:>8.1f}x{same}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
