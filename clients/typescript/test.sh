#!/usr/bin/env bash
# The TypeScript client's checks, from a fresh clone: npm ci (committed
# package-lock.json), type check, the tests against the real engine-host
# (build it first: `cargo build --workspace`), and the stub-regeneration check.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
npm ci --no-audit --no-fund
npm run --silent typecheck
npm test
"$here/../../scripts/gen-clients" typescript
