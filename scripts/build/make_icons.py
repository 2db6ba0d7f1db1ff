"""Draw the PWA icons (the same picture as web/public/icons/icon.svg) as PNGs with Pillow, and the small
sample image of the embed example (our own words in DejaVu Sans, so no third-party artwork ships).

Run once after changing the design; the PNGs are committed:  .venv/bin/python scripts/build/make_icons.py
"""
from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parents[2] / "web" / "public" / "icons"
BLUE, WHITE, YELLOW = (31, 95, 139, 255), (255, 255, 255, 255), (255, 209, 102, 255)


def draw(size: int, maskable: bool = False) -> Image.Image:
    s = size / 64
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    if maskable:  # full bleed; the picture sits in the central 80 % safe zone
        d.rectangle([0, 0, size, size], fill=BLUE)
        s *= 0.8
        off = size * 0.1
    else:
        d.rounded_rectangle([0, 0, size - 1, size - 1], radius=14 * s, fill=BLUE)
        off = 0

    def box(x, y, w, h):
        return [off + x * s, off + y * s, off + (x + w) * s, off + (y + h) * s]

    for x, y, w in ((13, 17, 38), (13, 29.5, 30), (13, 42, 22)):
        d.rounded_rectangle(box(x, y, w, 5), radius=2.5 * s, fill=WHITE)
    d.rounded_rectangle(box(9, 25.5, 40, 13), radius=3 * s, outline=YELLOW, width=max(2, round(2.5 * s)))
    return img


SAMPLE = Path(__file__).resolve().parents[2] / "web" / "embed-example" / "sample.png"
SAMPLE_LINES = ["Retto reads this text", "on your own device.", "Nothing is uploaded."]


def draw_sample() -> Image.Image:
    from PIL import ImageFont

    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 34)
    img = Image.new("RGB", (520, 200), (255, 255, 255))
    d = ImageDraw.Draw(img)
    for i, line in enumerate(SAMPLE_LINES):
        d.text((30, 25 + i * 55), line, font=font, fill=(20, 20, 20))
    return img


if __name__ == "__main__":
    draw_sample().save(SAMPLE, optimize=True)
    OUT.mkdir(parents=True, exist_ok=True)
    draw(192).save(OUT / "icon-192.png", optimize=True)
    draw(512).save(OUT / "icon-512.png", optimize=True)
    draw(512, maskable=True).save(OUT / "icon-maskable-512.png", optimize=True)
    print("wrote", *sorted(p.name for p in OUT.glob("*.png")))
