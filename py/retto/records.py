"""A result record and its pages, read the way every export and the result's own `text` read them.

A record is one input's result dict (`OcrResult.to_dict()`) with its `path`, a document record
(`retto.io.document`: `{"path", "kind": "pdf", "page_count", "pages": [page records]}`), or `{"path", "error"}`."""
from __future__ import annotations

import re

# Characters a reader should see as escapes, never receive raw: C0 and C1 controls, DEL, line/paragraph
# separators, bidirectional overrides (they reorder what a terminal or a viewer shows) and lone surrogates.
_ODD = "\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_ODD_RE = re.compile(f"[{_ODD}]")
_ODD_OR_BACKSLASH_RE = re.compile(f"[{_ODD}\\\\]")
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\"}


def escape_char(match) -> str:
    c = match.group()
    if c in _SHORT:
        return _SHORT[c]
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def visible(text: str, backslash: bool = False) -> str:
    """Odd characters shown as escapes (tab as \\t, newline as \\n, ESC as \\x1b, U+202E as \\u202e), for
    TSV fields and the terminal. backslash=True also doubles backslashes, so that the escaping can be undone
    (TSV: one row per line, one field per tab, whatever the names hold)."""
    return (_ODD_OR_BACKSLASH_RE if backslash else _ODD_RE).sub(escape_char, str(text))


def bounds(box) -> tuple[int, int, int, int]:
    """Axis-aligned integer bounds (x0, y0, x1, y1) of a [[x, y]...] box."""
    xs = [p[0] for p in box]
    ys = [p[1] for p in box]
    return int(min(xs)), int(min(ys)), int(round(max(xs))), int(round(max(ys)))


def line_words(line: dict) -> list:
    """The line's words (text, box, score); a line without word boxes is one word."""
    return line.get("words") or [{"text": line["text"], "box": line["box"], "score": line["score"]}]


def blocks_of(record: dict) -> list:
    """Line indexes grouped into blocks (paragraphs) when the layout step gave them, else one block."""
    blocks = record.get("blocks")
    if blocks:
        return [b["lines"] for b in blocks]
    return [list(range(len(record["lines"])))]


def has_result(record: dict) -> bool:
    """Whether any page of the record was read (hOCR, ALTO and PDF need at least one)."""
    return "error" not in record and any("error" not in page for _, page in pages_of(record))


def pages_of(record: dict) -> list:
    """(page number, page record) pairs: a document's pages, or an image record as page 1."""
    if "pages" in record:
        return [(p["page"], p) for p in record["pages"]]
    return [(1, record)]


def table_rows(table: dict) -> list:
    """A result table as rows of cell texts; a spanning cell's text sits in its first row and column."""
    rows = [["" for _ in range(table["cols"])] for _ in range(table["rows"])]
    for c in table["cells"]:
        rows[c["row"]][c["col"]] = c["text"]
    return rows


def page_lines(page: dict) -> list:
    """A page's text as lines in reading order; a table block as its rows, cells separated by tabs (how copied
    text and `text` read a table: row by row, as a spreadsheet pastes it)."""
    tables = page.get("tables") or []
    blocks = page.get("blocks") or []
    if not any("table" in b for b in blocks):
        return [line["text"] for line in page["lines"]]
    out = []
    for b in blocks:
        if "table" in b and b["table"] < len(tables):
            out += ["\t".join(visible(c) for c in row) for row in table_rows(tables[b["table"]])]
        else:
            out += [page["lines"][i]["text"] for i in b["lines"]]
    return out


def record_tables(record: dict) -> list:
    """(page number, table) pairs of every table a record's pages hold."""
    return [(p, t) for p, page in pages_of(record) if "error" not in page for t in page.get("tables") or []]
