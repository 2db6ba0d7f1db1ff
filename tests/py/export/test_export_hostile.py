"""Exports of hostile names and text (issue 23): hOCR and ALTO stay well-formed (and ALTO valid) whatever a file
name or a line holds, Markdown renders as the literal text in a real CommonMark renderer, TSV keeps one row per
line and one field per tab, and the terminal never receives raw control characters."""
from __future__ import annotations

import html.parser
import json
import shutil
import subprocess
import sys

import pytest
import xmlschema
from defusedxml import ElementTree as SafeET
from markdown_it import MarkdownIt

from refkit import ROOT

from retto import export

XHTML = "{http://www.w3.org/1999/xhtml}"
ALTO = "{http://www.loc.gov/standards/alto/ns-v4#}"
SCHEMAS = ROOT / "tests" / "schemas"

# Every C0 control (XML 1.0 forbids all but tab, LF and CR), markup characters, the two non-characters and a CDATA end.
ALL_C0 = "".join(chr(c) for c in range(32))
HOSTILE_NAME = "scan" + ALL_C0 + "<&>\"']]>\ufffe\uffff\x7f\x9b.png"
# What a reader gets back after parsing, written out by hand: forbidden characters as \xNN / \uNNNN escapes,
# tab, LF and CR kept (an element's text: a parser turns CR into LF; an attribute keeps all three via &#9; etc.).
NAME_ESCAPED = ("scan\\x00\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\t\n\\x0b\\x0c\r\\x0e\\x0f\\x10\\x11\\x12\\x13"
                "\\x14\\x15\\x16\\x17\\x18\\x19\\x1a\\x1b\\x1c\\x1d\\x1e\\x1f<&>\"']]>\\ufffe\\uffff\x7f\x9b.png")


def record_with(texts: list, path: str = "x.png") -> dict:
    """A one-page result, each text its own line and its own block (paragraph), one word per line."""
    lines = [{"box": [[10, 10 + 40 * i], [300, 10 + 40 * i], [300, 40 + 40 * i], [10, 40 + 40 * i]], "text": t,
              "score": 0.9, "angle": 0} for i, t in enumerate(texts)]
    return {"path": path, "image": {"width": 400, "height": 40 * len(texts) + 20}, "lines": lines,
            "blocks": [{"box": ln["box"], "lines": [i]} for i, ln in enumerate(lines)]}


@pytest.fixture(scope="module")
def alto_schema():
    return xmlschema.XMLSchema(str(SCHEMAS / "alto-4-2.xsd"), allow="local",
                               locations=[("http://www.w3.org/1999/xlink", str(SCHEMAS / "xlink.xsd"))])


def test_hocr_and_alto_are_well_formed_with_every_control_character(alto_schema):
    record = record_with([HOSTILE_NAME, "plain"], path=HOSTILE_NAME)
    hocr = SafeET.fromstring(export.render(record, "hocr"))   # expat: stops at the first not-well-formed byte
    assert hocr.find(f"{XHTML}head/{XHTML}title").text == NAME_ESCAPED.replace("\r", "\n")
    words = [w for w in hocr.iter(f"{XHTML}span") if w.get("class") == "ocrx_word"]
    assert [w.text for w in words] == [NAME_ESCAPED.replace("\r", "\n"), "plain"]
    page_title = hocr.find(f".//{XHTML}div[@class='ocr_page']").get("title")
    assert json.loads(page_title[len("image "):page_title.index("; bbox")]) == HOSTILE_NAME   # a JSON string

    text = export.render(record, "alto")
    alto_schema.validate(text)
    alto = SafeET.fromstring(text)
    assert alto.find(f".//{ALTO}fileName").text == NAME_ESCAPED.replace("\r", "\n")
    assert [s.get("CONTENT") for s in alto.iter(f"{ALTO}String")] == [NAME_ESCAPED, "plain"]


def test_lone_surrogates_are_escaped_not_written():
    record = record_with(["a\ud800b"], path="n\udfff.png")
    for fmt in ("hocr", "alto", "tsv", "md"):
        out = export.render(record, fmt)
        out.encode("utf-8")   # a lone surrogate cannot be encoded: it must not be there
        assert "\\ud800" in out or fmt == "md" and "\\\\ud800" in out


# --------------------------------------------------------------------------------------------- Markdown

HOSTILE_TEXT = [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[click](javascript:alert(1))",
    "![pixel](http://evil.example/x.png)", "<http://evil.example>", "<evil@example.com>", "&lt;script&gt; &#60; &#x3c; &amp;",
    "Fish & chips &copy", "# heading", "###### six", "> quote", "- item", "+ item", "* item", "1. item", "3) item",
    "123456789. item", "---", "===", "***", "___", "- - -", "`code` ``two``", "~~strike~~ ~one~", "```fence",
    "~~~", "a\\*b\\", "| a | b |", "*em* _em_ **strong** __strong__", "[ref]: http://evil.example",
    "[ref]", "foo<!-- c --> <?php x ?> <![CDATA[x]]> <!DOCTYPE x>", "a < b > c", "50% of 3*4 = 12_000",
    "snake_case_name and 2*3*4", "\\", "trailing two spaces, then a backslash\\",
]


