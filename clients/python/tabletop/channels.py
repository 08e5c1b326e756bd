"""The channels a :class:`tabletop.Client` talks over: one per server
address, each adding the client's credential to every call, and over them a
channel that moves to the next address when a server is gone.

With several addresses a call goes to the address in use; when it fails
with ``UNAVAILABLE`` (the server is down, restarting or shutting down, or
the connection could not be made or broke), the next address is used, round
robin, and the call is made again there — but only a call that cannot apply
twice: a read, a ``SubmitAction`` that carries its ``expected_version`` (the
server refuses a stale one, so a retry of an action that was applied is
refused with ``StaleVersion``, or ``AlreadyActed`` in a simultaneous turn), a
``CreateMatch`` with a ``request_id`` (a retry answers the same match). Any
other call is made again only when it never reached a server (the
connection was refused). Between full rounds of the addresses the client
pauses :data:`ROUND_PAUSE` seconds; it gives up :data:`PATIENCE` seconds
after the first failure, raising the last error. With one address nothing
is retried.
"""

from __future__ import annotations

import collections
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import grpc

#: Seconds the client goes on trying other addresses after a failure.
PATIENCE = 15.0
#: Seconds of pause after every address failed once in a row.
ROUND_PAUSE = 0.2

#: Options of each channel of several: a server that comes back is tried
#: again within a second (gRPC's own backoff would soon wait minutes), and a
#: quiet connection is pinged, so that a watch on a host that vanished
#: without a reset moves on too.
FAILOVER_CHANNEL_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 1000),
    ("grpc.keepalive_time_ms", 5000),
    ("grpc.keepalive_timeout_ms", 5000),
    ("grpc.keepalive_permit_without_calls", 1),
)

#: The metadata key the server reads the caller's credential from.
AUTHORIZATION = "authorization"

#: Calls that change nothing: always safe to make again.
_READS = frozenset(
    {
        "/tabletop.v1.Catalog/ListGames",
        "/tabletop.v1.Catalog/GetGame",
        "/tabletop.v1.Matches/GetView",
        "/tabletop.v1.Matches/ListLegalActions",
        "/tabletop.v1.Matches/ListMatches",
        "/tabletop.v1.Matches/ExportRecord",
        "/tabletop.v1.Watch/ListEvents",
        "/tabletop.v1.Admin/ListPlugins",
        "/tabletop.v1.Admin/ListCredentials",
    }
)


def bearer(secret: str) -> tuple[tuple[str, str], ...]:
    """The metadata that carries ``secret`` (none for an empty one)."""
    return ((AUTHORIZATION, f"Bearer {secret}"),) if secret else ()


class _CallDetails(
    collections.namedtuple(
        "_CallDetails", ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression")
    ),
    grpc.ClientCallDetails,
):
    pass


class BearerInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Adds the holder's ``credential`` to every call that does not carry one
    of its own (a call given ``admin_token=`` carries that one instead)."""

    def __init__(self, holder: Any) -> None:
        self._holder = holder

    def _details(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        metadata = list(details.metadata or ())
        secret = self._holder.credential
        if not secret or any(key == AUTHORIZATION for key, _ in metadata):
            return details
        return _CallDetails(
            details.method,
            details.timeout,
            metadata + list(bearer(secret)),
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)


def split_targets(target: "str | Sequence[str]") -> list[str]:
    """The addresses of ``target``: a list, or one string with commas."""
    parts = target.split(",") if isinstance(target, str) else list(target)
    addresses = [p.strip() for p in parts if p.strip()]
    if not addresses:
        raise ValueError(f"no server address in {target!r}")
    return addresses


def server_gone(err: grpc.RpcError) -> bool:
    """Whether ``err`` says the server is gone (or going) rather than
    answering: ``UNAVAILABLE``, except a stream cut for reading too slowly
    (which resumes on the same server)."""
    code = err.code() if callable(getattr(err, "code", None)) else None
    return code == grpc.StatusCode.UNAVAILABLE and getattr(err, "reason", "") != "STREAM_FELL_BEHIND"


def never_sent(err: grpc.RpcError) -> bool:
    """Whether the call failed before it reached a server: gRPC could not
    connect."""
    details = (err.details() if callable(getattr(err, "details", None)) else "") or ""
    return server_gone(err) and ("failed to connect" in details or "Connection refused" in details)


def safe_to_repeat(method: str, request: Any) -> bool:
    """Whether making the call ``method`` with ``request`` twice is the same
    as once."""
    if method in _READS:
        return True
    if method == "/tabletop.v1.Matches/SubmitAction":
        return bool(request.HasField("expected_version"))
    if method == "/tabletop.v1.Matches/CreateMatch":
        return bool(request.request_id)
    return False


@dataclass
class Outage:
    """One stretch of failures: when it began, how many addresses failed."""

    since: float = field(default_factory=time.monotonic)
    failures: int = 0


class FailoverChannel(grpc.Channel):
    """Several channels, one per address, used one at a time (see the
    module's documentation). Unary calls move on by themselves; a stream is
    opened on the address in use, and its reader moves on with
    :meth:`move_on` and opens it again (``Client.watch`` does)."""

    def __init__(self, addresses: Sequence[str], channels: Sequence[grpc.Channel]) -> None:
        self.addresses = list(addresses)
        self.channels = list(channels)
        self._at = 0
        self._lock = threading.Lock()

    @property
    def several(self) -> bool:
        """Whether there is another address to move to."""
        return len(self.channels) > 1

    def current(self) -> tuple[int, grpc.Channel]:
        """The address in use (its index) and its channel."""
        with self._lock:
            return self._at, self.channels[self._at]

    def use(self, index: int) -> None:
        """Uses the address at ``index`` from now on."""
        with self._lock:
            self._at = index

    def move_on(self, index: int, outage: Optional[Outage], err: BaseException) -> Outage:
        """After the address at ``index`` failed with ``err``: the next one is
        used from now on, after a pause when every address failed in a row.
        Raises ``err`` when there is no other or :data:`PATIENCE` is spent."""
        outage = outage or Outage()
        if not self.several or time.monotonic() - outage.since >= PATIENCE:
            raise err
        with self._lock:
            # Another thread may have moved on already: move once.
            if self._at == index:
                self._at = (index + 1) % len(self.channels)
        outage.failures += 1
        if outage.failures % len(self.channels) == 0:
            time.sleep(ROUND_PAUSE)
        return outage

    def unary_unary(self, method: str, request_serializer: Any = None, response_deserializer: Any = None, **kw: Any) -> Any:
        def open_on(channel: grpc.Channel) -> Any:
            return channel.unary_unary(method, request_serializer, response_deserializer, **kw)

        return _FailoverUnary(self, method, open_on)

    def unary_stream(self, method: str, request_serializer: Any = None, response_deserializer: Any = None, **kw: Any) -> Any:
        return lambda *a, **k: self.current()[1].unary_stream(method, request_serializer, response_deserializer, **kw)(*a, **k)

    def stream_unary(self, method: str, request_serializer: Any = None, response_deserializer: Any = None, **kw: Any) -> Any:
        return lambda *a, **k: self.current()[1].stream_unary(method, request_serializer, response_deserializer, **kw)(*a, **k)

    def stream_stream(self, method: str, request_serializer: Any = None, response_deserializer: Any = None, **kw: Any) -> Any:
        return lambda *a, **k: self.current()[1].stream_stream(method, request_serializer, response_deserializer, **kw)(*a, **k)

    def subscribe(self, callback: Any, try_to_connect: bool = False) -> None:
        self.current()[1].subscribe(callback, try_to_connect)

    def unsubscribe(self, callback: Any) -> None:
        self.current()[1].unsubscribe(callback)

    def close(self) -> None:
        for channel in self.channels:
            channel.close()

    def __enter__(self) -> "FailoverChannel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _FailoverUnary:
    """A unary method on a :class:`FailoverChannel`."""

    def __init__(self, owner: FailoverChannel, method: str, open_on: Callable[[grpc.Channel], Any]) -> None:
        self._owner = owner
        self._method = method
        self._open_on = open_on

    def _call(self, how: str, request: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        outage: Optional[Outage] = None
        while True:
            index, channel = self._owner.current()
            try:
                return getattr(self._open_on(channel), how)(request, *args, **kwargs)
            except grpc.RpcError as err:
                again = safe_to_repeat(self._method, request) and server_gone(err) or never_sent(err)
                if not (self._owner.several and again):
                    raise
                outage = self._owner.move_on(index, outage, err)

    def __call__(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        return self._call("__call__", request, args, kwargs)

    def with_call(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        return self._call("with_call", request, args, kwargs)

    def future(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        # A future is the caller's to wait on: made on the address in use.
        return self._open_on(self._owner.current()[1]).future(request, *args, **kwargs)


def wait_for_first_ready(channels: FailoverChannel, timeout: float) -> None:
    """Waits until one of the channels is ready and uses the first that is;
    raises ``grpc.FutureTimeoutError`` when none is within ``timeout``."""
    futures = [grpc.channel_ready_future(c) for c in channels.channels]
    deadline = time.monotonic() + timeout
    try:
        while True:
            for index, ready in enumerate(futures):
                if ready.done():
                    channels.use(index)
                    return
            if time.monotonic() >= deadline:
                raise grpc.FutureTimeoutError()
            time.sleep(0.01)
    finally:
        for ready in futures:
            ready.cancel()
