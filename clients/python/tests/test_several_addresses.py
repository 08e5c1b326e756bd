"""The client given several server addresses, against the real engine-host:
an address where nothing listens is passed over, and a host killed in the
middle of a match is replaced by the next address — a move made during the
outage and a watch open across it go on there, the move applied once."""

from __future__ import annotations

import queue
import socket
import threading
import time
from pathlib import Path

import pytest

import tabletop
from tabletop import event_view
from tabletop.v1 import watch_pb2

from conftest import Host


def free_address() -> str:
    """``127.0.0.1:PORT`` where nothing listens (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def play_one_move(client: tabletop.Client) -> None:
    match = client.create_match("focus", 2)
    seat = match.seat(0)
    version = seat.view().version
    seat.act(seat.legal_actions()[0], expected_version=version)
    assert match.view().version == version + 1


def test_a_dead_first_address_is_passed_over_when_connecting(host: Host) -> None:
    with tabletop.connect([free_address(), host.address]) as client:
        play_one_move(client)


def test_a_call_to_a_dead_address_moves_to_the_next(host: Host) -> None:
    # No wait for a ready channel: the first call goes to the dead address,
    # which refuses the connection, and is made again on the next one —
    # also a creation without a request id, since it never left.
    started = time.monotonic()
    with tabletop.connect(f"{free_address()}, {host.address}", timeout=None) as client:
        play_one_move(client)
    assert time.monotonic() - started < 10


def test_one_dead_address_fails_without_retrying() -> None:
    with tabletop.connect(free_address(), timeout=None) as client:
        started = time.monotonic()
        with pytest.raises(tabletop.TabletopError) as refused:
            client.games()
        assert time.monotonic() - started < 5
    assert refused.value.code().name == "UNAVAILABLE"


def test_a_killed_host_is_replaced_by_the_next_address_for_a_move_and_a_watch(tmp_path: Path) -> None:
    first = Host(tmp_path)
    second_address = free_address()
    second: "Host | None" = None
    try:
        with tabletop.connect([first.address, second_address]) as client:
            match = client.create_match("focus", 2)
            seat = match.seat(0)
            action = seat.legal_actions()[0]
            watched: "queue.Queue[watch_pb2.WatchEvent | BaseException]" = queue.Queue()

            def watch() -> None:
                try:
                    for event in match.watch():
                        watched.put(event)
                except BaseException as err:  # noqa: BLE001 — handed to the test
                    watched.put(err)

            threading.Thread(target=watch, daemon=True).start()
            snapshot = watched.get(timeout=10)
            assert not isinstance(snapshot, BaseException), snapshot
            assert snapshot.WhichOneof("kind") == "snapshot"

            first.kill()

            def start_second() -> None:
                nonlocal second
                time.sleep(1.5)
                # The same store, as another host of the same database would
                # serve it, on the next address of the list.
                second = Host(tmp_path, listen=second_address)

            starter = threading.Thread(target=start_second)
            starter.start()
            # Made while no host serves the match: it goes round the
            # addresses until the second host answers.
            answer = seat.act(action, expected_version=0)
            starter.join()
            assert answer.view.version == 1
            assert match.view().version == 1, "applied once"

            event = watched.get(timeout=20)
            assert not isinstance(event, BaseException), f"the watch ended: {event!r}"
            assert event.WhichOneof("kind") == "transition"
            assert event.version == 1
            view = event_view(event)
            assert view is not None and view.version == 1
    finally:
        first.stop()
        if second is not None:
            second.stop()
