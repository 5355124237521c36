// Resolving fire and melee with the dice (issue 14 item 4): from a tapped base's legal targets and
// contacts, a sheet shows
// the modifiers the engine computed and the rulebook's table; the umpire taps the dice faces or lets
// Campo roll; the result and its proposed effects come back from the server (a fall back drawn as
// a ghost on the board) and one tap confirms them into the bases' state (Undo takes them back).
import { h } from "./panels.js";
import { baseCorners, el, pts } from "./board.js";

const STYLE = "/static/resolve.css";

export class Resolver {
  /** `board`: the page's Board (the ghost layer goes in its table group); `token()`: the
   * umpire's token or null; `byId()`: the bases shown now; `onApplied()`: after a confirmation. */
  constructor({ board, token, byId, onApplied }) {
    this.board = board;
    this.token = token;
    this.byId = byId;
    this.onApplied = onApplied || (() => {});
    this.kind = null;      // "fire" or "melee"
    this.shot = null;      // {actor, target}
    this.test = null;      // the test as the server gave it
    this.faces = [];       // faces tapped, per roll group, per die
    this.result = null;    // {id, roll, outcome}
    this.message = "";
    this.busy = false;
    if (!document.querySelector(`link[href="${STYLE}"]`))
      document.head.appendChild(h("link", { rel: "stylesheet", href: STYLE }));
    this.sheet = h("section", { id: "resolve", class: "resolve", "data-testid": "resolve", hidden: true });
    document.body.appendChild(this.sheet);
    this.ghosts = el("g", { id: "layer-ghost", "data-testid": "ghosts" }, board.flip);
  }

  /** The "Resolve" buttons of a tapped base: fire at each legal target, melee with each enemy
   * in contact. */
  renderTargets(root, base, info, canWrite, nameOf) {
    const legal = (info.targets || []).filter((t) => t.legal);
    const contacts = [...new Set((info.contacts || []).map((c) => c.id))];
    // its own test: ISD's Manoeuvre Table, ATTILA's reorganisation (when the analysis offers it)
    const own = info.manoeuvre ? "Manoeuvre test" : (info.reorganisation && info.reorganisation.eligible ? "Reorganise" : null);
    if (!legal.length && !contacts.length && !own) return;
    const button = (kind, id, text) => h("button", { class: "fire-at", "data-testid": `${kind}-at-${id}`,
      disabled: !canWrite, onclick: () => this.open(kind, base.id, id) }, text);
    root.appendChild(h("section", { class: "resolve-targets", "data-testid": "fire-targets" },
      h("h3", {}, "Resolve"),
      legal.map((t) => button("fire", t.id, `Fire at ${nameOf(t.id)}`)),
      contacts.map((id) => button("melee", id, `Melee with ${nameOf(id)}`)),
      own ? button("manoeuvre", base.id, own) : null));
  }

  async open(kind, actor, target) {
    this.kind = kind;
    this.shot = { actor, target };
    this.test = null;
    this.result = null;
    this.message = "loading…";
    this.draw();
    const res = await fetch(`/api/resolve/${kind}?actor=${encodeURIComponent(actor)}&target=${encodeURIComponent(target)}`);
    const body = await res.json();
    if (!res.ok) { this.message = `cannot resolve: ${body.detail || body.error}`; this.draw(); return; }
    this.test = body;
    this.faces = body.rolls.map((r) => new Array(r.count).fill(null));
    this.message = "";
    this.draw();
  }

  close() {
    this.shot = null; this.test = null; this.result = null;
    this.ghosts.replaceChildren();
    this.draw();
  }

