/**
 * The client given several server addresses, against the real engine-host:
 * an address where nothing listens is passed over, and a host killed in the
 * middle of a match is replaced by the next address — a move made during
 * the outage and a watch open across it go on there, the move applied once.
 */

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";

import { Code, ConnectError, connect, type WatchEvent } from "../src/index.js";
import { startHost, type Host } from "./harness.js";

/** `127.0.0.1:PORT` where nothing listens (bound, then let go). */
async function freeAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return `127.0.0.1:${address.port}`;
}

test("a call to a dead first address moves to the next and plays there", async () => {
  const host = await startHost();
  const client = connect([await freeAddress(), host.address]);
  try {
    const started = Date.now();
    // A creation without a request id too: it never left this machine.
    const match = await client.createMatch("focus", { players: 2 });
    const seat = match.seat(0);
    const version = (await seat.view()).version;
    await seat.act((await seat.legalActions())[0]!, version);
    assert.equal((await match.view()).version, version + 1n);
    assert.ok(Date.now() - started < 10_000, "a refused connection is passed over at once");
  } finally {
    client.close();
    await host.stop();
  }
});

test("one dead address fails at once, without retrying", async () => {
  const client = connect(await freeAddress());
  try {
    const started = Date.now();
    await assert.rejects(client.games(), (e: unknown) => e instanceof ConnectError && e.code === Code.Unavailable);
    assert.ok(Date.now() - started < 5_000);
  } finally {
    client.close();
  }
});

test("a killed host is replaced by the next address for a move and a watch", async () => {
  const first = await startHost();
  const secondAddress = await freeAddress();
  let second: Host | undefined;
  const client = connect(`${first.address},${secondAddress}`);
  const stopWatching = new AbortController();
  try {
    const match = await client.createMatch("focus", { players: 2 });
    const seat = match.seat(0);
    const action = (await seat.legalActions())[0]!;
    const watched: WatchEvent[] = [];
    let watchEnded: unknown;
    const watching = (async () => {
      try {
        for await (const event of match.watch({ signal: stopWatching.signal })) watched.push(event);
      } catch (e) {
        watchEnded = e;
      }
    })();
    await until(() => watched.length > 0, 10_000, "the snapshot");
    assert.equal(watched[0]!.kind.case, "snapshot");

    await first.kill();
    // The same store, as another host of the same database would serve it,
    // on the next address of the list, a moment after the move is sent.
    const starting = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      second = await startHost([], { listen: secondAddress, dataDir: first.dataDir });
    })();
    const answer = await seat.act(action, 0n);
    await starting;
    assert.equal(answer.view?.version, 1n);
    assert.equal((await match.view()).version, 1n, "applied once");

    await until(() => watched.length > 1 || watchEnded !== undefined, 20_000, "the move on the watch");
    assert.equal(watchEnded, undefined, `the watch ended: ${String(watchEnded)}`);
    assert.equal(watched[1]!.kind.case, "transition");
    assert.equal(watched[1]!.version, 1n);
    stopWatching.abort();
    await watching;
  } finally {
    stopWatching.abort();
    client.close();
    await second?.stop();
    await first.stop();
  }
});

async function until(done: () => boolean, withinMs: number, what: string): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
