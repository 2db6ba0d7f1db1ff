"""The pipeline: decode -> det -> crop -> cls -> rec over any Worker, with per-stage timings and progress.

It is written once as a coroutine. `run_async` awaits the worker (the browser bridge returns promises);
`run` drives the same coroutine synchronously for native workers, whose methods return arrays directly.
"""
from __future__ import annotations

import inspect
import os
import time

import numpy as np

from . import __version__, cls, det, rec, tiling
from .config import Config
from .crop import crop_line
from .errors import INFERENCE_FAILED, RettoError
from .geometry import reading_order
from .image import decode_with_warnings, read_image_file, resize_linear
from .result import OcrResult, TextLine
from .worker import Worker


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000.0, 3)


class Session:
    def __init__(self, worker: Worker, charset: list, config: Config | None = None,
                 backend: dict | None = None, versions: dict | None = None, warnings: list | None = None,
                 model_set: str | None = None):
        self.worker = worker
        self.model_set = model_set  # the set's name, reported in every result (None: models given by hand)
        self.config = config or Config()
        self.labels = rec.labels_from_charset(list(charset))
        self.backend = dict(backend or {})
        self.versions = {"retto": __version__, **(versions or {})}
        self.warnings = list(warnings or [])

    def run(self, image, on_progress=None) -> OcrResult:
        """Synchronous run for workers whose methods return arrays. `image` may also be a file path (read here,
        at the API edge; the pipeline itself only sees bytes or arrays)."""
        if isinstance(image, (str, os.PathLike)):
            image = read_image_file(image)
        coro = self.run_async(image, on_progress)
        try:
            coro.send(None)
        except StopIteration as done:
            return done.value
        coro.close()
        raise RuntimeError("this worker is asynchronous: use `await session.run_async(...)`")

    async def run_async(self, image, on_progress=None) -> OcrResult:
        notify = on_progress or (lambda stage, info: None)
        g = self.config.global_
        timings = {"infer": {"det": 0.0, "cls": 0.0, "rec": 0.0}}
        t_total = time.perf_counter()

        t0 = time.perf_counter()
        img, warnings = decode_with_warnings(image, g.max_pixels)
        raw_h, raw_w = img.shape[:2]
        strip = tiling.is_strip(raw_h, raw_w, g.max_side_len, g.width_height_ratio)
        if strip:   # detected tile by tile at full size; boxes come back in image pixels
            work, frame = img, (1.0, 1.0, 0, 0)
        else:
            work, *frame = self._prepare(img)
        timings["decode"] = _ms(t0)
        notify("decode", {"width": raw_w, "height": raw_h})

        # Detection.
        t0 = time.perf_counter()
        if strip:
            quads = await self._detect_strip(img, timings, warnings)
        else:
            quads = await self._detect(work, timings, warnings)
        quads = [quads[i] for i in reading_order(quads)]
        timings["det"] = _ms(t0)
        boxes_src = [self._to_source(q, *frame, raw_w, raw_h) for q in quads]
        notify("det", {"boxes": len(quads), "quads": [b.tolist() for b in boxes_src]})

        # Orientation.
        t0 = time.perf_counter()
        crops = [crop_line(work, q) for q in quads]
        angles = [0] * len(crops)
        if self.config.cls.enabled and crops:
            batches = cls.batches_by_aspect(crops, self.config.cls.batch_size)
            for n, idx in enumerate(batches):
                probs = await self._infer("cls", cls.preprocess(crops, idx, self.config.cls), timings)
                for i, (angle, _score, rotate) in zip(idx, cls.postprocess(probs, self.config.cls)):
                    if rotate:
                        crops[i] = np.ascontiguousarray(np.rot90(crops[i], 2))
                        angles[i] = 180
                notify("cls", {"done": min((n + 1) * self.config.cls.batch_size, len(crops)),
                               "total": len(crops)})
        timings["cls"] = _ms(t0)
        notify("cls", {"done": len(crops), "total": len(crops), "angles": angles})

        # Recognition.
        t0 = time.perf_counter()
        texts = [("", 0.0)] * len(crops)
        if crops:
            batches = cls.batches_by_aspect(crops, self.config.rec.batch_size)
            done = 0
            for idx in batches:
                probs = await self._infer("rec", rec.preprocess(crops, idx, self.config.rec), timings)
                decoded = rec.ctc_decode(probs, self.labels)
                for i, line in zip(idx, decoded):
                    texts[i] = line
                done += len(idx)
                notify("rec", {"done": done, "total": len(crops),
                               "lines": [{"index": int(i), "text": t, "score": round(s, 5)}
                                         for i, (t, s) in zip(idx, decoded)]})
        if self.config.cls.verify:
            await self._verify_flips(crops, angles, texts, timings)
        timings["rec"] = _ms(t0)

        lines = [TextLine(box=b.tolist(), text=t, score=s, angle=a)
                 for b, (t, s), a in zip(boxes_src, texts, angles) if s >= g.text_score]
        timings["total"] = _ms(t_total)
        timings["infer"] = {k: round(v, 3) for k, v in timings["infer"].items()}
        result = OcrResult(width=raw_w, height=raw_h, lines=lines, timings=timings,
                           backend=dict(self.backend), versions=dict(self.versions),
                           warnings=list(self.warnings) + warnings, model_set=self.model_set)
        notify("done", {"lines": len(lines), "result": result.to_dict()})
        return result

    async def _verify_flips(self, crops: list, angles: list, texts: list, timings: dict) -> None:
        """Read the lines the classifier turned 180 degrees once more the way they were found, and keep whichever
        reading scores higher. The classifier alone flips some upright lines of the newer detectors' crops, and a
        flipped line reads as garbage with no error (seen on German serif text with PP-OCRv6 det)."""
        flipped = [i for i, a in enumerate(angles) if a == 180]
        if not flipped:
            return
        upright = {i: np.ascontiguousarray(np.rot90(crops[i], 2)) for i in flipped}
        pool = [upright[i] for i in flipped]
        for idx in cls.batches_by_aspect(pool, self.config.rec.batch_size):
            probs = await self._infer("rec", rec.preprocess(pool, idx, self.config.rec), timings)
            for j, (text, score) in zip(idx, rec.ctc_decode(probs, self.labels)):
                i = flipped[j]
                if score > texts[i][1]:
                    texts[i] = (text, score)
                    angles[i] = 0

    async def _detect(self, work: np.ndarray, timings: dict, warnings: list) -> list:
        """One det run: quads in `work` pixels. A page with more text regions than det.max_candidates is read
        only in part, so that is said, never silent."""
        cfg = self.config.det
        pred = await self._infer("det", det.preprocess(work, cfg), timings)
        stats = {}
        quads, _ = det.postprocess(pred, work.shape[0], work.shape[1], cfg, stats=stats)
        if stats["components"] > cfg.max_candidates:
            warnings.append(f"the image has {stats['components']} text regions; only the first "
                            f"{cfg.max_candidates} were read (raise det.max_candidates to read them all)")
        return list(quads)

    async def _detect_strip(self, img: np.ndarray, timings: dict, warnings: list) -> list:
        """Detect a strip (tiling.py) tile by tile, each at full size; quads in image pixels."""
        h, w = img.shape[:2]
        along_x = w > h
        boxes = []
        for k, (a, b) in enumerate(tiling.tile_spans(max(h, w), min(h, w), self.config.global_.max_side_len)):
            tile = img[:, a:b] if along_x else img[a:b]
            tile_work, *frame = self._prepare(tile)
            for q in await self._detect(tile_work, timings, warnings):
                q = self._to_source(q, *frame, tile.shape[1], tile.shape[0])
                q[:, 0 if along_x else 1] += a
                boxes.append((k, q))
        return tiling.merge_tiles(boxes, along_x)

    def _prepare(self, img: np.ndarray):
        """Global resize (cap the long side, raise the short side) and letterbox padding of very short, wide or
        tall images. Returns the working image and what is needed to map boxes back to the source."""
        g = self.config.global_
        h, w = img.shape[:2]
        scale_x = scale_y = 1.0
        for limit, grow in ((g.max_side_len, False), (g.min_side_len, True)):
            h, w = img.shape[:2]
            side = min(h, w) if grow else max(h, w)
            if (grow and side < limit) or (not grow and side > limit):
                ratio = limit / side
                if grow:   # never grow the long side past the cap (a 1 x 2000 strip would become 32 x 60000)
                    ratio = min(ratio, max(g.max_side_len / max(h, w), 1.0))
                nh = max(det.round32(int(h * ratio)), 32)
                nw = max(det.round32(int(w * ratio)), 32)
                img = resize_linear(img, nw, nh)
                scale_x *= w / nw
                scale_y *= h / nh
        h, w = img.shape[:2]
        pad_top = pad_left = 0
        if h <= g.min_height or w / h > g.width_height_ratio:
            new_h = max(int(w / g.width_height_ratio), g.min_height) * 2
            pad_top = int(abs(new_h - h) / 2)
            img = np.pad(img, ((pad_top, pad_top), (0, 0), (0, 0)))
        elif h / w > g.width_height_ratio:
            # Tall images get the same letterbox turned 90 degrees (the reference pads only wide ones: a tall
            # one made a det input as long as the image times 736 / its width, 45632 x 736 for 1 x 30000).
            new_w = max(int(h / g.width_height_ratio), g.min_height) * 2
            pad_left = int(abs(new_w - w) / 2)
            img = np.pad(img, ((0, 0), (pad_left, pad_left), (0, 0)))
        return img, scale_x, scale_y, pad_top, pad_left

    @staticmethod
    def _to_source(quad, scale_x, scale_y, pad_top, pad_left, raw_w, raw_h) -> np.ndarray:
        q = np.asarray(quad, dtype=np.float64).copy()
        q[:, 1] -= pad_top
        q[:, 0] -= pad_left
        q[:, 0] *= scale_x
        q[:, 1] *= scale_y
        q[:, 0] = np.clip(q[:, 0], 0, raw_w)
        q[:, 1] = np.clip(q[:, 1], 0, raw_h)
        return q

    async def _infer(self, stage: str, x: np.ndarray, timings: dict) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=np.float32)
        t0 = time.perf_counter()
        try:
            out = getattr(self.worker, stage)(x)
            if inspect.isawaitable(out):
                out = await out
        except RettoError:
            raise
        except Exception as exc:
            raise RettoError(INFERENCE_FAILED, f"the {stage} model failed on input {list(x.shape)}: {exc}") from exc
        timings["infer"][stage] += (time.perf_counter() - t0) * 1000.0
        return np.asarray(out, dtype=np.float32)
