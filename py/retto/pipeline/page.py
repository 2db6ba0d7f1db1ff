"""The state one page carries through the stages (stages/): each stage reads what earlier stages left on the
Page and adds its own part. Boxes live in the pixels of the upright working image until the result is built,
when they are mapped back into the image as given (page turn undone, then scaled to the full size)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from retto.ops import page_orientation

from retto.ops import tiling
from retto.io.image import decode_scaled
from retto.result import OcrResult, TextLine


@dataclass
class Lines:
    """The lines found on the upright image: det quads (working pixels), boxes (upright image pixels), crops and
    the classifier's angles, index for index."""
    quads: list
    boxes: list
    crops: list = field(default_factory=list)
    angles: list = field(default_factory=list)


class Scale:
    """Maps boxes from the decoded pixels to the full image (a large JPEG may be decoded at 1/2, 1/4 or 1/8)."""

    def __init__(self, sx: float, sy: float):
        self.factors = None if (sx, sy) == (1.0, 1.0) else np.array([sx, sy])

    def __call__(self, quad: np.ndarray) -> np.ndarray:
        return quad if self.factors is None else np.asarray(quad, dtype=np.float64) * self.factors


def ms_since(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000.0, 3)


@dataclass
class Page:
    image: np.ndarray                 # the decoded pixels, as given (RGB uint8)
    width: int                        # the full image's size (image may be decoded smaller)
    height: int
    to_full: Scale
    strip: bool                       # very long and thin: detected tile by tile (tiling.py)
    notify: object                    # notify(stage, info): progress events
    warnings: list = field(default_factory=list)
    timings: dict = field(default_factory=lambda: {"infer": {"det": 0.0, "cls": 0.0, "rec": 0.0}})
    page_angle: int = 0               # clockwise turn of the page that was undone (0/90/180/270)
    page_angle_confidence: float | None = None   # evidence for page_angle (stages/page_turn.py); None: not checked
    upright: np.ndarray | None = None # the image turned upright by page_angle
    work: np.ndarray | None = None    # the upright image as det saw it (resized, padded): lines are cut from it
    frame: tuple = (1.0, 1.0, 0, 0)   # (scale_x, scale_y, pad_top, pad_left): work pixels -> upright pixels
    lines: Lines | None = None
    texts: list = field(default_factory=list)    # per line: (text, score)
    spans: list = field(default_factory=list)    # per line: [(word, u0, u1, score)] (words.py)
    letters: list = field(default_factory=list)  # per line: the first recogniser's probability of each letter and
                                                 # digit it read (stages/recognition.letter_scores)
    directions: list = field(default_factory=list)   # per line: "ltr" / "rtl", set by a whole-line recogniser
                                                     # (stages/line_reading.py); empty for the CTC sets
    script: dict | None = None        # what stages/script_check.py found: letters per script, confidence, verdict
    reread: list = field(default_factory=list)   # indexes of the lines the re-reading stage replaced
    order: list | None = None         # the kept lines' indexes in reading order (None: not decided yet)
    blocks: list = field(default_factory=list)   # [{"box": upright quad, "lines": [positions in order]}]
    regions: list = field(default_factory=list)  # [{"type", "score", "box": upright quad, "lines"}] (stages/regions.py)
    tables: list = field(default_factory=list)   # [{"box", "rows", "cols", "cells": [{..., "box"}], "block"}]

    @classmethod
    def decode(cls, image, config, notify) -> "Page":
        g = config.global_
        t0 = time.perf_counter()
        img, warnings, (raw_w, raw_h) = decode_scaled(image, g.max_pixels, g.max_side_len, g.width_height_ratio)
        page = cls(image=img, width=raw_w, height=raw_h, upright=img, notify=notify, warnings=warnings,
                   to_full=Scale(raw_w / img.shape[1], raw_h / img.shape[0]),
                   strip=tiling.is_strip(img.shape[0], img.shape[1], g.max_side_len, g.width_height_ratio))
        page.timings["decode"] = ms_since(t0)
        notify("decode", {"width": raw_w, "height": raw_h})
        return page

    def add_time(self, key: str, t0: float) -> None:
        self.timings[key] = round(self.timings.get(key, 0.0) + ms_since(t0), 3)

    def kept(self, text_score: float) -> list:
        """Indexes of the lines read well enough to report (score at least global.text_score)."""
        return [i for i, (_t, s) in enumerate(self.texts) if s >= text_score]

    def mostly_turned(self, kept: list) -> bool:
        """Whether most of the kept lines are turned boxes (a vertical CJK page, read in columns)."""
        from retto.ops.crop import is_turned
        return bool(kept) and sum(is_turned(self.lines.quads[i]) for i in kept) * 2 > len(kept)

    def to_source(self, points) -> list:
        """Points of the upright image back into the full image as given."""
        up_h, up_w = self.upright.shape[:2]
        return self.to_full(page_orientation.to_source(points, self.page_angle, up_w, up_h)).tolist()

    def result(self, session, t_total: float) -> OcrResult:
        from retto.ops import words
        from retto.ops.crop import is_turned
        found = self.lines or Lines([], [])
        order = self.order if self.order is not None else self.kept(session.config.global_.text_score)
        lines = []
        for i in order:
            box = found.boxes[i]
            turned, flipped = is_turned(found.quads[i]), found.angles[i] == 180
            lines.append(TextLine(
                box=self.to_source(box), text=self.texts[i][0], score=self.texts[i][1], angle=found.angles[i],
                words=[{"text": t, "score": sc, "box": self.to_source(words.span_quad(box, u0, u1, turned, flipped))}
                       for t, u0, u1, sc in self.spans[i]],
                direction=self.directions[i] if self.directions else None))
        blocks = [{**b, "box": self.to_source(b["box"])} for b in self.blocks]
        regions = [{**r, "box": self.to_source(r["box"])} for r in self.regions]
        tables = [{**t, "box": self.to_source(t["box"]),
                   "cells": [{**c, "box": self.to_source(c["box"])} for c in t["cells"]]} for t in self.tables]
        self.timings["total"] = ms_since(t_total)
        self.timings["infer"] = {k: round(v, 3) for k, v in self.timings["infer"].items()}
        return OcrResult(width=self.width, height=self.height, lines=lines, timings=self.timings,
                         backend=dict(session.backend), versions=dict(session.versions),
                         warnings=list(session.warnings) + self.warnings, model_set=session.model_set,
                         page_angle=self.page_angle, page_angle_confidence=self.page_angle_confidence,
                         blocks=blocks, regions=regions, tables=tables)
