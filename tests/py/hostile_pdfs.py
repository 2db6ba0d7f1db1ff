"""Hostile PDFs made at test time (issue 23): small files that ask a renderer for gigabytes.

Each probe is two pages: page 1 hostile, page 2 a small page of real text (Helvetica, no embedded font), so a
test sees the bad page refused and the good one read. The PDF syntax is written here by hand (every byte known,
a correct xref), and the huge streams are deflated without ever holding them: a block of repeated bytes is
compressed once, ending with a full flush (byte-aligned, no back-references across it), and that compressed block
repeated N times is a valid deflate stream of the block repeated N times (the Adler-32 is computed over the real
bytes).

  python tests/py/hostile_pdfs.py DIR [--scale S] -> writes DIR/<probe>.pdf, prints their names as JSON.
  --scale 1 (the default) gives the sizes the issue measured; a smaller scale shrinks only what does not decide the
  verdict (the count of repeated text operators past the budget), for quicker tests.
"""
from __future__ import annotations

import io
import json
import sys
import zlib
from pathlib import Path

from PIL import Image

GOOD_PAGE_TEXT = "Total due 1250 EUR"


def deflate_repeated(block: bytes, times: int, tail: bytes = b"", head: bytes = b"") -> bytes:
    """zlib (RFC 1950) data of head + block * times + tail, made in O(len(block)) time and memory."""
    comp = zlib.compressobj(9)
    head_and_block = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
    header, once = head_and_block[:2], head_and_block[2:]
    first = zlib.compressobj(9)
    start = (first.compress(head) + first.flush(zlib.Z_FULL_FLUSH))[2:] if head else b""
    end = zlib.compressobj(9)
    last = end.compress(tail) + end.flush(zlib.Z_FINISH)
    # The tail's own stream without its 2-byte header and 4-byte Adler-32; its final block ends the whole.
    adler = zlib.adler32(head)
    for _ in range(times):
        adler = zlib.adler32(block, adler)
    adler = zlib.adler32(tail, adler)
    return header + start + once * times + last[2:-4] + adler.to_bytes(4, "big")


def write_pdf(objects: list) -> bytes:
    """objects[i] is object i+1's body (bytes); object 1 must be the catalog."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % n + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % o for o in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def stream(dictionary: bytes, data: bytes) -> bytes:
    return b"<< " + dictionary + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def two_pages(hostile_contents: bytes, hostile_resources: bytes, extra: list, page_box=b"[0 0 612 792]",
              page_extra: bytes = b"", fonts: bytes = b"") -> bytes:
    """Catalog 1, Pages 2, hostile page 3 (contents 4), good page 5 (contents 6), font 7, then `extra` (8...);
    `fonts`: more entries of the hostile page's /Font dictionary."""
    good = b"BT /F1 24 Tf 20 40 Td (%s) Tj ET" % GOOD_PAGE_TEXT.encode("ascii")
    return write_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox " + page_box + b" /Contents 4 0 R /Resources << /Font << /F1 7 0 R "
        + fonts + b" >> " + hostile_resources + b" >>" + page_extra + b" >>",
        hostile_contents,
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 6 0 R /Resources << /Font << /F1 7 0 R >> >> >>",
        stream(b"", good),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ] + extra)


def _draw_image() -> bytes:
    return stream(b"", b"q 612 0 0 792 0 0 cm /Im0 Do Q")


def jpeg_claims_huge(side: int = 65000) -> bytes:
    """A 1.4 KB JPEG whose frame header claims side x side pixels (a decoder sizes its buffers from it)."""
    buf = io.BytesIO()
    Image.new("RGB", (16, 16), (200, 30, 30)).save(buf, "JPEG", quality=50)
    jpg = bytearray(buf.getvalue())
    sof = jpg.index(b"\xff\xc0")
    jpg[sof + 5:sof + 9] = side.to_bytes(2, "big") + side.to_bytes(2, "big")
    image = stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
                   b"/BitsPerComponent 8 /Filter /DCTDecode" % (side, side), bytes(jpg))
    return two_pages(_draw_image(), b"/XObject << /Im0 8 0 R >>", [image])


def flate_image_bomb(side: int = 20000) -> bytes:
    """side x side RGB, all black, deflated (20000: 1.2 GB of pixels in about 1.2 MB)."""
    row = bytes(side * 3)
    data = deflate_repeated(row, side)
    image = stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
                   b"/BitsPerComponent 8 /Filter /FlateDecode" % (side, side), data)
    return two_pages(_draw_image(), b"/XObject << /Im0 8 0 R >>", [image])


