"""Idempotent: render table pictures and region pages with exact ground truth into tests/testset/tables/
(gitignored), for the table and region stages (issue 20).

Tables (<name>.png + <name>.gt.json): a table drawn from a grid of cells written here, with every cell's row,
column, spans and text known: ruled, borderless, a spanning two-row header, numbers/dates/money, a bank statement
and an invoice's line items. The GT's "copy" is the table read row by row, every cell (empty ones too)
separated by tabs.
Region pages (region_*.png + .gt.json): a page with a running header, a title, paragraphs, a figure with its
caption, a table and a footer; the GT lists each region's type and box (x0, y0, x1, y1). region_columns sets a
labelled chart with its caption under it and a paragraph beside it, over two text columns: its GT also gives the
reading order of its regions ("order": indexes into "regions"), the caption right after the chart.
Fonts come only from Debian packages (fonts-liberation, fonts-dejavu-core). A stamp (sha256 of this script and
the Pillow version) skips rendering when nothing changed. Usage: make_tables.py [--force]
"""
from __future__ import annotations

import hashlib
import json
import sys
from functools import lru_cache
from pathlib import Path

import PIL
from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "testset" / "tables"
STAMP = OUT / ".stamp"
FONT_DIR = Path("/usr/share/fonts/truetype")
FONTS = {"sans": "liberation/LiberationSans-Regular.ttf", "sans_bold": "liberation/LiberationSans-Bold.ttf",
         "serif": "liberation/LiberationSerif-Regular.ttf", "serif_bold": "liberation/LiberationSerif-Bold.ttf",
         "dejavu": "dejavu/DejaVuSans.ttf"}


@lru_cache(maxsize=None)
def font(key: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / FONTS[key]), size, layout_engine=ImageFont.Layout.BASIC)


# Each table: header rows (cells as (text, col_span) or (text, col_span, row_span)), body rows (plain texts), how
# it is drawn, and the alignment of each column ("l" or "r").
TABLES = {
    "ruled_products": dict(style="ruled", font="sans", align="llrr", header=[["Product", "Colour", "Stock", "Price"]],
                           body=[["Desk lamp", "Black", "14", "39.90"], ["Office chair", "Grey", "3", "149.00"],
                                 ["Bookshelf", "Oak", "7", "89.50"], ["Notebook", "Blue", "250", "2.30"]]),
    "borderless_staff": dict(style="none", font="sans", align="lll", header=[["Name", "Team", "City"]],
                             body=[["Alice Martin", "Design", "Lyon"], ["Bruno Costa", "Sales", "Porto"],
                                   ["Chen Wei", "Research", "Leeds"], ["Dora Novak", "Support", "Brno"],
                                   ["Emil Berg", "Finance", "Malmo"]]),
    "spanning_sales": dict(style="ruled", font="sans", align="lrrrr",
                           header=[[("Region", 1, 2), ("2025", 2), ("2026", 2)], ["H1", "H2", "H1", "H2"]],
                           body=[["North", "120", "135", "142", "150"], ["South", "98", "104", "110", "117"],
                                 ["East", "76", "81", "90", "95"]]),
    "numbers_dates": dict(style="rows", font="serif", align="lrrr", header=[["Date", "Units", "Rate", "Amount"]],
                          body=[["2026-01-05", "12", "4.5%", "$1,250.00"], ["2026-02-17", "8", "3.75%", "$980.40"],
                                ["2026-03-09", "150", "0.25%", "$12,004.99"], ["2026-04-30", "3", "12%", "$75.10"]]),
    "bank_statement": dict(style="rows", font="dejavu", align="llrrr",
                           header=[["Date", "Description", "Debit", "Credit", "Balance"]],
                           body=[["01/03/2026", "Opening balance", "", "", "2,410.55"],
                                 ["02/03/2026", "Card payment GROCER", "54.20", "", "2,356.35"],
                                 ["04/03/2026", "Salary ACME LTD", "", "3,100.00", "5,456.35"],
                                 ["07/03/2026", "Rent transfer", "1,250.00", "", "4,206.35"],
                                 ["11/03/2026", "Electricity bill", "88.14", "", "4,118.21"],
                                 ["15/03/2026", "Refund ONLINE SHOP", "", "19.99", "4,138.20"],
                                 ["20/03/2026", "Cash withdrawal", "100.00", "", "4,038.20"]]),
    "invoice_items": dict(style="ruled", font="sans", align="lrrr",
                          header=[["Item", "Qty", "Unit price", "Total"]],
                          body=[["Consulting hours", "12", "85.00", "1,020.00"], ["Travel expenses", "1", "240.00", "240.00"],
                                ["Software licence", "5", "49.00", "245.00"], ["Printed manuals", "20", "4.50", "90.00"]]),
}


