"""Idempotent: render the labelled test set (pages with exact ground truth) into tests/testset/pages/ (gitignored).

Texts: tests/testset/texts/<name>.txt, UTF-8, written for this project. Blank lines separate blocks (paragraphs,
columns, areas of a form or screen); a tab inside a line separates cells that are drawn apart on one visual row
(table cells, menu items, label and value); an empty cell (two tabs in a row) is a blank table cell. Every other
cell becomes one ground-truth line, so the GT texts are exactly the source lines split at tabs, blank cells left
out, in reading order (a table row by row, each row left to right).

Per page: <name>.png (.jpg for the photo) and <name>.gt.json with each line's text, its box (the textbbox of the
drawn string as a 4-point quad, clockwise from top-left; warped with the page for the photo), its block, its
row (index of the source line; cells of one source line share it) and its words (text and box: the pen advance
of the word by the font's ascender-to-descender band, as a PDF text layer gives word boxes; see Page._word_boxes).
A turned line says "angle": 90 (drawn reading upwards; its quad starts where the text starts). The hard_* pages
(issue 18: scans, tables, a form, a receipt, a chart, white on transparent, a scene; issue 33: dense code lists, a
parts table, a bank statement, a filled-in form) say "hard": true; a page in KNOWN_FAILURES says "known_failure":
why (recorded, not required to read yet). Every page says its "kind" (scripts/bench/models.py scores per kind).
Fonts come only from Debian packages.
A stamp (sha256 of this script, the texts, the fonts and the Pillow/NumPy versions) skips rendering when nothing
changed. Usage: make_testset.py [--force]
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import re
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
import PIL
from PIL import Image, ImageDraw, ImageFilter, ImageFont

ROOT = Path(__file__).resolve().parents[2]
TEXTS = ROOT / "tests" / "testset" / "texts"
OUT = ROOT / "tests" / "testset" / "pages"
STAMP = OUT / ".stamp"

FONT_DIR = Path("/usr/share/fonts/truetype")
FONTS = {  # key: (file under FONT_DIR, Debian package)
    "serif": ("liberation/LiberationSerif-Regular.ttf", "fonts-liberation"),
    "serif_bold": ("liberation/LiberationSerif-Bold.ttf", "fonts-liberation"),
    "serif_italic": ("liberation/LiberationSerif-Italic.ttf", "fonts-liberation"),
    "sans": ("liberation/LiberationSans-Regular.ttf", "fonts-liberation"),
    "sans_bold": ("liberation/LiberationSans-Bold.ttf", "fonts-liberation"),
    "sans_italic": ("liberation/LiberationSans-Italic.ttf", "fonts-liberation"),
    "dejavu_serif": ("dejavu/DejaVuSerif.ttf", "fonts-dejavu-core"),
    "dejavu_serif_bold": ("dejavu/DejaVuSerif-Bold.ttf", "fonts-dejavu-core"),
    "dejavu_sans": ("dejavu/DejaVuSans.ttf", "fonts-dejavu-core"),
    "dejavu_sans_bold": ("dejavu/DejaVuSans-Bold.ttf", "fonts-dejavu-core"),
    "cjk": ("wqy/wqy-microhei.ttc", "fonts-wqy-microhei"),
    "sans_narrow": ("liberation/LiberationSansNarrow-Regular.ttf", "fonts-liberation"),
    "sans_narrow_bold": ("liberation/LiberationSansNarrow-Bold.ttf", "fonts-liberation"),
    "mono": ("liberation/LiberationMono-Regular.ttf", "fonts-liberation"),
    "mono_bold": ("liberation/LiberationMono-Bold.ttf", "fonts-liberation"),
    "dejavu_mono": ("dejavu/DejaVuSansMono.ttf", "fonts-dejavu-core"),
    "dejavu_mono_bold": ("dejavu/DejaVuSansMono-Bold.ttf", "fonts-dejavu-core"),
}

A4 = (1240, 1754)        # 150 DPI
LETTER = (1275, 1650)    # 150 DPI
BOOK = (1100, 1700)      # 5.5 x 8.5 in at 200 DPI
SCREEN = (1280, 800)


# --------------------------------------------------------------------------------------------- inputs

def check_fonts() -> None:
    for path, package in FONTS.values():
        if not (FONT_DIR / path).is_file():
            raise SystemExit(f"make_testset: font {FONT_DIR / path} missing: "
                             f"install the Debian package {package} (apt-get install -y {package})")


@lru_cache(maxsize=None)
def font(key: str, size: int) -> ImageFont.FreeTypeFont:
    # BASIC layout (FreeType kerning only): the same glyph positions with or without libraqm installed.
    return ImageFont.truetype(str(FONT_DIR / FONTS[key][0]), size, layout_engine=ImageFont.Layout.BASIC)


def read_blocks(name: str) -> list[list[tuple[int, str]]]:
    """Blocks of (row, line) from <name>.txt; row numbers the non-blank source lines from 0."""
    blocks, row = [[]], 0
    for line in (TEXTS / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            if blocks[-1]:
                blocks.append([])
            continue
        blocks[-1].append((row, line))
        row += 1
    return [b for b in blocks if b]


# --------------------------------------------------------------------------------------------- drawing

class Page:
    """An RGB canvas plus the ground-truth lines drawn on it."""

    def __init__(self, size, bg="white", fg="black", mode="RGB"):
        self.image = Image.new(mode, size, bg)
        self.draw = ImageDraw.Draw(self.image)
        self.fg = fg
        self.lines: list[dict] = []

    def text(self, xy, text, fnt, block, row, anchor="ls", fill=None, max_x=None, tracking=0, **extra) -> tuple:
        """Draw one line (anchored at its baseline by default) and record its exact box and its words' boxes.

        tracking: extra pixels after every character (letter-spacing; negative sets the text tighter); such a
        line is drawn character by character."""
        fill = fill or self.fg
        if tracking:
            l, t, r, b, words = self._tracked(xy, text, fnt, anchor, fill, tracking)
        else:
            l, t, r, b = self.draw.textbbox(xy, text, font=fnt, anchor=anchor)
            self.draw.text(xy, text, font=fnt, anchor=anchor, fill=fill)
            words = self._word_boxes(xy, text, fnt, anchor)
        if max_x is not None and r > max_x:
            raise ValueError(f"line {text!r} ends at x={r}, beyond its column edge {max_x}: shorten it")
        self.lines.append({"text": text, "box": quad(l, t, r, b), "block": block, "row": row, **extra,
                           "words": words})
        return l, t, r, b

    def _word_boxes(self, xy, text, fnt, anchor) -> list[dict]:
        """Each word's box as a PDF text layer gives it: from the pen position where the word starts to that plus
        its advance width, and from the font's ascender to its descender about the baseline. (A word's ink box
        would be as low as "a" or "on" are tall; OCR word boxes span their line's height.) The word starts at the
        line's left edge (the anchor point moved by the anchor's share of the line's advance) plus the advance
        of the text before it."""
        x, y = xy
        left = x - {"l": 0, "m": 0.5, "r": 1}[anchor[0]] * fnt.getlength(text)
        return [word_box(m.group(), left + fnt.getlength(text[:m.start()]),
                         left + fnt.getlength(text[:m.end()]), baseline(y, text, fnt, anchor), fnt)
                for m in re.finditer(r"\S+", text)]

    def _tracked(self, xy, text, fnt, anchor, fill, tracking):
        """Letter-spaced line: each character drawn at its own pen position; the line box is the union of the
        characters' ink boxes, word boxes as in _word_boxes with the tracked pen positions."""
        x, y = xy
        advance = [fnt.getlength(c) + tracking for c in text]
        total = sum(advance) - tracking
        x -= {"l": 0, "m": 0.5, "r": 1}[anchor[0]] * total
        pen, inks = [], []
        for c, adv in zip(text, advance):
            pen.append(x)
            if not c.isspace():
                inks.append(self.draw.textbbox((x, y), c, font=fnt, anchor="l" + anchor[1]))
                self.draw.text((x, y), c, font=fnt, anchor="l" + anchor[1], fill=fill)
            x += adv
        base = baseline(y, text, fnt, anchor)
        words = [word_box(m.group(), pen[m.start()], pen[m.end() - 1] + fnt.getlength(text[m.end() - 1]), base,
                          fnt)
                 for m in re.finditer(r"\S+", text)]
        return (min(b[0] for b in inks), min(b[1] for b in inks), max(b[2] for b in inks), max(b[3] for b in inks),
                words)

    def map_boxes(self, fn) -> None:
        """Apply a point mapping to every GT quad (lines and words) after the picture was transformed."""
        for line in self.lines:
            line["box"] = [fn(p) for p in line["box"]]
            for w in line["words"]:
                w["box"] = [fn(p) for p in w["box"]]


