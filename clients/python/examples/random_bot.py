#!/usr/bin/env python3
"""A bot that plays random legal actions until its match ends.

    random_bot.py MATCH_ID --code CODE        # join the invite-only seat this join code opens
    random_bot.py MATCH_ID --seat 1           # join public open seat 1 (or --join: the lowest open one)
    random_bot.py MATCH_ID --token TOKEN      # play a seat whose token you hold

It watches the match as its seat and acts whenever the seat is to move, so it
works for turn-based and simultaneous games alike and needs no game knowledge.
Prints the final rank and exits 0 when the match is over.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Optional

import tabletop
from tabletop import Client, Seat
from tabletop.client import event_view
from tabletop.v1 import types_pb2


def play(seat: Seat, rng: random.Random) -> types_pb2.MatchView:
    """Plays ``seat`` with random legal actions; returns the final view.

    Acts on the watch stream's views: when the seat is to move (and has no
    action pending in a simultaneous turn), it fetches the legal actions and
    submits one with ``expected_version``, so a stale decision is refused by
    the server rather than applied; the next event then prompts a new one.
    """
    acted_at = -1  # the version of our last accepted action
    for event in seat.watch():
        view = event_view(event)
        if view is None:
            continue  # a seat acted in a simultaneous turn: nothing to decide
        if view.state == types_pb2.MATCH_STATE_FINISHED:
            break
        if (
            view.state != types_pb2.MATCH_STATE_RUNNING
            or seat.seat not in view.to_move
            or view.HasField("pending_action")
            or view.version <= acted_at
        ):
            continue
        legal = seat.client.legal_actions(seat.match_id, seat.token)
        if not legal.actions:
            continue  # the stream lags behind: we are no longer to move
        action = rng.choice(list(legal.actions))
        try:
            seat.act(action, expected_version=legal.version)
        except (tabletop.StaleVersion, tabletop.NotYourTurn, tabletop.AlreadyActed, tabletop.MatchOver):
            # The match moved on meanwhile: a newer event is on its way.
            continue
        acted_at = legal.version
    # The stream ends once the match is over; the seat's view has the results.
    final = seat.view()
    if final.state != types_pb2.MATCH_STATE_FINISHED:
        raise RuntimeError(f"the watch stream ended but the match is {final.state}")
    return final


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("match_id")
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--seat", type=int, help="join this open seat")
    who.add_argument("--join", action="store_true", help="join the lowest open seat")
    who.add_argument("--token", help="play the seat of this token")
    who.add_argument("--code", help="join the seat this join code opens")
    parser.add_argument("--name", default="", help="the name to show for the seat when joining")
    parser.add_argument(
        "--server",
        default=os.environ.get("TABLETOP_SERVER", tabletop.client.DEFAULT_SERVER),
        help="host:port (default: $TABLETOP_SERVER or %(default)s)",
    )
    parser.add_argument("--seed", type=int, help="seed of the bot's choices")
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    with tabletop.connect(args.server) as client:
        try:
            seat = _take_seat(client, args)
            final = play(seat, rng)
        except tabletop.TabletopError as err:
            print(f"{err.reason or err.code().name}: {err.message}", file=sys.stderr)
            return 1
    rank = tabletop.final_results(final).get(seat.seat)
    print(f"seat {seat.seat}: match {final.match_id} finished at version {final.version}, rank {rank}")
    return 0


def _take_seat(client: Client, args: argparse.Namespace) -> Seat:
    if args.token is not None:
        view = client.view(args.match_id, args.token)
        if not view.HasField("viewer_seat"):
            raise SystemExit("the token does not belong to a seat of this match")
        return Seat(client, args.match_id, view.viewer_seat, args.token)
    if args.code is not None:
        return client.join(args.match_id, code=args.code, name=args.name)
    return client.join(args.match_id, None if args.join else args.seat, name=args.name)


if __name__ == "__main__":
    sys.exit(main())
