"""`retto` command line: OCR images, PDFs and folders natively, one result per input (a PDF's is a document record
with its pages), failures reported per input and per page."""
from __future__ import annotations

import logging
import os
import signal
import sys
import time
from pathlib import Path

from retto.cli.args import SINGLE_DOCUMENT_FORMATS, TABLE_FILE_FORMATS, TABLES_ON, parse_args
from retto.cli.models_command import info_command, models_main
from retto.cli.progress import InterruptGuard, Progress
from retto.cli.sink import Sink
from retto.errors import OUTPUT_FAILED, RettoError
from retto.io import document
from retto.io.inputs import collect_inputs, path_fields
from retto.io.outputs import check_output_dir
from retto.models import sets as model_sets
from retto.native.options import read_overrides
from retto.native.read import ocr_one, page_images_of, status_of
from retto.records import visible


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["models"]:   # `retto models list | fetch [NAMES]`
        return models_main(argv[1:])
    if argv[:1] == ["batch"]:   # `retto batch ...`: many inputs on Ray Data (retto.scale)
        from retto.scale.batch_cli import main as batch_main
        return batch_main(argv[1:])
    args = parse_args(argv)
    answered = info_command(args)
    if answered is not None:
        return answered
    logging.basicConfig(level=logging.WARNING, format="retto: %(levelname)s: %(message)s")
    # Everything that can be checked without the models is checked before they load.
    images = collect_inputs(args.inputs)
    if not images:
        print("retto: no image or PDF files found in " + visible(" ".join(args.inputs)), file=sys.stderr)
        return 2
    out_dir = Path(args.output) if args.output else None
    if out_dir is None and len(images) > 1 and args.format in SINGLE_DOCUMENT_FORMATS:
        print(f"retto: {args.format} gives one document per input: use --output DIR for {len(images)} inputs",
              file=sys.stderr)
        return 2
    if out_dir is None and args.format in TABLE_FILE_FORMATS:
        what = "one file per table" if args.format == "csv" else "one workbook per input"
        print(f"retto: --format {args.format} writes {what}: use --output DIR", file=sys.stderr)
        return 2
    problem = out_dir and check_output_dir(out_dir)
    if problem:
        print(f"retto: {OUTPUT_FAILED}: {visible(problem)}", file=sys.stderr)
        return 2
    if args.format in TABLE_FILE_FORMATS:   # from the set file and --config alone, before any model loads
        try:
            tables_on = model_sets.load(args.models, args.models_dir).make_config(
                read_overrides(args.config, args)).layout.tables
        except RettoError as err:
            print(f"retto: {err.code}: {visible(err.message)}", file=sys.stderr)
            return 2
        if not tables_on:
            print(f"retto: --format {args.format} writes tables, and tables are off: turn them on "
                  f"with --config '{TABLES_ON}' (or the set's \"auto\": tables on pages that look like one)",
                  file=sys.stderr)
            return 2
    guard = InterruptGuard()
    sink = Sink(args.format, out_dir, guard)   # writes nothing until the first result (or an interrupt)
    done, pool = 0, None
    try:
        from retto.native.ort_worker import OrtWorker  # onnxruntime is only needed here, not by the pipeline
        try:
            overrides = read_overrides(args.config, args)
            worker_args = dict(det=args.det_model, cls=args.cls_model, rec=args.rec_model, device=args.device,
                               device_id=args.device_id, threads=args.threads, strict_device=args.strict_device,
                               models_dir=args.models_dir, models=args.models)
            if args.jobs > 1:   # worker processes, each with its own session (retto.scale.jobs)
                from retto.scale.jobs import JobPool
                worker = pool = JobPool(args.jobs, worker_args, overrides, args.max_file_bytes, args.format == "pdf")
                config = pool.config
            else:
                worker = OrtWorker(**worker_args)
                session = worker.session(overrides)
                config = session.config
        except RettoError as err:
            if guard.stopped:   # Ctrl-C inside `import onnxruntime` can surface as an ImportError
                raise KeyboardInterrupt from None
            print(f"retto: {err.code}: {visible(err.message)}", file=sys.stderr)
            return 2
        providers = ", ".join(f"{k}={v}" for k, v in worker.backend.items())
        print(f"retto: model set {worker.model_set.name} ({worker.model_set.label}); providers {providers}",
              file=sys.stderr)

        progress = Progress(len(images), not args.no_progress)
        failures = 0
        pooled = pool.results(p for p, _ in images) if pool else None
        for n, (path, rel) in enumerate(images, 1):
            t0 = time.perf_counter()
            fields = path_fields(path)

            def on_page(page, count, page_record, page_ms, n=n, name=fields["path"]):
                progress.page(n, name, page, count, status_of(page_record), page_ms)
            result, data = next(pooled) if pool else ocr_one(session, path, args.max_file_bytes, on_page)
            record = {**fields, **result}
            ms = (time.perf_counter() - t0) * 1000.0
            failed = "error" in record or bool(document.failed_pages(record))
            status = status_of(record)
            try:
                problem = sink.put(record["path"], rel, record, page_images_of(record, data, config))
            except (RettoError, ValueError) as exc:   # the searchable PDF could not be made from this input
                problem = f"cannot make its {args.format}: {getattr(exc, 'message', exc)}"
            data = result = None   # this input's bytes go before the next input is read
            if problem:   # the result is lost for this input only; say so and go on
                failed, status = True, f"error {OUTPUT_FAILED}"
                print(visible(f"retto: {OUTPUT_FAILED}: {record['path']}: {problem}"), file=sys.stderr)
            failures += failed
            done = n
            progress.update(n, record["path"], status, ms)
        sink.close()
    except KeyboardInterrupt:
        sink.close()
        how = "terminated (SIGTERM)" if guard.signum == signal.SIGTERM else "interrupted"
        print(f"\nretto: {how} after {done} of {len(images)} inputs", file=sys.stderr)
        return 128 + guard.signum
    except BrokenPipeError:   # the reader went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    finally:
        guard.restore()
        if pool:
            pool.close()
    if failures:
        print(f"retto: {failures} of {len(images)} inputs failed", file=sys.stderr)
    return 1 if failures else 0
