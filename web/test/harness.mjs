// The browser tests' parts: the real engine-host (built by `cargo build
// --workspace`, from the cargo target directory as clients/typescript's
// tests find it) with the real plugins, serving the page on a free port,
// and Debian's chromium driven by playwright-core.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

import { chromium } from "playwright-core";

export const WEB_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO = resolve(WEB_DIR, "..");
/** Where the tests leave their screenshots. */
export const RESULTS_DIR = process.env.TABLETOP_SCREENSHOTS_DIR ?? join(WEB_DIR, "test-results");
/** The admin token the test host is started with (pasted as the page's credential). */
export const ADMIN_TOKEN = "web-test-admin";

export function engineHostBinary() {
  const configured = process.env.CARGO_TARGET_DIR;
  const target = configured ? (isAbsolute(configured) ? configured : join(REPO, configured)) : join(REPO, "target");
  const binary = join(target, "debug", "engine-host");
  if (!existsSync(binary)) {
    throw new Error(`${binary} is missing: build it first with \`cargo build --workspace\` (it also builds the game plugins)`);
  }
  return binary;
}

/**
 * Starts engine-host with its web page on a free port; resolves with the
 * page's URL. Its plugins are the built ones, or those of `pluginDir`.
 */
export async function startHost({ pluginDir } = {}) {
  const binary = engineHostBinary();
  const dataDir = mkdtempSync(join(tmpdir(), "tabletop-web-"));
  const child = spawn(
    binary,
    [
      "--listen", "127.0.0.1:0",
      "--web-listen", "127.0.0.1:0",
      "--plugin-dir", pluginDir ?? dirname(binary),
      "--data-dir", join(dataDir, "data"),
    ],
    // The token in the environment: a process's arguments are readable by every user.
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, RUST_LOG: "warn", TABLETOP_ADMIN_TOKEN: ADMIN_TOKEN } },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    if (stderr.length < 20_000) stderr += chunk;
  });
  const lines = createInterface({ input: child.stdout });
  const web = await new Promise((resolveLine, reject) => {
    lines.on("line", (line) => {
      const found = /^web on (\S+)$/.exec(line.trim());
      if (found) resolveLine(found[1]);
    });
    child.once("exit", (code) => reject(new Error(`engine-host exited (${code}) before serving the page:\n${stderr}`)));
  });
  return {
    url: `http://${web}/`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Debian's chromium (installed by web/test.sh); never a downloaded browser. */
export async function launchBrowser() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
}

/**
 * A page that records every console error and uncaught exception:
 * `page.assertNoErrors()` fails the test on any.
 */
export async function openPage(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  page.assertNoErrors = () => assert.deepEqual(errors, [], `errors on ${page.url()}`);
  if (url) await page.goto(url);
  return page;
}

/** The version of the board the page shows now (-1: none yet). */
export async function boardVersion(page) {
  return page.evaluate(() => Number(document.querySelector(".tt-board")?.getAttribute("data-version") ?? -1));
}

/** Waits until the page's board shows at least `version`. */
export async function waitForVersion(page, version) {
  await page.waitForFunction((v) => Number(document.querySelector(".tt-board")?.getAttribute("data-version") ?? -1) >= v, version);
}

/** The view JSON the page's board was drawn from. */
export async function shownView(page) {
  return JSON.parse(await page.locator(".tt-board .view-json pre").textContent());
}

/**
 * Creates a match from the lobby form (the page is on the lobby); returns
 * its id and, per seat, the page's links: `play` (this browser, token in
 * localStorage) and `share` (the token in the URL fragment).
 */
export async function createFromLobby(page, game, players, options = {}, labels = "", bots = {}) {
  await page.locator("select.game option").first().waitFor({ state: "attached" });
  await page.selectOption("select.game", game);
  await page.fill("input.players", String(players));
  await page.dispatchEvent("input.players", "change");
  for (const [name, value] of Object.entries(options)) await page.fill(`.options [name="${name}"]`, value);
  if (labels) await page.fill("input.labels", labels);
  for (const [seat, spec] of Object.entries(bots)) await page.fill(`.seat-row[data-seat="${seat}"] .bot-spec`, spec);
  await page.click("button.create-button");
  await page.locator("a.watch-link").waitFor();
  const matchId = await page.locator("a.watch-link").textContent();
  const seats = [];
  for (let seat = 0; seat < players; seat++) {
    if (seat in bots) {
      seats.push(undefined);
      continue;
    }
    seats.push({
      play: await page.locator(`a.play-link[data-seat="${seat}"]`).getAttribute("href"),
      share: await page.locator(`a.share-link[data-seat="${seat}"]`).getAttribute("href"),
    });
  }
  return { matchId, seats };
}

/**
 * Plays one move on a page whose seat is to move by clicking the board:
 * the first highlighted element, then the first of the next ones, until
 * the clicks complete an action; resolves once the page shows the result.
 */
export async function playByClicking(page) {
  const before = await boardVersion(page);
  for (let click = 0; click < 10; click++) {
    await page.locator(".tt-board .tt-target").first().click();
    const selected = await page.evaluate(() => document.querySelector(".tt-board")?.getAttribute("data-selected") ?? "");
    if (selected === "") {
      await submitted(page, before);
      return;
    }
    const choice = page.locator(".chooser button");
    if ((await choice.count()) > 0) {
      await choice.first().click();
      await submitted(page, before);
      return;
    }
  }
  throw new Error("ten clicks completed no action");
}

/** Waits until the page shows its move played (or held for a simultaneous turn). */
async function submitted(page, before) {
  await page.waitForFunction(
    (v) =>
      Number(document.querySelector(".tt-board")?.getAttribute("data-version") ?? -1) > v ||
      /held/.test(document.querySelector(".message")?.textContent ?? ""),
    before,
  );
}

/** Submits the first move of the page's move list. */
export async function playFromList(page) {
  await page.locator("select.moves option").first().waitFor({ state: "attached" });
  // With click to play the list is folded away under "all N moves".
  await page.evaluate(() => {
    for (const folded of document.querySelectorAll("details.moves-box")) folded.open = true;
  });
  await page.click("button.submit");
}
