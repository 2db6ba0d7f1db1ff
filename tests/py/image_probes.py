"""Issue 23's image probes, made at test time from Debian's DejaVu Sans (fonts-dejavu-core), with the text they
hold as ground truth; the native tests (test_probe_memory.py) and the browser's (tests/e2e/runtime/hostile.spec.js) read
the same files.

  python tests/py/image_probes.py gray16 OUT.png       -> a 100 MP 16-bit grey PNG of two lines; prints {"lines"}
  python tests/py/image_probes.py line OUT.png CHARS   -> one line of CHARS characters, 60 px high; prints {"text"}
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
GRAY16_LINES = ["Sixteen bit grey probe", "Total due 1250 EUR"]
WORDS = ["garden", "invoice", "total", "river", "market", "seven", "yellow", "table", "window", "paper", "2026",
         "1250", "EUR"]


def gray16_page(path, side: int = 10_000) -> list:
    """side x side 16-bit grey (mode I;16), two lines of 400 px type; returns the lines."""
    font = ImageFont.truetype(DEJAVU, 400)
    page = Image.new("L", (side, side), 235)
    draw = ImageDraw.Draw(page)
    for i, line in enumerate(GRAY16_LINES):
        draw.text((600, 3000 + 1200 * i), line, font=font, fill=20)
    # The 8-bit greys spread over the 16-bit range (x 257): ink 5140, paper 60395.
    Image.fromarray(np.asarray(page).astype(np.uint16) * 257).save(path)
    return GRAY16_LINES


def long_line(path, chars: int, seed: int = 5, poor: bool = False) -> str:
    """One line of `chars` characters (random words), 40 px type on a 60 px high white strip; returns the text.
    poor: as from a poor scan (blurred, grey on grey, noisy), so the recogniser doubts it and the default set's
    larger recogniser reads it again (its 18,710 classes make its output the largest)."""
    rng = random.Random(seed)
    text = ""
    while len(text) < chars:
        text += rng.choice(WORDS) + " "
    text = text[:chars].rstrip()
    font = ImageFont.truetype(DEJAVU, 40)
    im = Image.new("L", (int(font.getlength(text)) + 40, 60), 255)
    ImageDraw.Draw(im).text((20, 8), text, font=font, fill=0)
    if poor:
        from PIL import ImageFilter
        grey = np.asarray(im.filter(ImageFilter.GaussianBlur(1.6)), dtype=np.float32)
        grey = 150 + grey / 255.0 * 70 + np.random.default_rng(seed).normal(0, 18, grey.shape)
        im = Image.fromarray(np.clip(grey, 0, 255).astype(np.uint8))
    im.save(path)
    return text


if __name__ == "__main__":
    kind, out = sys.argv[1], sys.argv[2]
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    if kind == "gray16":
        print(json.dumps({"lines": gray16_page(out)}))
    else:
        print(json.dumps({"text": long_line(out, int(sys.argv[3]))}))
