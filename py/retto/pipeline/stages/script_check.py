"""Stage `script_check`, for a set whose lines Tesseract reads (the script sets): a page that is not in the set's
script says so in the result's warnings instead of silently returning garbage.

A Tesseract recogniser can only write the letters of its own languages, so a Cyrillic page read with the Greek
set comes out as Greek and Latin look-alikes, read with little confidence. Two signals, over every line read
(also those later dropped for a low score):
- the share of the letters read that are in the set's main script (a Latin page read with the Greek set comes
  out as confident English, since the set reads English too: few Greek letters);
- the words' confidence, weighted by their length (a page of another script reads with low confidence, whatever
  letters it comes out as).
The set's scripts are the scripts of its label's letters (each set's label is written in its own script, and
names English in English when the set reads English: "Ελληνικά & English" -> Greek, then Latin), so nothing
about scripts is written twice. When most letters read are confidently in another of the set's scripts (Latin),
the warning names it and a set whose main script it is."""
from __future__ import annotations

from collections import Counter

from retto.errors import RettoError
from retto.models import sets as model_sets
from retto.ops.scripts import letter_scripts, scripts_in

# Thresholds, from the confusion matrix of every Tesseract set on every script test page and on Latin pages
# (scripts/bench/script_mismatch.py, docs/measurements/script-check.md), each with a margin from the
# worst of the sets' own pages: they read with a confidence of at least 0.705 (Arabic, degraded) and with at least
# 54 % of their letters in the set's main script (the Korean page, half of it English sentences: a Hangul
# syllable is one letter, an English word several). Most pages of other scripts read far below one or the other.
# Pages read confidently as look-alikes (Greek as Cyrillic, Gurmukhi as Devanagari, most scripts as Thai) are
# missed rather than warn on a set's own poor scans.
MIN_CHARACTERS = 5    # fewer characters read on the whole page: nothing to judge (a speck, a page number)
MIN_LETTERS = 12      # fewer letters: their scripts say too little (a page of figures is judged by confidence)
MIN_SHARE = 0.4       # share of the letters in the set's main script (own pages: >= 0.538; Latin pages read
                      # by the Cyrillic set: 0.07-0.34)
MIN_CONFIDENCE = 0.62 # the words' confidence weighted by their length (own pages: >= 0.705)
NAME_SHARE = 0.8      # the page "looks like" another script when this share of its letters are in it,
NAME_CONFIDENCE = 0.75  # read with this confidence (Latin pages read as English by a set that reads English too:
                        # 0.77-0.96; the Korean page, half English, read with the Greek or Hebrew set: up to 0.76)
WARNING_START = "script check:"


class ScriptCheck:
    name = "script_check"

    def __init__(self, pipeline):
        self.model_set = pipeline.model_set   # the name of the set read with
        self._resolved = False
        self.chosen = None                    # its ModelSet, once known
        self.sets: list = []                  # every set, in display order (to name one for the page's script)
        self.scripts: list = []               # the chosen set's scripts, the main one first

    def resolve(self) -> bool:
        """Find the set files on first use, not when the pipeline is built: in the browser a restored interpreter
        writes its package files (the set files among them) after the session is made, and every page waits for
        them. False when the set is not one of ours (models given by hand) or its label has no letters."""
        if not self._resolved:
            self._resolved = True
            try:
                self.sets = model_sets.available()
            except (RettoError, OSError, ValueError):
                self.sets = []
            self.chosen = next((s for s in self.sets if s.name == self.model_set), None)
            self.scripts = scripts_in(self.chosen.label) if self.chosen is not None else []
        return bool(self.scripts)

    async def run(self, page):
        if not self.resolve():
            return page
        found = evidence(page.texts, page.spans, self.scripts[0])
        found.update(verdict(found, self.scripts))
        if found["mismatch"]:
            found["suggest"] = self.set_for(found["looks_like"])
            page.warnings.append(self.warning(found))
        page.script = found
        return page

    def set_for(self, script: str | None) -> str | None:
        """A set whose main script is `script`: the default set if it is one, else the first in display order."""
        if script is None:
            return None
        fits = [s for s in self.sets if scripts_in(s.label)[:1] == [script] and s.name != self.chosen.name]
        return next((s.name for s in fits if s.default), fits[0].name if fits else None)

    def warning(self, found: dict) -> str:
        main = self.scripts[0]
        share = (f"{round(found['share'] * 100)} % of its letters were read as {main}, "
                 if found["letters_total"] >= MIN_LETTERS else "")
        text = (f"{WARNING_START} this page does not look like {main}, the script of the model set "
                f"{self.chosen.name!r} it was read with ({share}at {round(found['confidence'] * 100)} % "
                f"confidence)")
        if found["looks_like"]:
            text += f"; it looks like {found['looks_like']}"
            if found.get("suggest"):
                text += f" (model set {found['suggest']!r} reads it)"
        return text + ". The text may be wrong."


def evidence(texts: list, spans: list, main: str) -> dict:
    """What the lines read say: letters per script, the share in the set's main script, and the words'
    confidence weighted by their length."""
    letters, weight, total, characters = Counter(), 0, 0.0, 0
    for (text, _score), words in zip(texts, spans):
        letters.update(letter_scripts(text))
        characters += sum(not c.isspace() for c in text)
        for word, _u0, _u1, score in words:
            weight += len(word)
            total += len(word) * score
    count = sum(letters.values())
    return {"characters": characters, "letters": dict(letters), "letters_total": count,
            "share": letters[main] / count if count else 0.0, "confidence": total / weight if weight else 0.0}


def verdict(found: dict, scripts: list) -> dict:
    """{"mismatch": bool, "looks_like": the script the page seems to be in, when the letters read tell}."""
    count = found["letters_total"]
    if found["characters"] < MIN_CHARACTERS:
        return {"mismatch": False, "looks_like": None}
    few_mine = count >= MIN_LETTERS and found["share"] < MIN_SHARE
    mismatch = few_mine or found["confidence"] < MIN_CONFIDENCE
    looks_like = None
    if few_mine and found["confidence"] >= NAME_CONFIDENCE:
        top, n = max(((s, n) for s, n in found["letters"].items() if s != scripts[0]), key=lambda x: x[1],
                     default=(None, 0))
        if n / count >= NAME_SHARE:
            looks_like = top
    return {"mismatch": mismatch, "looks_like": looks_like}
