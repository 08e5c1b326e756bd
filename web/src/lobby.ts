/**
 * The lobby: the matches on the server, live, filtered by game and label;
 * a form to create a match (game, seats, options, labels, players and,
 * when the server offers it, a bot per seat); and the credential the page
 * sends (an organizer credential or the admin token, kept in localStorage).
 *
 * With a credential the list follows the lifecycle feed (Director
 * FollowLifecycle, from its first event, then live); without one (the feed
 * needs one) it asks ListMatches every two seconds.
 */

import { ConnectError } from "@connectrpc/connect";
import { errorInfo } from "../../clients/typescript/src/errors.js";
import type { GameInfo } from "../../clients/typescript/src/gen/tabletop/v1/catalog_pb.js";
import type { LifecycleEvent } from "../../clients/typescript/src/gen/tabletop/v1/director_pb.js";
import { CreateMatchRequestSchema, type CreateMatchResponse } from "../../clients/typescript/src/gen/tabletop/v1/matches_pb.js";
import { MatchState } from "../../clients/typescript/src/gen/tabletop/v1/types_pb.js";
import { catalog, credential, describeError, director, keepSeatToken, matches, setCredential, wasCancelled } from "./api.js";
import { stateName } from "./describe.js";
import { h, replace } from "./dom.js";

/** A match as the list shows it. */
interface Row {
  matchId: string;
  game: string;
  labels: Record<string, string>;
  players: number;
  state: string;
  createdAtMs: number;
  note: string;
}

/** Most rows shown, newest first. */
const SHOWN = 200;
/** How often the list is asked again without the feed. */
const POLL_MS = 2000;

