/**
 * The match page: the live board, whose turn it is, clocks, seats, the
 * event list and the result; with a seat token, that seat's moves, by
 * clicks on the board or from the list. WatchMatch (from the first event,
 * views left out) tells the page that something happened and what; each
 * time, GetView (with the SVG) redraws the board as this viewer may see it.
 *
 * A quarantined match (the server stopped calling its game's plugin for
 * it) shows a banner with the reason in place of the board, and no moves;
 * the server tells its events from the quarantine on only, so the page
 * then watches from now.
 */

import type { LegalAction } from "../../clients/typescript/src/gen/tabletop/v1/matches_pb.js";
import { MatchState, type MatchView } from "../../clients/typescript/src/gen/tabletop/v1/types_pb.js";
import type { WatchEvent } from "../../clients/typescript/src/gen/tabletop/v1/watch_pb.js";
import { ConnectError } from "@connectrpc/connect";
import { errorInfo } from "../../clients/typescript/src/errors.js";
import { describeError, keepSeatToken, matches, seatTokens, wasCancelled, watch } from "./api.js";
import { ClickPlay, clickable, renderBoard } from "./board.js";
import { eventItem, seatLabel, stateName, turnLine } from "./describe.js";
import { clock, h, replace } from "./dom.js";

/** Who the page plays as: a seat number (its token kept in localStorage) or a token. */
export interface Viewer {
  seat?: number;
  token?: string;
}

/** The seats table; clocks of seats to move run down from `receivedAt`. */
export function seatsTable(view: MatchView, receivedAt: number): HTMLTableElement {
  const running = view.state === MatchState.RUNNING && !view.paused;
  const rows = view.seats.map((status) => {
    const clockCell = h("td", { class: "clock" });
    if (status.clockRemainingMs !== undefined) {
      const remaining = Number(status.clockRemainingMs);
      const ticking = running && status.toMove && !status.hasActed;
      clockCell.textContent = clock(remaining);
      if (ticking) {
        clockCell.dataset.remaining = String(remaining);
        clockCell.dataset.since = String(receivedAt);
      }
    }
    const bot = status.bot;
    const notes = [
      status.toMove ? (status.hasActed ? "has acted" : "to move") : "",
      status.filled ? "" : "open",
      status.resigned ? "resigned" : "",
      status.out ? "out" : "",
      bot ? `bot ${bot}` : "",
      view.viewerSeat === status.seat ? "you" : "",
    ].filter(Boolean);
    return h(
      "tr",
      { class: status.toMove ? "seat to-move" : "seat", "data-seat": String(status.seat) },
      h("td", {}, seatLabel(view, status.seat)),
      h("td", {}, status.displayName),
      clockCell,
      h("td", {}, notes.join(", ")),
    );
  });
  return h(
    "table",
    { class: "seats" },
    h("thead", {}, h("tr", {}, h("th", {}, "seat"), h("th", {}, "player"), h("th", {}, "clock"), h("th", {}, ""))),
    h("tbody", {}, ...rows),
  );
}

/** Runs every ticking clock on the page down to now. */
export function tickClocks(root: HTMLElement): void {
  for (const cell of Array.from(root.querySelectorAll<HTMLElement>("td.clock[data-remaining]"))) {
    const remaining = Number(cell.dataset.remaining) - (Date.now() - Number(cell.dataset.since));
    cell.textContent = clock(remaining);
  }
}


/** Resolves once the page is shown (or `signal` aborts). */
export function visible(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      if (document.hidden && !signal.aborted) return;
      document.removeEventListener("visibilitychange", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    document.addEventListener("visibilitychange", done);
    signal.addEventListener("abort", done);
    done();
  });
}

