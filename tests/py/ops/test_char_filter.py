"""rec.allow / rec.block: a field rendered here with known text, read with the reference set (ppocr-v4)."""
from __future__ import annotations

import re

import pytest
from PIL import Image, ImageDraw, ImageFont

from refkit import png_bytes, run_ours

from retto import RettoError
from retto.ops.char_filter import class_mask

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FIELD = "Ref: AB 40517"      # the ground truth: letters, a colon and a number


@pytest.fixture(scope="module")
def field_png() -> bytes:
    img = Image.new("RGB", (640, 140), "white")
    ImageDraw.Draw(img).text((20, 30), FIELD, fill="black", font=ImageFont.truetype(FONT, 40))
    return png_bytes(img)


def texts(worker, image: bytes, overrides=None) -> str:
    return " ".join(ln["text"] for ln in run_ours(worker.session(overrides), image)["lines"])


def test_the_field_reads_in_full_without_a_filter(retto_worker, field_png):
    assert texts(retto_worker, field_png).replace(" ", "") == FIELD.replace(" ", "")


def test_digits_only_field_reads_only_its_digits(retto_worker, field_png):
    got = texts(retto_worker, field_png, {"rec": {"allow": "digits"}})
    assert re.fullmatch(r"[0-9 ]+", got), got
    assert got.replace(" ", "").endswith("40517")


def test_blocked_characters_never_appear(retto_worker, field_png):
    got = texts(retto_worker, field_png, {"rec": {"block": ["digits", ":"]}})
    assert got and not re.search(r"[0-9:]", got), got
    assert "AB" in got.replace(" ", "")
    literal = texts(retto_worker, field_png, {"rec": {"allow": "ABRef"}})   # literal characters, not a class
    assert set(literal) <= set("ABRef ") and "AB" in literal


def test_masks_and_bad_values():
    labels = ["", "a", "1", "Ä", "中", ":", " "]
    assert class_mask(labels, "", "") is None
    assert class_mask(labels, "digits", "").tolist() == [1, 0, 1, 0, 0, 0, 1]    # blank and space stay
    assert class_mask(labels, ["latin", ":"], "").tolist() == [1, 1, 0, 1, 0, 1, 1]
    assert class_mask(labels, "", ["han", "space"]).tolist() == [1, 1, 1, 1, 0, 1, 0]
    with pytest.raises(RettoError) as err:
        class_mask(labels, "digits", "digits")
    assert err.value.code == "invalid_config"
    from retto.config import Config
    with pytest.raises(RettoError) as err:
        Config.from_dict({"rec": {"allow": 5}})
    assert err.value.code == "invalid_config" and "rec.allow" in err.value.message


def test_cli_allow_flag(field_png, tmp_path):
    import json
    import subprocess
    import sys
    from refkit import ROOT
    path = tmp_path / "field.png"
    path.write_bytes(field_png)
    proc = subprocess.run([sys.executable, "-m", "retto", "--inputs", str(path), "--models", "ppocr-v4",
                           "--allow", "digits", "--no-progress", "--threads", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = " ".join(ln["text"] for ln in json.loads(proc.stdout)[0]["lines"])
    assert re.fullmatch(r"[0-9 ]+", got) and got.replace(" ", "").endswith("40517"), got
