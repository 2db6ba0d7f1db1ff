"""Exports, written once: the CLI and the browser both render results here, so their files are the same bytes.

A record is one input's result dict (`OcrResult.to_dict()`) with its `path`, or `{"path", "error"}`.
Formats: json, jsonl, text, tsv, md (Markdown), hocr (hOCR 1.2: ocr_page / ocr_line / ocrx_word), alto (ALTO v4).
Words come from each line's `words` (CTC word boxes) when present, else the line is one word.
"""
from __future__ import annotations

import json
import re
from xml.sax.saxutils import escape, quoteattr

from . import __version__

TEXT_FORMATS = ("json", "jsonl", "text", "tsv", "md", "hocr", "alto")
EXTENSIONS = {"json": "json", "jsonl": "jsonl", "text": "txt", "tsv": "tsv", "md": "md", "hocr": "hocr",
              "alto": "alto.xml"}


def bounds(box) -> tuple[int, int, int, int]:
    """Axis-aligned integer bounds (x0, y0, x1, y1) of a [[x, y]...] box."""
    xs = [p[0] for p in box]
    ys = [p[1] for p in box]
    return int(min(xs)), int(min(ys)), int(round(max(xs))), int(round(max(ys)))


def line_words(line: dict) -> list:
    """The line's words (text, box, score); a line without word boxes is one word."""
    return line.get("words") or [{"text": line["text"], "box": line["box"], "score": line["score"]}]


def blocks_of(record: dict) -> list:
    """Line indexes grouped into blocks (paragraphs) when the layout step gave them, else one block."""
    blocks = record.get("blocks")
    if blocks:
        return [b["lines"] for b in blocks]
    return [list(range(len(record["lines"])))]


def render(record: dict, fmt: str, name: str | None = None) -> str:
    """One record in one text format. `name` is how the input is named in the output (default: its path)."""
    name = name if name is not None else record.get("path", "")
    if fmt == "json":
        return json.dumps(record, ensure_ascii=False, indent=2)
    if fmt == "jsonl":
        return json.dumps(record, ensure_ascii=False)
    if "error" in record:
        err = record["error"]
        if fmt == "tsv":
            return f"{name}\tERROR\t{err['code']}\t{err['message']}"
        if fmt in ("hocr", "alto"):
            raise ValueError(f"{name} has no result to export ({err['code']})")
        return f"== {name} ==\nERROR {err['code']}: {err['message']}"
    return {"text": text, "tsv": tsv, "md": markdown, "hocr": hocr, "alto": alto}[fmt](record, name)


def text(record: dict, name: str) -> str:
    return "\n".join([f"== {name} =="] + [line["text"] for line in record["lines"]])


def tsv(record: dict, name: str) -> str:
    rows = []
    for i, line in enumerate(record["lines"]):
        box = " ".join(f"{x:g},{y:g}" for x, y in line["box"])
        rows.append(f"{name}\t{i}\t{line['score']:.4f}\t{box}\t{line['text']}")
    return "\n".join(rows)


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
    """Paragraphs as the layout step found them (blank lines between), hyphenated line ends joined."""
    lines = record["lines"]
    paras = [join_lines([lines[i]["text"] for i in block]) for block in blocks_of(record)]
    return "\n\n".join(p.replace("*", r"\*").replace("_", r"\_") for p in paras if p)


def hocr(record: dict, name: str) -> str:
    w, h = record["image"]["width"], record["image"]["height"]
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
           '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">',
           '<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">',
           "<head>", f"<title>{escape(name)}</title>",
           '<meta http-equiv="Content-Type" content="text/html;charset=utf-8" />',
           f'<meta name="ocr-system" content="retto {__version__}" />',
           '<meta name="ocr-capabilities" content="ocr_page ocr_carea ocr_par ocr_line ocrx_word" />',
           "</head>", "<body>",
           f'<div class="ocr_page" id="page_1" title={quoteattr(f"image {json.dumps(name)}; bbox 0 0 {w} {h}")}>']
    n_word = 0
    for b, block in enumerate(blocks_of(record), 1):
        if not block:
            continue
        bx = _union([record["lines"][i]["box"] for i in block])
        out.append(f'<div class="ocr_carea" id="block_1_{b}" title="bbox {" ".join(map(str, bx))}">')
        out.append(f'<p class="ocr_par" id="par_1_{b}" title="bbox {" ".join(map(str, bx))}">')
        for i in block:
            line = record["lines"][i]
            x0, y0, x1, y1 = bounds(line["box"])
            out.append(f'<span class="ocr_line" id="line_1_{i + 1}" title="bbox {x0} {y0} {x1} {y1}">')
            for word in line_words(line):
                n_word += 1
                wx0, wy0, wx1, wy1 = bounds(word["box"])
                conf = int(round(100 * word["score"]))
                out.append(f'<span class="ocrx_word" id="word_1_{n_word}" '
                           f'title="bbox {wx0} {wy0} {wx1} {wy1}; x_wconf {conf}">{escape(word["text"])}</span>')
            out.append("</span>")
        out.append("</p>")
        out.append("</div>")
    out += ["</div>", "</body>", "</html>"]
    return "\n".join(out)


def _union(boxes: list) -> tuple:
    bs = [bounds(b) for b in boxes]
    return min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs), max(b[3] for b in bs)


def _pos(box) -> str:
    x0, y0, x1, y1 = bounds(box)
    return f'HPOS="{x0}" VPOS="{y0}" WIDTH="{x1 - x0}" HEIGHT="{y1 - y0}"'


ALTO_NS = "http://www.loc.gov/standards/alto/ns-v4#"


def alto(record: dict, name: str) -> str:
    w, h = record["image"]["width"], record["image"]["height"]
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<alto xmlns="{ALTO_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
           f'xsi:schemaLocation="{ALTO_NS} http://www.loc.gov/alto/v4/alto-4-2.xsd">',
           "<Description>", "<MeasurementUnit>pixel</MeasurementUnit>",
           f"<sourceImageInformation><fileName>{escape(name)}</fileName></sourceImageInformation>",
           "<OCRProcessing ID=\"ocr_1\"><ocrProcessingStep><processingSoftware>"
           f"<softwareName>retto</softwareName><softwareVersion>{__version__}</softwareVersion>"
           "</processingSoftware></ocrProcessingStep></OCRProcessing>",
           "</Description>", "<Layout>",
           f'<Page ID="page_1" PHYSICAL_IMG_NR="1" WIDTH="{w}" HEIGHT="{h}">',
           f'<PrintSpace HPOS="0" VPOS="0" WIDTH="{w}" HEIGHT="{h}">']
    n_word = 0
    for b, block in enumerate(blocks_of(record), 1):
        if not block:
            continue
        x0, y0, x1, y1 = _union([record["lines"][i]["box"] for i in block])
        out.append(f'<TextBlock ID="block_{b}" HPOS="{x0}" VPOS="{y0}" WIDTH="{x1 - x0}" HEIGHT="{y1 - y0}">')
        for i in block:
            line = record["lines"][i]
            out.append(f'<TextLine ID="line_{i + 1}" {_pos(line["box"])}>')
            for k, word in enumerate(line_words(line)):
                n_word += 1
                if k:
                    out.append("<SP/>")
                out.append(f'<String ID="string_{n_word}" CONTENT={quoteattr(word["text"])} {_pos(word["box"])} '
                           f'WC="{max(0.0, min(1.0, word["score"])):.4f}"/>')
            out.append("</TextLine>")
        out.append("</TextBlock>")
    out += ["</PrintSpace>", "</Page>", "</Layout>", "</alto>"]
    return "\n".join(out)
