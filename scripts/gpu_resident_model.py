#!/usr/bin/env python3
"""A model of the GPU-resident join (`gpu::resident`) on an NVIDIA H100 or H200: the figures
of issue 55's target table where no such card was at hand. Every figure it prints is MODELLED,
not measured: it comes from the bytes and atomic operations each kernel moves per fingerprint
and table (counted from the WGSL below), the cards' published memory bandwidth, and the
comparison rate estimated from the H200 run of 2026-11-26 (BENCHMARKS.md "GPU join": about
8e11 compares/s, by difference). The 16-core CPU figures are the H200 box's measured join
(17.17 s at 82.5 M, tau 6; 3.38 s at 100 M, tau 3) scaled by the planner's cost formula.
"GPU s" is the whole join (the host's collapse to distinct values and its graph of pairs
included, as in the CPU's figure); "device s" is what `bench` prints as the resident join:
from creating the buffers and uploading to the pairs read back.

    python3 scripts/gpu_resident_model.py            # the target table, both cards
    python3 scripts/gpu_resident_model.py --detail   # each stage's modelled seconds

What each table moves on the device, per fingerprint (n of them), from the kernels:
  table_key      read vals (8 B) and write buckets (4 B) in order; one atomic add on the
                 bucket's count; the count array (4 B x 2^b) cleared and scanned (~16 B each).
  table_scatter  read buckets and vals in order (12 B); one atomic add on the bucket's next
                 place; order (4 B) and sorted (8 B) written at that place: two scattered
                 writes, a 32-byte sector each.
  table_runs     read order (4 B), write ends and items (8 B) in order; buckets[order[p]]
                 gathered (a sector) and the bucket's end read from the count array.
  scan of items  16 B a fingerprint (up and down sweeps).
  table_join     ends and the place's value (12 B) in order; the bucket's later values from
                 cache; a pair's slot by one atomic add (pairs are few).
The count array is 2^b entries with b = min(key bits, clamp(log2 n, 10, 26)) (kernels::table::
bucket_bits): in L2 when it fits, so its atomic adds cost L2 operations, else a sector
read-modify-write of DRAM each.

Assumptions (each a parameter below): sequential traffic at 80 % of peak bandwidth, scattered
32-byte sectors at 40 % of it, L2 atomics at 6e10 a second, the comparison stage at 8e11
compares a second (37 % of the 2.09e12 popcount bound; the one 32-bit popcount that rejects
most pairs first is not credited), 20 us a dispatch, the upload at 25 GB/s, the host's
distinct values and pair mapping at the rate measured on this 2-core machine, scaled by
3.86x for 16 cores (docs/SCALING.md's measured 2 -> 16 thread speed-up).
"""

import argparse
import math

CARDS = {
    # name: (DRAM bytes/s, L2 bytes, memory bytes)
    "H100 SXM": (3.35e12, 50 * 2**20, 80 * 2**30),
    "H200": (4.8e12, 50 * 2**20, 141 * 2**30),
}
SEQ_EFF, RAND_EFF = 0.8, 0.4
SECTOR = 32
L2_ATOMICS = 6e10
COMPARE_RATE = 8e11
BOUND = 132 * 1.98e9 * 16 / 2
DISPATCH_S = 20e-6
UPLOAD_BPS = 25e9
# Host work of a join per fingerprint on this 2-core machine, whichever backend: the
# documents collapsed to sorted distinct values, and the pairs mapped back to documents into
# the graph. `neardup bench --docs 10000000 --tau 0 --backend cpu` (one table, no
# comparisons): 0.545 s.
HOST_S_PER_FP_2CORES = 0.545 / 1e7
CORES_16_SPEEDUP = 3.86
# The H200 box's 16 cores, measured (BENCHMARKS.md "GPU join"): exact plans.
CPU16_MEASURED = {(82_500_000, 6): 17.17, (100_000_000, 3): 3.38}
CPU_WEIGHT = 32.0
GPU_RESIDENT_WEIGHT = 64.0
MAX_TABLES = 5000.0


def binomial(n, k):
    return math.comb(n, k) if 0 <= k <= n else 0


def pigeonhole_tables(m, tau):
    """Key bits of every table of the m-block plan at tau (as `plan::pigeonhole`)."""
    k, small, big = m - tau, 64 // m, 64 % m
    out = []
    for j in range(0, min(k, big) + 1):
        out += [k * small + j] * (binomial(big, j) * binomial(m - big, k - j))
    return out


def cost(bits_list, n, w):
    return sum(w * n + n * n / 2 ** (b + 1) for b in bits_list)


def cheapest(n, tau, w):
    best = None
    for m in range(tau + 1, 65):
        if binomial(m, tau) > MAX_TABLES:
            break
        c = cost(pigeonhole_tables(m, tau), n, w)
        if best is None or c < best[0]:
            best = (c, m)
    return best[1]


def comparisons(bits_list, n):
    return sum(n * n / 2 ** (b + 1) for b in bits_list)


def bucket_bits(n, key_bits):
    want = min(max(n.bit_length(), 10), 26)
    return key_bits if key_bits <= want else want


