"""The CLI never loses a result and never blows up: every readable input gets its result, whatever happens to the
others (odd file names, output that cannot be written, Ctrl-C, FIFOs and devices, animations, formats we do not
read). Each test runs the real `retto` command on real files made here (a rendered line of text, or baiona).
"""
from __future__ import annotations

import base64
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from refkit import ROOT

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def text_png(text: str = "Never lose a result") -> bytes:
    img = Image.new("RGB", (420, 64), "white")
    ImageDraw.Draw(img).text((12, 14), text, fill="black", font=ImageFont.truetype(FONT, 28))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def run_cli(*args, timeout: float = 300) -> subprocess.CompletedProcess:
    """stdout/stderr as bytes: the tests check the encoding themselves. Arguments may be bytes (odd names)."""
    return subprocess.run([sys.executable, "-m", "retto", *args, "--threads", "2"], cwd=ROOT, capture_output=True,
                          timeout=timeout)


def records(proc) -> list[dict]:
    return json.loads(proc.stdout.decode("utf-8"))     # strict: the output must be valid UTF-8


def by_name(recs: list[dict]) -> dict[str, dict]:
    return {Path(r["path"]).name: r for r in recs}


# --------------------------------------------------------------------------------------------- 1. file names

@pytest.fixture
def latin1_dir(tmp_path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    with open(os.fsencode(folder) + b"/caf\xe9.png", "wb") as f:     # Latin-1 bytes: not valid UTF-8
        f.write(text_png("Cafe menu"))
    (folder / "ok.png").write_bytes(text_png())
    return folder


def test_non_utf8_name_is_reported_losslessly(latin1_dir):
    raw = os.fsencode(latin1_dir) + b"/caf\xe9.png"
    for fmt in ("json", "jsonl"):
        proc = run_cli("--images", str(latin1_dir), "--format", fmt, "--no-progress")
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        text = proc.stdout.decode("utf-8")
        recs = json.loads(text) if fmt == "json" else [json.loads(ln) for ln in text.splitlines()]
        named = by_name(recs)
        assert set(named) == {"caf\\xe9.png", "ok.png"}, named.keys()
        odd = named["caf\\xe9.png"]
        assert base64.b64decode(odd["path_bytes_b64"]) == raw                  # the exact bytes, recoverable
        assert odd["lines"] and "path_bytes_b64" not in named["ok.png"]        # only where it is needed
    proc = run_cli("--images", str(latin1_dir), "--format", "tsv", "--no-progress")
    # TSV fields escape their backslashes (reversible, see retto.export.visible): the name's \xe9 is written \\xe9.
    assert proc.returncode == 0 and b"caf\\\\xe9.png\t0\t" in proc.stdout
    proc.stdout.decode("utf-8")


def test_non_utf8_name_gets_its_output_file(latin1_dir, tmp_path):
    out = tmp_path / "out"
    proc = run_cli("--images", str(latin1_dir), "--output", str(out), "--no-progress")
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    written = os.fsencode(out) + b"/caf\xe9.png.json"                         # mirrored byte for byte
    with open(written, "rb") as f:
        rec = json.loads(f.read().decode("utf-8"))
    assert rec["lines"] and base64.b64decode(rec["path_bytes_b64"]).endswith(b"/caf\xe9.png")


# --------------------------------------------------------------------------------------------- 2. output writes

def test_unusable_output_dir_is_refused_before_models_load(tmp_path):
    img = tmp_path / "a.png"
    img.write_bytes(text_png())
    squatter = tmp_path / "results"
    squatter.write_text("not a folder")
    for target in (squatter, squatter / "below"):      # an existing file; a folder that cannot be made
        proc = run_cli("--images", str(img), "--output", str(target))
        err = proc.stderr.decode()
        assert proc.returncode == 2, err
        assert "output_failed" in err and str(squatter) in err
        assert "model set" not in err, "the models were loaded before the output was checked"
        assert squatter.read_text() == "not a folder"


def test_output_write_failure_costs_only_that_input(tmp_path):
    """Failures found only while writing (as root, where chmod stops nothing, these are what happens): a folder
    squatting on one result's file name, and a file squatting on the folder another result mirrors into."""
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    for name in ("a.png", "b.png", "sub/c.png"):
        (src / name).write_bytes(text_png())
    out = tmp_path / "out"
    (out / "a.png.json").mkdir(parents=True)
    (out / "sub").write_text("in the way")
    proc = run_cli("--images", str(src), "--output", str(out), "--no-progress")
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert json.loads((out / "b.png.json").read_text())["lines"]              # the writable one is there
    failed = [ln for ln in err.splitlines() if ln.startswith("retto: output_failed:")]
    assert len(failed) == 2 and "a.png" in failed[0] and "c.png" in failed[1], err
    assert "2 of 3 inputs failed" in err and "Traceback" not in err


def _in_private_mounts(ro_dirs: list[Path], argv: list[str]) -> list[str] | None:
    """argv run with ro_dirs bind-mounted read-only in a private mount namespace (gone with the process), or
    None where that is not allowed. A read-only mount stops writes even for root, unlike chmod."""
    if not shutil.which("unshare"):
        return None
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount --bind -o ro '{ro_dirs[0]}' '{ro_dirs[0]}'"],
                           capture_output=True)
    if probe.returncode:
        return None
    mounts = " && ".join(f"mount --bind -o ro '{d}' '{d}'" for d in ro_dirs)
    return ["unshare", "-m", "sh", "-c", f'{mounts} && exec "$@"', "sh", *argv]


