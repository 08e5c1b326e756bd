#!/usr/bin/env bash
# The Python client's checks, from a fresh clone: venv + install, type check,
# the tests against the real engine-host (build it first: `cargo build
# --workspace`), and the stub-regeneration check.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/bootstrap.sh"
cd "$here"
.venv/bin/mypy
.venv/bin/python -m pytest -q
"$here/../../scripts/gen-clients" python
