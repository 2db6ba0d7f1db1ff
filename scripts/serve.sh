#!/usr/bin/env bash
# Build the web app and serve dist/ on 127.0.0.1 with COOP/COEP (cross-origin isolation, for ORT threads).
#   PORT=4173 bash scripts/serve.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup/setup_web.sh
exec node scripts/serve_static.mjs --dir dist --port "${PORT:-4173}"