def table_cells(spec: dict) -> tuple:
    """[{row, col, row_span, col_span, text}] and (rows, cols) from a spec's header and body."""
    cells, taken = [], set()
    for r, row in enumerate(spec["header"] + spec["body"]):
        c = 0
        for item in row:
            text, cs, rs = (item, 1, 1) if isinstance(item, str) else (item[0], item[1], item[2] if len(item) > 2 else 1)
            while (r, c) in taken:
                c += 1
            taken |= {(r + i, c + j) for i in range(rs) for j in range(cs)}
            cells.append({"row": r, "col": c, "row_span": rs, "col_span": cs, "text": text})
            c += cs
    rows = len(spec["header"]) + len(spec["body"])
    cols = max(c["col"] + c["col_span"] for c in cells)
    return cells, rows, cols


def draw_table(draw: ImageDraw.ImageDraw, spec: dict, x: int, y: int, size: int = 22) -> tuple:
    """Draw the table with its top-left at (x, y); returns (cells with boxes, rows, cols, table box)."""
    cells, rows, cols = table_cells(spec)
    n_head = len(spec["header"])
    f, fb = font(spec["font"], size), font(spec["font"] + "_bold" if spec["font"] + "_bold" in FONTS else spec["font"], size)
    pad_x, row_h = 16, int(size * 1.9)
    widths = [0] * cols
    for c in cells:
        if c["col_span"] == 1:
            w = draw.textlength(c["text"], font=fb if c["row"] < n_head else f)
            widths[c["col"]] = max(widths[c["col"]], int(w) + 2 * pad_x)
    xs = [x]
    for w in widths:
        xs.append(xs[-1] + w)
    ys = [y + r * row_h for r in range(rows + 1)]
    for c in cells:
        x0, x1 = xs[c["col"]], xs[c["col"] + c["col_span"]]
        y0, y1 = ys[c["row"]], ys[c["row"] + c["row_span"]]
        c["box"] = [x0, y0, x1, y1]
        fnt = fb if c["row"] < n_head else f
        tw = draw.textlength(c["text"], font=fnt)
        right = spec["align"][c["col"]] == "r" and c["row"] >= n_head
        centred = c["row"] < n_head and c["col_span"] > 1
        tx = x1 - pad_x - tw if right else (x0 + x1 - tw) / 2 if centred else x0 + pad_x
        ty = (y0 + y1) / 2 - size * 0.55
        draw.text((tx, ty), c["text"], font=fnt, fill=(20, 20, 20))
        if spec["style"] == "ruled":
            draw.rectangle([x0, y0, x1, y1], outline=(60, 60, 60), width=2)
    if spec["style"] == "rows":   # horizontal rules only, heavier under the header
        for r in range(rows + 1):
            draw.line([xs[0], ys[r], xs[-1], ys[r]], fill=(90, 90, 90), width=3 if r in (0, n_head, rows) else 1)
    return cells, rows, cols, [xs[0], ys[0], xs[-1], ys[-1]]


def copy_text(cells: list, rows: int, cols: int) -> str:
    grid = [["" for _ in range(cols)] for _ in range(rows)]
    for c in cells:
        grid[c["row"]][c["col"]] = c["text"]
    return "\n".join("\t".join(r) for r in grid)


def render_table(name: str, spec: dict) -> None:
    probe = ImageDraw.Draw(Image.new("RGB", (10, 10)))
    _, _, _, box = draw_table(probe, spec, 0, 0)
    margin = 30
    img = Image.new("RGB", (box[2] + 2 * margin, box[3] + 2 * margin), "white")
    cells, rows, cols, box = draw_table(ImageDraw.Draw(img), spec, margin, margin)
    img.save(OUT / f"{name}.png")
    gt = {"kind": "table", "rows": rows, "cols": cols, "box": box, "cells": cells, "copy": copy_text(cells, rows, cols)}
    (OUT / f"{name}.gt.json").write_text(json.dumps(gt, indent=1), encoding="utf-8")


PARAGRAPH = ("Our quarterly review covers the sales of every region and the stock we hold. "
             "The figures below are final and were checked by the finance team before this report went out. "
             "Questions about the numbers should go to the regional managers named in the appendix.")


