"""The pipeline over any Worker: a page is decoded, then handed through a list of stages (stages/), each
`run(page) -> page` with its own timing and progress events, and the result is built from what they left.

It is written once as a coroutine. `run_async` awaits the worker (the browser bridge returns promises);
`run` drives the same coroutine synchronously for native workers, whose methods return arrays directly.
"""
from __future__ import annotations

import os
import time

from retto._version import __version__

from retto.ops import rec

from retto.pipeline import stages
from retto.config import Config
from retto.io.image import read_image_file
from retto.pipeline.page import Page
from retto.pipeline.infer import Pipeline, run_stage
from retto.result import OcrResult
from retto.pipeline.worker import Worker


class Session:
    def __init__(self, worker: Worker, charset: list, config: Config | None = None,
                 backend: dict | None = None, versions: dict | None = None, warnings: list | None = None,
                 model_set: str | None = None, extra_charsets: dict | None = None):
        self.worker = worker
        self.model_set = model_set  # the set's name, reported in every result (None: models given by hand)
        self.config = config or Config()
        self.labels = rec.labels_from_charset(list(charset))
        self.backend = dict(backend or {})
        self.versions = {"retto": __version__, **(versions or {})}
        self.warnings = list(warnings or [])
        extra = {role: rec.labels_from_charset(list(c)) for role, c in (extra_charsets or {}).items()}
        self.pipeline = Pipeline(worker, self.config, self.labels, extra, model_set)
        self.stages = stages.build(self.pipeline)

    @property
    def stage_names(self) -> list:
        return [s.name for s in self.stages]

    def run(self, image, on_progress=None) -> OcrResult:
        """Synchronous run for workers whose methods return arrays. `image` may also be a file path (read here,
        at the API edge; the pipeline itself only sees bytes or arrays)."""
        if isinstance(image, (str, os.PathLike)):
            image = read_image_file(image)
        coro = self.run_async(image, on_progress)
        try:
            coro.send(None)
        except StopIteration as done:
            return done.value
        coro.close()
        raise RuntimeError("this worker is asynchronous: use `await session.run_async(...)`")

    async def run_async(self, image, on_progress=None) -> OcrResult:
        notify = on_progress or (lambda stage, info: None)
        t_total = time.perf_counter()
        page = Page.decode(image, self.config, notify)
        image = None   # the encoded bytes are not needed any more
        for stage in self.stages:
            page = await run_stage(stage, page)
        result = page.result(self, t_total)
        notify("done", {"lines": len(result.lines), "result": result.to_dict()})
        return result
