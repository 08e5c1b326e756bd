/**
 * The board: the game's SVG for this viewer when the game draws one
 * (`MatchView.svg`), else the generic page (the text rendering and the
 * view's JSON). And click to play: each legal action names the board
 * elements it involves, in click order (`LegalAction.targets`), and the SVG
 * carries elements with those ids, so the page needs no game's rules to
 * highlight where a piece may go and to submit the action the clicks spell.
 */

import type { LegalAction } from "../../clients/typescript/src/gen/tabletop/v1/matches_pb.js";
import type { MatchView } from "../../clients/typescript/src/gen/tabletop/v1/types_pb.js";
import { h, replace } from "./dom.js";

/** The board as SVG for this viewer, if the server drew one. */
export function boardSvg(view: MatchView): string | undefined {
  return view.svg ? view.svg : undefined;
}

/** The board elements an action involves, in click order (none: list only). */
export function actionTargets(action: LegalAction): readonly string[] {
  return action.targets;
}

/**
 * Parses the game's SVG and drops what could run code in the page (script
 * elements, `on…` attributes, `javascript:` links): the page's content
 * security policy refuses them too, and a board needs none.
 */
function parseSvg(markup: string): SVGSVGElement | undefined {
  const parsed = new DOMParser().parseFromString(markup, "image/svg+xml");
  const root = parsed.documentElement;
  if (!(root instanceof SVGSVGElement)) return undefined;
  for (const script of Array.from(root.querySelectorAll("script, foreignObject"))) script.remove();
  for (const element of [root, ...Array.from(root.querySelectorAll("*"))]) {
    for (const attribute of Array.from(element.attributes)) {
      const value = attribute.value.trim().toLowerCase();
      if (attribute.name.toLowerCase().startsWith("on") || value.startsWith("javascript:")) {
        element.removeAttribute(attribute.name);
      }
    }
  }
  return document.importNode(root, true);
}

/** The board of `view`: its SVG, or its text and JSON. */
export function renderBoard(view: MatchView): HTMLElement {
  const board = h("div", { class: "tt-board", "data-version": String(view.version) });
  const markup = boardSvg(view);
  const svg = markup ? parseSvg(markup) : undefined;
  if (svg) {
    board.classList.add("tt-board-svg");
    board.append(svg);
  } else {
    board.classList.add("tt-board-generic");
    if (markup) board.append(h("p", { class: "error" }, "The game's SVG did not parse; its text follows."));
    board.append(h("pre", { class: "view-text" }, view.text || "(no text rendering)"));
  }
  let pretty = view.viewJson;
  try {
    pretty = JSON.stringify(JSON.parse(view.viewJson), null, 2);
  } catch {
    // Shown as the server sent it.
  }
  board.append(h("details", { class: "view-json" }, h("summary", {}, "view JSON"), h("pre", {}, pretty)));
  return board;
}

/** Whether the board and the actions allow playing by clicks. */
export function clickable(board: HTMLElement, actions: readonly LegalAction[]): boolean {
  return board.classList.contains("tt-board-svg") && actions.some((a) => actionTargets(a).length > 0);
}

/**
 * Click to play on one rendered board: clicking an element an action
 * starts at selects it and highlights the next elements of the actions
 * that go on from there; the click that completes an action's targets
 * submits it (several actions with the same targets: the page asks which).
 */
export class ClickPlay {
  private selected: string[] = [];

  constructor(
    private readonly board: HTMLElement,
    private readonly actions: readonly LegalAction[],
    private readonly chooser: HTMLElement,
    private readonly submit: (action: LegalAction) => void,
  ) {
    board.addEventListener("click", (event) => this.clicked(event));
    this.mark();
  }

  /** The actions the clicks so far may still become. */
  private candidates(): LegalAction[] {
    return this.actions.filter((action) => {
      const targets = actionTargets(action);
      return targets.length >= this.selected.length && this.selected.every((id, i) => targets[i] === id);
    });
  }

  /** The element of the board with this id. */
  private element(id: string): Element | null {
    return this.board.querySelector(`[id="${CSS.escape(id)}"]`);
  }

  /** The ids the next click may choose. */
  private nextIds(): Set<string> {
    const next = new Set<string>();
    for (const action of this.candidates()) {
      const id = actionTargets(action)[this.selected.length];
      if (id !== undefined) next.add(id);
    }
    return next;
  }

  private clicked(event: Event): void {
    const next = this.nextIds();
    let id: string | undefined;
    for (let node = event.target as Element | null; node && node !== this.board; node = node.parentElement) {
      if (node.id && next.has(node.id)) {
        id = node.id;
        break;
      }
    }
    if (id === undefined) {
      // Not a next target: start again (from here, if an action starts here).
      this.selected = [];
      const starts = this.nextIds();
      for (let node = event.target as Element | null; node && node !== this.board; node = node.parentElement) {
        if (node.id && starts.has(node.id)) {
          id = node.id;
          break;
        }
      }
      if (id === undefined) {
        this.mark();
        return;
      }
    }
    this.selected.push(id);
    const candidates = this.candidates();
    const complete = candidates.filter((a) => actionTargets(a).length === this.selected.length);
    if (complete.length === 1 && candidates.length === 1) {
      this.selected = [];
      this.mark();
      this.submit(complete[0]!);
      return;
    }
    this.mark();
    replace(
      this.chooser,
      ...complete.map((action) =>
        h("button", { class: "choice", type: "button", onclick: () => this.submit(action) }, action.notation),
      ),
    );
  }

  /** Marks the selected elements and the ones the next click may choose. */
  private mark(): void {
    for (const element of Array.from(this.board.querySelectorAll(".tt-target, .tt-selected"))) {
      element.classList.remove("tt-target", "tt-selected");
    }
    for (const id of this.selected) this.element(id)?.classList.add("tt-selected");
    for (const id of this.nextIds()) this.element(id)?.classList.add("tt-target");
    this.board.dataset.selected = this.selected.join(" ");
    if (this.selected.length === 0) replace(this.chooser);
  }
}
