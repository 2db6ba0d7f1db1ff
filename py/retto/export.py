"""Exports, written once: the CLI and the browser both render results here, so their files are the same bytes.

A record is one input's result dict (`OcrResult.to_dict()`) with its `path`, a document record (`retto.document`:
`{"path", "kind": "pdf", "page_count", "pages": [page records]}`), or `{"path", "error"}`.
Text formats: json, jsonl, text, plain (only the text, as the page copies it), tsv, md (Markdown), hocr (hOCR 1.2: ocr_page / ocr_line / ocrx_word), alto
(ALTO v4). Binary: pdf (`searchable_pdf`, in `retto.pdf_export`). Words come from each line's `words` (CTC word
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

import csv
import io
import json
import re
from xml.sax.saxutils import escape, quoteattr

from . import __version__
from .line_metrics import language, measure, set_languages

TEXT_FORMATS = ("json", "jsonl", "text", "plain", "tsv", "md", "hocr", "alto")
BINARY_FORMATS = ("pdf",)
FORMATS = TEXT_FORMATS + BINARY_FORMATS
EXTENSIONS = {"json": "json", "jsonl": "jsonl", "text": "txt", "plain": "plain.txt", "tsv": "tsv", "md": "md", "hocr": "hocr",
              "alto": "alto.xml", "pdf": "pdf"}
# One table of a record (render_table): its text or workbook, and the suffix of its file.
TABLE_FORMATS = ("table_csv", "table_tsv", "table_md", "table_xlsx")
TABLE_EXTENSIONS = {"table_csv": "csv", "table_tsv": "tsv", "table_md": "md", "table_xlsx": "xlsx"}
# The media type of each format's file (the browser's Blob type; a server's Content-Type).
MEDIA_TYPES = {"json": "application/json", "jsonl": "application/x-ndjson", "text": "text/plain;charset=utf-8",
               "plain": "text/plain;charset=utf-8", "tsv": "text/tab-separated-values;charset=utf-8",
               "md": "text/markdown;charset=utf-8", "hocr": "application/xhtml+xml", "alto": "application/xml",
               "pdf": "application/pdf", "table_csv": "text/csv;charset=utf-8",
               "table_tsv": "text/tab-separated-values;charset=utf-8", "table_md": "text/markdown;charset=utf-8",
               "table_xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}
PAGE_BREAK_TEXT = "\f"            # between the pages of a document in `text` (as pdftotext does)
PAGE_BREAK_MD = "\n\n---\n\n"    # a thematic break between pages in `md` (blank lines: never a setext heading)


# Characters a reader should see as escapes, never receive raw: C0 and C1 controls, DEL, line/paragraph
# separators, bidirectional overrides (they reorder what a terminal or a viewer shows) and lone surrogates.
_ODD = "\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_ODD_RE = re.compile(f"[{_ODD}]")
_ODD_OR_BACKSLASH_RE = re.compile(f"[{_ODD}\\\\]")
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\"}
# XML 1.0 forbids these outright (a parser must stop at them); the other odd characters are legal XML.
_NOT_XML_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def format_table() -> dict:
    """Every export format as {name: {type, ext, table}}: what a client outside Python (the browser's main
    thread) needs to name and type a file. Written at build time to web/src/client/export_formats.json
    (scripts/assemble_web_assets.py), so the formats are defined here only."""
    out = {}
    for fmt in FORMATS + TABLE_FORMATS:
        ext = EXTENSIONS.get(fmt) or TABLE_EXTENSIONS[fmt]
        out[fmt] = {"type": MEDIA_TYPES[fmt], "ext": ext, "table": fmt in TABLE_FORMATS}
    return out


def _escape_one(match) -> str:
    c = match.group()
    if c in _SHORT:
        return _SHORT[c]
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def visible(text: str, backslash: bool = False) -> str:
    """Odd characters shown as escapes (tab as \\t, newline as \\n, ESC as \\x1b, U+202E as \\u202e), for
    TSV fields and the terminal. backslash=True also doubles backslashes, so that the escaping can be undone
    (TSV: one row per line, one field per tab, whatever the names hold)."""
    return (_ODD_OR_BACKSLASH_RE if backslash else _ODD_RE).sub(_escape_one, str(text))


def xml_text(text: str) -> str:
    """Text for an XML element: characters XML cannot hold shown as escapes (\\x01), then &, <, > escaped."""
    return escape(_NOT_XML_RE.sub(_escape_one, str(text)))


def xml_attr(text: str) -> str:
    """A quoted XML attribute value (tab, newline and CR as character references, so they survive parsing)."""
    return quoteattr(_NOT_XML_RE.sub(_escape_one, str(text)))


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
    """The pages' pictures with an invisible, word-by-word text layer (see `retto.pdf_export`)."""
    from .pdf_export import searchable_pdf as build   # fpdf2 and fontTools load only when a PDF is asked for
    return build(record, page_images)


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


