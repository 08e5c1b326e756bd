"""Generated protobuf and gRPC stubs for tabletop.v1 (regenerate with scripts/gen-clients)."""
