// A game written in C against include/tabletop_plugin.h alone
// (examples/c-plugin/connect_four.c), built with the system C compiler and
// served by the real engine-host, is played in a real browser by clicks on
// its SVG board: the page finds the action targets among the board's
// element ids, exactly as for the games built with the Rust SDK.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { ADMIN_TOKEN, REPO, boardVersion, createFromLobby, launchBrowser, openPage, playByClicking, startHost, waitForVersion } from "./harness.mjs";

let host;
let browser;
let pluginDir;

before(async () => {
  pluginDir = mkdtempSync(join(tmpdir(), "tabletop-c-plugin-"));
  execFileSync(process.env.CC ?? "cc", [
    "-shared", "-fPIC", "-fvisibility=hidden", "-std=c99", "-Wall", "-Wextra", "-Werror",
    "-I", join(REPO, "include"),
    "-o", join(pluginDir, "libconnect_four.so"),
    join(REPO, "examples/c-plugin/connect_four.c"),
  ]);
  host = await startHost({ pluginDir });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await host?.stop();
  if (pluginDir) rmSync(pluginDir, { recursive: true, force: true });
});

test("a Connect Four written in C is played by clicking the columns its action targets name", async () => {
  const context = await browser.newContext();
  const lobby = await openPage(context, host.url);
  await lobby.fill("input.credential", ADMIN_TOKEN);
  await lobby.click("button.save-credential");
  const created = await createFromLobby(lobby, "connect-four", 2, {}, "", { 1: "random" });
  const player = await openPage(context, new URL(created.seats[0].share, host.url).href);
  await waitForVersion(player, 0);

  // Every clickable element of the board is one of the seven columns.
  await player.locator(".tt-board .tt-target").first().waitFor();
  const targets = await player.evaluate(() => [...document.querySelectorAll(".tt-board .tt-target")].map((element) => element.id));
  assert.deepEqual(targets, ["col-a", "col-b", "col-c", "col-d", "col-e", "col-f", "col-g"]);

  // A click on column a drops a disc there; the random bot answers.
  const before = await boardVersion(player);
  await playByClicking(player);
  await waitForVersion(player, before + 2);
  const view = JSON.parse(await player.locator(".tt-board .view-json pre").textContent());
  const bottom = view.board.split("/")[5];
  assert.equal(bottom[0], "R", `seat 0's disc lies at the bottom of column a: ${view.board}`);
  assert.equal([...view.board].filter((cell) => cell === "Y").length, 1, "the bot dropped one disc");
  for (const page of [lobby, player]) page.assertNoErrors();
  await context.close();
});
