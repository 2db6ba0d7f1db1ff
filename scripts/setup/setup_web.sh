#!/usr/bin/env bash
# Idempotent: npm packages (from package-lock.json), the runtime assets in web/public/assets/ (Pyodide, wheels,
# onnxruntime-web, models, the retto wheel; see scripts/build/assemble_web_assets.py) and the production build in dist/.
# Needs: Node >= 20.19 + npm, the models (scripts/setup/fetch_models.py) and .venv (scripts/setup/setup_python.sh: the WebGL model variants need its onnx).
set -euo pipefail
cd "$(dirname "$0")/../.."

# Playwright drives Debian's /usr/bin/chromium; it must never try to download browsers of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.retto-lock-sha256 2>/dev/null)" != "$lock_sum" ]; then
  # npm ci refuses a lock without the other platforms' optional rollup binaries, which the registry reachable
  # here does not serve (404); npm install then installs exactly the locked versions for this platform.
  npm ci --no-audit --no-fund --loglevel=silent 2>/dev/null || npm install --no-audit --no-fund --loglevel=error
  echo "$lock_sum" > node_modules/.retto-lock-sha256
fi

PY=python3; [ -x .venv/bin/python ] && PY=.venv/bin/python
"$PY" scripts/setup/fetch_models.py >/dev/null # idempotent: sha256-checks what is there, fetches what is not
"$PY" scripts/build/assemble_web_assets.py
npx --no-install vite build --logLevel warn
npx --no-install vite build -c vite.component.config.js --logLevel warn # dist/retto-ocr.js: one module, its worker in assets/
node scripts/build/precompress.mjs --dir dist # <file>.br/.gz beside the big ones (scripts/serve_static.mjs serves them)
echo "web app built in dist/ ($(du -sh dist | cut -f1))"
