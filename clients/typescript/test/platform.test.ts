/**
 * The TypeScript client's tournament-platform calls against the real
 * engine-host and the real plugins: labels, paging, idempotent creation, the
 * lifecycle feed, the director's controls, the admin's lift of a
 * quarantine, credentials (and the end of the streams a revoked one
 * opened), invite-only seats, seat identities and reissued tokens (and the
 * end of the watches the old one opened).
 */

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";

import {
  BadToken,
  Code,
  ControlRefused,
  CredentialRole,
  InvalidPageToken,
  MatchPaused,
  MatchState,
  NotPermitted,
  OutReason,
  RequestIdReused,
  TabletopError,
  TokenRequired,
  UnknownGame,
  connect,
  type LifecycleEvent,
  type MatchSummary,
  type WatchEvent,
} from "../src/index.js";
import { ADMIN_TOKEN, testHost } from "./harness.js";

const host = testHost();

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
  const first = await host.organizer.createMatch("focus", { seed: 10, labels: firstLabels });
  const second = await host.organizer.createMatch("focus", { seed: 11, labels: { tournament, round: "2" } });

  assert.deepEqual(first.createdView.labels, firstLabels);
  assert.deepEqual((await host.client.view(first.matchId)).labels, firstLabels);
  const listed = (await host.client.listMatches({ labels: { tournament } })).matches;
  assert.deepEqual(
    listed.map((m) => m.matchId),
    [first.matchId, second.matchId],
  );
  assert.deepEqual(listed[0]!.labels, firstLabels);
  const onlyRound1 = (await host.client.listMatches({ labels: { tournament, round: "1" } })).matches;
  assert.deepEqual(
    onlyRound1.map((m) => m.matchId),
    [first.matchId],
    "every label given must match",
  );
  assert.equal((await host.client.listMatches({ labels: { tournament, round: "3" } })).matches.length, 0);
});

test("paging lists every match exactly once", async () => {
  const batch = { batch: unique("paging") };
  const created = [];
  for (let i = 0; i < 150; i++) created.push(await host.organizer.createMatch("focus", { seed: i, labels: batch }));
  const ids = new Set(created.map((m) => m.matchId));

  const pages: MatchSummary[][] = [];
  let pageToken = "";
  for (;;) {
    const page = await host.client.listMatches({ labels: batch, pageSize: 7, pageToken });
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
    (await all(host.client.iterMatches({ labels: batch, pageSize: 7 }))).map((m) => m.matchId),
    listed.map((m) => m.matchId),
  );

  // Creation-time and state filters narrow the same listing.
  const oldest = listed[0]!.createdAtMs;
  const newest = listed.at(-1)!.createdAtMs;
  assert.equal((await all(host.client.iterMatches({ labels: batch, createdBeforeMs: oldest }))).length, 0);
  const fromNewest = await all(host.client.iterMatches({ labels: batch, createdFromMs: newest }));
  assert.ok(fromNewest.length > 0 && fromNewest.every((m) => m.createdAtMs === newest));
  for (const match of created.slice(0, 5)) await match.seat(0).resign();
  const finished = await all(host.client.iterMatches({ labels: batch, state: MatchState.FINISHED, pageSize: 2 }));
  assert.deepEqual(
    finished.map((m) => m.matchId).sort(),
    created.slice(0, 5).map((m) => m.matchId).sort(),
  );

  await assert.rejects(host.client.listMatches({ labels: batch, pageToken: "not-a-token-the-server-issued" }), (err: unknown) => {
    assert.ok(err instanceof InvalidPageToken, String(err));
    assert.equal(err.code, Code.InvalidArgument);
    return true;
  });
});

test("a retried createMatch returns the same match and tokens", async () => {
  const labels = { table: unique("retry") };
  const requestId = unique("request");
  const first = await host.organizer.createMatch("focus", { seed: 21, labels, requestId });
  const retried = await host.organizer.createMatch("focus", { seed: 21, labels, requestId });
  assert.equal(retried.matchId, first.matchId);
  assert.deepEqual([...retried.tokens], [...first.tokens]);
  assert.equal(first.tokens.size, 2);

  await assert.rejects(host.organizer.createMatch("focus", { seed: 22, labels, requestId }), (err: unknown) => {
    assert.ok(err instanceof RequestIdReused, String(err));
    assert.equal(err.code, Code.AlreadyExists);
    assert.equal(err.requestId, requestId);
    assert.equal(err.matchId, first.matchId);
    return true;
  });
  assert.deepEqual(
    (await all(host.client.iterMatches({ labels }))).map((m) => m.matchId),
    [first.matchId],
    "no second match",
  );
});

