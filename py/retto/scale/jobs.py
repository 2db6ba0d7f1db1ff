"""`retto --jobs N`: N worker processes, each with its own Session on one onnxruntime thread, over the inputs.

On one machine this beats one process with N threads (measured: docs/measurements/scale.md): a page's pipeline is part
Python (single-threaded) and part onnxruntime, and N processes keep every core busy in both parts. Results come
back in input order, so the CLI writes exactly what it writes without --jobs. Workers are spawned (not forked:
onnxruntime's thread pools do not survive a fork) and ignore Ctrl-C; the parent stops them. A worker that dies
(a crash in native code) fails the run with BrokenProcessPool instead of leaving it waiting forever, as a
multiprocessing.Pool would.
"""
from __future__ import annotations

import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

_session = None
_start_error = None


def _start(worker_args: dict, overrides) -> None:
    global _session, _start_error
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        from retto.native.ort_worker import OrtWorker
        _session = OrtWorker(**worker_args).session(overrides)
    except Exception as exc:   # said by describe(): a raising initializer would make the pool respawn forever
        _start_error = exc


def _describe():
    if _start_error is not None:
        raise _start_error
    return dict(_session.backend)


def _ocr(task):
    from retto.native.read import ocr_one
    path, max_bytes, keep_data = task
    result, data = ocr_one(_session, Path(path), max_bytes)
    return result, data if keep_data else None


class JobPool:
    """The worker processes. Raises RettoError (from a worker) if the models cannot load."""

    def __init__(self, jobs: int, worker_args: dict, overrides, max_bytes: int, keep_data: bool):
        from retto.models import sets as model_sets
        args = {**worker_args, "threads": worker_args.get("threads") or 1}
        self.model_set = model_sets.load(args.get("models"), args.get("models_dir"))
        self.config = self.model_set.make_config(overrides)
        self.max_bytes, self.keep_data = max_bytes, keep_data
        self.pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_start,
                                        initargs=(args, overrides))
        try:
            self.backend = self.pool.submit(_describe).result()
        except BaseException:
            self.close()
            raise

    def results(self, paths):
        """(result record without path, the file's bytes if kept) per path, in the order given."""
        tasks = ((str(p), self.max_bytes, self.keep_data) for p in paths)
        return self.pool.map(_ocr, tasks)

    def close(self) -> None:
        """Stop now: queued inputs are dropped and running ones ended (after Ctrl-C nobody waits for them)."""
        processes = list((getattr(self.pool, "_processes", None) or {}).values())
        self.pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:
            proc.terminate()
        for proc in processes:
            proc.join()
