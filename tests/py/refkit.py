"""Plain helpers shared by the tests (not fixtures): paths, image loading, running each engine, artefacts."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
REFERENCE = ROOT / "tests" / "reference"
ARTEFACTS = ROOT / "test-artefacts"
THREADS = 2          # this machine has 2 cores; results do not depend on it
REFERENCE_IMAGES = ("typewriter", "linn", "baiona")

# Filled by test_reference.py, printed by conftest at the end of the run (pytest captures prints inside tests).
REPORT_TABLES: list[str] = []


def load_rgb(path: Path) -> Image.Image:
    """What a user gets when converting the file to RGB with Pillow (docs/facts.md §5: RapidOCR is fed this)."""
    with Image.open(path) as im:
        return im.convert("RGB")


def run_rapid(engine, image: Image.Image) -> list[dict]:
    """RapidOCR 1.4.4 on an RGB PIL image -> [{"box", "text", "score"}] (boxes in source pixels).

    RapidOCR's LoadImage passes an ndarray through unchanged and treats it as BGR (cv2 order), so we hand it the
    RGB pixels reversed to BGR: exactly what it would make itself from a file or an RGB PIL image.
    """
    rgb = np.asarray(image.convert("RGB"))
    res, _elapse = engine(np.ascontiguousarray(rgb[:, :, ::-1]))
    return [{"box": [[float(x), float(y)] for x, y in box], "text": text, "score": float(score)}
            for box, text, score in (res or [])]


def run_ours(session, image) -> dict:
    """Our pipeline -> the result's JSON dict (the public shape)."""
    return session.run(image).to_dict()


def png_bytes(image: Image.Image, **save_args) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="PNG", **save_args)
    return buf.getvalue()


def write_artefact(name: str, data) -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTEFACTS / name
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return path


# The CLI in a fresh child that prints its own peak resident set (VmHWM, this process image only: ru_maxrss of
# the children would also count the forking parent's RSS at exec time) to stderr after it finishes.
_CLI_WITH_PEAK = """
import re, sys
from retto.cli import main
rc = main(sys.argv[1:])
hwm = int(re.search(r"VmHWM:\\s+(\\d+) kB", open("/proc/self/status").read()).group(1)) / 1024
sys.stderr.write(f"\\nPEAK_MB {hwm:.0f}\\n")
raise SystemExit(rc)
"""


def run_cli_peak(args: list, timeout: float = 600) -> tuple[subprocess.CompletedProcess, float]:
    """`python -m retto ARGS` in a fresh process -> (the finished process, its peak RSS in MB)."""
    proc = subprocess.run([sys.executable, "-c", _CLI_WITH_PEAK, *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)
    found = re.search(r"PEAK_MB (\d+)", proc.stderr)
    assert found, proc.stderr   # the child died before reporting (killed, crashed)
    return proc, float(found.group(1))
