"""The Python client against the real engine-host and the real plugins: the
catalog, complete matches played by the example bot, watch streams, typed
errors, the tournament-platform calls (labels, paging, idempotent creation,
the lifecycle feed, the director's controls), and the README's and the
tournament example's code."""

from __future__ import annotations

import itertools
import json
import random
import re
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import grpc
import pytest

import tabletop
from tabletop import event_view
from tabletop.v1 import admin_pb2, matches_pb2, types_pb2, watch_pb2

from conftest import ADMIN_TOKEN, PYTHON_CLIENT, TOURNAMENT_EXAMPLE, Host, run_bot

BOT_DEADLINE_S = 150

#: How soon a stream must end once what opened it is withdrawn: the server
#: promises a second; the rest is slack for a loaded machine.
WITHDRAWN_WITHIN_S = 3.0

#: How long a stream that must go on is given to deliver its next message.
PATIENCE_S = 10.0

T = TypeVar("T")


def players_for(game: tabletop.GameInfo) -> int:
    return max(2, game.min_players)


def short(game: tabletop.GameInfo, turns: int) -> dict[str, str]:
    """Options that keep a random match short, where the game offers a turn
    limit (read from the catalog: the tests know no game by name)."""
    return {o.name: str(max(turns, o.min)) for o in game.options if o.name == "max_turns" and o.type == "integer"}


def test_catalog_lists_games_with_their_options(client: tabletop.Client) -> None:
    games = client.games()
    assert games, "the host loaded no game: are the plugins built next to engine-host?"
    names = [g.name for g in games]
    assert names == sorted(names), "ListGames is by name"
    for game in games:
        assert 1 <= game.min_players <= game.max_players
        assert client.game(game.name).name == game.name


def test_random_bot_plays_a_complete_match_of_every_game(host: Host, organizer: tabletop.Client) -> None:
    # Seat 0 is filled at creation and its bot gets the token; the others are
    # left open and their bots join them with the seats' join codes, so both
    # ways in are exercised. All matches run at once: each bot is its own
    # process, as a user would run it.
    running = []
    for i, game in enumerate(organizer.games()):
        players = players_for(game)
        match = organizer.create_match(
            game.name, players, options=short(game, 80), seed=800 + i, open_seats=range(1, players)
        )
        assert match.created_view.state == types_pb2.MATCH_STATE_WAITING
        bots = [run_bot(host.address, match.match_id, "--token", match.tokens[0], "--seed", str(i))]
        assert sorted(match.join_codes) == list(range(1, players)), "a code per open seat"
        bots += [
            run_bot(host.address, match.match_id, "--code", match.join_codes[s], "--seed", str(i * 10 + s))
            for s in range(1, players)
        ]
        running.append((game.name, match, players, bots))

    for name, match, players, bots in running:
        for seat, bot in enumerate(bots):
            try:
                out, err = bot.communicate(timeout=BOT_DEADLINE_S)
            except subprocess.TimeoutExpired:
                bot.kill()
                out, err = bot.communicate()
                pytest.fail(f"{name}: the bot for seat {seat} did not finish in {BOT_DEADLINE_S}s:\n{out}\n{err}")
            assert bot.returncode == 0, f"{name} seat {seat}: exit {bot.returncode}\n{out}\n{err}"
            assert f"seat {seat}: match {match.match_id} finished" in out, out
        final = match.view()
        assert final.state == types_pb2.MATCH_STATE_FINISHED, f"{name}: {final}"
        ranks = tabletop.final_results(final)
        assert sorted(ranks) == list(range(players)), f"{name}: a result per seat: {final.results}"
        assert 1 in ranks.values(), f"{name}: someone is first: {final.results}"


def test_watch_receives_every_event_until_the_end(organizer: tabletop.Client) -> None:
    for i, game in enumerate(organizer.games()):
        players = players_for(game)
        match = organizer.create_match(game.name, players, options=short(game, 40), seed=900 + i)
        rng = random.Random(i)
        events: list[tabletop.WatchEvent] = []
        last_view = match.created_view
        acted: set[int] = set()  # seats that acted in the current simultaneous turn
        # Referee loop: act once per received event, so the watcher is never
        # far behind and must see every state change without a resync.
        for event in match.watch():
            events.append(event)
            view = event_view(event)
            if view is not None:
                last_view = view
                acted = {s.seat for s in view.seats if s.has_acted}
            else:
                acted.add(event.seat_acted.seat)
            if last_view.state != types_pb2.MATCH_STATE_RUNNING:
                continue
            movers = [s for s in last_view.to_move if s not in acted]
            if not movers:
                continue
            token = match.tokens[movers[0]]
            legal = organizer.legal_actions(match.match_id, token)
            if legal.actions:
                organizer.act(match.match_id, token, rng.choice(list(legal.actions)), expected_version=legal.version)

        assert events[0].WhichOneof("kind") == "snapshot", game.name
        assert events[0].version == match.created_view.version  # chance at setup counts
        version = events[0].version
        for event in events[1:]:
            kind = event.WhichOneof("kind")
            assert kind != "snapshot", f"{game.name}: a resync at {event.version} means missed events"
            if kind == "transition":
                assert event.version == version + 1, f"{game.name}: {version} then {event.version}"
                assert event.transition.view.version == event.version
                assert event.transition.event_json, "every transition is described"
            else:
                assert kind == "seat_acted" and event.version == version, f"{game.name}: {event}"
            version = event.version
        # The stream ended by itself: the match is over, and its last event
        # was the final state change.
        final = match.view()
        assert final.state == types_pb2.MATCH_STATE_FINISHED, f"{game.name}: {final}"
        assert final.version == version, f"{game.name}: the watcher saw every version up to the last"
        assert events[-1].WhichOneof("kind") == "transition"


