"""Retto: on-device OCR (PP-OCRv4 DB detection, 0/180 orientation, CTC recognition) in pure Python."""
__version__ = "0.1.0"

from .config import Config  # noqa: E402
from .errors import RettoError  # noqa: E402
from .result import OcrResult, TextLine  # noqa: E402
from .session import Session  # noqa: E402

__all__ = ["Config", "OcrResult", "RettoError", "Session", "TextLine", "__version__"]
