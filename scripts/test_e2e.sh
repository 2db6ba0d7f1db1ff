#!/usr/bin/env bash
# The Playwright e2e suite (tests/e2e/) on Debian Chromium against the built dist/. Assumes scripts/setup/setup_web.sh
# (and setup_python.sh, fetch_test_data.py) ran; builds dist/ first only if it is missing. Extra args go to
# Playwright, e.g. `bash scripts/test_e2e.sh parity`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
[ -x /usr/bin/chromium ] || { echo "Debian chromium missing: apt-get install -y chromium fonts-liberation fonts-dejavu-core" >&2; exit 1; }
[ -f dist/index.html ] || bash scripts/setup/setup_web.sh
[ -f tests/data/typewriter.png ] || .venv/bin/python scripts/setup/fetch_test_data.py
npx --no-install playwright test -c tests/e2e/playwright.config.js "$@"
