"""PDF fixtures for the browser PDF tests (tests/e2e/page/pdf.spec.js), made at test time from the pinned images.

  make_pdfs.py DIR -> writes DIR/doc.pdf (2 pages: a crop of typewriter.png halved, baiona.png; each page the
                      image's pixel size at 200 DPI), DIR/locked.pdf (needs a password), DIR/broken.pdf (a PDF
                      header and garbage), DIR/text.pdf (vector text, no image), DIR/stamped.pdf (a scan with one
                      line of real text); prints their names as JSON.
Uses tests/py/pdf_fixtures.py (fpdf2), the same maker as the native PDF tests.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "py"))
from pdf_fixtures import encrypted_pdf, garbage_pdf, image_pdf, stamped_scan_pdf, vector_text_pdf  # noqa: E402

DATA = ROOT / "tests" / "data"


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with Image.open(DATA / "typewriter.png") as im:
        # The ingredients list of the recipe (whole lines), at half size: a small page that reads in ~1 s natively.
        recipe = im.convert("RGB").crop((100, 380, 3100, 1250)).reduce(2)
    with Image.open(DATA / "baiona.png") as im:
        baiona = im.convert("RGB")
    files = {"doc.pdf": image_pdf([recipe, baiona]), "locked.pdf": encrypted_pdf(), "broken.pdf": garbage_pdf(),
             "text.pdf": vector_text_pdf(), "stamped.pdf": stamped_scan_pdf()}
    for name, data in files.items():
        (out / name).write_bytes(data)
    print(json.dumps(sorted(files)))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
