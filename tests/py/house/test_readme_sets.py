"""The README's model-set tables say what the set files say: every model of every set, its package, path and
sha256, and every package file's sha256 (the set files are the one source; the README must not drift)."""
import re
from pathlib import Path

from retto.models import sets as model_sets

README = Path(__file__).resolve().parents[3] / "README.md"
ROW = re.compile(r"^\| `?([\w.-]+|every PaddleOCR set|every Tesseract set)`? \| (\w+) \| `([\w-]+)` ([\w.:~+-]+): "
                 r"`([^`]+)` \| `([0-9a-f]{64})` \|$")
PACKAGE_ROW = re.compile(r"^\| `([^`]+\.(?:whl|deb))` \| `([0-9a-f]{64})` \|$")


def sets_meant(name: str) -> list:
    """The sets a row names: one, or every set of a kind (those read by a CTC recogniser, or by Tesseract)."""
    if name == "every PaddleOCR set":
        return [s.name for s in model_sets.available() if not s.line_rec]
    if name == "every Tesseract set":
        return [s.name for s in model_sets.available() if s.line_rec]
    return [name]


def readme_rows():
    lines = README.read_text(encoding="utf-8").splitlines()
    return ([m.groups() for m in map(ROW.match, lines) if m],
            {m.group(1): m.group(2) for m in map(PACKAGE_ROW.match, lines) if m})


def test_every_model_of_every_set_is_listed_as_its_set_file_says():
    rows, _ = readme_rows()
    listed = {}
    for set_name, role, package, version, path, sha in rows:
        for name in sets_meant(set_name):
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