def text(record: dict, name: str) -> str:
    """A header naming the input, then the lines (tables row by row); a document's pages separated by a form
    feed."""
    pages = []
    for _, page in pages_of(record):
        if "error" in page:
            pages.append([f"ERROR {page['error']['code']}: {visible(page['error']['message'])}"])
        else:
            pages.append(page_lines(page))
    out = [f"== {visible(name)} =="] + pages[0]
    for lines in pages[1:]:
        out += [PAGE_BREAK_TEXT] + lines
    return "\n".join(out)


def plain(record: dict, name: str = "") -> str:
    """Only the text, as the page's Copy buttons copy it: lines in reading order, tables row by row with tabs,
    pages separated by a blank line; no header, failed pages left out."""
    return "\n\n".join("\n".join(page_lines(page)) for _, page in pages_of(record) if "error" not in page)


def tsv(record: dict, name: str) -> str:
    """name, line index, score, box, text; a document's rows carry its page number after the name. Tab, newline,
    backslash and the other odd characters in a field are written as escapes (\\t, \\n, \\\\, \\x1b)."""
    document = "pages" in record
    name = visible(name, True)
    rows = []
    for page_no, page in pages_of(record):
        lead = f"{name}\t{page_no}" if document else name
        if "error" in page:
            rows.append(f"{lead}\tERROR\t{page['error']['code']}\t{visible(page['error']['message'], True)}")
            continue
        for i, line in enumerate(page["lines"]):
            box = " ".join(f"{x:g},{y:g}" for x, y in line["box"])
            rows.append(f"{lead}\t{i}\t{line['score']:.4f}\t{box}\t{visible(line['text'], True)}")
    return "\n".join(rows)


def join_lines(lines: list) -> str:
    """One paragraph from its lines: a word hyphenated across a line end is joined ("exam-" + "ple" ->
    "example"; "state-" + "of-the-art" keeps its hyphen, being a compound), other line ends become spaces."""
    out = ""
    for t in (s.strip() for s in lines):
        if not t:
            continue
        if re.search(r"\w-$", out) and t[:1].islower():
            out = out + t if "-" in t.split()[0] else out[:-1] + t
        else:
            out = f"{out} {t}" if out else t
    return out


def markdown(record: dict, name: str) -> str:
    """Paragraphs as the layout step found them (blank lines between), hyphenated line ends joined; a
    document's pages separated by a thematic break."""
    return PAGE_BREAK_MD.join(_markdown_page(page) for _, page in pages_of(record))


def _markdown_page(page: dict) -> str:
    if "error" in page:
        return "*" + escape_md(f"ERROR {page['error']['code']}: {page['error']['message']}") + "*"
    lines, tables = page["lines"], page.get("tables") or []
    out = []
    for block in page.get("blocks") or [{"lines": b} for b in blocks_of(page)]:
        if "table" in block and block["table"] < len(tables):
            out.append(markdown_table(tables[block["table"]]))
            continue
        para = join_lines([lines[i]["text"] for i in block["lines"]])
        if para:
            out.append(("# " if block.get("type") == "title" else "") + escape_md(para))
    return "\n\n".join(out)


def markdown_table(table: dict) -> str:
    """A GFM pipe table: the first row is the header row (GFM needs one); pipes in cells escaped."""
    rows = table_rows(table) or [[""]]
    # Inline syntax escaped (a cell is never a block start, so "85.00" stays as it is); pipes end cells.
    cell = lambda t: _MD_INLINE_RE.sub(lambda m: "\\" + m.group(), visible(t)).replace("|", "\\|") or " "  # noqa: E731
    out = ["| " + " | ".join(cell(t) for t in rows[0]) + " |", "|" + "---|" * len(rows[0])]
    out += ["| " + " | ".join(cell(t) for t in row) + " |" for row in rows[1:]]
    return "\n".join(out)