def test_read_only_mount_output_up_front_and_mid_run(tmp_path):
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    (src / "a.png").write_bytes(text_png())
    (src / "sub" / "b.png").write_bytes(text_png())
    ro_out, out = tmp_path / "ro_out", tmp_path / "out"
    ro_out.mkdir()
    (out / "sub").mkdir(parents=True)
    cli = [sys.executable, "-m", "retto", "--images", str(src), "--no-progress", "--threads", "2"]
    # the whole --output read-only: refused before the models load
    argv = _in_private_mounts([ro_out], [*cli, "--output", str(ro_out)])
    assert argv is not None, "this test needs `unshare -m` with mount rights (Linux, as root or with user namespaces)"
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, timeout=300)
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "output_failed" in err and "Read-only" in err and "model set" not in err, err
    # only out/sub read-only: found when sub/b.png's result is written; a.png's result still arrives
    proc = subprocess.run(_in_private_mounts([out / "sub"], [*cli, "--output", str(out)]), cwd=ROOT,
                          capture_output=True, timeout=300)
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    assert json.loads((out / "a.png.json").read_text())["lines"]
    assert "output_failed: " in err and "b.png" in err and "1 of 2 inputs failed" in err, err


# --------------------------------------------------------------------------------------------- 3. Ctrl-C