def test_bad_requests_raise_typed_errors_with_status_reason_and_message(organizer: tabletop.Client) -> None:
    game = organizer.games()[0]
    match = organizer.create_match(game.name, players_for(game), seed=1)
    mover = match.created_view.to_move[0]
    seat = match.seat(mover)

    # Typed errors are still gRPC's: old code that catches RpcError and reads
    # code() and details() keeps working.
    with pytest.raises(grpc.RpcError) as not_a_move:
        seat.act("definitely not a move")
    assert not_a_move.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert not_a_move.value.details(), "the server says why"  # type: ignore[attr-defined]
    assert isinstance(not_a_move.value, tabletop.TabletopError)
    # The game says why, with its own code; the type says which kind.
    assert isinstance(not_a_move.value, tabletop.InvalidNotation), type(not_a_move.value)
    assert not_a_move.value.metadata["refusal"] == "INVALID_NOTATION"
    assert not_a_move.value.reason not in ("INVALID_NOTATION", "ILLEGAL_ACTION", "")

    with pytest.raises(tabletop.BadToken) as wrong_token:
        organizer.act(match.match_id, "not-a-token", 0)
    assert wrong_token.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert wrong_token.value.credential == "seat"

    with pytest.raises(tabletop.TokenRequired) as no_token:
        organizer.legal_actions(match.match_id, "")
    assert no_token.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert no_token.value.credential == "seat"

    others = [s for s in match.seats() if s.seat != mover]
    if others:
        with pytest.raises(tabletop.NotYourTurn) as not_yours:
            others[0].act(0)
        assert not_yours.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert not_yours.value.seat == others[0].seat

    with pytest.raises(tabletop.UnknownMatch) as unknown_match:
        organizer.view("no-such-match")
    assert unknown_match.value.code() == grpc.StatusCode.NOT_FOUND
    assert unknown_match.value.match_id == "no-such-match"

    with pytest.raises(tabletop.UnknownGame) as unknown:
        organizer.game("no-such-game")
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
    assert unknown.value.reason == "UNKNOWN_GAME"
    assert "no-such-game" in unknown.value.message, unknown.value.message

    # Nothing above changed the match.
    assert match.view().version == match.created_view.version


def test_a_stale_version_tells_the_current_version(organizer: tabletop.Client) -> None:
    game = organizer.games()[0]
    match = organizer.create_match(game.name, players_for(game), seed=2)
    version = match.created_view.version
    seat = match.seat(match.created_view.to_move[0])
    action = seat.legal_actions()[0]

    with pytest.raises(tabletop.StaleVersion) as stale:
        seat.act(action, expected_version=version + 7)
    assert stale.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert stale.value.reason == "STALE_VERSION"
    assert stale.value.expected_version == version + 7
    assert stale.value.current_version == version
    assert "stale version" in stale.value.message

    # A bot catches up from the error alone, without parsing its text.
    response = seat.act(action, expected_version=stale.value.current_version)
    assert response.view.version > version


def test_a_past_view_is_the_view_at_that_version(organizer: tabletop.Client) -> None:
    match = organizer.create_match("focus", 2, seed=4)
    created = match.view()
    seat = match.seat(created.to_move[0])
    seat.act(seat.legal_actions()[0])
    assert match.view().version == created.version + 1

    past = match.view(at_version=created.version)
    assert past.version == created.version
    assert past.view_json == created.view_json
    assert list(past.to_move) == list(created.to_move)
    assert seat.view(at_version=created.version).view_json == created.view_json
    with pytest.raises(tabletop.TabletopError) as beyond:
        match.view(at_version=created.version + 5)
    assert beyond.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_a_spectator_delay_keeps_spectators_behind_and_seats_live(client: tabletop.Client) -> None:
    match = client.create_match("focus", 2, spectator_delay=types_pb2.SpectatorDelay(moves=2))
    for _ in range(3):
        live = match.seat(0).view()
        seat = match.seat(live.to_move[0])
        seat.act(seat.legal_actions()[0])

    assert match.seat(0).view().version == 3
    spectator = match.view()
    assert spectator.version == 1
    assert spectator.delayed
    assert spectator.spectator_delay.moves == 2
    with pytest.raises(tabletop.TabletopError) as beyond:
        match.view(at_version=2)
    assert beyond.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(tabletop.TabletopError) as out_of_range:
        client.create_match("focus", 2, spectator_delay=types_pb2.SpectatorDelay(moves=1001))
    assert out_of_range.value.reason == "INVALID_SETUP"


