"""The Ray Data job: input items -> an actor pool of PagePredictors -> page rows, written as inputs complete.

    items (driver) --from_items--> map_batches(PagePredictor, ActorPoolStrategy(size=N), batch_size=1)
          --iter_batches--> Assembler (whole inputs, once) --> RowWriter part files (+ progress)

Only the actors reserve CPUs: items come from the driver and rows go back to it, so no read or write task can be
starved of a CPU by the actors (a Ray job waits silently for a CPU that never frees). Actors restart and tasks
retry a bounded number of times (Ray's default for actors is forever, so a file that kills its actor would loop).
"""
from __future__ import annotations

import logging
import time
import warnings
from dataclasses import dataclass, field

from retto.scale.assemble import Assembler
from retto.scale.output import RowWriter
from retto.scale.predictor import PagePredictor
from retto.scale.progress import BatchProgress
from retto.scale.resources import ActorPlan

MAX_ACTOR_RESTARTS = 2
MAX_TASK_RETRIES = 2
MAX_BLOCKS = 10_000   # a block of items goes to one actor: small blocks spread small batches over every actor


@dataclass
class BatchSummary:
    inputs: int = 0
    skipped: int = 0
    pages: int = 0
    failed_rows: int = 0
    duplicates_dropped: int = 0
    parts: list = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False


def run_batch(items: list[dict], out_uri: str, plan: ActorPlan, *, fmt: str = "parquet", predictor: dict,
              rows_per_file: int = 1000, flush_seconds: float = 30.0, progress: bool = True) -> BatchSummary:
    """Run (Ray must be initialised). Returns what was done; rows finished before an interrupt are written."""
    import ray.data

    t0 = time.monotonic()
    writer = RowWriter(out_uri, fmt)
    done = writer.done()
    summary = BatchSummary(inputs=len(items))
    bar = BatchProgress(len(items), progress)
    if not items:
        return summary
    todo = [{**item, "done_sha": done.get(item["path"])} for item in items]
    logging.getLogger("ray.data").setLevel(logging.ERROR)   # our progress line says what matters
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False   # our own line says pages, not blocks
    ctx.execution_options.preserve_order = False
    ds = ray.data.from_items(todo, override_num_blocks=min(len(todo), MAX_BLOCKS))
    with warnings.catch_warnings():
        # Ray 2.60 flags every remote argument outside its named ones as deprecated, and has no named one for
        # bounding restarts and retries, which must be bounded: keep them and silence that warning here.
        warnings.simplefilter("ignore", DeprecationWarning)
        ds = _map(ds, plan, predictor, out_uri)

    assembler, buffered, last_flush = Assembler(), [], time.monotonic()

    def flush():
        nonlocal buffered, last_flush
        part = writer.write(buffered)
        if part:
            summary.parts.append(part)
        buffered, last_flush = [], time.monotonic()

    try:
        for block in ds.iter_batches(batch_size=None, batch_format="pyarrow"):
            for rows, skipped in assembler.feed(block.to_pylist()):
                bar.input_done(rows, skipped)
                if skipped:
                    summary.skipped += 1
                    continue
                summary.pages += len(rows)
                summary.failed_rows += sum(r["error_code"] is not None for r in rows)
                buffered.extend(rows)
            if len(buffered) >= rows_per_file or time.monotonic() - last_flush >= flush_seconds:
                flush()
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        flush()   # whatever finished is kept, interrupted or not
        summary.duplicates_dropped = assembler.duplicates
        summary.seconds = time.monotonic() - t0
        bar.show(final=True)
    return summary


def _map(ds, plan: ActorPlan, predictor: dict, out_uri: str):
    from ray.data import ActorPoolStrategy
    return ds.map_batches(
        PagePredictor, batch_size=1, batch_format="pyarrow", zero_copy_batch=True,
        fn_constructor_kwargs={**predictor, "threads": plan.threads, "device": plan.device, "out_uri": out_uri},
        compute=ActorPoolStrategy(size=plan.actors),
        max_restarts=MAX_ACTOR_RESTARTS, max_task_retries=MAX_TASK_RETRIES, **plan.remote_args())
