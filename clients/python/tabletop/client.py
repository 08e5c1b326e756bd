"""A small, typed wrapper over the generated gRPC stubs.

The wrapper adds no behaviour of its own beyond convenience: every method is
one RPC and returns the generated message types. A refused call raises a
:class:`tabletop.errors.TabletopError` chosen by the server's ``ErrorInfo``
reason (:class:`~tabletop.errors.StaleVersion`, ...): a ``grpc.RpcError`` with
the call's own ``code()`` and ``details()``, plus ``reason`` and ``metadata``.

A client may hold a credential (an organizer credential the admin issued, or
the admin token itself): it goes as ``authorization: Bearer SECRET`` metadata
with every call, the raw stubs' included. Without one the client is
anonymous: it may read, play seats it holds tokens for, and create matches
without a seed.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Optional, Sequence, Tuple, TypeVar, Union, cast

import grpc

from tabletop.channels import (
    AUTHORIZATION,
    FAILOVER_CHANNEL_OPTIONS,
    BearerInterceptor,
    FailoverChannel,
    bearer as _bearer,
    server_gone,
    split_targets,
    wait_for_first_ready,
)
from tabletop.errors import StreamFellBehind, from_rpc_error
from tabletop.lifecycle import LifecycleFeed

from tabletop.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    catalog_pb2,
    catalog_pb2_grpc,
    director_pb2,
    director_pb2_grpc,
    matches_pb2,
    matches_pb2_grpc,
    types_pb2,
    watch_pb2,
    watch_pb2_grpc,
)

#: An action, by id (from ``legal_actions``) or by its notation.
Action = Union[int, str, matches_pb2.LegalAction]

DEFAULT_SERVER = "127.0.0.1:50051"


class Player(NamedTuple):
    """Who plays a seat, as views, records, results and the lifecycle feed
    show it: a display name (at most 64 characters) and the platform's own
    id for the player (opaque to the server)."""

    display_name: str
    external_id: str = ""


#: A seat's player for ``create_match(seat_players=...)``: a ``Player``, a
#: ``(display_name, external_id)`` pair, or just a display name.
PlayerLike = Union[Player, Tuple[str, str], str]

_F = TypeVar("_F", bound=Callable[..., Any])


def _typed_errors(method: _F) -> _F:
    """Raises the call's typed error instead of gRPC's own."""

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except grpc.RpcError as err:
            typed = from_rpc_error(err)
            if typed is err:
                raise
            raise typed from err

    return cast(_F, wrapper)


def connect(
    target: Union[str, Sequence[str]] = DEFAULT_SERVER,
    *,
    timeout: Optional[float] = 10.0,
    credential: str = "",
    admin_token: str = "",
    ca_file: Optional[str] = None,
    client_cert_file: Optional[str] = None,
    client_key_file: Optional[str] = None,
) -> "Client":
    """Opens a channel to ``target`` (``host:port``): plaintext, or TLS
    trusting the server certificates that the CA in ``ca_file`` (PEM) signed.

    ``target`` may name several servers (a list, or one string with commas,
    ``"a:50051,b:50051"``): the client uses the first that answers and moves
    to the next when a server is unavailable (see :mod:`tabletop.channels`
    for which calls it makes again there).

    With a ``timeout`` (seconds), waits until a channel is ready and raises
    ``grpc.FutureTimeoutError`` if no server can be reached in time.
    ``credential`` (an organizer credential, or the admin token) is sent
    with every call; ``admin_token`` is another name for it, so that code
    written before organizer credentials keeps working (see :class:`Client`).
    ``client_cert_file`` and ``client_key_file`` (PEM) present a client
    certificate over TLS, which a server started with ``--tls-client-ca``
    requires for Admin calls.
    """
    addresses = split_targets(target)
    options = FAILOVER_CHANNEL_OPTIONS if len(addresses) > 1 else ()
    if ca_file is None:
        if client_cert_file or client_key_file:
            raise ValueError("a client certificate needs TLS: give ca_file too")
        channels = [grpc.insecure_channel(a, options=options) for a in addresses]
    else:
        if (client_cert_file is None) != (client_key_file is None):
            raise ValueError("give client_cert_file and client_key_file together")
        with open(ca_file, "rb") as f:
            root = f.read()
        key = cert = None
        if client_cert_file is not None and client_key_file is not None:
            with open(client_cert_file, "rb") as f:
                cert = f.read()
            with open(client_key_file, "rb") as f:
                key = f.read()
        tls = grpc.ssl_channel_credentials(root_certificates=root, private_key=key, certificate_chain=cert)
        channels = [grpc.secure_channel(a, tls, options=options) for a in addresses]
    try:
        client = Client(channels, credential=credential, admin_token=admin_token, addresses=addresses)
    except ValueError:
        for channel in channels:
            channel.close()
        raise
    if timeout is not None:
        try:
            if client.failover is None:
                grpc.channel_ready_future(client.channel).result(timeout=timeout)
            else:
                wait_for_first_ready(client.failover, timeout)
        except grpc.FutureTimeoutError:
            client.close()
            raise
    return client


class Client:
    """One connection to a Tabletop server.

    Use it as a context manager (or call :meth:`close`). Calls are
    thread-safe: several bots may share one client.

    ``credential`` is sent as ``authorization: Bearer SECRET`` with every
    call, and decides what the client may do: an organizer credential
    (from :meth:`issue_credential`) may create matches with a seed, seat
    players without join codes, re-issue seat tokens and use the Director's
    controls; the admin token may also manage plugins and credentials.
    ``admin_token`` is the same setting under its older name: the admin
    token is simply the most powerful credential. Giving both with
    different values raises ``ValueError`` (the server would refuse every
    call that carried two). The calls that take ``admin_token=`` send that
    credential instead of the client's, for that call only.
    """

    def __init__(
        self,
        channel: Union[grpc.Channel, Sequence[grpc.Channel]],
        *,
        credential: str = "",
        admin_token: str = "",
        addresses: Sequence[str] = (),
    ) -> None:
        if credential and admin_token and credential != admin_token:
            raise ValueError("credential and admin_token are the same setting: give one of them")
        self.credential = credential or admin_token
        given = [channel] if isinstance(channel, grpc.Channel) else list(channel)
        if not given:
            raise ValueError("a client needs a channel")
        #: The several servers' channels when there are several (None with
        #: one): calls move to the next on UNAVAILABLE.
        self.failover: Optional[FailoverChannel] = None
        if len(given) == 1:
            self.channel: grpc.Channel = given[0]
            calls = grpc.intercept_channel(given[0], BearerInterceptor(self))
        else:
            names = list(addresses) or [f"channel {n}" for n in range(len(given))]
            self.failover = FailoverChannel(names, [grpc.intercept_channel(c, BearerInterceptor(self)) for c in given])
            self._raw_channels = given
            self.channel = self.failover
            calls = self.failover
        self.catalog = catalog_pb2_grpc.CatalogStub(calls)
        self.matches = matches_pb2_grpc.MatchesStub(calls)
        self.watcher = watch_pb2_grpc.WatchStub(calls)
        self.director = director_pb2_grpc.DirectorStub(calls)
        self.admin = admin_pb2_grpc.AdminStub(calls)

    @property
    def admin_token(self) -> str:
        """The client's credential (the older name of :attr:`credential`)."""
        return self.credential

    @admin_token.setter
    def admin_token(self, value: str) -> None:
        self.credential = value

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the channels (cancels open watch streams)."""
        for channel in getattr(self, "_raw_channels", [self.channel]):
            channel.close()

    # -- catalog ---------------------------------------------------------

    @_typed_errors
    def games(self) -> list[catalog_pb2.GameInfo]:
        """Every game the server plays (newest version of each)."""
        return list(self.catalog.ListGames(catalog_pb2.ListGamesRequest()).games)

    @_typed_errors
    def game(self, name: str, version: Optional[str] = None) -> catalog_pb2.GameInfo:
        """One game: players, options, rules summary."""
        return self.catalog.GetGame(catalog_pb2.GetGameRequest(game=name, version=version))

    # -- matches ---------------------------------------------------------

    @_typed_errors
    def create_match(
        self,
        game: str,
        players: int = 2,
        *,
        options: Optional[Mapping[str, str]] = None,
        seed: Optional[int] = None,
        open_seats: Sequence[int] = (),
        version: Optional[str] = None,
        start_position: Optional[str] = None,
        time_control: Optional[matches_pb2.TimeControl] = None,
        labels: Optional[Mapping[str, str]] = None,
        request_id: str = "",
        open_seat_deadline: Optional[matches_pb2.OpenSeatDeadline] = None,
        seat_players: Optional[Mapping[int, PlayerLike]] = None,
        public_open_seats: bool = False,
        spectator_delay: Optional[types_pb2.SpectatorDelay] = None,
        bots: Optional[Mapping[int, str]] = None,
    ) -> "Match":
        """Creates a match; the result holds one token per filled seat and a
        join code per open seat.

        A ``seed``, or a ``start_position`` of a game with hidden
        information, needs a credential (an anonymous client gets
        :class:`tabletop.errors.NotPermitted`): whoever chose the seed could
        replay the match's chance and read hidden cards. ``seat_players`` names who plays the
        seats filled now, by seat: ``{0: Player("Ada", "p-17"), 1: "Bo"}``.
        Open seats are invite-only: ``Match.join_codes`` holds each one's
        code, for the player invited to it; with ``public_open_seats`` anyone
        may take them, and there are no codes.

        ``labels`` tag the match (``{"tournament": "spring", "round": "2"}``):
        views, listings and the lifecycle feed show them and filter by them.
        With a ``request_id`` the call is safe to retry: the same request
        under the same id returns the same match and the same tokens (also
        after a server restart); a different request under it raises
        :class:`tabletop.errors.RequestIdReused`. ``open_seat_deadline``
        (``OpenSeatDeadline(within_ms=…, on_deadline=ON_DEADLINE_ABORT or
        ON_DEADLINE_START_WITHOUT)``) says what happens to seats still open
        by then. ``spectator_delay`` (``SpectatorDelay(moves=…, ms=…)``) has
        spectators see the running match that many versions and/or
        milliseconds behind, for broadcasts; seats see it live, and views
        say ``delayed``. ``bots`` seats the server's bots, by seat:
        ``{1: "mcts:500ms"}`` (specs: ``random``, ``mcts:2000`` iterations,
        ``mcts:500ms`` time a move); no token is issued for a bot's seat.
        """
        response = self.matches.CreateMatch(
            matches_pb2.CreateMatchRequest(
                game=game,
                players=players,
                options=dict(options or {}),
                seed=seed,
                open_seats=list(open_seats),
                version=version,
                start_position=start_position,
                time_control=time_control,
                labels=dict(labels or {}),
                request_id=request_id,
                open_seat_deadline=open_seat_deadline,
                seat_players=[_seat_player(seat, player) for seat, player in sorted((seat_players or {}).items())],
                public_open_seats=public_open_seats,
                spectator_delay=spectator_delay,
                bots=[matches_pb2.SeatBot(seat=seat, spec=spec) for seat, spec in sorted((bots or {}).items())],
            )
        )
        tokens = {s.seat: s.token for s in response.seats}
        codes = {c.seat: c.code for c in response.join_codes}
        return Match(self, response.match_id, tokens, response.view, codes)

    @_typed_errors
    def join(
        self,
        match_id: str,
        seat: Optional[int] = None,
        *,
        code: str = "",
        name: str = "",
        external_id: str = "",
    ) -> "Seat":
        """Takes an open seat: the one ``code`` (its join code) opens, or
        ``seat``, or the lowest one anyone may take.

        An invite-only seat needs its code (:class:`tabletop.errors.TokenRequired`
        without, :class:`tabletop.errors.BadToken` for a wrong or used one)
        unless the client holds a credential. ``name`` and ``external_id``
        say who takes it (see :class:`Player`).
        """
        response = self.matches.JoinMatch(
            matches_pb2.JoinMatchRequest(
                match_id=match_id, seat=seat, join_code=code, display_name=name, external_id=external_id
            )
        )
        return Seat(self, match_id, response.seat, response.token)

    @_typed_errors
    def view(
        self, match_id: str, token: str = "", *, at_version: Optional[int] = None
    ) -> types_pb2.MatchView:
        """The match as the token's seat sees it (a spectator without a token); with
        ``at_version``, as that viewer saw it right after that version (0: as created)."""
        request = matches_pb2.GetViewRequest(match_id=match_id, seat_token=token)
        if at_version is not None:
            request.at_version = at_version
        return self.matches.GetView(request)

    @_typed_errors
    def legal_actions(self, match_id: str, token: str) -> matches_pb2.ListLegalActionsResponse:
        """The seat's legal actions now, with the match version they apply to."""
        return self.matches.ListLegalActions(
            matches_pb2.ListLegalActionsRequest(match_id=match_id, seat_token=token)
        )

    @_typed_errors
    def act(
        self,
        match_id: str,
        token: str,
        action: Action,
        *,
        expected_version: Optional[int] = None,
    ) -> matches_pb2.SubmitActionResponse:
        """Submits an action by id, notation or ``LegalAction``.

        With ``expected_version`` the server refuses if the match has moved on
        since: :class:`tabletop.errors.StaleVersion`, whose
        ``current_version`` is the match's version now. It also makes the
        call safe to make again: with several addresses, only a call with
        it moves to the next server when one does not answer — and then a
        ``StaleVersion`` (or ``AlreadyActed``) may mean that the first try
        was applied: read the view.
        """
        request = matches_pb2.SubmitActionRequest(
            match_id=match_id, seat_token=token, expected_version=expected_version
        )
        if isinstance(action, matches_pb2.LegalAction):
            request.action_id = action.id
        elif isinstance(action, bool):
            raise TypeError("an action is an id (int), a notation (str) or a LegalAction")
        elif isinstance(action, int):
            request.action_id = action
        elif isinstance(action, str):
            request.notation = action
        else:
            raise TypeError("an action is an id (int), a notation (str) or a LegalAction")
        return self.matches.SubmitAction(request)

    @_typed_errors
    def resign(self, match_id: str, token: str) -> types_pb2.MatchView:
        """The token's seat resigns; the match ends."""
        return self.matches.Resign(matches_pb2.ResignRequest(match_id=match_id, seat_token=token))

    @_typed_errors
    def list_matches(
        self,
        game: str = "",
        state: types_pb2.MatchState = types_pb2.MATCH_STATE_UNSPECIFIED,
        *,
        labels: Optional[Mapping[str, str]] = None,
        created_from_ms: Optional[int] = None,
        created_before_ms: Optional[int] = None,
        page_size: int = 0,
        page_token: str = "",
    ) -> matches_pb2.ListMatchesResponse:
        """One page of the matches on the server, oldest first, filtered by
        game, state, labels (every one given must match) and creation time
        (``created_from_ms`` inclusive, ``created_before_ms`` exclusive).

        ``page_size`` 0 is the server's default (100). Pass the page's
        ``next_page_token`` with the same filters for the next page; it is
        empty on the last page. :meth:`iter_matches` does this for you.
        """
        return self.matches.ListMatches(
            matches_pb2.ListMatchesRequest(
                game=game,
                state=state,
                labels=dict(labels or {}),
                created_from_ms=created_from_ms,
                created_before_ms=created_before_ms,
                page_size=page_size,
                page_token=page_token,
            )
        )

    def iter_matches(
        self,
        game: str = "",
        state: types_pb2.MatchState = types_pb2.MATCH_STATE_UNSPECIFIED,
        *,
        labels: Optional[Mapping[str, str]] = None,
        created_from_ms: Optional[int] = None,
        created_before_ms: Optional[int] = None,
        page_size: int = 0,
    ) -> Iterator[matches_pb2.MatchSummary]:
        """Every match :meth:`list_matches` selects, page by page, oldest first."""
        page_token = ""
        while True:
            page = self.list_matches(
                game,
                state,
                labels=labels,
                created_from_ms=created_from_ms,
                created_before_ms=created_before_ms,
                page_size=page_size,
                page_token=page_token,
            )
            yield from page.matches
            if not page.next_page_token:
                return
            page_token = page.next_page_token

    @_typed_errors
    def export_record(self, match_id: str, admin_token: Optional[str] = None) -> str:
        """The match's replayable JSON record (a credential needed while it
        runs; the client's own unless ``admin_token`` is given)."""
        return self.matches.ExportRecord(
            matches_pb2.ExportRecordRequest(match_id=match_id), metadata=self._auth(admin_token)
        ).record_json

    def watch(
        self,
        match_id: str,
        token: str = "",
        *,
        from_version: Optional[int] = None,
        after_seq: Optional[int] = None,
        omit_views: bool = False,
    ) -> Iterator[watch_pb2.WatchEvent]:
        """Iterates over the match's events as this viewer is told them.

        Without a resume point: a snapshot, then one event per change as it
        happens. With ``after_seq`` (the ``seq`` of the last event seen) or
        ``from_version`` (0: from the very first event): every past event
        after that point, then live ones, with no gap and none twice; this
        works at any time, also for a match finished long ago.

        The iterator ends when the match has finished. Breaking out of the loop
        (or closing the generator) cancels the stream. A client that reads
        too slowly is cut by the server (``STREAM_FELL_BEHIND``) and this
        iterator opens the stream again after the last event received, so
        the caller sees nothing of it. A server that shuts
        down ends it with :class:`tabletop.errors.ShuttingDown`: watch again
        with ``after_seq`` to resume — with several addresses the iterator
        does that itself on the next one, as for any ``UNAVAILABLE``, for up
        to :data:`tabletop.channels.PATIENCE` seconds. Revoking the client's credential, or
        re-issuing the token of the seat it watches as, ends it within a
        second with :class:`tabletop.errors.BadToken` (``credential``:
        ``bearer`` or ``seat``), as a new call with it would be refused.
        """
        outage = None
        moved = 0
        while True:
            at = self.failover.current()[0] if self.failover else 0
            stream = self.watcher.WatchMatch(
                watch_pb2.WatchMatchRequest(
                    match_id=match_id,
                    seat_token=token,
                    from_version=from_version,
                    after_seq=after_seq,
                    omit_views=omit_views,
                )
            )
            try:
                for event in stream:
                    outage = None
                    moved = 0
                    # Where a stream opened again goes on from: after this
                    # event, or after the version a snapshot showed.
                    if event.seq:
                        after_seq, from_version = event.seq, None
                    elif after_seq is None:
                        from_version = event.version
                    yield event
                return
            except grpc.RpcError as err:
                typed = from_rpc_error(err)
                # The server cut a stream this client read too slowly: every
                # event it queued arrived before the cut, so the stream goes
                # on after the last of them, with no gap and none twice.
                if isinstance(typed, StreamFellBehind) and typed.after_seq is not None:
                    after_seq, from_version = typed.after_seq, None
                    continue
                # Another host of the server's database serves the match
                # now: every event sent was stored, so the stream goes on
                # after the last, through the same server, which relays it.
                if getattr(typed, "reason", "") == "MATCH_MOVED" and moved < 50:
                    moved += 1
                    time.sleep(0.2)
                    continue
                # Its server is gone: the next address goes on after the
                # last event received.
                if self.failover is not None and server_gone(typed):
                    outage = self.failover.move_on(at, outage, typed)
                    continue
                raise typed from err
            finally:
                stream.cancel()

    @_typed_errors
    def list_events(
        self,
        match_id: str,
        token: str = "",
        *,
        after_seq: int = 0,
        page_size: int = 0,
        include_views: bool = False,
    ) -> watch_pb2.ListEventsResponse:
        """One page of the match's past events after ``after_seq``, as this
        viewer was told them (``page_size`` 0: the server's default)."""
        return self.watcher.ListEvents(
            watch_pb2.ListEventsRequest(
                match_id=match_id,
                seat_token=token,
                after_seq=after_seq,
                page_size=page_size,
                include_views=include_views,
            )
        )

    def events(
        self, match_id: str, token: str = "", *, after_seq: int = 0, include_views: bool = False
    ) -> Iterator[watch_pb2.WatchEvent]:
        """Every past event after ``after_seq``, page by page, oldest first."""
        while True:
            page = self.list_events(match_id, token, after_seq=after_seq, include_views=include_views)
            yield from page.events
            if not page.events or page.events[-1].seq >= page.last_seq:
                return
            after_seq = page.events[-1].seq

    # -- director (every call needs an organizer credential or the admin token)

    def _auth(self, admin_token: Optional[str]) -> tuple[tuple[str, str], ...]:
        """The metadata of a call given its own credential (none otherwise:
        the interceptor adds the client's)."""
        return _bearer(admin_token) if admin_token else ()

    def follow_lifecycle(
        self,
        *,
        after_cursor: int = 0,
        game: str = "",
        labels: Optional[Mapping[str, str]] = None,
        admin_token: Optional[str] = None,
    ) -> "LifecycleFeed":
        """Follows the lifecycle feed: every step in the life of every match
        (created, seat filled, started, seat out, paused, resumed, time
        added, finished, aborted, unavailable), oldest first, then live.

        Only events of ``game`` and of matches with every one of ``labels``,
        if given. Each event has a ``cursor``; keep the last one (durably,
        with whatever the event made you record) and follow again with
        ``after_cursor`` set to it to receive every later event once, with
        no gap, also after a restart of either side. The feed does not end
        by itself: follow it in a ``with`` block, or call
        :meth:`LifecycleFeed.cancel` (from any thread) to stop. Revoking
        the credential it was opened with ends it within a second with
        :class:`tabletop.errors.BadToken`.
        """
        metadata = self._auth(admin_token)

        def follow(after: int) -> Any:
            return self.director.FollowLifecycle(
                director_pb2.FollowLifecycleRequest(after_cursor=after, game=game, labels=dict(labels or {})),
                metadata=metadata,
            )

        return LifecycleFeed(follow, after_cursor, self.failover)

    @_typed_errors
    def abort_match(self, match_id: str, reason: str = "", *, admin_token: Optional[str] = None) -> types_pb2.MatchView:
        """Ends a waiting or running match without a result; ``reason`` (at
        most 256 bytes) shows in the feed, the view and the record."""
        return self.director.AbortMatch(
            director_pb2.AbortMatchRequest(match_id=match_id, reason=reason), metadata=self._auth(admin_token)
        )

    @_typed_errors
    def adjudicate_match(
        self,
        match_id: str,
        ranks: Mapping[int, int],
        *,
        scores: Optional[Mapping[int, float]] = None,
        admin_token: Optional[str] = None,
    ) -> types_pb2.MatchView:
        """Ends a running match with the director's result: ``ranks`` by seat
        for every seat (1 = first; equal ranks share a place), and
        optionally ``scores`` by seat."""
        results = [
            types_pb2.PlayerResult(seat=seat, rank=rank, score=(scores or {}).get(seat, 0.0))
            for seat, rank in sorted(ranks.items())
        ]
        return self.director.AdjudicateMatch(
            director_pb2.AdjudicateMatchRequest(match_id=match_id, results=results), metadata=self._auth(admin_token)
        )

    @_typed_errors
    def pause_match(self, match_id: str, *, admin_token: Optional[str] = None) -> types_pb2.MatchView:
        """Stops a running match's clocks; actions raise
        :class:`tabletop.errors.MatchPaused` until it resumes."""
        return self.director.PauseMatch(
            director_pb2.PauseMatchRequest(match_id=match_id), metadata=self._auth(admin_token)
        )

    @_typed_errors
    def resume_match(self, match_id: str, *, admin_token: Optional[str] = None) -> types_pb2.MatchView:
        """Restarts a paused match's clocks where they stopped."""
        return self.director.ResumeMatch(
            director_pb2.ResumeMatchRequest(match_id=match_id), metadata=self._auth(admin_token)
        )

    @_typed_errors
    def add_time(
        self, match_id: str, seat: int, added_ms: int, *, admin_token: Optional[str] = None
    ) -> types_pb2.MatchView:
        """Adds ``added_ms`` (1 ms to 24 h) to the seat's clock: its bank, or
        its current move's limit when the match has no bank."""
        return self.director.AddTime(
            director_pb2.AddTimeRequest(match_id=match_id, seat=seat, added_ms=added_ms),
            metadata=self._auth(admin_token),
        )

    @_typed_errors
    def reissue_seat_token(self, match_id: str, seat: int, *, admin_token: Optional[str] = None) -> "Seat":
        """Gives a taken seat a new token (for a player who lost theirs); the
        old token is refused from then on. Returns the seat with its new token."""
        issued = self.director.ReissueSeatToken(
            director_pb2.ReissueSeatTokenRequest(match_id=match_id, seat=seat), metadata=self._auth(admin_token)
        )
        return Seat(self, match_id, issued.seat, issued.token)

    # -- admin (every call needs the admin token) ---------------------------

    @_typed_errors
    def list_plugins(self, *, admin_token: Optional[str] = None) -> list[admin_pb2.PluginInfo]:
        """Every loaded plugin version and the matches that use it."""
        return list(self.admin.ListPlugins(admin_pb2.ListPluginsRequest(), metadata=self._auth(admin_token)).plugins)

    @_typed_errors
    def issue_credential(
        self, name: str, *, tenant: str = "", admin_token: Optional[str] = None
    ) -> admin_pb2.IssueCredentialResponse:
        """Issues an organizer credential for ``name`` (1 to 64 characters)
        in ``tenant`` (1 to 63 of a-z, 0-9, ``.``, ``_``, ``-``; empty: a new
        tenant of its own, named after its id). An organizer runs only its
        tenant's matches. The response's ``secret`` is shown this once (the
        server keeps only its hash): give it to the organizer, who connects
        with ``credential=secret``; ``credential.credential_id`` names it for
        :meth:`revoke_credential`."""
        return self.admin.IssueCredential(
            admin_pb2.IssueCredentialRequest(name=name, role=admin_pb2.CREDENTIAL_ROLE_ORGANIZER, tenant=tenant),
            metadata=self._auth(admin_token),
        )

    @_typed_errors
    def revoke_credential(self, credential_id: str, *, admin_token: Optional[str] = None) -> admin_pb2.CredentialInfo:
        """Revokes a credential: every call with it is refused from then on."""
        return self.admin.RevokeCredential(
            admin_pb2.RevokeCredentialRequest(credential_id=credential_id), metadata=self._auth(admin_token)
        )

    @_typed_errors
    def list_credentials(self, *, admin_token: Optional[str] = None) -> list[admin_pb2.CredentialInfo]:
        """Every credential issued, oldest first, revoked ones included (with
        ``revoked_at_ms``); never a secret."""
        return list(
            self.admin.ListCredentials(admin_pb2.ListCredentialsRequest(), metadata=self._auth(admin_token)).credentials
        )

    @_typed_errors
    def lift_quarantine(
        self, match_id: str, *, plugin_version: str = "", admin_token: Optional[str] = None
    ) -> types_pb2.MatchView:
        """Lifts a match's quarantine (``MATCH_STATE_QUARANTINED``: the server
        stopped calling its plugin for it): play goes on where it stopped,
        with ``plugin_version`` through that loaded version of its game (a
        fixed build), which first replays the whole match. Raises
        :class:`tabletop.errors.ControlRefused` for a match that is not
        quarantined, :class:`tabletop.errors.UnknownGame` for a version not
        loaded."""
        return self.admin.LiftQuarantine(
            admin_pb2.LiftQuarantineRequest(match_id=match_id, plugin_version=plugin_version),
            metadata=self._auth(admin_token),
        )


