"""A batch's peak memory (issue 23: the batch's peak bounded). onnxruntime keeps, by default, a CPU memory arena
per session, each holding the most its model ever needed; with five models per page (det, cls, page orientation,
rec, the re-reading rec) their sum made a 200-page batch peak at 1.6 GB in one process. retto registers one arena
for the process (`retto.native.ort_worker.share_cpu_arena`), which the models use in turn.

The CLI reads a small batch in a subprocess that reports its own peak RSS (VmHWM). On these two pages the
per-session arenas peaked at 744 MB (this test run on the code before the shared arena: it failed), the shared
one at 557 MB; the bound sits between."""
from __future__ import annotations

import json
import shutil

from refkit import ROOT, run_cli_peak

DATA = ROOT / "tests" / "data"
BOUND_MB = 650


def test_batch_peak_memory_is_one_arena_not_one_per_model(tmp_path):
    batch = tmp_path / "batch"
    batch.mkdir()
    for name in ("typewriter.png", "baiona.png"):   # a 4000x2864 scan, then a small page of another size
        shutil.copy(DATA / name, batch / name)
    proc, peak_mb = run_cli_peak(["--inputs", batch, "--format", "jsonl", "--threads", "2", "--no-progress"])
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["path"].rsplit("/", 1)[-1] for r in records] == ["baiona.png", "typewriter.png"]
    texts = {r["path"].rsplit("/", 1)[-1]: " ".join(l["text"] for l in r["lines"]) for r in records}
    assert "BAIONA" in texts["baiona.png"].upper(), texts["baiona.png"]   # the city printed on the map
    assert len(records[1]["lines"]) >= 10   # the typewriter page was read, not skipped
    assert peak_mb <= BOUND_MB, f"the batch peaked at {peak_mb:.0f} MB"
