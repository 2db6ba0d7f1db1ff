"""What every stage shares: the worker (the runtime's models), the config and the dictionary, and `infer`, the
one place a model is called (timed, errors made into RettoError). A runtime answers `run(role, x)`; workers that
only have det/cls/rec methods (older ones) are called by role name."""
from __future__ import annotations

import inspect
import time

import numpy as np

from retto.ops import rec

from retto.ops import rec_windows
from retto.ops.char_filter import class_mask
from retto.errors import INFERENCE_FAILED, RettoError


class Pipeline:
    def __init__(self, worker, config, labels: list, extra_labels: dict | None = None, model_set: str | None = None):
        self.worker = worker
        self.config = config
        self.model_set = model_set              # the set's name (None: models given by hand)
        self.labels = labels                    # class index -> character of the rec model
        self.extra_labels = extra_labels or {}  # role -> labels, for other recognisers (the re-reading one)
        # rec.allow / rec.block as a 0/1 vector per recogniser (None: every class), applied in infer_best.
        rec_cfg = config.rec
        self.masks = {role: class_mask(lab, rec_cfg.allow, rec_cfg.block)
                      for role, lab in {"rec": labels, **self.extra_labels}.items()}

    def has(self, role: str) -> bool:
        """Whether the worker runs this model (and, for a second recogniser, its dictionary is known)."""
        roles = getattr(self.worker, "roles", None)
        there = role in roles if roles is not None else role in ("det", "cls", "rec")
        return there and (role != "reread" or role in self.extra_labels)

    async def infer_all(self, role: str, x: np.ndarray, page) -> list:
        """Every output of a model with several (the layout and table models), in the model's order."""
        return [np.asarray(o, dtype=np.float32) for o in await self._call(role, x, page, True)]

    async def _call(self, role: str, x: np.ndarray, page, every: bool):
        x = np.ascontiguousarray(x, dtype=np.float32)
        t0 = time.perf_counter()
        try:
            if every:
                out = self.worker.run_all(role, x)
            else:
                run = getattr(self.worker, "run", None)
                out = run(role, x) if run is not None else getattr(self.worker, role)(x)
            if inspect.isawaitable(out):
                out = await out
        except RettoError:
            raise
        except Exception as exc:
            raise RettoError(INFERENCE_FAILED, f"the {role} model failed on input {list(x.shape)}: {exc}") from exc
        infer = page.timings["infer"]
        infer[role] = infer.get(role, 0.0) + (time.perf_counter() - t0) * 1000.0
        return out

    async def infer_best(self, role: str, x: np.ndarray, page, labels: list):
        """A recogniser's best class per time step and its probability ([N, T] each), after rec.allow/block:
        all that CTC decoding uses. Very wide inputs run in windows (rec_windows), never held as [N, T, C]."""
        mask = self.masks.get(role)

        def reduce(probs):
            rec.check_classes(probs.shape, labels)
            return rec.best_classes(probs if mask is None else probs * mask)   # a masked class is never chosen

        return await rec_windows.best_classes(lambda window: self._call(role, window, page, False), x, reduce)

    async def read_line(self, role: str, image: np.ndarray, mode: str, page) -> dict:
        """A whole-line recogniser (`line_rec`): (a uint8 grey [H, W] line, mode) in, {"text", "words"} out
        (worker.py; mode: one of ops.line_text.MODES). Timed and its failures reported like any model call; the
        image is passed as it is, not as float32."""
        t0 = time.perf_counter()
        try:
            out = self.worker.run(role, (np.ascontiguousarray(image, dtype=np.uint8), mode))
            if inspect.isawaitable(out):
                out = await out
        except RettoError:
            raise
        except Exception as exc:
            raise RettoError(INFERENCE_FAILED, f"the {role} recogniser failed on a {list(image.shape)} line: "
                                               f"{exc}") from exc
        infer = page.timings["infer"]
        infer[role] = infer.get(role, 0.0) + (time.perf_counter() - t0) * 1000.0
        return out

    async def infer(self, role: str, x: np.ndarray, page) -> np.ndarray:
        """One model's output (det, cls, orient); the recognisers go through infer_best."""
        return np.asarray(await self._call(role, x, page, False), dtype=np.float32)


async def run_stage(stage, page):
    """Run one stage on the page, adding its wall time to page.timings[stage.name]."""
    t0 = time.perf_counter()
    page = await stage.run(page)
    page.add_time(stage.name, t0)
    return page
