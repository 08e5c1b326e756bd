"""Python client for the Tabletop game-rules server.

``tabletop.v1`` holds the stubs generated from ``proto/`` (committed; regenerated
and checked by ``scripts/gen-clients``). This module adds a small wrapper:

>>> import tabletop
>>> with tabletop.connect("127.0.0.1:50051") as client:      # doctest: +SKIP
...     match = client.create_match("focus", players=2)
...     seat = match.seat(0)
...     seat.act(seat.legal_actions()[0].notation)

Errors are the ones gRPC raises: ``grpc.RpcError``, whose ``code()`` is the
status code (``grpc.StatusCode.INVALID_ARGUMENT`` for an illegal action, ...)
and ``details()`` the server's message.
"""

from tabletop.client import Client, Match, Seat, connect, event_view, final_results
from tabletop.v1.catalog_pb2 import GameInfo, OptionInfo
from tabletop.v1.matches_pb2 import LegalAction, MatchSummary, SubmitActionResponse
from tabletop.v1.types_pb2 import (
    MATCH_STATE_FINISHED,
    MATCH_STATE_RUNNING,
    MATCH_STATE_UNAVAILABLE,
    MATCH_STATE_WAITING,
    MatchState,
    MatchView,
    PlayerResult,
)
from tabletop.v1.watch_pb2 import WatchEvent

__all__ = [
    "MATCH_STATE_FINISHED",
    "MATCH_STATE_RUNNING",
    "MATCH_STATE_UNAVAILABLE",
    "MATCH_STATE_WAITING",
    "Client",
    "GameInfo",
    "LegalAction",
    "Match",
    "MatchState",
    "MatchSummary",
    "MatchView",
    "OptionInfo",
    "PlayerResult",
    "Seat",
    "SubmitActionResponse",
    "WatchEvent",
    "connect",
    "event_view",
    "final_results",
]