def _seat_player(seat: int, player: PlayerLike) -> types_pb2.SeatPlayer:
    if isinstance(player, str):
        return types_pb2.SeatPlayer(seat=seat, display_name=player)
    display_name, external_id = player
    return types_pb2.SeatPlayer(seat=seat, display_name=display_name, external_id=external_id)


def event_view(event: watch_pb2.WatchEvent) -> Optional[types_pb2.MatchView]:
    """The view a watch event carries (None for ``seat_acted``)."""
    kind = event.WhichOneof("kind")
    if kind == "snapshot":
        return event.snapshot
    if kind == "transition":
        return event.transition.view
    return None


def final_results(view: types_pb2.MatchView) -> dict[int, int]:
    """Rank by seat of a finished match (1 = first place)."""
    return {r.seat: r.rank for r in view.results}


@dataclass
class Seat:
    """One seat of a match, played with its secret token."""

    client: Client
    match_id: str
    seat: int
    token: str = field(repr=False)

    def view(self, *, at_version: Optional[int] = None) -> types_pb2.MatchView:
        """The match as this seat sees it (at a past version, with ``at_version``)."""
        return self.client.view(self.match_id, self.token, at_version=at_version)

    def legal_actions(self) -> list[matches_pb2.LegalAction]:
        """This seat's legal actions now (empty when not to move)."""
        return list(self.client.legal_actions(self.match_id, self.token).actions)

    def act(self, action: Action, *, expected_version: Optional[int] = None) -> matches_pb2.SubmitActionResponse:
        """Submits this seat's action (id, notation or ``LegalAction``)."""
        return self.client.act(self.match_id, self.token, action, expected_version=expected_version)

    def resign(self) -> types_pb2.MatchView:
        """Resigns this seat."""
        return self.client.resign(self.match_id, self.token)

    def watch(
        self, *, from_version: Optional[int] = None, after_seq: Optional[int] = None
    ) -> Iterator[watch_pb2.WatchEvent]:
        """Watches the match as this seat (see :meth:`Client.watch`)."""
        return self.client.watch(self.match_id, self.token, from_version=from_version, after_seq=after_seq)

    def events(self, *, after_seq: int = 0, include_views: bool = False) -> Iterator[watch_pb2.WatchEvent]:
        """The match's past events as this seat was told them."""
        return self.client.events(self.match_id, self.token, after_seq=after_seq, include_views=include_views)


