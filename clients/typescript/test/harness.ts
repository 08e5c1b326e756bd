/**
 * Test harness: the real engine-host binary with the real plugins, on a free
 * port. The binary and plugins come from the workspace's cargo target
 * directory (`$CARGO_TARGET_DIR` or `<repo>/target`, profile `debug`), where
 * `cargo build --workspace` puts them; a missing binary fails the tests.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { after, before } from "node:test";

import { connect, type Client } from "../src/index.js";

/** clients/typescript (this file is compiled to dist/test/harness.js). */
export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const REPO = resolve(PACKAGE_DIR, "..", "..");
export const RANDOM_BOT = join(PACKAGE_DIR, "dist", "examples", "random-bot.js");

export function engineHostBinary(): string {
  const configured = process.env.CARGO_TARGET_DIR;
  const target = configured ? (isAbsolute(configured) ? configured : join(REPO, configured)) : join(REPO, "target");
  const binary = join(target, "debug", "engine-host");
  if (!existsSync(binary)) {
    throw new Error(
      `${binary} is missing: build it first with \`cargo build --workspace\` (it also builds the game plugins the tests play)`,
    );
  }
  return binary;
}

/** The admin token the test host is started with. */
export const ADMIN_TOKEN = "x";

export interface Host {
  address: string;
  /** The host's metrics by sample name (started with `--metrics-listen`). */
  metrics(): Promise<Map<string, number>>;
  /** Its data directory (the store a host started after it may take over). */
  dataDir: string;
  stop(): Promise<void>;
  /** Kills it at once (SIGKILL), as a crash would; its data stays. */
  kill(): Promise<void>;
}

/** Where a host listens and keeps its matches. */
export interface HostPlace {
  /** `127.0.0.1:0` (any free port) unless given. */
  listen?: string;
  /** A fresh directory (removed by `stop`) unless given. */
  dataDir?: string;
}

/**
 * Starts engine-host (with `extraArgs`) and resolves once it prints
 * `listening on ADDR`.
 */
export async function startHost(extraArgs: string[] = [], place: HostPlace = {}): Promise<Host> {
  const binary = engineHostBinary();
  const ownDir = place.dataDir === undefined;
  const dataDir = place.dataDir ?? mkdtempSync(join(tmpdir(), "tabletop-ts-"));
  const child: ChildProcess = spawn(
    binary,
    [
      "--listen",
      place.listen ?? "127.0.0.1:0",
      "--plugin-dir",
      dirname(binary),
      "--data-dir",
      join(dataDir, "data"),
      ...extraArgs,
    ],
    // The token in the environment: a process's arguments are readable by every user.
    // One cache of passing plugin checks for every host of the run (the
    // Rust tests' too): each built plugin is checked once.
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        TABLETOP_PLUGIN_CHECK_CACHE: join(dirname(dirname(binary)), "plugin-check-cache"),
        ...process.env,
        TABLETOP_ADMIN_TOKEN: ADMIN_TOKEN,
      },
    },
  );
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    // Keep the start of the log for error messages; drop the rest.
    if (stderr.length < 20_000) stderr += chunk;
  });
  const lines = createInterface({ input: child.stdout! });
  // Read from the start: the metrics address, the second line, may come in
  // the same chunk as the first. Reading on keeps the host from blocking on
  // a full pipe.
  let metricsAddress: string | undefined;
  lines.on("line", (line) => {
    const metrics = /^metrics on (\S+)$/.exec(line.trim());
    if (metrics) metricsAddress = metrics[1];
  });
  const first = await new Promise<string>((resolveLine, reject) => {
    lines.once("line", resolveLine);
    child.once("exit", (code) => reject(new Error(`engine-host exited (${code}) before listening:\n${stderr}`)));
    child.once("error", reject);
  });
  const match = /^listening on (\S+)$/.exec(first.trim());
  if (!match) {
    child.kill("SIGKILL");
    throw new Error(`engine-host printed ${JSON.stringify(first)} instead of "listening on ADDR":\n${stderr}`);
  }
  return {
    address: match[1]!,
    dataDir,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGKILL");
        await exited;
      }
    },
    async metrics() {
      for (let waited = 0; !metricsAddress; waited += 10) {
        if (waited > 10_000) throw new Error("no `metrics on` line: start the host with --metrics-listen");
        await new Promise((r) => setTimeout(r, 10));
      }
      const text = await (await fetch(`http://${metricsAddress}/metrics`)).text();
      const samples = new Map<string, number>();
      for (const line of text.split("\n")) {
        if (!line || line.startsWith("#")) continue;
        const space = line.lastIndexOf(" ");
        samples.set(line.slice(0, space), Number(line.slice(space + 1)));
      }
      return samples;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A host started for one test file, with the clients its tests share. */
export interface TestHost {
  /** The host's address, `127.0.0.1:PORT`. */
  address: string;
  /** An anonymous client, as a player's. */
  client: Client;
  /** A client that holds the admin token. */
  director: Client;
  /**
   * A client with an organizer credential the admin issued, as a tournament
   * platform's: it may choose seeds and direct matches, not administer.
   */
  organizer: Client;
}

/**
 * Starts a host before the calling file's tests and stops it after them
 * (`before` and `after` hooks); the returned object is filled in once the
 * host listens, so tests read it, never the module's top level.
 */
export function testHost(): TestHost {
  const testHost = {} as TestHost;
  let host: Host | undefined;
  before(async () => {
    host = await startHost();
    testHost.address = host.address;
    testHost.client = connect(host.address);
    testHost.director = connect(host.address, { adminToken: ADMIN_TOKEN });
    const organizer = await testHost.director.issueCredential("test organizer");
    testHost.organizer = connect(host.address, { credential: organizer.secret });
  });
  after(async () => {
    testHost.client?.close();
    testHost.director?.close();
    testHost.organizer?.close();
    await host?.stop();
  });
  return testHost;
}
