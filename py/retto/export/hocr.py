"""`hocr`: hOCR 1.2 as XHTML (ocr_page / ocr_carea / ocr_par / ocr_line / ocrx_word; tables as HTML tables)."""
from __future__ import annotations

import json

from retto._version import __version__
from retto.export.tables import block_table, cell_lines
from retto.export.xml import set_languages, union, xml_attr, xml_text
from retto.ops.line_metrics import language, measure
from retto.records import blocks_of, bounds, line_words, pages_of


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
            table = block_table(page, typed[b - 1] if b <= len(typed) else {})
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
            bx = " ".join(map(str, union([page["lines"][i]["box"] for i in block])))
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
    # A right-to-left line (Hebrew, Arabic) says so, as Tesseract's own hOCR does: its text and words are in
    # logical order, and a viewer lays them out right to left.
    rtl = ' dir="rtl"' if line.get("direction") == "rtl" else ""
    out.append(f'<span class="ocr_line" id="{lid}"' + (f' lang="{lang}"' if lang else "") + rtl
               + f' title="bbox {x0} {y0} {x1} {y1}; {_hocr_metrics(line)}">')
    for word in words:
        n_word += 1
        wx0, wy0, wx1, wy1 = bounds(word["box"])
        conf = int(round(100 * word["score"]))
        out.append(f'<span class="ocrx_word" id="word_{p}_{n_word}"{rtl} title="bbox {wx0} {wy0} {wx1} '
                   f'{wy1}; x_wconf {conf}">{xml_text(word["text"])}</span>')
    out.append("</span>")
    return n_word


# hOCR classes of typed blocks (page regions); any other block is an ocr_carea.
HOCR_CLASS = {"header": "ocr_header", "footer": "ocr_footer", "figure_caption": "ocr_caption",
              "table_caption": "ocr_caption", "table": "ocr_table"}


def _hocr_metrics(line: dict) -> str:
    """The line properties hOCR consumers need besides bbox (Scribe.js drops a line without `baseline`)."""
    m = measure(line)
    props = f"baseline {m.slope:g} {m.offset:g}; x_size {m.x_size:g}; x_descenders {m.x_descenders:g}; " \
            f"x_ascenders {m.x_ascenders:g}"
    return props + (f"; textangle {m.textangle}" if m.textangle is not None else "")
