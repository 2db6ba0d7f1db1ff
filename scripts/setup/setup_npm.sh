#!/usr/bin/env bash
# Idempotent: the npm packages of package-lock.json in node_modules/ (stamp: node_modules/.retto-lock-sha256, the
# lock's hash; a second run with the same lock is a no-op).
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