def stages(n, bits_list, card):
    """Modelled seconds of each stage of a resident join of n distinct values."""
    bw, l2, _ = card
    seq, rand = bw * SEQ_EFF, bw * RAND_EFF
    key = scatter = runs = 0.0
    for kb in bits_list:
        b = bucket_bits(n, kb)
        counts = 4 * 2**b
        in_l2 = counts <= l2 // 2
        atomic = n / L2_ATOMICS if in_l2 else n * 2 * SECTOR / rand
        count_pass = 20 * 2**b / (seq if not in_l2 else seq * 2)
        key += n * 12 / seq + atomic + count_pass
        scatter += n * 12 / seq + atomic + n * 2 * SECTOR / rand
        end_read = 0 if in_l2 else n * SECTOR / rand
        runs += n * (12 + 16) / seq + n * SECTOR / rand + end_read
    comp = comparisons(bits_list, n)
    join = len(bits_list) * n * 12 / seq + comp / COMPARE_RATE
    dispatches = len(bits_list) * 16 * DISPATCH_S
    return {
        "keys": key,
        "scatter": scatter,
        "runs": runs,
        "comparisons": join,
        "dispatch": dispatches,
    }, comp


def chunked(n, card_binding=2047 * 2**20):
    """Chunks of half a binding (8 bytes a value): the joins and the values each joins."""
    most = card_binding // 8
    if n <= most:
        return [(n, 1)]
    half = most // 2
    k = math.ceil(n / half)
    return [(half, k), (2 * half, k * (k - 1) // 2)]


def gpu_join(n, bits_list, card):
    """Modelled seconds of the resident join end to end (upload to pairs on the host)."""
    comp_all, parts = 0.0, {}
    for size, count in chunked(n):
        st, comp = stages(size, bits_list, card)
        for k, v in st.items():
            parts[k] = parts.get(k, 0.0) + v * count
        comp_all += comp * count
    upload = n * 8 / UPLOAD_BPS
    host = n * HOST_S_PER_FP_2CORES / CORES_16_SPEEDUP
    parts["upload"] = upload
    parts["host"] = host
    total = sum(parts.values())
    return total, parts, comp_all


def cpu16(n, tau, bits_list):
    """The 16 cores' join, scaled from the nearest measured plan by the CPU cost formula."""
    (mn, mt), secs = min(
        CPU16_MEASURED.items(), key=lambda kv: abs(kv[0][1] - tau) * 1e9 + abs(kv[0][0] - n)
    )
    ref_plan = pigeonhole_tables(cheapest(mn, mt, CPU_WEIGHT), mt)
    return secs * cost(bits_list, n, CPU_WEIGHT) / cost(ref_plan, mn, CPU_WEIGHT)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--detail", action="store_true", help="each stage's modelled seconds")
    a = ap.parse_args()
    rows = [
        (82_500_000, 6, "exact"),
        (82_500_000, 8, "exact"),
        (100_000_000, 3, "exact"),
        (100_000_000, 6, "random 20 x 16 bits"),
        (1_000_000_000, 6, "exact"),
    ]
    print("MODELLED, not measured (scripts/gpu_resident_model.py; assumptions in its header)")
    print("| fingerprints | tau | plan | card | GPU s | 16 cores s | speed-up | device s | comparisons | share of bound |")
    print("|---:|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for n, tau, kind in rows:
        if kind == "exact":
            mg = cheapest(n, tau, GPU_RESIDENT_WEIGHT)
            mc = cheapest(n, tau, CPU_WEIGHT)
            gbits, cbits = pigeonhole_tables(mg, tau), pigeonhole_tables(mc, tau)
            plan = f"{mg} blocks, {len(gbits)} tables"
            if mc != mg:
                plan += f" (CPU: {mc} blocks, {len(cbits)})"
        else:
            gbits = cbits = [16] * 20
            plan = kind
        cpu = cpu16(n, tau, cbits) if kind == "exact" else None
        if kind != "exact":
            # Measured on the H200 box's 16 cores (2026-11-26): not run; the CPU's rate on
            # long runs (2.6e9 compares/s on 2 cores with VPOPCNTQ, x 3.86 for 16 cores).
            cpu = comparisons(cbits, n) / (2.6e9 * CORES_16_SPEEDUP)
        for name, card in CARDS.items():
            g, parts, comp = gpu_join(n, gbits, card)
            share = comp / parts["comparisons"] / BOUND if parts["comparisons"] else 0
            print(
                f"| {n / 1e6:g} M | {tau} | {plan} | {name} | {g:.2f} | {cpu:.1f} | "
                f"{cpu / g:.1f}x | {g - parts['host']:.2f} | {comp:.2e} | {100 * share:.0f} % |"
            )
            if a.detail:
                print("|  |  | stages: " + ", ".join(f"{k} {v:.3f} s" for k, v in parts.items()) + " | | | | | | | |")
    # The sweep: one join at tau 8, then clusters at every tau on the host (measured here at
    # 10 M on 2 cores: 1.57 s beside a 13.85 s join; scaled to 82.5 M and 16 cores).
    n = 82_500_000
    host_sweep = 1.57 * n / 10_000_000 / CORES_16_SPEEDUP
    gbits = pigeonhole_tables(cheapest(n, 8, GPU_RESIDENT_WEIGHT), 8)
    cbits = pigeonhole_tables(cheapest(n, 8, CPU_WEIGHT), 8)
    for name, card in CARDS.items():
        g, _, _ = gpu_join(n, gbits, card)
        cpu = cpu16(n, 8, cbits) + host_sweep
        print(
            f"| 82.5 M | 0..8 (sweep, whole command) | {len(gbits)} tables | {name} | "
            f"{g + host_sweep:.1f} | {cpu:.1f} | {cpu / (g + host_sweep):.1f}x | | | |"
        )


if __name__ == "__main__":
    main()
