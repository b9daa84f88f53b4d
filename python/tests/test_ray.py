"""Fingerprinting on a local Ray cluster: the same results as one process, byte for byte, and
a task killed mid-shard retried with nothing lost or duplicated."""

import os

import pytest

import neardup

ray = pytest.importorskip("ray") if not os.environ.get("NEARDUP_REQUIRE_RAY") else __import__("ray")
import neardup.ray as ndray
import neardup.remote


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


def _s3():
    """A local S3 service (moto) and the fsspec options that reach it, or a skip."""
    need = bool(os.environ.get("NEARDUP_REQUIRE_S3"))
    try:
        import s3fs  # noqa: F401
        from moto.server import ThreadedMotoServer
    except ImportError:
        if need:
            raise
        pytest.skip("moto[server] and s3fs are not installed")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    opts = {
        "key": "test",
        "secret": "test",
        "client_kwargs": {"endpoint_url": f"http://{host}:{port}", "region_name": "us-east-1"},
    }
    return server, opts


def test_ray_dedup_with_stores_and_outputs_on_object_storage(cluster, crawl, tmp_path):
    import fsspec

    server, opts = _s3()
    try:
        fs = fsspec.filesystem("s3", **opts)
        fs.call_s3("create_bucket", Bucket="crawl-run")
        one = neardup.dedup([crawl], tmp_path / "one")
        r = ndray.dedup([crawl], "s3://crawl-run/day1", storage_options=opts, local_dir=tmp_path / "got")
        assert lists(r.dir) == lists(one.dir)
        # Six whole stores, each with its manifest; the outputs uploaded beside them.
        manifests = [f for f in fs.find("crawl-run/day1/stores") if f.endswith("/manifest.json")]
        assert len(manifests) == 6, manifests
        assert fs.cat("crawl-run/day1/dedup/keep.txt") == (one.dir / "keep.txt").read_bytes()
        # The stores downloaded again hold the crawl's documents once each, in order.
        ids = []
        for i in range(6):
            got = neardup.remote.download(f"s3://crawl-run/day1/stores/store-{i:05d}", tmp_path / f"s{i}", opts)
            ids += neardup.Store(got).ids()
        assert ids == neardup.Store(one.dir / "store").ids()
        # A user's object where a store would go is left alone: the upload refuses.
        fs.pipe("crawl-run/mine/store-00000/notes.txt", b"mine")
        with pytest.raises(FileExistsError, match="notes.txt"):
            neardup.remote.upload_store(tmp_path / "s0", "s3://crawl-run/mine/store-00000", opts)
        assert fs.cat("crawl-run/mine/store-00000/notes.txt") == b"mine"
        # A store whose upload did not finish (no manifest) is refused, not read in part.
        fs.rm("crawl-run/day1/stores/store-00003/manifest.json")
        with pytest.raises(FileNotFoundError, match="not a whole store"):
            neardup.remote.download("s3://crawl-run/day1/stores/store-00003", tmp_path / "part", opts)
    finally:
        server.stop()


def test_ray_fingerprint_to_a_file_url(cluster, crawl, tmp_path):
    url = f"file://{tmp_path}/bucket/stores"
    stores = ndray.fingerprint([crawl], url, minhash=True)
    assert stores == [f"{url}/store-{i:05d}" for i in range(6)]
    ids = []
    for i, s in enumerate(stores):
        ids += neardup.Store(neardup.remote.download(s, tmp_path / "got" / str(i))).ids()
    assert ids == neardup.fingerprint([crawl], tmp_path / "one").ids()


def test_a_ray_dataset_streams_through_dedup_as_its_table_would(cluster):
    import pyarrow as pa
    from test_table import planted, same

    table = planted(1200, seed=3)
    base = neardup.dedup(table, quiet=True)
    ds = ray.data.from_arrow(table).repartition(7)
    got = ndray.dedup_dataset(ds, quiet=True)
    assert isinstance(got, pa.Table) and got.num_rows == table.num_rows
    assert same(got, base)
    assert 0 < got.column("kept").to_pylist().count(False) < table.num_rows


def test_a_ray_dataset_is_read_in_order_under_its_own_context(cluster, monkeypatch):
    # A dataset runs under the context it was made with, a copy of the current one: the order
    # is asked of that context while the columns are materialised, and given back after.
    from test_table import planted

    ds = ray.data.from_arrow(planted(60, seed=5)).repartition(3)
    assert ds.context is not ray.data.DataContext.get_current()
    before = ds.context.execution_options.preserve_order
    seen = []
    materialize = ray.data.Dataset.materialize

    def watched(self):
        seen.append(self.context.execution_options.preserve_order)
        return materialize(self)

    monkeypatch.setattr(ray.data.Dataset, "materialize", watched)
    ndray.dedup_dataset(ds, quiet=True)
    assert seen == [True]
    assert ds.context.execution_options.preserve_order == before
