"""Type stubs of the compiled part of the package."""

import os
from typing import Any, Callable, Optional, Sequence

import numpy as np
import numpy.typing as npt

__version__: str

class NeardupError(Exception):
    """An error neardup reported: bad arguments, unreadable inputs, outputs it will not
    replace."""

def run(args: Sequence[str]) -> bool:
    """Runs one neardup command line (without the program name) in this process; True when
    every input was read, False when some could not be; raises NeardupError on an error."""

def dedup_files(options: str, quiet: bool = False, threads: Optional[int] = None) -> tuple[bool, os.PathLike]:
    """The dedup job on crawls or stores; ``options`` is a JSON object of dedup's options by
    name (``inputs`` and ``output`` among them). Returns (every input read, summary.json)."""

def dedup_table(
    data: Any,
    options: str,
    quiet: bool = False,
    threads: Optional[int] = None,
    rescan: Optional[Callable[[], Any]] = None,
    rows: int = 0,
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64], npt.NDArray[np.float64], str]:
    """The dedup job on an Arrow stream (``__arrow_c_stream__``), held, or scanned again by
    ``rescan``: per row its cluster's row, its kept row, its removal's score (NaN where none),
    and the summary as JSON."""

def join_pairs(
    options: str, quiet: bool = False, threads: Optional[int] = None
) -> tuple[tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint8], npt.NDArray[np.uint8]], list[str]]:
    """The join job: the pairs (a, b, hamming64, hamming128) and every document's id."""

def verify_pairs(
    options: str, quiet: bool = False, threads: Optional[int] = None
) -> tuple[
    tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint8], npt.NDArray[np.uint8]],
    list[npt.NDArray[np.float64]],
    list[str],
]:
    """The verify job: the pairs, their s3, jaccard and containment, and every id."""

def fingerprint_job(options: str, quiet: bool = False, threads: Optional[int] = None) -> bool:
    """The fingerprint job; True when every input was read."""

def sweep_job(options: str, quiet: bool = False, threads: Optional[int] = None) -> None:
    """The sweep job, into its output directory."""

def named_job(job: str, options: str, quiet: bool = False, threads: Optional[int] = None) -> bool:
    """A TREC or reuse job run by name; True when every input was read."""

def reuse_top(options: str, threads: Optional[int] = None) -> list[tuple[int, int, bool, str, str]]:
    """The most repeated chunks: (count, sites, stop, hash, sample)."""

def vulkan_driver() -> tuple[Optional[tuple[str, str]], str]:
    """Writes NVIDIA's headless Vulkan manifest where the rule says so: the loader's variable
    to set and its new value (or None), and the rule's answer in words."""

def set_progress_interval(seconds: float) -> None:
    """How often fingerprinting logs how far it is on the ``neardup`` logger (default 5 s)."""

def shards(paths: Sequence[str | os.PathLike]) -> list[os.PathLike]:
    """The shard files under ``paths`` that neardup reads, in its order."""

class Store:
    """A fingerprint store, opened read-only: its columns are mapped, not read."""

    def __init__(self, path: str | os.PathLike) -> None: ...
    @property
    def path(self) -> os.PathLike: ...
    def __len__(self) -> int: ...
    def ids(self) -> list[str]:
        """Document ids, in store order."""
    def urls(self) -> list[str]:
        """URLs, in store order (empty where a document has none)."""
    def manifest_json(self) -> str:
        """The manifest, as JSON text."""
    def fingerprints(self) -> dict[str, npt.NDArray[np.uint64]]:
        """``simhash64`` (n,) and ``simhash128`` (n, 2: low, high) uint64 arrays viewing the
        mapped columns (read-only, no copy)."""
def explain(out: str, id: str, shard_dir: Optional[str] = None, other: Optional[str] = None) -> str: ...
def report(out: str, shard_dir: Optional[str] = None) -> str: ...
