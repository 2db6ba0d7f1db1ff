"""Idempotent: put the pinned test images and PDFs into tests/data/ (gitignored).

Source: the PyPI sdist ocrmypdf==17.13.0 (sha256-checked by fetch_pypi.fetch), folder tests/resources/.
Each extracted file is checked against its sha256 in the committed tests/data.sha256; a mismatch is refused.
"""
from __future__ import annotations

import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetch_pypi import fetch, sha256_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
PINS = ROOT / "tests" / "data.sha256"
SDIST = ("ocrmypdf==17.13.0", "ocrmypdf-17.13.0.tar.gz",
         "151c35d810eb628fbc5cb9bbe80b834ecf094737efa0e7a2e9e1fac3c730ed49")
MEMBER_DIR = "ocrmypdf-17.13.0/tests/resources/"


def read_pins() -> dict[str, str]:
    pins = {}
    for line in PINS.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            digest, name = line.split(maxsplit=1)
            pins[name.lstrip("*")] = digest
    return pins


def main() -> None:
    pins = read_pins()
    todo = {n: h for n, h in pins.items() if not ((DATA / n).exists() and sha256_file(DATA / n) == h)}
    if not todo:
        print(f"test data: all {len(pins)} files present and verified in {DATA.relative_to(ROOT)}")
        return
    sdist = fetch(*SDIST, sdist=True)
    DATA.mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist) as tf:
        for name, digest in todo.items():
            member = tf.extractfile(MEMBER_DIR + name)
            if member is None:
                raise SystemExit(f"test data: {name} is not a regular file in {sdist.name}")
            out = DATA / name
            tmp = out.with_suffix(out.suffix + ".part")
            tmp.write_bytes(member.read())
            got = sha256_file(tmp)
            if got != digest:
                tmp.unlink()
                raise SystemExit(f"test data: sha256 mismatch for {name}: got {got}, want {digest}; refused")
            tmp.replace(out)
            print(f"test data: {name} -> {out.relative_to(ROOT)} (sha256 ok)")


if __name__ == "__main__":
    main()
