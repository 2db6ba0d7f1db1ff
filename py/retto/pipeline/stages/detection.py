"""Stage `det`: DB text detection on the upright image -> page.lines (quads and boxes, in reading order)."""
from __future__ import annotations

import numpy as np

from retto.ops import det

from retto.ops import tiling
from retto.ops.content_box import content_box
from retto.ops.geometry import reading_order
from retto.io.image import resize_linear
from retto.pipeline.page import Lines


class Detection:
    name = "det"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        img = page.upright
        if page.strip:   # detected tile by tile at full size; boxes come back in image pixels
            work, frame = img, (1.0, 1.0, 0, 0)
            quads = await self._detect_strip(img, page)
        else:
            work, *frame = self._prepare(img)
            quads = await self._detect(work, page)
        quads = [quads[i] for i in reading_order(quads)]
        h, w = img.shape[:2]
        boxes = [to_source(q, *frame, w, h) for q in quads]
        page.lines = Lines(quads, boxes)
        page.work = work   # the image the quads are in: crops are cut from it
        page.frame = tuple(frame)   # how work maps back onto the upright image (to_source)
        page.notify("det", {"boxes": len(quads), "page_angle": page.page_angle,
                            "quads": [page.to_source(b) for b in boxes]})
        return page

    async def _detect(self, work: np.ndarray, page) -> list:
        """One det run: quads in `work` pixels. A page with more text regions than det.max_candidates is read
        only in part, so that is said, never silent."""
        cfg = self.p.config.det
        box = content_box(work) if cfg.content_crop and not _upscaled(work, cfg) else None
        x0, y0, x1, y1 = box or (0, 0, work.shape[1], work.shape[0])
        region = work[y0:y1, x0:x1]
        # A content box is cut at multiples of 32 and detected at its own size (never enlarged to det's minimum).
        size = (max(det.round32(y1 - y0), 32), max(det.round32(x1 - x0), 32)) if box else None
        pred = await self.p.infer("det", det.preprocess(region, cfg, size), page)
        stats = {}
        quads, _ = det.postprocess(pred, region.shape[0], region.shape[1], cfg, stats=stats)
        if box:   # back into `work` pixels
            quads = quads + np.array([x0, y0], dtype=np.float64)
        if stats["components"] > cfg.max_candidates:
            page.warnings.append(f"the image has {stats['components']} text regions; only the first "
                                 f"{cfg.max_candidates} were read (raise det.max_candidates to read them all)")
        return list(quads)

    async def _detect_strip(self, img: np.ndarray, page) -> list:
        """Detect a strip (tiling.py) tile by tile, each at full size; quads in image pixels."""
        h, w = img.shape[:2]
        along_x = w > h
        boxes = []
        for k, (a, b) in enumerate(tiling.tile_spans(max(h, w), min(h, w), self.p.config.global_.max_side_len)):
            tile = img[:, a:b] if along_x else img[a:b]
            tile_work, *frame = self._prepare(tile)
            for q in await self._detect(tile_work, page):
                q = to_source(q, *frame, tile.shape[1], tile.shape[0])
                q[:, 0 if along_x else 1] += a
                boxes.append((k, q))
        return tiling.merge_tiles(boxes, along_x)

    def _prepare(self, img: np.ndarray):
        """Global resize (cap the long side, raise the short side) and letterbox padding of very short, wide or
        tall images. Returns the working image and what is needed to map boxes back to the source."""
        g = self.p.config.global_
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


def _upscaled(work: np.ndarray, cfg) -> bool:
    """Whether det enlarges this image (det.limit_type "min"): a crop of it would then be enlarged by more, so
    content_crop leaves such (small) images whole."""
    h, w = work.shape[:2]
    return cfg.limit_type == "min" and min(h, w) < cfg.limit_side_len


def to_source(quad, scale_x, scale_y, pad_top, pad_left, raw_w, raw_h) -> np.ndarray:
    """A quad of the working image back into the pixels of the image it was prepared from."""
    q = np.asarray(quad, dtype=np.float64).copy()
    q[:, 1] -= pad_top
    q[:, 0] -= pad_left
    q[:, 0] *= scale_x
    q[:, 1] *= scale_y
    q[:, 0] = np.clip(q[:, 0], 0, raw_w)
    q[:, 1] = np.clip(q[:, 1], 0, raw_h)
    return q
