"""The facts the browser's JavaScript shares with Python come from Python: the JS modules, run in Node over the
generated web/src/generated/python_facts.json (retto.browser.facts), give Python's answers; the one fact JS keeps as
code (the WebGL rec time steps) is compared with Python's function over every width a bucket can have."""
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from retto.browser.buckets import REC_WIDTHS, rec_time_steps
from retto.browser.facts import js_facts
from retto.io.image import SAFE_FORMATS, decode
from retto.io.inputs import IMAGE_SUFFIXES, INPUT_SUFFIXES, PDF_SUFFIXES, collect_inputs
from retto.models.sets import LINE_ROLE, OPTIONAL_ROLES, ROLES, TRAINEDDATA_PREFIX, ModelSet

ROOT = Path(__file__).resolve().parents[3]
HOOKS = Path(__file__).with_name("node_facts_hooks.mjs")


@pytest.fixture(scope="module")
def facts_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("facts") / "python_facts.json"
    path.write_text(json.dumps(js_facts()))
    return path


def node(facts_file, script: str):
    """Run an ES module script in Node (cwd: the repository) over the generated facts; its stdout as JSON."""
    run = subprocess.run(["node", "--import", str(HOOKS), "--input-type=module", "-e", script], cwd=ROOT,
                         capture_output=True, text=True, timeout=60,
                         env={**os.environ, "RETTO_PYTHON_FACTS": str(facts_file)})
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_build_writes_js_facts(tmp_path, monkeypatch):
    """scripts/build/assemble_web_assets.py (setup_web.sh, build_npm_package.sh) writes exactly js_facts()."""
    monkeypatch.syspath_prepend(str(ROOT / "scripts" / "build"))
    import assemble_web_assets
    monkeypatch.setattr(assemble_web_assets, "PYTHON_FACTS", tmp_path / "python_facts.json")
    assemble_web_assets.write_python_facts()
    assert json.loads((tmp_path / "python_facts.json").read_text()) == json.loads(json.dumps(js_facts()))


def test_model_roles_are_pythons(facts_file):
    got = node(facts_file, "const b = await import('./web/src/worker/backends.js');"
                           "console.log(JSON.stringify([b.MODEL_NAMES, b.OPTIONAL_MODELS]));")
    assert got == [list(ROLES), list(OPTIONAL_ROLES)]
    line = node(facts_file, "const f = (await import('./web/src/generated/python_facts.json')).default;"
                            "console.log(JSON.stringify([f.line_role, f.traineddata_prefix]));")
    assert line == [LINE_ROLE, TRAINEDDATA_PREFIX]
    checked = []
    # and every onnx role a set file the browser runs names is one of them (besides its dictionaries); a Tesseract
    # set's line_rec is read from its traineddata files, which the worker finds by that prefix (line_reader.js)
    for path in sorted((ROOT / "py" / "retto" / "sets").glob("*.json")):
        model_set = ModelSet.from_dict(json.loads(path.read_text()))
        if not model_set.browser_supported:
            continue
        onnx = [r for r in model_set.model_roles if r != LINE_ROLE]
        assert set(onnx) == set(model_set.files) & (set(got[0]) | set(got[1])), path.name
        assert set(model_set.traineddata_roles) == {r for r in model_set.files if r.startswith(line[1])}, path.name
        checked.append(path.stem)
    assert {"ppocr-v4", "ppocr-v5-mobile", "ppocr-v6-small", "ppocr-v6-tiny", "cyrillic", "arabic"} <= set(checked)


def test_export_formats_are_pythons(facts_file):
    from retto.export import FORMATS, TABLE_FORMATS, format_table
    got = node(facts_file, "const f = (await import('./web/src/generated/python_facts.json')).default;"
                           "console.log(JSON.stringify(f.export_formats));")
    assert got == format_table() and set(got) == set(FORMATS) | set(TABLE_FORMATS)


