"""Image input: decode any supported input to an RGB uint8 array, plus the cv2-compatible resampling helpers.

Everything here runs unchanged in Pyodide, so it leans on Pillow's C code instead of Python loops.
"""
from __future__ import annotations

import io
import os
import stat
import warnings

import numpy as np
from PIL import Image, ImageOps

from retto.errors import FILE_TOO_LARGE, IMAGE_TOO_LARGE, INVALID_IMAGE, RettoError

# We enforce our own pixel limit before decoding; Pillow's own bomb check would only warn below 2x its limit.
Image.MAX_IMAGE_PIXELS = None

# The only formats Image.open may try. Left to itself it tries every plugin Pillow has, EPS among them, which
# hands the file to Ghostscript (an interpreter) on load. TGA goes last: it has no magic bytes to check first.
SAFE_FORMATS = ("PNG", "JPEG", "GIF", "WEBP", "TIFF", "BMP", "DIB", "PPM", "ICO", "TGA")
# Formats whose extra frames are frames or pages of the picture (a camera JPEG's MPO frames are only previews).
MULTI_FRAME_FORMATS = {"GIF": "frames", "PNG": "frames", "WEBP": "frames", "TIFF": "pages"}
DEFAULT_MAX_FILE_BYTES = 200_000_000


def decode(source, max_pixels: int = 100_000_000) -> np.ndarray:
    """bytes | bytearray | memoryview | PIL.Image | ndarray -> HxWx3 RGB uint8 (EXIF orientation applied)."""
    return decode_with_warnings(source, max_pixels)[0]


def decode_with_warnings(source, max_pixels: int = 100_000_000) -> tuple[np.ndarray, list[str]]:
    """decode(), plus what the result should warn about the input (e.g. frames of an animation left unread)."""
    pixels, notes, _full = decode_scaled(source, max_pixels, 0)
    return pixels, notes


def decode_scaled(source, max_pixels: int = 100_000_000, max_side: int = 0,
                  max_ratio: float = float("inf")) -> tuple[np.ndarray, list[str], tuple[int, int]]:
    """decode_with_warnings(), where a JPEG at least twice `max_side` on its long side (and no longer than
    `max_ratio` times its short side) is decoded by libjpeg at 1/2, 1/4 or 1/8 of its size, never below
    `max_side` (0: always full size). Also returns the full size (width, height) the pixels stand for, upright,
    so boxes can be mapped back to it.

    Why: the pipeline shrinks every page to global.max_side_len before detection and takes its line crops from
    that shrunk page, so the pixels beyond it were decoded for nothing; a 48 MP photo is 192 MB in Pillow and as
    much again as an array, and Pyodide's heap never shrinks. libjpeg's scaled IDCT also averages the pixels it
    drops, where the bilinear shrink samples them. Strips (extreme aspect ratios) are read tile by tile at full
    size, so they are decoded whole."""
    if isinstance(source, np.ndarray):
        pixels = _from_array(source)
        return pixels, [], (pixels.shape[1], pixels.shape[0])
    if isinstance(source, Image.Image):
        return _pil_result(source, max_pixels, 0)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if not data:
            raise RettoError(INVALID_IMAGE, "the file is empty (0 bytes)")
        unsupported = unsupported_format(data)
        if unsupported:
            raise RettoError(INVALID_IMAGE, unsupported)
        size = declared_size(data[:64])   # refuse a huge declared size before any decoder allocates for it
        if size:
            check_size(*size, max_pixels)
        try:
            img = Image.open(io.BytesIO(data), formats=SAFE_FORMATS)
        except Exception as exc:  # Pillow raises several types for unknown formats
            known = _pillow_format(data)
            if known:
                raise RettoError(INVALID_IMAGE, f"{known} images are not supported: convert to PNG or JPEG") from exc
            raise RettoError(INVALID_IMAGE, f"not a recognised image format ({_first_bytes(data)}); "
                                            "PNG, JPEG, GIF, WebP, TIFF, BMP, PNM, ICO and TGA are read") from exc
        del data
        return _pil_result(img, max_pixels, max_side, owned=True, max_ratio=max_ratio)
    raise RettoError(INVALID_IMAGE, f"unsupported input type {type(source).__name__}")