def wrap(draw, text: str, fnt, width: int) -> list:
    lines, cur = [], ""
    for word in text.split():
        trial = f"{cur} {word}".strip()
        if draw.textlength(trial, font=fnt) > width and cur:
            lines.append(cur)
            cur = word
        else:
            cur = trial
    return lines + [cur]


def render_region_page(name: str, table: str, title: str, header: str, footer: str, caption: str) -> None:
    """A report page: header, title, paragraph, figure + caption, paragraph, table, footer."""
    W, H, m = 1100, 1500, 80
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    regions = []

    def text_block(y, lines, fnt, kind, x=m, gap=1.45):
        size = fnt.size
        top = y
        right = x
        for line in lines:
            d.text((x, y), line, font=fnt, fill=(15, 15, 15))
            right = max(right, x + d.textlength(line, font=fnt))
            y += int(size * gap)
        regions.append({"type": kind, "box": [x, top, int(right), y - int(size * (gap - 1))]})
        return y

    text_block(40, [header], font("sans", 18), "header")
    y = text_block(120, [title], font("sans_bold", 40), "title")
    body = font("serif", 24)
    y = text_block(y + 30, wrap(d, PARAGRAPH, body, W - 2 * m), body, "text")
    # A figure: a small bar chart drawn with shapes, its caption under it.
    fx0, fy0, fx1, fy1 = 250, y + 40, 850, y + 360
    d.rectangle([fx0, fy0, fx1, fy1], outline=(40, 40, 40), width=3)
    for k, hgt in enumerate((120, 200, 90, 260, 170)):
        bx = fx0 + 50 + k * 110
        d.rectangle([bx, fy1 - 20 - hgt, bx + 70, fy1 - 20], fill=(70 + 30 * k, 110, 180 - 20 * k))
    d.line([fx0 + 30, fy1 - 20, fx1 - 30, fy1 - 20], fill=(0, 0, 0), width=2)
    regions.append({"type": "figure", "box": [fx0, fy0, fx1, fy1]})
    cap = font("serif", 20)
    cw = d.textlength(caption, font=cap)
    y = text_block(fy1 + 20, [caption], cap, "figure_caption", x=int((W - cw) / 2))
    spec = TABLES[table]
    cells, rows, cols, tbox = draw_table(d, spec, m, y + 50, size=20)
    regions.append({"type": "table", "box": tbox})
    fw = d.textlength(footer, font=font("sans", 18))
    text_block(H - 70, [footer], font("sans", 18), "footer", x=int((W - fw) / 2))
    img.save(OUT / f"{name}.png")
    gt = {"kind": "page", "regions": regions,
          "table": {"rows": rows, "cols": cols, "box": tbox, "cells": cells, "copy": copy_text(cells, rows, cols)}}
    (OUT / f"{name}.gt.json").write_text(json.dumps(gt, indent=1), encoding="utf-8")


PARAGRAPH_2 = ("Stock levels rose in every warehouse during the second half of the year. "
               "We expect the new distribution centre to shorten delivery times for customers in the east, "
               "and the regional teams will report on its first months in the next review.")
PARAGRAPH_3 = ("Returns fell for the third year running. The service desk answered most questions on the day "
               "they came in, and the share of orders delivered late was the lowest we have recorded.")