@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_sigint_and_sigterm_leave_valid_json_of_what_finished(tmp_path, image_paths, signum):
    src = tmp_path / "in"
    src.mkdir()
    for i in range(8):
        shutil.copy(image_paths["baiona"], src / f"p{i}.png")
    proc = subprocess.Popen([sys.executable, "-m", "retto", "--images", str(src), "--threads", "1"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err, done = [], 0
    deadline = time.monotonic() + 240
    while done < 2 and time.monotonic() < deadline:
        line = proc.stderr.readline().decode()
        assert line, "the CLI ended before it was interrupted: " + "".join(err)
        err.append(line)
        done += line.startswith("[") and " lines " in line
    assert done >= 2, "".join(err)
    proc.send_signal(signum)
    out, rest = proc.communicate(timeout=120)
    err = "".join(err) + rest.decode()
    assert proc.returncode == 128 + signum, err   # 130 for Ctrl-C, 143 for SIGTERM, as shells report them
    assert "Traceback" not in err and ("interrupted" if signum == signal.SIGINT else "terminated (SIGTERM)") in err
    recs = json.loads(out.decode("utf-8"))
    assert 2 <= len(recs) < 8, err
    assert all(len(r["lines"]) >= 15 for r in recs)


# --------------------------------------------------------------------------------------------- 4. what is read

def test_symlinked_folders_are_followed_once(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "far.png").write_bytes(text_png())
    src = tmp_path / "in"
    (src / "real").mkdir(parents=True)
    (src / "real" / "a.png").write_bytes(text_png())
    (src / "top.png").write_bytes(text_png())
    (src / "link").symlink_to("real")                  # a second way into real/: listed once
    (src / "far").symlink_to(outside)                  # a folder elsewhere: followed
    (src / "real" / "loop").symlink_to("..")           # a loop: must neither hang nor repeat
    proc = run_cli("--images", str(src), "--format", "jsonl", "--no-progress", timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    paths = sorted(Path(json.loads(ln)["path"]).relative_to(src).as_posix() for ln in proc.stdout.splitlines())
    assert paths == ["far/far.png", "real/a.png", "top.png"]


def test_fifo_and_device_are_refused_not_read(tmp_path):
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)                                    # opening it would wait for a writer forever
    good = tmp_path / "good.png"
    good.write_bytes(text_png())
    proc = run_cli("--images", str(fifo), "/dev/zero", str(good), "--no-progress", timeout=120)
    assert proc.returncode == 1, proc.stderr.decode()
    named = by_name(records(proc))
    assert named["pipe.png"]["error"]["code"] == "invalid_image"
    assert "is not a regular file (a FIFO)" in named["pipe.png"]["error"]["message"]
    assert "is not a regular file (a device)" in named["zero"]["error"]["message"]
    assert named["good.png"]["lines"]


def test_max_file_bytes(tmp_path):
    big, small = tmp_path / "big.png", tmp_path / "small.png"
    big.write_bytes(text_png() + bytes(5000))         # PNG readers ignore what follows IEND
    small.write_bytes(text_png())
    limit = len(text_png()) + 100
    proc = run_cli("--images", str(big), str(small), "--max-file-bytes", str(limit), "--no-progress")
    assert proc.returncode == 1
    named = by_name(records(proc))
    assert named["big.png"]["error"]["code"] == "file_too_large"
    assert "--max-file-bytes" in named["big.png"]["error"]["message"]
    assert named["small.png"]["lines"]


# --------------------------------------------------------------------------------------------- 5. frames

def _multi_frame(fmt: str) -> bytes:
    first = Image.open(io.BytesIO(text_png("First frame here"))).convert("RGB")
    second = Image.new("RGB", first.size, "black")
    buf = io.BytesIO()
    first.save(buf, fmt, save_all=True, append_images=[second])
    return buf.getvalue()


@pytest.mark.parametrize("fmt, word", [("GIF", "frames"), ("TIFF", "pages"), ("PNG", "frames"), ("WEBP", "frames")])
def test_decode_warns_about_unread_frames(fmt, word):
    from retto.io.image import decode_with_warnings
    arr, notes = decode_with_warnings(_multi_frame(fmt))
    assert notes == [f"this file has 2 {word}; only the first was read"]
    assert arr.min() == 0 and arr.max() == 255          # the first frame (text on white), not the black one
    assert decode_with_warnings(text_png())[1] == []


def test_cli_result_warns_about_unread_frames(tmp_path):
    (tmp_path / "anim.gif").write_bytes(_multi_frame("GIF"))
    (tmp_path / "scan.tif").write_bytes(_multi_frame("TIFF"))
    proc = run_cli("--images", str(tmp_path), "--no-progress")
    assert proc.returncode == 0, proc.stderr.decode()
    named = by_name(records(proc))
    assert "this file has 2 frames; only the first was read" in named["anim.gif"]["warnings"]
    assert "this file has 2 pages; only the first was read" in named["scan.tif"]["warnings"]
    assert all(r["lines"] for r in named.values())


# --------------------------------------------------------------------------------------------- 6. formats

UNSUPPORTED = {
    "photo.avif": (b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf" + bytes(64), "AVIF images are not"),
    "photo.heic": (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(64), "HEIC/HEIF images are not"),
    "fig.eps": (b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n", "PostScript/EPS input is not supported"),
    "fig_dos.eps": (b"\xc5\xd0\xd3\xc6\x1e\x00\x00\x00" + bytes(32), "PostScript/EPS input is not supported"),
    "logo.svg": (b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="9"/>', "SVG is a vector"),
    "art.jxl": (b"\x00\x00\x00\x0cJXL \r\n\x87\n" + bytes(32), "JPEG XL images are not supported"),
    "layers.psd": (b"8BPS\x00\x01" + bytes(40), "PSD images are not supported"),
}


def test_unsupported_formats_say_what_they_are(tmp_path):
    for name, (head, _) in UNSUPPORTED.items():
        (tmp_path / name).write_bytes(head)
    (tmp_path / "fine.png").write_bytes(text_png())
    names = [str(tmp_path / n) for n in [*UNSUPPORTED, "fine.png"]]
    proc = run_cli("--images", *names, "--no-progress")
    assert proc.returncode == 1
    named = by_name(records(proc))
    for name, (_, words) in UNSUPPORTED.items():
        err = named[name]["error"]
        assert err["code"] == "invalid_image" and words in err["message"], (name, err)
        assert "PNG" in err["message"] and "starts with" not in err["message"], (name, err)
    assert named["fine.png"]["lines"]


def test_eps_is_never_opened_by_pillow(monkeypatch):
    """Pillow's EPS plugin runs Ghostscript on load: decode must not reach it, whatever the header says."""
    from PIL import EpsImagePlugin

    from retto import RettoError
    from retto.io.image import SAFE_FORMATS, decode

    def refuse(*a, **k):
        raise AssertionError("EpsImagePlugin was used")
    monkeypatch.setattr(EpsImagePlugin.EpsImageFile, "_open", refuse)
    monkeypatch.setattr(EpsImagePlugin, "Ghostscript", refuse)
    assert "EPS" not in SAFE_FORMATS
    eps = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(eps, "EPS")
    for data in (eps.getvalue(), b"\n\n" + eps.getvalue()):
        with pytest.raises(RettoError) as info:
            decode(data)
        assert info.value.code == "invalid_image"


def test_config_takes_the_json_itself_as_help_shows_it_or_a_file(tmp_path):
    """--config as `retto --help` shows it (inline JSON) and as a file give the same settings; a broken value says
    which it was, before any model loads."""
    settings = '{"layout": {"regions": true, "tables": true}, "rec": {"batch_size": 3}}'
    inline = run_cli("--print-config", "--config", settings)
    assert inline.returncode == 0, inline.stderr
    (tmp_path / "s.json").write_text(settings)
    from_file = run_cli("--print-config", "--config", str(tmp_path / "s.json"))
    assert from_file.returncode == 0, from_file.stderr
    shown = json.loads(inline.stdout)
    assert shown == json.loads(from_file.stdout)
    assert shown["layout"]["tables"] is True and shown["rec"]["batch_size"] == 3
    default = json.loads(run_cli("--print-config").stdout)
    assert default["layout"]["tables"] == "auto" and default["rec"]["batch_size"] != 3
    bad = run_cli("--print-config", "--config", '{"layout": ')
    assert bad.returncode == 2 and b"invalid_config: cannot read the --config JSON" in bad.stderr, bad.stderr
    missing = run_cli("--print-config", "--config", str(tmp_path / "none.json"))
    assert missing.returncode == 2 and b"cannot read the settings file" in missing.stderr, missing.stderr
    help_text = run_cli("--help").stdout.decode()
    assert '--config FILE|JSON' in help_text and '{"layout": {"regions": true, "tables": true}}' in " ".join(
        help_text.split())