def test_a_late_watcher_and_list_events_tell_every_event_of_a_finished_match(organizer: tabletop.Client) -> None:
    match = organizer.create_match("lanza", 2, seed=6, options={"max_turns": "3"})
    seats = match.seats()
    while match.view().state == types_pb2.MATCH_STATE_RUNNING:
        for seat in seats:
            if seat.legal_actions():
                seat.act(seat.legal_actions()[0])

    replayed = list(seats[0].watch(from_version=0))
    assert [e.seq for e in replayed] == list(range(1, len(replayed) + 1)), "no gap, none twice"
    kinds = {e.WhichOneof("kind") for e in replayed}
    assert kinds == {"transition", "seat_acted"}, "simultaneous orders: a seat acted, then the turn"
    assert replayed[-1].transition.view.state == types_pb2.MATCH_STATE_FINISHED

    listed = list(seats[0].events(include_views=True))
    assert listed == replayed
    page = organizer.list_events(match.match_id, seats[0].token, after_seq=2, page_size=3)
    assert list(page.events) == [
        _without_view(e) for e in replayed[2:5]
    ], "a page is the events after the cursor, views left out unless asked for"
    assert page.last_seq == replayed[-1].seq
    resumed = list(seats[0].watch(after_seq=len(replayed) - 2))
    assert resumed == replayed[-2:]


def _without_view(event: watch_pb2.WatchEvent) -> watch_pb2.WatchEvent:
    copy = watch_pb2.WatchEvent()
    copy.CopyFrom(event)
    if copy.WhichOneof("kind") == "transition":
        copy.transition.ClearField("view")
    return copy


def test_a_finished_match_refuses_with_match_over(organizer: tabletop.Client) -> None:
    game = organizer.games()[0]
    match = organizer.create_match(game.name, players_for(game), seed=3)
    seat = match.seats()[0]
    seat.resign()
    with pytest.raises(tabletop.MatchOver) as over:
        seat.resign()
    assert over.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert over.value.message == "the match is over"


def test_readme_example_plays_a_complete_match(host: Host) -> None:
    # The README's example is real code: run it against the test host.
    readme = (PYTHON_CLIENT / "README.md").read_text()
    code = readme.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) < 20, "the README promises a match in under 20 lines"
    code = code.replace("127.0.0.1:50051", host.address)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=BOT_DEADLINE_S)
    assert done.returncode == 0, done.stderr
    assert "ranks by seat: {" in done.stdout, done.stdout


# -- the tournament platform's calls ----------------------------------------


