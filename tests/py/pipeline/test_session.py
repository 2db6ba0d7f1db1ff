"""The session drives any Worker, sync or async, and streams each stage's results as it finishes."""
from __future__ import annotations

import asyncio

import pytest

from retto import RettoError, Session


def test_progress_streams_boxes_then_angles_then_texts(retto_session, image_paths):
    events = []
    result = retto_session.run(image_paths["baiona"], on_progress=lambda stage, info: events.append((stage, info)))
    stages = [s for s, _ in events]
    assert stages[0] == "decode" and stages[1] == "det" and stages[-1] == "done"
    assert stages.index("cls") < stages.index("rec")
    det_info = events[1][1]
    assert det_info["boxes"] == len(det_info["quads"]) >= len(result.lines)
    streamed = {}
    for stage, info in events:
        if stage == "rec":
            streamed.update({l["index"]: l["text"] for l in info["lines"]})
    assert len(streamed) == det_info["boxes"]
    assert {line.text for line in result.lines} <= set(streamed.values())
    assert events[-1][1]["result"] == result.to_dict()


def test_async_worker_gives_the_same_result(retto_worker, retto_session, image_paths):
    """The browser bridge returns awaitables; the one coroutine pipeline must give identical output."""
    class AsyncWorker:
        async def det(self, x):
            await asyncio.sleep(0)
            return retto_worker.det(x)

        async def cls(self, x):
            await asyncio.sleep(0)
            return retto_worker.cls(x)

        async def rec(self, x):
            await asyncio.sleep(0)
            return retto_worker.rec(x)

    session = Session(AsyncWorker(), retto_worker.charset)
    data = image_paths["baiona"].read_bytes()
    got = asyncio.run(session.run_async(data)).to_dict()
    want = retto_session.run(data).to_dict()
    assert got["lines"] == want["lines"] and len(got["lines"]) >= 15
    with pytest.raises(RuntimeError, match="run_async"):
        session.run(data)


def test_worker_failure_is_a_typed_error(retto_worker, image_paths):
    class BrokenRec:
        det, cls = retto_worker.det, retto_worker.cls

        def rec(self, x):
            raise MemoryError("out of memory")

    with pytest.raises(RettoError) as err:
        Session(BrokenRec(), retto_worker.charset).run(image_paths["baiona"].read_bytes())
    assert err.value.code == "inference_failed" and "rec" in err.value.message


def test_missing_path_is_named(retto_session, tmp_path):
    with pytest.raises(RettoError) as err:
        retto_session.run(tmp_path / "nope.png")
    assert err.value.code == "invalid_image" and "nope.png" in err.value.message
