"""One table of a record as CSV, copied text, Markdown or an XLSX workbook; the cells' lines for hOCR and ALTO."""
from __future__ import annotations

import csv
import io

from retto.export.markdown import markdown_table
from retto.records import line_words, record_tables, table_rows, visible

# One table of a record (render_table): its text or workbook, and the suffix of its file.
TABLE_FORMATS = ("table_csv", "table_tsv", "table_md", "table_xlsx")
TABLE_EXTENSIONS = {"table_csv": "csv", "table_tsv": "tsv", "table_md": "md", "table_xlsx": "xlsx"}


def table_csv(table: dict) -> str:
    """One table as CSV (RFC 4180 quoting by Python's csv module), a row per table row."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(table_rows(table))
    return buf.getvalue()


def table_tsv(table: dict) -> str:
    """One table as copied text reads it: a row per line, cells separated by tabs (odd characters in a cell,
    a tab or a newline among them, shown as escapes), as a spreadsheet pastes it."""
    return "\n".join("\t".join(visible(c) for c in row) for row in table_rows(table))


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


def block_table(page: dict, block: dict):
    """The table a block reads (its `table` index), or None."""
    tables = page.get("tables") or []
    k = block.get("table")
    return tables[k] if isinstance(k, int) and 0 <= k < len(tables) and tables[k].get("cells") else None


def _rect(box) -> tuple:
    xs, ys = [float(pt[0]) for pt in box], [float(pt[1]) for pt in box]
    return min(xs), min(ys), max(xs), max(ys)


def cell_lines(page: dict, block: list, table: dict) -> list:
    """Per cell of `table` (in its cells' order): [(line id, line, words)], the words of the block's lines whose
    centre lies in the cell (retto.ops.tables.fill, the rule the table stage filled the cells' texts by), a line
    per line they come from, in reading order. A line wholly in one cell is itself (id "7", its line number);
    a line the detector ran across cells is split, each part a line of its own with its words' box ("7.2")."""
    from retto.ops.tables import fill   # numpy: only when a table is written
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
