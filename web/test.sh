#!/usr/bin/env bash
# The web page's checks, from a fresh clone: Debian's chromium (installed
# with apt-get when missing; never a downloaded browser), npm ci, type
# check, the committed bundle is what the sources build to, and the browser
# tests against the real engine-host (build it first: `cargo build
# --workspace`). Screenshots go to web/test-results/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
if [ ! -x /usr/bin/chromium ]; then
  sudo_if_needed=""
  [ "$(id -u)" -ne 0 ] && sudo_if_needed="sudo"
  $sudo_if_needed apt-get update
  $sudo_if_needed apt-get install -y chromium
fi
npm ci --no-audit --no-fund --silent
npm run --silent typecheck
node build.mjs --check
node --test --test-concurrency=1 --test-timeout=120000 test/*.test.mjs