def table_csv(table: dict) -> str:
    """One table as CSV (RFC 4180 quoting by Python's csv module), a row per table row."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(table_rows(table))
    return buf.getvalue()


def table_tsv(table: dict) -> str:
    """One table as copied text reads it: a row per line, cells separated by tabs (odd characters in a cell,
    a tab or a newline among them, shown as escapes), as a spreadsheet pastes it."""
    return "\n".join("\t".join(visible(c) for c in row) for row in table_rows(table))


def record_tables(record: dict) -> list:
    """(page number, table) pairs of every table a record's pages hold."""
    return [(p, t) for p, page in pages_of(record) if "error" not in page for t in page.get("tables") or []]


def render_table(record: dict, fmt: str, index: int):
    """Table `index` (0-based, in record_tables order) of a record in a TABLE_FORMATS format: text, or bytes
    for table_xlsx (a workbook of that one table)."""
    found = record_tables(record)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(found):
        raise ValueError(f"this result has {len(found)} table{'s' * (len(found) != 1)}: no table {index!r}")
    table = found[index][1]
    if fmt == "table_csv":
        return table_csv(table)
    if fmt == "table_tsv":
        return table_tsv(table)
    if fmt == "table_md":
        return markdown_table(table)
    if fmt == "table_xlsx":
        return tables_xlsx(record, index)
    raise ValueError(f"unknown table format {fmt!r} (one of {', '.join(TABLE_FORMATS)})")


def tables_xlsx(record: dict, index: int | None = None) -> bytes:
    """Every table of the record (or only table `index`) as an XLSX workbook, one sheet per table ("p1 t1"),
    spanning cells merged. XlsxWriter (pure Python, also in Pyodide) writes it; cells are written as text, as
    they were read."""
    import xlsxwriter   # loaded only when a workbook is asked for
    found = record_tables(record)
    if not found:
        raise ValueError("this result has no table to export")
    numbered, counts = [], {}
    for page_no, table in found:
        counts[page_no] = counts.get(page_no, 0) + 1
        numbered.append((f"p{page_no} t{counts[page_no]}", table))
    if index is not None:
        numbered = [numbered[index]]
    buf = io.BytesIO()
    book = xlsxwriter.Workbook(buf, {"in_memory": True, "strings_to_numbers": False, "strings_to_formulas": False,
                                     "strings_to_urls": False})
    for sheet_name, table in numbered:
        sheet = book.add_worksheet(sheet_name)
        for c in table["cells"]:
            if c["row_span"] > 1 or c["col_span"] > 1:
                sheet.merge_range(c["row"], c["col"], c["row"] + c["row_span"] - 1, c["col"] + c["col_span"] - 1,
                                  c["text"])
            else:
                sheet.write_string(c["row"], c["col"], c["text"])
    book.close()
    return buf.getvalue()


# Inline syntax anywhere in a line: emphasis, code spans, links and images, raw HTML and autolinks, strikethrough
# (GFM), backslash escapes; & only where it would start a character reference (&amp; &#60; &#x3c;).
_MD_INLINE_RE = re.compile(r"[\\`*_\[\]<~]|&(?=#?[0-9A-Za-z]+;)")
# Block syntax at the start of a paragraph: headings, block quotes, list items, thematic breaks, fences, tables.
_MD_BLOCK_START_RE = re.compile(r"^([#>+=|-]|\d{1,9}(?=[.)]))")


def escape_md(text: str) -> str:
    """One paragraph as Markdown that a CommonMark (or GFM) renderer shows as exactly this text: no emphasis,
    link, image, HTML or heading can come out of what was read; odd characters (newline, ESC) as escapes."""
    text = _MD_INLINE_RE.sub(lambda m: "\\" + m.group(), visible(text))
    return _MD_BLOCK_START_RE.sub(lambda m: m.group() + "\\" if m.group()[0].isdigit() else "\\" + m.group(), text)


