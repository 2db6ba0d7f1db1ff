#!/usr/bin/env bash
# The npm package `retto-ocr` (npm/: its package.json, Vite plugin and CLI) as a tarball: dist-npm/retto-ocr-<version>.tgz.
# Its assets/ are assembled by the same scripts/build/assemble_web_assets.py as the app's, with only the default model set
# (another set: --sets, see README); its code is built by vite.package.config.js. Not published from here.
# Needs what scripts/setup/setup_web.sh needs (node_modules, models, .venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=python3; [ -x .venv/bin/python ] && PY=.venv/bin/python
rm -f npm/assets/retto-worker.js # not a manifest entry: written after the manifest below
"$PY" scripts/build/assemble_web_assets.py --out npm/assets --sets "${RETTO_NPM_SETS:-default}"
npx --no-install vite build -c vite.package.config.js
RETTO_PACKAGE_PART=worker npx --no-install vite build -c vite.package.config.js
cp web/types/retto.d.ts web/types/retto-ocr.d.ts npm/dist/
mkdir -p dist-npm
rm -f dist-npm/retto-ocr-*.tgz
(cd npm && npm pack --silent --pack-destination ../dist-npm >/dev/null)
ls dist-npm/retto-ocr-*.tgz
