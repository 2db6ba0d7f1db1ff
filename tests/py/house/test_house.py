"""The house rules hold on the real tree, and each rule catches a break planted in a copy of it."""
import shutil
from pathlib import Path

import pytest

import house_rules

REPO = Path(__file__).resolve().parents[3]
PY = REPO / "py"
WEB_SRC = REPO / "web" / "src"


def test_imports_point_down_with_no_cycles_and_packages_at_home():
    assert house_rules.violations(PY) == []


def test_the_client_never_imports_the_worker():
    assert house_rules.js_violations(WEB_SRC) == []


def test_every_module_is_in_a_layer():
    layers = {house_rules.layer_of(m) for m in house_rules.retto_modules(PY)}
    assert layers - {None} == set(house_rules.LAYERS)


@pytest.fixture
def tree(tmp_path):
    shutil.copytree(PY / "retto", tmp_path / "retto", ignore=shutil.ignore_patterns("__pycache__", "*.json"))
    return tmp_path


def plant(tree: Path, module: str, line: str) -> None:
    path = tree / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text(encoding="utf-8") + f"\n\ndef planted():\n    {line}\n", encoding="utf-8")


@pytest.mark.parametrize("module, line, said", [
    ("retto.ops.words", "from retto.native.read import ocr_data", "imports retto.native.read (native), a higher layer"),
    ("retto.io.image", "from retto.scale import progress", "imports retto.scale.progress (scale), a higher layer"),
    ("retto.records", "from retto import Session", "imports the package facade"),
    ("retto.export.text", "import onnxruntime", "onnxruntime belongs in retto/native/"),
    ("retto.pipeline.session", "import pyarrow", "pyarrow belongs in retto/scale/"),
    ("retto.native.read", "import pyodide", "pyodide belongs in retto/browser/"),
])
def test_a_broken_rule_is_caught_even_inside_a_function(tree, module, line, said):
    plant(tree, module, line)
    found = house_rules.violations(tree)
    assert len(found) == 1 and said in found[0], found


def test_a_cycle_within_a_layer_is_caught(tree):
    plant(tree, "retto.ops.geometry", "from retto.ops import det")   # det imports geometry
    assert [v for v in house_rules.violations(tree) if v.startswith("import cycle:")] == [
        "import cycle: retto.ops.det -> retto.ops.geometry -> retto.ops.det"]


def test_a_module_outside_the_layers_is_refused(tree):
    (tree / "retto" / "stray.py").write_text("x = 1\n")
    with pytest.raises(ValueError, match="retto.stray is in no layer"):
        house_rules.violations(tree)


def test_a_client_import_of_the_worker_is_caught(tmp_path):
    shutil.copytree(WEB_SRC / "client", tmp_path / "client")
    (tmp_path / "worker").mkdir()
    (tmp_path / "worker" / "errors.js").write_text("export const x = 1;\n")
    (tmp_path / "client" / "pool.js").write_text("import { x } from '../worker/errors.js';\n"
                                                 + (WEB_SRC / "client" / "pool.js").read_text())
    assert house_rules.js_violations(tmp_path) == ["client/pool.js:1: the client imports ../worker/errors.js from worker/"]
