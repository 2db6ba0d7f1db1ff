"""`tsv`: a row per line (name, line index, score, box, text), odd characters escaped."""
from __future__ import annotations

from retto.records import pages_of, visible


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
