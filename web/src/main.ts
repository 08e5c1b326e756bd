/**
 * The page's routes, in the URL fragment (nothing of them reaches the
 * server): `#/` the lobby, `#/match/ID` a match as a spectator,
 * `#/match/ID/seat/N` as a seat whose token this browser keeps,
 * `#/match/ID/token/TOKEN` as the seat of that token (a link for another
 * browser; the token is then kept), `#/replay/ID[/VERSION]` a replay.
 */

import { lobbyPage } from "./lobby.js";
import { matchPage } from "./match.js";
import { replayPage } from "./replay.js";

const root = document.getElementById("tt-app")!;
let current: AbortController | undefined;
let shown: string | undefined;

function route(): void {
  const hash = location.hash.replace(/^#\/?/, "");
  const parts = hash.split("/").map(decodeURIComponent);
  // A replay moving along its versions rewrites its own fragment.
  const page = parts[0] === "replay" ? `replay/${parts[1]}` : hash;
  if (page === shown) return;
  shown = page;
  current?.abort();
  current = new AbortController();
  const signal = current.signal;
  if (parts[0] === "match" && parts[1]) {
    if (parts[2] === "seat" && parts[3] !== undefined) matchPage(root, parts[1], { seat: Number(parts[3]) }, signal);
    else if (parts[2] === "token" && parts[3]) matchPage(root, parts[1], { token: parts[3] }, signal);
    else matchPage(root, parts[1], {}, signal);
  } else if (parts[0] === "replay" && parts[1]) {
    const version = parts[2] !== undefined && /^\d+$/.test(parts[2]) ? BigInt(parts[2]) : undefined;
    replayPage(root, parts[1], version, signal);
  } else {
    lobbyPage(root, signal);
  }
}

window.addEventListener("hashchange", route);
route();
