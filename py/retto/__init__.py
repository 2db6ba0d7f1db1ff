"""Retto: on-device OCR (DB text detection, 0/180 line orientation, CTC recognition) in pure Python over any
inference engine that answers `run(role, x)`.

The public names load on first use (PEP 562), so importing a lower layer such as `retto.export` does not load
the session, the stages or pyclipper."""
from retto._version import __version__

__all__ = ["Config", "OcrResult", "RettoError", "Session", "TextLine", "__version__"]

_HOMES = {"Config": "retto.config", "RettoError": "retto.errors", "OcrResult": "retto.result",
          "TextLine": "retto.result", "Session": "retto.pipeline.session"}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'retto' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
