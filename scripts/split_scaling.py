#!/usr/bin/env python3
"""The verified default split across a local Ray cluster, measured at several partition counts
against one machine's run of the same stores: the lists must be byte-identical; per stage it
reports the critical path (the slowest task of each round), CPU seconds in all and per node,
each node's peak resident memory and each task's growth over its start, beside the bound the
formula gives. The nodes of a local cluster share this machine's cores, so CPU seconds, not
wall time, say what each node did.

    python3 scripts/split_scaling.py --crawl DIR --work DIR [--nodes 4] [--partitions 1,2,4]

Needs the neardup Python package (pip install ./python) and ray."""

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

LISTS = ["keep.txt", "remove.tsv", "clusters.tsv", "excluded.tsv"]


def lists(d: Path) -> dict:
    return {n: (d / n).read_bytes() for n in LISTS}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--crawl", required=True, type=Path)
    ap.add_argument("--work", required=True, type=Path)
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--partitions", default="1,2,4")
    ap.add_argument("--shards-per-task", type=int, default=1)
    ap.add_argument("--json", type=Path, help="write the measurements here too")
    a = ap.parse_args()

    import ray
    from ray.cluster_utils import Cluster

    import neardup
    import neardup.ray as ndray

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    for _ in range(a.nodes - 1):
        c.add_node(num_cpus=1)
    ray.init(address=c.address, log_to_driver=False)
    out = {"machine": f"{platform.node()}, {os.cpu_count()} cores", "nodes": a.nodes, "runs": []}
    try:
        stores_dir = a.work / "stores"
        t = time.time()
        if not (stores_dir / "done").exists():
            stores = ndray.fingerprint([a.crawl], stores_dir, minhash=True, shards_per_task=a.shards_per_task)
            (stores_dir / "done").write_text(json.dumps(stores))
        stores = json.loads((stores_dir / "done").read_text())
        out["fingerprint_seconds"] = time.time() - t
        docs = sum(len(neardup.Store(s)) for s in stores)
        out["documents"], out["stores"] = docs, len(stores)

        t = time.time()
        # The command line's dedup (no typed tables), on one thread.
        neardup.run(["--threads", "1", "-q", "dedup", *stores, "-o", str(a.work / "one"), "--force"])
        one_wall = time.time() - t
        one = neardup.DedupResult(a.work / "one")
        s1 = one.summary
        out["one_box"] = {
            "wall_seconds": one_wall,
            "threads": 1,
            "stages": s1.get("stages"),
            "memory_bound": s1.get("memory_bound"),
            "removed": s1["clusters"]["remove"],
        }
        print(f"{docs} documents in {len(stores)} stores; one box (1 thread): {one_wall:.1f} s, "
              f"{s1['clusters']['remove']} removed", flush=True)
        want = lists(one.dir)
        for p in [int(x) for x in a.partitions.split(",")]:
            d = a.work / f"split-{p}"
            t = time.time()
            r = ndray.dedup_split(stores, d, p)
            wall = time.time() - t
            same = lists(r.dir) == want
            s = r.summary["split"]
            run = {"partitions": p, "wall_seconds": wall, "identical_lists": same, "split": s}
            out["runs"].append(run)
            crit = sum(st["critical_path_seconds"] for st in s["stages"])
            cpu = sum(st["cpu_seconds"] for st in s["stages"])
            per_node: dict = {}
            for st in s["stages"]:
                for n in st["nodes"]:
                    e = per_node.setdefault(n["node"], [0.0, 0])
                    e[0] += n["cpu_seconds"]
                    e[1] = max(e[1], n["peak_rss"])
            print(f"\n## {p} partitions: wall {wall:.1f} s, critical path {crit:.1f} s, CPU {cpu:.1f} s, "
                  f"{s['components_steps']} component steps, lists identical: {same}")
            print("| stage | tasks | critical path s | critical path CPU s | CPU s | peak RSS a task MB | growth a task MB | bound MB |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|")
            bound = {m["stage"]: m["bytes"] for m in s["memory_per_task"]}
            for st in s["stages"]:
                print(f"| {st['name']} | {st['tasks']} | {st['critical_path_seconds']:.2f} | "
                      f"{st.get('critical_path_cpu_seconds', 0):.2f} | {st['cpu_seconds']:.2f} | "
                      f"{(st['peak_rss_per_task'] or 0) / 1e6:.0f} | {(st['peak_growth_per_task'] or 0) / 1e6:.0f} | "
                      f"{bound[st['name']] / 1e6:.0f} |")
            print("| node | CPU s | peak RSS MB |\n|---|---:|---:|")
            for node, (cs, peak) in sorted(per_node.items()):
                print(f"| {node} | {cs:.1f} | {peak / 1e6:.0f} |")
            if not same:
                print("LISTS DIFFER", file=sys.stderr)
                return 1
    finally:
        ray.shutdown()
        c.shutdown()
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
