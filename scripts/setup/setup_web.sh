#!/usr/bin/env bash
# Idempotent: npm packages (from package-lock.json), the runtime assets in web/public/assets/ (Pyodide, wheels,
# onnxruntime-web, models, the retto wheel; see scripts/build/assemble_web_assets.py), the production build in dist/
# and its pre-compressed copies (scripts/build/precompress.mjs).
# Needs: Node >= 20.19 + npm, the models (scripts/setup/fetch_models.py) and .venv (scripts/setup/setup_python.sh:
# the WebGL model variants need its onnx).
# Each step is skipped when the hash of its inputs is the one it last ran with (stamps in .stamps/, gitignored) and
# its output is there: a second run with nothing changed takes a few seconds. RETTO_REBUILD=1 runs every step.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
bash scripts/setup/setup_npm.sh

PY=python3; [ -x .venv/bin/python ] && PY=.venv/bin/python
mkdir -p .stamps
# sha256 over the names and contents of the given files and folders (caches and generated files left out).
inputs_hash() {
  find "$@" -type f ! -path '*/__pycache__/*' ! -path '*.egg-info/*' ! -path 'web/public/assets/*' ! -name '*.pyc' \
    -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}
fresh() { [ -z "${RETTO_REBUILD:-}" ] && [ "$(cat ".stamps/$1" 2>/dev/null)" = "$2" ]; }

"$PY" scripts/setup/fetch_models.py >/dev/null # idempotent: sha256-checks what is there, fetches what is not

# Runtime assets: from the lock's npm packages, py/ (the retto wheel, the model sets' sha256) and the build scripts.
assemble=$(inputs_hash package-lock.json py/retto py/pyproject.toml py/requirements.txt scripts/build/assemble_web_assets.py \
  scripts/build/optimise_models.py scripts/build/webgl_models.py scripts/build/webgl_rewrite.py scripts/setup/fetch_pypi.py)
if fresh assemble "$assemble" && [ -f web/public/assets/manifest.json ] && [ -f web/src/client/export_formats.json ]; then
  echo "assets: unchanged (web/public/assets/)"
else
  "$PY" scripts/build/assemble_web_assets.py
  echo "$assemble" > .stamps/assemble
fi

# The two Vite builds: from web/ (the assets by their manifest, which lists every file's sha256) and the configs.
build=$(inputs_hash package-lock.json web vite.config.js vite.component.config.js web/public/assets/manifest.json)
if fresh build "$build" && [ -f dist/index.html ] && [ -f dist/retto-ocr.js ] && cmp -s dist/assets/manifest.json web/public/assets/manifest.json; then
  echo "dist/: unchanged"
else
  rm -f .stamps/precompress
  npx --no-install vite build --logLevel warn
  npx --no-install vite build -c vite.component.config.js --logLevel warn # dist/retto-ocr.js: one module, its worker in assets/
  echo "$build" > .stamps/build
fi

# <file>.br/.gz beside the files worth it (scripts/serve_static.mjs serves them); bodies cached by content hash.
precompress="$build $(sha256sum scripts/build/precompress.mjs | cut -d" " -f1) ${RETTO_BROTLI_QUALITY:-}"
if fresh precompress "$precompress"; then
  echo "dist/ pre-compressed copies: unchanged"
else
  node scripts/build/precompress.mjs --dir dist
  echo "$precompress" > .stamps/precompress
fi
echo "web app built in dist/ ($(du -sh dist | cut -f1))"
