"""The Python client against the real engine-host and the real plugins: the
catalog, complete matches played by the example bot, watch streams, typed
errors, and the README's example."""

from __future__ import annotations

import random
import subprocess
import sys

import grpc
import pytest

import tabletop
from tabletop import event_view
from tabletop.v1 import types_pb2, watch_pb2

from conftest import PYTHON_CLIENT, Host, run_bot

BOT_DEADLINE_S = 150


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


def test_random_bot_plays_a_complete_match_of_every_game(host: Host, client: tabletop.Client) -> None:
    # Seat 0 is filled at creation and its bot gets the token; the others are
    # left open and their bots join them, so both ways in are exercised. All
    # matches run at once: each bot is its own process, as a user would run it.
    running = []
    for i, game in enumerate(client.games()):
        players = players_for(game)
        match = client.create_match(
            game.name, players, options=short(game, 80), seed=800 + i, open_seats=range(1, players)
        )
        assert match.created_view.state == types_pb2.MATCH_STATE_WAITING
        bots = [run_bot(host.address, match.match_id, "--token", match.tokens[0], "--seed", str(i))]
        bots += [run_bot(host.address, match.match_id, "--seat", str(s), "--seed", str(i * 10 + s)) for s in range(1, players)]
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


def test_watch_receives_every_event_until_the_end(client: tabletop.Client) -> None:
    for i, game in enumerate(client.games()):
        players = players_for(game)
        match = client.create_match(game.name, players, options=short(game, 40), seed=900 + i)
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
            legal = client.legal_actions(match.match_id, token)
            if legal.actions:
                client.act(match.match_id, token, rng.choice(list(legal.actions)), expected_version=legal.version)

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


def test_bad_requests_raise_typed_errors_with_status_reason_and_message(client: tabletop.Client) -> None:
    game = client.games()[0]
    match = client.create_match(game.name, players_for(game), seed=1)
    mover = match.created_view.to_move[0]
    seat = match.seat(mover)

    # Typed errors are still gRPC's: old code that catches RpcError and reads
    # code() and details() keeps working.
    with pytest.raises(grpc.RpcError) as not_a_move:
        seat.act("definitely not a move")
    assert not_a_move.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert not_a_move.value.details(), "the server says why"  # type: ignore[attr-defined]
    assert isinstance(not_a_move.value, tabletop.TabletopError)
    assert not_a_move.value.reason in ("INVALID_NOTATION", "ILLEGAL_ACTION"), not_a_move.value.reason

    with pytest.raises(tabletop.BadToken) as wrong_token:
        client.act(match.match_id, "not-a-token", 0)
    assert wrong_token.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert wrong_token.value.credential == "seat"

    with pytest.raises(tabletop.TokenRequired) as no_token:
        client.legal_actions(match.match_id, "")
    assert no_token.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert no_token.value.credential == "seat"

    others = [s for s in match.seats() if s.seat != mover]
    if others:
        with pytest.raises(tabletop.NotYourTurn) as not_yours:
            others[0].act(0)
        assert not_yours.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert not_yours.value.seat == others[0].seat

    with pytest.raises(tabletop.UnknownMatch) as unknown_match:
        client.view("no-such-match")
    assert unknown_match.value.code() == grpc.StatusCode.NOT_FOUND
    assert unknown_match.value.match_id == "no-such-match"

    with pytest.raises(tabletop.UnknownGame) as unknown:
        client.game("no-such-game")
    assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
    assert unknown.value.reason == "UNKNOWN_GAME"
    assert "no-such-game" in unknown.value.message, unknown.value.message

    # Nothing above changed the match.
    assert match.view().version == match.created_view.version


def test_a_stale_version_tells_the_current_version(client: tabletop.Client) -> None:
    game = client.games()[0]
    match = client.create_match(game.name, players_for(game), seed=2)
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


def test_a_past_view_is_the_view_at_that_version(client: tabletop.Client) -> None:
    match = client.create_match("focus", 2, seed=4)
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


def test_a_late_watcher_and_list_events_tell_every_event_of_a_finished_match(client: tabletop.Client) -> None:
    match = client.create_match("lanza", 2, seed=6, options={"max_turns": "3"})
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
    page = client.list_events(match.match_id, seats[0].token, after_seq=2, page_size=3)
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


def test_a_finished_match_refuses_with_match_over(client: tabletop.Client) -> None:
    game = client.games()[0]
    match = client.create_match(game.name, players_for(game), seed=3)
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
