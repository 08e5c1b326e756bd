// The web page in a real browser (Debian's chromium) against the real
// engine-host and plugins: the lobby, a Focus match played to its end by
// clicks from two browsers, a Lanza turn seen by a spectator, a replay
// stepped through, and a board of every game. Every page fails its test on
// any console error or uncaught exception.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

import {
  ADMIN_TOKEN,
  RESULTS_DIR,
  boardVersion,
  createFromLobby,
  engineHostBinary,
  launchBrowser,
  openPage,
  playByClicking,
  playFromList,
  shownView,
  startHost,
  waitForVersion,
} from "./harness.mjs";

/** The games whose plugins draw their board (the svg-board extension). */
const DRAWN = ["focus", "lanza", "lanzeloth", "war"];

let host;
let browser;
/** The Focus match the play test finishes, for the replay test. */
let finishedFocus;

before(async () => {
  host = await startHost();
  browser = await launchBrowser();
  mkdirSync(RESULTS_DIR, { recursive: true });
});

after(async () => {
  await browser?.close();
  await host?.stop();
});

/** A lobby page holding the admin token as its credential. */
async function lobbyWithCredential(context) {
  const lobby = await openPage(context, host.url);
  await lobby.fill("input.credential", ADMIN_TOKEN);
  await lobby.click("button.save-credential");
  await lobby.locator(".list-note", { hasText: "lifecycle feed" }).waitFor();
  return lobby;
}

/**
 * Focus's board as the page shows it, read in one step so that a bot's
 * reply cannot redraw the board between the two reads: the view JSON it
 * was drawn from, and each square's pieces, bottom to top, by colour class.
 */
async function focusBoardSnapshot(page) {
  return page.evaluate(() => {
    const view = JSON.parse(document.querySelector(".tt-board .view-json pre").textContent);
    const drawn = Object.fromEntries(
      [...document.querySelectorAll(".tt-board svg g.square")].map((square) => [
        square.id.replace(/^sq-/, ""),
        [...square.querySelectorAll("ellipse.piece")].map((piece) => [...piece.classList].find((c) => /^p\d$/.test(c))),
      ]),
    );
    return { view, drawn };
  });
}

/** Every tower of the view is drawn on its square, with its pieces in order. */
async function assertFocusBoardShowsView(page) {
  const { view, drawn } = await focusBoardSnapshot(page);
  assert.equal(Object.keys(drawn).length, Object.keys(view.towers).length, "a drawn square per square of the view");
  for (const [square, pieces] of Object.entries(view.towers)) {
    assert.deepEqual(drawn[square], pieces.map((colour) => `p${colour + 1}`), `square ${square}`);
  }
}

/** Every Lanza piece on a field in the view is drawn on that field's hexagon. */
async function assertLanzaBoardShowsView(page) {
  const view = await shownView(page);
  const placed = view.pieces.filter((p) => p.field);
  assert.ok(placed.length > 0, "pieces on the board");
  const misplaced = await page.evaluate((pieces) => {
    const wrong = [];
    for (const { piece, field } of pieces) {
      const disc = document.querySelector(`.tt-board svg [id="piece-${piece}"] circle`);
      const hex = document.querySelector(`.tt-board svg [id="field-${field}"] polygon`);
      if (!disc || !hex) {
        wrong.push(`${piece} on ${field}: ${disc ? "" : "no disc"} ${hex ? "" : "no field"}`);
        continue;
      }
      const box = hex.getBBox();
      const x = disc.cx.baseVal.value;
      const y = disc.cy.baseVal.value;
      if (x < box.x || x > box.x + box.width || y < box.y || y > box.y + box.height) wrong.push(`${piece} not on ${field}`);
    }
    return wrong;
  }, placed);
  assert.deepEqual(misplaced, []);
}

test("the lobby lists matches live and creates a Focus match that a browser plays to its end by clicks against a bot", async () => {
  const organizer = await browser.newContext();
  const lobby = await lobbyWithCredential(organizer);
  const focus = await createFromLobby(lobby, "focus", 2, { max_turns: "6" }, "event=web-test", { 1: "random" });
  assert.equal(focus.seats[1], undefined, "a bot's seat has no token");
  // The feed brings the new match into the list.
  await lobby.locator(`tr.match-row[data-match="${focus.matchId}"]`).waitFor();
  assert.match(await lobby.locator(`tr.match-row[data-match="${focus.matchId}"]`).textContent(), /event=web-test/);

  // The player opens seat 0's link in a browser of their own: the token
  // comes in the URL fragment.
  const own = await browser.newContext();
  const player = await openPage(own, new URL(focus.seats[0].share, host.url).href);
  await waitForVersion(player, 0);
  assert.match(await player.locator(".tt-status").textContent(), /playing seat 0/);
  assert.match(await player.locator('tr.seat[data-seat="1"]').textContent(), /bot random/);
  // The page names the build the match is played with: the plugin file's hash.
  const focusFile = readFileSync(join(dirname(engineHostBinary()), "libfocus.so"));
  const focusHash = createHash("sha256").update(focusFile).digest("hex");
  assert.match(await player.locator(".build").textContent(), new RegExp(`^focus \\S+, build ${focusHash.slice(0, 12)}$`));
  assert.equal(await player.locator(".build").getAttribute("title"), focusHash);

  let moves = 0;
  while ((await player.locator(".tt-status").getAttribute("data-state")) !== "finished") {
    // The waits that lose the race end with the page; they answer "gone" then.
    const next = await Promise.race([
      player.locator(".tt-board .tt-target").first().waitFor().then(() => "move", () => "gone"),
      player.locator(".tt-status[data-state='finished']").waitFor().then(() => "over", () => "gone"),
    ]);
    assert.notEqual(next, "gone", "the page shows a move to make or the end");
    if (next === "over") break;
    await playByClicking(player);
    moves += 1;
    await assertFocusBoardShowsView(player);
    assert.ok(moves <= 3, "max_turns 6 ends the match after three moves of each seat");
  }
  assert.equal(moves, 3);
  await player.locator(".result table.results").waitFor();
  // Every move, the bot's too, is in the event list.
  await player.locator('.events li.event[data-version="6"]').waitFor();
  assert.equal(await player.locator(".events li.event").count(), 6);
  await assertFocusBoardShowsView(player);
  await lobby.locator(`tr.match-row.finished[data-match="${focus.matchId}"]`).waitFor();
  finishedFocus = focus.matchId;
  await player.screenshot({ path: join(RESULTS_DIR, "focus-finished.png") });
  for (const page of [lobby, player]) page.assertNoErrors();
  await organizer.close();
  await own.close();
});

