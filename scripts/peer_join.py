#!/usr/bin/env python3
"""Join speed: neardup's CPU backend against faiss-cpu IndexBinaryMultiHash, side by side.

Both get the same 64-bit fingerprints (`neardup synth`, exported with `neardup export -o
fps.u64`), the same thread count, and must report the same number of pairs within distance tau.
FAISS range search returns distances strictly below its radius, so it is called with tau + 1.
Its MultiHash index is made exact by pigeonhole: tau + 1 hash tables of 64 // (tau + 1) bits,
no bit flips (every pair within tau agrees on one whole table key).

Usage: scripts/peer_join.py [--neardup target/release/neardup] [--threads 2]
Needs: pip install faiss-cpu numpy; a release build of neardup.
"""
import argparse
import os
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
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores; faiss {faiss.__version__}; threads {args.threads}")
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
            n_secs, n_pairs = neardup_pairs(args.neardup, store, tau, args.threads, os.path.join(tmp, "p.tsv"))
            f_secs, f_pairs = faiss_pairs(fps, tau, args.threads)
            same = "" if n_pairs == f_pairs else f"  MISMATCH: faiss {f_pairs}"
            ok &= n_pairs == f_pairs
            print(f"{tau:>3} {docs:>9} {n_pairs:>8} {n_secs:>10.3f} {f_secs:>9.3f} {f_secs / n_secs:>8.1f}x{same}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
