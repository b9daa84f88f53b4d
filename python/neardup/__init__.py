"""neardup: near-duplicate detection for web crawls, from Python.

Every function runs neardup's own commands in this process (no subprocess), with the GIL
released while they work; keyword options are the command line's, by name (``min_terms=10``
is ``--min-terms 10``, ``no_verify=True`` is ``--no-verify``, a list is comma-separated).
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
import tempfile
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from ._neardup import NeardupError, Store, __version__, run as _run, set_progress_interval

__all__ = [
    "NeardupError",
    "Store",
    "DedupResult",
    "fingerprint",
    "join",
    "dedup",
    "sweep",
    "run",
    "set_progress_interval",
    "__version__",
]

log = logging.getLogger("neardup")

PathLike = Union[str, os.PathLike]


def _flags(options: Mapping[str, Any]) -> list[str]:
    """Keyword options as command-line flags."""
    out: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            out += [flag, ",".join(str(v) for v in value)]
        else:
            out += [flag, str(value)]
    return out


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


def _command(name: str, positional: Iterable[PathLike], options: dict[str, Any]) -> bool:
    threads = options.pop("threads", None)
    quiet = options.pop("quiet", False)
    args = [name, *(os.fspath(p) if isinstance(p, (str, os.PathLike)) else str(p) for p in positional)]
    args += _flags(options)
    log.debug("neardup %s", " ".join(args))
    clean = run(args, threads=threads, quiet=quiet)
    if not clean:
        log.warning("neardup %s: some inputs could not be read (see the outputs)", name)
    return clean


def fingerprint(paths: Iterable[PathLike] | PathLike, out: PathLike, **options: Any) -> Store:
    """Fingerprints crawl shards (files or directories) into the store ``out``.

    Options are ``neardup fingerprint``'s: ``minhash=True``, ``chunks=True``, ``force=True``,
    ``id_field="id"``, ``text_field="text"``, ``min_terms=10``, ``threads=4``, ...
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    options = dict(options)
    _command("fingerprint", [*paths, "-o", out], options)
    store = Store(os.fspath(out))
    log.info("fingerprinted %d documents into %s", len(store), os.fspath(out))
    return store


def _stores(stores: Iterable[Union[Store, PathLike]] | Store | PathLike) -> list[str]:
    if isinstance(stores, (Store, str, os.PathLike)):
        stores = [stores]
    return [os.fspath(s.path) if isinstance(s, Store) else os.fspath(s) for s in stores]


def join(stores, tau: int = 3, verify: bool = False, measure: str = "s3", min: float = 0.82, **options: Any):
    """All pairs of documents within Hamming distance ``tau`` as a ``pyarrow.Table``:
    ``id_a``, ``id_b`` (strings), ``hamming64``, ``hamming128`` (int64); with ``verify=True``,
    each pair also compared on its text (``neardup verify``): ``score`` (the ``measure``, s3 by
    default) and ``near_duplicate`` (score at least ``min``).

    Options are ``neardup join``'s (``tau128=``, ``method=``, ``backend=``, ``threads=``, ...),
    or ``neardup verify``'s with ``verify=True`` (``shingle=``, ``shard_dir=``, ...).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    types = {"id_a": pa.string(), "id_b": pa.string(), "hamming64": pa.int64(), "hamming128": pa.int64()}
    with tempfile.TemporaryDirectory(prefix="neardup-join-") as tmp:
        out = Path(tmp) / "pairs.tsv"
        if verify:
            options = {"measure": measure, "min": min, **options}
            _command("verify", [*_stores(stores), "--tau", tau, "-o", out], dict(options))
            types.update({"s3": pa.float64(), "jaccard": pa.float64(), "containment": pa.float64()})
        else:
            _command("join", [*_stores(stores), "--tau", tau, "-o", out], dict(options))
        t = pacsv.read_csv(
            out,
            parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False),
            convert_options=pacsv.ConvertOptions(column_types=types),
        )
    t = _tsv_ids(t, ["id_a", "id_b"])
    if not verify:
        return t
    keep = ["id_a", "id_b", "hamming64", "hamming128"]
    return t.select(keep).append_column("score", t.column(measure)).append_column(
        "near_duplicate", pc.equal(t.column("near_duplicate"), 1)
    )


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


def _tsv_ids(table, columns):
    """``table`` with the id ``columns`` read back from their TSV escaping."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for name in columns:
        col = table.column(name)
        if pc.any(pc.match_substring(col, "\\")).as_py():
            fixed = pa.array([_tsv_value(v) for v in col.to_pylist()], pa.string())
            table = table.set_column(table.schema.get_field_index(name), name, fixed)
    return table


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

    def table(self, name: str):
        """A table of the run (``clusters``, ``keep``, ``remove``, ``excluded``, ``sweep``,
        ``pairs``) as a ``pyarrow.Table``."""
        import pyarrow.parquet as pq

        return pq.read_table(self.dir / f"{name}.parquet")

    def __repr__(self) -> str:
        return f"DedupResult({os.fspath(self.dir)!r})"


def dedup(inputs, out: PathLike, **options: Any) -> DedupResult:
    """The main job: crawls (or stores) in, clusters and keep/remove lists out, with the tables
    also as Parquet. Options are ``neardup dedup``'s (``tau=``, ``no_verify=True``,
    ``write_corpus="parquet"``, ``against=[...]``, ...)."""
    options = dict(options)
    tables = options.pop("tables", ["parquet"])
    if isinstance(tables, str):
        tables = [tables]
    if "parquet" not in tables:
        tables = [*tables, "parquet"]
    positional = _stores(inputs)
    _command("dedup", [*positional, "-o", out], {**options, "tables": tables})
    result = DedupResult(out)
    c = result.summary.get("clusters") or {}
    log.info("dedup: %s kept, %s removed -> %s", c.get("keep"), c.get("remove"), os.fspath(out))
    return result


def sweep(stores, out: PathLike, tau_max: int = 6, **options: Any):
    """Clusters for every threshold 0..=tau_max; returns ``sweep.tsv`` as a ``pyarrow.Table``.
    Options are ``neardup sweep``'s (``pairs=``, ``verify="s3:0.82"``, ...)."""
    import pyarrow.csv as pacsv

    _command("sweep", [*_stores(stores), "-o", out, "--tau-max", tau_max], dict(options))
    return pacsv.read_csv(
        Path(out) / "sweep.tsv",
        parse_options=pacsv.ParseOptions(delimiter="\t"),
        convert_options=pacsv.ConvertOptions(null_values=["-"]),
    )