test("the lifecycle feed tells each match's life and resumes after a cursor", async () => {
  const labels = { tournament: unique("feed") };
  // Followed live, while the matches below are played.
  const following = take((signal) => host.director.followLifecycle({ labels, signal }), 9);

  const played = await host.director.createMatch("focus", { seed: 31, labels });
  const mover = played.createdView.toMove[0]!;
  const [action] = await played.seat(mover).legalActions();
  await played.seat(mover).act(action!);
  await played.seat(mover).resign();

  const aborted = await host.director.createMatch("focus", { labels, openSeats: [1] });
  await host.director.abortMatch(aborted.matchId, "table 2 withdrew");

  const adjudicated = await host.director.createMatch("focus", { seed: 33, labels });
  const view = await host.director.adjudicateMatch(adjudicated.matchId, { 0: 2, 1: 1 }, { scores: { 1: 3.5 } });
  assert.equal(view.state, MatchState.FINISHED);
  assert.ok(view.adjudicated);

  // Not in the filtered feed: another tournament's match.
  const other = await host.director.createMatch("focus", { labels: { tournament: unique("other") } });
  await host.director.abortMatch(other.matchId);

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
  const resumed = await take((signal) => host.director.followLifecycle({ labels, afterCursor: events[3]!.cursor, signal }), 5);
  assert.deepEqual(resumed, events.slice(4));
  const after = await take((signal) => host.director.followLifecycle({ labels, afterCursor: events.at(-1)!.cursor, signal }), 1, 1_000);
  assert.deepEqual(after, []);
});

test("a paused match refuses actions until it resumes", async () => {
  const labels = { table: unique("pause") };
  const match = await host.director.createMatch("focus", { seed: 41, labels });
  const seat = match.seat(match.createdView.toMove[0]!);
  const [action] = await seat.legalActions();
  assert.ok(action);

  const paused = await host.director.pauseMatch(match.matchId);
  assert.ok(paused.paused);
  await assert.rejects(seat.act(action), (err: unknown) => {
    assert.ok(err instanceof MatchPaused, String(err));
    assert.equal(err.code, Code.FailedPrecondition);
    return true;
  });
  await assert.rejects(host.director.pauseMatch(match.matchId), ControlRefused, "already paused");
  assert.equal((await match.view()).version, paused.version, "the refused action changed nothing");

  const resumed = await host.director.resumeMatch(match.matchId);
  assert.equal(resumed.paused, false);
  assert.equal((await seat.act(action)).view?.version, resumed.version + 1n);
  await assert.rejects(host.director.resumeMatch(match.matchId), ControlRefused, "not paused");

  const events = await take((signal) => host.director.followLifecycle({ labels, signal }), 4);
  assert.deepEqual(
    events.map((e) => e.kind.case),
    ["created", "started", "paused", "resumed"],
  );
});

test("addTime adds to the seat's clock", async () => {
  const match = await host.director.createMatch("focus", { seed: 51, timeControl: { bankMs: 600_000n } });
  // The seat not to move: its clock stands still, so the sum is exact.
  const waiting = 1 - match.createdView.toMove[0]!;
  const before = (await match.view()).seats[waiting]!.clockRemainingMs!;
  const after = (await host.director.addTime(match.matchId, waiting, 5_000)).seats[waiting]!.clockRemainingMs;
  assert.equal(after, before + 5_000n);
  assert.equal((await match.view()).seats[waiting]!.clockRemainingMs, after);

  const unclocked = await host.director.createMatch("focus", { seed: 52 });
  await assert.rejects(host.director.addTime(unclocked.matchId, 0, 5_000), ControlRefused);
});

test("lifting a quarantine is refused for a match not quarantined", async () => {
  // Only a plugin's fault quarantines a match; the admin lifts it.
  const match = await host.director.createMatch("focus", { seed: 57 });
  const view = await match.view();
  assert.equal(view.state, MatchState.RUNNING);
  assert.equal(view.quarantineReason, "");
  await assert.rejects(host.director.liftQuarantine(match.matchId), (err: unknown) => {
    assert.ok(err instanceof ControlRefused, String(err));
    assert.equal(err.code, Code.FailedPrecondition);
    return true;
  });
  await assert.rejects(
    host.director.liftQuarantine(match.matchId, { pluginVersion: "9.9.9" }),
    (err: unknown) => {
      assert.ok(err instanceof UnknownGame, String(err));
      assert.equal(err.code, Code.NotFound);
      return true;
    },
  );
  await assert.rejects(host.client.liftQuarantine(match.matchId), (err: unknown) => {
    assert.ok(err instanceof TokenRequired, String(err));
    assert.equal(err.credential, "admin");
    return true;
  });
  assert.deepEqual((await host.director.listMatches({ state: MatchState.QUARANTINED })).matches, []);
});

