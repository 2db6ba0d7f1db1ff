"""XML text and attributes, and the page geometry hOCR and ALTO share."""
from __future__ import annotations

import re
from xml.sax.saxutils import escape, quoteattr

from retto.models.sets import languages_of
from retto.records import bounds, escape_char

# XML 1.0 forbids these outright (a parser must stop at them); the other odd characters are legal XML.
_NOT_XML_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_text(text: str) -> str:
    """Text for an XML element: characters XML cannot hold shown as escapes (\\x01), then &, <, > escaped."""
    return escape(_NOT_XML_RE.sub(escape_char, str(text)))


def xml_attr(text: str) -> str:
    """A quoted XML attribute value (tab, newline and CR as character references, so they survive parsing)."""
    return quoteattr(_NOT_XML_RE.sub(escape_char, str(text)))


def union(boxes: list) -> tuple:
    bs = [bounds(b) for b in boxes]
    return min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs), max(b[3] for b in bs)


def set_languages(record: dict) -> list:
    """The languages of the model set that read a page record (none if the set is not one we ship)."""
    return languages_of(record.get("model_set"))
