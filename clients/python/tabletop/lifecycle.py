"""The lifecycle feed being followed (:meth:`tabletop.Client.follow_lifecycle`)."""

from __future__ import annotations

from typing import Any, Callable, Optional

import grpc

from tabletop.channels import FailoverChannel, server_gone
from tabletop.errors import StreamFellBehind, from_rpc_error
from tabletop.v1 import director_pb2


class LifecycleFeed:
    """The lifecycle feed being followed: an iterator of ``LifecycleEvent``
    that raises typed errors (:class:`tabletop.errors.ShuttingDown` when
    the server stops: follow again from the last cursor — with several
    addresses the feed does that itself on the next one, as for any
    ``UNAVAILABLE``;
    ``STREAM_FELL_BEHIND``, a cut for reading too slowly, is not raised: the
    feed is followed again after the last event received;
    :class:`tabletop.errors.BadToken` when its credential is revoked).

    :meth:`cancel` ends the iteration cleanly, also from another thread
    while it waits for the next event; so does leaving a ``with`` block
    around it.
    """

    def __init__(
        self, follow: Callable[[int], Any], after_cursor: int, failover: Optional[FailoverChannel] = None
    ) -> None:
        self._follow = follow
        self._failover = failover
        self._cursor = after_cursor
        self._at = failover.current()[0] if failover else 0
        self._outage: Any = None
        self._stream = follow(after_cursor)
        self._cancelled = False

    def __iter__(self) -> "LifecycleFeed":
        return self

    def __next__(self) -> director_pb2.LifecycleEvent:
        while True:
            try:
                event: director_pb2.LifecycleEvent = next(self._stream)
                self._cursor, self._outage = event.cursor, None
                return event
            except grpc.RpcError as err:
                # Our own cancel() ends the stream with CANCELLED: that is the
                # end of the iteration, not an error.
                if self._cancelled:
                    raise StopIteration from None
                typed = from_rpc_error(err)
                # Cut for reading too slowly: every row queued before the cut
                # arrived, so the feed goes on after the last of them.
                if isinstance(typed, StreamFellBehind) and typed.after_cursor is not None:
                    self._stream = self._follow(typed.after_cursor)
                    continue
                # Its server is gone: the cursor is every host's, so the
                # next address goes on after the last event received.
                if self._failover is not None and server_gone(typed):
                    self._outage = self._failover.move_on(self._at, self._outage, typed)
                    self._at = self._failover.current()[0]
                    self._stream = self._follow(self._cursor)
                    continue
                raise typed from err

    def cancel(self) -> None:
        """Stops following."""
        self._cancelled = True
        self._stream.cancel()

    def __enter__(self) -> "LifecycleFeed":
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()

    def __del__(self) -> None:
        # An abandoned feed (a loop left with `break`) would otherwise keep
        # its stream open until the channel closes.
        self._stream.cancel()
