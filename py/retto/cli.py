"""`retto` command line: OCR files and folders natively, one result per image, failures reported per image."""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

from . import model_sets
from .errors import INTERNAL_ERROR, INVALID_CONFIG, RettoError

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp", ".ppm", ".pgm", ".pbm"}


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="retto", description="On-device OCR (PaddleOCR PP-OCR models) over onnxruntime.")
    p.add_argument("--images", nargs="+", metavar="PATH",
                   help="image files and/or directories (searched recursively for image files)")
    p.add_argument("--format", choices=["json", "jsonl", "text", "tsv"], default="json")
    p.add_argument("--output", metavar="DIR", help="write one result file per image into DIR instead of stdout")
    p.add_argument("--device", default="cpu", help="cpu | cuda[:id] | directml[:id] (CPU is the fallback)")
    p.add_argument("--device-id", type=int, default=None)
    p.add_argument("--strict-device", action="store_true", help="fail instead of falling back to CPU")
    p.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads (default: all cores)")
    p.add_argument("--models", metavar="NAME", help="the model set (languages and speed); see --list-models")
    p.add_argument("--list-models", action="store_true", help="list the model sets and exit")
    p.add_argument("--det-model", help="path to a det .onnx (default: the model set's verified model)")
    p.add_argument("--cls-model", help="path to a cls .onnx")
    p.add_argument("--rec-model", help="path to a rec .onnx (its metadata must carry the dictionary)")
    p.add_argument("--models-dir", help="directory holding sets/*.json and the fetched models")
    p.add_argument("--config", metavar="JSON", help="pipeline settings over the model set's (see --print-config)")
    p.add_argument("--print-config", action="store_true",
                   help="print the settings of the model set (--models) as JSON and exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    args = p.parse_args(argv)
    if not (args.images or args.list_models or args.print_config):
        p.error("the following arguments are required: --images")
    return args


def read_overrides(path) -> dict | None:
    """--config: a partial settings JSON applied over the model set's settings."""
    if not path:
        return None
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RettoError(INVALID_CONFIG, f"cannot read the settings file {path}: {exc}") from exc


def info_command(args) -> int | None:
    """--list-models / --print-config: answered from the set files alone (no models loaded)."""
    if not (args.list_models or args.print_config):
        return None
    try:
        if args.list_models:
            print(model_sets.describe(model_sets.available(args.models_dir)))
        else:
            overrides = read_overrides(args.config)
            print(model_sets.load(args.models, args.models_dir).make_config(overrides).to_json())
    except RettoError as err:
        print(f"retto: {err.code}: {err.message}", file=sys.stderr)
        return 2
    return 0


def collect_images(paths) -> list:
    """(path, name relative to the argument) pairs: files as given; directories walked recursively for image
    suffixes. Missing paths are kept so they get their own error line instead of vanishing."""
    out = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
            out.extend((p, p.relative_to(path)) for p in found)
        else:
            out.append((path, Path(path.name)))
    return out


def output_path(out_dir: Path, rel: Path, ext: str, taken: set) -> Path:
    """Mirror the input's relative path and keep its suffix (a/x.png -> a/x.png.json), so that x.png and x.jpg,
    or two folders' x.png, never overwrite each other."""
    target = out_dir / rel.parent / f"{rel.name}.{ext}"
    n = 2
    while target in taken:
        target = out_dir / rel.parent / f"{rel.name}.{n}.{ext}"
        n += 1
    taken.add(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


def render(path: Path, record: dict, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(record, ensure_ascii=False, indent=2)
    if fmt == "jsonl":
        return json.dumps(record, ensure_ascii=False)
    if "error" in record:
        err = record["error"]
        return f"{path}\tERROR\t{err['code']}\t{err['message']}" if fmt == "tsv" else \
            f"== {path} ==\nERROR {err['code']}: {err['message']}"
    if fmt == "text":
        return "\n".join([f"== {path} =="] + [line["text"] for line in record["lines"]])
    rows = []
    for i, line in enumerate(record["lines"]):
        box = " ".join(f"{x:g},{y:g}" for x, y in line["box"])
        rows.append(f"{path}\t{i}\t{line['score']:.4f}\t{box}\t{line['text']}")
    return "\n".join(rows)


class Progress:
    """A one-line progress bar on stderr (only when it is a terminal; plain per-image lines otherwise)."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled, self.tty = total, enabled, sys.stderr.isatty()

    def update(self, done: int, path: Path, status: str, ms: float):
        if not self.enabled:
            return
        if self.tty:
            width = 24
            fill = int(width * done / max(self.total, 1))
            sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{self.total} {path.name[:30]:30} "
                             f"{status} {ms:.0f} ms")
            if done == self.total:
                sys.stderr.write("\n")
        else:
            sys.stderr.write(f"[{done}/{self.total}] {path} {status} {ms:.0f} ms\n")
        sys.stderr.flush()


def main(argv=None) -> int:
    args = parse_args(argv)
    answered = info_command(args)
    if answered is not None:
        return answered
    logging.basicConfig(level=logging.WARNING, format="retto: %(levelname)s: %(message)s")
    from .ort_worker import OrtWorker  # onnxruntime is only needed here, not by the pipeline

    try:
        overrides = read_overrides(args.config)
        worker = OrtWorker(det=args.det_model, cls=args.cls_model, rec=args.rec_model, device=args.device,
                           device_id=args.device_id, threads=args.threads, strict_device=args.strict_device,
                           models_dir=args.models_dir, models=args.models)
        session = worker.session(overrides)
    except RettoError as err:
        print(f"retto: {err.code}: {err.message}", file=sys.stderr)
        return 2
    providers = ", ".join(f"{k}={v}" for k, v in worker.backend.items())
    print(f"retto: model set {worker.model_set.name} ({worker.model_set.label}); providers {providers}",
          file=sys.stderr)

    images = collect_images(args.images)
    if not images:
        print("retto: no image files found in " + " ".join(args.images), file=sys.stderr)
        return 2
    out_dir = Path(args.output) if args.output else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    progress = Progress(len(images), not args.no_progress)
    failures = 0
    json_items = []
    written = set()
    for n, (path, rel) in enumerate(images, 1):
        t0 = time.perf_counter()
        try:
            data = path.read_bytes()
        except OSError as exc:
            record = {"error": {"code": "invalid_image", "message": f"cannot read the file: {exc.strerror or exc}"}}
        else:
            try:
                record = session.run(data).to_dict()
            except RettoError as err:
                record = err.to_dict()
            except Exception as exc:  # one odd file must never end the batch
                record = RettoError(INTERNAL_ERROR, f"unexpected failure: {type(exc).__name__}: {exc}").to_dict()
        record = {"path": str(path), **record}
        ms = (time.perf_counter() - t0) * 1000.0
        failed = "error" in record
        failures += failed
        status = f"error {record['error']['code']}" if failed else f"{len(record['lines'])} lines"
        progress.update(n, path, status, ms)
        if out_dir:
            ext = {"json": "json", "jsonl": "jsonl", "text": "txt", "tsv": "tsv"}[args.format]
            output_path(out_dir, rel, ext, written).write_text(render(path, record, args.format) + "\n", encoding="utf-8")
        elif args.format == "json":
            json_items.append(record)
        else:
            print(render(path, record, args.format), flush=True)
    if not out_dir and args.format == "json":
        print(json.dumps(json_items, ensure_ascii=False, indent=2))
    if failures:
        print(f"retto: {failures} of {len(images)} images failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
