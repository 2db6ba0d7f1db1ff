"""Errors are values with a stable code and a human sentence; callers never get a silently empty result."""
from __future__ import annotations

# Stable codes shared by the CLI, the browser worker and the web UI.
INVALID_IMAGE = "invalid_image"
IMAGE_TOO_LARGE = "image_too_large"
MODEL_MISSING = "model_missing"
MODEL_INTEGRITY = "model_integrity"
BACKEND_UNAVAILABLE = "backend_unavailable"
INFERENCE_FAILED = "inference_failed"
INVALID_CONFIG = "invalid_config"
INTERNAL_ERROR = "internal_error"
FILE_TOO_LARGE = "file_too_large"   # a file over the byte limit, refused before it is read whole
OUTPUT_FAILED = "output_failed"     # the CLI could not write an input's result file
PDF_ENCRYPTED = "pdf_encrypted"     # the PDF needs a password to be opened
PDF_INVALID = "pdf_invalid"         # broken, truncated, or not a PDF at all
PDF_EMPTY = "pdf_empty"             # a PDF with zero pages
PDF_TOO_MANY_PAGES = "pdf_too_many_pages"   # more pages than document.max_pages
PDF_PAGE_TOO_COMPLEX = "pdf_page_too_complex"   # a page over a drawing budget (retto.io.pdf_guard), refused unrendered
PDF_PAGE_UNMEASURED = "pdf_page_unmeasured"     # a page retto.io.pdf_guard could not measure, refused unrendered


class RettoError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def to_dict(self) -> dict:
        return {"error": {"code": self.code, "message": self.message}}
