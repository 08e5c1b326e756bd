// The web page's speed on loopback, per game (BENCHMARKS.md, "The web
// page"): time to first board (navigation start to the board in the page)
// and time from a move to the page's update (a seat's page submits; a
// spectator's page shows the new version). Measured with the page's own
// clock (a MutationObserver notes when each board appears), not asserted.
//   node web/bench.mjs [MOVES_PER_GAME]     (after `cargo build --workspace`)

import { createFromLobby, launchBrowser, openPage, startHost, ADMIN_TOKEN } from "./test/harness.mjs";

const MOVES = Number(process.argv[2] ?? 20);
const LOADS = 10;

/** Notes each board's version and when it appeared (epoch ms, the page's clock). */
function noteBoards() {
  window.__boards = [];
  new MutationObserver(() => {
    const board = document.querySelector(".tt-board");
    const version = Number(board?.getAttribute("data-version") ?? -1);
    const last = window.__boards.at(-1);
    if (board && (!last || last.version !== version)) {
      window.__boards.push({ version, at: performance.timeOrigin + performance.now(), sinceStart: performance.now() });
    }
  }).observe(document, { childList: true, subtree: true, attributes: true });
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (v) => `${v.toFixed(1)} ms`;

const host = await startHost();
const browser = await launchBrowser();
try {
  const context = await browser.newContext();
  await context.addInitScript(noteBoards);
  const lobby = await openPage(context, host.url);
  await lobby.fill("input.credential", ADMIN_TOKEN);
  await lobby.click("button.save-credential");
  console.log(`| game | first board, median (p90) | move to page update, median (p90) | moves |`);
  console.log(`|---|---|---|---|`);
  for (const [game, players] of [["focus", 2], ["lanza", 2], ["lanzeloth", 2], ["war", 2]]) {
    const created = await createFromLobby(lobby, game, players, game === "focus" ? { max_turns: "1000" } : {});
    const spectatorUrl = new URL(`#/match/${created.matchId}`, host.url).href;
    const firstBoards = [];
    // Each page in a browser context of its own, as each is a person of its
    // own: over HTTP/1.1 a browser keeps at most six connections to a
    // server, and each page holds one for its live stream.
    const own = async () => {
      const fresh = await browser.newContext();
      await fresh.addInitScript(noteBoards);
      await fresh.addInitScript((secret) => localStorage.setItem("tabletop.credential", secret), ADMIN_TOKEN);
      return fresh;
    };
    const spectator = await (await own()).newPage();
    for (let load = 0; load < LOADS; load++) {
      await spectator.goto("about:blank");
      await spectator.goto(spectatorUrl);
      await spectator.waitForFunction(() => window.__boards.length > 0);
      firstBoards.push(await spectator.evaluate(() => window.__boards[0].sinceStart));
    }
    const seats = [];
    for (const seat of created.seats) seats.push(await openPage(await own(), new URL(seat.share, host.url).href));
    const updates = [];
    for (let tries = 0; updates.length < MOVES && tries < MOVES * 4; tries++) {
      const version = await spectator.evaluate(() => window.__boards.at(-1)?.version ?? -1);
      // The seat to move: its page lists moves.
      let mover;
      for (let wait = 0; !mover && wait < 200; wait++) {
        for (const page of seats) if ((await page.locator("select.moves option").count()) > 0 && !mover) mover = page;
        if (!mover) await new Promise((r) => setTimeout(r, 10));
      }
      if (!mover) break;
      await mover.evaluate(() => {
        document.querySelector(".message").textContent = "";
      });
      await mover.evaluate(() => {
        for (const folded of document.querySelectorAll("details.moves-box")) folded.open = true;
      });
      const sent = Date.now();
      await mover.click("button.submit");
      await mover.waitForFunction(() => /played|held|:/.test(document.querySelector(".message")?.textContent ?? ""));
      const said = await mover.locator(".message").textContent();
      if (!said.startsWith("played")) continue; // held for a simultaneous turn, or refused
      await spectator.waitForFunction((v) => (window.__boards.at(-1)?.version ?? -1) > v, version);
      const shown = await spectator.evaluate((v) => window.__boards.find((b) => b.version > v).at, version);
      updates.push(shown - sent);
      // Wait for the mover's own page to redraw, so its stale moves are not clicked.
      await mover.waitForFunction((v) => Number(document.querySelector(".tt-board")?.getAttribute("data-version") ?? -1) > v, version);
      const finished = await spectator.evaluate(() => document.querySelector(".tt-status")?.getAttribute("data-state") === "finished");
      if (finished) break;
    }
    console.log(
      `| ${game} | ${ms(quantile(firstBoards, 0.5))} (${ms(quantile(firstBoards, 0.9))}) | ${updates.length ? `${ms(quantile(updates, 0.5))} (${ms(quantile(updates, 0.9))})` : "-"} | ${updates.length} |`,
    );
    for (const page of [spectator, ...seats]) await page.context().close();
  }
} finally {
  await browser.close();
  await host.stop();
}
