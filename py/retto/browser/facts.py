"""The facts the browser's JavaScript needs without Python, taken from where Python defines them.

scripts/build/assemble_web_assets.py writes `js_facts()` to web/src/generated/python_facts.json (gitignored, generated at
every build), which the client, the page, the component and the worker import; nothing here is written by hand
in JS. A fact JS keeps as code instead (the WebGL rec time steps, web/src/worker/webgl_sessions.js) is checked
against Python by tests/py/browser/test_js_facts.py. Pure Python: no pyodide import, so the build runs it natively.
"""
from __future__ import annotations


def js_facts() -> dict:
    """{export_formats, model_roles, optional_model_roles, line_role, traineddata_prefix, image_suffixes,
    pdf_suffixes} as plain JSON:
    - export_formats: retto.export.format_table() (each format's media type, extension, whether it is one table's);
    - model_roles: the models every set has (det, cls, rec); optional_model_roles: the ones a set may add, which
      the browser fetches and makes on their first use (retto.models.sets);
    - line_role, traineddata_prefix: the Tesseract sets' line recogniser role and the prefix of their
      traineddata files' roles ("traineddata_rus"), which the worker hands to the wasm engine;
    - image_suffixes / pdf_suffixes: the file names a folder is searched for (retto.io.inputs), without the dot,
      sorted (the page's and the component's file picker and folder drop use them)."""
    from retto.export import format_table
    from retto.io.inputs import IMAGE_SUFFIXES, PDF_SUFFIXES
    from retto.models.sets import LINE_ROLE, OPTIONAL_ROLES, ROLES, TRAINEDDATA_PREFIX

    return {
        "export_formats": format_table(),
        "model_roles": list(ROLES),
        "optional_model_roles": list(OPTIONAL_ROLES),
        "line_role": LINE_ROLE,
        "traineddata_prefix": TRAINEDDATA_PREFIX,
        "image_suffixes": sorted(s.lstrip(".") for s in IMAGE_SUFFIXES),
        "pdf_suffixes": sorted(s.lstrip(".") for s in PDF_SUFFIXES),
    }
