"""neardup: near-duplicate detection for web crawls, from Python.

Every function runs neardup's jobs in this process as library calls (no subprocess, no
command line), with the GIL released while they work; keyword options are the command line's,
by name (``min_terms=10`` is ``--min-terms 10``, ``no_verify=True`` is ``--no-verify``), and
results come back as Arrow tables or NumPy arrays. :func:`run` runs any command line. :func:`dedup` is a library call on
those options, on crawls and stores or on a table in memory (a ``pyarrow.Table``, a
``pyarrow.dataset.Dataset``, a pandas ``DataFrame`` or a Hugging Face ``datasets.Dataset``),
whose answer comes back as an Arrow table aligned with its rows.
Errors raise :class:`NeardupError` with neardup's message. What a command says while it runs
goes to the ``neardup`` logger as it happens: its steps and figures and fingerprinting's
progress (every 5 s, :func:`set_progress_interval`) at INFO, skipped or replaced things at
WARNING, shards that could not be read at ERROR. ``logging.basicConfig(level=logging.INFO)``
shows them.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from ._neardup import NeardupError, Store, __version__, run as _run, set_progress_interval
from . import _neardup

__all__ = [
    "NeardupError",
    "Store",
    "DedupResult",
    "Scanned",
    "fingerprint",
    "join",
    "dedup",
    "sweep",
    "run",
    "set_progress_interval",
    "__version__",
]

log = logging.getLogger("neardup")


def _add_headless_nvidia_driver() -> None:
    """On a GPU server with no display, NVIDIA's Vulkan driver serves only through its EGL
    library: as the command line does first thing, neardup writes a manifest naming it and adds
    it for Vulkan's loader (``VK_ADD_DRIVER_FILES``, keeping every other driver, or after the
    list of a ``VK_DRIVER_FILES`` that names only NVIDIA's GLX manifest, since the loader then
    reads no other) before any GPU call of this process. ``NEARDUP_VULKAN_AS_IS=1``, or a
    driver variable of one's own, turns it off."""
    setting, why = _neardup.vulkan_driver()
    if setting is not None:
        var, value = setting
        os.environ[var] = os.fsdecode(value)
    log.debug("NVIDIA's headless Vulkan driver: %s", why)


_add_headless_nvidia_driver()

PathLike = Union[str, os.PathLike]


def run(args: Sequence[str], threads: Optional[int] = None, quiet: bool = False) -> bool:
    """Runs one neardup command line (``["dedup", "crawl/", "-o", "out"]``) in this process.

    Returns True when every input was read, False when some could not be (their names are in
    the outputs); raises NeardupError on an error. What the command says goes to the
    ``neardup`` logger as it runs; ``quiet=True`` keeps only warnings and errors.
    """
    pre = ["--threads", str(threads)] if threads else []
    if quiet:
        pre.append("-q")
    return _run(pre + [str(a) for a in args])


