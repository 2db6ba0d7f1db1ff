"""Native runtime: device selection and its fallback report (CUDA/DirectML cannot exist here, so the
onnxruntime surface is mocked around the real selection logic), model integrity, and the CLI end to end."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import onnxruntime as ort
import pytest

from retto import RettoError
from retto.models import sets as model_sets
from retto.models.files import default_models_dir
from retto.native.ort_worker import OrtWorker, parse_device, provider_list


def test_parse_device():
    assert parse_device("cpu") == ("cpu", 0)
    assert parse_device("cuda:1") == ("cuda", 1)
    assert parse_device("CUDA", 2) == ("cuda", 2)
    assert parse_device("dml:3") == ("directml", 3)
    with pytest.raises(RettoError) as err:
        parse_device("tpu")
    assert err.value.code == "backend_unavailable"


def test_cuda_providers_carry_seed_options_and_cpu_fallback():
    providers, warnings = provider_list("cuda", 1, ["CUDAExecutionProvider", "CPUExecutionProvider"])
    name, opts = providers[0]
    assert name == "CUDAExecutionProvider" and providers[-1] == "CPUExecutionProvider"
    assert opts["device_id"] == 1 and opts["arena_extend_strategy"] == "kNextPowerOfTwo"
    assert opts["cudnn_conv_algo_search"] == "EXHAUSTIVE" and warnings == []


def test_missing_device_says_what_to_install():
    providers, warnings = provider_list("directml", 0, ["CPUExecutionProvider"])
    assert providers == ["CPUExecutionProvider"]
    assert "onnxruntime-directml" in warnings[0] and "running on CPU" in warnings[0]


def test_cuda_request_on_cpu_build_falls_back_and_reports(caplog):
    w = OrtWorker(device="cuda", threads=1)              # this machine's onnxruntime has no CUDA provider
    assert all("CPUExecutionProvider" in b for b in w.backend.values())
    assert any("onnxruntime-gpu" in m for m in w.warnings)
    assert any("onnxruntime-gpu" in r.getMessage() for r in caplog.records)
    result = w.session().run(_small_png())
    assert result.to_dict()["warnings"] == w.warnings


def test_strict_device_refuses_fallback():
    with pytest.raises(RettoError) as err:
        OrtWorker(device="cuda", strict_device=True)
    assert err.value.code == "backend_unavailable" and "onnxruntime-gpu" in err.value.message


def test_provider_that_fails_at_start_is_reported(monkeypatch):
    """CUDA listed as available but the session silently ends up on CPU (e.g. no driver): we must say so."""
    real = ort.InferenceSession
    requested = []

    class FakeCudaSession:
        def __init__(self, data, sess_options=None, providers=None):
            requested.append(providers)
            self._s = real(data, sess_options=sess_options, providers=["CPUExecutionProvider"])

        def get_providers(self):
            return ["CPUExecutionProvider"]

        def __getattr__(self, name):
            return getattr(self._s, name)

    monkeypatch.setattr(ort, "get_available_providers", lambda: ["CUDAExecutionProvider", "CPUExecutionProvider"])
    monkeypatch.setattr(ort, "InferenceSession", FakeCudaSession)
    w = OrtWorker(device="cuda:0", threads=1)
    assert requested[0][0][0] == "CUDAExecutionProvider" and requested[0][-1] == "CPUExecutionProvider"
    assert len([m for m in w.warnings if "fell back to CPUExecutionProvider" in m]) == 3
    with pytest.raises(RettoError):
        OrtWorker(device="cuda:0", threads=1, strict_device=True)


def _copy_models(tmp_path):
    """A models dir holding the v4 set (the set file marked default) and its fetched files."""
    src = default_models_dir()
    v4 = model_sets.load("ppocr-v4", src)
    (tmp_path / "sets").mkdir()
    (tmp_path / "sets" / "ppocr-v4.json").write_text(json.dumps({**v4.to_dict(), "default": True}))
    shutil.copytree(model_sets.set_dir(v4, src), tmp_path / "ppocr-v4")
    return tmp_path / "ppocr-v4"


def test_retto_threads_sets_the_default_thread_count(monkeypatch, tmp_path, image_paths):
    """$RETTO_THREADS reaches onnxruntime's session options unless threads are given; a bad value is refused with
    invalid_config, by the CLI too (exit 2, the message on stderr, no result file)."""
    monkeypatch.setenv("RETTO_THREADS", "1")
    assert OrtWorker()._opts.intra_op_num_threads == 1
    assert OrtWorker(threads=2)._opts.intra_op_num_threads == 2
    monkeypatch.delenv("RETTO_THREADS")
    assert OrtWorker()._opts.intra_op_num_threads == 0   # onnxruntime's own default: one per core
    monkeypatch.setenv("RETTO_THREADS", "two")
    with pytest.raises(RettoError) as err:
        OrtWorker()
    assert err.value.code == "invalid_config" and "RETTO_THREADS" in str(err.value)
    out = subprocess.run([sys.executable, "-m", "retto", "--images", str(image_paths["baiona"]), "--format", "json",
                          "--output", str(tmp_path / "out"), "--no-progress"], capture_output=True, text=True)
    assert out.returncode == 2 and "RETTO_THREADS" in out.stderr and not any((tmp_path / "out").glob("*"))


def test_corrupt_model_is_refused_by_name(tmp_path):
    folder = _copy_models(tmp_path)
    path = folder / "cls.onnx"
    data = bytearray(path.read_bytes())
    data[1000] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(RettoError) as err:
        OrtWorker(models_dir=tmp_path)
    assert err.value.code == "model_integrity" and str(path) in err.value.message


def test_missing_model_is_named(tmp_path):
    folder = _copy_models(tmp_path)
    (folder / "rec.onnx").unlink()
    with pytest.raises(RettoError) as err:
        OrtWorker(models_dir=tmp_path)
    assert err.value.code == "model_missing" and str(folder / "rec.onnx") in err.value.message


def test_unknown_model_set_lists_the_sets():
    with pytest.raises(RettoError) as err:
        OrtWorker(models="klingon")
    assert err.value.code == "invalid_config"
    for s in model_sets.available():
        assert s.name in err.value.message


def test_model_as_bytes_and_path():
    v4 = model_sets.load("ppocr-v4")
    folder = model_sets.set_dir(v4)
    w = OrtWorker(models="ppocr-v4", det=(folder / "det.onnx").read_bytes(), rec=folder / "rec.onnx", threads=1)
    assert w.versions["det"].startswith("custom") and w.versions["cls"].startswith(v4.files["cls"]["version"])
    assert len(w.charset) == 6623   # the custom rec model's own metadata dictionary


def _small_png():
    import io

    from PIL import Image, ImageDraw
    img = Image.new("RGB", (320, 96), "white")
    ImageDraw.Draw(img).rectangle([20, 30, 300, 60], outline="black")
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def test_cli_json_one_result_per_image_with_providers(tmp_path, image_paths):
    sub = tmp_path / "batch" / "nested"
    sub.mkdir(parents=True)
    shutil.copy(image_paths["baiona"], sub / "baiona.png")
    (tmp_path / "batch" / "notes.png").write_text("not an image")
    proc = subprocess.run([sys.executable, "-m", "retto", "--images", str(tmp_path / "batch"), "--format", "json",
                           "--threads", "2"], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    records = json.loads(proc.stdout)
    assert [r["path"].rsplit("/", 1)[-1] for r in records] == ["baiona.png", "notes.png"]
    good, bad = records
    assert len(good["lines"]) >= 15 and "BAIONA" in [l["text"] for l in good["lines"]]
    # Every model the default set has reports what ran it: det, cls, rec and its optional ones (set file).
    default_files = model_sets.load().files
    want = {"det", "cls", "rec"} | {role for role in model_sets.OPTIONAL_ROLES if role in default_files}
    assert set(good["backend"]) == want and all("CPUExecutionProvider" in b for b in good["backend"].values())
    assert bad["error"]["code"] == "invalid_image"
    assert "providers" in proc.stderr and "1 of 2 inputs failed" in proc.stderr


def test_cli_output_dir_and_text_formats(tmp_path, image_paths):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "retto", "--images", str(image_paths["baiona"]), "--format", "tsv",
                           "--output", str(out), "--no-progress"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = (out / "baiona.png.tsv").read_text().splitlines()
    assert len(rows) >= 15 and all(len(r.split("\t")) == 5 for r in rows)
    proc = subprocess.run([sys.executable, "-m", "retto", "--images", str(image_paths["baiona"]), "--format", "text"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "Komunikabideak" in proc.stdout.splitlines()


def test_cli_output_names_never_collide(tmp_path, image_paths):
    src = tmp_path / "in"
    for sub in ("a", "b"):
        (src / sub).mkdir(parents=True)
        shutil.copy(image_paths["baiona"], src / sub / "x.png")
    (src / "a" / "x.jpg").write_bytes(b"")          # same stem, different file: gets its own error file
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "retto", "--images", str(src), "--format", "json",
                           "--output", str(out), "--no-progress"], capture_output=True, text=True)
    assert proc.returncode == 1
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json"))
    assert files == ["a/x.jpg.json", "a/x.png.json", "b/x.png.json"]
    assert json.loads((out / "a" / "x.jpg.json").read_text())["error"]["code"] == "invalid_image"
    assert len(json.loads((out / "b" / "x.png.json").read_text())["lines"]) >= 15


def test_dark_16_bit_gray_keeps_its_scale():
    """A 16-bit scan whose values all sit below 256 is nearly black, not a bright 8-bit image."""
    import io

    import numpy as np
    from PIL import Image

    from retto.io.image import decode
    buf = io.BytesIO()
    Image.fromarray(np.full((8, 8), 200, np.uint16)).save(buf, "PNG")
    assert decode(buf.getvalue()).max() == 1            # 200 / 65535 * 255 rounds to 1
