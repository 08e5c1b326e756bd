/**
 * The TypeScript client against the real engine-host and the real plugins:
 * the catalog, complete matches played by the example bot, watch streams,
 * typed errors, the tournament-platform calls (labels, paging, idempotent
 * creation, the lifecycle feed, the director's controls), and the README's
 * example.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";

import {
  BadToken,
  Code,
  CredentialRole,
  ConnectError,
  ControlRefused,
  InvalidNotation,
  InvalidPageToken,
  MatchOver,
  MatchPaused,
  MatchState,
  NotPermitted,
  NotYourTurn,
  OutReason,
  RequestIdReused,
  StaleVersion,
  TabletopError,
  TokenRequired,
  UnknownGame,
  UnknownMatch,
  connect,
  eventView,
  finalResults,
  type Client,
  type GameInfo,
  type LifecycleEvent,
  type MatchSummary,
  type WatchEvent,
} from "../src/index.js";
import { seededRandom } from "../examples/random-bot.js";
import { ADMIN_TOKEN, PACKAGE_DIR, RANDOM_BOT, startHost, type Host } from "./harness.js";

const BOT_DEADLINE_MS = 150_000;

let host: Host;
/** An anonymous client, as a player's. */
let client: Client;
/** A client that holds the admin token. */
let director: Client;
/**
 * A client with an organizer credential the admin issued, as a tournament
 * platform's: it may choose seeds and direct matches, not administer.
 */
let organizer: Client;

before(async () => {
  host = await startHost();
  client = connect(host.address);
  director = connect(host.address, { adminToken: ADMIN_TOKEN });
  organizer = connect(host.address, { credential: (await director.issueCredential("test organizer")).secret });
});

after(async () => {
  client?.close();
  director?.close();
  organizer?.close();
  await host?.stop();
});

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
  const games = await client.games();
  assert.ok(games.length > 0, "the host loaded no game: are the plugins built next to engine-host?");
  const names = games.map((g) => g.name);
  assert.deepEqual(names, [...names].sort(), "ListGames is by name");
  for (const game of games) {
    assert.ok(1 <= game.minPlayers && game.minPlayers <= game.maxPlayers, game.name);
    assert.equal((await client.game(game.name)).name, game.name);
  }
});

