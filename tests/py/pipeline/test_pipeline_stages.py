"""The pipeline as a list of stages, page orientation with the orientation model, restored word breaks,
transparent images and the re-reading stage: unit checks with hand-worked values, and the default set on the
labelled pages against their ground truth (scripts/data/make_testset.py)."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from ocr_metrics import score_page
from refkit import ROOT
from retto.ops import page_orientation
from retto.ops import words
from retto.io.image import paper_colour

sys.path.insert(0, str(ROOT / "scripts" / "data"))
import make_testset  # noqa: E402

PAGES = ROOT / "tests" / "testset" / "pages"
SANS = "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"


@pytest.fixture(scope="module")
def worker(default_worker):
    make_testset.main()                               # idempotent
    return default_worker                             # the default set (conftest's, shared)


@pytest.fixture(scope="module")
def default(worker):
    return worker.session()


def gt_of(name: str) -> dict:
    return json.loads((PAGES / f"{name}.gt.json").read_text(encoding="utf-8"))


def image_of(name: str) -> bytes:
    return (PAGES / gt_of(name)["image"]).read_bytes()


# --------------------------------------------------------------------------------------------- the stage list

def test_stage_list_follows_the_config(worker):
    assert worker.session().stage_names == ["det", "cls", "orientation", "stacks", "rec", "flip_check", "reread",
                                            "layout", "regions"]   # regions: tables "auto", on table pages only
    plain = worker.session({"layout": {"page_orientation": "off", "reading_order": "lines", "split_stacks": False,
                                       "tables": "off"},
                            "cls": {"verify": False}, "rec": {"reread_below": 0}})
    assert plain.stage_names == ["det", "cls", "rec"]


def test_every_stage_is_timed_and_reports_progress(default):
    events = []
    result = default.run(image_of("hard_receipt"), on_progress=lambda stage, info: events.append(stage))
    for name in default.stage_names:
        assert result.timings[name] >= 0.0, name
    seen = list(dict.fromkeys(events))
    # decode first, done last; det, line orientation, page orientation, rec and layout in between, in order
    assert seen[0] == "decode" and seen[-1] == "done"
    assert [s for s in seen if s in ("det", "cls", "orientation", "rec")] == ["det", "cls", "orientation", "rec"]


# --------------------------------------------------------------------------------------------- page orientation

@pytest.mark.parametrize("probs,lines_angle,expected", [
    ((0.9, 0.05, 0.03, 0.02), 90, (0, 0.9)),      # the model sees an upright page: the lines cannot turn it
    ((0.05, 0.9, 0.03, 0.02), 90, (90, 0.9)),     # both say 90
    ((0.05, 0.9, 0.03, 0.02), 270, (0, 0.05)),    # they disagree: kept as given
    ((0.3, 0.4, 0.2, 0.1), 90, (0, 0.3)),         # the model unsure (0.4 < 0.5): kept as given
    ((0.02, 0.03, 0.9, 0.05), 180, (180, 0.9)),
])
def test_page_angle_needs_the_model_and_the_lines_to_agree(probs, lines_angle, expected):
    angle, confidence = page_orientation.combine(page_orientation.model_angle(np.array(probs)), lines_angle)
    assert (angle, round(confidence, 6)) == expected


def test_page_angle_without_a_model_is_the_lines_angle():
    assert page_orientation.combine(None, 270) == (270, None)


def test_model_input_is_the_centre_of_the_page_scaled_to_256():
    # A 512 x 1024 (w x h) page whose middle third is black: scaled to 256 x 512, its centre 224 x 224 is
    # rows 144..368 of the scaled page; the black band is rows 150..362 there, so the crop's middle is black and
    # its first row (scaled row 144, page row 288) white.
    img = np.full((1024, 512, 3), 255, np.uint8)
    img[300:724] = 0
    x = page_orientation.model_input(img)
    assert x.shape == (1, 3, 224, 224) and x.dtype == np.float32
    black = (0 - 0.485) / 0.229                           # channel 0 takes the first ImageNet mean/std
    assert abs(x[0, 0, 112, 112] - black) < 1e-3
    white = (1 - 0.485) / 0.229
    assert abs(x[0, 0, 0, 0] - white) < 1e-3             # crop row 0 = page row 144 of 512 -> 288 of 1024: white


def test_upright_table_of_short_entries_keeps_angle_0(default):
    # Two columns of short entries that the tiny detector merges into tall boxes: the lines alone and the
    # orientation model both took it for a page turned 90 degrees; read both ways, it stays as given.
    result = default.run(image_of("hard_short_entries"))
    assert result.page_angle == 0
    assert result.page_angle_confidence is not None
    assert any(ln.text.replace(" ", "") == "ANSWERKEY-FORMB" for ln in result.lines)


@pytest.mark.parametrize("page", ["hard_court_filing", "hard_table_ruled", "hard_form_scan", "hard_chart",
                                  "english_prose", "invoice", "dark_ui"])
def test_upright_pages_keep_angle_0(default, page):
    assert default.run(image_of(page)).page_angle == 0


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_turned_table_page_is_found(default, turns):
    gt = gt_of("hard_table_ruled")
    upright = np.asarray(Image.open(PAGES / gt["image"]).convert("RGB"))
    result = default.run(np.ascontiguousarray(np.rot90(upright, -turns)))   # -k: clockwise
    assert result.page_angle == 90 * turns
    assert result.page_angle_confidence > 0.5


# --------------------------------------------------------------------------------------------- word breaks

def line_image(parts, gap_px, size=40, width=240):
    """A black-on-white line: `parts` drawn left to right with `gap_px` blank pixels between them."""
    f = ImageFont.truetype(SANS, size)
    img = Image.new("RGB", (width, size + 20), "white")
    d = ImageDraw.Draw(img)
    x, spans = 10, []
    for p in parts:
        box = d.textbbox((x, 10), p, font=f)
        d.text((x, 10), p, font=f, fill="black")
        spans.append((box[0], box[2]))
        x = box[2] + gap_px
    return np.asarray(img), spans


def steps_for(text_spans, labels, px_per_step):
    """One CTC step per character, at the middle of its part's span (enough for add_missing_spaces)."""
    steps = []
    for ch, (x0, x1) in text_spans:
        t = int(((x0 + x1) / 2) / px_per_step)
        steps.append((labels.index(ch), t, t, 0.9))
    return steps


