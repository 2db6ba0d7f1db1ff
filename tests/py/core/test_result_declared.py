"""Every key Python puts in a record is declared in the shipped types (web/types/retto.d.ts), which the browser's
client resolves with unchanged: a result, a line, a word, a block, a region, a table, a cell, a page record, a
page error, a document record, the timings and the backend's roles. The keys come from what Python emits (a real
native run with every stage on, and records built by retto.result and retto.io.document), never from a list here."""
import re
from pathlib import Path

import pytest

from retto.io import document
from retto.models.sets import OPTIONAL_ROLES, ROLES
from retto.result import OcrResult, TextLine

ROOT = Path(__file__).resolve().parents[3]
DTS = (ROOT / "web" / "types" / "retto.d.ts").read_text(encoding="utf-8")
QUAD = [[0, 0], [10, 0], [10, 5], [0, 5]]


def _body(text: str, start: int) -> str:
    """The text between the brace at `start` and its match."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start + 1:i]
    raise AssertionError("unbalanced braces in retto.d.ts")


def fields(body: str) -> dict:
    """{key: its declared type text} of an object type's body, top level only (comments dropped)."""
    body = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S)
    out, depth, i = {}, 0, 0
    while i < len(body):
        ch = body[i]
        if ch in "{[(<":
            depth += 1
        elif ch in "}])>":
            depth -= 1
        elif depth == 0:
            m = re.match(r"(\w+)\??\s*:", body[i:])
            if m and (i == 0 or body[i - 1] in " \n;{"):
                j = i + m.end()
                d = 0
                while j < len(body) and not (d == 0 and body[j] == ";"):
                    d += body[j] in "{[(<"
                    d -= body[j] in "}])>" and body[j - 1] != "="   # `=>` is no closing bracket
                    j += 1
                out[m.group(1)] = body[i + m.end():j].strip()
                i = j
        i += 1
    return out


def interface(name: str) -> dict:
    """The fields of `export interface <name>` (and of the interfaces it extends)."""
    m = re.search(rf"export interface {name}\b([^{{]*)\{{", DTS)
    assert m, f"retto.d.ts declares no interface {name}"
    out = fields(_body(DTS, m.end() - 1))
    for base in re.findall(r"extends\s+(\w+)", m.group(1)):
        out = {**interface(base), **out}
    return out


def inline(type_text: str) -> dict:
    """The fields of an inline object type ({ ... } or A & { ... }s)."""
    found = {}
    for m in re.finditer(r"\{", type_text):
        if type_text[:m.start()].count("{") == type_text[:m.start()].count("}"):
            found.update(fields(_body(type_text, m.start())))
    return found


def union(name: str) -> set:
    m = re.search(rf"export type {name}\s*=([^;]*);", DTS)
    assert m, f"retto.d.ts declares no type {name}"
    return set(re.findall(r"'([a-z_]+)'", m.group(1)))


def missing(emitted, declared) -> list:
    return sorted(set(emitted) - set(declared))


@pytest.fixture(scope="module")
def full_run():
    """A real native result with every stage on (the set with every optional model)."""
    from retto.native.ort_worker import OrtWorker
    worker = OrtWorker(device="cpu", threads=2, models="ppocr-v6-tiny")
    assert set(worker.model_set.model_roles) == set(ROLES) | set(OPTIONAL_ROLES)
    config = worker.model_set.make_config({
        "layout": {"regions": True, "tables": True, "page_orientation": "auto", "split_stacks": True,
                   "reading_order": "blocks"},
        "rec": {"reread_below": 0.99}, "cls": {"verify": True}})
    return worker.session(config).run((ROOT / "tests" / "data" / "baiona.png").read_bytes()).to_dict()


