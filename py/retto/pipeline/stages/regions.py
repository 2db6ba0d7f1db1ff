"""Stage `regions` (layout.regions, and layout.tables for cells): the page's regions from the set's layout model,
the cells of each table from its table model, and the reading order rebuilt around them. With regions off and
layout.tables "auto", only on a page whose lines look like a table (ops/table_check.py); other pages pass through.

- Each kept line belongs to the region holding most of its box (at least half); a table, a header or a footer
  wins over a text region that overlaps it.
- Reading order: the header's lines first, the footer's last; a table is one unit, read row by row, placed
  where layout.py's XY-cut puts one box over its area among the body's lines; so is a figure with a caption
  (its lines: a chart's labels). A caption is read right after the figure or table it belongs to (before it
  when it lies above), whatever column the XY-cut puts it in. Each block says its type (the region type of most
  of its lines, else "text").
- A table's cells hold the recognised words whose centre falls in them (tables.fill), so a line the detector
  ran across two cells is split between them.
Boxes stay in upright-image pixels here; page.result maps them to the image as given.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from retto.ops import layout

from retto.ops import regions

from retto.ops import table_check, tables

from retto.ops import words
from retto.ops.crop import is_turned

# When a line lies in several regions, these win (in this order) over the others.
PRIORITY = {"table": 0, "header": 1, "footer": 1, "title": 2, "figure_caption": 2, "table_caption": 2}
MIN_SHARE = 0.5        # a line belongs to a region holding at least this share of its box
TABLE_MARGIN = 6       # pixels of page kept around a table region when it is cut out for the table model
KEEP_EMPTY = ("figure", "table", "equation")   # regions reported even when no line fell in them
# The CDLA model calls some small ruled tables "equation" (our generated report page: equation 0.93, table 0.27)
# and a table ruled by rows only, alone in its picture, "figure" (0.72). Such a region holding this many lines
# is tried as a table too, and becomes one if the table model finds at least 2 rows and 2 columns with most
# cells filled.
MAYBE_TABLE = ("equation", "figure")
MAYBE_TABLE_LINES = 4
# ... but a figure filling the whole picture (touching 3 or 4 of its edges) is a screenshot or a photo, never
# tried as a table (the labelled dark_ui screenshot: figure 0.96 over the whole image, and its menus, side bar
# and settings list made one bogus grid).
EDGE_SLACK = 0.005
# A caption belongs to the nearest figure or table above or below it (overlapping it horizontally) when the gap
# is at most this many caption line heights; its own kind (figure_caption -> figure) first. (Not beside it: the
# layout model called every caption we set beside a chart "text".)
CAPTIONS = {"figure_caption": "figure", "table_caption": "table"}
CAPTION_GAP = 4.0


def rect(quad) -> tuple:
    q = np.asarray(quad, dtype=np.float64)
    return float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max())


def quad(r) -> list:
    x0, y0, x1, y1 = r
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


class Regions:
    name = "regions"

    def __init__(self, pipeline):
        self.p = pipeline

    async def run(self, page):
        kept = page.kept(self.p.config.global_.text_score)
        if page.mostly_turned(kept):
            return page   # vertical (CJK) pages keep their column order
        cfg = self.p.config.layout
        if not cfg.regions and not table_check.looks_like_table(
                [rect(page.lines.boxes[i]) for i in kept], [page.texts[i][0] for i in kept]):
            return page   # tables "auto": this page's lines hold no table, so it pays for no model
        tables_on = bool(cfg.tables) and self.p.has("table")
        up = page.upright
        h, w = up.shape[:2]
        found = regions.decode(await self.p.infer_all("layout", regions.preprocess(up), page), w, h)
        if tables_on:   # a table's box grows over the lines it cuts (a header row left out)
            found = [(kind, score, self._grow(page, kept, box) if kind in ("table", *MAYBE_TABLE) else box)
                     for kind, score, box in found]
        owner = self._assign(page, kept, found)
        found_tables, dropped = [], set()
        for k, (kind, score, box) in enumerate(found):
            weak = kind == "table" and score < regions.SCORE_MIN
            mine = [i for i in kept if owner.get(i) == k]
            if kind != "table" and not (kind in MAYBE_TABLE and len(mine) >= MAYBE_TABLE_LINES
                                        and not (kind == "figure" and _fills(box, w, h))):
                continue
            t = await self._table(page, box, mine) if tables_on else None
            if t is not None and ((kind == "table" and not weak) or _grid_like(t)):
                found[k] = ("table", score, box)
                t["region"] = k
                found_tables.append(t)
            elif weak:
                dropped.add(k)   # a weak table that is no grid (or tables are off) is no region
        if dropped:
            renumber = {k: n for n, k in enumerate(k for k in range(len(found)) if k not in dropped)}
            for t in found_tables:
                t["region"] = renumber[t["region"]]
            found = [f for k, f in enumerate(found) if k not in dropped]
            owner = self._assign(page, kept, found)
        self._order(page, kept, found, owner, found_tables)
        return page

    @staticmethod
    def _assign(page, kept: list, found: list) -> dict:
        """line index -> index of the region it belongs to."""
        owner = {}
        for i in kept:
            box = rect(page.lines.boxes[i])
            best = None
            for k, (kind, score, r) in enumerate(found):
                share = regions.overlap(box, r)
                if share >= MIN_SHARE:
                    key = (PRIORITY.get(kind, 9), -share, -score)
                    if best is None or key < best[0]:
                        best = (key, k)
            if best is not None:
                owner[i] = best[1]
        return owner

    @staticmethod
    def _grow(page, kept: list, box) -> tuple:
        x0, y0, x1, y1 = box
        for i in kept:
            r = rect(page.lines.boxes[i])
            if 0 < regions.overlap(r, box) < MIN_SHARE:
                x0, y0, x1, y1 = min(x0, r[0]), min(y0, r[1]), max(x1, r[2]), max(y1, r[3])
        return x0, y0, x1, y1

    async def _table(self, page, box, lines: list) -> dict | None:
        """The table region's cells, filled with its lines' words; None when the model finds no cell."""
        up = page.upright
        h, w = up.shape[:2]
        x0, y0 = max(0, int(box[0]) - TABLE_MARGIN), max(0, int(box[1]) - TABLE_MARGIN)
        x1, y1 = min(w, int(np.ceil(box[2])) + TABLE_MARGIN), min(h, int(np.ceil(box[3])) + TABLE_MARGIN)
        if x1 - x0 < 8 or y1 - y0 < 8:
            return None
        x, size = tables.preprocess(up[y0:y1, x0:x1])
        loc, probs = await self.p.infer_all("table", x, page)
        tokens, cell_boxes = tables.decode(loc, probs, size)
        cells = tables.grid(tokens)
        cell_boxes = [(a + x0, b + y0, c + x0, d + y0) for a, b, c, d in cell_boxes[:len(cells)]]
        if not cells or len(cell_boxes) < len(cells):
            return None
        found = []
        for i in lines:
            found += self._words(page, i)
        filled = tables.fill(cells, cell_boxes, found)
        rows, cols = tables.shape(cells)
        if not _explains(lines, filled, rows) or not _rows_agree(page, cells, filled):
            return None
        out_cells, line_order = [], []
        for c in sorted(range(len(cells)), key=lambda k: (cells[k]["row"], cells[k]["col"])):
            ws = _reading_order(filled[c])
            out_cells.append({**cells[c], "box": quad(cell_boxes[c]), "text": " ".join(t for t, *_ in ws)})
            for wd in ws:
                if wd[2] not in line_order:
                    line_order.append(wd[2])
        line_order += [i for i in lines if i not in line_order]
        return {"box": quad((x0, y0, x1, y1)), "rows": rows, "cols": cols, "cells": out_cells, "lines": line_order}

    @staticmethod
    def _words(page, i: int) -> list:
        """[(text, rect, line index, word index)] of line i (the whole line when it has no word boxes)."""
        box = page.lines.boxes[i]
        spans = page.spans[i] if i < len(page.spans) else []
        if not spans:
            return [(page.texts[i][0], rect(box), i, 0)]
        turned, flipped = is_turned(page.lines.quads[i]), page.lines.angles[i] == 180
        return [(t, rect(words.span_quad(box, u0, u1, turned, flipped)), i, k)
                for k, (t, u0, u1, _s) in enumerate(spans) if t.strip()]

    def _order(self, page, kept: list, found: list, owner: dict, found_tables: list) -> None:
        kind = {i: found[owner[i]][0] for i in owner}
        in_table = {i for t in found_tables for i in t["lines"]}
        by_y = lambda ids: sorted(ids, key=lambda i: (rect(page.lines.boxes[i])[1], rect(page.lines.boxes[i])[0]))  # noqa: E731
        head = by_y([i for i in kept if kind.get(i) == "header" and i not in in_table])
        foot = by_y([i for i in kept if kind.get(i) == "footer" and i not in in_table])
        body = [i for i in kept if i not in in_table and kind.get(i) not in ("header", "footer")]
        # A figure with a caption (a chart, its labels and legend) is one unit too, one box over its lines (not the
        # region's box, which may reach over a table or a heading), read in their own order: cut with the body
        # line by line, a paragraph beside the chart would be read between its upper and lower labels. (Not every
        # figure: the layout model calls whole blocks of a scanned page "figure"; read as one box, the labelled
        # binarised scan went from 1.3 % to 29 % reading-order CER.)
        in_body = {owner[i] for i in body if i in owner}
        anchors = {k: (a, before) for k, (a, before) in _anchors(page, found, owner, found_tables).items()
                   if found[a][0] == "table" or a in in_body}   # (a figure whose lines all went elsewhere: none)
        figures = sorted({a for a, _before in anchors.values() if found[a][0] == "figure"})
        figure_lines = {}
        for a in figures:
            ids = [i for i in body if owner.get(i) == a]
            inner, _, _ = layout.analyse([page.lines.boxes[i] for i in ids])
            figure_lines[a] = [ids[n] for n in inner]
        body = [i for i in body if owner.get(i) not in figure_lines]
        # Each table goes into the XY-cut as one box over its area, so the body is cut around it as it was with
        # the table's lines in place (without it, two columns beside and below a table would be read apart).
        order, groups, block_quads = layout.analyse([page.lines.boxes[i] for i in body] +
                                                    [t["box"] for t in found_tables] +
                                                    [quad(_union(page, figure_lines[a])) for a in figures])
        units = []
        for g, q in zip(groups, block_quads):
            text = []
            for pos in g:
                n = order[pos]
                if n < len(body):
                    text.append(body[n])
                    continue
                if text:
                    units.append({"lines": text, "box": quad(_union(page, text))})
                    text = []
                k = n - len(body)
                if k < len(found_tables):
                    units.append({"lines": found_tables[k]["lines"], "box": found_tables[k]["box"], "type": "table",
                                  "table": k})
                else:
                    a = figures[k - len(found_tables)]
                    units.append({"lines": figure_lines[a], "box": quad(_union(page, figure_lines[a])),
                                  "type": "figure", "figure": a})
            if text:
                whole = len(text) == len(g)
                units.append({"lines": text, "box": q if whole else quad(_union(page, text))})
        for u in units:
            if "type" not in u:
                u["type"] = Counter(kind.get(i, "text") for i in u["lines"]).most_common(1)[0][0]
        # A caption with a figure or table to belong to is taken out of the unit the XY-cut put it in and read
        # right after that figure or table (before it when above it): a cut can read a caption set across the
        # gutter, or in rows with the other column's lines, apart from its figure. The cut itself is left as it
        # was (the caption's lines help it see the columns).
        held = {k: by_y([i for i in body if owner.get(i) == k]) for k in anchors}
        held = {k: ids for k, ids in held.items() if ids}
        if held:
            moved = {i for ids in held.values() for i in ids}
            kept_units = []
            for u in units:
                rest = [i for i in u["lines"] if i not in moved]
                if len(rest) == len(u["lines"]):
                    kept_units.append(u)
                elif rest:
                    kept_units.append({**u, "lines": rest, "box": quad(_union(page, rest)),
                                       "type": Counter(kind.get(i, "text") for i in rest).most_common(1)[0][0]})
            units = kept_units
        for k in sorted(held, key=lambda k: rect(page.lines.boxes[held[k][0]])[1]):   # top to bottom
            a, before = anchors[k]
            mine = lambda u: ("table" in u and found_tables[u["table"]]["region"] == a  # noqa: E731
                              or u.get("figure") == a)
            at = [n for n, u in enumerate(units) if mine(u)]
            after = [n for n, u in enumerate(units) if mine(u) or u.get("anchor") == a]   # captions placed below
            unit = {"lines": held[k], "box": quad(_union(page, held[k])), "type": found[k][0], "anchor": a}
            if at:
                units.insert(at[0] if before else after[-1] + 1, unit)
            else:   # (its anchor's lines are always in a unit; kept for safety)
                units.append(unit)
        if head:
            units.insert(0, {"lines": head, "box": quad(_union(page, head)), "type": "header"})
        if foot:
            units.append({"lines": foot, "box": quad(_union(page, foot)), "type": "footer"})
        page.order = [i for u in units for i in u["lines"]]
        position = {i: n for n, i in enumerate(page.order)}
        page.blocks = [{"box": u["box"], "lines": [position[i] for i in u["lines"]], "type": u["type"],
                        **({"table": u["table"]} if "table" in u else {})} for u in units if u["lines"]]
        page.tables = [{k: v for k, v in t.items() if k not in ("lines", "region")} for t in found_tables]
        for n, b in enumerate(page.blocks):
            if "table" in b:
                page.tables[b["table"]]["block"] = n
        page.regions = []
        for k, (name, score, r) in enumerate(found):
            mine = sorted(position[i] for i, o in owner.items() if o == k and i in position)
            if mine or name in KEEP_EMPTY:
                page.regions.append({"type": name, "score": score, "box": quad(r), "lines": mine})


def _anchors(page, found: list, owner: dict, found_tables: list) -> dict:
    """caption region -> (the figure or table region it belongs to, whether the caption is read before it): the
    nearest figure holding lines, or table, above or below the caption (overlapping it horizontally) within
    CAPTION_GAP caption line heights; one of the caption's own kind first. Captions without one: none."""
    lines_of = {}
    for i, k in owner.items():
        lines_of.setdefault(k, []).append(i)
    tabled = {t["region"] for t in found_tables}
    out = {}
    for k, (name, _score, c) in enumerate(found):
        if name not in CAPTIONS or k not in lines_of:
            continue
        h = float(np.median([rect(page.lines.boxes[i])[3] - rect(page.lines.boxes[i])[1] for i in lines_of[k]]))
        best = None
        for a, (other, _s, r) in enumerate(found):
            if not (other == "table" and a in tabled or other == "figure" and a in lines_of):
                continue
            if min(c[2], r[2]) <= max(c[0], r[0]):   # not above or below it
                continue
            gap = max(r[1] - c[3], c[1] - r[3])
            if gap > CAPTION_GAP * h:
                continue
            key = (other != CAPTIONS[name], max(gap, 0.0))
            if best is None or key < best[0]:
                best = (key, a, (c[1] + c[3]) / 2 < r[1])
        if best is not None:
            out[k] = best[1:]
    return out


