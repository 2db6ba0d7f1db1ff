"""Allowed and blocked characters (config rec.allow / rec.block): a mask over the recogniser's classes.

The masked classes' probabilities are set to 0 as they come out of the model (Pipeline.infer), so greedy CTC
decoding, word boxes, scores and every stage that reads text all choose among the allowed characters only; the
same Python runs in Pyodide, so both runtimes read the same. A value is a string or a list of strings; each string
is a class name below or else the literal characters themselves (`"digits"`, `"0123456789.-"`, `["digits", "-"]`).
With an allow-list the CTC blank and the space (the word break) stay allowed unless blocked."""
from __future__ import annotations

import unicodedata

import numpy as np

from retto.config import string_list
from retto.errors import INVALID_CONFIG, RettoError


def _latin(ch: str) -> bool:
    return ch.isalpha() and ord(ch) < 0x250


CLASSES = {
    "digits": lambda ch: ch in "0123456789",
    "latin": _latin,                                          # Latin letters, accented ones included
    "uppercase": lambda ch: _latin(ch) and ch.isupper(),
    "lowercase": lambda ch: _latin(ch) and ch.islower(),
    "punctuation": lambda ch: unicodedata.category(ch[:1] or " ").startswith("P"),
    "symbols": lambda ch: unicodedata.category(ch[:1] or " ").startswith("S"),
    "han": lambda ch: any(0x4E00 <= ord(c) <= 0x9FFF or 0x3400 <= ord(c) <= 0x4DBF for c in ch),
    "kana": lambda ch: any(0x3040 <= ord(c) <= 0x30FF for c in ch),
    "hangul": lambda ch: any(0xAC00 <= ord(c) <= 0xD7AF for c in ch),
    "space": lambda ch: ch.isspace(),
}


def _matcher(value, key: str):
    """label -> bool for a rec.allow / rec.block value (None: the value is empty)."""
    parts = string_list(value, key)
    if not parts:
        return None
    tests, literal = [], set()
    for part in parts:
        if part in CLASSES:
            tests.append(CLASSES[part])
        else:
            literal.update(part)
    return lambda label: label in literal or any(t(label) for t in tests)


def class_mask(labels: list, allow, block) -> np.ndarray | None:
    """A float32 0/1 vector over the classes (index 0 is the CTC blank), or None when nothing is filtered."""
    allowed, blocked = _matcher(allow, "allow"), _matcher(block, "block")
    if allowed is None and blocked is None:
        return None
    keep = np.ones(len(labels), dtype=bool)
    for i, label in enumerate(labels[1:], 1):
        if allowed is not None and not (allowed(label) or label == " "):
            keep[i] = False
        if blocked is not None and blocked(label):
            keep[i] = False
    if not any(k for k, label in zip(keep[1:], labels[1:]) if label != " "):
        raise RettoError(INVALID_CONFIG, "rec.allow / rec.block leave none of the model's characters to read")
    return keep.astype(np.float32)
