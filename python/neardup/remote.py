"""Stores and results on object storage (S3, GCS, Azure, HDFS, ...), through fsspec.

A location is a local path or a URL (``s3://bucket/prefix``, ``gs://...``, ``file:///...``);
``storage_options`` go to fsspec (credentials, ``client_kwargs={"endpoint_url": ...}`` for MinIO
and other S3 services). The backend of a scheme is fsspec's: ``pip install s3fs`` for
``s3://``, ``gcsfs`` for ``gs://``, ``adlfs`` for ``az://``.

neardup reads stores as mapped local files, so a store on object storage is uploaded from, and
downloaded to, a local directory. An uploaded store is complete when its ``manifest.json`` is
there: it is uploaded last, after every column, so a task that dies mid-upload leaves a store
that :func:`download` refuses, and its retry replaces it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

__all__ = ["is_url", "join", "upload_store", "upload_dir", "download"]


def is_url(location: os.PathLike | str) -> bool:
    """Whether ``location`` names object storage (``scheme://...``) rather than a local path."""
    return "://" in os.fspath(location)


def join(location: os.PathLike | str, *parts: str) -> str:
    """``location`` and ``parts`` joined with ``/`` (a URL) or as a local path."""
    if is_url(location):
        return "/".join([os.fspath(location).rstrip("/"), *parts])
    return os.path.join(location, *parts)


def _fs(url: str, storage_options: Optional[dict]):
    try:
        import fsspec
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise ImportError(
            f"{url}: object storage needs fsspec (pip install 'neardup[remote]', and s3fs, "
            "gcsfs or adlfs for the scheme)"
        ) from e
    return fsspec.core.url_to_fs(url, **(storage_options or {}))


def _files(local: Path) -> list[Path]:
    return sorted(p for p in local.rglob("*") if p.is_file())


def upload_dir(
    local: os.PathLike | str,
    url: str,
    storage_options: Optional[dict] = None,
    last: Optional[str] = None,
) -> str:
    """Copies the files under ``local`` to ``url``, ``last`` (a file name) after all the
    others. What is at ``url`` already is replaced when it is only files of the same names
    (an earlier upload, whole or cut short); anything else raises FileExistsError. Returns
    ``url``."""
    fs, root = _fs(url, storage_options)
    local = Path(local)
    files = _files(local)
    if fs.exists(root):
        # Replaced only when everything there is a file this upload writes (an earlier run's,
        # or what a killed attempt left): anything else is not neardup's to delete.
        ours = {p.relative_to(local).as_posix() for p in files}
        prefix = root.rstrip("/") + "/"
        there = [f[len(prefix):] if f.startswith(prefix) else f for f in fs.find(root)]
        foreign = sorted(set(there) - ours)
        if foreign:
            raise FileExistsError(
                f"{url}: holds files neardup would not write there ({', '.join(foreign[:3])}); "
                "give an empty location"
            )
        fs.rm(root, recursive=True)
    files.sort(key=lambda p: p.name == last)
    made = set()
    for p in files:
        dest = root + "/" + p.relative_to(local).as_posix()
        parent = dest.rsplit("/", 1)[0]
        if parent not in made:
            # Directories exist on filesystems only; on object stores this does nothing.
            fs.makedirs(parent, exist_ok=True)
            made.add(parent)
        fs.put_file(os.fspath(p), dest)
    return url


def upload_store(local: os.PathLike | str, url: str, storage_options: Optional[dict] = None) -> str:
    """Uploads the store ``local`` to ``url``, its manifest last (so it is whole once the
    manifest is there). Returns ``url``."""
    if not (Path(local) / "manifest.json").is_file():
        raise FileNotFoundError(f"{local}: not a store (no manifest.json)")
    return upload_dir(local, url, storage_options, last="manifest.json")


def download(url: str, local: os.PathLike | str, storage_options: Optional[dict] = None, store: bool = True) -> Path:
    """Copies what is under ``url`` into the directory ``local`` (made if missing) and returns
    it. With ``store`` (the default), ``url`` must be a whole store: one whose upload ended."""
    fs, root = _fs(url, storage_options)
    if store and not fs.exists(root + "/manifest.json"):
        raise FileNotFoundError(f"{url}: not a whole store (no manifest.json: an upload that did not finish?)")
    local = Path(local)
    local.mkdir(parents=True, exist_ok=True)
    prefix = root.rstrip("/") + "/"
    for f in sorted(fs.find(root)):
        rel = f[len(prefix):] if f.startswith(prefix) else os.path.basename(f)
        dest = local / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        fs.get_file(f, os.fspath(dest))
    return local