test("a spectator sees a Lanza turn: who has ordered, then the resolved turn", async () => {
  const context = await browser.newContext();
  const lobby = await lobbyWithCredential(context);
  const lanza = await createFromLobby(lobby, "lanza", 2);
  const spectator = await openPage(context, new URL(`#/match/${lanza.matchId}`, host.url).href);
  await waitForVersion(spectator, 0);
  const start = await boardVersion(spectator);
  assert.match(await spectator.locator(".tt-status").textContent(), /watching as a spectator/);
  assert.equal(await spectator.locator("select.moves").count(), 0, "a spectator has no moves");

  const seats = [];
  for (const seat of lanza.seats) {
    const page = await openPage(context, new URL(seat.play, host.url).href);
    await waitForVersion(page, start);
    seats.push(page);
  }
  // Seat A orders: the spectator learns that it has, not what.
  const [a, b] = seats;
  assert.ok((await a.locator(".tt-board .tt-target").count()) > 0, "Lanza's orders are given by clicks");
  await playByClicking(a);
  await spectator.locator(".events li", { hasText: "has acted" }).first().waitFor();
  assert.match(await spectator.locator('tr.seat[data-seat="0"]').textContent(), /has acted/);
  assert.equal(await boardVersion(spectator), start, "the board waits for every order");
  await assertLanzaBoardShowsView(spectator);
  // Seat B orders: the turn resolves and the spectator sees its report.
  await playFromList(b);
  await waitForVersion(spectator, start + 1);
  const report = spectator.locator(".events li", { hasText: "turn:" }).first();
  await report.waitFor();
  assert.match(await report.textContent(), /orders/);
  await assertLanzaBoardShowsView(spectator);
  for (const page of [lobby, spectator, ...seats]) page.assertNoErrors();
  await context.close();
});

test("a finished match's replay steps back, forward and jumps, each step drawn from the view at that version", async () => {
  assert.ok(finishedFocus, "the play test finished a match");
  const context = await browser.newContext();
  const page = await openPage(context, new URL(`#/replay/${finishedFocus}`, host.url).href);
  await page.locator(".position", { hasText: "version 6 of 6" }).waitFor();
  await waitForVersion(page, 6);
  await assertFocusBoardShowsView(page);
  await page.click("button.back");
  await page.locator(".position", { hasText: "version 5 of 6" }).waitFor();
  await page.waitForFunction(() => document.querySelector(".tt-board")?.getAttribute("data-version") === "5");
  await assertFocusBoardShowsView(page);
  await page.click("button.first");
  await page.waitForFunction(() => document.querySelector(".tt-board")?.getAttribute("data-version") === "0");
  assert.match(await page.locator(".what").textContent(), /as created/);
  await page.click("button.forward");
  await page.waitForFunction(() => document.querySelector(".tt-board")?.getAttribute("data-version") === "1");
  await assertFocusBoardShowsView(page);
  // A click on an event jumps to the version it made.
  await page.locator('.events li[data-version="3"] .event-what').click();
  await page.waitForFunction(() => document.querySelector(".tt-board")?.getAttribute("data-version") === "3");
  assert.match(await page.locator(".what").textContent(), /after version 3:/);
  assert.match(page.url(), /#\/replay\/[^/]+\/3$/);
  await assertFocusBoardShowsView(page);
  await page.locator(".scrubber").fill("2");
  await page.waitForFunction(() => document.querySelector(".tt-board")?.getAttribute("data-version") === "2");
  await assertFocusBoardShowsView(page);
  page.assertNoErrors();
  await context.close();
});

test("every game's board is drawn, and screenshots of the four are kept", async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const lobby = await lobbyWithCredential(context);
  for (const [game, players] of [["focus", 2], ["lanza", 2], ["lanzeloth", 3], ["war", 2]]) {
    const created = await createFromLobby(lobby, game, players);
    const page = await openPage(context, new URL(created.seats[0].play, host.url).href);
    await waitForVersion(page, 0);
    await page.locator(".seats tr.seat").first().waitFor();
    if (DRAWN.includes(game)) {
      assert.equal(await page.locator(".tt-board.tt-board-svg svg").count(), 1, `${game} is drawn as SVG`);
    } else {
      assert.notEqual(await page.locator(".tt-board .view-text").textContent(), "", `${game}'s text is shown`);
    }
    await page.locator(".match").screenshot({ path: join(RESULTS_DIR, `${game}.png`) });
    page.assertNoErrors();
    await page.close();
  }
  lobby.assertNoErrors();
  await context.close();
});
