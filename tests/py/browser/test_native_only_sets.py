"""Sets the browser cannot run yet (a set file's `browser.supported` false: the Tesseract sets) are not shipped
in the web build, no chooser lists them (Retto.modelSets reads manifest.model_sets), and asking the worker for
one by name is a clear `backend_unavailable` error with the set file's reason."""
import json
import subprocess
import sys

from refkit import ROOT
from retto.models import sets as model_sets

sys.path.insert(0, str(ROOT / "scripts" / "build"))


def test_the_build_lists_native_only_sets_with_their_reason_and_ships_none_of_them():
    import assemble_web_assets
    native_only = assemble_web_assets.native_only_model_sets()
    tesseract = {s.name for s in model_sets.available() if s.line_rec}
    assert set(native_only) == tesseract and {"cyrillic", "arabic", "korean"} <= tesseract
    greek = model_sets.load("greek")
    assert native_only["greek"] == {"label": "Ελληνικά & English", "reason": greek.browser["reason"]}
    assert all(s.browser_supported for s in model_sets.available() if not s.line_rec)


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
