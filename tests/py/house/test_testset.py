"""The labelled test set (scripts/data/make_testset.py) and the page metrics used to score OCR on it (wer, score_page).

Expected metric values are worked out by hand in the comments, not by calling the code under test.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from PIL import Image

from ocr_metrics import (assign_lines, convex_intersection_area, match_words, point_in_convex, polygon_area,
                         score_page, wer)

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts" / "data"))
import make_testset  # noqa: E402

KINDS = {"english_prose", "english_two_column", "french", "german", "spanish", "chinese_english", "invoice",
         "dark_ui", "photo_page", "columns_two", "columns_three", "figure_note", "columns_two_rot90",
         "columns_two_rot180", "columns_two_rot270", "figure_note_skew_cw3", "columns_two_skew_ccw3",
         # the hard pages (issue 18): scans, tables, a form, a receipt, a chart, quotes, transparency, a scene
         "hard_court_filing", "hard_deposition", "hard_table_ruled", "hard_table_borderless", "hard_short_entries",
         "hard_form_scan", "hard_receipt", "hard_scan_prose", "hard_scan_binarised", "hard_quotes", "hard_chart",
         "hard_white_on_transparent", "hard_scene",
         # issue 33: the kinds that failed on real documents
         "hard_dense_codes", "hard_parts_table", "hard_bank_statement", "hard_filled_form"}


def rect(x0, y0, x1, y1):
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def line(text, box, **extra):
    return {"text": text, "box": box, **extra}


# --------------------------------------------------------------------------------------------- wer

@pytest.mark.parametrize("hyp,ref,expected", [
    ("that I thought", "that I thought", 0.0),
    ("thatIthought", "that I thought", 3 / 3),        # 1 substitution + 2 deletions
    ("that Ithought", "that I thought", 2 / 3),       # "Ithought" for "I": 1 sub, "thought" deleted: 1
    ("teh cat", "the cat", 1 / 2),
    ("the cat sat", "the cat sat down", 1 / 4),       # one deletion
    ("the  cat\nsat", "the cat sat", 0.0),            # any whitespace separates words
    ("", "a b", 2 / 2),
])
def test_wer_hand_cases(hyp, ref, expected):
    assert wer(hyp, ref) == pytest.approx(expected)


# --------------------------------------------------------------------------------------------- score_page

def test_point_in_rotated_quad():
    diamond = [[5, -5], [15, 5], [5, 15], [-5, 5]]
    assert point_in_convex((5, 5), diamond) and point_in_convex((5, 5), diamond[::-1])
    assert not point_in_convex((13, 13), diamond)     # inside the bounding box, outside the diamond


def test_score_page_errors_insertions_deletions():
    gt = {"lines": [line("the cat", rect(0, 0, 100, 20), row=0),
                    line("sat down", rect(0, 30, 100, 50), row=1),
                    line("on the mat", rect(0, 60, 100, 80), row=2)]}
    pred = [line("cat", rect(50, 0, 100, 20)),        # split line, listed right part first
            line("the", rect(0, 0, 45, 20)),
            line("sit down", rect(0, 30, 100, 50)),   # 1 char, 1 word wrong
            line("xy", rect(300, 300, 320, 320))]     # outside every line: inserted
    s = score_page(pred, gt)
    # refs: 7 + 8 + 10 = 25 chars, 2 + 2 + 3 = 7 words.
    # char edits: 0 ("the cat") + 1 (i/a) + 2 (inserted "xy") + 10 (line 3 missed) = 13
    # word edits: 0 + 1 + 1 + 3 = 5
    assert (s["chars"], s["words"]) == (25, 7)
    assert s["cer"] == pytest.approx(13 / 25)
    assert s["wer"] == pytest.approx(5 / 7)


def test_score_page_run_together_words():
    gt = {"lines": [line("that I thought", rect(0, 0, 200, 20))]}
    s = score_page([line("thatIthought", rect(2, 1, 190, 19))], gt)
    assert s["cer"] == pytest.approx(2 / 14)          # two missing spaces out of 14 characters
    assert s["wer"] == pytest.approx(3 / 3)


def test_score_page_two_columns_order_does_not_decide_cer():
    # Left column "a", "c"; right column "b", "d". GT reading order: a c b d.
    gt = {"lines": [line("a", rect(0, 0, 40, 20), row=0), line("c", rect(0, 30, 40, 50), row=1),
                    line("b", rect(100, 0, 140, 20), row=2), line("d", rect(100, 30, 140, 50), row=3)]}
    across = [line("a", rect(1, 1, 39, 19)), line("b", rect(101, 1, 139, 19)),
              line("c", rect(1, 31, 39, 49)), line("d", rect(101, 31, 139, 49))]
    s = score_page(across, gt)
    assert s["cer"] == 0.0 and s["wer"] == 0.0
    # "a b c d" vs "a c b d": c<->b swapped = 2 substitutions (7 characters; LCS 5, so no cheaper alignment).
    assert s["order_cer"] == pytest.approx(2 / 7)
    assert score_page([across[i] for i in (0, 2, 1, 3)], gt)["order_cer"] == 0.0


def test_score_page_cells_of_one_row_merge_freely():
    gt = {"lines": [line("Total", rect(0, 0, 50, 10), row=0), line("£5.00", rect(200, 0, 250, 10), row=0)]}
    merged = [line("Total £5.00", rect(0, 0, 250, 10))]           # centre (125, 5) lies between the cells
    assert assign_lines(merged, gt["lines"]) in ([0], [1])
    assert score_page(merged, gt)["cer"] == 0.0
    assert score_page([], gt)["cer"] == 1.0                        # all 11 characters deleted


# --------------------------------------------------------------------------------------------- word boxes

def word(text, box):
    return {"text": text, "box": box}


def test_match_words_text_and_place():
    gt = [word("THE", rect(0, 0, 40, 20)), word("NORTHERN", rect(50, 0, 170, 20)), word("13", rect(0, 40, 20, 60))]
    # Exact boxes: all 3 right.
    assert match_words([word("THE", rect(0, 0, 40, 20)), word("NORTHERN", rect(50, 0, 170, 20)),
                        word("13", rect(0, 40, 20, 60))], gt) == 3
    # Run together: "THENORTHERN" is neither word; "13" read right but in the row below (no overlap): 0.
    assert match_words([word("THENORTHERN", rect(0, 0, 170, 20)), word("13", rect(0, 70, 20, 90))], gt) == 0
    # Case counts: "the" is not "THE"; one predicted word serves one GT word only.
    assert match_words([word("the", rect(0, 0, 40, 20))], gt) == 0
    assert match_words([word("THE", rect(0, 0, 40, 20))], [gt[0], gt[0]]) == 1


def test_match_words_iou_threshold():
    gt = [word("cat", rect(0, 0, 100, 20))]
    # Shifted right by 30: overlap 70x20 = 1400, union 2000 + 2000 - 1400 = 2600, IoU 0.538 >= 0.5: right.
    assert match_words([word("cat", rect(30, 0, 130, 20))], gt) == 1
    # Shifted by 40: overlap 1200, union 2800, IoU 0.43 < 0.5; but the predicted centre (90, 10) lies inside the
    # GT box (x 0..100) and the GT centre (50, 10) inside the predicted box (x 40..140): counted.
    assert match_words([word("cat", rect(40, 0, 140, 20))], gt) == 1
    # Shifted by 60: IoU 800 / 3200 = 0.25, and the predicted centre (110, 10) lies outside the GT box: wrong place.
    assert match_words([word("cat", rect(60, 0, 160, 20))], gt) == 0


def test_match_words_short_word_with_detector_margin():
    # "400" ink box 30x14; a detector box with a 7 px margin on each side: 44x28. IoU = 420 / 1232 = 0.34,
    # but each centre (15, 7) lies inside the other box: counted.
    gt = [word("400", rect(0, 0, 30, 14))]
    assert match_words([word("400", rect(-7, -7, 37, 21))], gt) == 1


def test_score_page_reports_word_accuracy():
    gt = {"lines": [line("ACTION NO. 4", rect(0, 0, 200, 20), row=0,
                         words=[word("ACTION", rect(0, 0, 100, 20)), word("NO.", rect(110, 0, 150, 20)),
                                word("4", rect(160, 0, 200, 20))])]}
    pred = [line("ACTIONNO. 4", rect(0, 0, 200, 20),
                 words=[word("ACTIONNO.", rect(0, 0, 150, 20)), word("4", rect(160, 0, 200, 20))])]
    s = score_page(pred, gt)
    assert (s["gt_words"], s["words_right"]) == (3, 1)              # only "4" is right
    assert s["word_acc"] == pytest.approx(1 / 3)
    assert s["wer"] == pytest.approx(2 / 3)                          # 1 substitution + 1 deletion of 3


# --------------------------------------------------------------------------------------------- generator

@pytest.fixture(scope="module")
def pages() -> dict[str, dict]:
    make_testset.main()                               # idempotent: skips rendering when the stamp matches
    return {n: json.loads((make_testset.OUT / f"{n}.gt.json").read_text(encoding="utf-8"))
            for n in make_testset.PAGES}


def test_every_page_exists(pages):
    assert set(pages) == KINDS
    for name, gt in pages.items():
        assert gt["name"] == name and gt["image"] == make_testset.image_name(name)
        with Image.open(make_testset.OUT / gt["image"]) as im:
            assert im.size == (gt["width"], gt["height"])
        assert gt["lines"]


def test_boxes_inside_images(pages):
    for gt in pages.values():
        for ln in gt["lines"]:
            xs, ys = [p[0] for p in ln["box"]], [p[1] for p in ln["box"]]
            assert 0 <= min(xs) < max(xs) <= gt["width"], ln
            assert 0 <= min(ys) < max(ys) <= gt["height"], ln


def test_word_boxes(pages):
    """Every line carries its words: the line's text split at spaces, each word box a proper quad on the page that
    overlaps its line's (ink) box by at least half the smaller of the two (a word box spans the font's ascender to
    descender, so it can be taller than the ink of "-"), and the words in reading order along the line."""
    for name, gt in pages.items():
        for ln in gt["lines"]:
            assert [w["text"] for w in ln["words"]] == ln["text"].split(), (name, ln["text"])
            for w in ln["words"]:
                xs, ys = [p[0] for p in w["box"]], [p[1] for p in w["box"]]
                assert 0 <= min(xs) < max(xs) <= gt["width"] and 0 <= min(ys) < max(ys) <= gt["height"], (name, w)
                smaller = min(abs(polygon_area(w["box"])), abs(polygon_area(ln["box"])))
                assert convex_intersection_area(w["box"], ln["box"]) >= smaller / 2, (name, ln["text"], w)
            # along the line's direction (its first edge), each word starts after the one before
            (x0, y0), (x1, y1) = ln["box"][0], ln["box"][1]
            along = [(w["box"][0][0] - x0) * (x1 - x0) + (w["box"][0][1] - y0) * (y1 - y0) for w in ln["words"]]
            assert along == sorted(along), (name, ln["text"])


def test_hard_pages(pages):
    hard = {n for n, gt in pages.items() if gt.get("hard")}
    assert hard == {n for n in KINDS if n.startswith("hard_")}
    assert len(hard) >= 10
    # The chart's y-axis title is drawn turned 90 degrees counter-clockwise and says so: its text runs upwards
    # (first edge from the bottom-left corner of the text to its top-left), and it is the only turned line.
    turned = [ln for ln in pages["hard_chart"]["lines"] if ln.get("angle")]
    assert [(ln["text"], ln["angle"]) for ln in turned] == [("Thousand cubic metres", 90)]
    (x0, y0), (x1, y1) = turned[0]["box"][:2]
    assert abs(x1 - x0) < 1 and y0 - y1 > 100
    # The short-entries page is upright and portrait: every line box is wider than tall or a one-letter cell.
    gt = pages["hard_short_entries"]
    assert gt["height"] > gt["width"] and len(gt["lines"]) == 1 + 2 * 60


def test_white_on_transparent_page(pages):
    """Every pixel is white, the background fully transparent, the text opaque (read by the default set:
    test_pipeline_stages.py), so no longer a known failure."""
    gt = pages["hard_white_on_transparent"]
    assert "known_failure" not in gt
    with Image.open(make_testset.OUT / gt["image"]) as im:
        assert im.mode == "RGBA"
        rgb, alpha = im.convert("RGB"), im.getchannel("A")
        assert rgb.getextrema() == ((255, 255), (255, 255), (255, 255))
        assert alpha.getextrema() == (0, 255)
        assert alpha.getpixel((2, 2)) == 0
        (l, t), _, (r, b), _ = gt["lines"][0]["box"]
        assert max(alpha.crop((l, t, r, b)).getdata()) == 255


def test_gt_texts_are_the_source_lines(pages):
    for name, gt in pages.items():
        source = (make_testset.TEXTS / f"{make_testset.text_name(name)}.txt").read_text(encoding="utf-8").splitlines()
        cells = [cell for text in source if text.strip() for cell in text.split("\t") if cell]   # blank cells: none
        assert [ln["text"] for ln in gt["lines"]] == cells, name


def test_issue_33_pages(pages):
    """The kinds that failed on real documents (issue 33), each its own kind for scripts/bench/models.py."""
    kinds = {n: pages[n]["kind"] for n in ("hard_dense_codes", "hard_parts_table", "hard_bank_statement",
                                            "hard_filled_form")}
    assert kinds == {"hard_dense_codes": "dense_codes", "hard_parts_table": "parts_table",
                     "hard_bank_statement": "bank_statement", "hard_filled_form": "filled_form"}

    def left(ln):
        return min(p[0] for p in ln["box"])

    def top(ln):
        return min(p[1] for p in ln["box"])

    # Dense codes: two columns, each a header and row numbers counting on from 1 beside a position ("13 A": a
    # number, one space, a letter) and a part number; every number sits within 12 px of its position.
    gt = pages["hard_dense_codes"]
    numbers = [ln for ln in gt["lines"] if ln["text"].isdigit()]
    assert [int(ln["text"]) for ln in numbers] == list(range(1, len(numbers) + 1)) and len(numbers) >= 120
    by_row = {}
    for ln in gt["lines"]:
        by_row.setdefault(ln["row"], []).append(ln)
    for ln in numbers:
        number, position, part = by_row[ln["row"]]
        assert re.fullmatch(r"\d+ [A-D](-\d+ [A-D])?", position["text"]), position["text"]
        assert 0 < left(position) - max(p[0] for p in number["box"]) < 12
    # The bank statement reads row by row, each row left to right: a row's cells share its "row" and go left to
    # right; the next row starts lower down. A transaction has a debit or a credit (the other cell is blank).
    gt = pages["hard_bank_statement"]
    table = [ln for ln in gt["lines"] if ln["block"] == 2]
    for a, b in zip(table, table[1:]):
        assert (a["row"] == b["row"] and left(a) < left(b)) or (b["row"] > a["row"] and top(b) > top(a) + 10)
    rows = [[ln["text"] for ln in table if ln["row"] == r] for r in dict.fromkeys(ln["row"] for ln in table)]
    assert rows[0] == ["Date", "Description", "Debit", "Credit", "Balance"] and 15 <= len(rows) - 2 <= 20
    assert all(len(r) == 4 for r in rows[2:-1])
    # The filled form is a skewed scan: its line boxes are turned, not upright rectangles.
    (x0, y0), (x1, y1) = pages["hard_filled_form"]["lines"][0]["box"][:2]
    assert abs(y1 - y0) > 2


@pytest.mark.parametrize("name", ["photo_page", "hard_form_scan"])
def test_rendering_is_byte_identical(pages, tmp_path, name):
    # The photo page: perspective warp, blur, seeded noise and JPEG encoding; the form scan: skew, contrast,
    # noise, dust and an in-memory JPEG round trip.
    files = [make_testset.image_name(name), f"{name}.gt.json"]
    make_testset.render_page(name, tmp_path / "a")
    make_testset.render_page(name, tmp_path / "b")
    for f in files:
        first = (tmp_path / "a" / f).read_bytes()
        assert first == (tmp_path / "b" / f).read_bytes(), f
        assert first == (make_testset.OUT / f).read_bytes(), f