@pytest.mark.parametrize("suffix", sorted(IMAGE_SUFFIXES))
def test_each_image_suffix_is_a_format_the_decoder_opens(suffix, tmp_path):
    """Pillow names the suffix's format, the decoder is allowed to open it, and a file written so decodes."""
    fmt = Image.registered_extensions().get(suffix)
    assert fmt in SAFE_FORMATS, (suffix, fmt)
    rgb = np.zeros((32, 32, 3), dtype=np.uint8)   # square: an icon keeps its size
    rgb[:, 16:] = 255
    path = tmp_path / f"probe{suffix}"
    Image.fromarray(rgb).save(path)
    out = decode(path.read_bytes())
    assert out.shape == (32, 32, 3)
    assert out[:, :8].mean() < 40 and out[:, 24:].mean() > 215


def test_every_decodable_format_has_a_suffix():
    named = {Image.registered_extensions()[s] for s in IMAGE_SUFFIXES}
    assert set(SAFE_FORMATS) <= named, sorted(set(SAFE_FORMATS) - named)
    assert PDF_SUFFIXES == {".pdf"} and INPUT_SUFFIXES == IMAGE_SUFFIXES | PDF_SUFFIXES


NAMES = ["a.png", "b.JPG", "c.jpeg", "d.jfif", "e.jpe", "f.webp", "g.gif", "h.bmp", "i.dib", "j.tif", "k.TIFF",
         "l.ppm", "m.pgm", "n.pbm", "o.pnm", "p.ico", "q.tga", "r.apng", "s.pdf", "t.PDF", "u.txt", "v.svg", "w.eps",
         "x.heic", "y.avif", "z.jp2", "aa.psd", "ab.png.txt", "ac.pdf.bak", "ad", ".png", "ae.jpg~", "af.icb",
         "ag.mpo", "ah.xcf", "ai.json"]


def test_the_cli_folder_search_and_the_page_take_the_same_files(facts_file, tmp_path):
    """`retto <folder>` (collect_inputs) and a folder picked or dropped on the page (filesFromInput: files from a
    folder are kept only when looksReadable) take the same names."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name in NAMES:
        (folder / name).write_bytes(b"x")
    cli = sorted(str(rel) for _, rel in collect_inputs([folder]))
    files = [{"name": n, "type": "", "webkitRelativePath": f"in/{n}"} for n in NAMES]
    page = node(facts_file, "const f = await import('./web/src/shared/input_files.js');"
                            f"const out = f.filesFromInput({{ files: {json.dumps(files)} }});"
                            "console.log(JSON.stringify(out.files.map((x) => x.file.name)));")
    assert sorted(page) == cli
    assert len(cli) == sum(1 for n in NAMES if Path(n).suffix.lower() in IMAGE_SUFFIXES | {".pdf"})


def test_the_file_pickers_accept_every_input_suffix(facts_file):
    accept = node(facts_file, "const f = await import('./web/src/shared/input_files.js');"
                              "console.log(JSON.stringify(f.FILE_ACCEPT));").split(",")
    assert {a for a in accept if a.startswith(".")} == INPUT_SUFFIXES
    assert {"image/*", "application/pdf"} <= set(accept)
    # both pickers use it: the page's "Choose files" and <retto-ocr>'s
    assert "$('pick-files').accept = FILE_ACCEPT" in (ROOT / "web" / "src" / "ui" / "app.js").read_text()
    assert "accept: FILE_ACCEPT" in (ROOT / "web" / "src" / "component" / "retto-ocr.js").read_text()


def test_rec_time_steps_match_python_over_every_bucket_width(facts_file):
    widths = list(range(1, max(REC_WIDTHS) * 2 + 1)) + [10_000, 65_537]
    got = node(facts_file, "const w = await import('./web/src/worker/webgl_sessions.js');"
                           f"console.log(JSON.stringify({json.dumps(widths)}.map(w.recTimeSteps)));")
    want = [rec_time_steps(w) for w in widths]
    assert got == want
    # and Python's is the model's own arithmetic (two stride-2 k3 pad-1 convs, then a 2-wide pool), spelled out
    conv = lambda n: (n + 2 * 1 - 3) // 2 + 1
    assert want == [max(conv(conv(w)) // 2, 1) for w in widths]
