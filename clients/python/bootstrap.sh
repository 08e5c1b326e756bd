#!/usr/bin/env bash
# Creates clients/python/.venv if missing and installs the package with its
# test extras (pytest, mypy, the pinned grpcio-tools). Re-installs when
# pyproject.toml changed since the last install.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if [ ! -f .venv/.installed ] || [ pyproject.toml -nt .venv/.installed ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
  touch .venv/.installed
fi
