"""Typed errors: what the server refused, read from its ``ErrorInfo`` detail.

Every error status the server sends carries a ``google.rpc.ErrorInfo`` (domain
``tabletop``) whose ``reason`` says what went wrong (``STALE_VERSION``,
``NOT_YOUR_TURN``, ...) and whose ``metadata`` holds the facts a program needs
(``current_version`` of a stale version, ...). ``proto/tabletop/v1/matches.proto``
lists every reason with its status code and metadata keys.

The wrapper's calls raise a :class:`TabletopError` subclass chosen by reason::

    try:
        seat.act(action, expected_version=version)
    except tabletop.StaleVersion as stale:
        version = stale.current_version   # catch up, then decide again

A :class:`TabletopError` is a ``grpc.RpcError`` with the same ``code()`` and
``details()`` as the call's, so code written for gRPC's own errors keeps
working. :func:`from_rpc_error` converts an error raised by the raw stubs.
"""

from __future__ import annotations

from typing import Optional

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

#: The ``ErrorInfo`` domain of the server's errors.
DOMAIN = "tabletop"


class TabletopError(grpc.RpcError):
    """A call the server refused (or a status without a Tabletop reason).

    ``reason`` is the ``ErrorInfo`` reason (empty when the status carried
    none: a transport failure, a deadline the client set), ``metadata`` its
    metadata, ``message`` the server's message.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        reason: str = "",
        metadata: Optional[dict[str, str]] = None,
    ) -> None:
        super().__init__(f"{reason or code.name}: {message}")
        self.status_code = code
        self.message = message
        self.reason = reason
        self.metadata: dict[str, str] = dict(metadata or {})

    def code(self) -> grpc.StatusCode:
        """The status code (as ``grpc.Call.code()``)."""
        return self.status_code

    def details(self) -> str:
        """The server's message (as ``grpc.Call.details()``)."""
        return self.message

    def _int(self, key: str) -> int:
        return int(self.metadata[key])


class StaleVersion(TabletopError):
    """``STALE_VERSION``: the match is no longer at ``expected_version``."""

    @property
    def expected_version(self) -> int:
        """The version the request expected."""
        return self._int("expected_version")

    @property
    def current_version(self) -> int:
        """The match's version when the request arrived."""
        return self._int("current_version")


class NotYourTurn(TabletopError):
    """``NOT_YOUR_TURN``: the seat is not to move now."""

    @property
    def seat(self) -> Optional[int]:
        """The seat, when the server named it."""
        return self._int("seat") if "seat" in self.metadata else None


class AlreadyActed(TabletopError):
    """``ALREADY_ACTED``: the seat already acted in this simultaneous turn."""


class IllegalAction(TabletopError):
    """The action is not legal now for this seat.

    ``reason`` is the game's own code when it says why (``RED_LINE``,
    ``CARD_REPEATED``: see the game's README), else ``ILLEGAL_ACTION``.
    """


class InvalidNotation(TabletopError):
    """The action's notation does not parse.

    ``reason`` is the game's own code when it says why, else
    ``INVALID_NOTATION``.
    """


class MatchOver(TabletopError):
    """``MATCH_OVER``: the match has ended."""


class NotStarted(TabletopError):
    """``NOT_STARTED``: the match waits for players to join its open seats."""


class TokenRequired(TabletopError):
    """``TOKEN_REQUIRED`` (UNAUTHENTICATED): the call needs a token
    (``credential``) and got none."""

    @property
    def credential(self) -> str:
        """What it needs: ``seat`` (a seat token), ``organizer`` (an
        organizer credential or the admin token), ``admin`` or
        ``join_code`` (an invite-only seat's)."""
        return self.metadata.get("credential", "")


class BadToken(TabletopError):
    """``BAD_TOKEN`` (PERMISSION_DENIED): the token is not one the server
    knows for this: wrong, revoked, or a join code already used. Also ends a
    stream (watch, lifecycle feed) whose credential was revoked or whose
    seat token was re-issued."""

    @property
    def credential(self) -> str:
        """Which: ``seat``, ``admin``, ``bearer`` (the client's credential:
        unknown or revoked) or ``join_code``."""
        return self.metadata.get("credential", "")


class NotPermitted(TabletopError):
    """``NOT_PERMITTED`` (PERMISSION_DENIED): the caller's credential is
    valid (or it has none) but does not allow this call: an organizer asking
    for an admin's call, an anonymous client choosing a seed."""

    @property
    def credential(self) -> str:
        """The weakest credential that would do: ``organizer`` or ``admin``."""
        return self.metadata.get("credential", "")


class UnknownMatch(TabletopError):
    """``UNKNOWN_MATCH``: no match has this id."""

    @property
    def match_id(self) -> str:
        """The id asked for."""
        return self.metadata.get("match_id", "")


class UnknownGame(TabletopError):
    """``UNKNOWN_GAME`` / ``UNKNOWN_GAME_VERSION``: no such game (version)."""


class ShuttingDown(TabletopError):
    """``SHUTTING_DOWN``: the server is stopping; reconnect to its successor."""


class StoreUnavailable(TabletopError):
    """``STORE_UNAVAILABLE`` (UNAVAILABLE): the server cannot reach its
    match store's database (PostgreSQL down or restarting); nothing was
    acknowledged as stored. Call again once it is back, with
    ``expected_version`` or a ``request_id`` so a retry cannot apply twice."""


