/**
 * A match's replay, as a spectator: a scrubber over its versions (back,
 * forward, first, last, or a click on an event), each drawn from GetView
 * `at_version`, the view right after that version, replayed by the server
 * from the match's log.
 */

import type { MatchView } from "../../clients/typescript/src/gen/tabletop/v1/types_pb.js";
import type { WatchEvent } from "../../clients/typescript/src/gen/tabletop/v1/watch_pb.js";
import { describeError, matches, wasCancelled, watch } from "./api.js";
import { renderBoard } from "./board.js";
import { eventItem, reportLines, turnLine } from "./describe.js";
import { h, replace } from "./dom.js";
import { seatsTable } from "./match.js";

/** Every event of the match as a spectator was told it, oldest first. */
async function allEvents(matchId: string, signal: AbortSignal): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  let after = 0n;
  for (;;) {
    const page = await watch.listEvents({ matchId, afterSeq: after, pageSize: 1000 }, { signal });
    events.push(...page.events);
    const last = page.events.at(-1);
    if (!last || last.seq >= page.lastSeq) return events;
    after = last.seq;
  }
}

/** Shows the replay of `matchId` at `start` (the last version if absent) until `signal` aborts. */
export function replayPage(root: HTMLElement, matchId: string, start: bigint | undefined, signal: AbortSignal): void {
  const status = h("p", { class: "tt-status" }, "loading…");
  const scrubber = h("input", { type: "range", class: "scrubber", min: "0", max: "0", value: "0" });
  const position = h("span", { class: "position" });
  const button = (label: string, title: string, to: () => bigint) =>
    h("button", { type: "button", class: title, title, onclick: () => void show(to()) }, label);
  let last = 0n;
  let current = 0n;
  const controls = h(
    "div",
    { class: "controls" },
    button("⏮", "first", () => 0n),
    button("◀", "back", () => (current > 0n ? current - 1n : 0n)),
    scrubber,
    button("▶", "forward", () => (current < last ? current + 1n : last)),
    button("⏭", "last", () => last),
    position,
  );
  const boardBox = h("div", { class: "board-box" });
  const seats = h("div", { class: "seats-box" });
  const what = h("pre", { class: "what" });
  const events = h("ol", { class: "events" });
  replace(
    root,
    h("h2", {}, `replay of ${matchId}`),
    h("p", { class: "links" }, h("a", { href: "#/" }, "lobby"), " · ", h("a", { href: `#/match/${encodeURIComponent(matchId)}` }, "match page")),
    status,
    controls,
    h("div", { class: "match" }, h("div", { class: "main" }, boardBox, what), h("div", { class: "side" }, seats, h("h3", {}, "events"), events)),
  );
  scrubber.addEventListener("input", () => void show(BigInt(scrubber.value)));
  const keys = (event: KeyboardEvent) => {
    if (event.target instanceof HTMLInputElement && event.target !== scrubber) return;
    if (event.key === "ArrowLeft" && current > 0n) void show(current - 1n);
    if (event.key === "ArrowRight" && current < last) void show(current + 1n);
  };
  document.addEventListener("keydown", keys);
  signal.addEventListener("abort", () => document.removeEventListener("keydown", keys));

  let final: MatchView | undefined;
  let byVersion = new Map<bigint, WatchEvent>();
  let wanted = 0n;

  // The newest request wins: a fast scrub draws only where it stops.
  const show = async (version: bigint) => {
    wanted = version;
    current = version;
    scrubber.value = String(version);
    position.textContent = `version ${version} of ${last}`;
    history.replaceState(null, "", `#/replay/${encodeURIComponent(matchId)}/${version}`);
    try {
      const view = await matches.getView({ matchId, atVersion: version, svg: true }, { signal });
      if (wanted !== version) return;
      replace(boardBox, renderBoard(view));
      replace(seats, seatsTable(view, Date.now()));
      const event = byVersion.get(version);
      const report = event?.kind.case === "transition" ? reportLines(final, event.kind.value.eventJson).join("\n") : "";
      what.textContent = version === 0n ? "the match as created" : `after version ${version}${report ? `:\n${report}` : ""}`;
      for (const item of Array.from(events.querySelectorAll("li.current"))) item.classList.remove("current");
      events.querySelector(`li[data-version="${version}"]`)?.classList.add("current");
      status.textContent = version === last && final ? turnLine(final) : `${turnLine(view)} (version ${version})`;
    } catch (error) {
      if (!wasCancelled(error)) status.textContent = describeError(error);
    }
  };

  void (async () => {
    try {
      final = await matches.getView({ matchId }, { signal });
      last = final.version;
      scrubber.max = String(last);
      const past = await allEvents(matchId, signal);
      byVersion = new Map();
      for (const event of past) {
        if (event.kind.case === "transition") byVersion.set(event.version, event);
        const item = eventItem(final, event, () => void show(event.version));
        if (item) events.append(item);
      }
      await show(start !== undefined && start <= last ? start : last);
    } catch (error) {
      if (!wasCancelled(error)) status.textContent = describeError(error);
    }
  })();
}