def hocr(record: dict, name: str) -> str:
    """hOCR 1.2 as XHTML: one ocr_page per page (a failed page is left out; the others keep their numbers)."""
    pages = pages_of(record)
    document = "pages" in record
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
           '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">',
           '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">',
           "<head>", f"<title>{xml_text(name)}</title>",
           '<meta http-equiv="Content-Type" content="text/html;charset=utf-8" />',
           f'<meta name="ocr-system" content="retto {__version__}" />',
           '<meta name="ocr-capabilities" content="ocr_page ocr_carea ocr_header ocr_footer ocr_caption ocr_table '
           'ocr_par ocr_line ocrx_word" />']
    if document:
        out.append(f'<meta name="ocr-number-of-pages" content="{record.get("page_count", len(pages))}" />')
    out += ["</head>", "<body>"]
    n_word = 0
    for p, page in pages:
        if "error" in page:
            continue
        w, h = page["image"]["width"], page["image"]["height"]
        languages = set_languages(page)
        title = f"image {json.dumps(name)}; " + (f"ppageno {p - 1}; " if document else "") + f"bbox 0 0 {w} {h}"
        out.append(f'<div class="ocr_page" id="page_{p}" title={xml_attr(title)}>')
        types = [b.get("type") for b in page.get("blocks") or []]
        typed = page.get("blocks") or []
        for b, block in enumerate(blocks_of(page), 1):
            if not block:
                continue
            table = _block_table(page, typed[b - 1] if b <= len(typed) else {})
            if table is not None:   # an HTML table: a row per table row, a cell per cell holding its lines
                tx0, ty0, tx1, ty1 = bounds(table["box"])
                out.append(f'<table class="ocr_table" id="block_{p}_{b}" title="bbox {tx0} {ty0} {tx1} {ty1}">')
                cells = sorted(zip(table["cells"], cell_lines(page, block, table)),
                               key=lambda c: (c[0]["row"], c[0]["col"]))
                for r in range(table["rows"]):
                    out.append("<tr>")
                    for cell, pieces in cells:
                        if cell["row"] != r:
                            continue
                        cx0, cy0, cx1, cy1 = bounds(cell["box"])
                        spans = "".join(f' {k}span="{cell[f"{k}_span"]}"' for k in ("row", "col")
                                        if cell[f"{k}_span"] > 1)
                        out.append(f'<td id="cell_{p}_{b}_{cell["row"]}_{cell["col"]}"{spans} '
                                   f'title="bbox {cx0} {cy0} {cx1} {cy1}">')
                        for lid, line, words in pieces:
                            n_word = _hocr_line(out, f"line_{p}_{lid}", line, words, languages, p, n_word)
                        out.append("</td>")
                    out.append("</tr>")
                out.append("</table>")
                continue
            bx = " ".join(map(str, _union([page["lines"][i]["box"] for i in block])))
            kind = HOCR_CLASS.get(types[b - 1] if b <= len(types) else None, "ocr_carea")
            out.append(f'<div class="{kind}" id="block_{p}_{b}" title="bbox {bx}">')
            out.append(f'<p class="ocr_par" id="par_{p}_{b}" title="bbox {bx}">')
            for i in block:
                line = page["lines"][i]
                n_word = _hocr_line(out, f"line_{p}_{i + 1}", line, line_words(line), languages, p, n_word)
            out.append("</p>")
            out.append("</div>")
        out.append("</div>")
    out += ["</body>", "</html>"]
    return "\n".join(out)


def _hocr_line(out: list, lid: str, line: dict, words: list, languages, p: int, n_word: int) -> int:
    """One ocr_line span with its words; returns the word count so far (word ids run through the file)."""
    x0, y0, x1, y1 = bounds(line["box"])
    lang = language(line["text"], languages)
    out.append(f'<span class="ocr_line" id="{lid}"' + (f' lang="{lang}"' if lang else "")
               + f' title="bbox {x0} {y0} {x1} {y1}; {_hocr_metrics(line)}">')
    for word in words:
        n_word += 1
        wx0, wy0, wx1, wy1 = bounds(word["box"])
        conf = int(round(100 * word["score"]))
        out.append(f'<span class="ocrx_word" id="word_{p}_{n_word}" title="bbox {wx0} {wy0} {wx1} '
                   f'{wy1}; x_wconf {conf}">{xml_text(word["text"])}</span>')
    out.append("</span>")
    return n_word


