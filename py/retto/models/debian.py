"""Files out of Debian packages: a .deb downloaded from the Debian archive's pool, pinned by its sha256, and one
member of its data archive read in memory (no dpkg needed).

A .deb is an `ar` archive whose members are `debian-binary`, `control.tar.*` and `data.tar.*`; the installed files
are in the data tarball (xz in bookworm's tesseract-lang packages; gz and plain tar are read too). Pure Python."""
from __future__ import annotations

import hashlib
import io
import os
import tarfile
import urllib.request
from pathlib import Path

from retto.errors import MODEL_INTEGRITY, MODEL_MISSING, RettoError

DEFAULT_ARCHIVE = "https://deb.debian.org/debian"   # $RETTO_DEBIAN_MIRROR points elsewhere (a mirror, a file:// copy)
AR_MAGIC = b"!<arch>\n"


def ar_members(data: bytes) -> dict:
    """name -> bytes of every member of an ar archive (the common format: 60-byte headers, 2-byte alignment)."""
    if not data.startswith(AR_MAGIC):
        raise RettoError(MODEL_INTEGRITY, "not a Debian package (no ar archive header)")
    out, pos = {}, len(AR_MAGIC)
    while pos + 60 <= len(data):
        header = data[pos:pos + 60]
        name = header[:16].decode("ascii").strip().rstrip("/")
        size = int(header[48:58].decode("ascii").strip())
        start = pos + 60
        out[name] = data[start:start + size]
        pos = start + size + (size & 1)
    return out


def member(deb: bytes, path: str) -> bytes:
    """The bytes of the installed file `path` (e.g. usr/share/tesseract-ocr/5/tessdata/rus.traineddata)."""
    members = ar_members(deb)
    data_name = next((n for n in members if n.startswith("data.tar")), None)
    if data_name is None:
        raise RettoError(MODEL_INTEGRITY, "the Debian package has no data archive")
    with tarfile.open(fileobj=io.BytesIO(members[data_name]), mode="r:*") as tar:
        for info in tar.getmembers():
            if info.name.lstrip("./") == path.lstrip("/") and info.isfile():
                return tar.extractfile(info).read()
    raise RettoError(MODEL_MISSING, f"{path} is not in the Debian package")


def download(source: dict, folder: Path) -> Path:
    """A verified copy of the source's .deb in `folder` (reused when present): {package, version, file, pool,
    sha256} as the set file gives it, fetched from <archive>/<pool><file>."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / source["file"]
    if path.exists() and hashlib.sha256(path.read_bytes()).hexdigest() == source["sha256"]:
        return path
    archive = os.environ.get("RETTO_DEBIAN_MIRROR", DEFAULT_ARCHIVE).rstrip("/")
    url = f"{archive}/{source['pool'].strip('/')}/{source['file']}"
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            data = response.read()
    except OSError as exc:
        raise RettoError(MODEL_MISSING, f"could not download {url}: {exc}") from exc
    got = hashlib.sha256(data).hexdigest()
    if got != source["sha256"]:
        raise RettoError(MODEL_INTEGRITY, f"{source['file']} has sha256 {got}, its set file pins "
                                          f"{source['sha256']}; refused it.")
    part = path.with_name(path.name + ".part")
    part.write_bytes(data)
    os.replace(part, path)
    return path
