/**
 * Words for what the server sends: seats as the games name them, match
 * states, and each event's report. The page knows no game: a transition's
 * `event_json` is the game's own report (its schema is in
 * plugins/<game>/events.schema.json), shown as its plain values, one line
 * per part, with the whole JSON one click away.
 */

import { MatchState, type MatchView, type SeatStatus } from "../../clients/typescript/src/gen/tabletop/v1/types_pb.js";
import type { WatchEvent } from "../../clients/typescript/src/gen/tabletop/v1/watch_pb.js";
import { h } from "./dom.js";

/** `seat 1 (B)`: the API's number and the game's name, as messages say it. */
export function seatLabel(view: MatchView | undefined, seat: number): string {
  const name = view?.seats.find((s) => s.seat === seat)?.name;
  return name ? `seat ${seat} (${name})` : `seat ${seat}`;
}

/** `seat 1 (B) Ada`: with who plays it, when someone said. */
export function seatWithPlayer(view: MatchView, status: SeatStatus): string {
  const label = seatLabel(view, status.seat);
  return status.displayName ? `${label} ${status.displayName}` : label;
}

/** The state's name in lower case: `running`, `finished`, … */
export function stateName(state: MatchState): string {
  return (MatchState[state] ?? "unknown").toLowerCase();
}

/** One line saying whose turn it is, or how the match ended. */
export function turnLine(view: MatchView): string {
  switch (view.state) {
    case MatchState.WAITING:
      return "waiting for players to join";
    case MatchState.UNAVAILABLE:
      return `unavailable: ${view.unavailableReason}`;
    case MatchState.QUARANTINED:
      return `quarantined: ${view.quarantineReason}`;
    case MatchState.FINISHED:
      if (view.abortReason) return `aborted: ${view.abortReason}`;
      return `finished${view.adjudicated ? " (adjudicated)" : ""}: ${resultLine(view)}`;
    default: {
      const movers = view.toMove.map((seat) => seatLabel(view, seat)).join(", ");
      const paused = view.paused ? " (paused)" : "";
      return movers ? `to move: ${movers}${paused}` : `running${paused}`;
    }
  }
}

/** `1st seat 0 (R), 2nd seat 1 (G)`. */
export function resultLine(view: MatchView): string {
  return [...view.results]
    .sort((a, b) => a.rank - b.rank || a.seat - b.seat)
    .map((r) => `#${r.rank} ${seatLabel(view, r.seat)}${r.displayName ? ` ${r.displayName}` : ""}${r.resigned ? " (resigned)" : ""}`)
    .join(", ");
}

/** A scalar as text; null and empty parts say nothing. */
function scalar(value: unknown): string | undefined {
  if (value === null || value === undefined || value === "") return undefined;
  if (typeof value === "object") return undefined;
  return String(value);
}

/** `key value` pairs of an object's scalar fields (and lists of scalars). */
function pairs(object: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(object)) {
    if (key === "type") continue;
    if (Array.isArray(value) && value.every((item) => typeof item !== "object" || item === null)) {
      if (value.length > 0) parts.push(`${key} ${value.join(" / ")}`);
      continue;
    }
    const text = scalar(value);
    if (text !== undefined && text !== "false") parts.push(text === "true" ? key : `${key} ${text}`);
  }
  return parts.join(", ");
}

/**
 * A game's report as lines: the moves it lists (`seat 1 (B): c3-c5`), then
 * its other values, then one line per entry of each list of objects in it
 * (Lanza's pieces and captures: the turn's adjudication).
 */
export function reportLines(view: MatchView | undefined, eventJson: string): string[] {
  let event: unknown;
  try {
    event = JSON.parse(eventJson);
  } catch {
    return [eventJson];
  }
  if (typeof event !== "object" || event === null || Array.isArray(event)) return [eventJson];
  const report = event as Record<string, unknown>;
  const lines: string[] = [];
  const type = scalar(report.type) ?? "event";
  const moves = Array.isArray(report.moves) ? (report.moves as Array<Record<string, unknown>>) : [];
  for (const move of moves) {
    if (typeof move === "object" && move !== null && "action" in move) {
      const who = typeof move.player === "number" ? seatLabel(view, move.player) : "";
      lines.push(`${who}: ${String(move.action)}`);
    }
  }
  const rest = { ...report };
  delete rest.moves;
  const summary = pairs(rest);
  lines.push(summary ? `${type.replaceAll("_", " ")}: ${summary}` : type.replaceAll("_", " "));
  for (const [key, value] of Object.entries(rest)) {
    if (!Array.isArray(value)) continue;
    for (const item of value) {
      if (typeof item === "object" && item !== null && !Array.isArray(item)) {
        lines.push(`  ${key}: ${pairs(item as Record<string, unknown>)}`);
      }
    }
  }
  return lines;
}

/** An event of the list: its sequence number, version, report and JSON. */
export function eventItem(view: MatchView | undefined, event: WatchEvent, onClick?: () => void): HTMLLIElement | null {
  const kind = event.kind;
  let lines: string[];
  let json: string | undefined;
  if (kind.case === "transition") {
    lines = reportLines(view, kind.value.eventJson);
    json = kind.value.eventJson;
  } else if (kind.case === "seatActed") {
    lines = [`${seatLabel(view, kind.value.seat)} has acted`];
  } else {
    return null;
  }
  const item = h(
    "li",
    { class: "event", "data-seq": String(event.seq), "data-version": String(event.version) },
    h("span", { class: "event-where" }, `#${event.seq} v${event.version}`),
    h("span", { class: "event-what" }, lines[0] ?? ""),
  );
  if (lines.length > 1 || json) {
    const details = h("details", {}, h("summary", {}, "details"));
    if (lines.length > 1) details.append(h("pre", { class: "event-lines" }, lines.slice(1).join("\n")));
    if (json) details.append(h("pre", { class: "event-json" }, json));
    item.append(details);
  }
  if (onClick) {
    item.classList.add("clickable");
    item.addEventListener("click", (e) => {
      if ((e.target as Element).closest("details")) return;
      onClick();
    });
  }
  return item;
}
