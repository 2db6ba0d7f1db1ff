"""`alto`: ALTO v4 (valid against alto-4-2.xsd), a String per word; tables as ComposedBlocks of cells."""
from __future__ import annotations

from retto._version import __version__
from retto.export.tables import block_table, cell_lines
from retto.export.xml import set_languages, union, xml_attr, xml_text
from retto.ops.line_metrics import language, measure
from retto.records import blocks_of, bounds, line_words, pages_of

ALTO_NS = "http://www.loc.gov/standards/alto/ns-v4#"


def _alto_baseline(line: dict) -> str:
    """ALTO 4.2 BASELINE: the polyline the glyphs rest on, "x1,y1 x2,y2" in page pixels."""
    (lx, ly), (rx, ry) = measure(line).baseline
    return f"{round(lx)},{round(ly)} {round(rx)},{round(ry)}"


def _pos(box) -> str:
    x0, y0, x1, y1 = bounds(box)
    return f'HPOS="{x0}" VPOS="{y0}" WIDTH="{x1 - x0}" HEIGHT="{y1 - y0}"'


def _alto_line(out: list, lid: str, line: dict, words: list, languages, n_word: int) -> int:
    """One TextLine with its Strings; returns the word count so far (String ids run through the file)."""
    lang = language(line["text"], languages)
    out.append(f'<TextLine ID="{lid}" {_pos(line["box"])} BASELINE="{_alto_baseline(line)}"'
               + (f' LANG="{lang}"' if lang else "") + ">")
    for k, word in enumerate(words):
        n_word += 1
        if k:
            out.append("<SP/>")
        out.append(f'<String ID="string_{n_word}" CONTENT={xml_attr(word["text"])} '
                   f'{_pos(word["box"])} WC="{max(0.0, min(1.0, word["score"])):.4f}"/>')
    out.append("</TextLine>")
    return n_word


def alto(record: dict, name: str) -> str:
    """ALTO v4 (valid against alto-4-2.xsd): one Page per page, String per word. A failed page is left out; the
    others keep their PHYSICAL_IMG_NR. IDs carry the page number in a document (IDs are unique per file)."""
    document = "pages" in record
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<alto xmlns="{ALTO_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
           f'xsi:schemaLocation="{ALTO_NS} http://www.loc.gov/standards/alto/v4/alto-4-2.xsd">',
           "<Description>", "<MeasurementUnit>pixel</MeasurementUnit>",
           f"<sourceImageInformation><fileName>{xml_text(name)}</fileName></sourceImageInformation>",
           "<OCRProcessing ID=\"ocr_1\"><ocrProcessingStep><processingSoftware>"
           f"<softwareName>retto</softwareName><softwareVersion>{__version__}</softwareVersion>"
           "</processingSoftware></ocrProcessingStep></OCRProcessing>",
           "</Description>"]
    typed = sorted({b["type"] for _, page in pages_of(record) if "error" not in page
                    for b in page.get("blocks") or [] if b.get("type")})
    if typed:   # page regions: one LayoutTag per block type, referenced by the blocks (TAGREFS)
        out += ["<Tags>"] + [f'<LayoutTag ID="tag_{t}" LABEL="{t}"/>' for t in typed] + ["</Tags>"]
    out.append("<Layout>")
    n_word = 0
    for p, page in pages_of(record):
        if "error" in page:
            continue
        pre = f"{p}_" if document else ""
        types = [b.get("type") for b in page.get("blocks") or []]
        languages = set_languages(page)
        w, h = page["image"]["width"], page["image"]["height"]
        out += [f'<Page ID="page_{p}" PHYSICAL_IMG_NR="{p}" WIDTH="{w}" HEIGHT="{h}">',
                f'<PrintSpace HPOS="0" VPOS="0" WIDTH="{w}" HEIGHT="{h}">']
        for b, block in enumerate(blocks_of(page), 1):
            if not block:
                continue
            kind = types[b - 1] if b <= len(types) else None
            tag = f' TAGREFS="tag_{kind}"' if kind else ""
            table = block_table(page, (page.get("blocks") or [])[b - 1] if b <= len(types) else {})
            if table is not None:   # ALTO has no table: a ComposedBlock of one TextBlock per cell, row by row
                out.append(f'<ComposedBlock ID="block_{pre}{b}" {_pos(table["box"])}{tag} TYPE="table">')
                for cell, pieces in sorted(zip(table["cells"], cell_lines(page, block, table)),
                                           key=lambda c: (c[0]["row"], c[0]["col"])):
                    out.append(f'<TextBlock ID="cell_{pre}{b}_{cell["row"]}_{cell["col"]}" {_pos(cell["box"])}>')
                    for lid, line, words in pieces:
                        n_word = _alto_line(out, f"line_{pre}{lid}", line, words, languages, n_word)
                    out.append("</TextBlock>")
                out.append("</ComposedBlock>")
                continue
            x0, y0, x1, y1 = union([page["lines"][i]["box"] for i in block])
            out.append(f'<TextBlock ID="block_{pre}{b}" HPOS="{x0}" VPOS="{y0}" WIDTH="{x1 - x0}" '
                       f'HEIGHT="{y1 - y0}"{tag}>')
            for i in block:
                line = page["lines"][i]
                n_word = _alto_line(out, f"line_{pre}{i + 1}", line, line_words(line), languages, n_word)
            out.append("</TextBlock>")
        figures = [r for r in page.get("regions") or [] if r["type"] == "figure"]
        for n, r in enumerate(figures, 1):   # figures found by the layout model (their text is in TextBlocks)
            out.append(f'<Illustration ID="illustration_{pre}{n}" TYPE="figure" {_pos(r["box"])}/>')
        out += ["</PrintSpace>", "</Page>"]
    out += ["</Layout>", "</alto>"]
    return "\n".join(out)
