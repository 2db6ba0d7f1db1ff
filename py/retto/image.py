"""Image input: decode any supported input to an RGB uint8 array, plus the cv2-compatible resampling helpers.

Everything here runs unchanged in Pyodide, so it leans on Pillow's C code instead of Python loops.
"""
from __future__ import annotations

import io
import warnings

import numpy as np
from PIL import Image, ImageOps

from .errors import IMAGE_TOO_LARGE, INVALID_IMAGE, RettoError

# We enforce our own pixel limit before decoding; Pillow's own bomb check would only warn below 2x its limit.
Image.MAX_IMAGE_PIXELS = None


def decode(source, max_pixels: int = 100_000_000) -> np.ndarray:
    """bytes | bytearray | memoryview | PIL.Image | ndarray -> HxWx3 RGB uint8 (EXIF orientation applied)."""
    if isinstance(source, np.ndarray):
        return _from_array(source)
    if isinstance(source, Image.Image):
        return _from_pil(source, max_pixels)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if not data:
            raise RettoError(INVALID_IMAGE, "the file is empty (0 bytes)")
        try:
            img = Image.open(io.BytesIO(data))
        except Exception as exc:  # Pillow raises several types for unknown formats
            raise RettoError(INVALID_IMAGE, f"not a recognised image format ({_first_bytes(data)})") from exc
        return _from_pil(img, max_pixels)
    raise RettoError(INVALID_IMAGE, f"unsupported input type {type(source).__name__}")


def _first_bytes(data: bytes) -> str:
    head = data[:8]
    if all(32 <= b < 127 or b in (9, 10, 13) for b in head):
        return "it looks like text"
    return "starts with " + head.hex(" ")


def _from_pil(img: Image.Image, max_pixels: int) -> np.ndarray:
    w, h = img.size
    if w * h > max_pixels:
        raise RettoError(IMAGE_TOO_LARGE,
                         f"{w}x{h} is {w * h / 1e6:.0f} megapixels; the limit is {max_pixels / 1e6:.0f} megapixels")
    if w < 1 or h < 1:
        raise RettoError(INVALID_IMAGE, f"the image has no pixels ({w}x{h})")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            img.load()
            img = ImageOps.exif_transpose(img)
    except Exception as exc:
        reason = str(exc) or type(exc).__name__
        if "truncated" in reason.lower() or isinstance(exc, (EOFError, SyntaxError)):
            raise RettoError(INVALID_IMAGE, f"the image data is truncated or corrupt ({reason})") from exc
        raise RettoError(INVALID_IMAGE, f"the image could not be decoded ({reason})") from exc
    return _to_rgb(img)


def _to_rgb(img: Image.Image) -> np.ndarray:
    mode = img.mode
    if mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        # High bit depth gray: scale to 8 bits (Pillow's convert('L') would clip everything above 255 to white).
        arr = np.asarray(img, dtype=np.float64)
        top = 65535.0 if arr.max(initial=0) > 255 else 255.0
        gray = np.clip(np.round(arr * (255.0 / top)), 0, 255).astype(np.uint8)
        return np.repeat(gray[:, :, None], 3, axis=2)
    if mode == "P" and "transparency" in img.info:
        img = img.convert("RGBA")
    if mode in ("RGBA", "LA", "PA", "RGBa", "La") or img.mode == "RGBA":
        # Transparent pixels become white paper, which is what a viewer shows for documents.
        rgba = img.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        img = Image.alpha_composite(background, rgba)
    return np.ascontiguousarray(np.asarray(img.convert("RGB"), dtype=np.uint8))


