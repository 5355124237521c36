// The turn stepper: the current turn and phase of the rulebook's sequence of play, who acts and
// what each side's bases may do with their move, with Back (undo) and Next. The server keeps the
// clock (server/turn_clock.py); this module only draws its `turn` view and sends
// {"type": "turn", "action": ...}. Every tap can be taken back: Back is the undo of Next, and
// who plays first can be swapped back.
import { h } from "./panels.js";

const MOVES = { full: "move", results: "results only", none: "stay" };

export class TurnStepper {
  /** `root`: the bar's element; `send(message)`: the page's WebSocket sender. */
  constructor(root, send) {
    this.root = root;
    this.send = send;
    this.view = null;
    this.canWrite = false;
    this.message = "";
    this.render();
  }

  setWritable(canWrite) {
    this.canWrite = canWrite;
    this.render();
  }

  /** A `turn` message from the server: the clock after a step (anyone's). */
  update(view) {
    this.view = view;
    this.message = "";
    this.render();
  }

  /** The server's reply to this page's step (shown only when refused). */
  onReply(reply) {
    this.message = reply.ok ? "" : `refused: ${reply.error}`;
    this.render();
  }

  step(action, side) {
    this.send(side ? { type: "turn", action, side } : { type: "turn", action });
  }

  render() {
    const v = this.view;
    this.root.replaceChildren();
    this.root.hidden = !v;
    if (!v) return;
    const ro = !this.canWrite;
    const cards = v.card_driven;
    const backLabel = cards ? "◀ Undo card" : "◀ Back";
    const nextLabel = `Next: ${v.next ? v.next.title : ""} ▶`;
    const back = h("button", { class: "turn-back", "data-testid": "turn-back", disabled: ro || !v.started,
      title: "Step back one phase (undo)", onclick: () => this.step("back") }, backLabel);
    const next = h("button", { class: "turn-next", "data-testid": "turn-next", disabled: ro,
      onclick: () => this.step("next") }, nextLabel);

    const where = v.started
      ? [h("span", { class: "turn-number", "data-testid": "turn-number" }, `Turn ${v.turn}${v.turns ? ` of ${v.turns}` : ""}`),
        h("span", { class: `turn-phase${v.acting ? ` side-${v.acting}` : ""}`, "data-testid": "turn-phase" }, v.title),
        v.of && !cards ? h("span", { class: "turn-count" }, `phase ${v.index} of ${v.of}`) : null]
      : [h("span", { class: "turn-number", "data-testid": "turn-number" }, "Not started"),
        h("span", { class: "turn-phase", "data-testid": "turn-phase" }, cards ? "shuffle the deck to begin" : "press Next to begin turn 1")];
    const moves = v.moves
      ? h("span", { class: "turn-moves", "data-testid": "turn-moves" },
        ...["A", "B"].map((s) => h("span", { class: `mv side-${s} ${v.moves[s]}` }, `${s}: ${MOVES[v.moves[s]] || v.moves[s]}`)))
      : null;
    const info = h("div", { class: "turn-info" }, h("div", { class: "turn-where" }, ...where, moves));
    if (v.does) info.appendChild(h("div", { class: "turn-does", "data-testid": "turn-does" },
      v.does, " ", h("span", { class: "cites" }, `(${(v.cites || []).join(", ")})`)));
    if (this.message) info.appendChild(h("div", { class: "turn-msg", "data-testid": "turn-msg" }, this.message));

    const parts = [back, info];
    if (v.actions && v.actions.includes("first") && v.started) {
      const other = v.first === "A" ? "B" : "A";
      parts.push(h("button", { class: "turn-first", "data-testid": "turn-first", disabled: ro,
        title: v.initiative_each_turn ? "The initiative's winner this turn" : "The player with the initiative",
        onclick: () => this.step("first", other) }, `${v.first} first ⇄`));
    }
    parts.push(next);
    this.root.append(...parts);
  }
}
