"""Bad and unusual inputs, through the Session API and through the CLI.

Every input gives either a clear RettoError code (`invalid_image`, `image_too_large`) or a correct result; in a
CLI batch, a bad file never costs a good one its result, and the exit code says something failed.

All odd files are generated here from the real images (tests/data/, pinned) with Pillow or a few lines of PNG
writing; nothing binary is committed. "Correct" is judged against independent expectations, not against
constants from the code under test:
- a lossless re-encoding (16-bit, opaque alpha, transparency over white, palette, 1-bit, EXIF orientation) must
  give exactly the texts and boxes our pipeline gives on the same pixels written as a plain 8-bit RGB PNG,
  where those pixels are computed here (16-bit -> high byte, alpha 0 -> white, palette -> Pillow's expansion,
  EXIF -> Pillow's ImageOps.exif_transpose);
- a lossy variant (the sdist's CMYK JPEG, a CMYK JPEG made by Pillow, the EXIF-rotated JPEG) must reproduce
  >= 88 % (all but two of baiona's 17) of the texts found on the RGB original (which test_reference.py checks
  against RapidOCR). Decoding mistakes are far below that: dropping the alpha channel of the transparent
  variant leaves about a third; clipping 16-bit gray to 8 bits leaves a white page.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import subprocess
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from ocr_metrics import match_lines
from refkit import ROOT, png_bytes

INVALID, TOO_LARGE = "invalid_image", "image_too_large"
MIN_LOSSY_SHARE = 0.88


# --------------------------------------------------------------------------------------------- generators

def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_raw(width: int, height: int, bit_depth: int, color_type: int, rows: bytes) -> bytes:
    """A minimal PNG (filter type 0 rows already prefixed) written by hand, so the header says what we want."""
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(rows))
            + _chunk(b"IEND", b""))


def png16(arr: np.ndarray) -> bytes:
    """16-bit PNG (RGB for HxWx3, gray for HxW) of a uint16 array; Pillow cannot write 16-bit RGB itself."""
    h, w = arr.shape[:2]
    rows = b"".join(b"\x00" + arr[y].astype(">u2").tobytes() for y in range(h))
    return png_raw(w, h, 16, 2 if arr.ndim == 3 else 0, rows)


def bomb_png(side: int = 50_000) -> bytes:
    """A valid PNG header claiming side x side RGB (7.5 GB decoded at 50 000) with one tiny compressed row."""
    return png_raw(side, side, 8, 2, b"\x00" + bytes(3 * side))


def jpeg_bytes(image: Image.Image, **kw) -> bytes:
    buf = io.BytesIO()
    image.save(buf, format="JPEG", **kw)
    return buf.getvalue()


def exif_rotated_jpeg(upright: Image.Image, orientation: int) -> bytes:
    """Store the pixels turned so that a viewer applying EXIF `orientation` shows `upright` again."""
    stored = {3: Image.Transpose.ROTATE_180, 6: Image.Transpose.ROTATE_90, 8: Image.Transpose.ROTATE_270}
    exif = Image.Exif()
    exif[0x0112] = orientation
    return jpeg_bytes(upright.transpose(stored[orientation]), quality=95, exif=exif.tobytes())


@pytest.fixture(scope="module")
def baiona(image_paths) -> Image.Image:
    with Image.open(image_paths["baiona"]) as im:
        assert im.mode == "RGB"
        return im.copy()


@pytest.fixture(scope="module")
def typewriter_1bit(image_paths) -> Image.Image:
    with Image.open(image_paths["typewriter"]) as im:
        assert im.mode == "P" and im.getpalette()[:6] == [0, 0, 0, 255, 255, 255]   # bilevel palette
        return im.convert("1", dither=Image.Dither.NONE)


def bad_files(image_paths) -> dict[str, tuple[bytes, str]]:
    """file name -> (content, expected RettoError code)."""
    png = image_paths["baiona"].read_bytes()
    jpg = image_paths["baiona_color.jpg"].read_bytes()
    return {
        "empty.png": (b"", INVALID),
        "truncated.png": (png[: len(png) // 2], INVALID),
        "truncated.jpg": (jpg[: len(jpg) // 2], INVALID),
        "notes.png": ("Dit is geen afbeelding, maar tekst.\n".encode() * 20, INVALID),
        "bomb_50000x50000.png": (bomb_png(), TOO_LARGE),
    }


# --------------------------------------------------------------------------------------------- comparisons

def texts(result: dict) -> list[str]:
    return [ln["text"] for ln in result["lines"]]


def assert_same_result(got: dict, want: dict, what: str) -> None:
    """Same image size, same texts in the same order, boxes within a pixel (same pixels in -> same result)."""
    assert (got["image"]["width"], got["image"]["height"]) == (want["image"]["width"], want["image"]["height"]), what
    assert texts(got) == texts(want), what
    for a, b in zip(got["lines"], want["lines"]):
        assert np.abs(np.asarray(a["box"]) - np.asarray(b["box"])).max() <= 1.0, (what, a, b)


def text_share(got: dict, base: dict) -> float:
    common = Counter(texts(got)) & Counter(texts(base))
    return sum(common.values()) / max(1, len(base["lines"]))


_api_reads: dict[str, dict] = {}


def api_read(session, data: bytes) -> dict:
    """session.run(data).to_dict(), made once per distinct input bytes in this module: the CLI batch test below
    compares the CLI with the API on the very bytes that the variant tests (16-bit, CMYK, EXIF) already read."""
    key = hashlib.sha256(data).hexdigest()
    if key not in _api_reads:
        _api_reads[key] = session.run(data).to_dict()
    return _api_reads[key]


@pytest.fixture(scope="module")
def baiona_rgb_result(retto_session, baiona):
    res = retto_session.run(png_bytes(baiona)).to_dict()
    assert len(res["lines"]) >= 15, "the RGB baseline itself found too little (see test_reference.py)"
    return res


# --------------------------------------------------------------------------------------------- Session API: errors

@pytest.mark.parametrize("name", ["empty.png", "truncated.png", "truncated.jpg", "notes.png", "bomb_50000x50000.png"])
def test_session_rejects_bad_file_with_code(name, retto_session, image_paths):
    from retto import RettoError
    content, code = bad_files(image_paths)[name]
    t0 = time.perf_counter()
    with pytest.raises(RettoError) as info:
        retto_session.run(content)
    elapsed = time.perf_counter() - t0
    err = info.value
    assert err.code == code, f"{name}: got {err.code}: {err.message}"
    assert isinstance(err.message, str) and len(err.message) >= 10
    assert err.to_dict() == {"error": {"code": code, "message": err.message}}
    assert elapsed < 5, f"{name}: rejecting took {elapsed:.1f} s (it must not decode what it refuses)"


def test_session_one_pixel_image(retto_session):
    """A 1x1 image has no text: an empty result of the right size, or a clear invalid_image. Never a crash."""
    from retto import RettoError
    for color in ((255, 255, 255), (0, 0, 0)):
        data = png_bytes(Image.new("RGB", (1, 1), color))
        try:
            res = retto_session.run(data).to_dict()
        except RettoError as err:
            assert err.code == INVALID and err.message
        else:
            assert res["image"] == {"width": 1, "height": 1}
            assert res["lines"] == []


# --------------------------------------------------------------------------------------------- Session API: variants

def test_16bit_rgb_png_is_read_at_full_range(retto_session, baiona, baiona_rgb_result):
    arr = np.asarray(baiona).astype(np.uint16) * 257            # exact: high byte == original 8-bit value
    data = png16(arr)
    with Image.open(io.BytesIO(data)) as im:
        assert im.size == baiona.size
    assert_same_result(api_read(retto_session, data), baiona_rgb_result, "16-bit RGB PNG")


def test_16bit_gray_png_is_scaled_not_clipped(retto_session, baiona):
    gray = np.asarray(baiona.convert("L"))
    want = retto_session.run(png_bytes(Image.fromarray(gray, "L"))).to_dict()
    assert len(want["lines"]) >= 12
    got = retto_session.run(png16(gray.astype(np.uint16) * 257)).to_dict()
    assert_same_result(got, want, "16-bit gray PNG vs the same 8-bit gray pixels")


def test_opaque_rgba_png_from_sdist(retto_session, image_paths, baiona_rgb_result):
    got = retto_session.run(image_paths["baiona_alpha"].read_bytes()).to_dict()
    assert_same_result(got, baiona_rgb_result, "baiona_alpha.png (RGBA, fully opaque)")


def test_transparent_png_is_composited_on_white(retto_session, baiona):
    """Paper-white pixels made fully transparent with black underneath (as cut-outs are often stored)."""
    rgb = np.asarray(baiona).copy()
    clear = (rgb >= 250).all(axis=2)
    assert 0.3 < clear.mean() < 0.8
    rgba = np.dstack([rgb, np.where(clear, 0, 255).astype(np.uint8)])
    rgba[clear, :3] = 0
    viewer = rgb.copy()
    viewer[clear] = 255                                          # what a viewer shows over a white page
    want = retto_session.run(png_bytes(Image.fromarray(viewer, "RGB"))).to_dict()
    got = retto_session.run(png_bytes(Image.fromarray(rgba, "RGBA"))).to_dict()
    assert len(want["lines"]) >= 15
    assert_same_result(got, want, "transparent RGBA PNG vs its white composite")


@pytest.mark.parametrize("source", ["sdist", "pillow"])
def test_palette_png(source, retto_session, image_paths, baiona, baiona_rgb_result):
    if source == "sdist":
        data = image_paths["baiona_colormapped"].read_bytes()
    else:
        data = png_bytes(baiona.convert("P", palette=Image.Palette.ADAPTIVE, colors=256))
    with Image.open(io.BytesIO(data)) as im:
        assert im.mode == "P"
        expanded = im.convert("RGB")                              # palette indices -> colours
    want = retto_session.run(png_bytes(expanded)).to_dict()
    got = retto_session.run(data).to_dict()
    assert_same_result(got, want, f"palette PNG ({source}) vs its expanded RGB")
    assert text_share(got, baiona_rgb_result) >= MIN_LOSSY_SHARE    # and it is baiona, not palette indices


def test_one_bit_png(retto_session, typewriter_1bit, reference_runs):
    data = png_bytes(typewriter_1bit)
    with Image.open(io.BytesIO(data)) as im:
        assert im.mode == "1"
    got = retto_session.run(data).to_dict()
    assert_same_result(got, reference_runs("typewriter")["ours"], "1-bit PNG vs the bilevel palette original")


@pytest.mark.parametrize("source", ["sdist", "pillow"])
def test_cmyk_jpeg(source, retto_session, image_paths, baiona, baiona_rgb_result):
    if source == "sdist":
        data = image_paths["baiona_cmyk.jpg"].read_bytes()
    else:
        data = jpeg_bytes(baiona.convert("CMYK"), quality=95)
    with Image.open(io.BytesIO(data)) as im:
        assert im.mode == "CMYK"
    got = api_read(retto_session, data)
    assert (got["image"]["width"], got["image"]["height"]) == baiona.size
    share = text_share(got, baiona_rgb_result)
    assert share >= MIN_LOSSY_SHARE, (share, texts(got))


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_exif_rotated_jpeg(orientation, retto_session, baiona, baiona_rgb_result):
    from PIL import ImageOps
    data = exif_rotated_jpeg(baiona, orientation)
    with Image.open(io.BytesIO(data)) as im:
        assert im.size == (baiona.size if orientation == 3 else baiona.size[::-1])
        upright = ImageOps.exif_transpose(im)                      # independent: Pillow's own EXIF handling
        assert upright.size == baiona.size
        assert np.abs(np.asarray(upright, dtype=float) - np.asarray(baiona, dtype=float)).mean() < 4  # the fixture
    got = api_read(retto_session, data)
    # the upright (displayed) geometry, the same result as on the upright pixels ...
    assert (got["image"]["width"], got["image"]["height"]) == baiona.size
    assert_same_result(got, retto_session.run(png_bytes(upright)).to_dict(), f"EXIF orientation {orientation}")
    # ... which are baiona's texts (JPEG loss aside) at baiona's places
    assert text_share(got, baiona_rgb_result) >= MIN_LOSSY_SHARE
    base = [(ln["box"], ln["text"]) for ln in baiona_rgb_result["lines"]]
    mine = [(ln["box"], ln["text"]) for ln in got["lines"]]
    ious = [iou for _, _, iou in match_lines(base, mine)]
    assert sum(ious) / len(ious) >= 0.8, ious


# --------------------------------------------------------------------------------------------- CLI batch

def run_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "retto", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=timeout)


def _record_path(rec: dict) -> str | None:
    for key in ("path", "file", "source", "input"):
        if isinstance(rec.get(key), str):
            return rec[key]
    img = rec.get("image")
    if isinstance(img, dict):
        for key in ("path", "file", "name"):
            if isinstance(img.get(key), str):
                return img[key]
    return None


def test_cli_batch_good_and_bad(tmp_path, image_paths, baiona, retto_session, baiona_rgb_result, reference_runs):
    batch = tmp_path / "batch"
    (batch / "sub").mkdir(parents=True)
    expected_errors = {}
    for name, (content, code) in bad_files(image_paths).items():
        (batch / name).write_bytes(content)
        expected_errors[name] = code
    good = {
        "baiona.png": image_paths["baiona"].read_bytes(),
        "sub/baiona_cmyk.jpg": image_paths["baiona_cmyk.jpg"].read_bytes(),           # recursive + CMYK
        "sub/rotated_exif6.jpg": exif_rotated_jpeg(baiona, 6),
        "baiona16.png": png16(np.asarray(baiona).astype(np.uint16) * 257),
    }
    for name, content in good.items():
        (batch / name).write_bytes(content)

    proc = run_cli("--models", "ppocr-v4", "--images", str(batch), "--format", "jsonl")   # as retto_session
    assert proc.returncode != 0, "a batch with unreadable files must exit non-zero"
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert len(records) == len(good) + len(expected_errors), proc.stdout + proc.stderr
    by_name = {}
    for rec in records:
        path = _record_path(rec)
        assert path, f"a jsonl record does not name its file: {rec}"
        by_name[Path(path).resolve().relative_to(batch.resolve()).as_posix()] = rec
    assert set(by_name) == set(good) | set(expected_errors)

    for name, code in expected_errors.items():
        rec = by_name[name]
        assert rec.get("error", {}).get("code") == code, (name, rec)
        assert rec["error"].get("message"), (name, rec)
        assert not rec.get("lines"), (name, rec)
    for name, content in good.items():
        rec = by_name[name]
        assert "error" not in rec or not rec["error"], (name, rec)
        # The CLI gives what the API gives on the same bytes (read once in this run: baiona.png by conftest's
        # reference runs, the others by the variant tests above, or here if they did not run).
        want = reference_runs("baiona")["ours"] if name == "baiona.png" else api_read(retto_session, content)
        assert texts(rec) == texts(want), name
        assert (rec["image"]["width"], rec["image"]["height"]) == baiona.size, name
        assert text_share(rec, baiona_rgb_result) >= MIN_LOSSY_SHARE, name
        assert rec.get("backend"), f"{name}: the result does not report the providers used"
