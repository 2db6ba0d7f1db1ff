"""The pipeline's stages, in order. Each is an object with a `name` (its timing key and progress events) and an
async `run(page) -> page` (page.py); Session runs the list with a short loop. A new step is a new stage here,
switched on by the config (which the model set's file fills in).

    det -> (marks) -> cls -> orientation -> stacks -> rec -> flip_check -> reread -> layout -> regions

- det (detection.py): text regions on the upright image (only its content box with det.content_crop).
- marks (nested_marks.py, a set with a whole-line recogniser only): a box lying mostly inside a much thicker
  line's box (a mark the detector boxed apart from its line) is dropped; the line's own crop holds it.
- cls (line_orientation.py): line crops, each turned 180 degrees where the line classifier says so.
- orientation (page_turn.py, layout.page_orientation "auto"): a page turned 90/180/270 is turned upright and
  det + cls run again on it. It comes after them because its evidence is the page's own lines.
- stacks (stacks.py, layout.split_stacks): a tall box that is a stack of short rows (a table column merged by
  the detector) is split into its rows when they read better than the one turned line.
- rec (recognition.py): every line read by the recogniser; for a set with a whole-line recogniser (the
  `line_rec` role, Tesseract) line_reading.py instead, and no stage that re-reads lines by CTC scores.
- script_check (script_check.py, a Tesseract set of ours): a page that does not read as the set's script gets a
  warning.
- flip_check (flip_check.py, cls.verify): lines the classifier turned are read the other way too; the better
  reading wins.
- reread (reread.py, rec.reread_below > 0 and a "reread" model in the set): doubtful lines are read again by
  the set's larger recogniser.
- layout (reading_order.py, layout.reading_order "blocks"): columns, paragraphs and reading order.
- regions (regions.py, layout.regions and a "layout" model in the set): header, title, figure, caption, table
  and footer regions; the reading order rebuilt around them; with layout.tables (and a "table" model) each
  table's cells, read row by row. With layout.tables "auto" (and regions off) only on a page whose lines look
  like a table (ops/table_check.py).
"""
from __future__ import annotations

from retto.pipeline.stages.detection import Detection
from retto.pipeline.stages.flip_check import FlipCheck
from retto.models.sets import LINE_ROLE
from retto.pipeline.stages.line_orientation import LineOrientation
from retto.pipeline.stages.line_reading import LineReading
from retto.pipeline.stages.nested_marks import NestedMarks
from retto.pipeline.stages.page_turn import PageTurn
from retto.pipeline.stages.reading_order import ReadingOrder
from retto.pipeline.stages.recognition import Recognition
from retto.pipeline.stages.script_check import ScriptCheck
from retto.pipeline.stages.stacks import SplitStacks
from retto.pipeline.stages.regions import Regions
from retto.pipeline.stages.reread import Reread


def build(pipeline) -> list:
    """The stage list the config asks for."""
    cfg = pipeline.config
    det, line_cls = Detection(pipeline), LineOrientation(pipeline)
    if pipeline.has(LINE_ROLE):   # lines read whole: the CTC re-reading stages have no scores to compare
        stages = [det, NestedMarks(pipeline), line_cls, LineReading(pipeline)]
        stages.append(ScriptCheck(pipeline))   # a page not in the set's script says so
        if cfg.layout.reading_order == "blocks":
            stages.append(ReadingOrder(pipeline))
        return stages
    stages = [det, line_cls]
    if cfg.layout.page_orientation == "auto":
        stages.append(PageTurn(pipeline, [det, line_cls]))
    if cfg.layout.split_stacks:
        stages.append(SplitStacks(pipeline))
    stages.append(Recognition(pipeline))
    if cfg.cls.verify:
        stages.append(FlipCheck(pipeline))
    if cfg.rec.reread_below > 0 and pipeline.has("reread"):
        stages.append(Reread(pipeline))
    if cfg.layout.reading_order == "blocks":
        stages.append(ReadingOrder(pipeline))
    if pipeline.has("layout") and (cfg.layout.regions and (not cfg.layout.tables or pipeline.has("table"))
                                   or cfg.layout.tables == "auto" and pipeline.has("table")):
        stages.append(Regions(pipeline))
    return stages
