"""Shape buckets: run the pipeline on a backend whose sessions accept one input shape each (onnxruntime-web WebGL).

`BucketWorker` wraps any Worker and only ever calls it with a few fixed shapes, padding inputs up to the
smallest bucket that fits and cutting the outputs back, so the runtime needs one session per bucket:
- det: H and W each padded (bottom/right) to the next side in a ladder, with the background the image shows at
  its bottom/right edge; the probability map is cropped back to H x W.
- rec: the batch width padded with zeros (the reference already zero-pads every crop to its batch's width); the
  output keeps only the time steps the unpadded width yields, so no step that saw only padding is decoded.
- cls (always 48x192) and rec: the batch padded with zero images to `batch`, or split into chunks of it (the
  models treat batch items independently); outputs are sliced back.

Bucket choice (why these numbers): det inputs have a short side of at least 736 (the default `limit_side_len`) and, for
anything the global 2000 px cap shrank, a long side of 1984 (2000/32 rounds half-to-even to 62). 832 fits
736-wide images up to 1.13:1, 1024 the 4:3 ones (992), 1216 screenshots (1088-1120), 1536 US Letter and A4
scans and 4:3 photos (1408-1536). Padding is exact for rec but not for det: the det net's global pooling and
receptive field see the padded area, so boxes near a weak edge may shift a few pixels; a finer ladder keeps the
padding small at the cost of more sessions. rec widths double at most 1.5x, so at most a third of a batch is
padding; past 2560 px (text lines over 53:1) there is no bucket.

The det ladder follows the configured `det.limit_side_len` (`det_sides_for`): with `limit_type` "min" every det
input's short side is at least that side rounded to 32, so the smallest bucket is that rounded side and the
ladder's larger sides follow it (736 and the rest are the default's; a smaller side, e.g. for small crops on a
slow GPU, gets a smaller first bucket instead of being padded to 736). Likewise the cls and rec bucket batches
follow `cls.batch_size` and `rec.batch_size` when those are smaller than the ladder's batch (`batch_for`): the
pipeline never sends more lines at once, so a bigger bucket would only be padding.

Inputs larger than the largest bucket go to `fallback` (e.g. the wasm worker) if one is given, and otherwise
raise `image_too_large`: never a silently resized or truncated result. Each fallback adds a sentence to
`fallback_notes` (the browser bridge clears it per image and puts it in that result's warnings).
"""
from __future__ import annotations

import numpy as np

from retto.errors import IMAGE_TOO_LARGE, RettoError
from retto.stepping import drive

DET_SIDES = (736, 832, 1024, 1216, 1536, 1984)
REC_WIDTHS = (320, 480, 640, 960, 1280, 1920, 2560)
BATCH = 6
CLS_HW = (48, 192)
REC_HEIGHT = 48
ROLES = ("det", "cls", "rec")


def smallest_fit(size: int, ladder) -> int | None:
    return next((s for s in sorted(ladder) if s >= size), None)


