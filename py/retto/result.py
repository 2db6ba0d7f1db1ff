"""Result dataclasses: one JSON shape for the CLI, the browser and the web component."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from retto.records import page_lines


@dataclass
class TextLine:
    box: list          # [[x, y]] * 4 in source-image pixels: top-left, top-right, bottom-right, bottom-left
    text: str
    score: float       # mean of the kept CTC max-probabilities
    angle: int         # 0 or 180: the orientation the classifier found (and undid before recognition)
    words: list = field(default_factory=list)   # [{text, box, score}] from the CTC time steps (words.py)
    direction: str | None = None   # "ltr" / "rtl" (text in logical order either way); sets whose lines are read
                                   # whole (Tesseract) say it, the CTC sets leave it out

    def to_dict(self) -> dict:
        return {"box": _box(self.box), "text": self.text, "score": round(float(self.score), 5),
                "angle": int(self.angle),
                **({"direction": self.direction} if self.direction else {}),
                "words": [{"text": w["text"], "box": _box(w["box"]), "score": round(float(w["score"]), 5)}
                          for w in self.words]}


def _box(box) -> list:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in box]


def _table(t: dict) -> dict:
    return {"box": _box(t["box"]), "rows": int(t["rows"]), "cols": int(t["cols"]),
            "block": None if t.get("block") is None else int(t["block"]),
            "cells": [{"row": int(c["row"]), "col": int(c["col"]), "row_span": int(c["row_span"]),
                       "col_span": int(c["col_span"]), "box": _box(c["box"]), "text": c["text"]}
                      for c in t["cells"]]}


@dataclass
class OcrResult:
    width: int
    height: int
    lines: list = field(default_factory=list)
    timings: dict = field(default_factory=dict)   # milliseconds
    backend: dict = field(default_factory=dict)   # what actually ran det / cls / rec
    versions: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    model_set: str | None = None                  # which model set read it (py/retto/sets/<name>.json)
    page_angle: int = 0                           # 0/90/180/270: the clockwise turn of the page that was undone
    page_angle_confidence: float | None = None    # the evidence for page_angle, 0..1 (None: not checked)
    blocks: list = field(default_factory=list)    # [{"box": quad, "lines": [indexes into lines], "type"?,
                                                  #   "table"?: index into tables}], reading order
    regions: list = field(default_factory=list)   # [{"type", "score", "box": quad, "lines"}] (layout.regions)
    tables: list = field(default_factory=list)    # [{"box", "rows", "cols", "cells", "block"}] (layout.tables)

    @property
    def text(self) -> str:
        """The lines in reading order; a table row by row, its cells separated by tabs (records.page_lines)."""
        return "\n".join(page_lines(self.to_dict()))

    def to_dict(self) -> dict:
        return {
            "image": {"width": self.width, "height": self.height},
            "page_angle": int(self.page_angle),
            "page_angle_confidence": (None if self.page_angle_confidence is None
                                      else round(float(self.page_angle_confidence), 4)),
            "lines": [line.to_dict() for line in self.lines],
            "blocks": [{"box": _box(b["box"]), "lines": [int(i) for i in b["lines"]],
                        **({"type": b["type"]} if "type" in b else {}),
                        **({"table": int(b["table"])} if "table" in b else {})} for b in self.blocks],
            "regions": [{"type": r["type"], "score": round(float(r["score"]), 4), "box": _box(r["box"]),
                         "lines": [int(i) for i in r["lines"]]} for r in self.regions],
            "tables": [_table(t) for t in self.tables],
            "timings": self.timings,
            "backend": self.backend,
            "model_set": self.model_set,
            "versions": self.versions,
            "warnings": list(self.warnings),
        }

    def to_json(self, **kwargs) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)
