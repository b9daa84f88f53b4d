import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def sample() -> Path:
    """The sample crawl shipped with the repository (100 pages with planted duplicates)."""
    return ROOT / "tests" / "data" / "sample"


@pytest.fixture(scope="session")
def crawl(tmp_path_factory) -> Path:
    """A synthetic crawl of 6 shards, made by neardup itself."""
    import neardup

    d = tmp_path_factory.mktemp("crawl") / "crawl"
    neardup.run(["synth-crawl", "--docs", "3000", "--shards", "6", "-o", str(d)])
    return d
