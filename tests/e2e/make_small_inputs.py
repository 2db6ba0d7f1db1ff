"""Small inputs for the npm package spec (its pool too) and the pool benchmark, made at test time from pinned data.

  make_small_inputs.py DIR          -> DIR/lines.png (two typewritten lines of typewriter.png, halved: the tiny
                                       image the installed package reads) and DIR/pages.pdf (3 small pages, each
                                       two other lines of it); prints their names as JSON
  make_small_inputs.py DIR --bench  -> also DIR/bench12.pdf: 12 labelled test-set pages (scripts/data/make_testset.py),
                                       each at half size, for scripts/bench/pool.mjs
Uses tests/py/pdf_fixtures.py (fpdf2), the same PDF maker as the other tests.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "py"))
from pdf_fixtures import image_pdf  # noqa: E402

DATA = ROOT / "tests" / "data"
PAGES = ROOT / "tests" / "testset" / "pages"
BENCH_PAGES = ["english_prose", "english_two_column", "french", "german", "spanish", "invoice", "columns_two",
               "columns_three", "figure_note", "dark_ui", "chinese_english", "columns_two_rot90"]


def main(out: Path, bench: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with Image.open(DATA / "typewriter.png") as im:
        page = im.convert("RGB")
    # Bands of two typed lines each of the recipe's ingredients list ("4 ons linzen", ...), at half size.
    bands = [(395, 690), (550, 825), (825, 1105), (960, 1240)]
    crops = [page.crop((100, y0, 3100, y1)).reduce(2) for y0, y1 in bands]
    crops[0].save(out / "lines.png")
    (out / "pages.pdf").write_bytes(image_pdf(crops[1:]))
    names = ["lines.png", "pages.pdf"]
    if bench:
        pictures = []
        for name in BENCH_PAGES:
            with Image.open(PAGES / f"{name}.png") as im:
                pictures.append(im.convert("RGB").reduce(2))
        (out / "bench12.pdf").write_bytes(image_pdf(pictures))
        names.append("bench12.pdf")
    print(json.dumps(names))


if __name__ == "__main__":
    main(Path(sys.argv[1]), "--bench" in sys.argv[2:])
