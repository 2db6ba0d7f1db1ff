"""The Tesseract line sets in the web build: every set ships (none is native-only now), with its traineddata as
set files and the wasm engine (tesseract.js-core) under assets/tesseract/, the engine only when a shipped set
reads its lines with it. The refusal of a native-only set by name stays for a future set file that says so."""
import hashlib
import json
import subprocess
import sys

from refkit import ROOT
from retto.models import sets as model_sets

sys.path.insert(0, str(ROOT / "scripts" / "build"))


def test_no_set_is_native_only_and_each_tesseract_set_ships_its_traineddata():
    import assemble_web_assets
    assert assemble_web_assets.native_only_model_sets() == {}
    tesseract = [s for s in model_sets.available() if s.line_rec]
    assert {"cyrillic", "arabic", "devanagari", "korean"} <= {s.name for s in tesseract}
    for s in tesseract:
        assert s.browser_supported
        langs = s.line_rec["languages"].split("+")
        # each language is a set file the worker fetches and checks, under the name Tesseract looks for
        assert [s.local_name(r) for r in s.roles if r.startswith("traineddata_")] == \
            [f"tessdata/{lang}.traineddata" for lang in langs]


def test_the_engine_ships_as_a_module_with_its_wasm(tmp_path, monkeypatch):
    import assemble_web_assets as a
    monkeypatch.setattr(a, "OUT", tmp_path)
    entry = a.assemble_tesseract_core()
    npm = ROOT / "node_modules" / "tesseract.js-core"
    assert json.loads((npm / "package.json").read_text())["version"] == entry["version"] == "7.0.0"
    module = (tmp_path / entry["module"]).read_bytes()
    loader = (npm / f"{entry['build']}.js").read_bytes()
    assert module.startswith(loader) and module[len(loader):].strip() == b"export default TesseractCore;"
    wasm = (tmp_path / entry["wasm"]).read_bytes()
    assert hashlib.sha256(wasm).digest() == hashlib.sha256((npm / f"{entry['build']}.wasm").read_bytes()).digest()
    # the module loads as an ES module (the worker's kind) and gives the engine, from the bytes it is handed
    # Under Node the loader takes its Node path, which needs CommonJS's require and __dirname (a browser worker
    # takes its worker path: tests/e2e/runtime/tesseract_sets.spec.js).
    script = f"""
import {{ readFileSync }} from 'node:fs';
import {{ createRequire }} from 'node:module';
globalThis.require = createRequire(import.meta.url);
globalThis.__dirname = '/';
const {{ default: factory }} = await import({json.dumps((tmp_path / entry['module']).as_uri())});
const core = await factory({{ wasmBinary: readFileSync({json.dumps(str(tmp_path / entry['wasm']))}) }});
console.log(new core.TessBaseAPI().Version());
"""
    run = subprocess.run(["node", "--input-type=module", "-e", script], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "5.1.0-288-g2a9c1"   # what tesseract.js-core 7.0.0 reports (docs/facts.md §12)


def test_the_worker_refuses_a_native_only_set_by_name_with_its_reason():
    manifest = {"model_sets": {"ppocr-v6-tiny": {"files": {}}}, "default_model_set": "ppocr-v6-tiny",
                "native_only_model_sets": {"greek": {"label": "Ελληνικά & English",
                                                     "reason": "not in wasm yet"}}}
    script = f"""
import {{ modelSetEntry }} from './web/src/worker/assets.js';
const manifest = {json.dumps(manifest)};
const out = {{ chosen: modelSetEntry(manifest, null).name }};
for (const name of ['greek', 'klingon']) {{
  try {{ modelSetEntry(manifest, name); out[name] = 'no error'; }}
  catch (e) {{ out[name] = {{ code: e.code, message: e.message }}; }}
}}
console.log(JSON.stringify(out));
"""
    run = subprocess.run(["node", "--input-type=module", "-e", script], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["chosen"] == "ppocr-v6-tiny"
    assert out["greek"] == {"code": "backend_unavailable",
                            "message": 'model set "greek" (Ελληνικά & English) runs natively only for now: '
                                       "not in wasm yet"}
    assert out["klingon"]["code"] == "invalid_config"
