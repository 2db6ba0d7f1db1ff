"""layout.tables "auto": the cheap test that decides which pages pay for the layout and table models
(retto.ops.table_check), on ground truth written for the project, then end to end with the default set.

Which labelled pages hold a table is written here from what each page is (scripts/data/make_testset.py draws
them), not from what the check answers."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ocr_metrics import levenshtein, normalise_ws
from retto.config import Config
from retto.errors import RettoError
from retto.ops.table_check import looks_like_table

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts" / "data"))
import make_tables  # noqa: E402
import make_testset  # noqa: E402

PAGES = make_testset.OUT
TABLES = make_tables.OUT

# Pages with a table: rows of short cells whose columns line up. The answer key is one too (two columns of
# "number, letter" pairs, read row by row as well as column by column).
WITH_TABLE = {"invoice", "hard_table_ruled", "hard_table_borderless", "hard_short_entries", "hard_dense_codes",
              "hard_parts_table", "hard_bank_statement"}
# Every other upright page has none: prose, two and three columns, a figure with notes, a screenshot, a form of
# labelled boxes, a filled-in form, a receipt (two entries a row), a chart, a scene, court and deposition
# transcripts.
TURNED = {"turned", "skewed"}   # their ground-truth boxes are on the page as drawn, not upright


def rect(quad) -> tuple:
    xs, ys = [p[0] for p in quad], [p[1] for p in quad]
    return min(xs), min(ys), max(xs), max(ys)


def upright_pages() -> list:
    names = [n for n, (kind, _lang, _layout) in make_testset.PAGES.items() if kind not in TURNED]
    assert WITH_TABLE <= set(names) and len(names) - len(WITH_TABLE) >= 15
    return names


@pytest.fixture(scope="module")
def testset():
    make_testset.main()
    make_tables.main([])


@pytest.mark.parametrize("name", upright_pages())
def test_the_check_on_each_pages_ground_truth_lines(testset, name):
    gt = json.loads((PAGES / f"{name}.gt.json").read_text(encoding="utf-8"))
    lines = [ln for ln in gt["lines"] if ln["text"].strip()]
    found = looks_like_table([rect(ln["box"]) for ln in lines], [ln["text"] for ln in lines])
    assert found == (name in WITH_TABLE), f"{name}: the check said {found}"


def test_tables_setting_values():
    assert Config.from_dict({"layout": {"tables": "auto"}}).layout.tables == "auto"
    assert Config.from_dict({"layout": {"tables": "off"}}).layout.tables is False
    assert Config.from_dict({"layout": {"tables": "on", "regions": True}}).layout.tables is True
    with pytest.raises(RettoError, match="needs layout.regions"):
        Config.from_dict({"layout": {"tables": "on"}})
    with pytest.raises(RettoError, match="'on', 'off' or 'auto'"):
        Config.from_dict({"layout": {"tables": "sometimes"}})


@pytest.fixture(scope="module")
def default_session():
    from retto.native.ort_worker import OrtWorker
    worker = OrtWorker()
    assert worker.model_set.make_config().layout.tables == "auto"   # the default set's own setting
    return worker.session()


@pytest.mark.parametrize("name", ["bank_statement", "numbers_dates", "spanning_sales"])
def test_default_settings_read_a_table_picture_row_by_row(testset, default_session, name):
    """The table pictures' ground truth is the table read row by row; with tables off, numbers_dates read
    column by column (62 % CER) and the bank statement 10.7 %."""
    gt = json.loads((TABLES / f"{name}.gt.json").read_text(encoding="utf-8"))
    result = default_session.run((TABLES / f"{name}.png").read_bytes())
    assert len(result.tables) == 1 and (result.tables[0]["rows"], result.tables[0]["cols"]) == (gt["rows"], gt["cols"])
    ref, hyp = normalise_ws(gt["copy"]), normalise_ws(result.text)
    assert levenshtein(hyp, ref) / len(ref) <= 0.08, hyp


def test_default_settings_read_the_labelled_bank_statement_row_by_row(testset, default_session):
    """The labelled statement: the layout model calls most of the page a table, and SLANet's grid for its 29 rows
    slips by a row (a date in one grid row, its amounts in the next), 19 % reading-order CER if read as cells.
    Such a grid is refused (regions._rows_agree) and the lines keep their own rows."""
    from ocr_metrics import score_page
    gt = json.loads((PAGES / "hard_bank_statement.gt.json").read_text(encoding="utf-8"))
    result = default_session.run((PAGES / gt["image"]).read_bytes())
    assert "layout" in result.timings["infer"]   # auto sent it through the layout model
    assert score_page(result.to_dict()["lines"], gt)["order_cer"] <= 0.08


@pytest.mark.parametrize("name", ["english_prose", "columns_three", "hard_receipt", "hard_form_scan"])
def test_default_settings_spend_nothing_on_pages_without_a_table(testset, default_session, name):
    gt = json.loads((PAGES / f"{name}.gt.json").read_text(encoding="utf-8"))
    result = default_session.run((PAGES / gt["image"]).read_bytes())
    assert len(result.lines) >= 5
    assert "layout" not in result.timings["infer"] and "table" not in result.timings["infer"]
    assert result.regions == [] and result.tables == []
