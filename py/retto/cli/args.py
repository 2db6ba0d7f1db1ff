"""`retto`'s flags."""
from __future__ import annotations

import argparse

from retto import export
from retto.errors import RettoError
from retto.models import sets as model_sets
from retto.io.image import DEFAULT_MAX_FILE_BYTES

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
                        f"(--config '{TABLES_ON}')")
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
    p.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads (default: $RETTO_THREADS, else all cores)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="N worker processes of --threads threads each (default 1 thread), same output in input "
                        "order; on one machine faster than one process of N threads")
    p.add_argument("--models", metavar="NAME", help="the model set (languages and speed); see `retto models list`")
    p.add_argument("--lang", metavar="CODE", help="the model set that reads this language (ru, uk, el, ar, he, hi, "
                   "ko, …, as the set files list them; or Tesseract's rus, ell, …); instead of --models")
    p.add_argument("--list-models", action="store_true", help="the same as `retto models list`")
    p.add_argument("--det-model", help="path to a det .onnx (default: the model set's verified model)")
    p.add_argument("--cls-model", help="path to a cls .onnx")
    p.add_argument("--rec-model", help="path to a rec .onnx (its metadata must carry the dictionary)")
    p.add_argument("--models-dir", help="the folder of the fetched models (default: $RETTO_MODELS_DIR, else the "
                                        "user cache); a sets/ folder in it replaces the shipped set files")
    p.add_argument("--config", metavar="FILE|JSON",
                   help="pipeline settings over the model set's (see --print-config): a JSON file's path, or the "
                        f"JSON object itself, e.g. '{TABLES_ON}'")
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
    if args.lang:
        if args.models:
            p.error("--lang picks the model set: give --lang or --models, not both")
        try:
            args.models = model_sets.for_language(args.lang, args.models_dir).name
        except RettoError as err:
            p.error(f"{err.code}: {err.message}")
    return args
