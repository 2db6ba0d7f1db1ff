"""The README's model-set tables say what the set files say: every model of every set, its package, path and
sha256, and every package file's sha256 (the set files are the one source; the README must not drift)."""
import re
from pathlib import Path

from retto.models import sets as model_sets

README = Path(__file__).resolve().parents[3] / "README.md"
ROW = re.compile(r"^\| `?([\w.-]+|every set)`? \| (\w+) \| `([\w-]+)` ([\d.]+): `([^`]+)` \| `([0-9a-f]{64})` \|$")
PACKAGE_ROW = re.compile(r"^\| `([^`]+\.whl)` \| `([0-9a-f]{64})` \|$")


def readme_rows():
    lines = README.read_text(encoding="utf-8").splitlines()
    return ([m.groups() for m in map(ROW.match, lines) if m],
            {m.group(1): m.group(2) for m in map(PACKAGE_ROW.match, lines) if m})


def test_every_model_of_every_set_is_listed_as_its_set_file_says():
    rows, _ = readme_rows()
    listed = {}
    for set_name, role, package, version, path, sha in rows:
        names = [s.name for s in model_sets.available()] if set_name == "every set" else [set_name]
        for name in names:
            listed[(name, role)] = (package, version, path, sha)
    expected = {}
    for s in model_sets.available():
        for role, f in s.files.items():
            source = s.sources[f["from"]]
            expected[(s.name, role)] = (source["package"], source["version"], f["path"], f["sha256"])
    assert listed == expected


def test_every_package_file_is_listed_with_its_sha256():
    _, packages = readme_rows()
    expected = {src["file"]: src["sha256"] for s in model_sets.available() for src in s.sources.values()}
    assert packages == expected
