#!/usr/bin/env bash
# Idempotent: creates .venv, installs py/retto (editable) and the pinned test/reference stack.
# A second run with the same requirements, pyproject and this script is a no-op (stamp in .venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
stamp=$(cat py/requirements-test.txt py/pyproject.toml scripts/setup/setup_python.sh | sha256sum | cut -d' ' -f1)
if [ "$(cat .venv/.retto-setup-sha256 2>/dev/null)" = "$stamp" ] && .venv/bin/python -c 'import retto' 2>/dev/null; then
  exit 0
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -r py/requirements-test.txt
# RapidOCR is only the test reference; --no-deps keeps opencv-python (needs libGL) out.
.venv/bin/python -m pip install -q --no-deps rapidocr_onnxruntime==1.4.4
# hocr-tools only for its hocr-check (tests/py/test_hocr_consumers.py); its other deps (reportlab, Pillow) unneeded.
.venv/bin/python -m pip install -q --no-deps hocr-tools==1.1.1
.venv/bin/python -m pip install -q --no-deps -e 'py[native]'
echo "$stamp" > .venv/.retto-setup-sha256
