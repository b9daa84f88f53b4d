"""Fingerprinting on a Ray cluster, the join on one machine.

Fingerprinting is the costly stage and is independent per shard: :func:`fingerprint` runs one
Ray task per group of shards, each writing its own store (a store appears whole or not at all,
so a task killed mid-shard leaves nothing that looks finished, and its retry replaces what it
left). The stores, given together in order, are one corpus: :func:`dedup` joins them on the
driver's machine (with its GPU when it has one), or on a chosen node.

``out_dir`` is a directory every node can read and write (NFS, a mounted bucket), or an object
storage URL (``s3://bucket/run``; :mod:`neardup.remote`): then each task fingerprints into its
node's local disk and uploads its store, manifest last, and the join downloads the stores
to its node, runs there, and uploads its outputs. The crawl's shards themselves must be
readable from every node under the paths given (the join's verification reads their text
again).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

import neardup
from neardup import remote

__all__ = ["shards", "fingerprint", "dedup", "dedup_dataset"]


def shards(paths: Iterable[os.PathLike | str]) -> list[str]:
    """The shard files under ``paths`` that neardup reads, in the order it reads them (its own
    discovery: directories walked in sorted order, unknown formats and neardup's outputs left
    out), so that stores of groups of them, in order, are the corpus one store would be."""
    from ._neardup import shards as _shards

    return [os.fspath(p) for p in _shards([os.fspath(p) for p in paths])]


def _task(
    index: int,
    group: Sequence[str],
    out_dir: str,
    options: dict,
    kill_once: Optional[str],
    storage_options: Optional[dict],
):
    name = f"store-{index:05d}"
    if kill_once and not os.path.exists(kill_once):
        # Test hook: the first attempt dies mid-shard, as a lost node would.
        Path(kill_once).touch()
        import threading

        threading.Timer(0.05, lambda: os._exit(1)).start()
    if not remote.is_url(out_dir):
        store = os.path.join(out_dir, name)
        neardup.fingerprint(group, store, **{**options, "force": True})
        return store
    with tempfile.TemporaryDirectory(prefix="neardup-task-") as tmp:
        local = os.path.join(tmp, name)
        neardup.fingerprint(group, local, **{**options, "force": True})
        return remote.upload_store(local, remote.join(out_dir, name), storage_options)


def fingerprint(
    paths: Iterable[os.PathLike | str],
    out_dir: os.PathLike | str,
    *,
    shards_per_task: int = 1,
    max_retries: int = 3,
    num_cpus: float = 1,
    storage_options: Optional[dict] = None,
    _kill_once: Optional[str] = None,
    **options: Any,
) -> list[str]:
    """Fingerprints the shards under ``paths`` on the Ray cluster (``ray.init()`` first): one
    task per ``shards_per_task`` shards, each writing ``out_dir/store-NNNNN``, retried up to
    ``max_retries`` times when it fails or its worker dies. Returns the stores' paths (or
    URLs, for object storage; ``storage_options`` go to fsspec) in corpus order
    (``neardup.Store`` opens a path; :func:`neardup.remote.download` fetches a URL). Options
    are ``neardup fingerprint``'s."""
    import ray

    files = shards(paths)
    groups = [files[i : i + shards_per_task] for i in range(0, len(files), shards_per_task)]
    if not remote.is_url(out_dir):
        os.makedirs(out_dir, exist_ok=True)
    task = ray.remote(num_cpus=num_cpus, max_retries=max_retries, retry_exceptions=True)(_task)
    # A task uses the cores Ray gives it, not every core of its node.
    options = {"threads": max(1, int(num_cpus)), **options}
    refs = [
        task.remote(i, g, os.fspath(out_dir), dict(options), _kill_once, storage_options)
        for i, g in enumerate(groups)
    ]
    stores = ray.get(refs)
    neardup.log.info("ray: %d shards fingerprinted into %d stores", len(files), len(stores))
    return stores