test("the random bot plays a complete match of every game", async () => {
  // Seat 0 is filled at creation and its bot gets the token; the others are
  // left open and their bots join them with the seats' join codes, so both
  // ways in are exercised. All matches run at once; each bot is its own
  // process, as a user would run it.
  const games = await client.games();
  await Promise.all(
    games.map(async (game, i) => {
      const players = playersFor(game);
      const openSeats = Array.from({ length: players - 1 }, (_, k) => k + 1);
      const match = await organizer.createMatch(game.name, {
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
  const games = await client.games();
  for (const [i, game] of games.entries()) {
    const match = await organizer.createMatch(game.name, {
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
      const legal = await client.legalActions(match.matchId, token);
      if (legal.actions.length > 0) {
        const action = legal.actions[Math.floor(random() * legal.actions.length)]!;
        await client.act(match.matchId, token, action, legal.version);
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
  const [game] = await client.games();
  assert.ok(game);
  const match = await organizer.createMatch(game.name, { players: playersFor(game), seed: 1 });
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
  assert.equal(notAMove.metadata["refusal"], "INVALID_NOTATION");
  assert.ok(!["INVALID_NOTATION", "ILLEGAL_ACTION", ""].includes(notAMove.reason), notAMove.reason);
  assert.ok(!(notAMove instanceof StaleVersion), "instanceof goes by class");

  await assert.rejects(client.act(match.matchId, "not-a-token", 0), (err: unknown) => {
    assert.ok(err instanceof BadToken, String(err));
    assert.equal(err.code, Code.PermissionDenied);
    assert.equal(err.credential, "seat");
    return true;
  });

  await assert.rejects(client.legalActions(match.matchId, ""), (err: unknown) => {
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

  await assert.rejects(client.view("no-such-match"), (err: unknown) => {
    assert.ok(err instanceof UnknownMatch, String(err));
    assert.equal(err.code, Code.NotFound);
    assert.equal(err.matchId, "no-such-match");
    return true;
  });

  await assert.rejects(client.game("no-such-game"), (err: unknown) => {
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
  const [game] = await client.games();
  assert.ok(game);
  const match = await organizer.createMatch(game.name, { players: playersFor(game), seed: 2 });
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
  const match = await organizer.createMatch("focus", { players: 2, seed: 4 });
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
  const match = await client.createMatch("focus", {
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
    client.createMatch("focus", { spectatorDelay: { ms: 3_600_001 } }),
    (err: unknown) => {
      assert.ok(err instanceof TabletopError, String(err));
      assert.equal(err.reason, "INVALID_SETUP");
      return true;
    },
  );
});

test("a late watcher and listEvents tell every event of a finished match", async () => {
  const match = await organizer.createMatch("lanza", {
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
  for await (const event of client.watch(match.matchId, token, { fromVersion: 0n })) {
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
  for await (const event of client.events(match.matchId, token, { includeViews: true })) {
    listed.push(event);
  }
  assert.deepEqual(listed, replayed);
  const page = await client.listEvents(match.matchId, token, { afterSeq: 2n, pageSize: 3 });
  assert.deepEqual(
    page.events.map((e) => e.seq),
    [3n, 4n, 5n],
  );
  assert.equal(page.lastSeq, replayed.at(-1)!.seq);
  const resumed: WatchEvent[] = [];
  for await (const event of client.watch(match.matchId, token, {
    afterSeq: BigInt(replayed.length - 2),
  })) {
    resumed.push(event);
  }
  assert.deepEqual(resumed, replayed.slice(-2));
});

test("a finished match refuses with MatchOver", async () => {
  const [game] = await client.games();
  assert.ok(game);
  const match = await organizer.createMatch(game.name, { players: playersFor(game), seed: 3 });
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

// -- the tournament platform's calls ----------------------------------------

/** A label value no other test (or earlier run on the same host) uses. */
function unique(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 12)}`;
}

/**
 * The next `count` items of the stream `follow` opens, or fewer if they do
 * not come within `timeoutMs` (the lifecycle feed never ends by itself: a
 * missing event must fail the test, not hang it).
 */
async function take<T>(follow: (signal: AbortSignal) => AsyncIterable<T>, count: number, timeoutMs = 30_000): Promise<T[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const taken: T[] = [];
  try {
    for await (const item of follow(controller.signal)) {
      taken.push(item);
      if (taken.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return taken;
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}

function kinds(events: LifecycleEvent[], matchId: string): (string | undefined)[] {
  return events.filter((e) => e.matchId === matchId).map((e) => e.kind.case);
}

test("labels are shown in views and listings, and filter them", async () => {
  const tournament = unique("labels");
  const firstLabels = { tournament, round: "1", table: "3" };
  const first = await organizer.createMatch("focus", { seed: 10, labels: firstLabels });
  const second = await organizer.createMatch("focus", { seed: 11, labels: { tournament, round: "2" } });

  assert.deepEqual(first.createdView.labels, firstLabels);
  assert.deepEqual((await client.view(first.matchId)).labels, firstLabels);
  const listed = (await client.listMatches({ labels: { tournament } })).matches;
  assert.deepEqual(
    listed.map((m) => m.matchId),
    [first.matchId, second.matchId],
  );
  assert.deepEqual(listed[0]!.labels, firstLabels);
  const onlyRound1 = (await client.listMatches({ labels: { tournament, round: "1" } })).matches;
  assert.deepEqual(
    onlyRound1.map((m) => m.matchId),
    [first.matchId],
    "every label given must match",
  );
  assert.equal((await client.listMatches({ labels: { tournament, round: "3" } })).matches.length, 0);
});

test("paging lists every match exactly once", async () => {
  const batch = { batch: unique("paging") };
  const created = [];
  for (let i = 0; i < 150; i++) created.push(await organizer.createMatch("focus", { seed: i, labels: batch }));
  const ids = new Set(created.map((m) => m.matchId));

  const pages: MatchSummary[][] = [];
  let pageToken = "";
  for (;;) {
    const page = await client.listMatches({ labels: batch, pageSize: 7, pageToken });
    pages.push(page.matches);
    if (!page.nextPageToken) break;
    pageToken = page.nextPageToken;
  }
  assert.deepEqual(
    pages.map((p) => p.length),
    [...Array(21).fill(7), 3],
    "21 full pages and 3 left over",
  );
  const listed = pages.flat();
  assert.equal(new Set(listed.map((m) => m.matchId)).size, 150, "each match once");
  assert.ok(listed.every((m) => ids.has(m.matchId)), "only the batch's matches");
  const order = listed.map((m) => [m.createdAtMs, m.matchId] as const);
  const sorted = [...order].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  assert.deepEqual(order, sorted, "oldest first, then by id");

  assert.deepEqual(
    (await all(client.iterMatches({ labels: batch, pageSize: 7 }))).map((m) => m.matchId),
    listed.map((m) => m.matchId),
  );

  // Creation-time and state filters narrow the same listing.
  const oldest = listed[0]!.createdAtMs;
  const newest = listed.at(-1)!.createdAtMs;
  assert.equal((await all(client.iterMatches({ labels: batch, createdBeforeMs: oldest }))).length, 0);
  const fromNewest = await all(client.iterMatches({ labels: batch, createdFromMs: newest }));
  assert.ok(fromNewest.length > 0 && fromNewest.every((m) => m.createdAtMs === newest));
  for (const match of created.slice(0, 5)) await match.seat(0).resign();
  const finished = await all(client.iterMatches({ labels: batch, state: MatchState.FINISHED, pageSize: 2 }));
  assert.deepEqual(
    finished.map((m) => m.matchId).sort(),
    created.slice(0, 5).map((m) => m.matchId).sort(),
  );

  await assert.rejects(client.listMatches({ labels: batch, pageToken: "not-a-token-the-server-issued" }), (err: unknown) => {
    assert.ok(err instanceof InvalidPageToken, String(err));
    assert.equal(err.code, Code.InvalidArgument);
    return true;
  });
});

test("a retried createMatch returns the same match and tokens", async () => {
  const labels = { table: unique("retry") };
  const requestId = unique("request");
  const first = await organizer.createMatch("focus", { seed: 21, labels, requestId });
  const retried = await organizer.createMatch("focus", { seed: 21, labels, requestId });
  assert.equal(retried.matchId, first.matchId);
  assert.deepEqual([...retried.tokens], [...first.tokens]);
  assert.equal(first.tokens.size, 2);

  await assert.rejects(organizer.createMatch("focus", { seed: 22, labels, requestId }), (err: unknown) => {
    assert.ok(err instanceof RequestIdReused, String(err));
    assert.equal(err.code, Code.AlreadyExists);
    assert.equal(err.requestId, requestId);
    assert.equal(err.matchId, first.matchId);
    return true;
  });
  assert.deepEqual(
    (await all(client.iterMatches({ labels }))).map((m) => m.matchId),
    [first.matchId],
    "no second match",
  );
});

test("the lifecycle feed tells each match's life and resumes after a cursor", async () => {
  const labels = { tournament: unique("feed") };
  // Followed live, while the matches below are played.
  const following = take((signal) => director.followLifecycle({ labels, signal }), 9);

  const played = await director.createMatch("focus", { seed: 31, labels });
  const mover = played.createdView.toMove[0]!;
  const [action] = await played.seat(mover).legalActions();
  await played.seat(mover).act(action!);
  await played.seat(mover).resign();

  const aborted = await director.createMatch("focus", { labels, openSeats: [1] });
  await director.abortMatch(aborted.matchId, "table 2 withdrew");

  const adjudicated = await director.createMatch("focus", { seed: 33, labels });
  const view = await director.adjudicateMatch(adjudicated.matchId, { 0: 2, 1: 1 }, { scores: { 1: 3.5 } });
  assert.equal(view.state, MatchState.FINISHED);
  assert.ok(view.adjudicated);

  // Not in the filtered feed: another tournament's match.
  const other = await director.createMatch("focus", { labels: { tournament: unique("other") } });
  await director.abortMatch(other.matchId);

  const events = await following;
  assert.equal(events.length, 9, JSON.stringify(events.map((e) => [e.matchId, e.kind.case])));
  assert.ok(events.every((e) => e.game === "focus"));
  for (const e of events) assert.deepEqual(e.labels, labels);
  assert.ok(!events.some((e) => e.matchId === other.matchId));
  const cursors = events.map((e) => e.cursor);
  assert.ok(cursors.every((c, i) => i === 0 || c > cursors[i - 1]!), "cursors only grow");

  assert.deepEqual(kinds(events, played.matchId), ["created", "started", "seatOut", "finished"]);
  const [out, finished] = events.filter((e) => e.matchId === played.matchId).slice(2);
  assert.ok(out?.kind.case === "seatOut" && finished?.kind.case === "finished");
  assert.equal(out.kind.value.seat, mover);
  assert.equal(out.kind.value.reason, OutReason.RESIGNED);
  assert.deepEqual(
    finished.kind.value.results.map((r) => [r.seat, r.rank]).sort(),
    [
      [mover, 2],
      [1 - mover, 1],
    ].sort(),
  );
  assert.equal(finished.kind.value.adjudicated, false);

  assert.deepEqual(kinds(events, aborted.matchId), ["created", "aborted"]);
  const abort = events.find((e) => e.matchId === aborted.matchId && e.kind.case === "aborted");
  assert.equal(abort?.kind.case === "aborted" && abort.kind.value.reason, "table 2 withdrew");

  assert.deepEqual(kinds(events, adjudicated.matchId), ["created", "started", "finished"]);
  const decided = events.filter((e) => e.matchId === adjudicated.matchId).at(-1)!;
  assert.ok(decided.kind.case === "finished");
  assert.ok(decided.kind.value.adjudicated);
  assert.deepEqual(
    decided.kind.value.results.map((r) => [r.seat, r.rank, r.score]),
    [
      [0, 2, 0],
      [1, 1, 3.5],
    ],
  );

  // A follower that resumes after a cursor gets exactly the later events,
  // and nothing more comes after the last.
  const resumed = await take((signal) => director.followLifecycle({ labels, afterCursor: events[3]!.cursor, signal }), 5);
  assert.deepEqual(resumed, events.slice(4));
  const after = await take((signal) => director.followLifecycle({ labels, afterCursor: events.at(-1)!.cursor, signal }), 1, 1_000);
  assert.deepEqual(after, []);
});

test("a paused match refuses actions until it resumes", async () => {
  const labels = { table: unique("pause") };
  const match = await director.createMatch("focus", { seed: 41, labels });
  const seat = match.seat(match.createdView.toMove[0]!);
  const [action] = await seat.legalActions();
  assert.ok(action);

  const paused = await director.pauseMatch(match.matchId);
  assert.ok(paused.paused);
  await assert.rejects(seat.act(action), (err: unknown) => {
    assert.ok(err instanceof MatchPaused, String(err));
    assert.equal(err.code, Code.FailedPrecondition);
    return true;
  });
  await assert.rejects(director.pauseMatch(match.matchId), ControlRefused, "already paused");
  assert.equal((await match.view()).version, paused.version, "the refused action changed nothing");

  const resumed = await director.resumeMatch(match.matchId);
  assert.equal(resumed.paused, false);
  assert.equal((await seat.act(action)).view?.version, resumed.version + 1n);
  await assert.rejects(director.resumeMatch(match.matchId), ControlRefused, "not paused");

  const events = await take((signal) => director.followLifecycle({ labels, signal }), 4);
  assert.deepEqual(
    events.map((e) => e.kind.case),
    ["created", "started", "paused", "resumed"],
  );
});

test("addTime adds to the seat's clock", async () => {
  const match = await director.createMatch("focus", { seed: 51, timeControl: { bankMs: 600_000n } });
  // The seat not to move: its clock stands still, so the sum is exact.
  const waiting = 1 - match.createdView.toMove[0]!;
  const before = (await match.view()).seats[waiting]!.clockRemainingMs!;
  const after = (await director.addTime(match.matchId, waiting, 5_000)).seats[waiting]!.clockRemainingMs;
  assert.equal(after, before + 5_000n);
  assert.equal((await match.view()).seats[waiting]!.clockRemainingMs, after);

  const unclocked = await director.createMatch("focus", { seed: 52 });
  await assert.rejects(director.addTime(unclocked.matchId, 0, 5_000), ControlRefused);
});

test("director calls need a credential", async () => {
  const match = await director.createMatch("focus", { seed: 61 });
  await assert.rejects(client.pauseMatch(match.matchId), (err: unknown) => {
    assert.ok(err instanceof TokenRequired, String(err));
    assert.equal(err.code, Code.Unauthenticated);
    assert.equal(err.credential, "organizer", "an organizer credential is the least that will do");
    return true;
  });
  await assert.rejects(client.abortMatch(match.matchId, "", { adminToken: "not-the-token" }), (err: unknown) => {
    assert.ok(err instanceof BadToken, String(err));
    assert.equal(err.credential, "bearer");
    return true;
  });
  await assert.rejects(take((signal) => client.followLifecycle({ adminToken: "not-the-token", signal }), 1), BadToken);
  // A call's own token overrides the client's.
  assert.ok((await client.pauseMatch(match.matchId, { adminToken: ADMIN_TOKEN })).paused);
  assert.ok((await match.view()).paused);
});

// -- credentials, join codes and seat identities -----------------------------

/** What `call` rejects with (failing the test if it resolves). */
async function refusal(call: Promise<unknown>): Promise<TabletopError> {
  const err = await call.then(
    () => assert.fail("the call was accepted"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof TabletopError, String(err));
  return err;
}

test("an organizer credential chooses seeds and directs but does not administer", async () => {
  const issued = await director.issueCredential("spring platform");
  assert.ok(issued.secret && issued.credential?.credentialId);
  assert.equal(issued.credential.name, "spring platform");
  assert.equal(issued.credential.role, CredentialRole.ORGANIZER);
  const listed = (await director.listCredentials()).find((c) => c.credentialId === issued.credential!.credentialId);
  assert.ok(listed, "listed");
  assert.equal(listed.revokedAtMs, undefined);

  // Anonymous: no seed of one's own (it would let a player replay the chance).
  const anonymousSeed = await refusal(client.createMatch("focus", { seed: 71 }));
  assert.ok(anonymousSeed instanceof NotPermitted, String(anonymousSeed));
  assert.equal(anonymousSeed.code, Code.PermissionDenied);
  assert.equal(anonymousSeed.credential, "organizer");

  const platform = connect(host.address, { credential: issued.secret });
  try {
    const match = await platform.createMatch("focus", { seed: 71 });
    assert.ok((await platform.pauseMatch(match.matchId)).paused);
    assert.equal((await platform.resumeMatch(match.matchId)).paused, false);
    assert.match(await platform.exportRecord(match.matchId), new RegExp(match.matchId), "a running match's record");
    // The raw stubs carry the credential too.
    assert.ok((await platform.matches.createMatch({ game: "focus", players: 2, seed: 72n })).matchId);

    const plugins = await refusal(platform.listPlugins());
    assert.ok(plugins instanceof NotPermitted, String(plugins));
    assert.equal(plugins.code, Code.PermissionDenied);
    assert.equal(plugins.credential, "admin");
    assert.ok((await refusal(platform.issueCredential("a second platform"))) instanceof NotPermitted);
  } finally {
    platform.close();
  }
  assert.ok((await director.listPlugins()).length > 0, "the admin token may list the plugins");
  const anonymousAdmin = await refusal(client.listPlugins());
  assert.ok(anonymousAdmin instanceof TokenRequired, String(anonymousAdmin));
  assert.equal(anonymousAdmin.credential, "admin");
});

test("a revoked credential is refused", async () => {
  const issued = await director.issueCredential("revoked platform");
  const platform = connect(host.address, { credential: issued.secret });
  try {
    const match = await platform.createMatch("focus", { seed: 81 });
    const revoked = await director.revokeCredential(issued.credential!.credentialId);
    assert.equal(revoked.credentialId, issued.credential!.credentialId);
    assert.ok(revoked.revokedAtMs !== undefined, "revoked now");
    const listed = (await director.listCredentials()).find((c) => c.credentialId === revoked.credentialId);
    assert.equal(listed?.revokedAtMs, revoked.revokedAtMs);

    const refused = await refusal(platform.pauseMatch(match.matchId));
    assert.ok(refused instanceof BadToken, String(refused));
    assert.equal(refused.code, Code.PermissionDenied);
    assert.equal(refused.credential, "bearer");
    // Refused, not taken for anonymous: even a call anyone may make.
    assert.ok((await refusal(platform.createMatch("focus"))) instanceof BadToken);
    assert.equal((await director.view(match.matchId)).paused, false);
  } finally {
    platform.close();
  }
});

test("credential and adminToken are one setting", async () => {
  const oldStyle = connect(host.address, { adminToken: ADMIN_TOKEN });
  try {
    assert.equal(oldStyle.credential, ADMIN_TOKEN);
    assert.ok((await oldStyle.listPlugins()).length > 0);
  } finally {
    oldStyle.close();
  }
  assert.throws(() => connect(host.address, { credential: "one", adminToken: "another" }));
});

test("an invite-only seat needs its code, once", async () => {
  const match = await organizer.createMatch("focus", { openSeats: [1] });
  assert.deepEqual([...match.tokens.keys()], [0]);
  assert.deepEqual([...match.joinCodes.keys()], [1]);
  const code = match.joinCodes.get(1)!;

  const noCode = await refusal(client.join(match.matchId));
  assert.ok(noCode instanceof TokenRequired, String(noCode));
  assert.equal(noCode.code, Code.Unauthenticated);
  assert.equal(noCode.credential, "join_code");
  assert.ok((await refusal(client.join(match.matchId, 1))) instanceof TokenRequired);
  const wrong = await refusal(client.join(match.matchId, undefined, { code: "not-the-code" }));
  assert.ok(wrong instanceof BadToken, String(wrong));
  assert.equal(wrong.credential, "join_code");
  assert.equal((await client.view(match.matchId)).state, MatchState.WAITING);

  const joined = await client.join(match.matchId, undefined, { code });
  assert.equal(joined.seat, 1);
  assert.equal((await joined.view()).state, MatchState.RUNNING);
  // A code admits once.
  assert.ok((await refusal(client.join(match.matchId, undefined, { code }))) instanceof BadToken);

  const open = await organizer.createMatch("focus", { openSeats: [1], publicOpenSeats: true });
  assert.equal(open.joinCodes.size, 0);
  assert.equal((await client.join(open.matchId)).seat, 1, "a public seat needs no code");

  // An organizer seats a player without the code.
  const seated = await organizer.createMatch("focus", { openSeats: [0] });
  assert.equal((await organizer.join(seated.matchId, 0)).seat, 0);
});

test("seat identities show in views, the feed, results and the record", async () => {
  const labels = { table: unique("names") };
  const match = await organizer.createMatch("focus", {
    openSeats: [1],
    labels,
    seatPlayers: [{ seat: 0, displayName: "Ada", externalId: "p-17" }],
  });
  const joined = await client.join(match.matchId, undefined, {
    code: match.joinCodes.get(1)!,
    displayName: "Bo",
    externalId: "p-42",
  });
  const expected = [
    [0, "Ada", "p-17"],
    [1, "Bo", "p-42"],
  ];
  const seatsOf = (view: { seats: { seat: number; displayName: string; externalId: string }[] }) =>
    view.seats.map((s) => [s.seat, s.displayName, s.externalId]);
  assert.deepEqual(seatsOf(await joined.view()), expected);
  assert.deepEqual(seatsOf(await client.view(match.matchId)), expected);

  await joined.resign();
  const final = await match.view();
  assert.equal(final.state, MatchState.FINISHED);
  assert.deepEqual(
    final.results.map((r) => [r.seat, r.displayName, r.externalId, r.rank]).sort(),
    [
      [0, "Ada", "p-17", 1],
      [1, "Bo", "p-42", 2],
    ],
  );

  const events = await take((signal) => organizer.followLifecycle({ labels, signal }), 5);
  assert.deepEqual(
    events.map((e) => e.kind.case),
    ["created", "seatFilled", "started", "seatOut", "finished"],
  );
  const [created, filled] = events;
  assert.ok(created?.kind.case === "created" && filled?.kind.case === "seatFilled");
  assert.deepEqual(
    created.kind.value.seatPlayers.map((p) => [p.seat, p.displayName, p.externalId]),
    [[0, "Ada", "p-17"]],
  );
  assert.equal(filled.kind.value.seat, 1);
  assert.deepEqual([filled.kind.value.player?.displayName, filled.kind.value.player?.externalId], ["Bo", "p-42"]);

  const record = await organizer.exportRecord(match.matchId);
  assert.ok(record.includes("Ada") && record.includes("p-42"), "the record keeps who played");
});

test("a reissued seat token replaces the old one", async () => {
  const match = await organizer.createMatch("focus", { seed: 91 });
  const lost = match.seat(match.createdView.toMove[0]!);
  const anonymous = await refusal(client.reissueSeatToken(match.matchId, lost.seat));
  assert.ok(anonymous instanceof TokenRequired, String(anonymous));
  assert.equal(anonymous.credential, "organizer");

  const found = await organizer.reissueSeatToken(match.matchId, lost.seat);
  assert.equal(found.seat, lost.seat);
  assert.ok(found.token && found.token !== lost.token);
  const old = await refusal(lost.legalActions());
  assert.ok(old instanceof BadToken, String(old));
  assert.equal(old.credential, "seat");
  const [action] = await found.legalActions();
  assert.equal((await found.act(action!)).view?.version, match.createdView.version + 1n);
});
