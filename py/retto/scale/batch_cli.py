"""`retto batch INPUT... --output DIR`: many inputs on Ray Data, one row per page, resumable.

Exit codes as the CLI's: 0 every page read, 1 some input or page failed, 2 nothing could start, 130 interrupted
(what finished is written).
"""
from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from retto.errors import RettoError
from retto.io.image import DEFAULT_MAX_FILE_BYTES

EXPORTS = ("pdf", "hocr", "md", "alto", "text", "tsv")


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="retto batch",
        description="OCR many images and PDFs on Ray Data (a local Ray unless --ray): one row per page in "
                    "Parquet or JSON lines under OUTPUT/rows/. Re-running skips inputs already done (same path "
                    "and content sha256).")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="image files, PDFs, folders (searched recursively), or pyarrow filesystem URIs "
                        "(file://, s3://, gs://, hdfs://)")
    p.add_argument("--output", required=True, metavar="DIR", help="a local folder or a filesystem URI")
    p.add_argument("--format", choices=("parquet", "jsonl"), default="parquet", help="row files (default parquet)")
    p.add_argument("--export", default="", metavar="FMT,...",
                   help=f"also one file per input document: {','.join(EXPORTS)} (named as retto --output names them)")
    p.add_argument("--ray", metavar="ADDRESS", help="a running Ray cluster (e.g. ray://head:10001 or auto); "
                                                    "default: a local Ray for this run")
    p.add_argument("--ray-temp", metavar="DIR", help="the local Ray's temporary folder (default: a new one in the "
                                                     "system's temporary folder, removed at the end)")
    p.add_argument("--actors", type=int, help="OCR actors (default: CPUs ÷ threads, or one per GPU)")
    p.add_argument("--threads", type=int, help="onnxruntime threads per actor (default 1: fastest per core)")
    p.add_argument("--num-gpus", type=float, default=0.0, help="GPUs per actor (e.g. 1 or 0.5); runs on CUDA")
    p.add_argument("--models", metavar="NAME", help="the model set (see retto --list-models)")
    p.add_argument("--models-dir", help="where the actors find sets/ and the models (default: $RETTO_MODELS_DIR, "
                                        "else the installed package's)")
    p.add_argument("--config", metavar="JSON", help="pipeline settings over the model set's")
    p.add_argument("--dpi", type=int, metavar="N", help="PDF render DPI (document.dpi)")
    p.add_argument("--max-pages", type=int, metavar="N", help="refuse PDFs of more pages (document.max_pages)")
    p.add_argument("--max-file-bytes", type=int, default=DEFAULT_MAX_FILE_BYTES, metavar="N")
    p.add_argument("--rows-per-file", type=int, default=1000, metavar="N",
                   help="rows per part file (written sooner after 30 s); smaller loses less to a kill")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    args.export = [f for f in args.export.split(",") if f]
    bad = [f for f in args.export if f not in EXPORTS]
    if bad:
        p.error(f"--export: unknown format {', '.join(bad)} (choose from {', '.join(EXPORTS)})")
    return args


def out_uri_of(output: str) -> str:
    from retto.scale.inputs import is_uri
    return output if is_uri(output) else str(Path(output).resolve())


def main(argv=None) -> int:
    from retto.native.options import read_overrides
    args = parse_args(sys.argv[2:] if argv is None else argv)
    try:
        from retto.scale.inputs import is_uri, list_inputs
        from retto.scale.resources import plan as make_plan
        from retto.scale.cluster import RayConnection, RayUnavailable
        from retto.scale.pipeline import run_batch
    except ImportError as exc:
        print(f"retto: batch needs Ray Data and pyarrow: pip install 'retto[ray]' ({exc})", file=sys.stderr)
        return 2
    try:
        overrides = read_overrides(args.config, args)
        from retto.models import sets as model_sets
        model_sets.load(args.models, args.models_dir).make_config(overrides)   # a bad set or config: say it now
    except RettoError as err:
        print(f"retto: {err.code}: {err.message}", file=sys.stderr)
        return 2
    if not is_uri(args.output):   # checked before Ray starts, as the CLI checks --output before the models load
        from retto.io.outputs import check_output_dir
        problem = check_output_dir(Path(args.output))
        if problem:
            print(f"retto: output_failed: {problem}", file=sys.stderr)
            return 2
    items, seen = [], set()
    for item in list_inputs(args.inputs):
        if item["path"] not in seen:   # one input named twice is read once
            seen.add(item["path"])
            items.append(item)
    if not items:
        print("retto: no image or PDF files found in " + " ".join(args.inputs), file=sys.stderr)
        return 2
    previous_term = signal.signal(signal.SIGTERM, _raise_interrupt)
    conn = None
    try:
        try:
            conn = RayConnection(args.ray, args.ray_temp)
            plan = make_plan(conn.cpus(), args.actors, args.threads, args.num_gpus, conn.gpus())
        except (RayUnavailable, ValueError) as exc:
            print(f"retto: {exc}", file=sys.stderr)
            return 2
        where = f"the Ray cluster at {args.ray}" if args.ray else \
            f"a local Ray in {conn.temp_dir}" if conn.temp_dir else "the Ray this process is connected to"
        print(f"retto batch: {len(items)} inputs, {plan.actors} actors × {plan.threads} threads on {plan.device}, "
              f"on {where}", file=sys.stderr)
        predictor = {"models": args.models, "models_dir": args.models_dir, "config": overrides,
                     "max_file_bytes": args.max_file_bytes, "exports": tuple(args.export)}
        try:
            summary = run_batch(items, out_uri_of(args.output), plan, fmt=args.format, predictor=predictor,
                                rows_per_file=args.rows_per_file, progress=not args.no_progress)
        except KeyboardInterrupt:
            print("retto batch: interrupted; finished inputs are written", file=sys.stderr)
            return 130
        except Exception as exc:   # e.g. actors that cannot start (models missing on a node)
            print(f"retto: the Ray job failed: {type(exc).__name__}: {str(exc).strip().splitlines()[-1]}",
                  file=sys.stderr)
            return 1
    finally:
        signal.signal(signal.SIGTERM, previous_term)
        if conn is not None:
            conn.close()
    print(f"retto batch: {summary.pages} page rows written in {summary.seconds:.1f} s, {summary.skipped} inputs "
          f"unchanged, {summary.failed_rows} error rows" +
          (f", {summary.duplicates_dropped} repeated rows from retried tasks dropped" if summary.duplicates_dropped
           else ""), file=sys.stderr)
    if summary.interrupted:
        return 130
    return 1 if summary.failed_rows else 0


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