class StreamFellBehind(TabletopError):
    """``STREAM_FELL_BEHIND``: the server cut a stream whose client read
    nothing while its queue was full; ``watch`` and ``follow_lifecycle``
    open it again by themselves after the last event received."""

    @property
    def after_seq(self) -> Optional[int]:
        """A Watch stream's last event the server queued."""
        value = self.metadata.get("after_seq")
        return int(value) if value is not None else None

    @property
    def after_cursor(self) -> Optional[int]:
        """A lifecycle feed's last row the server queued."""
        value = self.metadata.get("after_cursor")
        return int(value) if value is not None else None


class RequestIdReused(TabletopError):
    """``REQUEST_ID_REUSED``: ``create_match`` was given a ``request_id`` that
    an earlier, different request used (a retry must repeat the request
    exactly)."""

    @property
    def request_id(self) -> str:
        """The reused id."""
        return self.metadata.get("request_id", "")

    @property
    def match_id(self) -> str:
        """The match the earlier request created."""
        return self.metadata.get("match_id", "")


class InvalidPageToken(TabletopError):
    """``INVALID_PAGE_TOKEN``: the page token is not one the server issued for
    these filters (start again without one)."""


class MatchPaused(TabletopError):
    """``MATCH_PAUSED``: a director paused the match; act again once it resumes."""


class ControlRefused(TabletopError):
    """``CONTROL_REFUSED``: a director's control does not apply to the match as
    it is (pausing a paused match, adding time to a match without a clock)."""


class MatchQuarantined(TabletopError):
    """``MATCH_QUARANTINED``: the server quarantined the match (its game's
    plugin failed in one of its calls) and calls the plugin for it no more;
    a director may abort or adjudicate it, the admin may lift the
    quarantine."""

    @property
    def match_id(self) -> str:
        """The match."""
        return self.metadata.get("match_id", "")

    @property
    def quarantine_reason(self) -> str:
        """Why it is quarantined, for a person."""
        return self.metadata.get("quarantine_reason", "")


class PluginFault(TabletopError):
    """``PLUGIN_FAULT`` (UNAVAILABLE): the game's plugin failed in this call
    (a bug in the plugin); when its worker process died, the match is
    quarantined."""


class Throttled(TabletopError):
    """A limit refused the call before the server served it (``SERVER_BUSY``,
    ``TOO_MANY_CALLS_IN_FLIGHT``, ``RATE_LIMITED``, ``CREATION_QUOTA``,
    ``LIVE_MATCH_LIMIT``); nothing changed. ``retry_after`` is how long to
    wait, in seconds (the status's ``RetryInfo`` says the same)."""

    @property
    def retry_after(self) -> float:
        return self._int("retry_after_ms") / 1000.0


# Written from the server's table of reasons (engine-host/src/grpc/reason.rs)
# by `cargo run -p tabletop-tests --bin reasons`; a test fails when it differs.
_BY_REASON: dict[str, type[TabletopError]] = {
    "INVALID_NOTATION": InvalidNotation,
    "ILLEGAL_ACTION": IllegalAction,
    "UNKNOWN_GAME": UnknownGame,
    "UNKNOWN_GAME_VERSION": UnknownGame,
    "INVALID_PAGE_TOKEN": InvalidPageToken,
    "UNKNOWN_MATCH": UnknownMatch,
    "STALE_VERSION": StaleVersion,
    "NOT_YOUR_TURN": NotYourTurn,
    "ALREADY_ACTED": AlreadyActed,
    "MATCH_OVER": MatchOver,
    "NOT_STARTED": NotStarted,
    "MATCH_PAUSED": MatchPaused,
    "CONTROL_REFUSED": ControlRefused,
    "MATCH_QUARANTINED": MatchQuarantined,
    "REQUEST_ID_REUSED": RequestIdReused,
    "TOKEN_REQUIRED": TokenRequired,
    "BAD_TOKEN": BadToken,
    "NOT_PERMITTED": NotPermitted,
    "SHUTTING_DOWN": ShuttingDown,
    "STREAM_FELL_BEHIND": StreamFellBehind,
    "STREAM_LIMIT": Throttled,
    "SERVER_BUSY": Throttled,
    "TOO_MANY_CALLS_IN_FLIGHT": Throttled,
    "RATE_LIMITED": Throttled,
    "CREATION_QUOTA": Throttled,
    "LIVE_MATCH_LIMIT": Throttled,
    "PLUGIN_FAULT": PluginFault,
    "STORE_UNAVAILABLE": StoreUnavailable,
}


def error_info(error: grpc.RpcError) -> Optional[error_details_pb2.ErrorInfo]:
    """The Tabletop ``ErrorInfo`` a failed call carries, if any."""
    if not isinstance(error, grpc.Call):
        return None
    try:
        status = rpc_status.from_call(error)
    except ValueError:  # details that contradict the call's code or message
        return None
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            if info.domain == DOMAIN:
                return info
    return None


def from_rpc_error(error: grpc.RpcError) -> TabletopError:
    """The typed error for a failed call (itself, if it already is one)."""
    if isinstance(error, TabletopError):
        return error
    code = error.code() if isinstance(error, grpc.Call) else grpc.StatusCode.UNKNOWN
    message = (error.details() if isinstance(error, grpc.Call) else None) or str(error)
    info = error_info(error)
    if info is None:
        return TabletopError(code, message)
    # A game's own refusal code says why; `refusal` says which kind it is.
    kind = info.metadata.get("refusal", info.reason)
    cls = _BY_REASON.get(kind, TabletopError)
    return cls(code, message, info.reason, dict(info.metadata))
