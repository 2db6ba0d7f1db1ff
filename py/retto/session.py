"""The pipeline: decode -> det -> crop -> cls -> [page orientation] -> rec -> [layout] over any Worker, with
per-stage timings and progress. With layout.page_orientation "auto", a page found turned 90/180/270 degrees is
turned upright and det + cls run once more on it; boxes are always reported in the image as given.

It is written once as a coroutine. `run_async` awaits the worker (the browser bridge returns promises);
`run` drives the same coroutine synchronously for native workers, whose methods return arrays directly.
"""
from __future__ import annotations

import inspect
import os
import time
from dataclasses import dataclass

import numpy as np

from . import __version__, cls, det, layout, page_orientation, rec, tiling, words
from .config import Config
from .crop import crop_line, is_turned
from .errors import INFERENCE_FAILED, RettoError
from .geometry import reading_order
from .image import decode_scaled, read_image_file, resize_linear
from .result import OcrResult, TextLine
from .worker import Worker


@dataclass
class _Lines:
    """The lines found on one image: det quads (working pixels), their boxes (image pixels), crops and the
    classifier's angles, index for index."""
    quads: list
    boxes: list
    crops: list
    angles: list


class _Scale:
    """Maps boxes from the decoded pixels to the full image (a large JPEG may be decoded at 1/2, 1/4 or 1/8)."""

    def __init__(self, sx: float, sy: float):
        self.factors = None if (sx, sy) == (1.0, 1.0) else np.array([sx, sy])

    def __call__(self, quad: np.ndarray) -> np.ndarray:
        return quad if self.factors is None else np.asarray(quad, dtype=np.float64) * self.factors


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
        g, lay = self.config.global_, self.config.layout
        timings = {"infer": {"det": 0.0, "cls": 0.0, "rec": 0.0}}
        t_total = time.perf_counter()

        t0 = time.perf_counter()
        img, warnings, (raw_w, raw_h) = decode_scaled(image, g.max_pixels, g.max_side_len, g.width_height_ratio)
        image = None   # the encoded bytes are not needed any more
        # A large JPEG may be decoded at a fraction of its size: boxes are scaled back to the full image.
        to_full = _Scale(raw_w / img.shape[1], raw_h / img.shape[0])
        strip = tiling.is_strip(img.shape[0], img.shape[1], g.max_side_len, g.width_height_ratio)
        timings["decode"] = _ms(t0)
        notify("decode", {"width": raw_w, "height": raw_h})

        # Detection and line orientation on the page as given; when the page itself is turned, once more on the
        # page turned upright (det and cls only: recognition runs once, on the final lines).
        page_angle, upright = 0, img
        found = await self._find_lines(img, strip, 0, timings, warnings, notify, to_full)
        if lay.page_orientation == "auto" and not strip and found.quads:
            t0 = time.perf_counter()
            page_angle = await self._page_angle(found, timings)
            if page_angle:
                upright = page_orientation.turn_upright(img, page_angle)
                found = await self._find_lines(upright, strip, page_angle, timings, warnings, notify, to_full)
            timings["orientation"] = _ms(t0)
        crops, angles = found.crops, found.angles
        notify("cls", {"done": len(crops), "total": len(crops), "angles": angles})

        # Recognition.
        t0 = time.perf_counter()
        texts = [("", 0.0)] * len(crops)
        spans = [[] for _ in crops]   # per line: its words as fractions of the crop (words.py)
        if crops:
            batches = cls.batches_by_aspect(crops, self.config.rec.batch_size)
            done = 0
            for idx in batches:
                await self._read(crops, idx, texts, spans, timings)
                decoded = [texts[i] for i in idx]
                done += len(idx)
                notify("rec", {"done": done, "total": len(crops),
                               "lines": [{"index": int(i), "text": t, "score": round(s, 5)}
                                         for i, (t, s) in zip(idx, decoded)]})
        if self.config.cls.verify:
            await self._verify_flips(crops, angles, texts, spans, timings)
        timings["rec"] = _ms(t0)

        kept = [i for i, (_t, s) in enumerate(texts) if s >= g.text_score]
        up_h, up_w = upright.shape[:2]
        blocks = []
        if lay.reading_order == "blocks":
            t0 = time.perf_counter()
            order, groups, block_quads = layout.analyse([found.boxes[i] for i in kept])
            kept = [kept[k] for k in order]
            blocks = [{"box": to_full(page_orientation.to_source(q, page_angle, up_w, up_h)).tolist(),
                       "lines": lines} for q, lines in zip(block_quads, groups)]
            timings["layout"] = _ms(t0)
        def source(box):
            return to_full(page_orientation.to_source(box, page_angle, up_w, up_h)).tolist()

        lines = [TextLine(box=source(found.boxes[i]), text=texts[i][0], score=texts[i][1], angle=angles[i],
                          words=[{"text": t, "score": sc,
                                  "box": source(words.span_quad(found.boxes[i], u0, u1, is_turned(found.quads[i]),
                                                                angles[i] == 180))}
                                 for t, u0, u1, sc in spans[i]])
                 for i in kept]
        timings["total"] = _ms(t_total)
        timings["infer"] = {k: round(v, 3) for k, v in timings["infer"].items()}
        result = OcrResult(width=raw_w, height=raw_h, lines=lines, timings=timings,
                           backend=dict(self.backend), versions=dict(self.versions),
                           warnings=list(self.warnings) + warnings, model_set=self.model_set,
                           page_angle=page_angle, blocks=blocks)
        notify("done", {"lines": len(lines), "result": result.to_dict()})
        return result

    async def _find_lines(self, img: np.ndarray, strip: bool, page_angle: int, timings: dict, warnings: list,
                          notify, to_full) -> "_Lines":
        """Det, crops and the line classifier on `img` (the page as given, or turned upright by page_angle).
        Boxes come back in `img` pixels; the det notice carries them in the pixels of the image as given."""
        t0 = time.perf_counter()
        if strip:   # detected tile by tile at full size; boxes come back in image pixels
            work, frame = img, (1.0, 1.0, 0, 0)
            quads = await self._detect_strip(img, timings, warnings)
        else:
            work, *frame = self._prepare(img)
            quads = await self._detect(work, timings, warnings)
        quads = [quads[i] for i in reading_order(quads)]
        timings["det"] = timings.get("det", 0.0) + _ms(t0)
        h, w = img.shape[:2]
        boxes = [self._to_source(q, *frame, w, h) for q in quads]
        notify("det", {"boxes": len(quads), "page_angle": page_angle,
                       "quads": [to_full(page_orientation.to_source(b, page_angle, w, h)).tolist()
                                 for b in boxes]})

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
        timings["cls"] = timings.get("cls", 0.0) + _ms(t0)
        return _Lines(quads, boxes, crops, angles)

    async def _page_angle(self, found: "_Lines", timings: dict) -> int:
        """The page's clockwise turn (page_orientation.py): the axis from the boxes; the half turn from reading
        a sample of lines as found and turned 180 degrees, skipped on a horizontal page the classifier finds
        upright."""
        axis = page_orientation.text_axis(found.quads)
        if axis is None:
            return 0
        if (axis == "horizontal" and self.config.cls.enabled
                and page_orientation.flip_share(found.quads, found.angles) < page_orientation.FLIP_SHARE):
            return 0
        sample = page_orientation.sample_lines(found.quads, axis)
        if not sample:
            return 0
        as_found = [found.crops[i] if found.angles[i] == 0 else np.ascontiguousarray(np.rot90(found.crops[i], 2))
                    for i in sample]
        pool = as_found + [np.ascontiguousarray(np.rot90(c, 2)) for c in as_found]
        scores = [0.0] * len(pool)
        for idx in cls.batches_by_aspect(pool, self.config.rec.batch_size):
            probs = await self._infer("rec", rec.preprocess(pool, idx, self.config.rec), timings)
            for j, (_text, score) in zip(idx, rec.ctc_decode(probs, self.labels)):
                scores[j] = score
        k = len(sample)
        return page_orientation.decide(axis, float(np.mean(scores[:k])), float(np.mean(scores[k:])))

    async def _read(self, crops: list, idx: list, texts: list, spans: list, timings: dict, replace=None) -> None:
        """Recognise crops[idx] as one batch into texts and spans (where replace(i, score) says so, if given)."""
        x = rec.preprocess(crops, idx, self.config.rec)
        probs = await self._infer("rec", x, timings)
        for j, (i, line) in enumerate(zip(idx, rec.ctc_decode(probs, self.labels))):
            if replace is None or replace(i, line[1]):
                texts[i] = line
                width = cls.content_width(crops[i], self.config.rec.height, x.shape[3])
                spans[i] = words.line_spans(probs[j], self.labels, x.shape[3], width)

    async def _verify_flips(self, crops: list, angles: list, texts: list, spans: list, timings: dict) -> None:
        """Read the lines the classifier turned 180 degrees once more the way they were found, and keep whichever
        reading scores higher. The classifier alone flips some upright lines of the newer detectors' crops, and a
        flipped line reads as garbage with no error (seen on German serif text with PP-OCRv6 det)."""
        flipped = [i for i, a in enumerate(angles) if a == 180]
        if not flipped:
            return
        # The crops as found (the classifier's turn undone) stand in a scratch list, and every batch of the main
        # pass that holds one is read again as it was (a 180-degree turn keeps a crop's shape, so the batches are
        # the same): a line's score depends on its batch (padding width, and the v6 recogniser mixes the whole
        # line), so the upright reading scores exactly as it would have had the classifier not turned it. A line
        # whose reading that way scores higher takes it, and its angle goes back to 0.
        scratch = list(crops)
        for i in flipped:
            scratch[i] = np.ascontiguousarray(np.rot90(crops[i], 2))

        def better(i, score):
            if angles[i] == 180 and score > texts[i][1]:
                angles[i] = 0
                return True
            return False
        for batch in cls.batches_by_aspect(crops, self.config.rec.batch_size):
            if any(angles[i] == 180 for i in batch):
                await self._read(scratch, batch, texts, spans, timings, replace=better)

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
