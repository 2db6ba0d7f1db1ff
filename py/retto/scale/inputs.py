"""The inputs of a batch: local paths (walked as the CLI walks them) or pyarrow filesystem URIs (file://, s3://,
gs://, hdfs://: whatever `pyarrow.fs.FileSystem.from_uri` opens), listed on the driver and read in the actors.

An item is a plain dict, cheap to ship to any node: `path` (the name rows carry: the CLI's for local inputs, the
URI for remote ones), `source` (the local path's exact bytes, or the URI), `remote`, and `rel` (the name relative
to the argument, which exports mirror). Reading happens in the actor that reads the input, so every failure to
read is that input's error row, never a failed task.
"""
from __future__ import annotations

import os
from pathlib import Path

from retto.errors import FILE_TOO_LARGE, INVALID_IMAGE, RettoError
from retto.io.image import read_image_file


def is_uri(arg: str) -> bool:
    return "://" in arg


def list_inputs(args) -> list[dict]:
    from retto.io.inputs import collect_inputs, path_fields
    items = []
    for arg in args:
        if is_uri(arg):
            items.extend(_list_uri(arg))
            continue
        for path, rel in collect_inputs([arg]):
            items.append({"path": path_fields(path)["path"], "source": os.fsencode(path), "remote": False,
                          "rel": os.fsdecode(rel).encode("utf-8", "backslashreplace").decode("utf-8")})
    return items


def _list_uri(uri: str) -> list[dict]:
    from pyarrow import fs as pafs

    from retto.io.inputs import INPUT_SUFFIXES
    filesystem, base = pafs.FileSystem.from_uri(uri)
    info = filesystem.get_file_info(base)
    if info.type != pafs.FileType.Directory:   # a file, or missing: its own row says what went wrong
        return [{"path": uri, "source": uri.encode(), "remote": True, "rel": Path(base).name}]
    found = filesystem.get_file_info(pafs.FileSelector(base, recursive=True))
    prefix = uri.rstrip("/") + "/"
    out = []
    for f in sorted(found, key=lambda f: f.path):
        if f.type == pafs.FileType.File and Path(f.path).suffix.lower() in INPUT_SUFFIXES:
            rel = f.path[len(base.rstrip("/")) + 1:]
            out.append({"path": prefix + rel, "source": (prefix + rel).encode(), "remote": True, "rel": rel})
    return out


def read_input(item: dict, max_bytes: int | None) -> bytes:
    """The input's bytes, or RettoError (invalid_image / file_too_large), bounded by max_bytes like the CLI."""
    if not item["remote"]:
        return read_image_file(os.fsdecode(item["source"]), max_bytes)
    from pyarrow import fs as pafs
    uri = item["source"].decode()
    try:
        filesystem, path = pafs.FileSystem.from_uri(uri)
        info = filesystem.get_file_info(path)
        if info.type != pafs.FileType.File:
            what = "not found" if info.type == pafs.FileType.NotFound else "not a file"
            raise RettoError(INVALID_IMAGE, f"cannot read {uri}: {what}")
        if max_bytes is not None and info.size is not None and info.size > max_bytes:
            raise RettoError(FILE_TOO_LARGE, f"{uri} is over {info.size / 1e6:.1f} MB; the limit is "
                                             f"{max_bytes / 1e6:.1f} MB (raise it with --max-file-bytes)")
        with filesystem.open_input_stream(path) as f:
            data = f.read() if max_bytes is None else f.read(max_bytes + 1)
    except RettoError:
        raise
    except Exception as exc:   # pyarrow raises OSError subclasses and ArrowInvalid for a bad URI
        raise RettoError(INVALID_IMAGE, f"cannot read {uri}: {exc}") from exc
    if max_bytes is not None and len(data) > max_bytes:
        raise RettoError(FILE_TOO_LARGE, f"{uri} grew over the {max_bytes / 1e6:.1f} MB limit while being read")
    return data
