"""Pipeline settings. Defaults are the reference values of RapidOCR 1.4.4 / PaddleOCR PP-OCRv4 (see docs/facts.md §4)."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields

from retto.errors import INVALID_CONFIG, RettoError

TEXT_LAYER_MODES = ("auto", "ocr", "text")   # document.text_layer (retto.io.text_layer reads a page's own text)


def string_list(value, key: str) -> list:
    """A rec.allow / rec.block value as its non-empty strings (a string or a list of strings), else an error."""
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return [v for v in value if v]
    raise RettoError(INVALID_CONFIG, f"rec.{key} must be a string or a list of strings, not {value!r}")


def check_text_layer_mode(mode: str) -> None:
    if mode not in TEXT_LAYER_MODES:
        raise RettoError(INVALID_CONFIG, f"document.text_layer must be one of {', '.join(TEXT_LAYER_MODES)}, "
                                         f"not {mode!r}")


@dataclass
class GlobalConfig:
    max_side_len: int = 2000        # shrink so the longer side is at most this, then round sides to /32
    min_side_len: int = 30          # grow so the shorter side is at least this
    min_height: int = 30            # letterbox-pad images this short ...
    width_height_ratio: float = 8.0  # ... or this wide (w/h), so det sees a sane aspect
    text_score: float = 0.5         # drop recognised lines scoring below this
    max_pixels: int = 100_000_000   # refuse to decode larger images (decompression bombs, wasm memory)


@dataclass
class DetConfig:
    limit_side_len: int = 736
    limit_type: str = "min"         # "min": upscale until the short side reaches limit; "max": cap the long side
    max_upscale: float = 0.0        # "min" only: never enlarge more than this (0: no cap, the reference). A 400x50
                                    # word would otherwise become a 5888x736 det input, 6x a whole page's work
    mean: tuple = (0.5, 0.5, 0.5)
    std: tuple = (0.5, 0.5, 0.5)
    thresh: float = 0.3
    box_thresh: float = 0.5
    max_candidates: int = 1000
    unclip_ratio: float = 1.6
    use_dilation: bool = True
    min_size: int = 3
    content_crop: bool = False      # detect only the page's content box, not its blank margins (content_box.py)


@dataclass
class ClsConfig:
    enabled: bool = True
    height: int = 48
    width: int = 192
    batch_size: int = 6
    thresh: float = 0.9
    labels: tuple = ("0", "180")
    verify: bool = False            # re-read 180-degree lines upright too and keep the better reading (not in the
                                    # reference pipeline, so off for the RapidOCR-parity set)


@dataclass
class RecConfig:
    height: int = 48
    min_width: int = 320            # batch width is at least this (48 * 320/48)
    margin: int = 0                 # blank columns kept right of a batch's widest line (0: the reference). With a
                                    # narrow min_width a short line's last letter would otherwise touch the
                                    # input's edge, where both recognisers read worse (docs/measurements/default-set-choice.md, "How the default
                                    # was chosen")
    batch_size: int = 6
    reread_below: float = 0.0       # lines scoring below this are read again by the set's "reread" recogniser
                                    # (stages/reread.py); 0: off
    reread_word_below: float = 0.0  # ... and lines with a word scoring below this (0: words not looked at; only
                                    # with reread_below > 0, which switches the stage on)
    reread_letter_below: float = 0.0        # ... and lines scoring below reread_letters_line_below with at least
    reread_letters: int = 2                 # reread_letters letters or digits read with a probability below
    reread_letters_line_below: float = 0.0  # reread_letter_below (0: off; the default set: 0.8, 2, 0.97)
    reread_joined_codes: bool = False       # ... and lines with a token that runs digits into letters ("13A",
                                            # "B12"): the tiny recogniser drops the space in "13 A" confidently
    reread_ink_margin: float = 0.0  # the re-reading recogniser reads each line cut to its ink rows plus this times
                                    # their height above and below (crop.ink_band); 0: the detector's crop
    reread_batch_size: int = 0      # lines per re-reading batch (0: batch_size)
    reread_min_width: int = 0       # batch width floor of the re-reading recogniser (0: min_width). Its cost is
                                    # linear in width, so short lines padded to 320 px cost it as much as long ones
    word_gap: float = 0.0           # restore a dropped word break where the crop has a blank column run at least
                                    # this times the ink height (words.add_missing_spaces); 0: off (reference)
    fit_words_to_ink: bool = False  # move each word's ends from its CTC steps onto its ink columns
                                    # (words.fit_to_ink); off: the steps alone (reference)
    allow: str | tuple = ""         # read only these characters: a class (digits, latin, uppercase, lowercase,
                                    # punctuation, symbols, han, kana, hangul, space), literal characters, or a
                                    # list of both (char_filter.py); "": every character of the model
    block: str | tuple = ""         # never read these characters (same forms); "": none blocked


@dataclass
class LayoutConfig:
    page_orientation: str = "off"   # "auto": find and undo a page turned 90/180/270 degrees (page_orientation.py);
                                    # "off": read the image as given, like the reference
    reading_order: str = "lines"    # "blocks": columns, titles and paragraphs (layout.py); "lines": the
                                    # reference's per-line sort (top to bottom, then left to right)
    regions: bool = False           # page regions from the set's layout model (header, title, figure, caption,
                                    # table, footer...): results gain `regions`, the reading order uses them
                                    # (stages/regions.py)
    tables: bool | str = False      # ... and each table region's cells from the set's table model (SLANet):
                                    # results gain `tables` (True or "on" needs regions). "auto": only pages whose
                                    # lines look like a table (ops/table_check.py) get regions and tables; the
                                    # others pay nothing. False or "off": none
    split_stacks: bool = False      # tall boxes that are stacks of short rows are read row by row when that
                                    # reads better (stages/stacks.py)


@dataclass
class DocumentConfig:
    dpi: int = 200                  # PDF pages are rendered at this resolution (both runtimes)
    text_layer: str = "ocr"         # "auto" | "ocr" | "text": read a page's own text layer instead of OCR
                                    # (text_layer.py; both runtimes). Not "auto" yet: pdf.js places the text of
                                    # a page with a /UserUnit differently from PDFium (words run together)
    max_pages: int = 500            # refuse longer PDFs (pdf_too_many_pages): a stated bound on one input's work
    # Page budgets checked before rendering (retto.io.pdf_guard; past one: the page error pdf_page_too_complex).
    max_page_operators: int = 1_000_000     # drawing operators per page, forms counted each time drawn
    max_content_bytes: int = 64_000_000     # decoded content-stream bytes per page
    max_image_pixels: int = 100_000_000     # declared width x height of any image or soft mask on a page


@dataclass
class Config:
    global_: GlobalConfig = field(default_factory=GlobalConfig)
    det: DetConfig = field(default_factory=DetConfig)
    cls: ClsConfig = field(default_factory=ClsConfig)
    rec: RecConfig = field(default_factory=RecConfig)
    layout: LayoutConfig = field(default_factory=LayoutConfig)
    document: DocumentConfig = field(default_factory=DocumentConfig)

    def __post_init__(self) -> None:
        if self.layout.page_orientation not in ("auto", "off"):
            raise RettoError(INVALID_CONFIG, "layout.page_orientation must be 'auto' or 'off', "
                                             f"not {self.layout.page_orientation!r}")
        if self.layout.reading_order not in ("blocks", "lines"):
            raise RettoError(INVALID_CONFIG, "layout.reading_order must be 'blocks' or 'lines', "
                                             f"not {self.layout.reading_order!r}")
        self.layout.tables = {"on": True, "off": False}.get(self.layout.tables, self.layout.tables)
        if self.layout.tables not in (True, False, "auto"):
            raise RettoError(INVALID_CONFIG, "layout.tables must be true, false, 'on', 'off' or 'auto', "
                                             f"not {self.layout.tables!r}")
        if self.layout.tables is True and not self.layout.regions:
            raise RettoError(INVALID_CONFIG, "layout.tables needs layout.regions (tables are found as page regions)")
        if self.det.limit_type not in ("min", "max"):
            raise RettoError(INVALID_CONFIG, f"det.limit_type must be 'min' or 'max', not {self.det.limit_type!r}")
        if self.cls.batch_size < 1 or self.rec.batch_size < 1:
            raise RettoError(INVALID_CONFIG, "batch sizes must be at least 1")
        if self.rec.reread_letters < 1:
            raise RettoError(INVALID_CONFIG, "rec.reread_letters must be at least 1")
        if self.rec.margin < 0 or self.rec.min_width < 1:
            raise RettoError(INVALID_CONFIG, "rec.margin must be 0 or more and rec.min_width at least 1")
        if self.rec.reread_min_width < 0:
            raise RettoError(INVALID_CONFIG, "rec.reread_min_width must be 0 (rec.min_width) or more")
        if self.rec.reread_batch_size < 0 or self.rec.reread_ink_margin < 0:
            raise RettoError(INVALID_CONFIG, "rec.reread_batch_size (0: rec.batch_size) and rec.reread_ink_margin "
                                             "(0: off) must be 0 or more")
        string_list(self.rec.allow, "allow")
        string_list(self.rec.block, "block")
        check_text_layer_mode(self.document.text_layer)
        d = self.document
        if min(d.dpi, d.max_pages, d.max_page_operators, d.max_content_bytes, d.max_image_pixels) < 1:
            raise RettoError(INVALID_CONFIG, "document.dpi, max_pages, max_page_operators, max_content_bytes and "
                                             "max_image_pixels must be at least 1")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["global"] = d.pop("global_")
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, data: dict) -> "Config":
        """Build from a (possibly partial) dict; unknown sections or keys are an error, not silently ignored."""
        sections = {"global": ("global_", GlobalConfig), "det": ("det", DetConfig),
                    "cls": ("cls", ClsConfig), "rec": ("rec", RecConfig),
                    "layout": ("layout", LayoutConfig), "document": ("document", DocumentConfig)}
        kwargs = {}
        for name, values in (data or {}).items():
            if name not in sections:
                raise RettoError(INVALID_CONFIG, f"unknown config section {name!r}")
            attr, klass = sections[name]
            known = {f.name for f in fields(klass)}
            unknown = set(values) - known
            if unknown:
                raise RettoError(INVALID_CONFIG, f"unknown keys in {name}: {sorted(unknown)}")
            values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
            kwargs[attr] = klass(**values)
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text: str) -> "Config":
        return cls.from_dict(json.loads(text))