class Text(html.parser.HTMLParser):
    """The rendered HTML's text, one entry per <p>, and every tag used."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paragraphs, self.tags, self.inside = [], set(), False

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "p":
            self.paragraphs.append("")
            self.inside = True

    def handle_endtag(self, tag):
        self.inside = self.inside and tag != "p"

    def handle_data(self, data):
        if self.inside:
            self.paragraphs[-1] += data


def rendered(md: str, renderer: MarkdownIt) -> Text:
    out = Text()
    out.feed(renderer.render(md))
    return out


@pytest.mark.parametrize("preset", ["commonmark", "gfm-like-without-linkify"])
def test_markdown_of_hostile_text_renders_as_that_literal_text(preset):
    renderer = MarkdownIt("commonmark") if preset == "commonmark" else \
        MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md = export.render(record_with(HOSTILE_TEXT), "md")
    out = rendered(md, renderer)
    assert out.tags == {"p"}   # no heading, list, quote, rule, code, link, image, emphasis or raw HTML
    assert out.paragraphs == HOSTILE_TEXT


def test_markdown_shows_control_characters_and_errors_as_text():
    renderer = MarkdownIt("commonmark")
    out = rendered(export.render(record_with(["a\x1b[31mred\nb"]), "md"), renderer)
    assert out.paragraphs == ["a\\x1b[31mred\\nb"] and out.tags == {"p"}
    err = {"path": "x.png", "error": {"code": "invalid_image", "message": "cannot read <img src=x onerror=1>\n# x"}}
    out = rendered(export.render(err, "md"), renderer)
    assert out.tags == {"p", "em"}
    assert out.paragraphs == ["ERROR invalid_image: cannot read <img src=x onerror=1>\\n# x"]


# --------------------------------------------------------------------------------------------- TSV and text

def unescape_tsv(field: str) -> str:
    """The reader's side of the TSV escaping (as linear TSV: \\t \\n \\r \\\\, plus \\xNN and \\uNNNN)."""
    out, i = [], 0
    while i < len(field):
        c = field[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = field[i + 1]
        if nxt in "tnr\\":
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}[nxt])
            i += 2
        elif nxt == "x":
            out.append(chr(int(field[i + 2:i + 4], 16)))
            i += 4
        else:
            assert nxt == "u"
            out.append(chr(int(field[i + 2:i + 6], 16)))
            i += 6
    return "".join(out)


def test_tsv_keeps_one_row_per_line_and_round_trips_hostile_fields():
    name = "a\tb\nc\rd\\e\x1b[2J\x85\u202eg.png"
    texts = ["tab\there", "new\nline", "back\\slash \\t", "esc\x1b]0;title\x07"]
    rows = export.render(record_with(texts, path=name), "tsv").split("\n")
    assert len(rows) == len(texts)
    fields = [r.split("\t") for r in rows]
    assert all(len(f) == 5 for f in fields)
    assert [unescape_tsv(f[0]) for f in fields] == [name] * len(texts)
    assert [unescape_tsv(f[4]) for f in fields] == texts
    assert fields[0][0] == "a\\tb\\nc\\rd\\\\e\\x1b[2J\\x85\\u202eg.png"
    err = export.render({"path": name, "error": {"code": "invalid_image", "message": "m\tn"}}, "tsv")
    assert err.split("\t") == ["a\\tb\\nc\\rd\\\\e\\x1b[2J\\x85\\u202eg.png", "ERROR", "invalid_image", "m\\tn"]


def test_text_header_shows_the_name_escaped():
    out = export.render(record_with(["x"], path="evil\x1b[2J\nname"), "text")
    assert out == "== evil\\x1b[2J\\nname ==\nx"


# --------------------------------------------------------------------------------------------- the CLI

def test_cli_alto_and_stderr_with_a_hostile_file_name(tmp_path, alto_schema):
    """A real page under a name holding ESC, a newline, a tab and \\x01, next to a broken file with such a name:
    the ALTO file validates and names it escaped; stderr (progress, errors) carries no raw control character."""
    src = tmp_path / "in"
    src.mkdir()
    page_name = "page\x1b[31m\x01\tred\n.png"
    shutil.copy(ROOT / "tests" / "testset" / "pages" / "dark_ui.png", src / page_name)
    (src / "bad\x1b]0;pwned\x07\u202e.png").write_bytes(b"not an image")
    proc = subprocess.run([sys.executable, "-m", "retto", "--inputs", str(src), "--format", "alto", "--output",
                           str(tmp_path / "out")], cwd=ROOT, capture_output=True, timeout=300)
    assert proc.returncode == 1   # the broken file failed; the page was read
    stderr = proc.stderr.decode("utf-8")
    assert not any(c in stderr for c in "\x1b\x01\x07\t\u202e"), stderr
    assert "page\\x1b[31m\\x01\\tred\\n.png" in stderr and "bad\\x1b]0;pwned\\x07\\u202e.png" in stderr
    (out,) = (tmp_path / "out").iterdir()
    text = out.read_text(encoding="utf-8")
    alto_schema.validate(text)
    alto = SafeET.fromstring(text)
    assert alto.find(f".//{ALTO}fileName").text.endswith("/page\\x1b[31m\\x01\tred\n.png")
    assert len(list(alto.iter(f"{ALTO}String"))) > 3