def _dedup_task(stores: list, out: str, options: dict, storage_options: Optional[dict]) -> str:
    if not remote.is_url(out):
        neardup.dedup(stores, out, **options)
        return out
    # Stores and outputs on object storage: both through this node's local disk.
    with tempfile.TemporaryDirectory(prefix="neardup-join-") as tmp:
        local = [
            os.fspath(remote.download(s, os.path.join(tmp, "stores", f"{i:05d}"), storage_options))
            if remote.is_url(s)
            else s
            for i, s in enumerate(stores)
        ]
        result = os.path.join(tmp, "dedup")
        neardup.dedup(local, result, **options)
        remote.upload_dir(result, out, storage_options, last="summary.json")
    return out


def dedup(
    paths: Iterable[os.PathLike | str],
    out_dir: os.PathLike | str,
    *,
    fingerprint_options: Optional[dict] = None,
    shards_per_task: int = 1,
    node: Optional[str] = None,
    storage_options: Optional[dict] = None,
    local_dir: Optional[os.PathLike | str] = None,
    **options: Any,
) -> "neardup.DedupResult":
    """Fingerprints on the cluster (:func:`fingerprint`, into ``out_dir/stores``), then runs
    ``dedup`` on the stores into ``out_dir/dedup``: here, or on the node whose IP address is
    ``node`` (a GPU box, say; it then needs the stores' filesystem too). MinHash keys are made
    unless ``no_verify`` or ``candidates="simhash"`` is given, as ``neardup dedup`` does.

    With an object storage URL for ``out_dir``, the outputs are uploaded to
    ``out_dir/dedup`` (``summary.json`` last), and the result returned reads a copy of them
    downloaded into ``local_dir`` (default: a new temporary directory)."""
    fopts = dict(fingerprint_options or {})
    if not options.get("no_verify") and options.get("candidates", "minhash") == "minhash":
        fopts.setdefault("minhash", True)
    stores = fingerprint(
        paths,
        remote.join(out_dir, "stores"),
        shards_per_task=shards_per_task,
        storage_options=storage_options,
        **fopts,
    )
    out = remote.join(out_dir, "dedup")
    if node is None:
        done = _dedup_task(stores, out, dict(options), storage_options)
    else:
        import ray

        task = ray.remote(num_cpus=0, resources={f"node:{node}": 0.001})(_dedup_task)
        done = ray.get(task.remote(stores, out, dict(options), storage_options))
    if not remote.is_url(done):
        return neardup.DedupResult(done)
    local = Path(local_dir) if local_dir else Path(tempfile.mkdtemp(prefix="neardup-dedup-"))
    remote.download(done, local, storage_options, store=False)
    return neardup.DedupResult(local)


def dedup_dataset(ds, *, text: str = "text", id: Optional[str] = "id", url: Optional[str] = None, **options: Any):
    """``neardup.dedup`` of a Ray Dataset's rows, read a batch at a time, twice (fingerprints,
    then the texts compared), on the driver: the dataset may be larger than the driver's
    memory; blocks stream in their order each time. Returns a ``pyarrow.Table`` aligned with
    the dataset's rows (``cluster``, ``kept``, ``kept_id``, ``score``, as ``neardup.dedup``);
    ``ds.filter`` on its rows, or a zip with it, applies it."""
    import pyarrow as pa

    names = ds.schema().names
    columns = [c for c in [text, id, url] if c and c in names]
    part = ds.select_columns(columns)
    schema = pa.schema([f for f in part.schema().base_schema])

    def make():
        def batches():
            for t in part.iter_batches(batch_format="pyarrow", prefetch_batches=1):
                yield from t.cast(schema).to_batches()

        return pa.RecordBatchReader.from_batches(schema, batches())

    def ids():
        return pa.concat_arrays(
            [c for t in ds.select_columns([id]).iter_batches(batch_format="pyarrow") for c in t.column(id).chunks]
        )

    table = neardup.Scanned(make, rows=ds.count(), ids=ids if id in names else None)
    return neardup.dedup(table, text=text, id=id if id in names else None, url=url, **options)
