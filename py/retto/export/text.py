"""`text` (a header, then the lines; pages separated by a form feed) and `plain` (only the text, as copied)."""
from __future__ import annotations

from retto.records import page_lines, pages_of, visible

PAGE_BREAK_TEXT = "\f"            # between the pages of a document in `text` (as pdftotext does)


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