/** `k=v, k2=v2` as a map (blank: none). */
function parseLabels(text: string): Record<string, string> | string {
  const labels: Record<string, string> = {};
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const at = part.indexOf("=");
    if (at <= 0) return `a label is key=value: "${part}"`;
    labels[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return labels;
}

/** Whether the server's API lets CreateMatch name a bot per seat. */
const BOTS_OFFERED = CreateMatchRequestSchema.fields.some((field) => field.localName === "bots");

/** The feed's event applied to the rows. */
function apply(rows: Map<string, Row>, event: LifecycleEvent): void {
  let row = rows.get(event.matchId);
  if (!row) {
    row = { matchId: event.matchId, game: event.game, labels: { ...event.labels }, players: 0, state: "waiting", createdAtMs: Number(event.atMs), note: "" };
    rows.set(event.matchId, row);
  }
  const kind = event.kind;
  switch (kind.case) {
    case "created":
      row.players = kind.value.players;
      row.createdAtMs = Number(event.atMs);
      break;
    case "started":
      row.state = "running";
      break;
    case "paused":
      row.note = "paused";
      break;
    case "resumed":
      row.note = "";
      break;
    case "finished":
      row.state = "finished";
      row.note = kind.value.adjudicated ? "adjudicated" : "";
      break;
    case "aborted":
      row.state = "finished";
      row.note = `aborted: ${kind.value.reason}`;
      break;
    case "unavailable":
      row.state = "unavailable";
      row.note = kind.value.reason;
      break;
    case "quarantined":
      row.state = "quarantined";
      row.note = kind.value.reason;
      break;
    case "released":
      // Only a running match is released.
      row.state = "running";
      row.note = "";
      break;
    default:
      break;
  }
}

/** The form's input for one game option. */
function optionInput(option: GameInfo["options"][number]): HTMLElement {
  const attributes = { name: option.name, "data-default": option.defaultValue, title: option.description };
  if (option.type === "boolean") {
    return h("input", { ...attributes, type: "checkbox", checked: option.defaultValue === "true" });
  }
  if (option.type === "choice") {
    const select = h("select", attributes, ...option.choices.map((c) => h("option", { value: c }, c)));
    select.value = option.defaultValue;
    return select;
  }
  if (option.type === "integer") {
    return h("input", {
      ...attributes,
      type: "number",
      value: option.defaultValue,
      min: option.min !== undefined ? String(option.min) : undefined,
      max: option.max !== undefined ? String(option.max) : undefined,
    });
  }
  return h("input", { ...attributes, type: "text", value: option.defaultValue });
}

/** Shows the lobby in `root` until `signal` aborts. */
export function lobbyPage(root: HTMLElement, signal: AbortSignal): void {
  const credentialInput = h("input", { type: "password", class: "credential", placeholder: "organizer credential or admin token", value: credential() });
  const credentialNote = h("span", { class: "note" });
  const saveCredential = () => {
    setCredential(credentialInput.value.trim());
    credentialNote.textContent = credential() ? "kept in this browser" : "anonymous";
    restartList();
  };
  credentialNote.textContent = credential() ? "kept in this browser" : "anonymous";

  const gameSelect = h("select", { class: "game" });
  const playersInput = h("input", { type: "number", class: "players", min: "1", value: "2" });
  const optionsBox = h("div", { class: "options" });
  const seatsBox = h("div", { class: "seat-rows" });
  const labelsInput = h("input", { type: "text", class: "labels", placeholder: "key=value, key=value" });
  const createNote = h("div", { class: "created" });
  const filterGame = h("select", { class: "filter-game" }, h("option", { value: "" }, "every game"));
  const filterLabel = h("input", { type: "text", class: "filter-label", placeholder: "label key=value" });
  const listNote = h("p", { class: "note list-note" });
  const list = h("tbody", {});
  let games: GameInfo[] = [];

  const game = () => games.find((g) => g.name === gameSelect.value);
  const drawSeats = () => {
    const info = game();
    const players = Number(playersInput.value);
    const names = info?.seatNames.find((s) => s.players === players)?.names ?? [];
    replace(
      seatsBox,
      ...Array.from({ length: Math.max(0, Math.min(players, 16)) }, (_, seat) =>
        h(
          "div",
          { class: "seat-row", "data-seat": String(seat) },
          h("span", {}, names[seat] ? `seat ${seat} (${names[seat]})` : `seat ${seat}`),
          h("input", { type: "text", class: "player-name", placeholder: "player name" }),
          BOTS_OFFERED ? h("input", { type: "text", class: "bot-spec", placeholder: "bot (e.g. mcts:200ms), blank: a person" }) : null,
        ),
      ),
    );
  };
  const drawGame = () => {
    const info = game();
    if (!info) return;
    playersInput.min = String(info.minPlayers);
    playersInput.max = String(info.maxPlayers);
    const players = Number(playersInput.value);
    if (players < info.minPlayers || players > info.maxPlayers) playersInput.value = String(info.minPlayers);
    replace(
      optionsBox,
      ...info.options.map((option) => h("label", { class: "option" }, h("span", {}, option.name), optionInput(option))),
    );
    drawSeats();
  };
  gameSelect.addEventListener("change", drawGame);
  playersInput.addEventListener("change", drawSeats);

  const created = (answer: CreateMatchResponse) => {
    for (const seat of answer.seats) keepSeatToken(answer.matchId, seat.seat, seat.token);
    const id = encodeURIComponent(answer.matchId);
    replace(
      createNote,
      h("p", {}, "created ", h("a", { href: `#/match/${id}`, class: "watch-link" }, answer.matchId), " (watch)"),
      h(
        "ul",
        { class: "seat-links" },
        ...answer.seats.map((seat) =>
          h(
            "li",
            {},
            h("a", { href: `#/match/${id}/seat/${seat.seat}`, class: "play-link", "data-seat": String(seat.seat) }, `play seat ${seat.seat}`),
            " · ",
            h("a", { href: `#/match/${id}/token/${encodeURIComponent(seat.token)}`, class: "share-link", "data-seat": String(seat.seat) }, "link for another browser"),
          ),
        ),
      ),
    );
  };

  const create = async (event: Event) => {
    event.preventDefault();
    const info = game();
    if (!info) return;
    const labels = parseLabels(labelsInput.value);
    if (typeof labels === "string") {
      createNote.textContent = labels;
      return;
    }
    const options: Record<string, string> = {};
    for (const input of Array.from(optionsBox.querySelectorAll<HTMLInputElement | HTMLSelectElement>("[name]"))) {
      const value = input instanceof HTMLInputElement && input.type === "checkbox" ? String(input.checked) : input.value.trim();
      if (value !== "" && value !== input.dataset.default) options[input.name] = value;
    }
    const seatPlayers = [];
    const bots = [];
    for (const row of Array.from(seatsBox.querySelectorAll<HTMLElement>(".seat-row"))) {
      const seat = Number(row.dataset.seat);
      const name = row.querySelector<HTMLInputElement>(".player-name")?.value.trim();
      const bot = row.querySelector<HTMLInputElement>(".bot-spec")?.value.trim();
      if (name) seatPlayers.push({ seat, displayName: name });
      if (bot) bots.push({ seat, spec: bot });
    }
    const request = { game: info.name, players: Number(playersInput.value), options, labels, seatPlayers, ...(bots.length > 0 ? { bots } : {}) };
    createNote.textContent = "creating…";
    try {
      created(await matches.createMatch(request, { signal }));
    } catch (error) {
      if (!wasCancelled(error)) createNote.textContent = describeError(error);
    }
  };

  replace(
    root,
    h("h2", {}, "Lobby"),
    h("section", { class: "credential-box" }, h("label", {}, "credential ", credentialInput), h("button", { type: "button", class: "save-credential", onclick: saveCredential }, "use"), " ", credentialNote),
    h(
      "section",
      { class: "create" },
      h("h3", {}, "new match"),
      h(
        "form",
        { class: "create-form", onsubmit: (e: Event) => void create(e) },
        h("label", {}, "game ", gameSelect),
        h("label", {}, "players ", playersInput),
        optionsBox,
        seatsBox,
        h("label", {}, "labels ", labelsInput),
        h("button", { type: "submit", class: "create-button" }, "create"),
      ),
      createNote,
    ),
    h(
      "section",
      { class: "list" },
      h("h3", {}, "matches"),
      h("div", { class: "filters" }, filterGame, filterLabel),
      listNote,
      h(
        "table",
        { class: "matches" },
        h("thead", {}, h("tr", {}, ...["match", "game", "state", "seats", "labels", "created", ""].map((t) => h("th", {}, t)))),
        list,
      ),
    ),
  );

  const rows = new Map<string, Row>();
  const draw = () => {
    const shown = [...rows.values()].sort((a, b) => b.createdAtMs - a.createdAtMs || b.matchId.localeCompare(a.matchId)).slice(0, SHOWN);
    replace(
      list,
      ...shown.map((row) => {
        const id = encodeURIComponent(row.matchId);
        return h(
          "tr",
          { class: `match-row ${row.state}`, "data-match": row.matchId },
          h("td", {}, h("a", { href: `#/match/${id}` }, row.matchId)),
          h("td", {}, row.game),
          h("td", { class: "state" }, row.note ? `${row.state} (${row.note})` : row.state),
          h("td", {}, String(row.players)),
          h("td", {}, Object.entries(row.labels).map(([k, v]) => `${k}=${v}`).join(", ")),
          h("td", {}, new Date(row.createdAtMs).toLocaleString()),
          h("td", {}, row.state === "finished" ? h("a", { href: `#/replay/${id}` }, "replay") : null),
        );
      }),
    );
  };
  let drawing = false;
  const drawSoon = () => {
    if (drawing) return;
    drawing = true;
    requestAnimationFrame(() => {
      drawing = false;
      draw();
    });
  };

  let listing: AbortController | undefined;
  signal.addEventListener("abort", () => listing?.abort());
  const restartList = () => {
    listing?.abort();
    listing = new AbortController();
    const stop = listing.signal;
    rows.clear();
    draw();
    const labels = parseLabels(filterLabel.value);
    if (typeof labels === "string") {
      listNote.textContent = labels;
      return;
    }
    const gameFilter = filterGame.value;
    if (credential()) void followFeed(gameFilter, labels, stop);
    else void poll(gameFilter, labels, stop);
  };

  const followFeed = async (game: string, labels: Record<string, string>, stop: AbortSignal) => {
    listNote.textContent = "live from the lifecycle feed";
    let afterCursor = 0n;
    for (;;) {
      try {
        for await (const event of director.followLifecycle({ afterCursor, game, labels }, { signal: stop })) {
          afterCursor = event.cursor;
          apply(rows, event);
          drawSoon();
        }
        return;
      } catch (error) {
        if (wasCancelled(error) || stop.aborted) return;
        // Cut for reading too slowly (a busy tab): every row queued before
        // the cut arrived, so follow on after the server's last at once.
        const info = error instanceof ConnectError ? errorInfo(error) : undefined;
        if (info?.reason === "STREAM_FELL_BEHIND" && info.metadata.after_cursor !== undefined) {
          afterCursor = BigInt(info.metadata.after_cursor);
          continue;
        }
        listNote.textContent = `the lifecycle feed: ${describeError(error)}; listing every ${POLL_MS / 1000} s instead`;
        void poll(game, labels, stop);
        return;
      }
    }
  };

  const poll = async (game: string, labels: Record<string, string>, stop: AbortSignal) => {
    if (!listNote.textContent) listNote.textContent = `listed every ${POLL_MS / 1000} s (a credential makes it live)`;
    while (!stop.aborted) {
      try {
        const found = new Map<string, Row>();
        let pageToken = "";
        do {
          const page = await matches.listMatches({ game, labels, pageSize: 1000, pageToken }, { signal: stop });
          for (const m of page.matches) {
            found.set(m.matchId, {
              matchId: m.matchId,
              game: m.game,
              labels: { ...m.labels },
              players: m.players,
              state: m.state === MatchState.UNSPECIFIED ? "unknown" : stateName(m.state),
              createdAtMs: Number(m.createdAtMs),
              note: m.unavailableReason,
            });
          }
          pageToken = page.nextPageToken;
        } while (pageToken && found.size < 10_000);
        rows.clear();
        for (const [id, row] of found) rows.set(id, row);
        draw();
      } catch (error) {
        if (wasCancelled(error) || stop.aborted) return;
        listNote.textContent = describeError(error);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };
  // A hidden tab lets its feed go (each live stream holds one of the six
  // connections a browser keeps to a server over HTTP/1.1) and lists
  // afresh when shown again.
  const visibility = () => {
    if (document.hidden) listing?.abort();
    else restartList();
  };
  document.addEventListener("visibilitychange", visibility);
  signal.addEventListener("abort", () => document.removeEventListener("visibilitychange", visibility));
  filterGame.addEventListener("change", restartList);
  filterLabel.addEventListener("change", restartList);

  void (async () => {
    try {
      games = (await catalog.listGames({}, { signal })).games;
      replace(gameSelect, ...games.map((g) => h("option", { value: g.name }, gameChoice(g))));
      for (const g of games) filterGame.append(h("option", { value: g.name }, g.name));
      drawGame();
    } catch (error) {
      if (!wasCancelled(error)) createNote.textContent = describeError(error);
    }
  })();
  restartList();
}

/**
 * A game as the create form offers it: `focus 0.1.0`, or, while two files
 * claim that version, `focus 0.1.0 (2 builds: new matches refused)`.
 */
function gameChoice(game: GameInfo): string {
  const name = `${game.name} ${game.version}`;
  return game.builds.length > 1 ? `${name} (${game.builds.length} builds: new matches refused)` : name;
}
