"""Exports, written once: the CLI and the browser both render results here, so their files are the same bytes.

A record is one input's result dict (`OcrResult.to_dict()`) with its `path`, a document record (`retto.io.document`:
`{"path", "kind": "pdf", "page_count", "pages": [page records]}`), or `{"path", "error"}`.
Text formats: json, jsonl, text, plain (only the text, as the page copies it), tsv, md (Markdown), hocr (hOCR 1.2: ocr_page / ocr_line / ocrx_word), alto
(ALTO v4). Binary: pdf (`searchable_pdf`, in `retto.export.pdf`). Words come from each line's `words` (CTC word
boxes) when present, else the line is one word.
With page regions (layout.regions) blocks carry a `type`: titles become Markdown headings, headers, footers and
captions hOCR ocr_header / ocr_footer / ocr_caption and ALTO tagged blocks. With tables (layout.tables) a table
is an HTML table in hOCR (hOCR is HTML: rows, cells, spans) and a ComposedBlock of cell TextBlocks in ALTO (which
has no table element); a table block reads row by row (cells separated by tabs in `text`, a pipe table in `md`), and each table exports alone as
CSV (`table_csv`) or all of a record's tables as one XLSX workbook, a sheet per table (`tables_xlsx`).
One table of a record, by its index in `record_tables` order (the page's copy and download buttons):
`render_table(record, fmt, index)` with fmt in TABLE_FORMATS (csv, tsv as copied text reads it, md, xlsx).
"""
from __future__ import annotations

import json

from retto.export.alto import alto
from retto.export.hocr import hocr
from retto.export.markdown import PAGE_BREAK_MD, escape_md, join_lines, markdown, markdown_table
from retto.export.tables import (TABLE_EXTENSIONS, TABLE_FORMATS, cell_lines, render_table, table_csv, table_tsv,
                                 tables_xlsx)
from retto.export.text import PAGE_BREAK_TEXT, plain, text
from retto.export.tsv import tsv
from retto.export.xml import xml_attr, xml_text
from retto.records import (bounds, blocks_of, has_result, line_words, page_lines, pages_of, record_tables,
                           table_rows, visible)

TEXT_FORMATS = ("json", "jsonl", "text", "plain", "tsv", "md", "hocr", "alto")
BINARY_FORMATS = ("pdf",)
FORMATS = TEXT_FORMATS + BINARY_FORMATS
EXTENSIONS = {"json": "json", "jsonl": "jsonl", "text": "txt", "plain": "plain.txt", "tsv": "tsv", "md": "md", "hocr": "hocr",
              "alto": "alto.xml", "pdf": "pdf"}
# The media type of each format's file (the browser's Blob type; a server's Content-Type).
MEDIA_TYPES = {"json": "application/json", "jsonl": "application/x-ndjson", "text": "text/plain;charset=utf-8",
               "plain": "text/plain;charset=utf-8", "tsv": "text/tab-separated-values;charset=utf-8",
               "md": "text/markdown;charset=utf-8", "hocr": "application/xhtml+xml", "alto": "application/xml",
               "pdf": "application/pdf", "table_csv": "text/csv;charset=utf-8",
               "table_tsv": "text/tab-separated-values;charset=utf-8", "table_md": "text/markdown;charset=utf-8",
               "table_xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}


def format_table() -> dict:
    """Every export format as {name: {type, ext, table}}: what a client outside Python (the browser's main
    thread) needs to name and type a file. Written at build time to web/src/generated/python_facts.json
    (retto.browser.facts, scripts/build/assemble_web_assets.py), so the formats are defined here only."""
    out = {}
    for fmt in FORMATS + TABLE_FORMATS:
        ext = EXTENSIONS.get(fmt) or TABLE_EXTENSIONS[fmt]
        out[fmt] = {"type": MEDIA_TYPES[fmt], "ext": ext, "table": fmt in TABLE_FORMATS}
    return out


def render(record: dict, fmt: str, name: str | None = None) -> str:
    """One record in one text format. `name` is how the input is named in the output (default: its path).
    "pdf" needs the pages' pictures too: `searchable_pdf(record, page_images)`."""
    name = name if name is not None else record.get("path", "")
    if fmt == "json":
        return json.dumps(record, ensure_ascii=False, indent=2)
    if fmt == "jsonl":
        return json.dumps(record, ensure_ascii=False)
    if "error" in record:
        err = record["error"]
        if fmt == "tsv":
            return "\t".join(visible(f, True) for f in (name, "ERROR", err["code"], err["message"]))
        if fmt in ("hocr", "alto", "pdf"):
            raise ValueError(f"{name} has no result to export ({err['code']})")
        if fmt == "md":
            return "*" + escape_md(f"ERROR {err['code']}: {err['message']}") + "*"
        if fmt == "plain":
            return ""   # only what was read: the error is the CLI's stderr, the page's notice
        return f"== {visible(name)} ==\nERROR {err['code']}: {visible(err['message'])}"
    if fmt == "pdf":
        raise ValueError("a searchable PDF needs the page images: call searchable_pdf(record, page_images)")
    if fmt in ("hocr", "alto") and not has_result(record):
        raise ValueError(f"{name} has no page with a result to export")
    return {"text": text, "plain": plain, "tsv": tsv, "md": markdown, "hocr": hocr, "alto": alto}[fmt](record, name)


def searchable_pdf(record: dict, page_images) -> bytes:
    """The pages' pictures with an invisible, word-by-word text layer (see `retto.export.pdf`)."""
    from retto.export.pdf import searchable_pdf as build   # fpdf2 and fontTools load only when a PDF is asked for
    return build(record, page_images)


__all__ = ["BINARY_FORMATS", "EXTENSIONS", "FORMATS", "MEDIA_TYPES", "PAGE_BREAK_MD", "PAGE_BREAK_TEXT",
           "TABLE_EXTENSIONS", "TABLE_FORMATS", "TEXT_FORMATS", "alto", "blocks_of", "bounds", "cell_lines",
           "escape_md", "format_table", "has_result", "hocr", "join_lines", "line_words", "markdown",
           "markdown_table", "page_lines", "pages_of", "plain", "record_tables", "render", "render_table",
           "searchable_pdf", "table_csv", "table_rows", "table_tsv", "tables_xlsx", "text", "tsv", "visible",
           "xml_attr", "xml_text"]