def _block_table(page: dict, block: dict):
    """The table a block reads (its `table` index), or None."""
    tables = page.get("tables") or []
    k = block.get("table")
    return tables[k] if isinstance(k, int) and 0 <= k < len(tables) and tables[k].get("cells") else None


def _rect(box) -> tuple:
    xs, ys = [float(pt[0]) for pt in box], [float(pt[1]) for pt in box]
    return min(xs), min(ys), max(xs), max(ys)


def cell_lines(page: dict, block: list, table: dict) -> list:
    """Per cell of `table` (in its cells' order): [(line id, line, words)], the words of the block's lines whose
    centre lies in the cell (retto.tables.fill, the rule the table stage filled the cells' texts by), a line
    per line they come from, in reading order. A line wholly in one cell is itself (id "7", its line number);
    a line the detector ran across cells is split, each part a line of its own with its words' box ("7.2")."""
    from .tables import fill   # numpy: only when a table is written
    words = [(w["text"], _rect(w["box"]), i, k, w) for i in block
             for k, w in enumerate(line_words(page["lines"][i])) if str(w["text"]).strip()]
    filled = fill(table["cells"], [_rect(c["box"]) for c in table["cells"]], words)
    rank = {i: n for n, i in enumerate(block)}
    parts = {}   # line -> the cells its words went to
    for k, ws in enumerate(filled):
        for w in ws:
            parts.setdefault(w[2], set()).add(k)
    out, seen = [], {}
    for ws in filled:
        by_line = {}
        for w in sorted(ws, key=lambda w: (rank[w[2]], w[3])):
            by_line.setdefault(w[2], []).append(w[4])
        pieces = []
        for i, mine in by_line.items():
            line = page["lines"][i]
            if len(parts[i]) == 1:
                pieces.append((f"{i + 1}", line, mine))
                continue
            seen[i] = seen.get(i, 0) + 1
            x0, y0, x1, y1 = _rect([pt for w in mine for pt in w["box"]])
            part = {**line, "box": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], "text": " ".join(w["text"] for w in mine)}
            pieces.append((f"{i + 1}.{seen[i]}", part, mine))
        out.append(pieces)
    return out


# hOCR classes of typed blocks (page regions); any other block is an ocr_carea.
HOCR_CLASS = {"header": "ocr_header", "footer": "ocr_footer", "figure_caption": "ocr_caption",
              "table_caption": "ocr_caption", "table": "ocr_table"}


def _hocr_metrics(line: dict) -> str:
    """The line properties hOCR consumers need besides bbox (Scribe.js drops a line without `baseline`)."""
    m = measure(line)
    props = f"baseline {m.slope:g} {m.offset:g}; x_size {m.x_size:g}; x_descenders {m.x_descenders:g}; " \
            f"x_ascenders {m.x_ascenders:g}"
    return props + (f"; textangle {m.textangle}" if m.textangle is not None else "")


def _alto_baseline(line: dict) -> str:
    """ALTO 4.2 BASELINE: the polyline the glyphs rest on, "x1,y1 x2,y2" in page pixels."""
    (lx, ly), (rx, ry) = measure(line).baseline
    return f"{round(lx)},{round(ly)} {round(rx)},{round(ry)}"


def _union(boxes: list) -> tuple:
    bs = [bounds(b) for b in boxes]
    return min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs), max(b[3] for b in bs)


def _pos(box) -> str:
    x0, y0, x1, y1 = bounds(box)
    return f'HPOS="{x0}" VPOS="{y0}" WIDTH="{x1 - x0}" HEIGHT="{y1 - y0}"'


ALTO_NS = "http://www.loc.gov/standards/alto/ns-v4#"


def _alto_line(out: list, lid: str, line: dict, words: list, languages, n_word: int) -> int:
    """One TextLine with its Strings; returns the word count so far (String ids run through the file)."""
    lang = language(line["text"], languages)
    out.append(f'<TextLine ID="{lid}" {_pos(line["box"])} BASELINE="{_alto_baseline(line)}"'
               + (f' LANG="{lang}"' if lang else "") + ">")
    for k, word in enumerate(words):
        n_word += 1
        if k:
            out.append("<SP/>")
        out.append(f'<String ID="string_{n_word}" CONTENT={xml_attr(word["text"])} '
                   f'{_pos(word["box"])} WC="{max(0.0, min(1.0, word["score"])):.4f}"/>')
    out.append("</TextLine>")
    return n_word