def _pil_result(img: Image.Image, max_pixels: int, max_side: int, owned: bool = False,
                max_ratio: float = float("inf")):
    notes = frame_warnings(img)
    pixels, full = _from_pil(img, max_pixels, max_side, owned, max_ratio)
    return pixels, notes, full


def declared_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) a PNG or WebP header declares, read from its first 30 bytes without decoding (None: not
    one of those, or too short). Pillow opens WebP through libwebp's animation decoder, which allocates the whole
    canvas up front: in wasm a 38-byte file declaring 16000x16000 grows the heap by GBs before any size check."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP" or len(data) < 30:
        return None
    chunk, body = data[12:16], data[20:30]
    if chunk == b"VP8X":   # extended format: 24-bit canvas width - 1 and height - 1
        return int.from_bytes(body[4:7], "little") + 1, int.from_bytes(body[7:10], "little") + 1
    if chunk == b"VP8L" and body[0] == 0x2F:   # lossless: 14-bit width - 1 and height - 1 after the signature
        bits = int.from_bytes(body[1:5], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and body[3:6] == b"\x9d\x01\x2a":   # lossy key frame: 14-bit width and height
        return int.from_bytes(body[6:8], "little") & 0x3FFF, int.from_bytes(body[8:10], "little") & 0x3FFF
    return None


def check_size(width: int, height: int, max_pixels: int) -> None:
    """image_too_large when width x height is over max_pixels (the same words as the check after opening)."""
    if width * height > max_pixels:
        raise RettoError(IMAGE_TOO_LARGE, f"{width}x{height} is {width * height / 1e6:.0f} megapixels; "
                                          f"the limit is {max_pixels / 1e6:.0f} megapixels")


def frame_warnings(img: Image.Image) -> list[str]:
    """Animated GIF/WebP/APNG and multi-page TIFF: only the first frame is read, and the result says so."""
    kind = MULTI_FRAME_FORMATS.get(img.format or "")
    if not kind:
        return []
    try:
        n = int(getattr(img, "n_frames", 1))   # walks the frames' headers and returns to the first one
    except Exception:  # a damaged later frame must not cost the first one its result
        return []
    return [f"this file has {n} {kind}; only the first was read"] if n > 1 else []


def unsupported_format(data: bytes) -> str | None:
    """A known format we cannot read, said in words with what to do instead (None: not one of those)."""
    head = data[:1024]
    if head[4:8] == b"ftyp":   # ISO media: the brands say whether it is AVIF, HEIC or a video
        brands = {head[i:i + 4] for i in range(8, min(len(head), int.from_bytes(head[:4], "big")), 4)}
        if brands & {b"avif", b"avis"}:
            return "AVIF images are not supported yet: convert to PNG or JPEG"
        if brands & {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1"}:
            return "HEIC/HEIF images are not supported yet: convert to PNG or JPEG"
        return "this is a video or other ISO media file (MP4, MOV), not an image: save a frame as PNG or JPEG"
    if head.startswith((b"\xff\x0a", b"\x00\x00\x00\x0cJXL ")):
        return "JPEG XL images are not supported yet: convert to PNG or JPEG"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"%PDF"):
        return ("this is a PDF: a PDF is read as a document, page by page (`retto --inputs file.pdf`, "
                    "retto.native.pdf_render.pdf_pages, or the browser client), not as one image")
    if text.startswith(b"%!PS") or head.startswith(b"\xc5\xd0\xd3\xc6"):
        return "PostScript/EPS input is not supported: render it to PNG first (e.g. with Ghostscript)"
    if text.startswith(b"<") and b"<svg" in head.lower():
        return "SVG is a vector format and is not supported: export or render it to PNG first"
    return None


def _pillow_format(data: bytes) -> str | None:
    """The name of a format Pillow knows but we do not open, by its header check alone (nothing is parsed)."""
    Image.init()
    for fmt, (_factory, accept) in Image.OPEN.items():
        try:
            if fmt not in SAFE_FORMATS and accept is not None and accept(data[:16]):
                return fmt
        except Exception:
            continue
    return None


def display_path(path) -> str:
    """A file name as readable text: bytes that are not UTF-8 shown as \\xNN (never lone surrogates, which
    cannot be written as UTF-8)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def read_image_file(path, max_bytes: int | None = DEFAULT_MAX_FILE_BYTES) -> bytes:
    """Read an image file for the native API and the CLI; failures become invalid_image (or file_too_large)
    errors that name the file. Only regular files are read (a FIFO blocks forever, /dev/zero never ends), and
    never more than max_bytes (None: no limit)."""
    name = display_path(path)
    try:
        _check_regular(os.stat(path), name)   # before opening: opening a FIFO waits for a writer
        # O_NONBLOCK: should the file be swapped for a FIFO in between, opening it still returns at once.
        with os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as f:
            st = os.fstat(f.fileno())
            _check_regular(st, name)
            if max_bytes is not None and st.st_size > max_bytes:
                raise RettoError(FILE_TOO_LARGE, _too_large(name, st.st_size, max_bytes))
            data = f.read() if max_bytes is None else f.read(max_bytes + 1)   # bounded even if it grows
    except OSError as exc:
        raise RettoError(INVALID_IMAGE, f"cannot read {name}: {exc.strerror or exc}") from exc
    if max_bytes is not None and len(data) > max_bytes:
        raise RettoError(FILE_TOO_LARGE, _too_large(name, len(data), max_bytes))
    return data


def _check_regular(st: os.stat_result, name: str) -> None:
    if stat.S_ISREG(st.st_mode):
        return
    kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
            else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode)
            or stat.S_ISBLK(st.st_mode) else "not a file")
    raise RettoError(INVALID_IMAGE, f"{name} is not a regular file ({kind}); give the image file itself")


def _too_large(name: str, size: int, limit: int) -> str:
    return (f"{name} is over {size / 1e6:.1f} MB; the limit is {limit / 1e6:.1f} MB "
            "(raise it with the CLI's --max-file-bytes)")


def _first_bytes(data: bytes) -> str:
    head = data[:8]
    if all(32 <= b < 127 or b in (9, 10, 13) for b in head):
        return "it looks like text"
    return "starts with " + head.hex(" ")


def _from_pil(img: Image.Image, max_pixels: int, max_side: int = 0,
              owned: bool = False, max_ratio: float = float("inf")) -> tuple[np.ndarray, tuple[int, int]]:
    """Pixels and full size; `owned`: the image was opened here, so it may be drafted and turned in place."""
    w, h = img.size
    if w * h > max_pixels:
        raise RettoError(IMAGE_TOO_LARGE,
                         f"{w}x{h} is {w * h / 1e6:.0f} megapixels; the limit is {max_pixels / 1e6:.0f} megapixels")
    if w < 1 or h < 1:
        raise RettoError(INVALID_IMAGE, f"the image has no pixels ({w}x{h})")
    sixteen_bit = _is_16_bit(img)   # the tile info that says so is gone after load()
    long_side = max(w, h)
    # The pipeline shrinks every page but a strip to max_side before detection and crops its lines from the shrunk
    # page, so a page at least twice that may be decoded smaller (never below max_side) at no cost to the reading.
    shrinkable = bool(max_side) and long_side >= 2 * max_side and long_side <= max_ratio * min(w, h)
    if owned and shrinkable and img.format in ("JPEG", "MPO"):
        # libjpeg picks the largest power-of-two reduction that keeps at least the requested size.
        img.draft(None, (-(-w * max_side // long_side), -(-h * max_side // long_side)))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            img.load()
            decoded = img.size
            scale_x, scale_y = w / decoded[0], h / decoded[1]
            if owned:   # in place: otherwise a copy comes back even when there is nothing to turn
                ImageOps.exif_transpose(img, in_place=True)
            else:
                img = ImageOps.exif_transpose(img)
    except Exception as exc:
        reason = str(exc) or type(exc).__name__
        if "truncated" in reason.lower() or isinstance(exc, (EOFError, SyntaxError)):
            raise RettoError(INVALID_IMAGE, f"the image data is truncated or corrupt ({reason})") from exc
        raise RettoError(INVALID_IMAGE, f"the image could not be decoded ({reason})") from exc
    factor = _reduction(max(img.size), max_side) if shrinkable and img.mode in HIGH_DEPTH_GREY else 1
    pixels = _to_rgb(img, sixteen_bit, factor)
    if factor > 1:   # reduced after any EXIF turn: the full size is the upright image's
        return pixels, img.size
    if img.size != decoded:   # EXIF turned it a quarter
        scale_x, scale_y = scale_y, scale_x
    full = (round(pixels.shape[1] * scale_x), round(pixels.shape[0] * scale_y))
    return pixels, full


GRAY_BAND_PIXELS = 1 << 20   # high-bit-depth gray is scaled to 8 bits this many pixels at a time (8 MB as float64)


HIGH_DEPTH_GREY = ("I;16", "I;16B", "I;16L", "I", "F")


def _reduction(long_side: int, max_side: int) -> int:
    """The largest of 2, 4, 8 that keeps the long side at least max_side (1: none), as libjpeg's scaled decode."""
    factor = 1
    while factor < 8 and long_side // (factor * 2) >= max_side:
        factor *= 2
    return factor


def _to_rgb(img: Image.Image, sixteen_bit: bool = False, factor: int = 1) -> np.ndarray:
    """RGB uint8 pixels; high-bit-depth grey is also reduced `factor` times (the mean of each factor x factor
    block, a partial block at the edge over the pixels it has) while it is converted."""
    mode = img.mode
    if mode in HIGH_DEPTH_GREY:
        # High bit depth gray: scale to 8 bits (Pillow's convert('L') would clip everything above 255 to white).
        # In bands of rows: as one float64 array a 100 MP image took 0.8 GB per working copy (2.8 GB in all).
        # Each band is written straight into the (reduced) RGB result: no whole grey copy, and a 100 MP page
        # never exists as a 300 MB RGB array when the pipeline only needs a quarter of its side.
        top = 65535.0 if sixteen_bit or (img.getextrema()[1] or 0) > 255 else 255.0
        w, h = img.size
        rgb = np.empty((-(-h // factor), -(-w // factor), 3), dtype=np.uint8)
        rows = max(1, GRAY_BAND_PIXELS // w // factor) * factor   # whole blocks per band
        starts = np.arange(0, w, factor)
        widths = np.minimum(starts + factor, w) - starts
        for y in range(0, h, rows):
            band = np.asarray(img.crop((0, y, w, min(h, y + rows))), dtype=np.float64)
            if factor > 1:
                tops = np.arange(0, band.shape[0], factor)
                heights = np.minimum(tops + factor, band.shape[0]) - tops
                band = np.add.reduceat(np.add.reduceat(band, tops, axis=0), starts, axis=1) / np.outer(heights, widths)
            out = np.clip(np.round(band * (255.0 / top)), 0, 255).astype(np.uint8)
            rgb[y // factor:y // factor + out.shape[0]] = out[:, :, None]
        return rgb
    if mode == "P" and "transparency" in img.info:
        img = img.convert("RGBA")
    if mode in ("RGBA", "LA", "PA", "RGBa", "La") or img.mode == "RGBA":
        rgba = img.convert("RGBA")
        background = Image.new("RGBA", rgba.size, paper_colour(np.asarray(rgba)))
        img = Image.alpha_composite(background, rgba)
    if img.mode != "RGB":   # convert() to the same mode would copy the whole image once more
        img = img.convert("RGB")
    return np.ascontiguousarray(np.asarray(img, dtype=np.uint8))


SAMPLE_PIXELS = 1_000_000   # paper_colour looks at a regular grid of about this many pixels


def paper_colour(rgba: np.ndarray) -> tuple:
    """The colour transparent pixels are drawn on: white paper, unless what is visible has no dark ink at all and
    is light (white text on a transparent graphic, which would vanish on white): then black. "Dark ink" is at
    least 2 % of the visible pixels darker than 96 (a map or a page cut-out keeps its black text on white).
    Measured on a regular grid of about SAMPLE_PIXELS pixels, so the cost is bounded on huge images."""
    h, w = rgba.shape[:2]
    step = max(1, int(np.sqrt(h * w / SAMPLE_PIXELS)))
    grid = rgba[::step, ::step].astype(np.float32)
    visible = grid[:, :, 3] >= 128
    if visible.all() or not visible.any():
        return (255, 255, 255, 255)
    luminance = (grid[:, :, 0] * 0.299 + grid[:, :, 1] * 0.587 + grid[:, :, 2] * 0.114)[visible]
    if (luminance < 96).mean() >= 0.02 or luminance.mean() <= 127.5:
        return (255, 255, 255, 255)
    return (0, 0, 0, 255)


def _is_16_bit(img: Image.Image) -> bool:
    """True when the file stores 16-bit samples (a dark 16-bit scan may have no value above 255)."""
    if img.mode.startswith("I;16"):
        return True
    raw_modes = [t[3] for t in getattr(img, "tile", None) or [] if len(t) > 3]
    raw_modes += [img.info.get("raw_mode", "")]
    return any(isinstance(m, str) and m.startswith("I;16") for m in raw_modes)


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
    """Perspective-crop `quad` (tl, tr, br, bl; pixel-centre coordinates) into a width x height image, sampled
    like cv2.warpPerspective(..., INTER_CUBIC, BORDER_REPLICATE): Keys bicubic with a = -0.75 and sub-pixel
    positions on cv2's 1/32 grid. (Pillow's bicubic uses a = -0.5, which reads some glyphs differently.)"""
    width, height = max(int(width), 1), max(int(height), 1)
    quad = np.asarray(quad, dtype=np.float64)
    q = np.round(quad)
    if (np.abs(quad - q).max() < 1e-9 and q[0, 1] == q[1, 1] and q[2, 1] == q[3, 1] and q[0, 0] == q[3, 0]
            and q[1, 0] == q[2, 0] and q[1, 0] - q[0, 0] == width and q[3, 1] - q[0, 1] == height):
        # Axis-aligned integer box: every sample lands on a pixel centre, where bicubic is the identity.
        x0, y0 = int(q[0, 0]), int(q[0, 1])
        h, w = img.shape[:2]
        ys = np.clip(np.arange(y0, y0 + height), 0, h - 1)
        xs = np.clip(np.arange(x0, x0 + width), 0, w - 1)
        return img[ys[:, None], xs[None, :]]
    # Work on a small window around the quad; indices clamped into it replicate the image border.
    margin = 3
    h, w = img.shape[:2]
    x0 = max(int(np.floor(quad[:, 0].min())) - margin, 0)
    y0 = max(int(np.floor(quad[:, 1].min())) - margin, 0)
    x1 = min(int(np.ceil(quad[:, 0].max())) + margin + 1, w)
    y1 = min(int(np.ceil(quad[:, 1].max())) + margin + 1, h)
    window = img[y0:y1, x0:x1]
    wh, ww = y1 - y0, x1 - x0
    dst = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)
    m = _perspective_matrix(dst, quad - np.array([x0, y0], dtype=np.float64))  # output -> window coords
    gx = np.arange(width, dtype=np.float64)[None, :]
    gy = np.arange(height, dtype=np.float64)[:, None]
    den = m[2, 0] * gx + m[2, 1] * gy + m[2, 2]
    den = np.where(np.abs(den) < 1e-12, 1e-12, den)
    sx = np.round((m[0, 0] * gx + m[0, 1] * gy + m[0, 2]) / den * 32.0)   # cv2's 1/32 sub-pixel grid
    sy = np.round((m[1, 0] * gx + m[1, 1] * gy + m[1, 2]) / den * 32.0)
    if (sx == sx[:1]).all() and (sy == sy[:, :1]).all():
        return _warp_separable(window, sx[0], sy[:, 0])
    (ix, wx), (iy, wy) = _grid_taps(sx.ravel()), _grid_taps(sy.ravel())
    # Tap by tap (16 of them), summed in float32 in the order einsum over [16, pixels] arrays summed them (the same
    # bytes), with temporaries the size of the crop instead of 16 times it. Clamped indices replicate the border.
    cols = [np.clip(ix + (i - 1), 0, ww - 1) for i in range(4)]
    # A grey window (a scan) has three equal planes: sample one, copy it.
    grey = img.shape[2] == 3 and (window[:, :, 0] == window[:, :, 1]).all() and (window[:, :, 1] == window[:, :, 2]).all()
    planes = [np.ascontiguousarray(window[:, :, c], dtype=np.float32).ravel()
              for c in range(1 if grey else img.shape[2])]
    sums = [np.zeros(ix.size, dtype=np.float32) for _ in planes]
    tap = np.empty(ix.size, dtype=np.intp)
    weight = np.empty(ix.size, dtype=np.float32)
    value = np.empty(ix.size, dtype=np.float32)
    for j in range(4):
        row = np.clip(iy + (j - 1), 0, wh - 1) * ww
        for i in range(4):
            np.add(row, cols[i], out=tap)
            np.multiply(wy[j], wx[i], out=weight)
            for plane, total in zip(planes, sums):
                np.take(plane, tap, out=value)
                value *= weight
                total += value
    out = np.empty((height, width, img.shape[2]), dtype=np.uint8)
    for c in range(img.shape[2]):
        out[:, :, c] = np.clip(np.rint(sums[0 if grey else c]), 0, 255).reshape(height, width)
    return out


def _warp_separable(window: np.ndarray, sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """warp_quad where each output column samples one source column and each row one source row (a level line,
    the usual case): the same 16 taps, weights and float32 sums in the same order, so the same bytes, but
    gathered by row and column vectors instead of 16 index arrays the size of the crop."""
    wh, ww = window.shape[:2]
    (ix, wx), (iy, wy) = _grid_taps(sx), _grid_taps(sy)
    plane = window.astype(np.float32)
    total = None
    for j in range(4):
        rows = plane[np.clip(iy + (j - 1), 0, wh - 1)]
        for i in range(4):
            term = rows[:, np.clip(ix + (i - 1), 0, ww - 1)]
            term *= np.multiply(wy[j][:, None], wx[i][None, :])[:, :, None]
            total = term if total is None else np.add(total, term, out=total)
    return np.clip(np.rint(total), 0, 255).astype(np.uint8)


def _grid_taps(pos: np.ndarray) -> tuple:
    """Source positions in 1/32 pixels (cv2's grid) -> (whole pixels, the four tap weights). The weights are looked
    up: the same float32 values _cubic_weights gives for the fraction, without its polynomials once per pixel."""
    whole = np.floor_divide(pos, 32.0)
    step = (pos - whole * 32.0).astype(np.intp)
    return whole.astype(np.intp), [table[step] for table in _GRID_WEIGHTS]


def _cubic_weights(t: np.ndarray):
    """Keys cubic convolution weights (a = -0.75, cv2's choice) for taps at -1, 0, 1, 2 from fraction t."""
    a = np.float32(-0.75)

    def near(d):   # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):    # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return far(t + 1), near(t), near(1 - t), far(2 - t)


_GRID_WEIGHTS = _cubic_weights((np.arange(32, dtype=np.float64) / 32.0).astype(np.float32))


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