def smask_bomb(side: int = 30000) -> bytes:
    """A 16 x 16 image whose soft mask is side x side (grey, deflated zeros)."""
    image = stream(b"/Type /XObject /Subtype /Image /Width 16 /Height 16 /ColorSpace /DeviceRGB "
                   b"/BitsPerComponent 8 /SMask 9 0 R", bytes(16 * 16 * 3))
    mask = stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                  b"/BitsPerComponent 8 /Filter /FlateDecode" % (side, side), deflate_repeated(bytes(side), side))
    return two_pages(_draw_image(), b"/XObject << /Im0 8 0 R >>", [image, mask])


def path_operators(count: int = 2_000_000) -> bytes:
    """count path operators (move, line, stroke: count / 3 little strokes) in one deflated content stream."""
    block = b"10 10 m 13 13 l S\n" * 1000
    contents = stream(b"/Filter /FlateDecode", deflate_repeated(block, max(1, count // 3000)))
    return two_pages(contents, b"", [])


def text_operator_bomb(total_bytes: int = 1 << 30) -> bytes:
    """About total_bytes of text operators (show 'a' then move) deflated: 1 GB in about 2.6 MB."""
    block = b"BT /F1 1 Tf 1 0 0 1 10 10 Tm (a) Tj ET\n" * 25000
    contents = stream(b"/Filter /FlateDecode", deflate_repeated(block, max(1, total_bytes // len(block))))
    return two_pages(contents, b"", [])


def spaces_bomb(total_bytes: int = 1 << 30) -> bytes:
    """A content stream of total_bytes of spaces (no operator at all) deflated: 1 GB in about 1 MB."""
    block = b" " * (1 << 20)
    contents = stream(b"/Filter /FlateDecode", deflate_repeated(block, max(1, total_bytes // len(block))))
    return two_pages(contents, b"", [])


def nested_forms(depth: int = 12, fan: int = 10) -> bytes:
    """A billion-laughs of form XObjects: each form draws the next `fan` times, `depth` deep (fan**depth strokes)."""
    first = 8
    extra = []
    for level in range(depth):
        n = first + level
        if level == depth - 1:
            body = b"0 0 m 1 1 l S"
            res = b""
        else:
            body = b" ".join([b"/Fx Do"] * fan)
            res = b" /Resources << /XObject << /Fx %d 0 R >> >>" % (n + 1)
        extra.append(stream(b"/Type /XObject /Subtype /Form /BBox [0 0 612 792]" + res, body))
    return two_pages(stream(b"", b" ".join([b"/Fx Do"] * fan)), b"/XObject << /Fx %d 0 R >>" % first, extra)


PATH_BLOCK = b"10 10 m 13 13 l S\n" * 1000   # 3,000 operators


def inline_image_bomb(side: int = 20000) -> bytes:
    """An inline image (BI ... ID ... EI, inside the page's own content) of side x side RGB, deflated: its
    pixels are no XObject, and its 1.2 MB of data are far under the content budget."""
    data = deflate_repeated(bytes(side * 3), side)
    contents = (b"q 612 0 0 792 0 0 cm BI /W %d /H %d /CS /RGB /BPC 8 /F /Fl /L %d ID\n" % (side, side, len(data))
                + data + b"\nEI Q")
    return two_pages(stream(b"", contents), b"", [])


def type3_glyph_operators(count: int = 2_000_000) -> bytes:
    """One letter of a Type3 font whose glyph program is count path operators (deflated)."""
    glyph = stream(b"/Filter /FlateDecode", deflate_repeated(PATH_BLOCK, max(1, count // 3000),
                                                             head=b"1000 0 d0\n"))
    font = (b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 1000 1000] /FontMatrix [0.001 0 0 0.001 0 0] "
            b"/CharProcs << /g 9 0 R >> /Encoding << /Type /Encoding /Differences [65 /g] >> /FirstChar 65 "
            b"/LastChar 65 /Widths [1000] /Resources << >> >>")
    return two_pages(stream(b"", b"BT /T3 24 Tf 20 40 Td (A) Tj ET"), b"", [font, glyph], fonts=b"/T3 8 0 R")


def pattern_operators(count: int = 2_000_000) -> bytes:
    """A rectangle filled with a tiling pattern whose cell is count path operators (deflated)."""
    cell = stream(b"/Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 20 20] /XStep 20 "
                  b"/YStep 20 /Resources << >> /Filter /FlateDecode",
                  deflate_repeated(PATH_BLOCK, max(1, count // 3000)))
    return two_pages(stream(b"", b"/Pattern cs /P0 scn 0 0 612 792 re f"), b"/Pattern << /P0 8 0 R >>", [cell])


def unknown_filter() -> bytes:
    """A content stream under a filter nobody implements: pypdf cannot decode it (so it cannot be measured), and
    both renderers fall back to drawing its raw bytes as content (PDFium read "Hidden" from it)."""
    return two_pages(stream(b"/Filter /NoSuchDecode", b"BT /F1 24 Tf 20 40 Td (Hidden) Tj ET"), b"", [])


PROBES = {
    "jpeg_65000.pdf": lambda scale: jpeg_claims_huge(),
    "flate_image_20000.pdf": lambda scale: flate_image_bomb(),
    "smask_30000.pdf": lambda scale: smask_bomb(),
    "path_ops_2m.pdf": lambda scale: path_operators(),
    "text_ops_1gb.pdf": lambda scale: text_operator_bomb(int((1 << 30) * scale)),
    "spaces_1gb.pdf": lambda scale: spaces_bomb(int((1 << 30) * scale)),
    "nested_forms.pdf": lambda scale: nested_forms(),
    "inline_image_20000.pdf": lambda scale: inline_image_bomb(),
    "type3_glyph_ops_2m.pdf": lambda scale: type3_glyph_operators(),
    "pattern_ops_2m.pdf": lambda scale: pattern_operators(),
    "unknown_filter.pdf": lambda scale: unknown_filter(),
}


def main(out: Path, scale: float = 1.0, names=None) -> None:
    """names: probe names; ["disagreeing"]: the DISAGREEING set instead."""
    out.mkdir(parents=True, exist_ok=True)
    if names == ["disagreeing"]:
        for name, make in DISAGREEING.items():
            (out / name).write_bytes(make())
        print(json.dumps(sorted(DISAGREEING)))
        return
    names = names or sorted(PROBES)
    for name in names:
        (out / name).write_bytes(PROBES[name](scale))
    print(json.dumps(names))



# ---- structures the two renderers used to read differently (issue 23, "the runtimes disagree") -------------

def _text_page_objects(page_extra: bytes = b"", parent: int = 2) -> list:
    return [b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 300 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >>"
            % parent + page_extra + b" >>",
            stream(b"", b"BT /F1 24 Tf 20 40 Td (%s) Tj ET" % GOOD_PAGE_TEXT.encode("ascii")),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]


def lying_count(claimed: int = 5) -> bytes:
    """One page, but the page tree's /Count says `claimed`."""
    return write_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count %d >>" % claimed]
                     + _text_page_objects())


def user_unit(unit: float = 10.0) -> bytes:
    """One page whose /UserUnit makes each unit `unit` points (PDF 1.6)."""
    return write_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"]
                     + _text_page_objects(b" /UserUnit %g" % unit))


def deep_page_tree(depth: int = 600) -> bytes:
    """One page at the bottom of `depth` nested /Pages nodes."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    first = 2
    for level in range(depth):
        n = first + level
        kid = n + 1
        parent = b" /Parent %d 0 R" % (n - 1) if level else b""
        objs.append(b"<< /Type /Pages /Kids [%d 0 R] /Count 1%s >>" % (kid, parent))
    page_no = first + depth
    page = _text_page_objects(parent=page_no - 1)
    page[0] = page[0].replace(b"/Contents 4 0 R", b"/Contents %d 0 R" % (page_no + 1)).replace(
        b"/F1 5 0 R", b"/F1 %d 0 R" % (page_no + 2))
    return write_pdf(objs + page)


def unknown_security_handler() -> bytes:
    """An /Encrypt dictionary naming a security handler no reader has."""
    body = write_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"]
                     + _text_page_objects() + [b"<< /Filter /NoSuchHandler /V 1 /R 2 /O (x) /U (y) /P -4 >>"])
    return body.replace(b"trailer\n<< /Size 7 /Root 1 0 R >>", b"trailer\n<< /Size 7 /Root 1 0 R /Encrypt 6 0 R "
                        b"/ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>] >>")


def aes_permissions_only(revision: int = 6) -> bytes:
    """The text page encrypted with AES (R6: AES-256, R4: AES-128) under an owner password and an empty user
    password, as statements and forms often come: every reader opens it without asking. Written by pikepdf (qpdf),
    since pypdf cannot encrypt with AES without a crypto library, which retto's runtimes do not have."""
    import pikepdf
    plain = lying_count(1)
    with pikepdf.open(io.BytesIO(plain)) as pdf:
        out = io.BytesIO()
        pdf.save(out, encryption=pikepdf.Encryption(owner="owner secret", user="", R=revision, aes=True))
    return out.getvalue()


DISAGREEING = {"lying_count.pdf": lying_count, "user_unit.pdf": user_unit, "deep_page_tree.pdf": deep_page_tree,
               "unknown_security_handler.pdf": unknown_security_handler, "aes_permissions_only.pdf": aes_permissions_only}


if __name__ == "__main__":
    args = sys.argv[1:]
    scale = 1.0
    if "--scale" in args:
        i = args.index("--scale")
        scale = float(args[i + 1])
        del args[i:i + 2]
    main(Path(args[0]), scale, args[1:] or None)
