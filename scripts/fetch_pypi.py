"""Download one pinned file from PyPI with pip and check its sha256 (shared by the setup fetchers)."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

CACHE = Path(__file__).resolve().parent.parent / ".cache" / "pypi"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(requirement: str, filename: str, sha256: str, sdist: bool = False) -> Path:
    """Return a cached, verified copy of `filename` (the artefact pip downloads for `requirement`)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / filename
    if path.exists() and sha256_file(path) == sha256:
        return path
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(CACHE), requirement]
    cmd += ["--no-binary", ":all:"] if sdist else ["--only-binary", ":all:"]
    subprocess.run(cmd, check=True)
    got = sha256_file(path)
    if got != sha256:
        path.unlink()
        raise SystemExit(f"sha256 mismatch for {filename}: got {got}, want {sha256}; refusing it")
    return path
