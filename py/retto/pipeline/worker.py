"""The Worker protocol: the only thing a runtime (native onnxruntime, the browser bridge) implements.

A role names a model of the set: det, cls, rec (or line_rec, for the Tesseract sets), and the optional orient,
reread, layout and table. Tensors are float32 numpy arrays (line_rec: a uint8 grey image and a mode in, a dict
out); a browser worker returns awaitables, a native one the arrays themselves (the pipeline is a coroutine that
accepts both). A worker that has no `run` but methods named after the roles (`det(x)`, `cls(x)`, `rec(x)`, the
seed's shape) still works for det/cls/rec: `Pipeline` calls `worker.<role>(x)` then."""
from __future__ import annotations

from typing import Any, Protocol

import numpy as np


class Worker(Protocol):
    roles: set           # the roles this worker can run (det, cls, rec and the set's optional ones it loaded)

    def run(self, role: str, x: np.ndarray) -> Any:
        """The model's first output. det: [N,3,H,W] -> [N,1,H,W]; cls: [N,3,48,192] -> [N,2];
        rec / reread: [N,3,48,W] -> [N,T,C]; orient: [N,3,224,224] -> [N,4].
        line_rec (a Tesseract set's whole-line recogniser; its languages come from the set file): x is a tuple
        (a uint8 grey line image [H, W], mode), mode "line" (Tesseract's single-line mode, PSM 7) or "raw"
        (raw-line mode, PSM 13), ops.line_text.MODES -> {"text": the line in logical order, "words": [{"text",
        "box": [x0, y0, x1, y1] in the image's pixels, "score": 0..1}] in reading order, each word's text as the
        engine gives it (a right-to-left word's letters may come in visual order)}. One reading, no policy: which
        modes to read in, which reading to keep and the words' logical text are stages/line_reading.py's.
        Natively native/tesseract_lines.py, in the browser web/src/worker/tesseract_lines.js (tesseract.js-core)."""

    def run_all(self, role: str, x: np.ndarray) -> Any:
        """Every output of the model, in its order (the layout and table models have several)."""
