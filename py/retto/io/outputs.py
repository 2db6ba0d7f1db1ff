"""Where results are written: the --output folder checked for real, and a file name per input that never
overwrites another's."""
from __future__ import annotations

import tempfile
from pathlib import Path

from retto.io.image import display_path


def check_output_dir(out_dir: Path) -> str | None:
    """Why results cannot be written into out_dir (None: they can). Tried for real, with a file created and
    removed, because permission bits say nothing for root or a read-only mount."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out_dir):
            pass
    except FileExistsError:
        return f"--output {display_path(out_dir)} exists and is not a directory"
    except OSError as exc:
        return f"cannot write into --output {display_path(out_dir)}: {exc.strerror or exc}"
    return None


def output_path(out_dir: Path, rel: Path, ext: str, taken: set) -> Path:
    """Mirror the input's relative path and keep its suffix (a/x.png -> a/x.png.json), so that x.png and x.jpg,
    or two folders' x.png, never overwrite each other."""
    target = out_dir / rel.parent / f"{rel.name}.{ext}"
    n = 2
    while target in taken:
        target = out_dir / rel.parent / f"{rel.name}.{n}.{ext}"
        n += 1
    taken.add(target)
    return target
