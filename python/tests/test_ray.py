"""Fingerprinting on a local Ray cluster: the same results as one process, byte for byte, and
a task killed mid-shard retried with nothing lost or duplicated."""

import os

import pytest

import neardup

ray = pytest.importorskip("ray") if not os.environ.get("NEARDUP_REQUIRE_RAY") else __import__("ray")
import neardup.ray as ndray


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    yield
    ray.shutdown()


def lists(d):
    return {n: (d / n).read_bytes() for n in ["keep.txt", "remove.tsv", "clusters.tsv", "excluded.tsv"]}


def test_ray_dedup_equals_one_process(cluster, crawl, tmp_path):
    one = neardup.dedup([crawl], tmp_path / "one")
    kill = tmp_path / "killed-once"
    stores = ndray.fingerprint([crawl], tmp_path / "dist" / "stores", minhash=True, _kill_once=str(kill))
    assert kill.exists(), "the first attempt of a task was killed"
    assert len(stores) == 6 and all(neardup.Store(s) for s in stores)
    # Nothing lost or duplicated: the stores hold the crawl's documents once, in order.
    ids = [i for s in stores for i in neardup.Store(s).ids()]
    assert ids == neardup.Store(tmp_path / "one" / "store").ids()
    # No temporary of the killed attempt is left.
    left = [n for n in os.listdir(tmp_path / "dist" / "stores") if not n.startswith("store-")]
    assert not left, left
    dist = neardup.dedup(stores, tmp_path / "dist" / "dedup")
    assert lists(dist.dir) == lists(one.dir)
    r = ndray.dedup([crawl], tmp_path / "both")
    assert lists(r.dir) == lists(one.dir)
    # The join placed on a chosen node (here the only one) gives the same lists.
    ip = ray.util.get_node_ip_address()
    r = ndray.dedup([crawl], tmp_path / "placed", node=ip)
    assert lists(r.dir) == lists(one.dir)
