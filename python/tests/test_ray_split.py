"""The stages after fingerprinting split across a local Ray cluster of three nodes
(``neardup.ray.dedup(..., partitions=N)``): one machine's lists, byte for byte, on a web-shaped
crawl with a large group, a template site and canonical links; a worker killed mid-task is
replaced and changes nothing; every stage's tasks, their nodes and peak memory recorded."""

import json
import os

import pytest

import neardup

ray = pytest.importorskip("ray") if not os.environ.get("NEARDUP_REQUIRE_RAY") else __import__("ray")
import neardup.ray as ndray

LISTS = ["keep.txt", "remove.tsv", "clusters.tsv", "excluded.tsv"]


def lists(d):
    return {n: (d / n).read_bytes() for n in LISTS}


@pytest.fixture(scope="module")
def three_nodes():
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    c.add_node(num_cpus=1)
    c.add_node(num_cpus=1)
    ray.init(address=c.address, log_to_driver=False)
    yield c
    ray.shutdown()
    c.shutdown()


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    """A web-shaped crawl: groups naming their original as canonical link, a planted group of
    301 pages and a template site of 300 pages."""
    d = tmp_path_factory.mktemp("web") / "crawl"
    neardup.run(
        ["synth-crawl", "-q", "--docs", "2500", "--shards", "5", "--shape", "web",
         "--big-group", "150", "--big-site", "300", "-o", str(d)]
    )
    return d


def test_split_across_three_nodes_gives_one_machines_lists(three_nodes, web, tmp_path):
    assert len([n for n in ray.nodes() if n["Alive"]]) == 3
    one = neardup.dedup([web], tmp_path / "one", canonical=True, quiet=True)
    kill = tmp_path / "killed-once"
    r = ndray.dedup([web], tmp_path / "split", partitions=3, canonical=True, _kill_once=str(kill))
    assert kill.exists(), "the first attempt of a verify task was killed"
    assert lists(r.dir) == lists(one.dir)
    s = r.summary
    assert s["split"]["partitions"] == 3
    assert s["clusters"]["remove"] == one.summary["clusters"]["remove"] > 400
    stages = {st["name"]: st for st in s["split"]["stages"]}
    assert list(stages) == ["scatter", "groups", "components", "verify", "lists"]
    assert stages["scatter"]["tasks"] == 5 and stages["verify"]["tasks"] == 3
    nodes = {n["node"] for st in stages.values() for n in st["nodes"]}
    assert len(nodes) >= 2, nodes
    for st in stages.values():
        assert all(n["peak_rss"] > 0 and n["cpu_seconds"] >= 0 for n in st["nodes"]), st
    formula = {m["stage"]: m for m in s["split"]["memory_per_task"]}
    assert formula["verify"]["bytes"] > 0 and "verify-memory" in formula["verify"]["formula"]
    # Each task's memory over its worker's own stays under the stage's bound by formula.
    for name, st in stages.items():
        assert 0 < st["peak_growth_per_task"] <= formula[name]["bytes"], (name, st, formula[name])
    # The tasks' files are gone once the lists are gathered.
    assert not (r.dir / "split").exists()
    assert not list(r.dir.glob("split.tmp-*"))
    # Every dedup writes the page, split or not, and explain reads a split run's output.
    assert s["report"]["bytes"] == (r.dir / "report.html").stat().st_size > 0
    removed = (r.dir / "remove.tsv").read_text().splitlines()[1].split("\t")[0]
    assert r.explain(removed)["status"] == "removed"


def test_split_with_partitions_one_and_against(three_nodes, web, tmp_path):
    stores = ndray.fingerprint([web], tmp_path / "stores", minhash=True)
    new, old = stores[2:], stores[:2]
    one = neardup.dedup(new, tmp_path / "one", against=old, representative="lowest-id", quiet=True)
    for n in (1, 2):
        r = ndray.dedup_split(new, tmp_path / f"split{n}", n, against=old, representative="lowest-id")
        assert lists(r.dir) == lists(one.dir), n
    # The same split run in this process, one task after another.
    here = neardup.dedup(new, tmp_path / "here", partitions=2, against=old, representative="lowest-id", quiet=True)
    assert lists(here.dir) == lists(one.dir)


def test_split_refuses_what_it_cannot_do(three_nodes, web, tmp_path):
    with pytest.raises(ValueError, match="shared directory"):
        ndray.dedup([web], "s3://bucket/run", partitions=2)
    stores = ndray.fingerprint([web], tmp_path / "stores")
    with pytest.raises(neardup.NeardupError, match="no MinHash band keys"):
        ndray.dedup_split(stores, tmp_path / "out", 2)
