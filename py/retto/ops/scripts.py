"""Which writing system (Unicode script) letters belong to: the evidence for stages/script_check.py, which tells
when a page read with a Tesseract script set is not in that set's script.

Python's unicodedata has no Script property, but every letter's Unicode name starts with its script ("GREEK
SMALL LETTER ALPHA", "DEVANAGARI LETTER KA", "HANGUL SYLLABLE GA", "THAI CHARACTER KO KAI", "CJK UNIFIED
IDEOGRAPH-4E00"): that first word names the script here. Only letters count (category L*, not modifier letters,
ordinal indicators or the micro sign): digits, punctuation and combining marks belong to no one script."""
from __future__ import annotations

import unicodedata
from collections import Counter

KINDS = (" LETTER ", " SYLLABLE ", " CHARACTER ", " IDEOGRAPH")   # what a letter's name says it is
NAMES = {"CJK": "Han"}    # first words that are not the script's usual English name


def script_of(char: str) -> str | None:
    """The script of one letter ("Greek", "Latin", "Hangul", "Han", …), None for anything else."""
    if not unicodedata.category(char).startswith("L"):
        return None
    name = unicodedata.name(char, "")
    first = name.split(" ", 1)[0]
    if first == "MODIFIER" or not any(kind in name for kind in KINDS):
        return None
    return NAMES.get(first, first.title())


def letter_scripts(text: str) -> Counter:
    """How many of the text's letters each script has."""
    return Counter(s for s in map(script_of, text) if s is not None)


def scripts_in(text: str) -> list:
    """The scripts of a text's letters, in the order they first appear (a set's label: "Ελληνικά & English" ->
    [Greek, Latin])."""
    return list(dict.fromkeys(s for s in map(script_of, text) if s is not None))