def _explains(lines: list, filled: list, rows: int) -> bool:
    """Whether a grid fits the lines it was found over: not more rows than lines, at most a quarter of the
    lines torn between cells (a detector box run across two cells of a borderless table is torn; a grid laid
    over prose tears most lines), and at most half of the lines crowded into a cell with another line (a cell
    may hold a wrapped text, but a grid with too few columns or rows set half a row off puts lines the detector
    saw apart into one cell). The labelled deposition transcript, called a table at 0.52, gave 74 rows for 51
    lines, most of them torn; the labelled borderless table scan got 5 columns for its 7 and rows half a row
    off: 52 of its 81 lines crowded (every well-read table here: none). Such a table is read as text instead."""
    cells_of = {}
    for k, ws in enumerate(filled):
        for wd in ws:
            cells_of.setdefault(wd[2], set()).add(k)
    torn = sum(1 for c in cells_of.values() if len(c) > 1)
    crowded = {wd[2] for ws in filled if len({w[2] for w in ws}) > 1 for wd in ws}
    return rows <= max(2, len(lines)) and torn * 4 <= len(lines) and len(crowded) * 2 <= len(lines)


def _rows_agree(page, cells: list, filled: list) -> bool:
    """Whether the grid's rows are the text's rows: the lines that share a text row (ops.table_check.rows_of)
    must have every word in cells sharing a grid row (a cell's rows: row .. row + row_span - 1), in all but a
    fifth of the text rows. SLANet's grid for a long table can slip by a row (its input is 488 px: on the
    labelled bank statement 29 rows of 17 px), putting a date in one grid row and its amounts in the next: 23 of
    that page's 29 text rows were split, and the answer key, the parts list, the form scans and the deposition
    got 35-92 %; every table read right here (the table pictures, the region pages, the invoice, the ruled
    table) had none. Such a grid is not read as cells: the lines keep their own rows."""
    spans = {}
    for k, ws in enumerate(filled):
        rows = set(range(cells[k]["row"], cells[k]["row"] + cells[k].get("row_span", 1)))
        for wd in ws:
            spans.setdefault(wd[2], []).append(rows)
    ids = sorted(spans)
    text_rows = table_check.rows_of([rect(page.lines.boxes[i]) for i in ids])
    split = sum(1 for row in text_rows if not set.intersection(*(s for k in row for s in spans[ids[k]])))
    return split * 5 <= len(text_rows)


