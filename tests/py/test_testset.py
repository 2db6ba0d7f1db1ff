"""The labelled test set (scripts/make_testset.py) and the page metrics used to score OCR on it (wer, score_page).

Expected metric values are worked out by hand in the comments, not by calling the code under test.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PIL import Image

from ocr_metrics import assign_lines, point_in_convex, score_page, wer

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import make_testset  # noqa: E402

KINDS = {"english_prose", "english_two_column", "french", "german", "spanish", "chinese_english", "invoice",
         "dark_ui", "photo_page", "columns_two", "columns_three", "figure_note", "columns_two_rot90",
         "columns_two_rot180", "columns_two_rot270", "figure_note_skew_cw3", "columns_two_skew_ccw3"}


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


def test_gt_texts_are_the_source_lines(pages):
    for name, gt in pages.items():
        source = (make_testset.TEXTS / f"{make_testset.text_name(name)}.txt").read_text(encoding="utf-8").splitlines()
        cells = [cell for text in source if text.strip() for cell in text.split("\t")]
        assert [ln["text"] for ln in gt["lines"]] == cells, name


def test_rendering_is_byte_identical(pages, tmp_path):
    # The photo page exercises the most: perspective warp, blur, seeded noise and JPEG encoding.
    name = "photo_page"
    files = [make_testset.image_name(name), f"{name}.gt.json"]
    make_testset.render_page(name, tmp_path / "a")
    make_testset.render_page(name, tmp_path / "b")
    for f in files:
        first = (tmp_path / "a" / f).read_bytes()
        assert first == (tmp_path / "b" / f).read_bytes(), f
        assert first == (make_testset.OUT / f).read_bytes(), f