def rec_time_steps(width: int) -> int:
    """Time steps PP-OCRv4 rec emits for an input width: two stride-2 convs (k3, pad 1) then a 2-wide average
    pool, i.e. ceil(ceil(W/2)/2) // 2 -- not always W/8 (W=327 gives 41)."""
    half = -(-width // 2)
    quarter = -(-half // 2)
    return max(quarter // 2, 1)


def det_sides_for(det_cfg, sides=DET_SIDES) -> tuple:
    """The det bucket sides for a det config (`retto.config.DetConfig`) over a ladder `sides`: with `limit_type`
    "min", the short side an upscaled image gets -- `limit_side_len` rounded to a multiple of 32 as
    `retto.ops.det.input_size` rounds, at least 32; its int() may land one pixel under the side first, so both
    roundings of side - 1 and side when they differ (304: 288 and 320) -- then every side of `sides` above them.
    With "max" (sides capped, never raised) the ladder as given. The default config (736) gives `sides` unchanged."""
    from retto.ops.det import round32

    sides = tuple(sorted(sides))
    if det_cfg.limit_type != "min":
        return sides
    side = int(det_cfg.limit_side_len)
    first = tuple(sorted({max(round32(side - 1), 32), max(round32(side), 32)}))
    return first + tuple(s for s in sides if s > first[-1])


def batch_for(batch_size: int, batch: int = BATCH) -> int:
    """The bucket batch of a role (cls or rec) whose config batch_size is `batch_size`: the ladder's `batch`,
    or batch_size when that is smaller (at least 1); batches are never larger than batch_size."""
    return max(min(int(batch), int(batch_size)), 1)


def det_bucket_shapes(sides=DET_SIDES) -> list[tuple]:
    return [(1, 3, h, w) for h in sides for w in sides]


def bucket_shapes(role: str, det_sides=DET_SIDES, rec_widths=REC_WIDTHS, batch: int = BATCH,
                  cls_hw=CLS_HW, rec_height: int = REC_HEIGHT) -> list[tuple]:
    """Every input shape a BucketWorker may pass to `role` (what a WebGL build stamps models for)."""
    if role == "det":
        return det_bucket_shapes(det_sides)
    if role == "cls":
        return [(batch, 3, *cls_hw)]
    if role == "rec":
        return [(batch, 3, rec_height, w) for w in sorted(rec_widths)]
    raise ValueError(f"unknown model role {role!r}")


def ladder_for(model_set) -> dict:
    """The bucket ladder of a model set: its input sizes (cls height x width, rec height) from the set file, and
    the det/rec ladders above unless the set's `webgl.buckets` gives its own."""
    own = model_set.webgl.get("buckets", {})
    cls_in, rec_in = model_set.inputs.get("cls", {}), model_set.inputs.get("rec", {})
    return {"det_sides": list(own.get("det_sides", DET_SIDES)), "rec_widths": list(own.get("rec_widths", REC_WIDTHS)),
            "batch": int(own.get("batch", BATCH)),
            "cls_hw": [int(cls_in.get("height", CLS_HW[0])), int(cls_in.get("width", CLS_HW[1]))],
            "rec_height": int(rec_in.get("height", REC_HEIGHT))}


def output_shape(role: str, input_shape) -> tuple:
    """The model output's shape for a bucket input shape; None marks a dim the model already declares (rec's
    class count)."""
    n, _, h, w = input_shape
    return {"det": (n, 1, h, w), "cls": (n, 2), "rec": (n, rec_time_steps(w), None)}[role]


# --------------------------------------------------------------------------------------------- the worker

class BucketWorker:
    """A Worker over `inner` that only sends bucket shapes; see the module doc for the padding rules."""

    def __init__(self, inner, det_buckets=DET_SIDES, rec_widths=REC_WIDTHS, models=ROLES, batch: int = BATCH,
                 fallback=None, batches: dict | None = None):
        unknown = set(models) - set(ROLES)
        if unknown:
            raise ValueError(f"unknown model roles {sorted(unknown)}")
        self.inner = inner
        self.det_sides = tuple(sorted(det_buckets))
        self.rec_widths = tuple(sorted(rec_widths))
        self.models = tuple(models)
        self.batch = int(batch)
        self.batches = {"cls": self.batch, "rec": self.batch, **{k: int(v) for k, v in (batches or {}).items()}}
        self.fallback = fallback
        self.fallback_notes: list[str] = []   # why a call went to `fallback`, in words (deduplicated)
        self.charset = getattr(inner, "charset", None)

    def run(self, role: str, x):
        """The Worker entry by role: det/cls/rec through their buckets, any other model (page orientation, the
        re-reading recogniser: wasm only) straight to the inner worker."""
        if role in ROLES:
            return getattr(self, role)(x)
        return self.inner.run(role, x)

    def run_all(self, role: str, x):
        """Models with several outputs (layout, table: wasm only) go straight to the inner worker."""
        return self.inner.run_all(role, x)

    @property
    def roles(self):
        return getattr(self.inner, "roles", set(ROLES))

    # --- det

    def det(self, x):
        if "det" not in self.models:
            return self.inner.det(x)
        n, c, h, w = x.shape
        bh, bw = smallest_fit(h, self.det_sides), smallest_fit(w, self.det_sides)
        if bh is None or bw is None:
            return self._too_large("det", x, f"det input {h}x{w} exceeds the largest bucket "
                                              f"{self.det_sides[-1]}x{self.det_sides[-1]}")
        return drive(self._det_steps(x, bh, bw))

    def _det_steps(self, x, bh, bw):
        n, c, h, w = x.shape
        maps = []
        for i in range(n):                          # the buckets are batch 1 (the pipeline sends one image)
            padded = np.empty((1, c, bh, bw), dtype=np.float32)
            padded[...] = edge_background(x[i])[None, :, None, None]
            padded[0, :, :h, :w] = x[i]
            out = yield self.inner.det(padded)
            maps.append(np.asarray(out, dtype=np.float32)[:, :, :h, :w])
        return np.concatenate(maps)

    # --- cls and rec

    def cls(self, x):
        if "cls" not in self.models:
            return self.inner.cls(x)
        if tuple(x.shape[2:]) != CLS_HW:
            raise ValueError(f"cls input {list(x.shape)}: expected N x 3 x {CLS_HW[0]} x {CLS_HW[1]}")
        return drive(self._batched_steps("cls", x, lambda out: out))

    def rec(self, x):
        if "rec" not in self.models:
            return self.inner.rec(x)
        n, c, h, w = x.shape
        bw = smallest_fit(w, self.rec_widths)
        if bw is None:
            return self._too_large("rec", x, f"rec batch width {w} exceeds the widest bucket {self.rec_widths[-1]}")
        if bw != w:
            x = np.concatenate([x, np.zeros((n, c, h, bw - w), dtype=np.float32)], axis=3)
        steps = rec_time_steps(w)
        return drive(self._batched_steps("rec", x, lambda out: out[:, :steps]))

    def _batched_steps(self, role: str, x, crop):
        """Feed `x` in chunks of exactly the role's batch (the last one zero-padded); concatenate the real rows."""
        n, batch = x.shape[0], self.batches[role]
        parts = []
        for start in range(0, n, batch):
            chunk = x[start:start + batch]
            real = chunk.shape[0]
            if real < batch:
                chunk = np.concatenate([chunk, np.zeros((batch - real, *chunk.shape[1:]), dtype=np.float32)])
            out = yield getattr(self.inner, role)(np.ascontiguousarray(chunk, dtype=np.float32))
            parts.append(crop(np.asarray(out, dtype=np.float32)[:real]))
        return np.concatenate(parts)

    def _too_large(self, role: str, x, why: str):
        if self.fallback is not None:
            note = f"{role} ran on {getattr(self.fallback, 'name', 'the fallback backend')} for this image: {why}"
            if note not in self.fallback_notes:
                self.fallback_notes.append(note)
            return getattr(self.fallback, role)(x)
        raise RettoError(IMAGE_TOO_LARGE, f"{why}; this backend runs fixed shapes only, use the wasm backend "
                                          f"for this image")


def edge_background(x: np.ndarray) -> np.ndarray:
    """Per-channel median of the bottom row and right column of a normalised [C, H, W] image: the background the
    padding continues (1.0 on white paper, i.e. (255/255 - 0.5) / 0.5)."""
    edge = np.concatenate([x[:, -1, :], x[:, :, -1]], axis=1)
    return np.median(edge, axis=1).astype(np.float32)
