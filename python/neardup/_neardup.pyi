"""Type stubs of the compiled part of the package."""

import os
from typing import Sequence

import numpy as np
import numpy.typing as npt

__version__: str

class NeardupError(Exception):
    """An error neardup reported: bad arguments, unreadable inputs, outputs it will not
    replace."""

def run(args: Sequence[str]) -> bool:
    """Runs one neardup command line (without the program name) in this process; True when
    every input was read, False when some could not be; raises NeardupError on an error."""

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