def quad(l, t, r, b) -> list:
    return [[l, t], [r, t], [r, b], [l, b]]


def baseline(y: float, text: str, fnt, anchor: str) -> float:
    """The baseline's y for a line drawn at y with this anchor (its vertical part: a/t/m/s/b/d)."""
    # the ink top sits at y + top(anchor) and at baseline + top("ls")
    return y + fnt.getbbox(text, anchor="l" + anchor[1])[1] - fnt.getbbox(text, anchor="ls")[1]


def word_box(text: str, x0: float, x1: float, base: float, fnt) -> dict:
    ascent, descent = fnt.getmetrics()
    return {"text": text, "box": quad(round(x0, 1), round(base - ascent, 1), round(x1, 1), round(base + descent, 1))}


def width(text: str, fnt) -> int:
    l, _, r, _ = fnt.getbbox(text)
    return r - l


# --------------------------------------------------------------------------------------------- layouts

def layout_book(blocks) -> Page:
    """A book page: running head, paragraphs with first-line indent (none on the first), folio at the foot."""
    page, (w, h) = Page(BOOK), BOOK
    left, right, size = 110, w - 110, 30
    body, small = font("serif", size), font("serif", 22)
    (head_row, head), = blocks[0]
    page.text((w // 2, 120), head, small, 0, head_row, anchor="ms")
    y = 220
    for b, para in enumerate(blocks[1:-1], 1):
        for i, (row, line) in enumerate(para):
            x = left + (2 * size if i == 0 and b > 1 else 0)
            page.text((x, y), line, body, b, row, max_x=right)
            y += round(size * 1.5)
    (folio_row, folio), = blocks[-1]
    page.text((w // 2, h - 110), folio, small, len(blocks) - 1, folio_row, anchor="ms")
    return page


def layout_document(blocks, body_key, title_key, size) -> Page:
    """A letter-like A4 page: a centred bold title, then left-aligned paragraphs separated by a half line."""
    page, (w, _) = Page(A4), A4
    left, right = 140, w - 140
    body, title = font(body_key, size), font(title_key, round(size * 1.4))
    (title_row, title_text), = blocks[0]
    page.text((w // 2, 200), title_text, title, 0, title_row, anchor="ms", max_x=right)
    y = 200 + round(size * 3)
    for b, para in enumerate(blocks[1:], 1):
        for row, line in para:
            page.text((left, y), line, body, b, row, max_x=right)
            y += round(size * 1.5)
        y += round(size * 0.75)
    return page


def layout_two_column(blocks) -> Page:
    """A4 article: title and byline centred across both columns, then the left and the right column."""
    page, (w, _) = Page(A4), A4
    margin, gap, size = 100, 50, 22
    col_w = (w - 2 * margin - gap) // 2
    (title_row, title), = blocks[0]
    (by_row, byline), = blocks[1]
    page.text((w // 2, 190), title, font("serif_bold", 34), 0, title_row, anchor="ms", max_x=w - margin)
    page.text((w // 2, 240), byline, font("serif_italic", 22), 1, by_row, anchor="ms")
    page.draw.line([(margin, 272), (w - margin, 272)], fill="black", width=2)
    body = font("serif", size)
    for column, b in enumerate((2, 3)):
        x = margin + column * (col_w + gap)
        for i, (row, line) in enumerate(blocks[b]):
            page.text((x, 330 + i * round(size * 1.45)), line, body, b, row, max_x=x + col_w, column=column)
    return page


def layout_invoice(blocks) -> Page:
    """A4 invoice in small sans print: sender, invoice data, addressee, item table, totals, payment notes."""
    page, (w, _) = Page(A4), A4
    left, right, lead = 90, w - 90, 26
    small, bold = font("sans", 17), font("sans_bold", 17)
    sender, meta, bill_to, table, totals, notes = blocks

    for i, (row, line) in enumerate(sender):
        page.text((left, 130 + i * lead), line, font("sans_bold", 22) if i == 0 else small, 0, row)

    row, title = meta[0]
    page.text((right, 136), title, font("sans_bold", 34), 1, row, anchor="rs")
    for i, (row, line) in enumerate(meta[1:]):
        label, value = line.split("\t")
        page.text((800, 180 + i * lead), label, small, 1, row)
        page.text((right, 180 + i * lead), value, small, 1, row, anchor="rs")

    for i, (row, line) in enumerate(bill_to):
        page.text((left, 340 + i * lead), line, bold if i == 0 else small, 2, row)

    table_top, step = 540, 32
    col_right = (None, 740, 920, right)       # description is left-aligned, figures right-aligned
    page.draw.line([(left, table_top - 26), (right, table_top - 26)], fill="black", width=1)
    for i, (row, line) in enumerate(table):
        y = table_top + i * step
        for c, cell in enumerate(line.split("\t")):
            xy, anchor = ((left, y), "ls") if col_right[c] is None else ((col_right[c], y), "rs")
            page.text(xy, cell, bold if i == 0 else small, 3, row, anchor=anchor)
        if i == 0:
            page.draw.line([(left, y + 12), (right, y + 12)], fill="black", width=1)
    y = table_top + (len(table) - 1) * step + 14
    page.draw.line([(left, y), (right, y)], fill="black", width=1)

    y += 40
    for i, (row, line) in enumerate(totals):
        label, value = line.split("\t")
        last = i == len(totals) - 1                   # the amount due: bold, under a rule
        if last:
            y += 12
            page.draw.line([(780, y - 24), (right, y - 24)], fill="black", width=1)
        page.text((800, y), label, bold if last else small, 4, row)
        page.text((right, y), value, bold if last else small, 4, row, anchor="rs")
        y += lead

    for i, (row, line) in enumerate(notes):
        page.text((left, 1560 + i * lead), line, small, 5, row)
    return page


def flow_columns(page, blocks, columns, top, margin, gap, size, key="serif") -> None:
    """Body paragraphs (pre-wrapped lines) flowed down `columns` equal columns, each filled to about the same
    depth, a paragraph carrying over into the next column like in a magazine."""
    w = page.image.size[0]
    col_w = (w - 2 * margin - (columns - 1) * gap) // columns
    lead, para_gap, body = round(size * 1.45), round(size * 0.7), font(key, size)
    total = sum(len(b) for b in blocks) * lead + (len(blocks) - 1) * para_gap
    depth = total / columns + lead // 2
    column, y = 0, top
    for b, para in enumerate(blocks):
        if y > top:
            y += para_gap
        for row, line in para:
            if y + lead > top + depth and column < columns - 1:
                column, y = column + 1, top
            x = margin + column * (col_w + gap)
            page.text((x, y + size), line, body, b + 1, row, max_x=x + col_w, column=column)
            y += lead


def layout_columns(blocks, columns) -> Page:
    """A4 article in 2 or 3 columns under a bold title that spans the columns."""
    page, (w, _) = Page(A4), A4
    margin = 100
    (title_row, title), = blocks[0]
    page.text((w // 2, 200), title, font("serif_bold", 40), 0, title_row, anchor="ms", max_x=w - margin)
    page.draw.line([(margin, 240), (w - margin, 240)], fill="black", width=2)
    if columns == 2:
        flow_columns(page, blocks[1:], 2, 290, margin, 50, 22)
    else:
        flow_columns(page, blocks[1:], 3, 290, margin, 40, 20)
    return page


def layout_figure_note(blocks) -> Page:
    """A4 page: title, body paragraphs, a drawn bar chart with its caption below, and a side note in the right
    margin beside the second paragraph (read last, after the body it annotates)."""
    page, (w, _) = Page(A4), A4
    left, right, size = 120, 880, 24
    lead, body = round(size * 1.5), font("serif", size)
    title, *paras, note = blocks
    (title_row, title_text), = title
    page.text(((left + right) // 2, 190), title_text, font("serif_bold", 34), 0, title_row, anchor="ms")
    y, note_y = 270, None
    for b, para in enumerate(paras, 1):
        if para[0][1].startswith("Figure"):        # the caption: draw the figure above it
            top, bottom = y, y + 300
            page.draw.rectangle([left, top, right, bottom], outline="black", width=2)
            for i, v in enumerate([2, 0, 0, 14, 1, 0, 0, 0, 22, 3, 0, 0, 0, 0, 18, 1, 0, 0, 2, 0]):
                x0 = left + 30 + i * 36
                page.draw.rectangle([x0, bottom - 20 - v * 11, x0 + 22, bottom - 20], fill=(120, 120, 120))
            y = bottom + 40
            (row, caption), = para
            page.text(((left + right) // 2, y), caption, font("serif_italic", 22), b, row, anchor="ms")
            y += 2 * lead
            continue
        if b == 2:
            note_y = y
        for row, line in para:
            page.text((left, y), line, body, b, row, max_x=right)
            y += lead
        y += lead // 2
    small = font("serif_italic", 20)
    for i, (row, line) in enumerate(note):
        page.text((930, note_y + i * 28), line, small, len(blocks) - 1, row, max_x=w - 40)
    return page


# --------------------------------------------------------------------------------------------- turned pages

def turn_page(page: Page, quarter_turns: int) -> Page:
    """The page turned clockwise by 90 degrees per quarter turn (exact pixel transpose); GT quads follow, each
    keeping its corners in the text's own order (first corner = where the text starts)."""
    for _ in range(quarter_turns % 4):
        h = page.image.size[1]
        page.image = page.image.transpose(Image.Transpose.ROTATE_270)      # Pillow's ROTATE_270 is clockwise
        page.map_boxes(lambda p, h=h: [h - p[1], p[0]])
    return page


def skew_page(page: Page, degrees: float) -> Page:
    """The page rotated by a few degrees (positive: clockwise), enlarged so no corner is cut, white behind."""
    w, h = page.image.size
    page.image = page.image.rotate(-degrees, Image.Resampling.BICUBIC, expand=True, fillcolor="white")
    nw, nh = page.image.size
    a = math.radians(degrees)
    # Pillow rotates about the centre; with expand the centre moves to the new centre
    page.map_boxes(lambda p: [round(nw / 2 + (p[0] - w / 2) * math.cos(a) - (p[1] - h / 2) * math.sin(a), 1),
                              round(nh / 2 + (p[0] - w / 2) * math.sin(a) + (p[1] - h / 2) * math.cos(a), 1)])
    return page


UI = dict(bg=(30, 31, 34), bar=(43, 45, 48), panel=(37, 38, 41), rule=(60, 62, 66), text=(223, 225, 229),
          dim=(154, 160, 166), accent=(53, 116, 240), select=(46, 67, 110), outline=(88, 91, 96))


def layout_dark_ui(blocks) -> Page:
    """A 1280x800 dark settings window: menu bar, sidebar, a titled list of label/value rows, buttons, status bar."""
    page, (w, h) = Page(SCREEN, bg=UI["bg"], fg=UI["text"]), SCREEN
    d, ui, side = page.draw, UI, 232
    reg, bold, small = font("dejavu_sans", 15), font("dejavu_sans_bold", 22), font("dejavu_sans", 13)
    menu, sidebar, heading, rows, buttons, status = blocks

    d.rectangle([0, 0, w, 34], fill=ui["bar"])
    (row, line), = menu
    x = 16
    for item in line.split("\t"):
        x = page.text((x, 23), item, reg, 0, row)[2] + 26

    d.rectangle([0, 35, side, h - 31], fill=ui["panel"])
    for i, (row, item) in enumerate(sidebar):
        y = 86 + i * 38
        if i == 0:
            d.rounded_rectangle([10, y - 24, side - 10, y + 10], radius=6, fill=ui["select"])
        page.text((28, y), item, reg, 1, row)

    x0 = side + 32
    (row, title), (row2, subtitle) = heading
    page.text((x0, 90), title, bold, 2, row)
    page.text((x0, 118), subtitle, small, 2, row2, fill=ui["dim"])

    top, step = 150, 46
    d.rounded_rectangle([x0, top, w - 32, top + step * len(rows)], radius=8, fill=ui["panel"])
    for i, (row, line) in enumerate(rows):
        label, value = line.split("\t")
        y = top + i * step + 29
        if i:
            d.line([(x0 + 12, top + i * step), (w - 44, top + i * step)], fill=ui["rule"])
        page.text((x0 + 18, y), label, reg, 3, row)
        page.text((w - 50, y), value, reg, 3, row, fill=ui["dim"], anchor="rs")

    (row, line), = buttons
    x, y = x0, top + step * len(rows) + 34
    for i, label in enumerate(line.split("\t")):
        bw = width(label, reg) + 40
        if i == 0:
            d.rounded_rectangle([x, y, x + bw, y + 36], radius=6, fill=ui["accent"])
        else:
            d.rounded_rectangle([x, y, x + bw, y + 36], radius=6, outline=ui["outline"], width=1)
        page.text((x + 20, y + 23), label, reg, 4, row, fill="white" if i == 0 else None)
        x += bw + 12

    d.rectangle([0, h - 30, w, h], fill=ui["bar"])
    (row, line), = status
    left_text, right_text = line.split("\t")
    d.ellipse([14, h - 20, 24, h - 10], fill=(80, 200, 120))
    page.text((32, h - 10), left_text, small, 5, row, fill=ui["dim"])
    page.text((w - 16, h - 10), right_text, small, 5, row, fill=ui["dim"], anchor="rs")
    return page


# --------------------------------------------------------------------------------------------- photo effect

def homography(src, dst) -> np.ndarray:
    """3x3 H with H @ (x, y, 1) proportional to (x', y', 1) for four point pairs src -> dst."""
    a, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        a += [[x, y, 1, 0, 0, 0, -u * x, -u * y], [0, 0, 0, x, y, 1, -v * x, -v * y]]
        b += [u, v]
    return np.append(np.linalg.solve(np.array(a, float), np.array(b, float)), 1.0).reshape(3, 3)


def apply_h(h: np.ndarray, p) -> list[float]:
    x, y, z = h @ np.array([p[0], p[1], 1.0])
    return [round(float(x / z), 1), round(float(y / z), 1)]


def photo_corners(w: int, h: int, degrees: float) -> list[tuple[float, float]]:
    """Where the page corners land in the photo: a keystone (camera tilted back) then a small rotation."""
    keystone = [(100, 90), (w - 80, 110), (w - 40, h - 55), (55, h - 45)]
    a, cx, cy = math.radians(degrees), w / 2, h / 2
    return [(cx + (x - cx) * math.cos(a) - (y - cy) * math.sin(a),
             cy + (x - cx) * math.sin(a) + (y - cy) * math.cos(a)) for x, y in keystone]


def lighting(w: int, h: int) -> np.ndarray:
    """Per-pixel RGB gain: a lamp up-left (bright corner, darker far corner) with a warm colour cast."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.hypot((xx - 0.25 * w) / w, (yy - 0.15 * h) / h)
    gain = 1.02 - 0.30 * d ** 1.5
    return gain[..., None] * np.array([1.0, 0.96, 0.89], np.float32)


def photograph(page: Page, degrees=1.2, blur=1.0, noise=5.0, seed=2024) -> Page:
    """Make a rendered page look photographed: warp (GT quads follow), uneven light, blur, sensor noise."""
    w, h = page.image.size
    src = [(0, 0), (w, 0), (w, h), (0, h)]
    dst = photo_corners(w, h, degrees)
    back = homography(dst, src)                       # Pillow maps output pixels back to input pixels
    img = page.image.transform((w, h), Image.Transform.PERSPECTIVE, tuple(back.flatten()[:8]),
                               Image.Resampling.BICUBIC, fillcolor=(92, 78, 64))
    fwd = homography(src, dst)
    page.map_boxes(lambda p: apply_h(fwd, p))
    img = img.filter(ImageFilter.GaussianBlur(blur))
    arr = np.asarray(img, np.float32) * lighting(w, h)
    arr += np.random.default_rng(seed).normal(0.0, noise, arr.shape).astype(np.float32)
    page.image = Image.fromarray(np.clip(arr + 0.5, 0, 255).astype(np.uint8))
    return page


# --------------------------------------------------------------------------------------------- hard pages
# Pages that look like the hard real documents of issue 18: 150-dpi scans (blur, noise, JPEG, binarisation),
# bold tight or letter-spaced headings, tables of codes and money, a form, a receipt, a chart, typographic quotes,
# white text on a transparent background and a scene. All are named hard_* and flagged "hard": true in the GT.

def degrade(page: Page, *, ink=0, paper=255, blur=0.0, noise=0.0, speckle=0.0, threshold=None, jpeg=None,
            fade=None, seed=0) -> Page:
    """Make a clean greyscale-able page look scanned (geometry unchanged, so GT boxes stay exact): ink and
    paper levels (contrast), optional fading (a function of the pixel grid giving ink strength 0..1), blur,
    grey sensor noise, dust specks, binarisation at `threshold` (ragged, broken strokes like a 1-bit scan), and
    a JPEG round trip at quality `jpeg`. The result is RGB with equal channels."""
    rng = np.random.default_rng(seed)
    arr = np.asarray(page.image.convert("L"), np.float32) / 255.0          # 0 = ink, 1 = paper
    if fade is not None:
        h, w = arr.shape
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        arr = 1.0 - (1.0 - arr) * fade(xx / w, yy / h, rng)
    arr = ink + (paper - ink) * arr
    img = Image.fromarray(np.clip(arr + 0.5, 0, 255).astype(np.uint8), "L")
    if blur:
        img = img.filter(ImageFilter.GaussianBlur(blur))
    arr = np.asarray(img, np.float32)
    if noise:
        arr = arr + rng.normal(0.0, noise, arr.shape).astype(np.float32)
    if speckle:
        dots = rng.random(arr.shape) < speckle
        arr[dots] = rng.uniform(ink, (ink + paper) / 2, int(dots.sum()))
    if threshold is not None:
        arr = np.where(arr < threshold, 0.0, 255.0)
    img = Image.fromarray(np.clip(arr + 0.5, 0, 255).astype(np.uint8), "L")
    if jpeg:
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=jpeg)
        img = Image.open(io.BytesIO(buf.getvalue())).convert("L")
    page.image = img.convert("RGB")
    return page


def cells_row(page, y, cells, xs, fnt, block, row, aligns=None, **kw) -> None:
    """One table row: cell i at xs[i], left-aligned ("l") or right-aligned ("r") at that x; an empty cell (two
    tabs in a row in the text) is a blank cell of the table: nothing drawn, no ground-truth line."""
    aligns = aligns or "l" * len(cells)
    for cell, x, a in zip(cells, xs, aligns):
        if cell:
            page.text((x, y), cell, fnt, block, row, anchor=a + "s", **kw)


def layout_court_filing(blocks) -> Page:
    """A US district-court brief, first page: the ECF stamp line, a bold centred letter-spaced court heading, the
    caption (parties left, case number right, split by a rule), a bold title, double-spaced body, signature."""
    page, (w, _) = Page(LETTER), LETTER
    ecf, court, parties, case, title, para1, heading, para2, signature = blocks
    (row, line), = ecf
    x = 95
    for cell in line.split("\t"):
        x = page.text((x, 48), cell, font("serif", 17), 0, row)[2] + 34
    for i, (row, line) in enumerate(court):
        page.text((w // 2, 140 + i * 34), line, font("serif_bold", 25), 1, row, anchor="ms", tracking=3)
    top = 280
    for i, (row, line) in enumerate(parties):
        bold = line.isupper() and len(line) > 3
        page.text((110 + (0 if bold else 60), top + i * 30), line, font("serif_bold" if bold else "serif", 22),
                  2, row, tracking=-1 if bold else 0)
    page.draw.line([(650, top - 24), (650, top + 30 * len(parties) - 10)], fill="black", width=2)
    page.draw.line([(110, top + 30 * len(parties) - 10), (650, top + 30 * len(parties) - 10)], fill="black", width=2)
    for i, (row, line) in enumerate(case):
        page.text((690, top + 60 + i * 32), line, font("serif_bold", 22), 3, row, tracking=-1)
    y = top + 30 * len(parties) + 70
    for row, line in title:
        page.text((w // 2, y), line, font("serif_bold", 23), 4, row, anchor="ms", tracking=-1)
        y += 32
    y += 30
    body = font("serif", 22)
    for b, para in ((5, para1), (6, heading), (7, para2)):
        for i, (row, line) in enumerate(para):
            if b == 6:
                page.text((w // 2, y), line, font("serif_bold", 22), b, row, anchor="ms")
            else:
                page.text((110 + (60 if i == 0 else 0), y), line, body, b, row, max_x=w - 95)
            y += 44
    y += 20
    for i, (row, line) in enumerate(signature):
        page.text((700, y + i * 28), line, font("serif_bold" if line.isupper() else "serif", 20), 8, row)
    return degrade(skew_page(page, 0.4), ink=25, paper=240, blur=0.7, noise=9, jpeg=45, seed=1801)


def layout_deposition(blocks) -> Page:
    """A deposition transcript page: a bold header with the page number, 25 numbered lines of monospace text in
    a double frame, a bold footer of the reporting firm."""
    page, (w, h) = Page(LETTER), LETTER
    header, body, footer = blocks
    (row, line), = header
    left, right = line.split("\t")
    page.text((120, 95), left, font("mono_bold", 21), 0, row, tracking=-1)
    page.text((w - 120, 95), right, font("mono_bold", 21), 0, row, anchor="rs", tracking=-1)
    page.draw.rectangle([150, 130, w - 110, h - 150], outline="black", width=2)
    page.draw.rectangle([156, 136, w - 116, h - 156], outline="black", width=1)
    mono, bold = font("mono", 22), font("mono_bold", 22)
    for i, (row, line) in enumerate(body):
        number, text = line.split("\t")
        y = 190 + i * 53
        page.text((135, y), number, font("mono", 18), 1, row, anchor="rs")
        speaker = text.isupper() or text.split(":")[0].isupper() and ":" in text
        page.text((200, y), text, bold if speaker else mono, 1, row, max_x=w - 120)
    (row, line), = footer
    cells = line.split("\t")
    x = 170
    for cell in cells:
        x = page.text((x, h - 100), cell, font("sans_bold", 17), 2, row, tracking=-1)[2] + 60
    return degrade(page, ink=30, paper=235, blur=0.8, noise=10, speckle=0.0004, jpeg=40, seed=1802)


def layout_table_ruled(blocks) -> Page:
    """A ruled schedule of invoices: dates, account numbers, codes and money in a full grid, the total row
    carrying only its label and the last figure."""
    page, (w, _) = Page(A4), A4
    (title,), table = blocks
    page.text((90, 150), title[1], font("sans_bold", 21), 0, title[0])
    widths = [125, 118, 118, 100, 70, 128, 128]
    edges = [90]
    for cw in widths:
        edges.append(edges[-1] + cw)
    aligns = "lllllrr"
    xs = [e + 10 if a == "l" else edges[i + 1] - 10 for i, (e, a) in enumerate(zip(edges, aligns))]
    top, step = 200, 27
    small, bold = font("sans", 16), font("sans_bold", 16)
    for i, (row, line) in enumerate(table):
        cells = line.split("\t")
        y = top + i * step + 20
        if len(cells) == 2:                                           # the total: label and the last column
            cells_row(page, y, cells, [xs[0], xs[-1]], bold, 1, row, "lr")
        else:
            cells_row(page, y, cells, xs, bold if i == 0 else small, 1, row, aligns)
    bottom = top + step * len(table)
    for i in range(len(table) + 1):
        page.draw.line([(edges[0], top + i * step), (edges[-1], top + i * step)], fill="black",
                       width=2 if i in (0, 1, len(table) - 1, len(table)) else 1)
    for e in edges:
        page.draw.line([(e, top), (e, bottom)], fill="black", width=1)
    return degrade(page, ink=45, paper=232, blur=0.95, noise=12, jpeg=30, seed=1803)


def layout_table_borderless(blocks) -> Page:
    """A borderless results table in a narrow sans: no grid, one rule under the header and one at the end,
    columns of codes, dates and decimals set close together, a footnote below."""
    page, (w, _) = Page(A4), A4
    (title,), table, (note,) = blocks
    page.text((100, 170), title[1], font("sans_narrow_bold", 21), 0, title[0])
    xs = [100, 190, 320, 500, 610, 770, 900]
    aligns = "lllrrrl"
    xs = [x if a == "l" else x + 60 for x, a in zip(xs, aligns)]
    top, step = 230, 33
    reg, bold = font("sans_narrow", 19), font("sans_narrow_bold", 19)
    for i, (row, line) in enumerate(table):
        cells_row(page, top + i * step, line.split("\t"), xs, bold if i == 0 else reg, 1, row, aligns)
    page.draw.line([(100, top + 10), (960, top + 10)], fill="black", width=1)
    end = top + (len(table) - 1) * step + 12
    page.draw.line([(100, end), (960, end)], fill="black", width=1)
    page.text((100, end + 40), note[1], font("sans_narrow", 16), 2, note[0])
    return degrade(page, ink=40, paper=236, blur=0.8, noise=10, jpeg=35, seed=1804)


def layout_short_entries(blocks) -> Page:
    """An answer key: a bold title over two long columns of short entries, each a right-aligned number and a
    letter ("13  A"). The upright page whose tall, sparse columns of letters and numbers a page-orientation
    heuristic took for turned text (issue 18: read as "AAAAAABBBBBB...")."""
    page, (w, _) = Page(LETTER), LETTER
    (title,), left, right = blocks
    page.text((w // 2, 130), title[1], font("sans_bold", 24), 0, title[0], anchor="ms")
    body = font("sans", 22)
    for b, col, x in ((1, left, 330), (2, right, 760)):
        for i, (row, line) in enumerate(col):
            number, letter = line.split("\t")
            page.text((x, 210 + i * 30), number, body, b, row, anchor="rs", column=b - 1)
            page.text((x + 50, 210 + i * 30), letter, body, b, row, column=b - 1)
    return degrade(page, ink=30, paper=240, blur=0.6, noise=7, jpeg=50, seed=1805)


def layout_form_scan(blocks) -> Page:
    """A police incident form from a poor scan: ruled field boxes, each with a small printed label and a typed
    value; low contrast, blur, noise, dust, JPEG and a 1.3 degree skew."""
    page, (w, _) = Page(A4), A4
    head, *sections = blocks
    (row, line), (row2, line2) = head
    page.text((w // 2, 110), line, font("sans_bold", 24), 0, row, anchor="ms", tracking=2)
    title, form_no = line2.split("\t")
    page.text((90, 165), title, font("sans_bold", 28), 0, row2)
    page.text((w - 90, 165), form_no, font("sans", 14), 0, row2, anchor="rs")
    label_font, value_font = font("sans", 14), font("mono", 20)
    y, band = 200, 66
    for b, section in enumerate(sections, 1):
        x = 90
        for row, line in section:
            label, value = line.split("\t")
            bw = max(width(label, label_font), width(value, value_font)) + 40
            if x + bw > w - 90:
                x, y = 90, y + band
            page.draw.rectangle([x, y, x + bw, y + band], outline="black", width=2)
            page.text((x + 8, y + 18), label, label_font, b, row)
            page.text((x + 14, y + 52), value, value_font, b, row)
            x += bw
        y += band + 28
    return degrade(skew_page(page, 1.3), ink=95, paper=218, blur=1.0, noise=14, speckle=0.002, jpeg=30, seed=1806)


def layout_receipt(blocks) -> Page:
    """A narrow thermal receipt in a monospace font: centred header, two-column item lines (name left, price
    right), bold total, centred footer; faded unevenly as thermal paper fades (lighter bands and a weak edge)."""
    size = (600, 1500)
    page, (w, _) = Page(size), size
    header, meta, items, totals, footer = blocks
    reg, bold = font("dejavu_mono", 20), font("dejavu_mono_bold", 20)
    left, right, lead = 40, w - 40, 31
    y = 80
    for i, (row, line) in enumerate(header):
        page.text((w // 2, y), line, bold if i == 0 else reg, 0, row, anchor="ms")
        y += lead
    y += lead // 2
    for b, block in ((1, meta), (2, items), (3, totals)):
        for row, line in block:
            cells = line.split("\t")
            strong = b == 3 and cells[0] == "TOTAL"
            page.text((left + (24 if line.startswith("@") else 0), y), cells[0], bold if strong else reg, b, row)
            if len(cells) == 2:
                page.text((right, y), cells[1], bold if strong else reg, b, row, anchor="rs")
            y += lead
        y += lead // 2
    for row, line in footer:
        page.text((w // 2, y), line, reg, 4, row, anchor="ms")
        y += lead
    page.image = page.image.crop((0, 0, w, y + 40))              # the slip ends below its last line

    def thermal(u, v, rng):                            # ink strength: weak right edge, pale bands down the slip
        return np.clip(0.62 - 0.25 * u ** 3 + 0.12 * np.sin(v * 23.0) + 0.1 * np.sin(v * 5.0 + 1.0), 0.25, 1.0)

    return degrade(page, ink=0, paper=242, blur=0.8, noise=8, jpeg=45, fade=thermal, seed=1807)


# Pages for the failures on real documents of issue 33: dense two-column code lists, a parts table, a bank
# statement and a filled-in form from a poor scan.

def layout_dense_codes(blocks) -> Page:
    """A termination schedule: a bold title over two long columns, each a narrow column of row numbers beside
    short codes set small and close in a narrow sans (14 px at 150 dpi, rows 17 px apart): terminal positions
    ("13 A": a number and a letter one space apart), jumpers ("7 C-9 D") and part numbers ("PN 4471-B",
    "X2-0931"); a light scan. On a real page of this kind the tiny recogniser ran number and letter together
    ("13A") and read a column of row numbers as one token."""
    page, (w, _) = Page(LETTER), LETTER
    (title,), *columns = blocks
    page.text((w // 2, 92), title[1], font("sans_bold", 19), 0, title[0], anchor="ms")
    reg, bold = font("sans_narrow", 14), font("sans_narrow_bold", 14)
    top, pitch = 150, 17
    for b, (col, x) in enumerate(zip(columns, (280, 790)), 1):
        xs = [x, x + 10, x + 92]                          # row number right-aligned, then position and part
        for i, (row, line) in enumerate(col):
            cells_row(page, top + i * pitch, line.split("\t"), xs, bold if i == 0 else reg, b, row, "rll",
                      column=b - 1)
        page.draw.line([(x - 34, top + 5), (x + 170, top + 5)], fill="black", width=1)
    return degrade(page, ink=35, paper=238, blur=0.6, noise=7, jpeg=50, seed=1813)


def layout_parts_table(blocks) -> Page:
    """A parts list for a work order: letterhead, order data, a table of part numbers (letters, digits and
    dashes), descriptions, quantities and money under a bold header, lightly ruled (thin grey rules between the
    rows, no verticals), right-aligned totals, a note; a light scan."""
    page, (w, _) = Page(A4), A4
    head, table, totals, (note,) = blocks
    left, right = 80, w - 80
    reg, bold = font("sans", 16), font("sans_bold", 16)
    (row, line), (row2, line2), *meta = head
    page.text((left, 120), line, font("sans_bold", 22), 0, row)
    page.text((left, 165), line2, font("sans_bold", 18), 0, row2)
    for i, (row, line) in enumerate(meta):
        cells_row(page, 205 + i * 26, line.split("\t"), [left, left + 110], reg, 0, row)
    xs, aligns = [left, left + 175, 770, 920, right], "llrrr"
    top, step = 320, 31
    for i, (row, line) in enumerate(table):
        y = top + i * step
        cells_row(page, y, line.split("\t"), xs, bold if i == 0 else reg, 1, row, aligns)
        page.draw.line([(left, y + 10), (right, y + 10)], fill="black" if i == 0 else (175, 175, 175),
                       width=2 if i == 0 else 1)
    page.draw.line([(left, top - 24), (right, top - 24)], fill="black", width=2)
    y = top + len(table) * step + 14
    for i, (row, line) in enumerate(totals):
        last = i == len(totals) - 1
        if last:
            page.draw.line([(760, y - 22), (right, y - 22)], fill="black", width=1)
        cells_row(page, y, line.split("\t"), [780, right], bold if last else reg, 2, row, "lr")
        y += 28
    page.text((left, y + 40), note[1], font("sans_italic", 15), 3, note[0], max_x=right)
    return degrade(page, ink=40, paper=236, blur=0.7, noise=8, jpeg=45, seed=1814)


def layout_bank_statement(blocks) -> Page:
    """A bank statement: the bank's name and branch, the account data (label and value), then the transactions
    (date, description, debit, credit, balance; amounts right-aligned, a row has a debit or a credit, not both)
    borderless with thin rules under the header and above the totals row, and two small footnotes. The ground
    truth reads row by row, each row left to right, as a copied statement should."""
    page, (w, _) = Page(A4), A4
    bank, account, table, notes = blocks
    left, right = 80, w - 80
    reg, bold, small = font("dejavu_sans", 15), font("dejavu_sans_bold", 15), font("dejavu_sans", 13)
    (row, line), *address = bank
    page.text((left, 110), line, font("dejavu_serif_bold", 26), 0, row)
    for i, (row, line) in enumerate(address):
        page.text((left, 142 + i * 22), line, small, 0, row)
    (row, line), *fields = account
    page.text((left, 250), line, font("dejavu_sans_bold", 19), 1, row)
    for i, (row, line) in enumerate(fields):
        cells_row(page, 284 + i * 25, line.split("\t"), [left, left + 190], reg, 1, row)
    xs, aligns = [left, left + 90, 800, 945, right], "llrrr"
    top, step = 450, 29
    for i, (row, line) in enumerate(table):
        y = top + i * step + (8 if i == len(table) - 1 else 0)
        cells_row(page, y, line.split("\t"), xs, bold if i in (0, len(table) - 1) else reg, 2, row, aligns)
    page.draw.line([(left, top + 9), (right, top + 9)], fill="black", width=1)
    end = top + (len(table) - 2) * step + 10
    page.draw.line([(left, end), (right, end)], fill="black", width=1)
    for i, (row, line) in enumerate(notes):
        page.text((left, end + 100 + i * 22), line, small, 3, row, max_x=right)
    return degrade(page, ink=25, paper=246, blur=0.55, noise=5, jpeg=55, seed=1815)


FORM_CHECKED = {  # hard_filled_form: a row label -> the options ticked on it (every other option is left blank)
    "Keeper": {"Applicant"}, "Permit length": {"12 months"}, "Proof of address": {"Council tax bill", "Utility bill"}}


def layout_filled_form(blocks) -> Page:
    """A parking permit application filled in on a typewriter and scanned badly: printed sans labels on field
    lines, values typed in a monospace font and never quite on their lines (each shifted a few pixels up, down or
    along, some sitting on the line), checkbox rows with hand ticks beside the options, grey section bands, dates
    and codes; skewed, blurred, noisy, low contrast fading to the right, JPEG."""
    page, (w, _) = Page(A4), A4
    rng = np.random.default_rng(1816)
    left, right = 90, w - 90
    label_font, value_font = font("sans", 16), font("dejavu_mono", 19)
    head, *sections = blocks
    (row, line), (row2, line2) = head
    page.text((w // 2, 100), line, font("sans_bold", 19), 0, row, anchor="ms")
    title, form_no = line2.split("\t")
    page.text((left, 150), title, font("sans_bold", 23), 0, row2, max_x=right - 170)
    page.text((right, 150), form_no, font("sans", 13), 0, row2, anchor="rs")
    y = 200
    for b, section in enumerate(sections, 1):
        top = y
        for i, (row, line) in enumerate(section):
            cells = line.split("\t")
            if i == 0:                                          # the section heading on a grey band
                page.draw.rectangle([left, y, right, y + 30], fill=(215, 215, 215))
                page.text((left + 8, y + 22), line, font("sans_bold", 16), b, row)
                y += 64
                continue
            if len(cells) == 1:                                 # a printed sentence (the declaration)
                page.text((left, y), line, label_font, b, row, max_x=right)
                y += 52
                continue
            if cells[0] in FORM_CHECKED:                        # label, then checkbox options
                page.text((left, y), cells[0], label_font, b, row)
                x = left + 200
                for option in cells[1:]:
                    page.draw.rectangle([x, y - 15, x + 16, y + 1], outline="black", width=2)
                    if option in FORM_CHECKED[cells[0]]:        # a ticked box: a hand X a little off the box
                        dx, dy = rng.integers(-3, 4, 2)
                        page.draw.line([(x - 2 + dx, y - 18 + dy), (x + 17 + dx, y + 2 + dy)], fill="black", width=3)
                        page.draw.line([(x + 17 + dx, y - 18 + dy), (x - 1 + dx, y + 3 + dy)], fill="black", width=3)
                    x = page.text((x + 26, y), option, label_font, b, row)[2] + 48
                y += 56
                continue
            field = (right - left) // (len(cells) // 2)          # label / value pairs share the row equally
            for k in range(0, len(cells), 2):
                x0 = left + (k // 2) * field
                end = page.text((x0, y), cells[k], label_font, b, row)[2]
                page.draw.line([(end + 8, y + 3), (x0 + field - 24, y + 3)], fill="black", width=1)
                dx, dy = int(rng.integers(0, 36)), int(rng.choice([-9, -6, -4, -2, 0, 3, 5]))
                page.text((end + 16 + dx, y + dy), cells[k + 1], value_font, b, row, max_x=x0 + field - 10)
            y += 56
        y += 18
    page.draw.rectangle([left - 10, top - 10, right + 10, y - 46], outline="black", width=2)   # office use

    def copier(u, v, rng):                                  # toner thinning towards the right edge, in bands
        return np.clip(0.95 - 0.3 * u ** 2 + 0.06 * np.sin(v * 31.0), 0.55, 1.0)

    return degrade(skew_page(page, -0.9), ink=60, paper=214, blur=1.0, noise=12, speckle=0.0015, jpeg=30,
                   fade=copier, seed=1817)


def layout_scan_prose(blocks, key, size, scan) -> Page:
    """A prose page (bold title, paragraphs) printed small and scanned at 150 dpi with the given degradation."""
    page, (w, _) = Page(A4), A4
    (title,), *paras = blocks
    page.text((w // 2, 160), title[1], font(key + "_bold", size + 2), 0, title[0], anchor="ms", max_x=w - 90)
    y, lead = 230, round(size * 1.4)
    for b, para in enumerate(paras, 1):
        for row, line in para:
            page.text((110, y), line, font(key, size), b, row, max_x=w - 90)
            y += lead
        y += lead // 2
    return scan(page)


def layer_turned_ccw(page: Page, xy, text, fnt, block, row) -> None:
    """Draw text turned 90 degrees counter-clockwise (reading upwards) with its left end at xy's baseline;
    GT quads keep the text's own corner order (first corner = where the text starts) and say angle 90."""
    tmp = Page((int(width(text, fnt) + 40), int(fnt.size * 2)), mode="RGBA", bg=(0, 0, 0, 0), fg=page.fg)
    tmp.text((20, fnt.size * 1.4), text, fnt, block, row)
    tw = tmp.image.size[0]
    turned = tmp.image.transpose(Image.Transpose.ROTATE_90)      # Pillow's ROTATE_90 is counter-clockwise
    x0, y0 = xy[0] - fnt.size * 1.4, xy[1] - tw + 20            # where the turned layer's top-left lands
    page.image.paste(turned, (int(x0), int(y0)), turned)
    tmp.map_boxes(lambda p: [p[1] + int(x0), tw - p[0] + int(y0)])
    for line in tmp.lines:
        page.lines.append({**line, "angle": 90})


def layout_chart(blocks) -> Page:
    """A line chart drawn with Pillow: title, y ticks, month ticks, a y-axis title turned 90 degrees (GT
    "angle": 90, scored like every other line), an x-axis title, a legend and a source note in small type."""
    size = (1240, 860)
    page, (w, h) = Page(size), size
    title, yticks, xticks, ytitle, xtitle, legend, source = blocks
    d = page.draw
    x0, x1, y0, y1 = 170, 1160, 120, 660                         # plot area: y0 top, y1 bottom
    page.text((w // 2, 70), title[0][1], font("sans_bold", 22), 0, title[0][0], anchor="ms")
    tick = font("sans", 15)
    n = len(yticks)
    for i, (row, label) in enumerate(yticks):
        y = y0 + i * (y1 - y0) / (n - 1)
        d.line([(x0, y), (x1, y)], fill=(205, 205, 205) if i < n - 1 else "black", width=1)
        d.line([(x0 - 6, y), (x0, y)], fill="black", width=1)
        page.text((x0 - 10, y), label, tick, 1, row, anchor="rm")
    d.line([(x0, y0), (x0, y1)], fill="black", width=1)
    (row, line), = xticks
    months = line.split("\t")
    step = (x1 - x0) / len(months)
    for i, m in enumerate(months):
        cx = x0 + step * (i + 0.5)
        d.line([(cx, y1), (cx, y1 + 6)], fill="black", width=1)
        page.text((cx, y1 + 26), m, tick, 2, row, anchor="ms")
    layer_turned_ccw(page, (95, (y0 + y1) // 2 + width(ytitle[0][1], font("sans", 17)) // 2), ytitle[0][1],
                     font("sans", 17), 3, ytitle[0][0])
    page.text(((x0 + x1) // 2, y1 + 66), xtitle[0][1], font("sans", 17), 4, xtitle[0][0], anchor="ms")
    series = ([212, 198, 221, 245, 290, 338, 372, 361, 301, 256, 219, 205],
              [220, 207, 215, 262, 311, 349, 391, 376, 322, 270, 231, 214])
    for k, values in enumerate(series):
        pts = [(x0 + step * (i + 0.5), y1 - v / 400 * (y1 - y0)) for i, v in enumerate(values)]
        colour = (60, 60, 60) if k == 0 else (150, 150, 150)
        d.line(pts, fill=colour, width=3)
        for px, py in pts:
            d.ellipse([px - 4, py - 4, px + 4, py + 4], fill=colour)
    (row, line), = legend
    x = x0 + 30
    for k, label in enumerate(line.split("\t")):
        d.line([(x, 150), (x + 36, 150)], fill=(60, 60, 60) if k == 0 else (150, 150, 150), width=3)
        x = page.text((x + 46, 156), label, tick, 5, row)[2] + 40
    page.text((x0, h - 40), source[0][1], font("serif_italic", 15), 6, source[0][0])
    return degrade(page, ink=20, paper=250, blur=0.5, noise=4, jpeg=55, seed=1808)


def layout_white_on_transparent(blocks) -> Page:
    """A graphic for a dark background: white opaque text on a fully transparent RGBA canvas (every pixel is
    white; only the alpha channel carries the text). Flattened onto white it is blank."""
    size = (1000, 420)
    page = Page(size, mode="RGBA", bg=(255, 255, 255, 0), fg=(255, 255, 255, 255))
    (first, *rest), = blocks
    page.text((500, 110), first[1], font("sans_bold", 52), 0, first[0], anchor="ms")
    for i, (row, line) in enumerate(rest):
        page.text((500, 200 + i * 70), line, font("sans" if i else "sans_bold", 34), 0, row, anchor="ms")
    return page


def rotate_layer(page: Page, layer: Page, centre, degrees: float) -> None:
    """Composite an RGBA layer onto the page, rotated by `degrees` (positive: clockwise) about its own centre,
    which lands at `centre`; the layer's GT lines join the page's, their quads rotated alike."""
    w, h = layer.image.size
    rotated = layer.image.rotate(-degrees, Image.Resampling.BICUBIC, expand=True)
    nw, nh = rotated.size
    ox, oy = round(centre[0] - nw / 2), round(centre[1] - nh / 2)
    page.image.paste(rotated, (ox, oy), rotated)
    a = math.radians(degrees)
    layer.map_boxes(lambda p: [round(ox + nw / 2 + (p[0] - w / 2) * math.cos(a) - (p[1] - h / 2) * math.sin(a), 1),
                               round(oy + nh / 2 + (p[0] - w / 2) * math.sin(a) + (p[1] - h / 2) * math.cos(a), 1)])
    page.lines += layer.lines


def layout_scene(blocks) -> Page:
    """A street-scene-like picture: a brick wall, a shop board (cream on dark green) turned a few degrees, a
    paper notice with pale print, a small blue street sign; then blur, noise and JPEG like a phone photo."""
    size = (1280, 860)
    rng = np.random.default_rng(1809)
    wall = np.empty((size[1], size[0], 3), np.float32)
    wall[:] = (150, 82, 62)
    yy, xx = np.mgrid[0:size[1], 0:size[0]]
    mortar = (yy % 46 < 5) | (((xx + (yy // 46 % 2) * 60) % 120) < 5)
    wall[mortar] = (185, 178, 165)
    wall += rng.normal(0, 16, (size[1], size[0], 1))
    page = Page(size)
    page.image = Image.fromarray(np.clip(wall, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.8))
    page.draw = ImageDraw.Draw(page.image)
    board, notice, street = blocks

    layer = Page((760, 250), mode="RGBA", bg=(38, 70, 52, 255), fg=(226, 214, 178, 255))
    layer.text((380, 105), board[0][1], font("serif_bold", 76), 0, board[0][0], anchor="ms", tracking=4)
    layer.text((380, 165), board[1][1], font("sans_bold", 30), 0, board[1][0], anchor="ms", tracking=3)
    layer.text((380, 215), board[2][1], font("sans", 22), 0, board[2][0], anchor="ms", tracking=2)
    rotate_layer(page, layer, (560, 220), -4.0)

    layer = Page((300, 150), mode="RGBA", bg=(228, 226, 215, 255), fg=(120, 118, 112, 255))
    for i, (row, line) in enumerate(notice):
        layer.text((150, 45 + i * 40), line, font("sans_bold" if i < 2 else "sans_italic", 24 if i < 2 else 18),
                   1, row, anchor="ms")
    rotate_layer(page, layer, (300, 560), 6.0)

    layer = Page((250, 60), mode="RGBA", bg=(30, 70, 140, 255), fg=(235, 235, 235, 255))
    layer.text((125, 40), street[0][1], font("sans_bold", 26), 2, street[0][0], anchor="ms")
    rotate_layer(page, layer, (980, 600), -2.5)
    arr = np.asarray(page.image.filter(ImageFilter.GaussianBlur(1.1)), np.float32)
    arr = arr * 0.8 + 20 + rng.normal(0, 7, arr.shape)
    page.image = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    page.image.save(buf, "JPEG", quality=50)
    page.image = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
    return page


HARD_PAGES = {  # name: (kind, language, layout)
    "hard_court_filing": ("court_filing", "en", layout_court_filing),
    "hard_deposition": ("deposition", "en", layout_deposition),
    "hard_table_ruled": ("table_ruled", "en", layout_table_ruled),
    "hard_table_borderless": ("table_borderless", "en", layout_table_borderless),
    "hard_short_entries": ("short_entries", "en", layout_short_entries),
    "hard_form_scan": ("form_scan", "en", layout_form_scan),
    "hard_receipt": ("receipt", "en", layout_receipt),
    "hard_scan_prose": ("scan_150dpi", "en", lambda b: layout_scan_prose(
        b, "serif", 20, lambda p: degrade(skew_page(p, -0.7), ink=50, paper=228, blur=1.0, noise=13, jpeg=30,
                                          seed=1810))),
    "hard_scan_binarised": ("scan_binarised", "en", lambda b: layout_scan_prose(
        b, "dejavu_serif", 18, lambda p: degrade(p, blur=0.9, noise=22, speckle=0.001, threshold=150, jpeg=50,
                                                 seed=1811))),
    "hard_quotes": ("typographic_quotes", "en", lambda b: layout_scan_prose(
        b, "serif", 21, lambda p: degrade(p, ink=30, paper=242, blur=0.6, noise=6, jpeg=55, seed=1812))),
    "hard_chart": ("chart", "en", layout_chart),
    "hard_white_on_transparent": ("white_on_transparent", "en", layout_white_on_transparent),
    "hard_scene": ("scene", "en", layout_scene),
    # issue 33: the kinds that failed on real documents
    "hard_dense_codes": ("dense_codes", "en", layout_dense_codes),
    "hard_parts_table": ("parts_table", "en", layout_parts_table),
    "hard_bank_statement": ("bank_statement", "en", layout_bank_statement),
    "hard_filled_form": ("filled_form", "en", layout_filled_form),
}
# Known failures the set records without requiring them to pass (a reason per page; shown by scripts/bench/models.py).
# page -> why it is not read yet (recorded in its ground truth, left out of scripts/bench/models.py's totals). Empty: the
# white-on-transparent page is read since the alpha channel is composited against a contrasting paper (image.py).
KNOWN_FAILURES: dict = {}


# --------------------------------------------------------------------------------------------- the set

PAGES = {  # name: (kind, language, layout)
    "english_prose": ("book", "en", layout_book),
    "english_two_column": ("two_column", "en", layout_two_column),
    "french": ("document", "fr", lambda b: layout_document(b, "serif", "serif_bold", 24)),
    "german": ("document", "de", lambda b: layout_document(b, "sans", "sans_bold", 23)),
    "spanish": ("document", "es", lambda b: layout_document(b, "dejavu_serif", "dejavu_serif_bold", 22)),
    "chinese_english": ("mixed_script", "zh+en", lambda b: layout_document(b, "cjk", "cjk", 26)),
    "invoice": ("invoice", "en", layout_invoice),
    "dark_ui": ("screenshot", "en", layout_dark_ui),
    "photo_page": ("photo", "en", lambda b: photograph(layout_document(b, "serif", "serif_bold", 26))),
    "columns_two": ("columns", "en", lambda b: layout_columns(b, 2)),
    "columns_three": ("columns", "en", lambda b: layout_columns(b, 3)),
    "figure_note": ("figure_note", "en", layout_figure_note),
    "columns_two_rot90": ("turned", "en", lambda b: turn_page(layout_columns(b, 2), 1)),
    "columns_two_rot180": ("turned", "en", lambda b: turn_page(layout_columns(b, 2), 2)),
    "columns_two_rot270": ("turned", "en", lambda b: turn_page(layout_columns(b, 2), 3)),
    "figure_note_skew_cw3": ("skewed", "en", lambda b: skew_page(layout_figure_note(b), 3.0)),
    "columns_two_skew_ccw3": ("skewed", "en", lambda b: skew_page(layout_columns(b, 2), -3.0)),
    **HARD_PAGES,
}
# Pages drawn from another page's text (turned or skewed copies); every other page reads texts/<name>.txt.
SOURCE_TEXT = {"columns_two_rot90": "columns_two", "columns_two_rot180": "columns_two",
               "columns_two_rot270": "columns_two", "figure_note_skew_cw3": "figure_note",
               "columns_two_skew_ccw3": "columns_two"}


def text_name(name: str) -> str:
    return SOURCE_TEXT.get(name, name)


def image_name(name: str) -> str:
    return f"{name}.jpg" if PAGES[name][0] == "photo" else f"{name}.png"


def gt_json(gt: dict) -> str:
    """JSON with one ground-truth line per text line, so diffs and eyeballing stay easy."""
    head = json.dumps({k: v for k, v in gt.items() if k != "lines"}, ensure_ascii=False)[:-1]
    lines = ",\n".join("  " + json.dumps(line, ensure_ascii=False) for line in gt["lines"])
    return f'{head}, "lines": [\n{lines}\n]}}\n'


def render_page(name: str, out_dir: Path) -> dict:
    """Render one page into out_dir (image + <name>.gt.json); returns the ground truth."""
    kind, language, layout = PAGES[name]
    page = layout(read_blocks(text_name(name)))
    w, h = page.image.size
    for line in page.lines:
        if not all(0 <= x <= w and 0 <= y <= h for x, y in line["box"]):
            raise ValueError(f"{name}: line {line['text']!r} leaves the page: {line['box']}")
    out_dir.mkdir(parents=True, exist_ok=True)
    image = image_name(name)
    if image.endswith(".jpg"):
        page.image.save(out_dir / image, "JPEG", quality=70)
    else:
        page.image.save(out_dir / image, "PNG", optimize=False, compress_level=6)
    gt = {"name": name, "kind": kind, "language": language, "image": image, "width": w, "height": h}
    if name in HARD_PAGES:
        gt["hard"] = True
    if name in KNOWN_FAILURES:
        gt["known_failure"] = KNOWN_FAILURES[name]
    gt["lines"] = page.lines
    (out_dir / f"{name}.gt.json").write_text(gt_json(gt), encoding="utf-8")
    return gt


def stamp() -> str:
    """sha256 over everything the output depends on: this script, the texts, the fonts, the library versions."""
    h = hashlib.sha256()
    h.update(f"Pillow {PIL.__version__} numpy {np.__version__}\n".encode())
    files = [Path(__file__).resolve()] + [TEXTS / f"{t}.txt" for t in sorted(set(map(text_name, PAGES)))]
    files += sorted({FONT_DIR / p for p, _ in FONTS.values()})
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def outputs_present() -> bool:
    return all((OUT / image_name(n)).is_file() and (OUT / f"{n}.gt.json").is_file() for n in PAGES)


def main(force: bool = False) -> None:
    check_fonts()
    digest = stamp()
    rel = OUT.relative_to(ROOT)
    if not force and outputs_present() and STAMP.is_file() and STAMP.read_text().strip() == digest:
        print(f"labelled test set: {len(PAGES)} pages up to date in {rel}")
        return
    start = time.perf_counter()
    STAMP.unlink(missing_ok=True)                     # a half-finished run must not look complete
    lines = sum(len(render_page(name, OUT)["lines"]) for name in PAGES)
    STAMP.write_text(digest + "\n")
    print(f"labelled test set: rendered {len(PAGES)} pages ({lines} lines) into {rel} "
          f"in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main(force="--force" in sys.argv[1:])
