#!/usr/bin/env bash
# Idempotent: creates .venv and installs py/retto (editable) with what the app and its build need
# (py/requirements.txt: the run command). With --test, also the pinned test/reference stack
# (py/requirements-test.txt: pytest, RapidOCR, Ray, ...; the test command).
# Each level has its own stamp in .venv, keyed by the hash of its inputs: a second run with the same requirements,
# pyproject and this script is a no-op. The test level includes the app level (its stamp is written too).
#   bash scripts/setup/setup_python.sh [--test]
set -euo pipefail
cd "$(dirname "$0")/../.."
level=app; [ "${1:-}" = "--test" ] && level=test
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
app_stamp=$(cat py/requirements.txt py/pyproject.toml scripts/setup/setup_python.sh | sha256sum | cut -d' ' -f1)
test_stamp=$(cat py/requirements.txt py/requirements-test.txt py/pyproject.toml scripts/setup/setup_python.sh | sha256sum | cut -d' ' -f1)
want=$app_stamp; [ $level = test ] && want=$test_stamp
if [ "$(cat .venv/.retto-setup-$level-sha256 2>/dev/null)" = "$want" ] && .venv/bin/python -c 'import retto' 2>/dev/null; then
  exit 0
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1
# uv (pinned, from PyPI into the venv) resolves and fetches in parallel: the test stack installs in about 7 s
# where pip took about 66 s on this 2-core machine, both from their caches. pip stays as the fallback.
UV_VERSION=0.13.9
if [ "$(.venv/bin/uv --version 2>/dev/null | cut -d' ' -f2)" != $UV_VERSION ]; then
  .venv/bin/python -m pip install -q "uv==$UV_VERSION" 2>/dev/null || true
fi
if [ -x .venv/bin/uv ]; then
  # Byte-compiled at install, as pip does: otherwise each module is compiled at its first import. Measured on a
  # fresh venv: +15 s here, and the first Ray batch test took 35 s instead of 79 s (its worker processes import
  # Ray, pandas and pyarrow at once).
  export UV_COMPILE_BYTECODE=1
  pip() { .venv/bin/uv pip "$@" --python .venv/bin/python; }
else
  pip() { .venv/bin/python -m pip "$@"; }
fi
if [ $level = app ]; then
  pip install -q -r py/requirements.txt
else
  pip install -q -r py/requirements-test.txt
  # RapidOCR is only the test reference; --no-deps keeps opencv-python (needs libGL) out.
  pip install -q --no-deps rapidocr_onnxruntime==1.4.4
  # hocr-tools only for its hocr-check (tests/py/export/test_hocr_consumers.py); its other deps (reportlab, Pillow) unneeded.
  pip install -q --no-deps hocr-tools==1.1.1
fi
# --no-build-isolation: setuptools is already in the venv, so no throwaway build env is fetched first.
pip install -q setuptools
pip install -q --no-deps --no-build-isolation -e 'py[native]' 2>/dev/null || pip install -q --no-deps -e 'py[native]'
echo "$app_stamp" > .venv/.retto-setup-app-sha256
[ $level = test ] && echo "$test_stamp" > .venv/.retto-setup-test-sha256
exit 0
