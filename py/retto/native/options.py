"""The settings a native run starts from: --config (a file, or the JSON itself) under the flags that set one
value each (--dpi, --max-pages, --text-layer, --allow, --block)."""
from __future__ import annotations

import json
from pathlib import Path

from retto.errors import INVALID_CONFIG, RettoError


def _settings(value: str) -> dict:
    """A JSON object from --config: the text itself when it starts with "{", else the file it names."""
    inline = value.lstrip().startswith("{")
    what = "the --config JSON" if inline else f"the settings file {value}"
    try:
        settings = json.loads(value if inline else Path(value).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RettoError(INVALID_CONFIG, f"cannot read {what}: {exc}") from exc
    if not isinstance(settings, dict):
        raise RettoError(INVALID_CONFIG, f"{what} must hold a JSON object")
    return settings


def read_overrides(path, args=None) -> dict | None:
    """--config: partial settings applied over the model set's, given as a JSON file's path or as the JSON
    object itself (`{"layout": {"regions": true, "tables": true}}`, as --help shows it); --dpi / --max-pages over it."""
    overrides = None
    if path:
        overrides = _settings(path)
    flags = {k: v for k, v in (("dpi", getattr(args, "dpi", None)), ("max_pages", getattr(args, "max_pages", None)),
                               ("text_layer", getattr(args, "text_layer", None)))
             if v is not None}
    if flags:
        overrides = dict(overrides or {})
        overrides["document"] = {**overrides.get("document", {}), **flags}
    chars = {k: v[0] if len(v) == 1 else v for k, v in (("allow", getattr(args, "allow", None)),
                                                        ("block", getattr(args, "block", None))) if v}
    if chars:
        overrides = dict(overrides or {})
        overrides["rec"] = {**overrides.get("rec", {}), **chars}
    return overrides