def unique(prefix: str) -> str:
    """A label value no other test (or earlier run on the same host) uses."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def take(feed: tabletop.LifecycleFeed, count: int, timeout_s: float = 30) -> list[tabletop.LifecycleEvent]:
    """The feed's next ``count`` events, or fewer if they do not come within
    ``timeout_s`` (the feed never ends by itself: a missing event must fail
    the test, not hang it)."""
    timer = threading.Timer(timeout_s, feed.cancel)
    timer.start()
    try:
        return list(itertools.islice(feed, count))
    finally:
        timer.cancel()
        feed.cancel()


def kinds(events: list[tabletop.LifecycleEvent], match_id: str) -> list[str]:
    return [str(e.WhichOneof("kind")) for e in events if e.match_id == match_id]


def test_labels_are_shown_in_views_and_listings_and_filter_them(organizer: tabletop.Client) -> None:
    tournament = unique("labels")
    first_labels = {"tournament": tournament, "round": "1", "table": "3"}
    first = organizer.create_match("focus", 2, seed=10, labels=first_labels)
    second = organizer.create_match("focus", 2, seed=11, labels={"tournament": tournament, "round": "2"})

    assert dict(first.created_view.labels) == first_labels
    assert dict(organizer.view(first.match_id).labels) == first_labels
    listed = organizer.list_matches(labels={"tournament": tournament}).matches
    assert [m.match_id for m in listed] == [first.match_id, second.match_id]
    assert dict(listed[0].labels) == first_labels
    only_round_1 = organizer.list_matches(labels={"tournament": tournament, "round": "1"}).matches
    assert [m.match_id for m in only_round_1] == [first.match_id], "every label given must match"
    assert not organizer.list_matches(labels={"tournament": tournament, "round": "3"}).matches


def test_paging_lists_every_match_exactly_once(organizer: tabletop.Client) -> None:
    batch = {"batch": unique("paging")}
    created = [organizer.create_match("focus", 2, seed=i, labels=batch) for i in range(150)]
    ids = {m.match_id for m in created}

    pages = []
    token = ""
    while True:
        page = organizer.list_matches(labels=batch, page_size=7, page_token=token)
        pages.append([m for m in page.matches])
        if not page.next_page_token:
            break
        token = page.next_page_token
    assert len(pages) == 22, [len(p) for p in pages]  # 21 full pages and 3 left over
    assert all(len(p) == 7 for p in pages[:-1]) and len(pages[-1]) == 3
    listed = [m for page in pages for m in page]
    assert len(listed) == 150 and {m.match_id for m in listed} == ids, "each match once, none missing"
    order = [(m.created_at_ms, m.match_id) for m in listed]
    assert order == sorted(order), "oldest first, then by id"

    assert [m.match_id for m in organizer.iter_matches(labels=batch, page_size=7)] == [m.match_id for m in listed]

    # Creation-time and state filters narrow the same listing.
    oldest, newest = listed[0].created_at_ms, listed[-1].created_at_ms
    assert not list(organizer.iter_matches(labels=batch, created_before_ms=oldest))
    from_newest = list(organizer.iter_matches(labels=batch, created_from_ms=newest))
    assert from_newest and all(m.created_at_ms == newest for m in from_newest)
    for match in created[:5]:
        match.seats()[0].resign()
    finished = organizer.iter_matches(labels=batch, state=types_pb2.MATCH_STATE_FINISHED, page_size=2)
    assert {m.match_id for m in finished} == {m.match_id for m in created[:5]}

    with pytest.raises(tabletop.InvalidPageToken) as bad_token:
        organizer.list_matches(labels=batch, page_token="not-a-token-the-server-issued")
    assert bad_token.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_a_retried_create_match_returns_the_same_match_and_tokens(organizer: tabletop.Client) -> None:
    labels = {"table": unique("retry")}
    request_id = unique("request")
    first = organizer.create_match("focus", 2, seed=21, labels=labels, request_id=request_id)
    retried = organizer.create_match("focus", 2, seed=21, labels=labels, request_id=request_id)
    assert retried.match_id == first.match_id
    assert retried.tokens == first.tokens and len(first.tokens) == 2

    with pytest.raises(tabletop.RequestIdReused) as reused:
        organizer.create_match("focus", 2, seed=22, labels=labels, request_id=request_id)
    assert reused.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert reused.value.request_id == request_id
    assert reused.value.match_id == first.match_id
    assert [m.match_id for m in organizer.iter_matches(labels=labels)] == [first.match_id], "no second match"


def test_the_lifecycle_feed_tells_each_match_s_life_and_resumes_after_a_cursor(director: tabletop.Client) -> None:
    labels = {"tournament": unique("feed")}
    feed = director.follow_lifecycle(labels=labels)
    with ThreadPoolExecutor(1) as pool:
        # Followed live, while the matches below are played.
        following = pool.submit(take, feed, 9)

        played = director.create_match("focus", 2, seed=31, labels=labels)
        mover = played.created_view.to_move[0]
        played.seat(mover).act(played.seat(mover).legal_actions()[0])
        played.seat(mover).resign()

        aborted = director.create_match("focus", 2, labels=labels, open_seats=[1])
        director.abort_match(aborted.match_id, "table 2 withdrew")

        adjudicated = director.create_match("focus", 2, seed=33, labels=labels)
        view = director.adjudicate_match(adjudicated.match_id, {0: 2, 1: 1}, scores={1: 3.5})
        assert view.state == types_pb2.MATCH_STATE_FINISHED and view.adjudicated

        # Not in the filtered feed: another tournament's match.
        other = director.create_match("focus", 2, labels={"tournament": unique("other")})
        director.abort_match(other.match_id)

        events = following.result(timeout=60)

    assert len(events) == 9, [(e.match_id, e.WhichOneof("kind")) for e in events]
    assert all(dict(e.labels) == labels and e.game == "focus" for e in events)
    assert other.match_id not in {e.match_id for e in events}
    cursors = [e.cursor for e in events]
    assert cursors == sorted(set(cursors)), "cursors only grow"

    assert kinds(events, played.match_id) == ["created", "started", "seat_out", "finished"]
    out, finished = [e for e in events if e.match_id == played.match_id][2:]
    assert out.seat_out.seat == mover and out.seat_out.reason == tabletop.OUT_REASON_RESIGNED
    assert {r.seat: r.rank for r in finished.finished.results} == {mover: 2, 1 - mover: 1}
    assert not finished.finished.adjudicated

    assert kinds(events, aborted.match_id) == ["created", "aborted"]
    assert events[[e.match_id for e in events].index(aborted.match_id) + 1].aborted.reason == "table 2 withdrew"

    assert kinds(events, adjudicated.match_id) == ["created", "started", "finished"]
    decided = [e for e in events if e.match_id == adjudicated.match_id][-1].finished
    assert decided.adjudicated
    assert [(r.seat, r.rank, r.score) for r in decided.results] == [(0, 2, 0.0), (1, 1, 3.5)]

    # A follower that resumes after a cursor gets exactly the later events,
    # and nothing more comes after the last.
    resumed = take(director.follow_lifecycle(after_cursor=events[3].cursor, labels=labels), 5)
    assert resumed == events[4:]
    assert take(director.follow_lifecycle(after_cursor=events[-1].cursor, labels=labels), 1, timeout_s=1) == []


def test_a_paused_match_refuses_actions_until_it_resumes(director: tabletop.Client) -> None:
    labels = {"table": unique("pause")}
    match = director.create_match("focus", 2, seed=41, labels=labels)
    seat = match.seat(match.created_view.to_move[0])
    action = seat.legal_actions()[0]

    paused = director.pause_match(match.match_id)
    assert paused.paused
    with pytest.raises(tabletop.MatchPaused) as refused:
        seat.act(action)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(tabletop.ControlRefused):
        director.pause_match(match.match_id)  # already paused

    assert match.view().version == paused.version, "the refused action changed nothing"

    resumed = director.resume_match(match.match_id)
    assert not resumed.paused
    assert seat.act(action).view.version == resumed.version + 1
    with pytest.raises(tabletop.ControlRefused):
        director.resume_match(match.match_id)  # not paused

    feed = director.follow_lifecycle(labels=labels)
    assert [e.WhichOneof("kind") for e in take(feed, 4)] == ["created", "started", "paused", "resumed"]


def test_add_time_adds_to_the_seat_s_clock(director: tabletop.Client) -> None:
    clock = tabletop.TimeControl(bank_ms=600_000)
    match = director.create_match("focus", 2, seed=51, time_control=clock)
    # The seat not to move: its clock stands still, so the sum is exact.
    waiting = 1 - match.created_view.to_move[0]
    before = match.view().seats[waiting].clock_remaining_ms
    after = director.add_time(match.match_id, waiting, 5_000).seats[waiting].clock_remaining_ms
    assert after == before + 5_000
    assert match.view().seats[waiting].clock_remaining_ms == after

    unclocked = director.create_match("focus", 2, seed=52)
    with pytest.raises(tabletop.ControlRefused):
        director.add_time(unclocked.match_id, 0, 5_000)


def test_lifting_a_quarantine_is_refused_for_a_match_not_quarantined(
    client: tabletop.Client, director: tabletop.Client
) -> None:
    # Only a plugin's fault quarantines a match; the admin lifts it.
    match = director.create_match("focus", 2, seed=57)
    assert match.view().state == tabletop.MATCH_STATE_RUNNING
    assert match.view().quarantine_reason == ""
    with pytest.raises(tabletop.ControlRefused) as refused:
        director.lift_quarantine(match.match_id)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(tabletop.UnknownGame) as unknown:
        director.lift_quarantine(match.match_id, plugin_version="9.9.9")
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(tabletop.TokenRequired) as anonymous:
        client.lift_quarantine(match.match_id)
    assert anonymous.value.credential == "admin"
    assert not director.list_matches(state=tabletop.MATCH_STATE_QUARANTINED).matches


def test_director_calls_need_a_credential(client: tabletop.Client, director: tabletop.Client) -> None:
    match = director.create_match("focus", 2, seed=61)
    with pytest.raises(tabletop.TokenRequired) as missing:
        client.pause_match(match.match_id)
    assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert missing.value.credential == "organizer", "an organizer credential is the least that will do"
    with pytest.raises(tabletop.BadToken) as wrong:
        client.abort_match(match.match_id, admin_token="not-the-token")
    assert wrong.value.credential == "bearer"
    with pytest.raises(tabletop.BadToken):
        next(client.follow_lifecycle(admin_token="not-the-token"))
    # A call's own token overrides the client's.
    assert client.pause_match(match.match_id, admin_token=ADMIN_TOKEN).paused
    assert match.view().paused


def test_the_tournament_example_reports_every_table_once_and_resumes(
    host: Host, director: tabletop.Client, organizer_secret: str, tmp_path: Path
) -> None:
    tournament = unique("example")
    state = tmp_path / "state.json"
    # The example runs as a platform would: with an organizer credential.
    command = [
        sys.executable, str(TOURNAMENT_EXAMPLE),
        "--server", host.address, "--credential", organizer_secret,
        "--tournament", tournament, "--state", str(state),
    ]
    first = subprocess.run(command, capture_output=True, text=True, timeout=BOT_DEADLINE_S)
    assert first.returncode == 0, first.stderr

    reports = re.findall(r"^table (\d): (.*)$", first.stdout, re.MULTILINE)
    assert sorted(table for table, _ in reports) == ["1", "2", "3", "4"], first.stdout
    by_table = dict(reports)
    assert by_table["4"] == "aborted: hal did not show up"
    for table, (a, b) in zip("123", [("ana", "ben"), ("cho", "dev"), ("eli", "fay")]):
        assert re.fullmatch(rf"{a} rank [12], {b} rank [12]", by_table[table]), by_table[table]
    standings = first.stdout.split("standings:\n", 1)[1].splitlines()
    assert len(standings) == 8
    assert sum(float(line.split()[-1]) for line in standings) == 3, "a point for each finished table"

    # The server agrees: four matches, three finished with results, one aborted.
    matches = list(director.iter_matches(labels={"tournament": tournament}))
    assert len(matches) == 4 and all(m.state == types_pb2.MATCH_STATE_FINISHED for m in matches)
    views = {m.labels["table"]: director.view(m.match_id) for m in matches}
    assert views["4"].abort_reason == "hal did not show up" and not views["4"].results
    assert all(len(views[t].results) == 2 for t in "123")
    assert [(s.display_name, s.external_id) for s in views["1"].seats] == [("ana", "player/ana"), ("ben", "player/ben")]
    assert {r.display_name for r in views["2"].results} == {"cho", "dev"}
    assert [s.display_name for s in views["4"].seats] == ["gus", ""], "hal's seat stayed open"
    saved = json.loads(state.read_text())
    assert saved["cursor"] > 0 and len(saved["results"]) == 4

    # Run again: the request ids give back the same matches, every result
    # is already recorded, so nothing is reported twice and the standings stand.
    again = subprocess.run(command, capture_output=True, text=True, timeout=BOT_DEADLINE_S)
    assert again.returncode == 0, again.stderr
    assert "table " not in again.stdout, again.stdout
    assert again.stdout.split("standings:\n", 1)[1].splitlines() == standings
    assert len(list(director.iter_matches(labels={"tournament": tournament}))) == 4

    # As if it had crashed after recording two results: the state as it was
    # saved then (the results up to a cursor, and that cursor). Resumed from
    # there, it reports the other two tables only, and the same standings.
    feed = director.follow_lifecycle(labels={"tournament": tournament})
    ends = [e for e in take(feed, 30, timeout_s=3) if e.WhichOneof("kind") in ("finished", "aborted")]
    assert len(ends) == 4
    cursor = ends[1].cursor
    kept = {e.match_id: saved["results"][e.match_id] for e in ends[:2]}
    state.write_text(json.dumps({"cursor": cursor, "results": kept}))
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=BOT_DEADLINE_S)
    assert resumed.returncode == 0, resumed.stderr
    later_tables = sorted(str(saved["results"][e.match_id]["table"]) for e in ends[2:])
    assert sorted(re.findall(r"^table (\d):", resumed.stdout, re.MULTILINE)) == later_tables, resumed.stdout
    assert resumed.stdout.split("standings:\n", 1)[1].splitlines() == standings
    assert json.loads(state.read_text())["results"] == saved["results"]


# -- credentials, join codes and seat identities ------------------------------


def test_an_organizer_credential_chooses_seeds_and_directs_but_does_not_administer(
    host: Host, client: tabletop.Client, director: tabletop.Client
) -> None:
    issued = director.issue_credential("spring platform")
    assert issued.secret and issued.credential.credential_id
    assert issued.credential.name == "spring platform"
    assert issued.credential.role == admin_pb2.CREDENTIAL_ROLE_ORGANIZER
    listed = {c.credential_id: c for c in director.list_credentials()}
    assert issued.credential.credential_id in listed
    assert not listed[issued.credential.credential_id].HasField("revoked_at_ms")
    assert all(issued.secret not in str(c) for c in listed.values()), "a listing never shows a secret"

    # Anonymous: no seed of one's own (it would let a player replay the chance).
    with pytest.raises(tabletop.NotPermitted) as anonymous_seed:
        client.create_match("focus", 2, seed=71)
    assert anonymous_seed.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert anonymous_seed.value.credential == "organizer"

    with tabletop.connect(host.address, credential=issued.secret) as organizer:
        match = organizer.create_match("focus", 2, seed=71)
        assert organizer.pause_match(match.match_id).paused
        assert not organizer.resume_match(match.match_id).paused
        assert match.match_id in organizer.export_record(match.match_id), "a running match's record"
        # The raw stubs carry the credential too.
        raw = organizer.matches.CreateMatch(
            matches_pb2.CreateMatchRequest(game="focus", players=2, seed=72)
        )
        assert raw.match_id

        with pytest.raises(tabletop.NotPermitted) as plugins:
            organizer.list_plugins()
        assert plugins.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert plugins.value.credential == "admin"
        with pytest.raises(tabletop.NotPermitted):
            organizer.issue_credential("a second platform")
    assert director.list_plugins(), "the admin token may list the plugins"
    with pytest.raises(tabletop.TokenRequired) as anonymous_admin:
        client.list_plugins()
    assert anonymous_admin.value.credential == "admin"


def test_an_organizer_runs_only_its_own_tenants_matches(host: Host, director: tabletop.Client) -> None:
    own = director.issue_credential("own tenant")
    assert own.credential.tenant == own.credential.credential_id, "without a tenant, its own"
    spring = director.issue_credential("spring desk", tenant="spring")
    assert spring.credential.tenant == "spring"
    with pytest.raises(tabletop.TabletopError) as bad_tenant:
        director.issue_credential("bad tenant", tenant="Not A Name")
    assert bad_tenant.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    colleague = director.issue_credential("spring desk 2", tenant="spring")
    with tabletop.connect(host.address, credential=spring.secret) as a, tabletop.connect(
        host.address, credential=own.secret
    ) as b, tabletop.connect(host.address, credential=colleague.secret) as c:
        match = a.create_match("focus", 2, seed=5)
        with pytest.raises(tabletop.NotPermitted) as other_tenant:
            b.pause_match(match.match_id)
        assert other_tenant.value.credential == "admin"
        with pytest.raises(tabletop.NotPermitted):
            b.export_record(match.match_id)
        assert c.pause_match(match.match_id).paused, "a colleague in the same tenant directs it"


def test_a_revoked_credential_is_refused(host: Host, director: tabletop.Client) -> None:
    issued = director.issue_credential("revoked platform")
    with tabletop.connect(host.address, credential=issued.secret) as organizer:
        match = organizer.create_match("focus", 2, seed=81)
        revoked = director.revoke_credential(issued.credential.credential_id)
        assert revoked.credential_id == issued.credential.credential_id and revoked.HasField("revoked_at_ms")
        listed = {c.credential_id: c for c in director.list_credentials()}
        assert listed[revoked.credential_id].revoked_at_ms == revoked.revoked_at_ms

        with pytest.raises(tabletop.BadToken) as refused:
            organizer.pause_match(match.match_id)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert refused.value.credential == "bearer"
        # Refused, not taken for anonymous: even a call anyone may make.
        with pytest.raises(tabletop.BadToken):
            organizer.create_match("focus", 2)
    assert not director.view(match.match_id).paused


def next_within(stream: Iterator[T], stop: Callable[[], None], what: str, within_s: float = PATIENCE_S) -> T:
    """The stream's next message; fails the test if none comes within
    ``within_s`` (``stop`` then ends the stream, so the test never hangs)."""
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(next, stream)
        try:
            return waiting.result(timeout=within_s)
        except FutureTimeout:
            stop()
            pytest.fail(f"{what}: nothing within {within_s}s")
        except StopIteration:
            pytest.fail(f"{what}: the stream ended")


def refusal_ending(
    stream: Iterator[object], stop: Callable[[], None], what: str, within_s: float = WITHDRAWN_WITHIN_S
) -> tabletop.TabletopError:
    """The typed error the stream ends with within ``within_s``; messages
    already on their way are skipped. Fails the test if the stream ends
    without an error or is still open then (``stop`` then ends it)."""

    def drain() -> None:
        for _ in stream:
            pass

    with ThreadPoolExecutor(1) as pool:
        ending = pool.submit(drain)
        try:
            ending.result(timeout=within_s)
        except tabletop.TabletopError as err:
            return err
        except FutureTimeout:
            stop()
            pytest.fail(f"{what}: still open {within_s}s after")
    pytest.fail(f"{what}: the stream ended without saying why")


def test_revoking_a_credential_ends_the_lifecycle_feed_it_opened_with_bad_token(
    host: Host, director: tabletop.Client
) -> None:
    issued = director.issue_credential("revoked follower")
    labels = {"table": unique("revoked-feed")}
    with tabletop.connect(host.address, credential=issued.secret) as organizer:
        match = organizer.create_match("focus", 2, seed=82, labels=labels)
        feed = organizer.follow_lifecycle(labels=labels)
        try:
            # The feed delivers while the credential holds.
            created = next_within(feed, feed.cancel, "the feed before the revocation")
            assert (created.match_id, created.WhichOneof("kind")) == (match.match_id, "created")

            director.revoke_credential(issued.credential.credential_id)
            ended = refusal_ending(feed, feed.cancel, "the feed after the revocation")
        finally:
            feed.cancel()
        assert isinstance(ended, tabletop.BadToken), repr(ended)
        assert ended.code() == grpc.StatusCode.PERMISSION_DENIED
        assert ended.reason == "BAD_TOKEN"
        assert ended.credential == "bearer"

        # The same refusal a new feed with the credential gets.
        with pytest.raises(tabletop.BadToken) as refollowed:
            next(organizer.follow_lifecycle(labels=labels))
        assert (refollowed.value.code(), refollowed.value.reason, refollowed.value.credential) == (
            ended.code(),
            ended.reason,
            ended.credential,
        )


def test_credential_and_admin_token_are_one_setting(host: Host) -> None:
    with tabletop.connect(host.address, admin_token=ADMIN_TOKEN) as old_style:
        assert old_style.credential == ADMIN_TOKEN
        assert old_style.list_plugins()
    with pytest.raises(ValueError):
        tabletop.connect(host.address, credential="one", admin_token="another")


def test_an_invite_only_seat_needs_its_code_once(client: tabletop.Client, organizer: tabletop.Client) -> None:
    match = organizer.create_match("focus", 2, open_seats=[1])
    assert list(match.tokens) == [0] and list(match.join_codes) == [1]
    code = match.join_codes[1]

    with pytest.raises(tabletop.TokenRequired) as no_code:
        client.join(match.match_id)
    assert no_code.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert no_code.value.credential == "join_code"
    with pytest.raises(tabletop.TokenRequired):
        client.join(match.match_id, 1)
    with pytest.raises(tabletop.BadToken) as wrong:
        client.join(match.match_id, code="not-the-code")
    assert wrong.value.credential == "join_code"
    assert client.view(match.match_id).state == types_pb2.MATCH_STATE_WAITING

    joined = client.join(match.match_id, code=code)
    assert joined.seat == 1
    assert joined.view().state == types_pb2.MATCH_STATE_RUNNING
    with pytest.raises(tabletop.BadToken):
        client.join(match.match_id, code=code)  # a code admits once

    public = organizer.create_match("focus", 2, open_seats=[1], public_open_seats=True)
    assert public.join_codes == {}
    assert client.join(public.match_id).seat == 1, "a public seat needs no code"

    # An organizer seats a player without the code.
    seated = organizer.create_match("focus", 2, open_seats=[0])
    assert organizer.join(seated.match_id, 0).seat == 0


def test_seat_identities_show_in_views_the_feed_and_results(
    client: tabletop.Client, organizer: tabletop.Client
) -> None:
    labels = {"table": unique("names")}
    match = organizer.create_match(
        "focus", 2, open_seats=[1], labels=labels, seat_players={0: tabletop.Player("Ada", "p-17")}
    )
    joined = client.join(match.match_id, code=match.join_codes[1], name="Bo", external_id="p-42")
    expected = [(0, "Ada", "p-17"), (1, "Bo", "p-42")]
    assert [(s.seat, s.display_name, s.external_id) for s in joined.view().seats] == expected
    assert [(s.seat, s.display_name, s.external_id) for s in client.view(match.match_id).seats] == expected

    joined.resign()
    final = match.view()
    assert final.state == types_pb2.MATCH_STATE_FINISHED
    assert sorted((r.seat, r.display_name, r.external_id, r.rank) for r in final.results) == [
        (0, "Ada", "p-17", 1),
        (1, "Bo", "p-42", 2),
    ]

    events = take(organizer.follow_lifecycle(labels=labels), 5)
    assert [e.WhichOneof("kind") for e in events] == ["created", "seat_filled", "started", "seat_out", "finished"]
    created, filled = events[0].created, events[1].seat_filled
    assert [(p.seat, p.display_name, p.external_id) for p in created.seat_players] == [(0, "Ada", "p-17")]
    assert (filled.seat, filled.player.display_name, filled.player.external_id) == (1, "Bo", "p-42")
    assert {r.display_name for r in events[-1].finished.results} == {"Ada", "Bo"}

    record = json.loads(organizer.export_record(match.match_id))
    assert "Ada" in json.dumps(record) and "p-42" in json.dumps(record), "the record keeps who played"


def test_a_reissued_seat_token_replaces_the_old_one(client: tabletop.Client, organizer: tabletop.Client) -> None:
    match = organizer.create_match("focus", 2, seed=91)
    lost = match.seat(match.created_view.to_move[0])
    with pytest.raises(tabletop.TokenRequired) as anonymous:
        client.reissue_seat_token(match.match_id, lost.seat)
    assert anonymous.value.credential == "organizer"

    found = organizer.reissue_seat_token(match.match_id, lost.seat)
    assert found.seat == lost.seat and found.token and found.token != lost.token
    with pytest.raises(tabletop.BadToken) as old:
        lost.legal_actions()
    assert old.value.credential == "seat"
    response = found.act(found.legal_actions()[0])
    assert response.view.version == match.created_view.version + 1


def test_reissuing_a_seat_token_ends_the_watch_it_opened_with_bad_token(host: Host, organizer: tabletop.Client) -> None:
    match = organizer.create_match("focus", 2, seed=92)
    lost_seat = match.created_view.to_move[0]
    old_token = match.tokens[lost_seat]
    # The player's own connection: closing it is what ends a watch that
    # wrongly stays open.
    with tabletop.connect(host.address) as player:
        watch = player.watch(match.match_id, old_token)
        snapshot = next_within(watch, player.close, "the watch before the re-issue")
        assert snapshot.WhichOneof("kind") == "snapshot"

        found = organizer.reissue_seat_token(match.match_id, lost_seat)
        ended = refusal_ending(watch, player.close, "the watch with the old token")
        assert isinstance(ended, tabletop.BadToken), repr(ended)
        assert ended.code() == grpc.StatusCode.PERMISSION_DENIED
        assert ended.reason == "BAD_TOKEN"
        assert ended.credential == "seat"
        with pytest.raises(tabletop.BadToken) as rewatched:
            next(iter(player.watch(match.match_id, old_token)))
        assert (rewatched.value.code(), rewatched.value.reason, rewatched.value.credential) == (
            ended.code(),
            ended.reason,
            ended.credential,
        )

        # The new token watches and plays on where the old one stopped.
        renewed = player.watch(match.match_id, found.token)
        snapshot = next_within(renewed, player.close, "the watch with the new token")
        assert snapshot.WhichOneof("kind") == "snapshot" and snapshot.version == match.created_view.version
        player.act(match.match_id, found.token, player.legal_actions(match.match_id, found.token).actions[0])
        moved = next_within(renewed, player.close, "the move, to the new token's watch")
        assert moved.WhichOneof("kind") == "transition" and moved.version == match.created_view.version + 1


def test_the_random_bot_plays_in_the_cli_arena_as_an_external_bot(tmp_path: Path) -> None:
    from conftest import RANDOM_BOT, engine_host_binary

    cli = engine_host_binary().with_name("tabletop")
    records = tmp_path / "records.jsonl"
    arena = subprocess.run(
        [str(cli), "arena", "--game", "war", "--players", "2", "--bots", "random",
         "--external", f"py={sys.executable} {RANDOM_BOT}", "--matches", "2",
         "-o", "max_turns=20", "--out", str(records)],
        capture_output=True, text=True, timeout=300,
    )
    assert arena.returncode == 0, arena.stderr
    assert re.search(r"random vs py\s+2\s", arena.stdout), arena.stdout
    played = [json.loads(line) for line in records.read_text().splitlines()]
    # Seats rotate: the Python bot sits in seat 1, then seat 0; each match finished.
    assert [m["seats"] for m in played] == [["random", "py"], ["py", "random"]]
    for match in played:
        assert match["record"]["state"] == "finished", match["record"]["state"]
        assert any(a["moves"][0]["seat"] == match["seats"].index("py")
                   for a in match["record"]["actions"] if a.get("moves")), "the Python bot moved"


def test_a_watcher_too_slow_for_its_stream_is_cut_and_resumed_with_every_event_once(
    tmp_path: Path,
) -> None:
    # A host that cuts a stream whose client leaves 1 KiB unread for 200 ms.
    slow_host = Host(
        tmp_path,
        ["--store", "memory", "--stream-buffer-bytes", "1024", "--stream-patience-ms", "200", "--metrics-listen", "127.0.0.1:0"],
    )
    try:
        with tabletop.connect(slow_host.address, admin_token=ADMIN_TOKEN) as client:
            match = client.create_match("war", 2, seed=11, bots={0: "random", 1: "random"})
            while match.view().state != types_pb2.MATCH_STATE_FINISHED:
                time.sleep(0.05)
            everything = [e.seq for e in client.watch(match.match_id, from_version=0)]
            assert len(everything) > 100, "enough events, with their views, to fill the windows"

            seen = []
            for event in client.watch(match.match_id, from_version=0):
                seen.append(event.seq)
                if len(seen) <= 2:
                    time.sleep(1.5)  # reads nothing: the queue stays full
            assert seen == everything, "every event once, across the cuts"
            assert slow_host.metrics()["tabletop_streams_cut_total"] >= 1, "the server cut the stream"
    finally:
        slow_host.stop()