def built_result() -> dict:
    """A result with a table, a typed block pointing at it, a region and a word (what baiona.png lacks)."""
    line = TextLine(box=QUAD, text="a b", score=0.9, angle=0, words=[{"text": "a", "box": QUAD, "score": 0.9}])
    table = {"box": QUAD, "rows": 1, "cols": 1, "block": 0,
             "cells": [{"row": 0, "col": 0, "row_span": 1, "col_span": 1, "box": QUAD, "text": "a b"}]}
    return OcrResult(width=10, height=5, lines=[line], page_angle_confidence=0.5,
                     blocks=[{"box": QUAD, "lines": [0], "type": "table", "table": 0}],
                     regions=[{"type": "table", "score": 0.9, "box": QUAD, "lines": [0]}],
                     tables=[table]).to_dict()


def test_the_roles_are_pythons():
    assert union("ModelRole") == set(ROLES)
    assert union("OptionalModelRole") == set(OPTIONAL_ROLES)


def test_a_real_result_is_declared(full_run):
    result = interface("OcrResult")
    assert missing(full_run, result) == []
    assert missing(full_run["image"], inline(result["image"])) == []
    timings = inline(result["timings"])
    assert missing(full_run["timings"], timings) == []
    # backend names each model of the set by role, infer each model that was called: every role is a ModelRole
    # or an OptionalModelRole, and the declarations name both unions
    assert set(full_run["backend"]) == set(ROLES) | set(OPTIONAL_ROLES)
    assert set(ROLES) | {"reread", "layout", "table"} <= set(full_run["timings"]["infer"]) <= set(full_run["backend"])
    for decl in (timings["infer"], result["backend"]):
        aliases = [m.group(1) for m in re.finditer(r"\b(\w+)<", decl)]
        decl += "".join(re.search(rf"export type {a}\b[^=]*=([^;]*);", DTS).group(1) for a in aliases
                        if re.search(rf"export type {a}\b", DTS))
        assert re.search(r"\bModelRole\b", decl) and re.search(r"\bOptionalModelRole\b", decl), decl
    assert full_run["lines"] and full_run["lines"][0]["words"] and full_run["blocks"] and full_run["regions"]
    assert missing(full_run["lines"][0], interface("OcrLine")) == []
    assert missing(full_run["lines"][0]["words"][0], interface("OcrWord")) == []
    assert missing(full_run["blocks"][0], interface("OcrBlock")) == []
    assert missing(full_run["regions"][0], interface("OcrRegion")) == []
    assert {r["type"] for r in full_run["regions"]} <= union("RegionType")


def test_every_part_of_a_result_is_declared():
    record = built_result()
    assert missing(record, interface("OcrResult")) == []
    assert missing(record["lines"][0], interface("OcrLine")) == []
    assert missing(record["lines"][0]["words"][0], interface("OcrWord")) == []
    assert missing(record["blocks"][0], interface("OcrBlock")) == []
    assert missing(record["regions"][0], interface("OcrRegion")) == []
    assert missing(record["tables"][0], interface("OcrTable")) == []
    assert missing(record["tables"][0]["cells"][0], interface("OcrCell")) == []
    assert "null" in interface("OcrResult")["page_angle_confidence"]


def test_document_records_are_declared():
    result = built_result()
    for source, dpi in (("ocr", 200), ("text", 72)):
        page = document.page_record(result, 1, dpi, source=source)
        assert missing(page, interface("PageResult")) == []
        assert f"'{source}'" in interface("PageResult")["source"]
    failed = document.page_error(2, "pdf_page_too_complex", "too many operators")
    assert missing(failed, interface("PageError")) == []
    assert missing(failed["error"], inline(interface("PageError")["error"])) == []
    doc = document.document_record("a.pdf", [document.page_record(result, 1, 200), failed], 2, ["page 1: x"])
    assert missing(doc, interface("DocumentRecord")) == []


def test_the_parser_reads_what_it_should():
    """The reader above, on a declaration it must take apart (so a passing test is no parsing accident)."""
    got = fields("a: number; b?: { c: 1; d: (x: number) => void }; /** e: f */ g: Record<'h', 1>;")
    assert list(got) == ["a", "b", "g"] and inline(got["b"]) == {"c": "1", "d": "(x: number) => void"}
    assert {"image", "lines", "timings", "backend"} <= set(interface("OcrResult"))
    assert {"page", "dpi"} <= set(interface("PageResult")) and "lines" in interface("PageResult")
