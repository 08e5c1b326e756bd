#!/usr/bin/env python3
"""One round of a tournament, run the way a tournament platform runs it.

    tournament.py --server HOST:PORT --credential SECRET [--state FILE]

The credential is an organizer credential the server's admin issued (the
admin token works too). It creates the round's matches, labelled with
tournament, round and table and with each seat's player named, each under a
request_id: running the program again (after a crash, say) gets the same
matches and seat tokens back instead of creating new ones. Random players
play the seats with their tokens. One player does not show up (their seat was
left open for them to join with its code), so the director aborts that table. The platform follows the lifecycle feed of the
tournament and records each result together with the feed's cursor in one
state file: a platform restarted at any point resumes after the last event it
recorded, and counts no result twice. At the end it prints the standings.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import threading
from pathlib import Path
from typing import Any

import tabletop

GAME, OPTIONS = "lanza", {"max_turns": "20"}
PAIRINGS = [("ana", "ben"), ("cho", "dev"), ("eli", "fay"), ("gus", "hal")]
ABSENT = "hal"


def play_randomly(seat: tabletop.Seat, rng: random.Random) -> None:
    """Plays random legal actions whenever the seat is to move, until the match ends."""
    for event in seat.watch():
        view = tabletop.event_view(event)
        if view is None or view.state != tabletop.MATCH_STATE_RUNNING:
            continue
        if seat.seat not in view.to_move or view.HasField("pending_action"):
            continue
        actions = seat.legal_actions()
        if not actions:
            continue  # the view is already stale: the next event says where the match is
        try:
            seat.act(rng.choice(actions), expected_version=view.version)
        except (tabletop.StaleVersion, tabletop.NotYourTurn, tabletop.AlreadyActed, tabletop.MatchOver):
            pass  # the match moved on meanwhile: likewise


def save(path: Path, state: dict[str, Any]) -> None:
    """Writes the state whole or not at all, so a crash never leaves half of it."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1))
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=os.environ.get("TABLETOP_SERVER", "127.0.0.1:50051"))
    parser.add_argument(
        "--credential",
        "--admin-token",
        dest="credential",
        default=os.environ.get("TABLETOP_CREDENTIAL", ""),
        help="an organizer credential or the admin token (default: $TABLETOP_CREDENTIAL)",
    )
    parser.add_argument("--tournament", default="spring-open")
    parser.add_argument("--round", type=int, default=1)
    parser.add_argument("--state", type=Path, default=Path("tournament-state.json"))
    args = parser.parse_args()
    state: dict[str, Any] = {"cursor": 0, "results": {}}
    if args.state.exists():
        state = json.loads(args.state.read_text())
    tournament = {"tournament": args.tournament}

    with tabletop.connect(args.server, credential=args.credential) as client:
        tables: dict[str, int] = {}
        for table, players in enumerate(PAIRINGS, start=1):
            match = client.create_match(
                GAME,
                2,
                options=OPTIONS,
                labels={**tournament, "round": str(args.round), "table": str(table)},
                request_id=f"{args.tournament}/round-{args.round}/table-{table}",
                seat_players={
                    seat: tabletop.Player(name, f"player/{name}") for seat, name in enumerate(players) if name != ABSENT
                },
                # The absent player was to join this seat with its join code
                # (match.join_codes), saying who they are then.
                open_seats=[seat for seat, name in enumerate(players) if name == ABSENT],
            )
            tables[match.match_id] = table
            for seat in match.seats():
                threading.Thread(target=play_randomly, args=(seat, random.Random()), daemon=True).start()
            if ABSENT in players:
                try:
                    client.abort_match(match.match_id, f"{ABSENT} did not show up")
                except tabletop.MatchOver:
                    pass  # aborted on an earlier run

        def round_over() -> bool:
            return all(match_id in state["results"] for match_id in tables)

        if not round_over():
            with client.follow_lifecycle(after_cursor=state["cursor"], labels=tournament) as feed:
                for event in feed:
                    kind = event.WhichOneof("kind")
                    if event.match_id in tables and kind in ("finished", "aborted"):
                        table = tables[event.match_id]
                        if kind == "aborted":
                            result: dict[str, Any] = {"table": table, "aborted": event.aborted.reason}
                            print(f"table {table}: aborted: {event.aborted.reason}")
                        else:
                            # The results carry each seat's player, as named at creation.
                            ranks = {r.display_name: r.rank for r in event.finished.results}
                            result = {"table": table, "ranks": ranks}
                            print(f"table {table}: " + ", ".join(f"{n} rank {r}" for n, r in ranks.items()))
                        state["results"][event.match_id] = result
                    # Saved in one write with the result: a platform restarted
                    # now resumes after this event, and counts it once.
                    state["cursor"] = event.cursor
                    save(args.state, state)
                    if round_over():
                        break

    # A win is a point; players sharing first place share it.
    points = {name: 0.0 for pair in PAIRINGS for name in pair}
    for result in state["results"].values():
        firsts = [name for name, rank in result.get("ranks", {}).items() if rank == 1]
        for name in firsts:
            points[name] += 1 / len(firsts)
    print("standings:")
    for place, (name, score) in enumerate(sorted(points.items(), key=lambda p: (-p[1], p[0])), start=1):
        print(f"{place:2}. {name} {score:g}")


if __name__ == "__main__":
    main()