LABELS = ["", "1", "3", "A", "B", "中", "文", " "]


def test_a_dropped_word_break_is_restored_from_the_ink():
    # "13" and "A" 30 px apart on a line whose ink is ~29 px high (Liberation Sans 40 px digits and capitals):
    # 30 / 29 > 0.4, so the gap is a space. Characters 4 px per step: the gap spans 7 blank steps.
    crop, (num, letter) = line_image(["13", "A"], 30)
    steps = steps_for([("1", (num[0], num[0] + 10)), ("3", (num[1] - 10, num[1])), ("A", letter)], LABELS, 4.0)
    out = words.add_missing_spaces(steps, LABELS, crop, 4.0, 0.4)
    assert "".join(LABELS[c] for c, *_ in out) == "13 A"


def test_letters_set_close_stay_one_word():
    # 3 px between "13" and "A": far below 0.4 of the ink height.
    crop, (num, letter) = line_image(["13", "A"], 3)
    steps = steps_for([("1", (num[0], num[0] + 10)), ("3", (num[1] - 10, num[1])), ("A", letter)], LABELS, 2.0)
    out = words.add_missing_spaces(steps, LABELS, crop, 2.0, 0.4)
    assert "".join(LABELS[c] for c, *_ in out) == "13A"


def test_letter_spaced_text_is_not_split_between_letters():
    # Every letter 22 px apart (wider than 0.4 x ink height), so no gap stands out from the line's usual one.
    crop, spans = line_image(["A", "B", "A", "B", "A"], 22)
    steps = steps_for(list(zip("ABABA", spans)), LABELS, 4.0)
    out = words.add_missing_spaces(steps, LABELS, crop, 4.0, 0.4)
    assert "".join(LABELS[c] for c, *_ in out) == "ABABA"