def render_columns_page(name: str, table: str, title: str, header: str, footer: str, caption: str,
                        table_caption: str) -> None:
    """Header, title, a bar chart with its labels and its caption under it (left column) and a paragraph beside
    the chart (right column); under them a paragraph in each column; a table centred across both columns; a
    footer; the table's caption above it. Read as its GT "order" says: the chart and its caption, the paragraph
    beside them, then the two lower paragraphs left to right, the table's caption and the table. (Cut into columns or bands line by line, the chart's upper labels, the
    paragraph beside them, its lower labels and then the caption come apart.)"""
    W, H, m, gutter = 1100, 1500, 80, 50
    col = (W - 2 * m - gutter) // 2
    left, right = m, m + col + gutter
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    regions = []

    def text_block(x, y, lines, fnt, kind, gap=1.45):
        top, widest = y, x
        for line in lines:
            d.text((x, y), line, font=fnt, fill=(15, 15, 15))
            widest = max(widest, x + d.textlength(line, font=fnt))
            y += int(fnt.size * gap)
        regions.append({"type": kind, "box": [x, top, int(widest), y - int(fnt.size * (gap - 1))]})
        return y

    text_block(m, 40, [header], font("sans", 18), "header")
    y = text_block(m, 120, [title], font("sans_bold", 40), "title") + 40
    # The chart: bars with their value above and their region's name below, all inside the figure's box.
    fx0, fy0, fx1, fy1 = left, y, left + col, y + 330
    d.rectangle([fx0, fy0, fx1, fy1], outline=(40, 40, 40), width=3)
    small = font("sans", 18)
    base = fy1 - 50
    d.line([fx0 + 20, base, fx1 - 20, base], fill=(0, 0, 0), width=2)
    for k, (label, value) in enumerate((("North", 142), ("South", 110), ("East", 90), ("West", 176))):
        bx = fx0 + 40 + k * 100
        d.rectangle([bx, base - value, bx + 60, base], fill=(60 + 40 * k, 120, 190 - 30 * k))
        d.text((bx + 30 - d.textlength(str(value), font=small) / 2, base - value - 26), str(value), font=small,
               fill=(20, 20, 20))
        d.text((bx + 30 - d.textlength(label, font=small) / 2, base + 12), label, font=small, fill=(20, 20, 20))
    regions.append({"type": "figure", "box": [fx0, fy0, fx1, fy1]})
    cap = font("serif", 20)
    y = text_block(left, fy1 + 30, wrap(d, caption, cap, col), cap, "figure_caption")
    body = font("serif", 22)
    # Beside the chart a paragraph (right column); under both, after a wider gap, a paragraph in each column.
    y = max(y, text_block(right, fy0, wrap(d, PARAGRAPH_2, body, col), body, "text")) + 60
    end_left = text_block(left, y, wrap(d, PARAGRAPH, body, col), body, "text")
    end_right = text_block(right, y, wrap(d, PARAGRAPH_3, body, col), body, "text")
    tw = draw_table(ImageDraw.Draw(Image.new("RGB", (10, 10))), TABLES[table], 0, 0, size=20)[3][2]
    # The table's caption above it, centred like the table.
    y = max(end_left, end_right) + 80
    text_block(int((W - d.textlength(table_caption, font=cap)) / 2), y - 32, [table_caption], cap, "table_caption")
    cells, rows, cols, tbox = draw_table(d, TABLES[table], (W - tw) // 2, y, size=20)
    regions.append({"type": "table", "box": tbox})
    fw = d.textlength(footer, font=font("sans", 18))
    text_block(int((W - fw) / 2), H - 70, [footer], font("sans", 18), "footer")
    img.save(OUT / f"{name}.png")
    kinds = [r["type"] for r in regions]
    # Reading order: header, title, chart, its caption, the paragraph beside them, the lower left and right
    # paragraphs, the table's caption, table, footer (the regions were listed in that order).
    order = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert kinds == ["header", "title", "figure", "figure_caption", "text", "text", "text", "table_caption", "table",
                     "footer"], kinds
    gt = {"kind": "page", "regions": regions, "order": order,
          "table": {"rows": rows, "cols": cols, "box": tbox, "cells": cells, "copy": copy_text(cells, rows, cols)}}
    (OUT / f"{name}.gt.json").write_text(json.dumps(gt, indent=1), encoding="utf-8")


REGION_PAGES = {
    "region_report": dict(table="ruled_products", title="Quarterly Stock Report",
                          header="ACME Retail Ltd - internal", footer="Page 3 of 12",
                          caption="Figure 2: Units sold per month"),
    "region_statement": dict(table="invoice_items", title="Invoice 2026-0147",
                             header="Northwind Consulting", footer="Page 1 of 1",
                             caption="Figure 1: Hours per week"),
}
# Region pages in two columns (render_columns_page).
COLUMN_PAGES = {
    "region_columns": dict(table="spanning_sales", title="Regional Sales Review",
                           header="Northwind Traders - annual review", footer="Page 2 of 8",
                           caption="Figure 1: Units sold per region in 2026, in thousands. The West region sold the most.",
                           table_caption="Table 1: Units sold per half-year, in thousands"),
}


def stamp() -> str:
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(PIL.__version__.encode())
    return h.hexdigest()


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    OUT.mkdir(parents=True, exist_ok=True)
    want = stamp()
    if "--force" not in argv and STAMP.exists() and STAMP.read_text() == want:
        print(f"tables: up to date in {OUT.relative_to(ROOT)}")
        return
    for name, spec in TABLES.items():
        render_table(name, spec)
    for name, spec in REGION_PAGES.items():
        render_region_page(name, **spec)
    for name, spec in COLUMN_PAGES.items():
        render_columns_page(name, **spec)
    STAMP.write_text(want)
    print(f"tables: rendered {len(TABLES)} tables and {len(REGION_PAGES) + len(COLUMN_PAGES)} region pages into {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
