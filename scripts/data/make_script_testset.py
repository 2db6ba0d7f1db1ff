"""Idempotent: render the labelled pages of the Tesseract script sets into tests/testset/script_pages/ (gitignored).

Texts: tests/testset/script_texts/<set>.txt, UTF-8, short sentences written for this project, one line of the
page per line; blank lines separate blocks, so a block of several lines is a paragraph and a block of one is a
single line. Each set's page is drawn in a Debian Noto font for its script (fonts-noto-core, and fonts-noto-cjk for
Hangul), right-aligned and shaped right to left for Hebrew and Arabic (Pillow's raqm layout), in three variants:
`clean` (black on white), `degraded` (low contrast, blurred, with noise, as a poor scan gives) and `photo` (the
page with a paper margin, photographed as make_testset.py's photo page is: keystone and tilt, uneven warm light,
blur and sensor noise; the ground-truth boxes follow the warp).

Per page: <set>_<variant>.png and <set>_<variant>.gt.json: {"set", "variant", "lines": [{"text", "direction",
"block", "box": quad, "words": [{"text", "box": quad}]}]}. A word's box runs from the pen position before it to
the one after it (the advance of the text up to it, measured with the same layout), by the line's ink band.
A stamp (sha256 of this script and make_testset.py, the texts, the fonts and the Pillow version) skips rendering when
nothing changed.
Usage: make_script_testset.py [--force]
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import PIL
from PIL import Image, ImageDraw, ImageFilter, ImageFont, features

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_testset  # noqa: E402  (its photograph(): one camera model for every labelled page)

ROOT = Path(__file__).resolve().parents[2]
TEXTS = ROOT / "tests" / "testset" / "script_texts"
OUT = ROOT / "tests" / "testset" / "script_pages"
STAMP = OUT / ".stamp"

NOTO = Path("/usr/share/fonts/truetype/noto")
# set -> (font file, face index in a collection, writing direction). Debian packages: fonts-noto-core, and
# fonts-noto-cjk for Korean (face 1 of the collection is Noto Sans CJK KR).
FONTS = {
    "cyrillic": (NOTO / "NotoSans-Regular.ttf", 0, "ltr"),
    "greek": (NOTO / "NotoSans-Regular.ttf", 0, "ltr"),
    "arabic": (NOTO / "NotoNaskhArabic-Regular.ttf", 0, "rtl"),
    "hebrew": (NOTO / "NotoSansHebrew-Regular.ttf", 0, "rtl"),
    "devanagari": (NOTO / "NotoSansDevanagari-Regular.ttf", 0, "ltr"),
    "bengali": (NOTO / "NotoSansBengali-Regular.ttf", 0, "ltr"),
    "gurmukhi": (NOTO / "NotoSansGurmukhi-Regular.ttf", 0, "ltr"),
    "gujarati": (NOTO / "NotoSansGujarati-Regular.ttf", 0, "ltr"),
    "tamil": (NOTO / "NotoSansTamil-Regular.ttf", 0, "ltr"),
    "telugu": (NOTO / "NotoSansTelugu-Regular.ttf", 0, "ltr"),
    "kannada": (NOTO / "NotoSansKannada-Regular.ttf", 0, "ltr"),
    "malayalam": (NOTO / "NotoSansMalayalam-Regular.ttf", 0, "ltr"),
    "thai": (NOTO / "NotoSansThai-Regular.ttf", 0, "ltr"),
    "korean": (Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"), 1, "ltr"),
    "georgian": (NOTO / "NotoSansGeorgian-Regular.ttf", 0, "ltr"),
    "armenian": (NOTO / "NotoSansArmenian-Regular.ttf", 0, "ltr"),
}
VARIANTS = ("clean", "degraded", "photo")
SIZE = 30            # font size in pixels
MARGIN = 40          # the page is as wide as its longest line and these margins: small pages keep the test fast
LINE_GAP = 1.6       # line pitch in font sizes
BLOCK_GAP = 1.0      # extra space between blocks, in font sizes
PHOTO_PAPER = 140    # the photo variant's paper margin, in pixels, on every side


def blocks(text: str) -> list:
    """The text's blocks, each a list of lines (blank lines separate them)."""
    out, current = [], []
    for line in text.splitlines():
        if line.strip():
            current.append(line.strip())
        elif current:
            out.append(current)
            current = []
    return out + ([current] if current else [])


def advance(font, text: str, direction: str) -> float:
    return font.getlength(text, direction=direction) if text else 0.0


def word_spans(line: str, font, direction: str) -> list:
    """(word, start, end) pen positions along the line, measured from its starting edge (left for ltr, right for
    rtl): the advance of the text before the word and of the text up to its end."""
    out, pos = [], 0
    for word in line.split(" "):
        if word:
            start = advance(font, line[:pos], direction)
            end = advance(font, line[:pos + len(word)], direction)
            out.append((word, start, end))
        pos += len(word) + 1
    return out


def quad(x0, y0, x1, y1) -> list:
    return [[round(x0, 1), round(y0, 1)], [round(x1, 1), round(y0, 1)], [round(x1, 1), round(y1, 1)],
            [round(x0, 1), round(y1, 1)]]


