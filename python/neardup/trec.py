"""The TREC tools as library calls: runs and qrels deduplicated by a ``dedup`` output's groups,
near-duplicates inside each topic, and judgments transferred to a newer crawl.

Keyword options are the command line's (``neardup trec run|qrels|inspect|transfer``), by name;
each function writes what the command writes and returns the summary it wrote, as a dict.
Errors raise :class:`neardup.NeardupError`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable

from . import _job_options, _options_json, _stores, _neardup, PathLike

__all__ = ["runs", "qrels", "inspect", "transfer"]


def _paths(ps: Iterable[PathLike] | PathLike) -> list[str]:
    if isinstance(ps, (str, os.PathLike)):
        ps = [ps]
    return [os.fspath(p) for p in ps]


def _named(job: str, opts: dict[str, Any], options: dict[str, Any]) -> None:
    options, quiet, threads = _job_options(options)
    _neardup.named_job(job, _options_json({**options, **opts}), quiet=quiet, threads=threads)


def runs(run_files: Iterable[PathLike] | PathLike, clusters: PathLike, out: PathLike, **options: Any) -> dict:
    """Runs deduplicated into the directory ``out`` (``rule="chuweb21d"`` or ``"mark"``,
    ``by="star"`` or ``"component"``, ``force=True``); returns ``trec.json``."""
    _named("trec-run", {"runs": _paths(run_files), "clusters": os.fspath(clusters), "output": os.fspath(out)}, options)
    return json.loads((Path(out) / "trec.json").read_text())


def qrels(qrels_file: PathLike, clusters: PathLike, out: PathLike, **options: Any) -> dict:
    """Qrels deduplicated into the file ``out``; returns ``out.json``."""
    _named("trec-qrels", {"qrels": os.fspath(qrels_file), "clusters": os.fspath(clusters), "output": os.fspath(out)}, options)
    return json.loads(Path(os.fspath(out) + ".json").read_text())


def inspect(files: Iterable[PathLike] | PathLike, stores, out: PathLike, **options: Any) -> dict:
    """Near-duplicates inside each topic of runs and qrels (``top=10``, ``measure="s3"``,
    ``min=0.82``, ...), into the directory ``out``; returns ``inspect.json``."""
    _named("trec-inspect", {"files": _paths(files), "store": _stores(stores), "output": os.fspath(out)}, options)
    return json.loads((Path(out) / "inspect.json").read_text())


def transfer(qrels_file: PathLike, old, new, out: PathLike, **options: Any) -> dict:
    """Judgments of the crawl in the stores ``old`` moved to the stores ``new``, into the
    qrels file ``out``; returns ``out.json``."""
    opts = {"qrels": os.fspath(qrels_file), "from": _stores(old), "to": _stores(new), "output": os.fspath(out)}
    _named("trec-transfer", opts, options)
    return json.loads(Path(os.fspath(out) + ".json").read_text())
