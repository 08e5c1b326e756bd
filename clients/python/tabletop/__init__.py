"""Python client for the Tabletop game-rules server.

``tabletop.v1`` holds the stubs generated from ``proto/`` (committed; regenerated
and checked by ``scripts/gen-clients``). This module adds a small wrapper:

>>> import tabletop
>>> with tabletop.connect("127.0.0.1:50051") as client:      # doctest: +SKIP
...     match = client.create_match("focus", players=2)
...     seat = match.seat(0)
...     seat.act(seat.legal_actions()[0].notation)

A refused call raises a typed error (``tabletop.errors``), chosen by the
reason in the server's ``google.rpc.ErrorInfo``: ``tabletop.StaleVersion``
(with ``current_version``), ``tabletop.NotYourTurn``, ``tabletop.IllegalAction``,
``tabletop.MatchOver``, ``tabletop.NotPermitted``, ... all ``tabletop.TabletopError``,
itself a ``grpc.RpcError`` whose ``code()`` is the status code and ``details()`` the
server's message; ``reason`` and ``metadata`` are the ``ErrorInfo``'s.
"""

from tabletop.client import Client, LifecycleFeed, Match, Player, Seat, connect, event_view, final_results
from tabletop.errors import (
    AlreadyActed,
    BadToken,
    ControlRefused,
    Throttled,
    IllegalAction,
    InvalidNotation,
    InvalidPageToken,
    MatchOver,
    MatchPaused,
    MatchQuarantined,
    NotPermitted,
    NotStarted,
    NotYourTurn,
    PluginFault,
    RequestIdReused,
    ShuttingDown,
    StoreUnavailable,
    StreamFellBehind,
    StaleVersion,
    TabletopError,
    TokenRequired,
    UnknownGame,
    UnknownMatch,
    from_rpc_error,
)
from tabletop.v1.admin_pb2 import CredentialInfo, IssueCredentialResponse, PluginInfo
from tabletop.v1.catalog_pb2 import GameInfo, OptionInfo
from tabletop.v1.director_pb2 import (
    OUT_REASON_ABSENT,
    OUT_REASON_CLOCK,
    OUT_REASON_RESIGNED,
    LifecycleEvent,
    OutReason,
)
from tabletop.v1.matches_pb2 import (
    ON_DEADLINE_ABORT,
    ON_DEADLINE_START_WITHOUT,
    ON_TIMEOUT_LOSE,
    ON_TIMEOUT_OUT,
    LegalAction,
    ListMatchesResponse,
    MatchSummary,
    OnDeadline,
    OpenSeatDeadline,
    SubmitActionResponse,
    TimeControl,
)
from tabletop.v1.types_pb2 import (
    MATCH_STATE_FINISHED,
    MATCH_STATE_QUARANTINED,
    MATCH_STATE_RUNNING,
    MATCH_STATE_UNAVAILABLE,
    MATCH_STATE_WAITING,
    MatchState,
    MatchView,
    PlayerResult,
    SeatPlayer,
    SeatStatus,
)
from tabletop.v1.watch_pb2 import WatchEvent

__all__ = [
    "MATCH_STATE_FINISHED",
    "MATCH_STATE_QUARANTINED",
    "MATCH_STATE_RUNNING",
    "MATCH_STATE_UNAVAILABLE",
    "MATCH_STATE_WAITING",
    "ON_DEADLINE_ABORT",
    "ON_DEADLINE_START_WITHOUT",
    "ON_TIMEOUT_LOSE",
    "ON_TIMEOUT_OUT",
    "OUT_REASON_ABSENT",
    "OUT_REASON_CLOCK",
    "OUT_REASON_RESIGNED",
    "AlreadyActed",
    "BadToken",
    "Client",
    "ControlRefused",
    "Throttled",
    "CredentialInfo",
    "GameInfo",
    "IllegalAction",
    "InvalidNotation",
    "InvalidPageToken",
    "IssueCredentialResponse",
    "LegalAction",
    "LifecycleEvent",
    "LifecycleFeed",
    "ListMatchesResponse",
    "Match",
    "MatchOver",
    "MatchPaused",
    "MatchQuarantined",
    "MatchState",
    "MatchSummary",
    "MatchView",
    "NotPermitted",
    "NotStarted",
    "NotYourTurn",
    "PluginFault",
    "OnDeadline",
    "OpenSeatDeadline",
    "OptionInfo",
    "OutReason",
    "Player",
    "PlayerResult",
    "PluginInfo",
    "RequestIdReused",
    "Seat",
    "SeatPlayer",
    "SeatStatus",
    "ShuttingDown",
    "StoreUnavailable",
    "StreamFellBehind",
    "StaleVersion",
    "SubmitActionResponse",
    "TabletopError",
    "TimeControl",
    "TokenRequired",
    "UnknownGame",
    "UnknownMatch",
    "WatchEvent",
    "connect",
    "event_view",
    "final_results",
    "from_rpc_error",
]