  async post(url, body) {
    const headers = { "Content-Type": "application/json" };
    const token = this.token();
    if (token) headers["X-Campo-Token"] = token;
    this.busy = true;
    this.draw();
    try {
      const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body || {}) });
      const data = await res.json();
      if (!res.ok) this.message = `refused: ${data.error || data.detail}`;
      return res.ok ? data : null;
    } finally { this.busy = false; }
  }

  async read(roll) {
    const body = { ...this.shot };
    if (!roll) body.dice = this.faces.map((g, i) => (this.needed(i) ? g : g.map((f) => f ?? 1)));
    const data = await this.post(`/api/resolve/${this.kind}`, body);
    if (data) { this.result = data; this.message = ""; }
    this.drawGhosts();
    this.draw();
  }

  async confirm() {
    const data = await this.post(`/api/resolve/${encodeURIComponent(this.result.id)}/confirm`);
    if (data) {
      this.result = { ...this.result, applied: data };
      this.message = data.changes.length ? "applied" : "nothing to apply";
      this.onApplied();
    }
    this.draw();
  }

  /** Whether roll group `i` must be entered (a save is entered only for a hit: an unentered
   * save counts as failed, the umpire enters it when the shot hits). */
  needed(i) { return !this.test.rolls[i].only_if; }

  drawGhosts() {
    this.ghosts.replaceChildren();
    const bases = this.byId();
    for (const e of (this.result && this.result.outcome.effects) || []) {
      const b = bases.get(e.base);
      if (!b) continue;
      if (e.ghost) {
        const g = { ...b, ...e.ghost };
        el("polygon", { class: "ghost", points: pts(baseCorners(g)), "data-testid": `ghost-${e.base}` }, this.ghosts);
        el("line", { class: "ghost-move", x1: b.x_mm, y1: b.y_mm, x2: g.x_mm, y2: g.y_mm }, this.ghosts);
      }
      if (e.remove) el("polygon", { class: "ghost remove", points: pts(baseCorners(b)), "data-testid": `remove-${e.base}` }, this.ghosts);
    }
  }

  draw() {
    const s = this.sheet;
    s.replaceChildren();
    s.hidden = !this.shot;
    if (!this.shot) return;
    const bases = this.byId();
    const name = (id) => (bases.get(id) || {}).name || id;
    const t = this.test;
    s.appendChild(h("header", {},
      h("h2", { "data-testid": "resolve-title" }, `${t ? t.title : this.kind}: ${name(this.shot.actor)}${this.kind === "manoeuvre" ? "" : ` → ${name(this.shot.target)}`}`),
      h("button", { class: "close", "data-testid": "resolve-close", "aria-label": "close", onclick: () => this.close() }, "✕")));
    if (this.message) s.appendChild(h("p", { class: "resolve-msg", "data-testid": "resolve-msg" }, this.message));
    if (!t) return;
    s.appendChild(h("h3", {}, "Modifiers ", h("small", { class: "hint" }, t.cites)));
    s.appendChild(h("ul", { class: "mods", "data-testid": "resolve-modifiers" },
      t.modifiers.length ? t.modifiers.map((m) => h("li", {}, m.label, " ", h("small", { class: "hint" }, m.cites || ""))) : h("li", {}, "none")));
    for (const n of t.notes) s.appendChild(h("p", { class: "resolve-note" }, n));
    // the dice (or the result) before the table: in portrait the sheet is half the screen
    if (this.result) this.drawResult(s, name);
    else this.drawDice(s);
    const read = new Set((this.result && this.result.outcome.rows) || []);
    s.appendChild(h("h3", {}, t.table.title, " ", h("small", { class: "hint" }, t.table.cites)));
    s.appendChild(h("table", { class: "data resolve-table", "data-testid": "resolve-table" },
      h("thead", {}, h("tr", {}, t.table.columns.map((c) => h("th", {}, c)))),
      h("tbody", {}, t.table.rows.map((r) => h("tr", { class: read.has(r[0]) ? "read" : null, "data-row": r[0] },
        r.map((c) => h("td", {}, c)))))));
    for (const n of t.table.notes || []) s.appendChild(h("p", { class: "hint" }, n));
  }

  drawDice(s) {
    const t = this.test;
    s.appendChild(h("h3", {}, "Dice"));
    t.rolls.forEach((r, g) => {
      s.appendChild(h("p", { class: "hint" }, r.label, r.reroll_ones ? " — re-roll each 1 once, tap the face after" : "",
        r.only_if ? ` — only if ${r.only_if}` : ""));
      for (let k = 0; k < r.count; k++) {
        const row = h("div", { class: "faces", "data-testid": `die-${g}-${k}` });
        for (let f = 1; f <= r.sides; f++) {
          row.appendChild(h("button", { class: `face${this.faces[g][k] === f ? " on" : ""}`, "data-face": f,
            "aria-pressed": this.faces[g][k] === f ? "true" : "false",
            onclick: () => { this.faces[g][k] = f; this.draw(); } }, String(f)));
        }
        s.appendChild(row);
      }
    });
    const complete = this.faces.every((g, i) => !this.needed(i) || g.every((f) => f !== null));
    s.appendChild(h("div", { class: "resolve-actions" },
      h("button", { class: "primary", "data-testid": "resolve-read", disabled: !complete || this.busy,
        onclick: () => this.read(false) }, "Read the dice"),
      h("button", { "data-testid": "resolve-roll", disabled: this.busy, onclick: () => this.read(true) }, "Campo rolls")));
  }

  drawResult(s, name) {
    const { roll, outcome, applied } = this.result;
    s.appendChild(h("h3", {}, "Result ", h("small", { class: "hint" }, outcome.cites)));
    const dice = roll.dice.map((g) => g.join(" ")).join(" | ");
    s.appendChild(h("p", { "data-testid": "resolve-dice" }, roll.by === "campo" ? `Campo rolled ${dice} (seed ${roll.seed})` : `dice ${dice}`));
    s.appendChild(h("p", { class: "resolve-outcome", "data-testid": "resolve-outcome" }, outcome.row, ": ", outcome.text));
    s.appendChild(h("ul", { class: "effects", "data-testid": "resolve-effects" },
      outcome.effects.length ? outcome.effects.map((e) => h("li", {}, `${name(e.base)}: ${e.text}`)) : h("li", {}, "no effect")));
    if (applied) {
      s.appendChild(h("p", { class: "yes", "data-testid": "resolve-applied" },
        applied.changes.map((c) => `${name(c.base)}: ${Object.entries(c.traits).map(([k, v]) => `${k} ${v}`).join(", ")}`).join("; ") || "nothing to apply",
        applied.by_hand.length ? " — move or lift by hand as drawn" : ""));
      s.appendChild(h("div", { class: "resolve-actions" },
        h("button", { "data-testid": "resolve-done", onclick: () => this.close() }, "Done")));
      return;
    }
    s.appendChild(h("div", { class: "resolve-actions" },
      h("button", { class: "primary", "data-testid": "resolve-confirm", disabled: this.busy, onclick: () => this.confirm() },
        outcome.effects.length ? "Confirm" : "Record"),
      h("button", { "data-testid": "resolve-again", onclick: () => { this.result = null; this.ghosts.replaceChildren(); this.draw(); } }, "Other dice")));
  }
}
