"""What hOCR and ALTO consumers want to know about a line beyond its box: the baseline, the font metrics
(x_size, x_ascenders, x_descenders), the turn of a line that does not read left to right, and its language.

All from the result alone (the line's four-point box, its classifier angle and its text), so the CLI and the
browser, which both export through retto.export, write the same values. The box is the detector's, which frames
the ink with a margin: on the labelled test pages the baseline of a line lies about a fifth of the box height above
its bottom edge (e.g. "File" in dark_ui.png: box 8..27, glyphs rest on y = 23), so the descender depth is taken as
0.2 of the height, and the ascenders' rise over the x-height likewise."""
from __future__ import annotations

import math
from dataclasses import dataclass

DESCENDER_SHARE = 0.2    # of the line box height, below the baseline
ASCENDER_SHARE = 0.2     # of the line box height, above the x-height
TURNED_DEGREES = 45      # a line whose reading direction is turned further than this gets a textangle

# Languages written in Latin letters among those the sets name (py/retto/sets: "languages").
LATIN = {"en", "fr", "de", "es", "it", "pt", "nl"}
CJK = {"zh", "zh-Hant", "ja", "ko"}


@dataclass
class LineMetrics:
    baseline: tuple          # ((x, y) left end, (x, y) right end) in page pixels, on the glyphs' resting line
    slope: float             # hOCR baseline: y = slope * (x - x0) + offset, from the bbox's bottom-left corner
    offset: float
    x_size: float            # the line's height
    x_ascenders: float
    x_descenders: float
    textangle: int | None    # counter-clockwise degrees of the reading direction, when turned (else None)


def _distance(a, b) -> float:
    return math.hypot(b[0] - a[0], b[1] - a[1])


def measure(line: dict) -> LineMetrics:
    """Metrics of a result line ({box: [tl, tr, br, bl], angle: 0|180, ...})."""
    tl, tr, br, bl = [tuple(map(float, p)) for p in line["box"]]
    x0, y1 = min(p[0] for p in (tl, tr, br, bl)), max(p[1] for p in (tl, tr, br, bl))
    height = (_distance(tl, bl) + _distance(tr, br)) / 2
    descenders = DESCENDER_SHARE * height
    # Image y points down, so a counter-clockwise turn is a negative dy; the classifier's 180 means the line
    # reads from right to left in the image, upside down.
    turn = math.degrees(math.atan2(-(tr[1] - tl[1]), tr[0] - tl[0])) + int(line.get("angle", 0))
    turn = (turn + 180) % 360 - 180
    if abs(turn) > TURNED_DEGREES:
        # A turned line: its baseline in its own frame, level, a descender depth above the box's far edge.
        return LineMetrics(baseline=_shifted(bl, br, tl, tr, descenders / max(height, 1e-6)), slope=0.0,
                           offset=-round(descenders, 1), x_size=round(height, 1),
                           x_ascenders=round(ASCENDER_SHARE * height, 1), x_descenders=round(descenders, 1),
                           textangle=round(turn) % 360)
    dx = br[0] - bl[0]
    slope = (br[1] - bl[1]) / dx if dx else 0.0
    left, right = _shifted(bl, br, tl, tr, descenders / max(height, 1e-6))
    offset = left[1] + slope * (x0 - left[0]) - y1
    return LineMetrics(baseline=(left, right), slope=round(slope, 4), offset=round(offset, 1), x_size=round(height, 1),
                       x_ascenders=round(ASCENDER_SHARE * height, 1), x_descenders=round(descenders, 1), textangle=None)


def _shifted(bl, br, tl, tr, share: float) -> tuple:
    """The bottom edge moved `share` of the way towards the top edge."""
    left = (bl[0] + (tl[0] - bl[0]) * share, bl[1] + (tl[1] - bl[1]) * share)
    right = (br[0] + (tr[0] - br[0]) * share, br[1] + (tr[1] - br[1]) * share)
    return left, right


def language(text: str, languages: list) -> str | None:
    """The line's language (BCP 47) when its script leaves one choice among the set's languages, else None:
    kana -> ja, hangul -> ko, Han alone -> zh (unless the set also reads Japanese), Latin letters alone -> the
    set's only Latin-script language, letters of another script alone -> the set's only language outside Latin
    and CJK (the Tesseract sets: a Hebrew line of `hebrew` is he, a Thai line of `thai` th)."""
    kana = hangul = han = latin = other = 0
    for ch in text:
        o = ord(ch)
        if 0x3040 <= o <= 0x30FF:
            kana += 1
        elif 0xAC00 <= o <= 0xD7AF:
            hangul += 1
        elif 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF:
            han += 1
        elif ch.isalpha() and o < 0x250:
            latin += 1
        elif ch.isalpha():
            other += 1
    if kana:
        return "ja" if "ja" in languages else None
    if hangul:
        return "ko" if "ko" in languages else None
    if han and not latin:
        return "zh" if "zh" in languages and "ja" not in languages else None
    if latin and not han:
        latins = [lang for lang in languages if lang in LATIN]
        return latins[0] if len(latins) == 1 else None
    if other and not latin and not han:
        others = [lang for lang in languages if lang not in LATIN and lang not in CJK]
        return others[0] if len(others) == 1 else None
    return None