def _from_array(arr: np.ndarray) -> np.ndarray:
    if arr.size == 0:
        raise RettoError(INVALID_IMAGE, "the array is empty")
    if arr.dtype != np.uint8:
        if np.issubdtype(arr.dtype, np.floating) and arr.max(initial=0) <= 1.0:
            arr = arr * 255.0
        arr = np.clip(np.round(arr), 0, 255).astype(np.uint8)
    if arr.ndim == 2:
        return np.repeat(arr[:, :, None], 3, axis=2)
    if arr.ndim == 3 and arr.shape[2] == 1:
        return np.repeat(arr, 3, axis=2)
    if arr.ndim == 3 and arr.shape[2] == 3:
        return np.ascontiguousarray(arr)
    if arr.ndim == 3 and arr.shape[2] == 4:
        return _to_rgb(Image.fromarray(arr, "RGBA"))
    raise RettoError(INVALID_IMAGE, f"an image array must be HxW, HxWx3 (RGB) or HxWx4 (RGBA), not {arr.shape}")


def resize_linear(img: np.ndarray, width: int, height: int) -> np.ndarray:
    """Bilinear resize sampled like cv2.INTER_LINEAR (pixel centres, no antialiasing), so that our inputs
    match the reference pipeline's. Pillow's resize() antialiases when shrinking; its affine transform does not."""
    h, w = img.shape[:2]
    if (w, h) == (width, height):
        return img
    pil = Image.fromarray(img)
    if width >= w and height >= h:
        # Upscaling: Pillow's bilinear filter is the same tent as cv2's here, and handles edges by clamping.
        return np.asarray(pil.resize((width, height), Image.BILINEAR))
    coeffs = (w / width, 0.0, 0.0, 0.0, h / height, 0.0)
    out = pil.transform((width, height), Image.AFFINE, coeffs, Image.BILINEAR)
    return np.asarray(out)


def warp_quad(img: np.ndarray, quad: np.ndarray, width: int, height: int) -> np.ndarray:
    """Perspective-crop `quad` (tl, tr, br, bl; pixel-centre coordinates) into a width x height image with
    bicubic sampling and a replicated border, like cv2.warpPerspective(..., INTER_CUBIC, BORDER_REPLICATE)."""
    width, height = max(int(width), 1), max(int(height), 1)
    quad = np.asarray(quad, dtype=np.float64)
    # Work on a small window around the quad, edge-padded so samples near or past the border replicate it.
    margin = 4
    h, w = img.shape[:2]
    x0 = int(np.floor(quad[:, 0].min())) - margin
    y0 = int(np.floor(quad[:, 1].min())) - margin
    x1 = int(np.ceil(quad[:, 0].max())) + margin + 1
    y1 = int(np.ceil(quad[:, 1].max())) + margin + 1
    window = img[max(y0, 0):min(y1, h), max(x0, 0):min(x1, w)]
    pad = ((max(0, -y0), max(0, y1 - h)), (max(0, -x0), max(0, x1 - w)), (0, 0))
    if any(p for pair in pad[:2] for p in pair):
        window = np.pad(window, pad, mode="edge")
    local = quad - np.array([x0, y0], dtype=np.float64)
    dst = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)
    m = _perspective_matrix(dst, local)  # maps output pixel centres -> window pixel centres
    # Pillow samples output pixel (x, y) at (x + .5, y + .5) and treats input centres as i + .5: shift both ways.
    shift_in = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    shift_out = np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]])
    p = shift_in @ m @ shift_out
    p = p / p[2, 2]
    coeffs = tuple(p.ravel()[:8])
    out = Image.fromarray(window).transform((width, height), Image.PERSPECTIVE, coeffs, Image.BICUBIC)
    return np.asarray(out)


def _perspective_matrix(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """3x3 homography mapping the four src points onto the four dst points."""
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(src, dst)):
        a[2 * i] = [x, y, 1, 0, 0, 0, -u * x, -u * y]
        a[2 * i + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y]
        b[2 * i] = u
        b[2 * i + 1] = v
    try:
        sol = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        sol = np.linalg.lstsq(a, b, rcond=None)[0]
    return np.append(sol, 1.0).reshape(3, 3)