/** Shows the match page in `root` until `signal` aborts. */
export function matchPage(root: HTMLElement, matchId: string, viewer: Viewer, signal: AbortSignal): void {
  let token = viewer.token ?? (viewer.seat !== undefined ? seatTokens(matchId).get(viewer.seat) : undefined) ?? "";
  const status = h("p", { class: "tt-status" }, "loading…");
  const banner = h("div", { class: "quarantine-box" });
  const seats = h("div", { class: "seats-box" });
  const boardBox = h("div", { class: "board-box" });
  const play = h("div", { class: "play" });
  const message = h("p", { class: "message" });
  const events = h("ol", { class: "events" });
  const result = h("div", { class: "result" });
  const title = h("h2", {}, `match ${matchId}`);
  const links = h("p", { class: "links" }, h("a", { href: "#/" }, "lobby"));
  const build = h("p", { class: "build" });
  replace(
    root,
    title,
    build,
    links,
    status,
    banner,
    h("div", { class: "match" }, h("div", { class: "main" }, boardBox, play, message, result), h("div", { class: "side" }, seats, h("h3", {}, "events"), events)),
  );
  if (viewer.seat !== undefined && !token) {
    message.textContent = `This browser holds no token for seat ${viewer.seat}: watching as a spectator.`;
  }

  let view: MatchView | undefined;
  let receivedAt = Date.now();
  let refreshing = false;
  let again = false;
  let lastSeq = 0n;
  const ticker = setInterval(() => tickClocks(seats), 250);
  signal.addEventListener("abort", () => clearInterval(ticker));

  const submit = async (action: LegalAction) => {
    message.textContent = `submitting ${action.notation}…`;
    try {
      const answer = await matches.submitAction(
        { matchId, seatToken: token, action: { case: "actionId", value: action.id }, expectedVersion: view?.version },
        { signal },
      );
      message.textContent = answer.pending ? `${action.notation}: held until every seat has acted` : `played ${action.notation}`;
    } catch (error) {
      if (!wasCancelled(error)) message.textContent = describeError(error);
    }
    void refresh();
  };

  const resign = async () => {
    if (!confirm("Resign this seat?")) return;
    try {
      await matches.resign({ matchId, seatToken: token }, { signal });
    } catch (error) {
      if (!wasCancelled(error)) message.textContent = describeError(error);
    }
  };

  const render = (current: MatchView, actions: LegalAction[]) => {
    title.textContent = `${current.game} ${current.matchId}`;
    build.textContent = buildLine(current);
    build.title = current.pluginSha256;
    const who = current.viewerSeat !== undefined ? `playing ${seatLabel(current, current.viewerSeat)}` : "watching as a spectator";
    status.textContent = `${turnLine(current)} · version ${current.version} · ${stateName(current.state)} · ${who}${current.delayed ? " · delayed for spectators" : ""}`;
    status.dataset.state = stateName(current.state);
    replace(seats, seatsTable(current, receivedAt));
    replace(banner, ...quarantineBanner(current));
    // A quarantined match has no board to draw: its plugin is not called.
    const board = current.quarantineReason ? undefined : renderBoard(current);
    if (board) replace(boardBox, board);
    else replace(boardBox);
    replace(play);
    if (board && current.viewerSeat !== undefined && current.state === MatchState.RUNNING) {
      if (current.pendingAction) play.append(h("p", {}, `your order: ${current.pendingAction} (held until every seat has acted)`));
      if (actions.length > 0) {
        const chooser = h("div", { class: "chooser" });
        const byClicks = clickable(board, actions);
        if (byClicks) {
          new ClickPlay(board, actions, chooser, (action) => void submit(action));
          play.append(h("p", { class: "hint" }, "Click a highlighted element, then where it goes."), chooser);
        }
        const select = h(
          "select",
          { class: "moves", size: Math.min(8, actions.length) },
          ...actions.map((action, i) => h("option", { value: String(i) }, action.notation)),
        );
        select.selectedIndex = 0;
        const list = h(
          "div",
          { class: "move-list" },
          select,
          h("button", { type: "button", class: "submit", onclick: () => void submit(actions[select.selectedIndex]!) }, "submit"),
        );
        play.append(byClicks ? h("details", { class: "moves-box" }, h("summary", {}, `all ${actions.length} moves`), list) : list);
      }
      play.append(h("button", { type: "button", class: "resign", onclick: () => void resign() }, "resign"));
    }
    replace(result);
    if (current.state === MatchState.FINISHED) {
      result.append(
        h("h3", {}, "result"),
        h(
          "table",
          { class: "results" },
          ...[...current.results]
            .sort((a, b) => a.rank - b.rank || a.seat - b.seat)
            .map((r) =>
              h("tr", {}, h("td", {}, `#${r.rank}`), h("td", {}, seatLabel(current, r.seat)), h("td", {}, r.displayName), h("td", {}, String(r.score)), h("td", {}, r.resigned ? "resigned" : "")),
            ),
        ),
        h("p", {}, h("a", { href: `#/replay/${encodeURIComponent(matchId)}` }, "replay this match")),
      );
    }
  };

  // One GetView (and legal-action list) at a time; events arriving
  // meanwhile ask for one more when it is done.
  const refresh = async (): Promise<void> => {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      do {
        again = false;
        const current = await matches.getView({ matchId, seatToken: token, svg: true }, { signal });
        let actions: LegalAction[] = [];
        if (current.viewerSeat !== undefined && current.toMove.includes(current.viewerSeat) && !current.pendingAction) {
          const legal = await matches.listLegalActions({ matchId, seatToken: token }, { signal });
          if (legal.version === current.version) actions = legal.actions;
          else again = true;
        }
        if (signal.aborted) return;
        if (viewer.token && current.viewerSeat !== undefined) keepSeatToken(matchId, current.viewerSeat, viewer.token);
        view = current;
        receivedAt = Date.now();
        render(current, actions);
      } while (again && !signal.aborted);
    } catch (error) {
      if (!wasCancelled(error)) {
        message.textContent = describeError(error);
        if (token && view === undefined) {
          // A token the server refuses: watch as a spectator instead.
          token = "";
          setTimeout(() => void refresh(), 0);
        }
      }
    } finally {
      refreshing = false;
    }
  };

  // Over HTTP/1.1 a browser keeps at most six connections to a server and
  // each live stream holds one, so a hidden tab lets its stream go and,
  // shown again, resumes after the last event it has (no gap, none twice).
  // A quarantined match's events before its quarantine are not told: the
  // page then watches from now (a snapshot, then live events).
  let fromStart = true;
  const follow = async () => {
    while (!signal.aborted) {
      if (document.hidden) await visible(signal);
      if (signal.aborted) return;
      const stream = new AbortController();
      const stop = () => stream.abort();
      signal.addEventListener("abort", stop);
      const hide = () => {
        if (document.hidden) stream.abort();
      };
      document.addEventListener("visibilitychange", hide);
      try {
        const request =
          lastSeq > 0n
            ? { matchId, seatToken: token, afterSeq: lastSeq, omitViews: true }
            : fromStart
              ? { matchId, seatToken: token, fromVersion: 0n, omitViews: true }
              : { matchId, seatToken: token, omitViews: true };
        for await (const event of watch.watchMatch(request, { signal: stream.signal })) {
          if (event.seq > lastSeq) lastSeq = event.seq;
          addEvent(event);
          void refresh();
        }
        // The stream ends once the match is over.
        void refresh();
        return;
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ConnectError && errorInfo(error)?.reason === "MATCH_QUARANTINED" && lastSeq === 0n) {
          fromStart = false;
          events.append(h("li", { class: "event note" }, "Earlier events are not told while the match is quarantined."));
          continue;
        }
        // Cut for reading too slowly (a busy tab): every event queued before
        // the cut arrived, so watch on after the last at once.
        if (error instanceof ConnectError && errorInfo(error)?.reason === "STREAM_FELL_BEHIND") continue;
        // Another host of the server's database serves the match now: every
        // event sent was stored, so watch on after the last, at once.
        if (error instanceof ConnectError && errorInfo(error)?.reason === "MATCH_MOVED") continue;
        // The match store lost its database: the last events shown may not
        // have been stored, so no cursor leads on; watch again from a
        // snapshot once it is back.
        if (error instanceof ConnectError && errorInfo(error)?.reason === "STORE_UNAVAILABLE") {
          lastSeq = 0n;
          fromStart = false;
        }
        if (!stream.signal.aborted) {
          message.textContent = `${describeError(error)} (watching again in a second)`;
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      } finally {
        signal.removeEventListener("abort", stop);
        document.removeEventListener("visibilitychange", hide);
      }
    }
  };

  const addEvent = (event: WatchEvent) => {
    const item = eventItem(view, event);
    if (!item) return;
    events.prepend(item);
  };

  void refresh().then(follow);
}

