"""One row per page: the fixed Arrow schema of `retto batch` output, and the rows of one input's record.

`result` is the page's JSON record as a string (the CLI's page record: what `retto --format json` gives for an image,
or one entry of a PDF's `pages`), not structured columns: the record is nested (lines → words → boxes, blocks,
warnings, per-stage timings) and grows with the pipeline; as a string it stays byte-for-byte the CLI's record and
the schema never changes under it. What is queried often (`text`, `error_code`, `timings`) has its own column.
The schema is fixed so that a batch of nothing but errors still writes typed columns (an all-null column would
be typed `null` and make the folder unreadable as one dataset).
"""
from __future__ import annotations

import json

import pyarrow as pa

SCHEMA = pa.schema([
    pa.field("path", pa.string(), nullable=False),   # as the CLI names the input (a URI for remote inputs)
    pa.field("sha256", pa.string()),                 # of the input's bytes (null: it could not be read)
    pa.field("page", pa.int32()),                    # 1-based; null: the whole input failed (no pages)
    pa.field("page_count", pa.int32()),              # pages of the input (1 for an image); null when unknown
    pa.field("model_set", pa.string()),
    pa.field("text", pa.string()),                   # the page's lines joined by "\n" (null on error)
    pa.field("result", pa.string()),                 # the CLI's JSON record of the page (see above)
    pa.field("error_code", pa.string()),             # null on success
    pa.field("error", pa.string()),                  # the human sentence
    pa.field("timings", pa.map_(pa.string(), pa.float64())),   # ms per stage, flattened ("infer.det")
])
# What a predictor returns: the rows plus whether an input was skipped because its rows already exist (those
# marker rows are never written).
PREDICTOR_SCHEMA = SCHEMA.append(pa.field("skipped", pa.bool_(), nullable=False))


def rows_of(path: str, sha256: str | None, record: dict, model_set: str | None) -> list[dict]:
    """The rows of one input's record without `path` (an image's result, a document record, or an error)."""
    if "error" in record:
        return [_row(path, sha256, None, None, model_set, record)]
    if "pages" in record:
        count = record["page_count"]
        return [_row(path, sha256, page["page"], count, model_set, page) for page in record["pages"]]
    return [_row(path, sha256, 1, 1, model_set, record)]


def _row(path, sha256, page, page_count, model_set, record) -> dict:
    err = record.get("error")
    return {
        "path": path, "sha256": sha256, "page": page, "page_count": page_count,
        "model_set": record.get("model_set") or model_set,
        "text": None if err else "\n".join(line["text"] for line in record["lines"]),
        "result": json.dumps(record, ensure_ascii=False),
        "error_code": err["code"] if err else None, "error": err["message"] if err else None,
        "timings": None if err else list(_flat(record.get("timings", {}))),
        "skipped": False,
    }


def skipped_row(path: str, sha256: str) -> dict:
    return {"path": path, "sha256": sha256, "page": None, "page_count": None, "model_set": None, "text": None,
            "result": None, "error_code": None, "error": None, "timings": None, "skipped": True}


def _flat(timings: dict, prefix: str = ""):
    for key, value in timings.items():
        if isinstance(value, dict):
            yield from _flat(value, f"{prefix}{key}.")
        elif isinstance(value, (int, float)):
            yield f"{prefix}{key}", float(value)


def table(rows: list[dict], schema: pa.Schema = PREDICTOR_SCHEMA) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=schema)


def is_whole_input(row: dict) -> bool:
    return row["page"] is None
