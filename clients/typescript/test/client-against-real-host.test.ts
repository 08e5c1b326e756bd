/**
 * The TypeScript client against the real engine-host and the real plugins:
 * the catalog, complete matches played by the example bot, watch streams,
 * typed errors, stale versions, past views, spectator delay, and the
 * README's example. The tournament-platform calls are in `platform.test.ts`.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import {
  BadToken,
  Code,
  ConnectError,
  InvalidNotation,
  MatchOver,
  MatchState,
  NotYourTurn,
  StaleVersion,
  TabletopError,
  TokenRequired,
  UnknownGame,
  UnknownMatch,
  connect,
  eventView,
  finalResults,
  type GameInfo,
  type WatchEvent,
} from "../src/index.js";
import { seededRandom } from "../examples/random-bot.js";
import { ADMIN_TOKEN, PACKAGE_DIR, RANDOM_BOT, startHost, testHost } from "./harness.js";

const BOT_DEADLINE_MS = 150_000;

const host = testHost();

function playersFor(game: GameInfo): number {
  return Math.max(2, game.minPlayers);
}

/** Options that keep a random match short, where the game offers a turn
 * limit (read from the catalog: the tests know no game by name). */
function short(game: GameInfo, turns: number): Record<string, string> {
  const options: Record<string, string> = {};
  for (const o of game.options) {
    if (o.name === "max_turns" && o.type === "integer") {
      options[o.name] = String(Math.max(turns, Number(o.min ?? 0n)));
    }
  }
  return options;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (killed after the deadline). */
function run(command: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${BOT_DEADLINE_MS} ms)`;
      child.kill("SIGKILL");
    }, BOT_DEADLINE_MS);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test("the catalog lists games with their options", async () => {
  const games = await host.client.games();
  assert.ok(games.length > 0, "the host loaded no game: are the plugins built next to engine-host?");
  const names = games.map((g) => g.name);
  assert.deepEqual(names, [...names].sort(), "ListGames is by name");
  for (const game of games) {
    assert.ok(1 <= game.minPlayers && game.minPlayers <= game.maxPlayers, game.name);
    assert.equal((await host.client.game(game.name)).name, game.name);
  }
});

test("the random bot plays a complete match of every game", async () => {
  // Seat 0 is filled at creation and its bot gets the token; the others are
  // left open and their bots join them with the seats' join codes, so both
  // ways in are exercised. All matches run at once; each bot is its own
  // process, as a user would run it.
  const games = await host.client.games();
  await Promise.all(
    games.map(async (game, i) => {
      const players = playersFor(game);
      const openSeats = Array.from({ length: players - 1 }, (_, k) => k + 1);
      const match = await host.organizer.createMatch(game.name, {
        players,
        options: short(game, 80),
        seed: 800 + i,
        openSeats,
      });
      assert.equal(match.createdView.state, MatchState.WAITING, game.name);
      assert.deepEqual([...match.joinCodes.keys()].sort(), openSeats, "a code per open seat");
      const bots = [
        run(process.execPath, [RANDOM_BOT, match.matchId, "--server", host.address, "--token", match.tokens.get(0)!, "--seed", String(i)]),
        ...openSeats.map((s) =>
          run(process.execPath, [RANDOM_BOT, match.matchId, "--server", host.address, "--code", match.joinCodes.get(s)!, "--seed", String(i * 10 + s)]),
        ),
      ];
      const results = await Promise.all(bots);
      results.forEach((r, seat) => {
        assert.equal(r.code, 0, `${game.name} seat ${seat}:\n${r.stdout}\n${r.stderr}`);
        assert.match(r.stdout, new RegExp(`seat ${seat}: match ${match.matchId} finished`), r.stdout);
      });
      const final = await match.view();
      assert.equal(final.state, MatchState.FINISHED, game.name);
      const ranks = finalResults(final);
      assert.deepEqual([...ranks.keys()].sort(), Array.from({ length: players }, (_, k) => k), `${game.name}: a result per seat`);
      assert.ok([...ranks.values()].includes(1), `${game.name}: someone is first`);
    }),
  );
});

test("a watcher receives every event until the end", async () => {
  const games = await host.client.games();
  for (const [i, game] of games.entries()) {
    const match = await host.organizer.createMatch(game.name, {
      players: playersFor(game),
      options: short(game, 40),
      seed: 900 + i,
    });
    const random = seededRandom(i);
    const events: WatchEvent[] = [];
    let lastView = match.createdView;
    let acted = new Set<number>(); // seats that acted in the current simultaneous turn
    // Referee loop: act once per received event, so the watcher is never far
    // behind and must see every state change without a resync.
    for await (const event of match.watch()) {
      events.push(event);
      const view = eventView(event);
      if (view) {
        lastView = view;
        acted = new Set(view.seats.filter((s) => s.hasActed).map((s) => s.seat));
      } else if (event.kind.case === "seatActed") {
        acted.add(event.kind.value.seat);
      }
      if (lastView.state !== MatchState.RUNNING) continue;
      const mover = lastView.toMove.find((s) => !acted.has(s));
      if (mover === undefined) continue;
      const token = match.tokens.get(mover)!;
      const legal = await host.client.legalActions(match.matchId, token);
      if (legal.actions.length > 0) {
        const action = legal.actions[Math.floor(random() * legal.actions.length)]!;
        await host.client.act(match.matchId, token, action, legal.version);
      }
    }

    assert.equal(events[0]?.kind.case, "snapshot", game.name);
    assert.equal(events[0]!.version, match.createdView.version, "chance at setup counts");
    let version = events[0]!.version;
    for (const event of events.slice(1)) {
      assert.notEqual(event.kind.case, "snapshot", `${game.name}: a resync at ${event.version} means missed events`);
      if (event.kind.case === "transition") {
        assert.equal(event.version, version + 1n, `${game.name}: ${version} then ${event.version}`);
        assert.equal(event.kind.value.view?.version, event.version);
        assert.ok(event.kind.value.eventJson, "every transition is described");
      } else {
        assert.equal(event.kind.case, "seatActed", game.name);
        assert.equal(event.version, version, game.name);
      }
      version = event.version;
    }
    // The stream ended by itself: the match is over, and its last event was
    // the final state change.
    const final = await match.view();
    assert.equal(final.state, MatchState.FINISHED, game.name);
    assert.equal(final.version, version, `${game.name}: the watcher saw every version up to the last`);
    assert.equal(events.at(-1)!.kind.case, "transition");
  }
});

test("bad requests reject with typed errors carrying the code, reason and message", async () => {
  const [game] = await host.client.games();
  assert.ok(game);
  const match = await host.organizer.createMatch(game.name, { players: playersFor(game), seed: 1 });
  const mover = match.createdView.toMove[0]!;
  const seat = match.seat(mover);

  // Typed errors are still Connect's: old code that checks ConnectError and
  // reads code and rawMessage keeps working.
  const notAMove = await seat.act("definitely not a move").then(
    () => assert.fail("an illegal action was accepted"),
    (err: unknown) => err,
  );
  assert.ok(notAMove instanceof ConnectError, String(notAMove));
  assert.ok(notAMove instanceof TabletopError, String(notAMove));
  assert.equal(notAMove.code, Code.InvalidArgument);
  assert.ok(notAMove.rawMessage.length > 0, "the server says why");
  // The game says why, with its own code; the class says which kind.
  assert.ok(notAMove instanceof InvalidNotation, String(notAMove));
  assert.ok(!["INVALID_NOTATION", "ILLEGAL_ACTION", ""].includes(notAMove.reason), notAMove.reason);
  assert.ok(!(notAMove instanceof StaleVersion), "instanceof goes by class");

  await assert.rejects(host.client.act(match.matchId, "not-a-token", 0), (err: unknown) => {
    assert.ok(err instanceof BadToken, String(err));
    assert.equal(err.code, Code.PermissionDenied);
    assert.equal(err.credential, "seat");
    return true;
  });

  await assert.rejects(host.client.legalActions(match.matchId, ""), (err: unknown) => {
    assert.ok(err instanceof TokenRequired, String(err));
    assert.equal(err.code, Code.Unauthenticated);
    assert.equal(err.credential, "seat");
    return true;
  });

  const other = [...match.tokens.keys()].find((s) => s !== mover);
  if (other !== undefined) {
    await assert.rejects(match.seat(other).act(0), (err: unknown) => {
      assert.ok(err instanceof NotYourTurn, String(err));
      assert.equal(err.code, Code.FailedPrecondition);
      assert.equal(err.seat, other);
      return true;
    });
  }

  await assert.rejects(host.client.view("no-such-match"), (err: unknown) => {
    assert.ok(err instanceof UnknownMatch, String(err));
    assert.equal(err.code, Code.NotFound);
    assert.equal(err.matchId, "no-such-match");
    return true;
  });

  await assert.rejects(host.client.game("no-such-game"), (err: unknown) => {
    assert.ok(err instanceof UnknownGame, String(err));
    assert.equal(err.code, Code.NotFound);
    assert.equal(err.reason, "UNKNOWN_GAME");
    assert.match(err.rawMessage, /no-such-game/);
    return true;
  });

  // Nothing above changed the match.
  assert.equal((await match.view()).version, match.createdView.version);
});

test("a stale version tells the current version", async () => {
  const [game] = await host.client.games();
  assert.ok(game);
  const match = await host.organizer.createMatch(game.name, { players: playersFor(game), seed: 2 });
  const version = match.createdView.version;
  const seat = match.seat(match.createdView.toMove[0]!);
  const [action] = await seat.legalActions();
  assert.ok(action);

  const stale = await seat.act(action, version + 7n).then(
    () => assert.fail("a stale version was accepted"),
    (err: unknown) => err,
  );
  assert.ok(stale instanceof StaleVersion, String(stale));
  assert.equal(stale.code, Code.FailedPrecondition);
  assert.equal(stale.reason, "STALE_VERSION");
  assert.equal(stale.expectedVersion, version + 7n);
  assert.equal(stale.currentVersion, version);
  assert.match(stale.rawMessage, /stale version/);

  // A bot catches up from the error alone, without parsing its text.
  const accepted = await seat.act(action, stale.currentVersion);
  assert.ok(accepted.view!.version > version);
});

test("a past view is the view at that version", async () => {
  const match = await host.organizer.createMatch("focus", { players: 2, seed: 4 });
  const created = await match.view();
  const seat = match.seat(created.toMove[0]!);
  const [action] = await seat.legalActions();
  assert.ok(action);
  await seat.act(action);
  assert.equal((await match.view()).version, created.version + 1n);

  const past = await match.view(created.version);
  assert.equal(past.version, created.version);
  assert.equal(past.viewJson, created.viewJson);
  assert.deepEqual(past.toMove, created.toMove);
  assert.equal((await seat.view(created.version)).viewJson, created.viewJson);
  await assert.rejects(match.view(created.version + 5n), (err: unknown) => {
    assert.ok(err instanceof TabletopError, String(err));
    assert.equal(err.code, Code.InvalidArgument);
    return true;
  });
});

test("a spectator delay keeps spectators behind and seats live", async () => {
  const match = await host.client.createMatch("focus", {
    players: 2,
    spectatorDelay: { moves: 2 },
  });
  for (let i = 0; i < 3; i++) {
    const live = await match.seat(0).view();
    const seat = match.seat(live.toMove[0]!);
    const [action] = await seat.legalActions();
    assert.ok(action);
    await seat.act(action);
  }
  assert.equal((await match.seat(0).view()).version, 3n);
  const spectator = await match.view();
  assert.equal(spectator.version, 1n);
  assert.equal(spectator.delayed, true);
  assert.equal(spectator.spectatorDelay?.moves, 2);
  await assert.rejects(match.view(2n), (err: unknown) => {
    assert.ok(err instanceof TabletopError, String(err));
    assert.equal(err.code, Code.InvalidArgument);
    return true;
  });
  await assert.rejects(
    host.client.createMatch("focus", { spectatorDelay: { ms: 3_600_001 } }),
    (err: unknown) => {
      assert.ok(err instanceof TabletopError, String(err));
      assert.equal(err.reason, "INVALID_SETUP");
      return true;
    },
  );
});

test("a late watcher and listEvents tell every event of a finished match", async () => {
  const match = await host.organizer.createMatch("lanza", {
    players: 2,
    seed: 6,
    options: { max_turns: "3" },
  });
  const seats = [...match.tokens.keys()].map((s) => match.seat(s));
  while ((await match.view()).state === MatchState.RUNNING) {
    for (const seat of seats) {
      const [action] = await seat.legalActions();
      if (action) {
        await seat.act(action);
      }
    }
  }
  const token = seats[0]!.token;
  const replayed: WatchEvent[] = [];
  for await (const event of host.client.watch(match.matchId, token, { fromVersion: 0n })) {
    replayed.push(event);
  }
  assert.deepEqual(
    replayed.map((e) => e.seq),
    replayed.map((_, i) => BigInt(i + 1)),
    "no gap, none twice",
  );
  assert.ok(replayed.some((e) => e.kind.case === "seatActed"), "simultaneous orders");
  assert.equal(eventView(replayed.at(-1)!)?.state, MatchState.FINISHED);

  const listed: WatchEvent[] = [];
  for await (const event of host.client.events(match.matchId, token, { includeViews: true })) {
    listed.push(event);
  }
  assert.deepEqual(listed, replayed);
  const page = await host.client.listEvents(match.matchId, token, { afterSeq: 2n, pageSize: 3 });
  assert.deepEqual(
    page.events.map((e) => e.seq),
    [3n, 4n, 5n],
  );
  assert.equal(page.lastSeq, replayed.at(-1)!.seq);
  const resumed: WatchEvent[] = [];
  for await (const event of host.client.watch(match.matchId, token, {
    afterSeq: BigInt(replayed.length - 2),
  })) {
    resumed.push(event);
  }
  assert.deepEqual(resumed, replayed.slice(-2));
});

test("a finished match refuses with MatchOver", async () => {
  const [game] = await host.client.games();
  assert.ok(game);
  const match = await host.organizer.createMatch(game.name, { players: playersFor(game), seed: 3 });
  const seat = match.seat([...match.tokens.keys()][0]!);
  await seat.resign();
  await assert.rejects(seat.resign(), (err: unknown) => {
    assert.ok(err instanceof MatchOver, String(err));
    assert.equal(err.code, Code.FailedPrecondition);
    assert.equal(err.rawMessage, "the match is over");
    return true;
  });
});

test("the README example plays a complete match", async () => {
  // The README's example is real code: run it against the test host. It is
  // plain JavaScript-compatible TypeScript and imports the package by name
  // (Node resolves a package's own name from inside it).
  const readme = readFileSync(join(PACKAGE_DIR, "README.md"), "utf8");
  const code = readme.split("```ts\n")[1]?.split("```")[0];
  assert.ok(code, "the README has a ```ts example");
  assert.ok(code.trim().split("\n").length < 20, "the README promises a match in under 20 lines");
  const file = join(PACKAGE_DIR, "dist", "readme-example.mjs");
  writeFileSync(file, code.replace("127.0.0.1:50051", host.address));
  try {
    const r = await run(process.execPath, [file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /ranks by seat:/);
  } finally {
    rmSync(file, { force: true });
  }
});

