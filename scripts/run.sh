#!/usr/bin/env bash
# The README's run command. Idempotent: sets up what the app needs (a Python venv with py/requirements.txt only, the
# test stack is scripts/test.sh's; models, npm packages, runtime assets), builds
# the web app into dist/ and serves it on 127.0.0.1 with the COOP/COEP headers (prints the URL).
#   PORT=4173 bash scripts/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup/setup_python.sh
.venv/bin/python scripts/setup/fetch_models.py
bash scripts/serve.sh
