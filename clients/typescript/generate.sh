#!/usr/bin/env bash
# Regenerates src/gen/ from proto/ with buf and protoc-gen-es from npm (no
# system protoc); installs node_modules first if missing.
set -euo pipefail
cd "$(dirname "$0")"
[ -d node_modules ] || npm ci --no-audit --no-fund
npx --no-install buf generate
