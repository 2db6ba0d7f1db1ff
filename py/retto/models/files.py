"""Model bytes: integrity checks, custom model files, and the dictionary stored in a rec model's metadata.

Pure Python (no onnx package): the browser reads the same metadata from the same bytes."""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from retto.errors import MODEL_INTEGRITY, MODEL_MISSING, RettoError


def default_models_dir() -> Path:
    """Where the fetched model files live (one folder per set): $RETTO_MODELS_DIR; else, when retto runs from a
    source checkout (py/pyproject.toml next to this package), the repository's models/; else the user cache."""
    env = os.environ.get("RETTO_MODELS_DIR")
    if env:
        return Path(env).expanduser()
    package = Path(__file__).resolve().parents[1]   # py/retto (this file is py/retto/models/files.py)
    if (package.parent / "pyproject.toml").is_file():
        return package.parents[1] / "models"
    return user_cache_dir() / "models"


def user_cache_dir() -> Path:
    """The platform's per-user cache folder for retto (the rule platformdirs follows, without the dependency):
    %LOCALAPPDATA%\\retto\\Cache on Windows, ~/Library/Caches/retto on macOS, $XDG_CACHE_HOME/retto (an absolute
    path, else ~/.cache/retto) elsewhere."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "retto" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "retto"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "retto"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def verify(role: str, data: bytes, expected: str, name: str) -> None:
    got = sha256(data)
    if got != expected:
        raise RettoError(MODEL_INTEGRITY,
                         f"{role} model {name} is corrupt or not the expected file: sha256 {got[:16]}… "
                         f"differs from its model set file's {expected[:16]}…; delete it and run the setup step again")


def load_source(role: str, source) -> tuple:
    """A custom model given as a path or bytes (replacing one role of a model set). Returns (bytes, version)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        name = "<bytes>"
    else:
        path = Path(source)
        if not path.exists():
            raise RettoError(MODEL_MISSING, f"{role} model file {path} does not exist")
        data = path.read_bytes()
        name = str(path)
    if not data:
        raise RettoError(MODEL_INTEGRITY, f"{role} model {name} is empty")
    return data, f"custom {Path(name).name} sha256:{sha256(data)[:12]}"


# --- minimal protobuf reading: just enough of ModelProto to get metadata_props -------------------------------

def _varint(buf: memoryview, pos: int):
    shift = result = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _fields(buf: memoryview):
    """Yield (field_number, wire_type, value) of one message; length-delimited values are memoryview slices."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        num, wire = key >> 3, key & 7
        if wire == 0:
            val, pos = _varint(buf, pos)
        elif wire == 1:
            val, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            n, pos = _varint(buf, pos)
            val, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            val, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield num, wire, val


def read_metadata(model: bytes) -> dict:
    """The ONNX model's metadata_props (ModelProto field 14) as a dict."""
    out = {}
    try:
        for num, wire, val in _fields(memoryview(model)):
            if num == 14 and wire == 2:
                entry = {n: bytes(v).decode("utf-8") for n, w, v in _fields(val) if w == 2}
                out[entry.get(1, "")] = entry.get(2, "")
    except (IndexError, ValueError, UnicodeDecodeError) as exc:
        raise RettoError(MODEL_INTEGRITY, f"the model is not a readable ONNX file ({exc})") from exc
    return out


def read_charset(rec_model: bytes) -> list:
    """The recognition dictionary stored under the rec model's metadata key `character`, one entry per line."""
    meta = read_metadata(rec_model)
    if "character" not in meta:
        raise RettoError(MODEL_INTEGRITY, "the rec model carries no `character` dictionary in its metadata")
    return meta["character"].splitlines()