def alto(record: dict, name: str) -> str:
    """ALTO v4 (valid against alto-4-2.xsd): one Page per page, String per word. A failed page is left out; the
    others keep their PHYSICAL_IMG_NR. IDs carry the page number in a document (IDs are unique per file)."""
    document = "pages" in record
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<alto xmlns="{ALTO_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
           f'xsi:schemaLocation="{ALTO_NS} http://www.loc.gov/standards/alto/v4/alto-4-2.xsd">',
           "<Description>", "<MeasurementUnit>pixel</MeasurementUnit>",
           f"<sourceImageInformation><fileName>{xml_text(name)}</fileName></sourceImageInformation>",
           "<OCRProcessing ID=\"ocr_1\"><ocrProcessingStep><processingSoftware>"
           f"<softwareName>retto</softwareName><softwareVersion>{__version__}</softwareVersion>"
           "</processingSoftware></ocrProcessingStep></OCRProcessing>",
           "</Description>"]
    typed = sorted({b["type"] for _, page in pages_of(record) if "error" not in page
                    for b in page.get("blocks") or [] if b.get("type")})
    if typed:   # page regions: one LayoutTag per block type, referenced by the blocks (TAGREFS)
        out += ["<Tags>"] + [f'<LayoutTag ID="tag_{t}" LABEL="{t}"/>' for t in typed] + ["</Tags>"]
    out.append("<Layout>")
    n_word = 0
    for p, page in pages_of(record):
        if "error" in page:
            continue
        pre = f"{p}_" if document else ""
        types = [b.get("type") for b in page.get("blocks") or []]
        languages = set_languages(page)
        w, h = page["image"]["width"], page["image"]["height"]
        out += [f'<Page ID="page_{p}" PHYSICAL_IMG_NR="{p}" WIDTH="{w}" HEIGHT="{h}">',
                f'<PrintSpace HPOS="0" VPOS="0" WIDTH="{w}" HEIGHT="{h}">']
        for b, block in enumerate(blocks_of(page), 1):
            if not block:
                continue
            kind = types[b - 1] if b <= len(types) else None
            tag = f' TAGREFS="tag_{kind}"' if kind else ""
            table = _block_table(page, (page.get("blocks") or [])[b - 1] if b <= len(types) else {})
            if table is not None:   # ALTO has no table: a ComposedBlock of one TextBlock per cell, row by row
                out.append(f'<ComposedBlock ID="block_{pre}{b}" {_pos(table["box"])}{tag} TYPE="table">')
                for cell, pieces in sorted(zip(table["cells"], cell_lines(page, block, table)),
                                           key=lambda c: (c[0]["row"], c[0]["col"])):
                    out.append(f'<TextBlock ID="cell_{pre}{b}_{cell["row"]}_{cell["col"]}" {_pos(cell["box"])}>')
                    for lid, line, words in pieces:
                        n_word = _alto_line(out, f"line_{pre}{lid}", line, words, languages, n_word)
                    out.append("</TextBlock>")
                out.append("</ComposedBlock>")
                continue
            x0, y0, x1, y1 = _union([page["lines"][i]["box"] for i in block])
            out.append(f'<TextBlock ID="block_{pre}{b}" HPOS="{x0}" VPOS="{y0}" WIDTH="{x1 - x0}" '
                       f'HEIGHT="{y1 - y0}"{tag}>')
            for i in block:
                line = page["lines"][i]
                n_word = _alto_line(out, f"line_{pre}{i + 1}", line, line_words(line), languages, n_word)
            out.append("</TextBlock>")
        figures = [r for r in page.get("regions") or [] if r["type"] == "figure"]
        for n, r in enumerate(figures, 1):   # figures found by the layout model (their text is in TextBlocks)
            out.append(f'<Illustration ID="illustration_{pre}{n}" TYPE="figure" {_pos(r["box"])}/>')
        out += ["</PrintSpace>", "</Page>"]
    out += ["</Layout>", "</alto>"]
    return "\n".join(out)