/**
 * The banner of a quarantined match, or of one a director ended while it
 * was (nothing for any other match).
 */
export function quarantineBanner(view: MatchView): HTMLElement[] {
  if (!view.quarantineReason) return [];
  const words =
    view.state === MatchState.QUARANTINED
      ? "The game's plugin failed in a call for this match, so the server calls it no more for the match: no move can be made until the admin lifts the quarantine. A director may abort or adjudicate the match."
      : "It ended while it was quarantined: its board is not shown, since the server does not call the game's plugin for it.";
  return [
    h(
      "div",
      { class: "quarantine", role: "alert" },
      h("strong", {}, view.state === MatchState.QUARANTINED ? "Quarantined" : "Ended in quarantine"),
      h("p", { class: "quarantine-reason" }, view.quarantineReason),
      h("p", {}, words),
    ),
  ];
}

/**
 * Which plugin the match is played with: `focus 0.1.0, build 3f2a9c1e0b7d`
 * (the first 12 hex digits of the file's SHA-256; the whole hash is the
 * line's title). A match created before builds were recorded names none.
 */
export function buildLine(view: MatchView): string {
  const version = `${view.game} ${view.pluginVersion}`;
  return view.pluginSha256 ? `${version}, build ${view.pluginSha256.slice(0, 12)}` : `${version}, build not recorded`;
}