def test_no_space_is_put_between_chinese_characters():
    f = ImageFont.truetype("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 40)
    img = Image.new("RGB", (300, 60), "white")
    d = ImageDraw.Draw(img)
    d.text((10, 10), "中", font=f, fill="black")
    d.text((110, 10), "文", font=f, fill="black")
    steps = [(LABELS.index("中"), 7, 7, 0.9), (LABELS.index("文"), 32, 32, 0.9)]
    assert words.add_missing_spaces(steps, LABELS, np.asarray(img), 4.0, 0.4) == steps


def test_ink_is_the_side_of_the_contrast_away_from_the_paper():
    # 10 x 100 white paper with a 2 px dark bar (grey 20): 1st percentile 20, 99th 255, mid 137.5; the median
    # (paper) is above mid, so the dark pixels are the ink. Inverted (light text on dark), the light bar is.
    crop = np.full((10, 100, 3), 255, np.uint8)
    crop[4:6, 30:70] = 20
    want = np.zeros((10, 100), bool)
    want[4:6, 30:70] = True
    assert np.array_equal(words.ink_mask(crop), want)
    assert np.array_equal(words.ink_mask(255 - crop), want)
    assert np.array_equal(words.ink_mask(crop[..., 0]), want)     # a grey crop
    # Under 10 grey levels between the 1st and 99th percentiles: no contrast to tell ink from paper.
    assert words.ink_mask(np.full((10, 100, 3), 200, np.uint8) - (crop < 128) * np.uint8(5)) is None


def test_a_pixel_exactly_between_ink_and_paper_counts_as_paper():
    # Paper 200, ink 0, one pixel at 100 = (0 + 200) / 2 exactly: paper, on either polarity.
    crop = np.full((10, 100, 3), 200, np.uint8)
    crop[:, :5] = 0
    crop[0, 50] = 100
    mask = words.ink_mask(crop)
    assert mask[:, :5].all() and mask.sum() == 50
    assert words.ink_mask(200 - crop).sum() == 50


def test_the_longest_blank_run_inside_a_span_is_clipped_to_it():
    flags = np.array([0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1], bool)   # runs [1, 4), [6, 11), [12, 13)
    runs = words.blank_runs(flags)
    assert runs == ([1, 6, 12], [4, 11, 13])
    assert words.longest_run_within(runs, 0, 13) == 5
    assert words.longest_run_within(runs, 0, 8) == 3      # [6, 8) is only 2 of the long run
    assert words.longest_run_within(runs, 8, 13) == 3     # [8, 11)
    assert words.longest_run_within(runs, 4, 6) == 0
    assert words.blank_runs(np.zeros(5, bool)) == ([], [])


# --------------------------------------------------------------------------------------------- transparency

def test_paper_colour_contrasts_with_the_visible_content():
    rgba = np.zeros((40, 40, 4), np.uint8)
    rgba[10:20, 5:35] = (255, 255, 255, 255)                   # white text on a transparent background
    assert paper_colour(rgba) == (0, 0, 0, 255)
    rgba[10:20, 5:35] = (0, 0, 0, 255)                         # black text on a transparent background
    assert paper_colour(rgba) == (255, 255, 255, 255)
    rgba[0:40, 0:20] = (230, 230, 200, 255)                    # a light map area with black text in it (a
    rgba[12:14, 2:18] = (0, 0, 0, 255)                         # cut-out page): the ink is dark, so white paper
    assert paper_colour(rgba) == (255, 255, 255, 255)
    rgba[..., 3] = 255                                         # fully opaque: nothing to composite
    assert paper_colour(rgba) == (255, 255, 255, 255)


def test_white_text_on_a_transparent_png_is_read(default):
    gt = gt_of("hard_white_on_transparent")
    scores = score_page(default.run(image_of("hard_white_on_transparent")).to_dict()["lines"], gt)
    assert scores["cer"] < 0.05


# --------------------------------------------------------------------------------------------- re-reading

def test_rereading_does_not_lose_words_on_the_hard_pages(worker):
    # The cascade's larger recogniser reads the doubtful lines; measured against the ground truth, words right
    # with it are at least those without it on the hard pages where the small recogniser is weakest.
    on, off = worker.session(), worker.session({"rec": {"reread_below": 0}})
    right = {"on": 0, "off": 0}
    for page in ("hard_deposition", "hard_scan_binarised"):
        gt = gt_of(page)
        for key, session in (("on", on), ("off", off)):
            right[key] += score_page(session.run(image_of(page)).to_dict()["lines"], gt)["words_right"]
    assert right["on"] >= right["off"] + 5


def recogniser_inputs(worker, monkeypatch, png: bytes):
    """read(config) -> (texts, {"rec": [inputs], "reread": [inputs]}): the page read with every line re-read
    (threshold above any score), the recognisers' inputs watched on their way to onnxruntime."""
    seen = {"rec": [], "reread": []}
    real = worker.run

    def watched(role, x):
        if role in seen:
            seen[role].append(np.array(x))
        return real(role, x)

    monkeypatch.setattr(worker, "run", watched)

    def read(config):
        for inputs in seen.values():
            inputs.clear()
        session = worker.session({"rec": {"reread_below": 1.01, **config}, "cls": {"verify": False}})
        return [line["text"] for line in session.run(png).to_dict()["lines"]], seen
    return read


def png_of(img) -> bytes:
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def test_short_lines_are_padded_by_a_margin_not_to_320_px(worker, monkeypatch):
    # Both recognisers' time grows with the batch width, so the default set pads a short line to its own width
    # plus rec.margin blank columns, not to the reference's 320 px; rec.reread_min_width sets the larger one's
    # floor apart.
    img = Image.new("RGB", (320, 90), "white")
    ImageDraw.Draw(img).text((20, 20), "Oak 42", font=ImageFont.truetype(SANS, 40), fill="black")
    read_watched = recogniser_inputs(worker, monkeypatch, png_of(img))

    def read(config):
        texts, seen = read_watched(config)
        assert texts == ["Oak 42"]
        return {role: [x.shape[3] for x in inputs] for role, inputs in seen.items()}, seen

    widths, seen = read({})
    assert widths["rec"] and widths["reread"] and max(widths["rec"] + widths["reread"]) < 320
    for x in seen["rec"] + seen["reread"]:
        assert not x[..., -16:].any()          # the margin: the last 16 columns are padding (zeros)
        assert x[..., -24:-16].any()           # and the line's ink reaches up to it
    widths, _ = read({"reread_min_width": 320})
    assert min(widths["reread"]) >= 320 and max(widths["rec"]) < 320
    widths, _ = read({"min_width": 320, "margin": 0})   # the reference's rule
    assert min(widths["rec"] + widths["reread"]) >= 320


def test_rereading_reads_each_line_cut_to_its_ink_one_line_per_batch(worker, monkeypatch):
    # The default set's larger recogniser reads a doubtful line cut to its ink rows plus 0.3 of their height
    # (rec.reread_ink_margin): small print whose box has as much blank as ink above and below comes to it larger,
    # so wider at 48 px high than the first recogniser's input of the same line, and one line per batch
    # (rec.reread_batch_size 1). Without the cut both see the same crop. Every line is re-read here.
    img = Image.new("RGB", (420, 160), "white")
    draw = ImageDraw.Draw(img)
    small = ImageFont.truetype(SANS, 15)
    for k, text in enumerate(("48 23 C", "49 24 A-25 B", "50 25 D")):
        draw.text((30, 20 + 45 * k), text, font=small, fill="black")
    read_watched = recogniser_inputs(worker, monkeypatch, png_of(img))

    def read(config):
        texts, seen = read_watched(config)
        return texts, sum(x.shape[0] for x in seen["reread"]), [x.shape[0] for x in seen["reread"]], \
            sorted(x.shape[3] for x in seen["rec"]), sorted(x.shape[3] for x in seen["reread"])

    texts, lines, batches, rec_widths, reread_widths = read({})
    assert texts == ["48 23 C", "49 24 A-25 B", "50 25 D"]
    assert lines == 3 and batches == [1, 1, 1]
    assert max(rec_widths) < max(reread_widths)
    _texts, lines, batches, rec_widths, reread_widths = read({"reread_ink_margin": 0, "reread_batch_size": 0})
    assert lines == 3 and max(batches) > 1
    assert max(reread_widths) == max(rec_widths)


def test_the_doubtful_line_trigger_on_made_up_readings():
    # Six lines as the first recogniser might leave them: (text, score), word spans, letter/digit probabilities.
    # Expected by hand from the rules in stages/reread.py's docstring, for the default's thresholds (line < 0.95,
    # or < 0.97 with at least 2 letters or digits below 0.8) and for the old ones (line < 0.95 or a word < 0.85).
    from retto.config import RecConfig
    from retto.pipeline.stages.reread import doubtful
    texts = [("Tine", 0.90), ("hedge six", 0.96), ("the index", 0.96), ("fiIl a super", 0.975),
             ("“Well,”", 0.96), ("a table cell", 0.98)]
    spans = [[("Tine", 0, 1, 0.90)], [("hedge", 0, .5, 0.93), ("six", .5, 1, 0.99)],
             [("the", 0, .4, 0.99), ("index", .4, 1, 0.93)], [("fiIl", 0, .3, 0.9), ("a", .3, .4, .99),
                                                              ("super", .4, 1, .99)],
             [("“Well,”", 0, 1, 0.96)], [("a", 0, .1, 0.6), ("table", .1, .5, 1.0), ("cell", .5, 1, 1.0)]]
    letters = [[0.9] * 4, [0.99, 0.7, 0.75, 0.99, 0.99, 0.99, 0.99, 0.99],   # two unsure letters at 0.96
               [0.99, 0.99, 0.99, 0.7] + [0.99] * 4,                       # only one
               [0.5, 0.5, 0.5] + [0.99] * 6,                               # three, but the line is at 0.975
               [0.99] * 4,                                                 # unsure of its quote marks only
               [0.6] + [0.99] * 9]                                         # one weak one-letter word
    new = RecConfig(reread_below=0.95, reread_letter_below=0.8, reread_letters=2, reread_letters_line_below=0.97)
    old = RecConfig(reread_below=0.95, reread_word_below=0.85)
    assert doubtful(texts, spans, letters, new) == [0, 1]
    assert doubtful(texts, spans, letters, old) == [0, 5]
    one = RecConfig(reread_below=0.95, reread_letter_below=0.8, reread_letters=1, reread_letters_line_below=0.97)
    assert doubtful(texts, spans, letters, one) == [0, 1, 2]


def test_letter_scores_leave_out_spaces_and_punctuation():
    from retto.pipeline.stages.recognition import letter_scores
    labels = ["", "a", "1", "“", "é", " ", "字"]
    steps = [(1, 0, 0, 0.9), (5, 2, 3, 0.5), (3, 4, 4, 0.4), (2, 6, 6, 0.7), (4, 8, 9, 0.6), (6, 11, 11, 0.3)]
    assert letter_scores(steps, labels) == [0.9, 0.7, 0.6, 0.3]


def test_a_rereading_letter_count_below_one_is_a_config_error():
    from retto.config import Config
    from retto.errors import INVALID_CONFIG, RettoError
    with pytest.raises(RettoError) as err:
        Config.from_dict({"rec": {"reread_letters": 0}})
    assert err.value.code == INVALID_CONFIG and "reread_letters" in str(err.value)


@pytest.mark.parametrize("key", ["reread_min_width", "reread_batch_size", "reread_ink_margin"])
def test_a_negative_rereading_setting_is_a_config_error(key):
    from retto.config import Config
    from retto.errors import INVALID_CONFIG, RettoError
    with pytest.raises(RettoError) as err:
        Config.from_dict({"rec": {key: -1}})
    assert err.value.code == INVALID_CONFIG and key in str(err.value)


# --------------------------------------------------------------------------------------------- content box

def blank_page(w=1240, h=1754, colour=(255, 255, 255)):
    return Image.new("RGB", (w, h), colour)


def text_at(img, xy, text, size=28, fill="black"):
    """Draws text; returns its ink box (x0, y0, x1, y1) as Pillow measures it."""
    d = ImageDraw.Draw(img)
    f = ImageFont.truetype(SANS, size)
    d.text(xy, text, font=f, fill=fill)
    return d.textbbox(xy, text, font=f)


def inside(inner, outer, margin=0):
    return (outer[0] <= inner[0] - margin and outer[1] <= inner[1] - margin
            and inner[2] + margin <= outer[2] and inner[3] + margin <= outer[3])


def test_content_box_holds_the_text_with_a_margin_on_32_px_sides():
    from retto.ops.content_box import MARGIN, content_box
    img = blank_page()
    a = text_at(img, (150, 200), "Oak 42 and a longer line of text")
    b = text_at(img, (700, 520), "faint words", fill=(185, 185, 185))   # light grey on white still counts
    box = content_box(np.asarray(img))
    assert box is not None
    assert inside(a, box, MARGIN) and inside(b, box, MARGIN)
    x0, y0, x1, y1 = box
    assert (x1 - x0) % 32 == 0 and (y1 - y0) % 32 == 0
    assert (x1 - x0) * (y1 - y0) < 0.3 * img.width * img.height


def test_content_box_ignores_lone_specks_but_keeps_a_lone_digit():
    from retto.ops.content_box import content_box
    img = blank_page()
    text = text_at(img, (150, 200), "Some text near the top")
    px = img.load()
    rng = np.random.default_rng(0)
    for x, y in zip(rng.integers(0, img.width, 300), rng.integers(700, img.height, 300)):
        px[int(x), int(y)] = (0, 0, 0)            # scattered one-pixel scan noise below the text
    box = content_box(np.asarray(img))
    assert box is not None and inside(text, box) and box[3] < 700
    digit = text_at(img, (620, 560), "1")           # a lone page number is text
    box = content_box(np.asarray(img))
    assert box is not None and inside(digit, box) and inside(text, box)


def test_content_box_is_none_for_a_blank_or_full_page():
    from retto.ops.content_box import content_box
    assert content_box(np.asarray(blank_page())) is None
    full = blank_page(800, 600)
    text_at(full, (10, 10), "top left")
    text_at(full, (600, 560), "bottom right")
    assert content_box(np.asarray(full)) is None


def test_detection_on_the_content_box_finds_the_text_where_it_is(worker, monkeypatch):
    # Text in the lower right of an otherwise blank page: det sees only the content box (a fraction of the
    # page's pixels), and the line's box still lands on the drawn text in the page's own pixels.
    img = blank_page()
    drawn = text_at(img, (760, 1500), "Oak 42 Elm", size=40)
    png = io.BytesIO()
    img.save(png, "PNG")
    shapes = []
    real = worker.run

    def watched(role, x):
        if role == "det":
            shapes.append(x.shape)
        return real(role, x)

    monkeypatch.setattr(worker, "run", watched)
    result = worker.session({"det": {"content_crop": True}, "layout": {"page_orientation": "off"}}).run(png.getvalue())
    assert [ln.text for ln in result.lines] == ["Oak 42 Elm"]
    assert shapes and shapes[0][2] * shapes[0][3] < 0.15 * img.width * img.height
    box = np.asarray(result.lines[0].box)
    assert abs(box[:, 0].min() - drawn[0]) < 12 and abs(box[:, 0].max() - drawn[2]) < 12
    assert abs(box[:, 1].min() - drawn[1]) < 12 and abs(box[:, 1].max() - drawn[3]) < 12
