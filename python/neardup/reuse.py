"""Content reuse as library calls: paragraph chunks counted and the frequent ones labeled
(``discover``), pages and URL neighbourhoods scored by them (``detect``), and the most repeated
chunks (``top``). The stores must be fingerprinted with ``chunks=True``.

Keyword options are the command line's (``neardup reuse discover|detect|top``), by name.
Errors raise :class:`neardup.NeardupError`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from . import _job_options, _options_json, _stores, _neardup, PathLike

__all__ = ["discover", "detect", "top"]


def discover(stores, out: PathLike, **options: Any) -> dict:
    """Every chunk counted exactly, those seen more than ``min_count`` times labeled
    (``auto_stop=True``, ``memory="4G"``, ``force=True``, ...), into ``out``; returns its
    ``summary.json``."""
    options, quiet, threads = _job_options(options)
    opts = {**options, "stores": _stores(stores), "output": os.fspath(out)}
    _neardup.named_job("reuse-discover", _options_json(opts), quiet=quiet, threads=threads)
    return json.loads((Path(out) / "summary.json").read_text())


def detect(stores, labels: PathLike, out: PathLike, **options: Any) -> dict:
    """Pages and neighbourhoods scored by the labeled chunks of ``labels`` (a ``discover``
    output or a store), into ``out``; returns its ``summary.json``."""
    options, quiet, threads = _job_options(options)
    opts = {**options, "stores": _stores(stores), "labels": os.fspath(labels), "output": os.fspath(out)}
    _neardup.named_job("reuse-detect", _options_json(opts), quiet=quiet, threads=threads)
    return json.loads((Path(out) / "summary.json").read_text())


def top(stores, n: int = 100, **options: Any):
    """The ``n`` most repeated chunks as a ``pyarrow.Table``: ``count``, ``sites``, ``stop``,
    ``hash``, ``sample``, most repeated first."""
    import pyarrow as pa

    options, _quiet, threads = _job_options(options)
    opts = {**options, "stores": _stores(stores), "n": n}
    rows = _neardup.reuse_top(_options_json(opts), threads=threads)
    names = ["count", "sites", "stop", "hash", "sample"]
    cols = list(zip(*rows)) if rows else [[] for _ in names]
    types = [pa.uint64(), pa.uint64(), pa.bool_(), pa.string(), pa.string()]
    return pa.table({k: pa.array(list(c), type=t) for k, c, t in zip(names, cols, types)})