def fingerprint(paths: Iterable[PathLike] | PathLike, out: PathLike, **options: Any) -> Store:
    """Fingerprints crawl shards (files or directories) into the store ``out``: the library's
    fingerprint job, in this process.

    Options are ``neardup fingerprint``'s, by name: ``minhash=True``, ``chunks=True``,
    ``force=True``, ``id_field="id"``, ``text_field="text"``, ``min_terms=10``,
    ``threads=4``, ...
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    options, quiet, threads = _job_options(options)
    opts = {**options, "inputs": [os.fspath(p) for p in paths], "output": os.fspath(out)}
    clean = _neardup.fingerprint_job(_options_json(opts), quiet=quiet, threads=threads)
    if not clean:
        log.warning("neardup fingerprint: some inputs could not be read (see the store's manifest)")
    store = Store(os.fspath(out))
    log.info("fingerprinted %d documents into %s", len(store), os.fspath(out))
    return store


def _stores(stores: Iterable[Union[Store, PathLike]] | Store | PathLike) -> list[str]:
    if isinstance(stores, (Store, str, os.PathLike)):
        stores = [stores]
    return [os.fspath(s.path) if isinstance(s, Store) else os.fspath(s) for s in stores]


def join(stores, tau: int = 3, verify: bool = False, measure: str = "s3", min: float = 0.82, **options: Any):
    """All pairs of documents within Hamming distance ``tau`` as a ``pyarrow.Table``:
    ``id_a``, ``id_b`` (strings, the lesser first), ``hamming64``, ``hamming128`` (int64), in
    ``neardup join``'s order; with ``verify=True``, each pair also compared on its text
    (``neardup verify``): ``score`` (the ``measure``, s3 by default) and ``near_duplicate``
    (score at least ``min``).

    Options are ``neardup join``'s (``tau128=``, ``against=[...]``, ``method=``,
    ``backend=``, ``threads=``, ...), or ``neardup verify``'s with ``verify=True``
    (``shingle=``, ``shard_dir=``, ``pairs=``, ...): the job runs as a library call, its pairs
    handed over as arrays (no file).
    """
    import pyarrow as pa

    options, quiet, threads = _job_options(options)
    opts = {**options, "stores": _stores(stores), "tau": tau}
    if not verify:
        pairs, ids = _neardup.join_pairs(_options_json(opts), quiet=quiet, threads=threads)
        return _pairs_table(pairs, ids)
    opts.update({"measure": measure, "min": min})
    pairs, (s3, jac, con), ids = _neardup.verify_pairs(_options_json(opts), quiet=quiet, threads=threads)
    score = {"s3": s3, "jaccard": jac, "containment": con}[measure]
    return _pairs_table(pairs, ids).append_column("score", pa.array(score)).append_column(
        "near_duplicate", pa.array(score >= min)
    )


def _pairs_table(pairs, ids):
    """The pairs the join and verify jobs hand over (document indices and distances, every
    document's id) as ``neardup join``'s rows: ``id_a`` < ``id_b``, distances as int64."""
    import pyarrow as pa
    import pyarrow.compute as pc

    a, b, h64, h128 = pairs
    ids = pa.array(ids, pa.string())
    x, y = ids.take(pa.array(a)), ids.take(pa.array(b))
    swap = pc.greater(x, y)
    return pa.table(
        {
            "id_a": pc.if_else(swap, y, x),
            "id_b": pc.if_else(swap, x, y),
            "hamming64": pa.array(h64).cast(pa.int64()),
            "hamming128": pa.array(h128).cast(pa.int64()),
        }
    )


def _job_options(options: Mapping[str, Any]):
    """A job's keyword options, and the ``quiet`` and ``threads`` taken out of them."""
    options = dict(options)
    return options, options.pop("quiet", False), options.pop("threads", None)


_TSV_ESCAPES = {"t": "\t", "n": "\n", "r": "\r"}


def _tsv_value(field: str) -> str:
    """An id as it was before neardup's TSV escaping (docs/FORMATS.md, "TSV fields")."""
    if "\\" not in field:
        return field
    out, it = [], iter(field)
    for c in it:
        if c != "\\":
            out.append(c)
            continue
        n = next(it, None)
        out.append("\\" if n is None else _TSV_ESCAPES.get(n, n))
    return "".join(out)


class DedupResult:
    """What ``dedup`` wrote into its output directory, read on demand."""

    def __init__(self, out: PathLike):
        self.dir = Path(out)

    @property
    def summary(self) -> dict:
        """``summary.json``."""
        return json.loads((self.dir / "summary.json").read_text())

    def keep(self) -> list[str]:
        """The kept documents' ids."""
        return [_tsv_value(line) for line in (self.dir / "keep.txt").read_text().splitlines()]

    def explain(
        self, id: str, shard_dir: Optional[PathLike] = None, other: Optional[str] = None
    ) -> dict:
        """Why page ``id`` was removed or kept, as ``neardup explain`` says it: ``status``
        (``removed``, ``kept``, ``excluded``, ``unknown``); for a removed page the kept page,
        ``score``, ``candidates`` (shared MinHash bands, SimHash distance) and the word
        ``diff`` of the two texts; for a kept page ``removed_for_it``. With ``other``, the
        two pages side by side (``status`` ``pair``): what the run did with each
        (``first``, ``second``, ``together``), and what verification makes of the pair
        (``near_duplicates``, ``score``, ``rule``, ``why``, ``parts``, ``diff``)."""
        sd = None if shard_dir is None else os.fspath(shard_dir)
        return json.loads(_neardup.explain(os.fspath(self.dir), id, sd, other))

    @property
    def report_page(self) -> Path:
        """``report.html``: the run, the per-site audit, the plots and removed pages beside
        their kept page; open it in a browser."""
        return self.dir / "report.html"

    def table(self, name: str):
        """A table of the run (``clusters``, ``keep``, ``remove``, ``excluded``, ``sweep``,
        ``pairs``) as a ``pyarrow.Table``. ``pairs`` of the default run is its removals' graph as
        links (k - 1 rows for k identical texts); with ``all_pairs=True`` it is every pair."""
        import pyarrow.parquet as pq

        return pq.read_table(self.dir / f"{name}.parquet")

    def __repr__(self) -> str:
        return f"DedupResult({os.fspath(self.dir)!r})"


def _options_json(options: Mapping[str, Any]) -> str:
    """Options by name as dedup's JSON: paths as strings, sizes as given."""

    def value(k, v):
        if isinstance(v, os.PathLike):
            return os.fspath(v)
        if isinstance(v, (list, tuple)):
            return [value(k, x) for x in v]
        if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
            raise ValueError(f"{k}={v}: give a finite number")
        return v

    return json.dumps({k: value(k, v) for k, v in options.items()})


def _arrow_table(data, columns: list[str]):
    """``data`` as a ``pyarrow.Table`` (or a stream with ``__arrow_c_stream__``) of the
    ``columns`` it has, without copying what is already Arrow."""
    import pyarrow as pa

    if isinstance(data, pa.RecordBatch):
        data = pa.Table.from_batches([data])
    if isinstance(data, pa.Table):
        return data.select([c for c in columns if c in data.column_names])
    try:
        import pyarrow.dataset as ds
    except ImportError:  # pragma: no cover - pyarrow always has it
        ds = None
    # A Hugging Face datasets.Dataset: its Arrow table, in its rows' order.
    if hasattr(data, "data") and hasattr(data, "flatten_indices") and hasattr(data.data, "table"):
        if getattr(data, "_indices", None) is not None:
            data = data.flatten_indices()
        return _arrow_table(data.data.table, columns)
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None and isinstance(data, pd.DataFrame):
        cols = [c for c in columns if c in data.columns]
        return pa.Table.from_pandas(data[cols], preserve_index=False)
    if hasattr(data, "__arrow_c_stream__"):
        # Read once: a stream (a RecordBatchReader) gives its rows to one reader only.
        return _arrow_table(pa.table(data), columns)
    raise TypeError(
        f"dedup takes paths, or a table: pyarrow.Table, pyarrow.dataset.Dataset, pandas.DataFrame "
        f"or datasets.Dataset (got {type(data).__name__})"
    )


def _is_table(data) -> bool:
    return not isinstance(data, (str, os.PathLike, list, tuple, Store))


class Scanned:
    """A table read in scans, a batch at a time: ``make()`` returns a new stream of its rows
    (anything with ``__arrow_c_stream__``, a ``pyarrow.RecordBatchReader`` say) in the same
    order each call; ``rows`` is about how many there are (0: unknown) and ``ids()`` returns
    the id column (or None). ``dedup`` fingerprints it on one scan and reads the texts it
    compares on another, so a table larger than memory is deduplicated in the memory of its
    fingerprints."""

    def __init__(self, make, rows: int = 0, ids=None):
        self.make, self.rows, self.ids = make, rows, ids


def _scanned(data, columns: list[str], id: Optional[str]) -> Optional[Scanned]:
    """``data`` as a :class:`Scanned` table when it is one to scan rather than hold."""
    if isinstance(data, Scanned):
        return data
    try:
        import pyarrow.dataset as ds
    except ImportError:  # pragma: no cover - pyarrow always has it
        return None
    if isinstance(data, ds.Dataset):
        cols = [c for c in columns if c in data.schema.names]
        idc = id if id in cols else None
        # One batch ahead, of at most 16 384 rows, and Parquet column chunks read as they are
        # decoded: the scanner's defaults (16 batches of 128 Ki rows ahead, 4 files, whole row
        # groups buffered) held 1.2 GB of a 0.8 GB file of long texts while it was scanned.
        extra = {}
        if isinstance(getattr(data, "format", None), ds.ParquetFileFormat):
            extra["fragment_scan_options"] = ds.ParquetFragmentScanOptions(pre_buffer=False)
        return Scanned(
            lambda: data.scanner(
                columns=cols, batch_size=16_384, batch_readahead=1, fragment_readahead=1, **extra
            ).to_reader(),
            rows=data.count_rows(),
            ids=(lambda: data.to_table(columns=[idc]).column(idc)) if idc else None,
        )
    return None


def _dedup_table(data, text: str, id: Optional[str], url: Optional[str], quiet: bool, threads, options):
    import numpy as np
    import pyarrow as pa

    # Each column once, though it serves twice (text="id" reads the id column as the text).
    columns = list(dict.fromkeys([text] + ([id] if id else []) + ([url] if url else [])))
    keep_by = options.get("keep_by")
    if keep_by:
        # The --keep-by column is read too: its name is what comes before ":max" or ":min".
        field = keep_by.rsplit(":", 1)[0] if keep_by.rsplit(":", 1)[-1] in ("max", "min") else keep_by
        if field not in columns:
            columns.append(field)
    opts = dict(options)
    opts["text_field"] = text
    # Only the columns asked for are read: an id or URL column not asked for is not there,
    # and rows are then named by their number.
    opts["id_field"] = id or "id"
    opts["url_field"] = url or "url"
    scanned = _scanned(data, columns, id)
    if scanned is not None:
        cluster, kept_row, score, summary = _neardup.dedup_table(
            scanned.make(),
            _options_json(opts),
            quiet=quiet,
            threads=threads,
            rescan=scanned.make,
            rows=scanned.rows,
        )
        ids = scanned.ids() if (id and scanned.ids) else None
    else:
        table = _arrow_table(data, columns)
        cluster, kept_row, score, summary = _neardup.dedup_table(
            table, _options_json(opts), quiet=quiet, threads=threads
        )
        ids = table.column(id) if id and id in table.column_names else None
    rows = np.arange(len(cluster), dtype=np.uint64)
    kept = kept_row == rows
    is_view = getattr(pa.types, "is_string_view", lambda _: False)
    is_binary_view = getattr(pa.types, "is_binary_view", lambda _: False)
    if ids is not None and is_view(ids.type):
        # take() has no kernel for views in every pyarrow: the ids as plain strings.
        ids = ids.cast(pa.large_string())
    if ids is not None and is_binary_view(ids.type):
        ids = ids.cast(pa.large_binary())
    kept_id = ids.take(pa.array(kept_row)) if ids is not None else pa.array(kept_row)
    s = json.loads(summary)
    # Rows that were not read (too large, no text, filtered out) say so and why: they are
    # kept only because nothing was compared with them.
    skipped = [None] * len(cluster)
    for row, why in s.get("skipped_rows", []):
        skipped[row] = why
    result = pa.table(
        {
            "cluster": pa.array(cluster),
            "kept": pa.array(kept),
            "kept_id": kept_id,
            "score": pa.array(score, mask=np.isnan(score)),
            "skipped": pa.array(skipped, type=pa.string()),
        }
    )
    if s.get("skipped_rows"):
        log.warning(
            "dedup: %d rows were not read (%s): the result's skipped column names them",
            len(s["skipped_rows"]),
            ", ".join(f"{k} {v}" for k, v in sorted(s.get("skipped", {}).items())),
        )
    log.info("dedup: %d rows, %d kept, %d removed", s["rows"], s["rows"] - s["removed"], s["removed"])
    return result


def dedup(
    inputs,
    out: Optional[PathLike] = None,
    *,
    text: str = "text",
    id: Optional[str] = "id",
    url: Optional[str] = None,
    quiet: bool = False,
    threads: Optional[int] = None,
    **options: Any,
):
    """The main job, on crawls and stores, or on a table in memory.

    On a table (``pyarrow.Table``, ``pyarrow.dataset.Dataset``, pandas ``DataFrame``,
    Hugging Face ``datasets.Dataset``, or a :class:`Scanned` table): ``text`` names the text
    column (HTML or plain text),
    ``id`` the id column (None, or a column that is not there: rows are named by number),
    ``url`` the URL column. The table is read through the Arrow C data interface without a
    copy, verified from its texts in memory, and nothing is written (a dataset, or a
    :class:`Scanned` table, is read a batch at a time instead, twice: it may be larger than
    memory); returns a
    ``pyarrow.Table`` with a row for each input row: ``cluster`` (the row of its cluster's
    representative), ``kept`` (bool), ``kept_id`` (the id of the row kept for it: its own when
    kept), ``score`` (the removal's similarity, null where kept) and ``skipped`` (why a row
    was not read: ``too_large``, ``missing_text``, ...; null for the rows read). ``data.filter(result["kept"])``
    is the deduplicated table.

    On paths (crawl files or directories, or stores) with ``out`` the output directory: writes
    clusters and keep/remove lists there, with the tables also as Parquet, and returns a
    :class:`DedupResult`.

    Options are ``neardup dedup``'s, by name (``tau=``, ``representative="longest"``,
    ``min=0.9``, ``shingle=5``, ``min_terms=5``, ``no_verify=True``, ``all_pairs=True``, ...).
    """
    if _is_table(inputs):
        if out is not None:
            raise TypeError("dedup of a table writes nothing: give no out")
        return _dedup_table(inputs, text, id, url, quiet, threads, options)
    if out is None:
        raise TypeError("dedup of crawls or stores writes its outputs into out: give it")
    options = dict(options)
    tables = options.pop("tables", None)
    if isinstance(tables, str):
        tables = [tables]
    if options.get("partitions"):
        # A split run writes the TSV lists (its stages hand each other files, not tables).
        tables = tables or []
    elif tables is None or "parquet" not in tables:
        tables = [*(tables or []), "parquet"]
    opts = {**options, "inputs": _stores(inputs), "output": os.fspath(out), "tables": tables}
    clean, _summary = _neardup.dedup_files(_options_json(opts), quiet=quiet, threads=threads)
    if not clean:
        log.warning("neardup dedup: some inputs could not be read (see the outputs)")
    result = DedupResult(out)
    c = result.summary.get("clusters") or {}
    log.info("dedup: %s kept, %s removed -> %s", c.get("keep"), c.get("remove"), os.fspath(out))
    return result


def sweep(stores, out: PathLike, tau_max: int = 6, **options: Any):
    """Clusters for every threshold 0..=tau_max (the library's sweep job, into ``out``);
    returns ``sweep.tsv`` as a ``pyarrow.Table``. Options are ``neardup sweep``'s, by name
    (``pairs=``, ``verify="s3:0.82"``, ``tau128_max=``, ...)."""
    import pyarrow.csv as pacsv

    options, quiet, threads = _job_options(options)
    opts = {**options, "stores": _stores(stores), "output": os.fspath(out), "tau_max": tau_max}
    _neardup.sweep_job(_options_json(opts), quiet=quiet, threads=threads)
    return pacsv.read_csv(
        Path(out) / "sweep.tsv",
        parse_options=pacsv.ParseOptions(delimiter="\t"),
        convert_options=pacsv.ConvertOptions(null_values=["-"]),
    )