test("director calls need a credential", async () => {
  const match = await host.director.createMatch("focus", { seed: 61 });
  await assert.rejects(host.client.pauseMatch(match.matchId), (err: unknown) => {
    assert.ok(err instanceof TokenRequired, String(err));
    assert.equal(err.code, Code.Unauthenticated);
    assert.equal(err.credential, "organizer", "an organizer credential is the least that will do");
    return true;
  });
  await assert.rejects(host.client.abortMatch(match.matchId, "", { adminToken: "not-the-token" }), (err: unknown) => {
    assert.ok(err instanceof BadToken, String(err));
    assert.equal(err.credential, "bearer");
    return true;
  });
  await assert.rejects(take((signal) => host.client.followLifecycle({ adminToken: "not-the-token", signal }), 1), BadToken);
  // A call's own token overrides the client's.
  assert.ok((await host.client.pauseMatch(match.matchId, { adminToken: ADMIN_TOKEN })).paused);
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

/** How soon a stream must end once what opened it is withdrawn: the server
 * promises a second; the rest is slack for a loaded machine. */
const WITHDRAWN_WITHIN_MS = 3_000;

/** How long a stream that must go on is given to deliver its next message. */
const PATIENCE_MS = 10_000;

/** A stream read message by message within time limits. */
interface BoundedStream<T> {
  /** The stream's next message, within `PATIENCE_MS`. */
  next(what: string): Promise<T>;
  /**
   * The typed error the stream ends with within `WITHDRAWN_WITHIN_MS`;
   * messages already on their way are skipped.
   */
  refusal(what: string): Promise<TabletopError>;
  /** Stops reading (harmless once the stream has ended). */
  close(): void;
}

/**
 * `open` opens the stream with a signal that is aborted when a limit
 * passes, so a stream that goes quiet fails the test instead of hanging it.
 */
function bounded<T>(open: (signal: AbortSignal) => AsyncIterable<T>): BoundedStream<T> {
  const controller = new AbortController();
  const items = open(controller.signal)[Symbol.asyncIterator]();
  async function within<R>(ms: number, what: string, step: () => Promise<R>): Promise<R> {
    const timer = setTimeout(() => controller.abort(), ms);
    try {
      const result = await step();
      // An aborted feed ends without an error; an aborted watch throws.
      if (controller.signal.aborted) assert.fail(`${what}: still waiting after ${ms} ms`);
      return result;
    } catch (e) {
      if (controller.signal.aborted) assert.fail(`${what}: still waiting after ${ms} ms`);
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }
  return {
    async next(what: string): Promise<T> {
      const next = await within(PATIENCE_MS, what, () => items.next());
      if (next.done) assert.fail(`${what}: the stream ended`);
      return next.value;
    },
    async refusal(what: string): Promise<TabletopError> {
      const err = await within(WITHDRAWN_WITHIN_MS, what, async () => {
        for (;;) {
          let next: IteratorResult<T>;
          try {
            next = await items.next();
          } catch (e) {
            return e;
          }
          if (next.done) assert.fail(`${what}: the stream ended without saying why`);
        }
      });
      assert.ok(err instanceof TabletopError, String(err));
      return err;
    },
    close(): void {
      controller.abort();
    },
  };
}

test("an organizer credential chooses seeds and directs but does not administer", async () => {
  const issued = await host.director.issueCredential("spring platform");
  assert.ok(issued.secret && issued.credential?.credentialId);
  assert.equal(issued.credential.name, "spring platform");
  assert.equal(issued.credential.role, CredentialRole.ORGANIZER);
  assert.equal(issued.credential.tenant, issued.credential.credentialId, "without a tenant, its own");
  const listed = (await host.director.listCredentials()).find((c) => c.credentialId === issued.credential!.credentialId);
  assert.ok(listed, "listed");
  assert.equal(listed.revokedAtMs, undefined);

  // Anonymous: no seed of one's own (it would let a player replay the chance).
  const anonymousSeed = await refusal(host.client.createMatch("focus", { seed: 71 }));
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
  assert.ok((await host.director.listPlugins()).length > 0, "the admin token may list the plugins");
  const anonymousAdmin = await refusal(host.client.listPlugins());
  assert.ok(anonymousAdmin instanceof TokenRequired, String(anonymousAdmin));
  assert.equal(anonymousAdmin.credential, "admin");
});

test("an organizer runs only its own tenant's matches", async () => {
  const spring = await host.director.issueCredential("spring desk", { tenant: "spring" });
  assert.equal(spring.credential?.tenant, "spring");
  const other = await host.director.issueCredential("another platform");
  const a = connect(host.address, { credential: spring.secret });
  const b = connect(host.address, { credential: other.secret });
  try {
    const match = await a.createMatch("focus", { seed: 5 });
    const refused = await refusal(b.pauseMatch(match.matchId));
    assert.ok(refused instanceof NotPermitted, String(refused));
    assert.equal(refused.credential, "admin");
    assert.ok((await refusal(b.exportRecord(match.matchId))) instanceof NotPermitted);
    assert.ok((await host.director.pauseMatch(match.matchId)).paused, "the admin directs every tenant's");
  } finally {
    a.close();
    b.close();
  }
});

test("a revoked credential is refused", async () => {
  const issued = await host.director.issueCredential("revoked platform");
  const platform = connect(host.address, { credential: issued.secret });
  try {
    const match = await platform.createMatch("focus", { seed: 81 });
    const revoked = await host.director.revokeCredential(issued.credential!.credentialId);
    assert.equal(revoked.credentialId, issued.credential!.credentialId);
    assert.ok(revoked.revokedAtMs !== undefined, "revoked now");
    const listed = (await host.director.listCredentials()).find((c) => c.credentialId === revoked.credentialId);
    assert.equal(listed?.revokedAtMs, revoked.revokedAtMs);

    const refused = await refusal(platform.pauseMatch(match.matchId));
    assert.ok(refused instanceof BadToken, String(refused));
    assert.equal(refused.code, Code.PermissionDenied);
    assert.equal(refused.credential, "bearer");
    // Refused, not taken for anonymous: even a call anyone may make.
    assert.ok((await refusal(platform.createMatch("focus"))) instanceof BadToken);
    assert.equal((await host.director.view(match.matchId)).paused, false);
  } finally {
    platform.close();
  }
});

test("revoking a credential ends the lifecycle feed it opened with BadToken", async () => {
  const issued = await host.director.issueCredential("revoked follower");
  const labels = { table: unique("revoked-feed") };
  const platform = connect(host.address, { credential: issued.secret });
  const feed = bounded((signal) => platform.followLifecycle({ labels, signal }));
  try {
    const match = await platform.createMatch("focus", { seed: 82, labels });
    // The feed delivers while the credential holds.
    const created = await feed.next("the feed before the revocation");
    assert.deepEqual([created.matchId, created.kind.case], [match.matchId, "created"]);

    await host.director.revokeCredential(issued.credential!.credentialId);
    const ended = await feed.refusal("the feed after the revocation");
    assert.ok(ended instanceof BadToken, String(ended));
    assert.equal(ended.code, Code.PermissionDenied);
    assert.equal(ended.reason, "BAD_TOKEN");
    assert.equal(ended.credential, "bearer");

    // The same refusal a new feed with the credential gets.
    const refollowed = await refusal(take((signal) => platform.followLifecycle({ labels, signal }), 1));
    assert.ok(refollowed instanceof BadToken, String(refollowed));
    assert.deepEqual(
      [refollowed.code, refollowed.reason, refollowed.credential],
      [ended.code, ended.reason, ended.credential],
    );
  } finally {
    feed.close();
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
  const match = await host.organizer.createMatch("focus", { openSeats: [1] });
  assert.deepEqual([...match.tokens.keys()], [0]);
  assert.deepEqual([...match.joinCodes.keys()], [1]);
  const code = match.joinCodes.get(1)!;

  const noCode = await refusal(host.client.join(match.matchId));
  assert.ok(noCode instanceof TokenRequired, String(noCode));
  assert.equal(noCode.code, Code.Unauthenticated);
  assert.equal(noCode.credential, "join_code");
  assert.ok((await refusal(host.client.join(match.matchId, 1))) instanceof TokenRequired);
  const wrong = await refusal(host.client.join(match.matchId, undefined, { code: "not-the-code" }));
  assert.ok(wrong instanceof BadToken, String(wrong));
  assert.equal(wrong.credential, "join_code");
  assert.equal((await host.client.view(match.matchId)).state, MatchState.WAITING);

  const joined = await host.client.join(match.matchId, undefined, { code });
  assert.equal(joined.seat, 1);
  assert.equal((await joined.view()).state, MatchState.RUNNING);
  // A code admits once.
  assert.ok((await refusal(host.client.join(match.matchId, undefined, { code }))) instanceof BadToken);

  const open = await host.organizer.createMatch("focus", { openSeats: [1], publicOpenSeats: true });
  assert.equal(open.joinCodes.size, 0);
  assert.equal((await host.client.join(open.matchId)).seat, 1, "a public seat needs no code");

  // An organizer seats a player without the code.
  const seated = await host.organizer.createMatch("focus", { openSeats: [0] });
  assert.equal((await host.organizer.join(seated.matchId, 0)).seat, 0);
});

test("seat identities show in views, the feed, results and the record", async () => {
  const labels = { table: unique("names") };
  const match = await host.organizer.createMatch("focus", {
    openSeats: [1],
    labels,
    seatPlayers: [{ seat: 0, displayName: "Ada", externalId: "p-17" }],
  });
  const joined = await host.client.join(match.matchId, undefined, {
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
  assert.deepEqual(seatsOf(await host.client.view(match.matchId)), expected);

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

  const events = await take((signal) => host.organizer.followLifecycle({ labels, signal }), 5);
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

  const record = await host.organizer.exportRecord(match.matchId);
  assert.ok(record.includes("Ada") && record.includes("p-42"), "the record keeps who played");
});

test("a reissued seat token replaces the old one", async () => {
  const match = await host.organizer.createMatch("focus", { seed: 91 });
  const lost = match.seat(match.createdView.toMove[0]!);
  const anonymous = await refusal(host.client.reissueSeatToken(match.matchId, lost.seat));
  assert.ok(anonymous instanceof TokenRequired, String(anonymous));
  assert.equal(anonymous.credential, "organizer");

  const found = await host.organizer.reissueSeatToken(match.matchId, lost.seat);
  assert.equal(found.seat, lost.seat);
  assert.ok(found.token && found.token !== lost.token);
  const old = await refusal(lost.legalActions());
  assert.ok(old instanceof BadToken, String(old));
  assert.equal(old.credential, "seat");
  const [action] = await found.legalActions();
  assert.equal((await found.act(action!)).view?.version, match.createdView.version + 1n);
});

test("reissuing a seat token ends the watch it opened with BadToken", async () => {
  const match = await host.organizer.createMatch("focus", { seed: 92 });
  const lostSeat = match.createdView.toMove[0]!;
  const oldToken = match.tokens.get(lostSeat)!;
  const player = host.client;
  const watch = bounded((signal) => player.watch(match.matchId, oldToken, { signal }));
  let renewed: BoundedStream<WatchEvent> | undefined;
  try {
    const snapshot = await watch.next("the watch before the re-issue");
    assert.equal(snapshot.kind.case, "snapshot");

    const found = await host.organizer.reissueSeatToken(match.matchId, lostSeat);
    const ended = await watch.refusal("the watch with the old token");
    assert.ok(ended instanceof BadToken, String(ended));
    assert.equal(ended.code, Code.PermissionDenied);
    assert.equal(ended.reason, "BAD_TOKEN");
    assert.equal(ended.credential, "seat");
    const rewatched = await refusal(take((signal) => player.watch(match.matchId, oldToken, { signal }), 1));
    assert.ok(rewatched instanceof BadToken, String(rewatched));
    assert.deepEqual(
      [rewatched.code, rewatched.reason, rewatched.credential],
      [ended.code, ended.reason, ended.credential],
    );

    // The new token watches and plays on where the old one stopped.
    renewed = bounded((signal) => player.watch(match.matchId, found.token, { signal }));
    const renewedSnapshot = await renewed.next("the watch with the new token");
    assert.equal(renewedSnapshot.kind.case, "snapshot");
    assert.equal(renewedSnapshot.version, match.createdView.version);
    const [action] = (await player.legalActions(match.matchId, found.token)).actions;
    await player.act(match.matchId, found.token, action!);
    const moved = await renewed.next("the move, to the new token's watch");
    assert.equal(moved.kind.case, "transition");
    assert.equal(moved.version, match.createdView.version + 1n);
  } finally {
    watch.close();
    renewed?.close();
  }
});
