"""Model sets as data: the set files, their fetched files, choosing a set (CLI, Python), and what each set reads.

Accuracy is checked on the project's labelled pages (tests/testset, scripts/data/make_testset.py) against their exact
ground truth; the thresholds are the issue's acceptance figures, not numbers read off our own output.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import onnxruntime as ort
import pytest

from ocr_metrics import score_page
from refkit import ROOT, THREADS

from retto import RettoError

from retto.models import sets as model_sets
from retto.native.ort_worker import OrtWorker

CTC_SETS = [s.name for s in model_sets.available() if "rec" in s.files]   # the Tesseract sets read lines whole
PAGES = ROOT / "tests" / "testset" / "pages"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "retto", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def test_set_files_are_complete_and_one_is_default():
    sets = model_sets.available()
    assert len([s for s in sets if s.default]) == 1
    for s in sets:
        assert {"det", "cls"} <= set(s.files)
        if s.line_rec:   # a Tesseract set: no CTC rec, one traineddata per language it names
            assert "rec" not in s.files and s.line_rec["engine"] == "tesseract"
            assert set(s.traineddata_roles) <= set(s.files)
        else:
            assert "rec" in s.files
        # a set the browser cannot run says why (none today: the Tesseract sets run on the wasm engine too)
        assert s.browser_supported or s.browser.get("reason")
        assert s.label and s.summary and s.languages
        for f in s.files.values():
            assert f["from"] in s.sources and len(f["sha256"]) == 64 and f["size"] > 0
        assert s.webgl.get("supported") or s.webgl.get("reason"), f"{s.name}: say why WebGL cannot run it"


@pytest.mark.parametrize("name", CTC_SETS)
def test_dictionary_fits_the_rec_model(name):
    """The rec model's class count, asked of onnxruntime, is blank + dictionary + space."""
    s = model_sets.load(name)
    rec = model_sets.read_file(s, "rec")
    dictionary = model_sets.read_file(s, "dict") if "dict" in s.files else None
    chars = s.charset(rec, dictionary)
    sess = ort.InferenceSession(rec, providers=["CPUExecutionProvider"])
    classes = sess.run(None, {sess.get_inputs()[0].name: np.zeros((1, 3, 48, 96), np.float32)})[0].shape[-1]
    assert classes == len(chars) + 2
    assert all(c and "\r" not in c and "\n" not in c for c in chars)   # entries may be flags: 2 code points


def test_a_miscounted_dictionary_is_refused():
    s = model_sets.load("ppocr-v6-tiny")
    broken = model_sets.read_file(s, "dict").rstrip(b"\r\n").rsplit(b"\n", 1)[0]   # the last entry lost
    with pytest.raises(RettoError) as err:
        s.charset(b"", broken)
    assert err.value.code == "model_integrity"


def test_accented_latin_letters_are_in_the_newer_dictionaries():
    def chars(name):
        s = model_sets.load(name)
        return set(s.charset(model_sets.read_file(s, "rec"),
                             model_sets.read_file(s, "dict") if "dict" in s.files else None))
    letters = set("çêéèàâôûüöäëùßñÉÄÖÜ")
    assert letters <= chars("ppocr-v6-small") and letters <= chars("ppocr-v5-mobile")
    assert not set("çßñö") & chars("ppocr-v4")   # why v4 cannot read French, German or Spanish


def test_set_settings_override_the_reference_and_the_caller_overrides_the_set():
    v5 = model_sets.load("ppocr-v5-mobile")
    cfg = v5.make_config({"det": {"box_thresh": 0.6}})
    assert cfg.det.mean == (0.485, 0.456, 0.406) and cfg.det.box_thresh == 0.6 and cfg.det.thresh == 0.2
    assert model_sets.load("ppocr-v4").make_config().det.mean == (0.5, 0.5, 0.5)


def test_cli_lists_sets_in_words_and_prints_a_sets_config():
    proc = cli("--list-models")
    assert proc.returncode == 0
    for s in model_sets.available():
        assert s.name in proc.stdout and s.label in proc.stdout
    assert "(default)" in proc.stdout
    cfg = json.loads(cli("--models", "ppocr-v6-tiny", "--print-config").stdout)
    set_file = json.loads((ROOT / "py" / "retto" / "sets" / "ppocr-v6-tiny.json").read_text(encoding="utf-8"))
    assert cfg["det"]["box_thresh"] == set_file["config"]["det"]["box_thresh"] != 0.5   # the set's, not the reference
    bad = cli("--models", "klingon", "--images", str(PAGES / "dark_ui.png"))
    assert bad.returncode == 2 and "invalid_config" in bad.stderr and "ppocr-v5-mobile" in bad.stderr


@pytest.fixture(scope="module")
def page_results():
    """(set, page) -> result dict, each computed once per run."""
    workers, cache = {}, {}

    def get(name, page):
        if (name, page) not in cache:
            if name not in workers:
                workers[name] = OrtWorker(models=name, threads=THREADS).session()
            cache[(name, page)] = workers[name].run((PAGES / f"{page}.png").read_bytes()).to_dict()
        return cache[(name, page)]
    return get


def gt(page):
    return json.loads((PAGES / f"{page}.gt.json").read_text(encoding="utf-8"))


def test_default_set_reads_english_prose_with_its_spaces(page_results):
    name = model_sets.default_name()
    result = page_results(name, "english_prose")
    assert result["model_set"] == name
    score = score_page(result["lines"], gt("english_prose"))
    assert score["wer"] < 0.08, score


@pytest.mark.parametrize("page", ["french", "german", "spanish"])
def test_accented_latin_pages_read_under_3_percent_cer(page, page_results):
    score = score_page(page_results("ppocr-v6-small", page)["lines"], gt(page))
    assert score["cer"] < 0.03, score


def test_cli_models_flag_reads_with_that_set():
    proc = cli("--models", "ppocr-v6-tiny", "--images", str(PAGES / "dark_ui.png"), "--format", "json",
               "--no-progress")
    assert proc.returncode == 0, proc.stderr
    (record,) = json.loads(proc.stdout)
    assert record["model_set"] == "ppocr-v6-tiny" and "PP-OCRv6 tiny rec" in record["versions"]["rec"]
    assert score_page(record["lines"], gt("dark_ui"))["cer"] < 0.05