def _fills(box, w: int, h: int) -> bool:
    """Whether a region touches at least 3 edges of the w x h picture."""
    dx, dy = max(2.0, EDGE_SLACK * w), max(2.0, EDGE_SLACK * h)
    return sum((box[0] <= dx, box[1] <= dy, box[2] >= w - dx, box[3] >= h - dy)) >= 3


def _grid_like(table: dict) -> bool:
    filled = sum(1 for c in table["cells"] if c["text"].strip())
    return table["rows"] >= 2 and table["cols"] >= 2 and filled * 2 > len(table["cells"])


def _union(page, ids: list) -> tuple:
    rs = np.asarray([rect(page.lines.boxes[i]) for i in ids])
    return float(rs[:, 0].min()), float(rs[:, 1].min()), float(rs[:, 2].max()), float(rs[:, 3].max())


def _reading_order(ws: list) -> list:
    """A cell's words in reading order: rows by their centres (within half a word height), left to right."""
    if not ws:
        return []
    ws = sorted(ws, key=lambda wd: (wd[1][1] + wd[1][3]) / 2)
    rows, cur = [], [ws[0]]
    for wd in ws[1:]:
        ref = cur[0][1]
        if abs((wd[1][1] + wd[1][3]) / 2 - (ref[1] + ref[3]) / 2) < 0.5 * max(ref[3] - ref[1], 1.0):
            cur.append(wd)
        else:
            rows.append(cur)
            cur = [wd]
    rows.append(cur)
    return [wd for row in rows for wd in sorted(row, key=lambda wd: wd[1][0])]
