"""Fingerprinting on a Ray cluster, and the stages after it on one machine or split across
the cluster.

Fingerprinting is the costly stage and is independent per shard: :func:`fingerprint` runs one
Ray task per group of shards, each writing its own store (a store appears whole or not at all,
so a task killed mid-shard leaves nothing that looks finished, and its retry replaces what it
left). The stores, given together in order, are one corpus: :func:`dedup` joins them on the
driver's machine (with its GPU when it has one), or on a chosen node, or, with
``partitions=N``, split into tasks on the cluster's nodes (the key space and the documents in
``N`` partitions: keys scattered, groups, connected components by large-star/small-star steps,
verification of whole components, lists per store), giving the same lists as one machine.

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

__all__ = ["shards", "fingerprint", "dedup", "dedup_split", "dedup_dataset"]


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


def _split_task(work: str, stage: str, part: int, step: int, threads: int, kill: Optional[str]) -> str:
    import json

    import ray

    from ._neardup import split_task

    if kill and stage == "verify" and not os.path.exists(kill):
        # Test hook: the first attempt of a verify task dies while it works, as a lost worker
        # would; if the work ends first, the process dies before it reports.
        Path(kill).touch()
        import threading

        threading.Timer(0.01, lambda: os._exit(1)).start()
        split_task(work, stage, part, step, threads)
        os._exit(1)
    report = json.loads(split_task(work, stage, part, step, threads))
    report["node"] = ray.get_runtime_context().get_node_id()[:12]
    return json.dumps(report)


def dedup_split(
    stores: Sequence[os.PathLike | str],
    out: os.PathLike | str,
    partitions: int,
    *,
    num_cpus: float = 1,
    max_retries: int = 3,
    quiet: bool = False,
    _kill_once: Optional[str] = None,
    **options: Any,
) -> "neardup.DedupResult":
    """``dedup`` of ``stores`` (fingerprinted with MinHash keys) into ``out``, every stage after
    fingerprinting split into Ray tasks over ``partitions`` partitions (``ray.init()`` first):
    the same ``keep.txt``, ``remove.tsv``, ``clusters.tsv`` and ``excluded.tsv`` as one
    machine's ``dedup`` of the stores, byte for byte. Every node reads the stores, the crawl's
    shards (verification reads texts) and ``out`` under the same paths (a shared filesystem);
    the tasks hand each other files in ``out/split``, removed at the end. A task that fails or
    whose worker dies is run again (``max_retries``) and writes the same files. The memory a
    task needs is printed by formula before the stages run; ``summary.json`` records each
    stage's tasks, per node: time, CPU time and peak memory. Options are ``neardup dedup``'s
    (the verified default: not ``no_verify``, ``all_pairs`` or SimHash candidates)."""
    import json

    import ray

    from ._neardup import split_abandon, split_gather, split_next, split_plan

    out = os.fspath(out)
    opts = {**options, "inputs": [os.fspath(s) for s in stores], "output": out}
    work = os.fspath(split_plan(neardup._options_json(opts), int(partitions), quiet=quiet))
    task = ray.remote(num_cpus=num_cpus, max_retries=max_retries, retry_exceptions=True)(_split_task)
    threads = max(1, int(num_cpus))
    state, reports = "", "[]"
    try:
        while True:
            state, nxt = split_next(state, work, reports)
            if nxt is None:
                break
            n = json.loads(nxt)
            refs = [task.remote(work, n["stage"], p, n["step"], threads, _kill_once) for p in n["parts"]]
            reports = "[" + ",".join(ray.get(refs)) + "]"
        summary = json.loads(split_gather(state, quiet=quiet))
    except BaseException:
        # The output's lock, held since the plan, is let go: this process may write there again.
        split_abandon(out)
        raise
    c = summary["clusters"]
    neardup.log.info(
        "ray: dedup over %d partitions: %s kept, %s removed -> %s", partitions, c["keep"], c["remove"], out
    )
    return neardup.DedupResult(out)


def dedup(
    paths: Iterable[os.PathLike | str],
    out_dir: os.PathLike | str,
    *,
    partitions: int = 1,
    fingerprint_options: Optional[dict] = None,
    shards_per_task: int = 1,
    node: Optional[str] = None,
    storage_options: Optional[dict] = None,
    local_dir: Optional[os.PathLike | str] = None,
    _kill_once: Optional[str] = None,
    **options: Any,
) -> "neardup.DedupResult":
    """Fingerprints on the cluster (:func:`fingerprint`, into ``out_dir/stores``), then runs
    ``dedup`` on the stores into ``out_dir/dedup``: here, or on the node whose IP address is
    ``node`` (a GPU box, say; it then needs the stores' filesystem too). MinHash keys are made
    unless ``no_verify`` or ``candidates="simhash"`` is given, as ``neardup dedup`` does.

    With ``partitions`` above 1, the stages after fingerprinting run as tasks across the
    cluster (:func:`dedup_split`): the same lists, no machine holding the whole corpus;
    ``out_dir`` is then a directory every node reads and writes.

    With an object storage URL for ``out_dir``, the outputs are uploaded to
    ``out_dir/dedup`` (``summary.json`` last), and the result returned reads a copy of them
    downloaded into ``local_dir`` (default: a new temporary directory)."""
    if partitions > 1 and (remote.is_url(out_dir) or node is not None):
        raise ValueError(
            "partitions split the run across the cluster's nodes, which share out_dir as a filesystem: "
            "give a shared directory, and no node"
        )
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
    if partitions > 1:
        return dedup_split(stores, out, partitions, _kill_once=_kill_once, **options)
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
    then the texts compared), on the driver: the columns read are materialised once in Ray's
    object store (which spills to disk), so the dataset may be larger than the driver's
    memory and both passes see its rows in one order. Returns a ``pyarrow.Table`` aligned with
    the dataset's rows (``cluster``, ``kept``, ``kept_id``, ``score``, as ``neardup.dedup``);
    ``ds.filter`` on its rows, or a zip with it, applies it."""
    import pyarrow as pa

    names = ds.schema().names
    columns = [c for c in [text, id, url] if c and c in names]
    # Ray Data streams blocks in the order they finish unless told to keep it: the rows are
    # read in the dataset's order, so the answer is aligned with them. A dataset runs under
    # the context it was made with (a copy of the current one, taken by `from_arrow` and the
    # readers), so the order is asked of its own context: set on the current one alone, a
    # repartitioned dataset still came back in another order about once in fifteen runs.
    context = ds.context
    kept = context.execution_options.preserve_order
    context.execution_options.preserve_order = True
    try:
        # The columns read, materialised once in Ray's object store (which spills to disk,
        # so the dataset may still be larger than the driver's memory): both passes and the
        # ids read the same blocks in the same order. Executed twice, a repartitioned
        # dataset came back in another order the second time on a busy machine, even with
        # `preserve_order` set, and every text read again was another row's.
        part = ds.select_columns(columns).materialize()
        schema = pa.schema([f for f in part.schema().base_schema])

        def make():
            def batches():
                for t in part.iter_batches(batch_format="pyarrow", prefetch_batches=1):
                    yield from t.cast(schema).to_batches()

            return pa.RecordBatchReader.from_batches(schema, batches())

        def ids():
            # From the materialised blocks themselves, as the two passes read them: a
            # projection (`part.select_columns`) runs new tasks, whose blocks came back in
            # another order about once in ten runs, and every id was then another row's.
            batches = part.iter_batches(batch_format="pyarrow", prefetch_batches=1)
            return pa.concat_arrays([c for t in batches for c in t.column(id).chunks])

        table = neardup.Scanned(make, rows=part.count(), ids=ids if id in names else None)
        return neardup.dedup(table, text=text, id=id if id in names else None, url=url, **options)
    finally:
        context.execution_options.preserve_order = kept
