"""What a folder argument holds: the image and PDF files it is searched for, walked once each; how an input's
path is named in its record."""
from __future__ import annotations

import base64
import os
import sys
from pathlib import Path

from retto.io.image import display_path
from retto.records import visible

# The image file names a folder is searched for (and the browser's file picker and folder drop take: generated
# into web/src/generated/python_facts.json): Pillow's own suffixes for the formats io.image.SAFE_FORMATS decodes
# (PNG, JPEG, GIF, WebP, TIFF, BMP/DIB, PBM/PGM/PPM/PNM, ICO, TGA). A file is never decoded by its name: the
# suffix only chooses what to take from a folder.
IMAGE_SUFFIXES = frozenset({".png", ".apng", ".jpg", ".jpeg", ".jpe", ".jfif", ".gif", ".webp", ".tif", ".tiff",
                            ".bmp", ".dib", ".ppm", ".pgm", ".pbm", ".pnm", ".ico", ".tga"})
PDF_SUFFIXES = frozenset({".pdf"})
INPUT_SUFFIXES = IMAGE_SUFFIXES | PDF_SUFFIXES   # what a directory is searched for


def collect_inputs(paths) -> list:
    """(path, name relative to the argument) pairs: files as given; directories walked recursively for image
    and PDF suffixes, following symlinked folders (each real folder once, so a symlink loop neither hangs nor repeats).
    Missing paths and non-regular files are kept so they get their own error line instead of vanishing."""
    out = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found, seen = [], set()
            for folder, dirs, files in os.walk(path, followlinks=True, onerror=_unlistable):
                st = os.stat(folder)
                if (st.st_dev, st.st_ino) in seen:
                    dirs[:] = []
                    continue
                seen.add((st.st_dev, st.st_ino))
                # Real folders before symlinked ones, so a folder reached both ways is listed under its own name.
                dirs.sort(key=lambda d: (os.path.islink(os.path.join(folder, d)), d))
                found += [Path(folder, f) for f in files if Path(f).suffix.lower() in INPUT_SUFFIXES]
            out.extend((p, p.relative_to(path)) for p in sorted(found))
        else:
            out.append((path, Path(path.name)))
    return out


def _unlistable(exc: OSError) -> None:
    # A folder we cannot list holds results we cannot give: say so instead of skipping it silently.
    print(f"retto: warning: cannot list {visible(display_path(exc.filename))}: {exc.strerror or exc}",
          file=sys.stderr)


def path_fields(path: Path) -> dict:
    """`path` as readable text; a name that is not UTF-8 also gets its exact bytes in `path_bytes_b64`."""
    raw = os.fsencode(path)
    try:
        raw.decode("utf-8")
        return {"path": str(path)}
    except UnicodeDecodeError:
        return {"path": display_path(path), "path_bytes_b64": base64.b64encode(raw).decode("ascii")}
