"""`md`: paragraphs as Markdown that renders as exactly the text read; tables as GFM pipe tables."""
from __future__ import annotations

import re

from retto.records import blocks_of, pages_of, table_rows, visible

PAGE_BREAK_MD = "\n\n---\n\n"    # a thematic break between pages in `md` (blank lines: never a setext heading)
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
