/**
 * A bot that plays random legal actions until its match ends.
 *
 *     node dist/examples/random-bot.js MATCH_ID --code CODE   # join the invite-only seat this join code opens
 *     node dist/examples/random-bot.js MATCH_ID --seat 1      # join public open seat 1 (--join: the lowest)
 *     node dist/examples/random-bot.js MATCH_ID --token TOKEN # play a seat whose token you hold
 *
 * It watches the match as its seat and acts whenever the seat is to move, so
 * it works for turn-based and simultaneous games alike and needs no game
 * knowledge. Prints the final rank and exits 0 when the match is over.
 */

import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import {
  AlreadyActed,
  Code,
  DEFAULT_SERVER,
  MatchOver,
  MatchState,
  NotYourTurn,
  Seat,
  StaleVersion,
  TabletopError,
  connect,
  eventView,
  finalResults,
  type Client,
  type MatchView,
} from "../src/index.js";

/** A small seeded generator (mulberry32), so a bot's game can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Plays `seat` with random legal actions; resolves with the final view.
 *
 * Acts on the watch stream's views: when the seat is to move (and has no
 * action pending in a simultaneous turn) it fetches the legal actions and
 * submits one with `expectedVersion`, so a stale decision is refused by the
 * server rather than applied; the next event then prompts a new one.
 */
export async function play(seat: Seat, random: () => number = Math.random): Promise<MatchView> {
  let actedAt = -1n; // the version of our last accepted action
  for await (const event of seat.watch()) {
    const view = eventView(event);
    if (!view) continue; // a seat acted in a simultaneous turn: nothing to decide
    if (view.state === MatchState.FINISHED) break;
    if (
      view.state !== MatchState.RUNNING ||
      !view.toMove.includes(seat.seat) ||
      view.pendingAction !== undefined ||
      view.version <= actedAt
    ) {
      continue;
    }
    const legal = await seat.client.legalActions(seat.matchId, seat.token);
    if (legal.actions.length === 0) continue; // the stream lags: no longer to move
    const action = legal.actions[Math.floor(random() * legal.actions.length)];
    try {
      await seat.act(action, legal.version);
    } catch (err) {
      // The match moved on meanwhile: a newer event is on its way.
      const movedOn =
        err instanceof StaleVersion ||
        err instanceof NotYourTurn ||
        err instanceof AlreadyActed ||
        err instanceof MatchOver;
      if (movedOn) continue;
      throw err;
    }
    actedAt = legal.version;
  }
  // The stream ends once the match is over; the seat's view has the results.
  const final = await seat.view();
  if (final.state !== MatchState.FINISHED) {
    throw new Error(`the watch stream ended but the match is ${MatchState[final.state]}`);
  }
  return final;
}

async function takeSeat(client: Client, matchId: string, values: Record<string, unknown>): Promise<Seat> {
  if (typeof values.token === "string") {
    const view = await client.view(matchId, values.token);
    if (view.viewerSeat === undefined) throw new Error("the token does not belong to a seat of this match");
    return new Seat(client, matchId, view.viewerSeat, values.token);
  }
  const displayName = typeof values.name === "string" ? values.name : "";
  if (typeof values.code === "string") return client.join(matchId, undefined, { code: values.code, displayName });
  if (values.join === true) return client.join(matchId, undefined, { displayName });
  if (typeof values.seat === "string") return client.join(matchId, Number(values.seat), { displayName });
  throw new Error("say which seat: --code CODE, --seat N, --join or --token TOKEN");
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      seat: { type: "string" },
      join: { type: "boolean" },
      token: { type: "string" },
      code: { type: "string" },
      name: { type: "string" },
      server: { type: "string", default: process.env.TABLETOP_SERVER ?? DEFAULT_SERVER },
      seed: { type: "string" },
    },
  });
  const [matchId] = positionals;
  if (positionals.length !== 1 || matchId === undefined) {
    console.error(
      "usage: random-bot MATCH_ID (--code CODE | --seat N | --join | --token TOKEN) [--name NAME] [--server ADDR] [--seed N]",
    );
    return 2;
  }
  const random = values.seed === undefined ? Math.random : seededRandom(Number(values.seed));
  const client = connect(values.server);
  try {
    const seat = await takeSeat(client, matchId, values);
    const final = await play(seat, random);
    const rank = finalResults(final).get(seat.seat);
    console.log(`seat ${seat.seat}: match ${final.matchId} finished at version ${final.version}, rank ${rank}`);
    return 0;
  } catch (err) {
    if (err instanceof TabletopError) {
      console.error(`${err.reason || Code[err.code]}: ${err.rawMessage}`);
      return 1;
    }
    throw err;
  } finally {
    client.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
