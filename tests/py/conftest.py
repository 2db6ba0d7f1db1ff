"""Shared fixtures: pinned test images, one native retto Session, one RapidOCR 1.4.4 engine (the reference).

The images are fetched (idempotently, sha256-pinned) by scripts/setup/fetch_test_data.py at session start.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from filelock import FileLock

import refkit
from refkit import DATA, ROOT, THREADS, load_rgb, run_ours, run_rapid

sys.path.insert(0, str(ROOT / "scripts" / "setup"))
import fetch_test_data  # noqa: E402


def pytest_sessionstart(session):
    fetch_test_data.main()


def pytest_sessionfinish(session):
    # Under pytest-xdist each worker process has its own REPORT_TABLES: hand them to the controller.
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["retto_report_tables"] = list(refkit.REPORT_TABLES)


def pytest_testnodedown(node, error):
    # Controller side of the hand-over above (xdist's hook; never called without xdist).
    refkit.REPORT_TABLES.extend(getattr(node, "workeroutput", {}).get("retto_report_tables", []))


def pytest_terminal_summary(terminalreporter):
    for table in refkit.REPORT_TABLES:
        terminalreporter.write_line("")
        for line in table.splitlines():
            terminalreporter.write_line(line)


# --------------------------------------------------------------------------------------------- images

@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def image_paths() -> dict[str, Path]:
    """name -> path, e.g. image_paths["baiona"], image_paths["baiona_cmyk.jpg"]."""
    pins = fetch_test_data.read_pins()
    paths = {name: DATA / name for name in pins}
    paths.update({Path(name).stem: DATA / name for name in pins if name.endswith(".png")})
    for p in paths.values():
        assert p.is_file(), f"{p} missing: run scripts/setup/fetch_test_data.py"
    return paths


# --------------------------------------------------------------------------------------------- engines

@pytest.fixture(scope="session")
def retto_worker():
    from retto.native.ort_worker import OrtWorker
    # The RapidOCR 1.4.4 reference set (PP-OCRv4), whatever the default set is; sha256-checked.
    return OrtWorker(device="cpu", threads=THREADS, models="ppocr-v4")


@pytest.fixture(scope="session")
def default_worker():
    """The default model set's worker, shared by the test files that read with it (each makes its own sessions,
    with its own config, from this one): its models are loaded, and warmed up, once per process, not per file."""
    from retto.native.ort_worker import OrtWorker
    return OrtWorker(threads=THREADS)


@pytest.fixture(scope="session")
def retto_session(retto_worker):
    from retto import Config, Session
    w = retto_worker
    return Session(w, charset=w.charset, config=Config(), backend=w.backend, versions=w.versions,
                   warnings=w.warnings, model_set=w.model_set.name)


@pytest.fixture(scope="session")
def rapid_engine():
    from rapidocr_onnxruntime import RapidOCR
    return RapidOCR(intra_op_num_threads=THREADS)


@pytest.fixture(scope="session")
def reference_runs(request, retto_session, image_paths, tmp_path_factory):
    """name -> {"ours": result dict, "rapid": [lines]} for the three reference images; each computed once per run.

    RapidOCR is fed the image converted to RGB by Pillow (it cannot read palette PNGs itself, docs/facts.md §4). Ours is
    given the file's bytes, the way the CLI and the browser call it, so our own decoding of the 1-bit palette
    PNGs is exercised too.

    Each half is computed on first use (a test that needs only "ours" never starts RapidOCR), and once per run even
    under pytest-xdist: the first worker to need it writes it as JSON beside the workers' temp folders, under a
    lock, and the others read it (linn alone is about 30 s of both engines on a 2-core machine).
    """
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if hasattr(request.config, "workerinput") else base
    cache: dict[tuple[str, str], object] = {}

    def compute(name: str, which: str):
        path = image_paths[name]
        if which == "ours":
            return run_ours(retto_session, path.read_bytes())
        return run_rapid(request.getfixturevalue("rapid_engine"), load_rgb(path))

    def half(name: str, which: str):
        if (name, which) not in cache:
            file = shared / f"reference-{name}-{which}.json"
            with FileLock(str(file) + ".lock"):
                if not file.exists():
                    file.write_text(json.dumps(compute(name, which)))
                cache[name, which] = json.loads(file.read_text())
        return cache[name, which]

    class Runs(Mapping):
        def __init__(self, name):
            self.name = name

        def __getitem__(self, which):
            if which not in ("ours", "rapid"):
                raise KeyError(which)
            return half(self.name, which)

        def __iter__(self):
            return iter(("ours", "rapid"))

        def __len__(self):
            return 2

    return Runs