@dataclass
class Match:
    """A match just created: its id, the filled seats' tokens, the first
    view, and the open seats' join codes (empty when they are public)."""

    client: Client
    match_id: str
    tokens: dict[int, str] = field(repr=False)
    created_view: types_pb2.MatchView = field(repr=False)
    join_codes: dict[int, str] = field(default_factory=dict, repr=False)

    def seat(self, seat: int) -> Seat:
        """The seat ``seat`` (it must have been filled at creation)."""
        return Seat(self.client, self.match_id, seat, self.tokens[seat])

    def seats(self) -> list[Seat]:
        """Every seat filled at creation, by seat number."""
        return [self.seat(s) for s in sorted(self.tokens)]

    def view(self, *, at_version: Optional[int] = None) -> types_pb2.MatchView:
        """The match as a spectator sees it (at a past version, with ``at_version``)."""
        return self.client.view(self.match_id, at_version=at_version)

    def watch(
        self, *, from_version: Optional[int] = None, after_seq: Optional[int] = None
    ) -> Iterator[watch_pb2.WatchEvent]:
        """Watches the match as a spectator (see :meth:`Client.watch`)."""
        return self.client.watch(self.match_id, from_version=from_version, after_seq=after_seq)

    def events(self, *, after_seq: int = 0, include_views: bool = False) -> Iterator[watch_pb2.WatchEvent]:
        """The match's past events as a spectator was told them."""
        return self.client.events(self.match_id, after_seq=after_seq, include_views=include_views)