test("a watcher too slow for its stream is cut and resumed with every event once", async () => {
  // A host that cuts a stream whose client leaves 1 KiB unread for 200 ms.
  const slowHost = await startHost([
    "--store",
    "memory",
    "--stream-buffer-bytes",
    "1024",
    "--stream-patience-ms",
    "200",
    "--metrics-listen",
    "127.0.0.1:0",
  ]);
  try {
    const client = connect(slowHost.address, { credential: ADMIN_TOKEN });
    const match = await client.createMatch("war", { seed: 11, bots: { 0: "random", 1: "random" } });
    while ((await client.view(match.matchId)).state !== MatchState.FINISHED) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const everything: bigint[] = [];
    for await (const event of client.watch(match.matchId, "", { fromVersion: 0n })) everything.push(event.seq);
    assert.ok(everything.length > 100, "enough events, with their views, to fill the windows");

    const seen: bigint[] = [];
    for await (const event of client.watch(match.matchId, "", { fromVersion: 0n })) {
      seen.push(event.seq);
      // Reads nothing for a while: the server's queue stays full.
      if (seen.length <= 2) await new Promise((r) => setTimeout(r, 1500));
    }
    assert.deepEqual(seen, everything, "every event once, across the cuts");
    const metrics = await slowHost.metrics();
    assert.ok((metrics.get("tabletop_streams_cut_total") ?? 0) >= 1, "the server cut the stream");
  } finally {
    await slowHost.stop();
  }
});
