#!/usr/bin/env bash
# The README's test command. Idempotent: installs everything the tests need (Python venv, models, test
# images, npm packages, Chromium), builds the web app, then runs pytest and the Playwright suite.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  echo "== installing Debian chromium (for the browser tests)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-liberation fonts-dejavu-core >/dev/null
fi

echo "== python environment";  bash scripts/setup_python.sh
echo "== models";              .venv/bin/python scripts/fetch_models.py
echo "== test images";         .venv/bin/python scripts/fetch_test_data.py
echo "== web app";             bash scripts/setup_web.sh

echo "== pytest"
.venv/bin/python -m pytest -q tests/py
echo "== browser tests (Playwright, Debian Chromium)"
bash scripts/test_e2e.sh
