#!/usr/bin/env bash
# Regenerates the stubs in tabletop/v1/ from proto/ with the pinned
# grpcio-tools (messages, .pyi type stubs, gRPC service stubs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
"$here/bootstrap.sh"
# Old outputs go first, so a removed .proto leaves no stale stub behind.
rm -f "$here"/tabletop/v1/*_pb2.py "$here"/tabletop/v1/*_pb2.pyi "$here"/tabletop/v1/*_pb2_grpc.py
cd "$repo/proto"
"$here/.venv/bin/python" -m grpc_tools.protoc -I . \
  --python_out="$here" --pyi_out="$here" --grpc_python_out="$here" \
  tabletop/v1/*.proto
