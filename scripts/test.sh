#!/usr/bin/env bash
# The README's test command. Idempotent: installs everything the tests need (Python venv with the test stack, models,
# test images, npm packages, Chromium), runs pytest, then builds the web app and runs the Playwright suite against it.
# pytest needs no web build, so the build runs beside it (each set-up step skips itself when its inputs did not change).
set -euo pipefail
cd "$(dirname "$0")/.."

if { ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; } \
   || [ ! -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] || ! command -v pdftotext >/dev/null 2>&1 \
   || [ ! -f /usr/share/fonts/truetype/noto/NotoSansGeorgian-Regular.ttf ] \
   || [ ! -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ]; then
  echo "== installing Debian chromium, fonts and poppler-utils (browser tests, labelled test sets, pdftotext)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-liberation fonts-dejavu-core fonts-wqy-microhei poppler-utils \
    fonts-noto-core fonts-noto-cjk libfribidi0 >/dev/null   # Noto + fribidi (Pillow's raqm): the script test pages
fi

echo "== python environment";  bash scripts/setup/setup_python.sh --test

# The other set-up steps need the venv and nothing of each other, so they run side by side: the downloads (models,
# test images, npm packages) wait on the network while the labelled pages are drawn on the CPU. One at a time, a
# fresh clone's set-up left 43 % of the two cores idle (test-time.md, 2026-11-28 night). Each step's log is shown
# in this order once all have ended; the first that failed stops the command with its exit code.
mkdir -p test-results/setup
steps=("models|.venv/bin/python scripts/setup/fetch_models.py"
       "test images|.venv/bin/python scripts/setup/fetch_test_data.py"
       "labelled test set|.venv/bin/python scripts/data/make_testset.py"
       "script test pages|.venv/bin/python scripts/data/make_script_testset.py"   # the Tesseract sets' pages
       "npm packages|bash scripts/setup/setup_npm.sh")
pids=()
for i in "${!steps[@]}"; do
  bash -c "${steps[$i]#*|}" > "test-results/setup/$i.log" 2>&1 & pids+=($!)
done
failed=0
for i in "${!steps[@]}"; do
  status=0; wait "${pids[$i]}" || status=$?
  echo "== ${steps[$i]%%|*}"
  cat "test-results/setup/$i.log"
  if [ "$status" != 0 ]; then
    echo "set-up step \"${steps[$i]%%|*}\" failed (exit $status)" >&2
    [ "$failed" != 0 ] || failed=$status
  fi
done
[ "$failed" = 0 ] || exit "$failed"

echo "== pytest"
# Two processes, each test file kept in one (its session fixtures are made once); the 20 slowest are listed to
# see where suite time goes. One onnxruntime thread each (where a test does not set its own), so two processes'
# spinning pools do not fight on two cores: 9 % less wall time on four heavy files with both processes busy; over
# the whole run no difference was measured (10.6 min against 10.5 min with default threads; test-time.md, 2026-11-28).
# The web build runs beside pytest (it needs nothing pytest makes, and pytest reads nothing it writes): it fills the
# core pytest leaves idle while a slow file ends alone. Its log is shown once pytest ends.
mkdir -p test-results
bash scripts/setup/setup_web.sh > test-results/web-build.log 2>&1 & web_build=$!
pytest_status=0
RETTO_THREADS=1 .venv/bin/python -m pytest -q -n 2 --dist loadfile --durations=20 tests/py || pytest_status=$?
echo "== web app"
web_status=0; wait "$web_build" || web_status=$?
cat test-results/web-build.log
[ "$pytest_status" = 0 ] || { echo "pytest failed (exit $pytest_status)" >&2; exit "$pytest_status"; }
[ "$web_status" = 0 ] || { echo "the web build failed (exit $web_status)" >&2; exit "$web_status"; }
echo "== browser tests (Playwright, Debian Chromium)"
bash scripts/test_e2e.sh
