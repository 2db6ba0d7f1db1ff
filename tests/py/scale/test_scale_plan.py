"""retto.scale without Ray: how actors, threads and GPUs are planned, the CUDA request reaching a real onnxruntime
(there is no GPU here: it must fall back to CPU and say so), the fixed row schema of an all-error batch, and
repeated rows from a retried task dropped."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from refkit import DATA

from retto.scale.assemble import Assembler
from retto.scale.resources import plan
from retto.scale.rows import SCHEMA, rows_of, table


def test_cpu_plans_never_oversubscribe_cores():
    assert (plan(2).actors, plan(2).threads, plan(2).num_cpus) == (2, 1, 1.0)          # default: 1 thread each
    assert (plan(16, threads=4).actors, plan(16, actors=2).threads) == (4, 8)
    p = plan(8, actors=3, threads=2)
    assert p.actors * p.threads <= 8 and p.remote_args() == {"num_cpus": 2.0} and p.device == "cpu"
    with pytest.raises(ValueError, match="more than the cluster's 2 CPUs"):
        plan(2, actors=2, threads=2)
    with pytest.raises(ValueError, match="no CPU"):
        plan(0)


def test_gpu_plans_ask_cuda_on_the_visible_device():
    p = plan(8, num_gpus=1, gpus=2)
    # Ray gives each actor its own CUDA_VISIBLE_DEVICES, so the actor asks for device 0 of what it sees.
    assert (p.actors, p.threads, p.device) == (2, 1, "cuda:0")
    assert p.remote_args() == {"num_cpus": 1.0, "num_gpus": 1.0}
    assert plan(8, num_gpus=0.5, gpus=1).actors == 2
    with pytest.raises(ValueError, match="no GPU"):
        plan(8, num_gpus=1, gpus=0)
    with pytest.raises(ValueError, match="more than the cluster's 1 GPU"):
        plan(8, actors=2, num_gpus=1, gpus=1)


def test_cuda_request_reaches_onnxruntime_and_falls_back_to_cpu():
    from retto.scale.predictor import PagePredictor
    predictor = PagePredictor(device="cuda:0", threads=1)
    assert any("cuda requested" in w for w in predictor.session.warnings)
    item = {"path": "baiona.png", "source": str(DATA / "baiona.png").encode(), "remote": False, "rel": "baiona.png"}
    out = predictor(pa.Table.from_pylist([item]))
    row = out.to_pylist()[0]
    assert row["error_code"] is None and "Bokale" in row["text"]
    assert "CPUExecutionProvider" in row["result"] and "cuda requested" in row["result"]


def test_all_error_rows_keep_typed_columns(tmp_path):
    rows = rows_of("x.png", None, {"error": {"code": "invalid_image", "message": "cannot read"}}, "ppocr-v6-tiny")
    pq.write_table(table(rows).drop_columns(["skipped"]), tmp_path / "errors.parquet")
    assert pq.read_schema(tmp_path / "errors.parquet") == SCHEMA
    assert not any(pa.types.is_null(f.type) for f in SCHEMA)


def test_retried_rows_are_dropped():
    page = {"lines": [{"text": "a"}], "model_set": "s", "timings": {"total": 1.0}}
    doc = {"kind": "pdf", "page_count": 2, "pages": [{"page": 1, **page}, {"page": 2, **page}]}
    rows = rows_of("d.pdf", "ab", doc, "s")
    asm = Assembler()
    assert list(asm.feed(rows[:1])) == []                     # half an input: held back
    assert list(asm.feed(rows[:1])) == []                     # the same page again (a retried task)
    assert [len(r) for r, _ in asm.feed(rows[1:])] == [2]     # complete: handed on once
    assert list(asm.feed(rows)) == [] and asm.duplicates == 3


def test_actors_find_models_through_retto_models_dir(tmp_path, monkeypatch):
    """An actor on a node without the source tree is pointed at a models folder by $RETTO_MODELS_DIR."""
    from retto.errors import RettoError
    from retto.models.files import default_models_dir
    from retto.scale.predictor import PagePredictor
    repo_models = default_models_dir()
    models = tmp_path / "models"
    models.mkdir()
    (models / "sets").symlink_to(repo_models / "sets")
    (models / "ppocr-v6-tiny").symlink_to(repo_models / "ppocr-v6-tiny")
    monkeypatch.setenv("RETTO_MODELS_DIR", str(models))
    assert PagePredictor(models="ppocr-v6-tiny").model_set == "ppocr-v6-tiny"
    monkeypatch.setenv("RETTO_MODELS_DIR", str(tmp_path / "elsewhere"))
    with pytest.raises(RettoError):
        PagePredictor(models="ppocr-v6-tiny")