def render(name: str, text: str) -> tuple:
    """The clean page (L mode) and its ground truth lines."""
    path, index, direction = FONTS[name]
    font = ImageFont.truetype(str(path), SIZE, index=index, layout_engine=ImageFont.Layout.RAQM)
    groups = blocks(text)
    n_lines = sum(len(b) for b in groups)
    width = int(2 * MARGIN + max(font.getlength(line, direction=direction) for b in groups for line in b))
    height = int(2 * MARGIN + SIZE * (LINE_GAP * n_lines + BLOCK_GAP * (len(groups) - 1)))
    page = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(page)
    lines, y = [], float(MARGIN)
    for b, block in enumerate(groups):
        for line in block:
            # Each line is laid out on its own; a Latin line on a right-to-left page keeps its own direction.
            line_dir = direction if any(0x0590 <= ord(c) <= 0x08FF for c in line) else "ltr"   # Hebrew, Arabic
            anchor_x = width - MARGIN if line_dir == "rtl" else MARGIN
            draw.text((anchor_x, y), line, font=font, fill=0, anchor="ra" if line_dir == "rtl" else "la",
                      direction=line_dir)
            x0, y0, x1, y1 = draw.textbbox((anchor_x, y), line, font=font, anchor="ra" if line_dir == "rtl"
                                           else "la", direction=line_dir)
            words = []
            for word, start, end in word_spans(line, font, line_dir):
                wx0, wx1 = (anchor_x - end, anchor_x - start) if line_dir == "rtl" else (anchor_x + start,
                                                                                          anchor_x + end)
                words.append({"text": word, "box": quad(wx0, y0, wx1, y1)})
            lines.append({"text": line, "direction": line_dir, "block": b, "box": quad(x0, y0, x1, y1),
                          "words": words})
            y += SIZE * LINE_GAP
        y += SIZE * BLOCK_GAP
    return page, lines


def degrade(page: Image.Image, seed: int) -> Image.Image:
    """A poor scan: grey ink on grey paper (contrast cut to a third), a slight blur and sensor noise."""
    rng = np.random.default_rng(seed)
    low = 110 + np.asarray(page, dtype=np.float32) * (190 - 110) / 255.0
    blurred = np.asarray(Image.fromarray(low.astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.9)),
                         dtype=np.float32)
    noisy = blurred + rng.normal(0.0, 10.0, blurred.shape)
    return Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8))


def photo(page: Image.Image, lines: list, seed: int) -> tuple:
    """The page on a sheet with a paper margin (the camera's keystone would otherwise pull the text to the
    picture's edge), photographed; returns the RGB picture and its lines with their boxes where the warp put them."""
    pad = PHOTO_PAPER
    sheet = make_testset.Page((page.width + 2 * pad, page.height + 2 * pad))
    sheet.image.paste(page.convert("RGB"), (pad, pad))
    sheet.lines = json.loads(json.dumps(lines))
    sheet.map_boxes(lambda p: [p[0] + pad, p[1] + pad])
    shot = make_testset.photograph(sheet, degrees=-0.8, blur=0.8, noise=6.0, seed=seed)
    return shot.image, shot.lines


def stamp() -> str:
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(Path(make_testset.__file__).read_bytes())
    for p in sorted(TEXTS.glob("*.txt")):
        h.update(p.name.encode() + p.read_bytes())
    for path, _, _ in sorted(set(FONTS.values())):
        h.update(str(path).encode() + hashlib.sha256(path.read_bytes()).digest())
    h.update(PIL.__version__.encode())
    return h.hexdigest()


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    missing = sorted({str(p) for p, _, _ in FONTS.values() if not p.is_file()})
    if missing:
        raise SystemExit(f"script test pages: missing fonts {missing}: apt-get install fonts-noto-core "
                         "fonts-noto-cjk")
    if not features.check("raqm"):
        raise SystemExit("script test pages: Pillow has no raqm layout (needs libfribidi0): Hebrew, Arabic and "
                         "Indic lines would be drawn unshaped")
    want = stamp()
    if "--force" not in argv and STAMP.exists() and STAMP.read_text() == want:
        print(f"script test pages: up to date in {OUT}")
        return
    OUT.mkdir(parents=True, exist_ok=True)
    for seed, name in enumerate(sorted(FONTS)):
        page, lines = render(name, (TEXTS / f"{name}.txt").read_text(encoding="utf-8"))
        for variant in VARIANTS:
            if variant == "photo":   # a warped picture: its boxes move with it
                image, gt_lines = photo(page, lines, 1000 + seed)
            else:
                image, gt_lines = (page if variant == "clean" else degrade(page, seed)), lines
            image.save(OUT / f"{name}_{variant}.png", optimize=False)
            gt = {"set": name, "variant": variant, "lines": gt_lines}
            (OUT / f"{name}_{variant}.gt.json").write_text(json.dumps(gt, ensure_ascii=False, indent=1) + "\n",
                                                          encoding="utf-8")
    STAMP.write_text(want)
    print(f"script test pages: {len(FONTS) * len(VARIANTS)} pages in {OUT}")


if __name__ == "__main__":
    main()
