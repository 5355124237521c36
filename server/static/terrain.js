// The terrain editor: draw areas (wood, town, hill with crest, ...) and lines (river, road, wall, ...)
// on the table, delete them, and save the whole terrain to the server (which validates and stores it).
import { h } from "./panels.js";

export class TerrainEditor {
  constructor({ send, redraw, board }) {
    this.send = send;
    this.redraw = redraw;
    this.board = board;
    this.features = [];
    this.dirty = false;
    this.selected = null;
    this.drawing = null; // {mode: "new" | "crest", kind, points}
    this.canWrite = false;
    this.kind = document.getElementById("terrain-kind");
    this.list = document.getElementById("terrain-list");
    this.msg = document.getElementById("terrain-msg");
    this.addBtn = document.getElementById("terrain-add");
    this.finishBtn = document.getElementById("terrain-finish");
    this.cancelBtn = document.getElementById("terrain-cancel");
    this.saveBtn = document.getElementById("terrain-save");
    this.shapes = new Map();   // kind -> "area" | "line", from the server (setKinds)
    this.addBtn.addEventListener("click", () => this.start("new", this.kind.value));
    this.finishBtn.addEventListener("click", () => this.finish());
    this.cancelBtn.addEventListener("click", () => this.cancel());
    this.saveBtn.addEventListener("click", () => this.save());
  }

  /** Every terrain kind the engine knows, with what it does under this rulebook (/api/rules). */
  setKinds(kinds) {
    this.shapes = new Map(kinds.map((k) => [k.kind, k.shape]));
    const chosen = this.kind.value;
    this.kind.replaceChildren(...["area", "line"].flatMap((shape) => kinds.filter((k) => k.shape === shape).map((k) =>
      h("option", { value: k.kind, title: k.effect || "" }, `${k.label} (${shape})`))));
    if (this.shapes.has(chosen)) this.kind.value = chosen;
  }

  setWritable(canWrite) {
    this.canWrite = canWrite;
    this.addBtn.disabled = !canWrite;
    this.renderList();
  }

  /** New terrain from the server (ignored while the umpire has unsaved edits). */
  fromServer(terrain) {
    if (this.dirty) return;
    this.features = JSON.parse(JSON.stringify(terrain || []));
    this.renderList();
  }

  get isDrawing() { return this.drawing !== null; }

  start(mode, kind) {
    if (!this.canWrite) return;
    this.drawing = { mode, kind, points: [] };
    this.finishBtn.disabled = false;
    this.cancelBtn.disabled = false;
    this.msg.textContent = mode === "crest" ? "tap the crest's points, then Finish" : `tap the ${kind}'s points, then Finish`;
    this.redraw();
  }

  addPoint(p) {
    if (!this.drawing) return;
    this.drawing.points.push([Math.round(p[0] * 10) / 10, Math.round(p[1] * 10) / 10]);
    this.redrawDraft();
  }

  redrawDraft() {
    const d = this.drawing;
    this.board.drawDraft(d ? d.points : [], d && d.mode === "new" && this.shapes.get(d.kind) === "area");
  }

  freshId(kind) {
    const ids = new Set(this.features.map((f) => f.id));
    let n = 1;
    while (ids.has(`${kind}-${n}`)) n += 1;
    return `${kind}-${n}`;
  }

  finish() {
    const d = this.drawing;
    if (!d) return;
    const isArea = d.mode === "new" && this.shapes.get(d.kind) === "area";
    const need = isArea ? 3 : 2;
    if (d.points.length < need) {
      this.msg.textContent = `need at least ${need} points`;
      return;
    }
    if (d.mode === "crest") {
      const hill = this.features.find((f) => f.id === this.selected);
      if (hill) hill.crest_mm = d.points;
    } else {
      const f = { id: this.freshId(d.kind), kind: d.kind };
      if (isArea) f.polygon_mm = d.points; else f.line_mm = d.points;
      this.features.push(f);
      this.selected = f.id;
    }
    this.dirty = true;
    this.cancel();
    this.msg.textContent = "not saved yet";
  }

  cancel() {
    this.drawing = null;
    this.finishBtn.disabled = true;
    this.cancelBtn.disabled = true;
    this.board.drawDraft([], false);
    this.renderList();
    this.redraw();
  }

  remove(id) {
    this.features = this.features.filter((f) => f.id !== id);
    if (this.selected === id) this.selected = null;
    this.dirty = true;
    this.msg.textContent = "not saved yet";
    this.renderList();
    this.redraw();
  }

  select(id) {
    this.selected = id;
    this.renderList();
    this.redraw();
  }

  save() {
    this.msg.textContent = "saving…";
    this.send({ type: "terrain", terrain: this.features });
  }

  onReply(reply) {
    if (reply.ok) {
      this.dirty = false;
      this.msg.textContent = reply.saved ? `saved (${reply.features} features)` : `applied (${reply.features} features; demo: not written to a file)`;
    } else {
      this.msg.textContent = `refused: ${reply.error}`;
    }
    this.renderList();
  }

  renderList() {
    this.list.replaceChildren();
    for (const f of this.features) {
      const li = h("li", { class: f.id === this.selected ? "selected" : "", "data-terrain-item": f.id },
        h("span", { onclick: () => this.select(f.id) }, `${f.id} (${f.kind}${f.crest_mm ? ", crest" : ""}) `),
        f.kind === "hill" && this.canWrite ? h("button", { onclick: () => { this.select(f.id); this.start("crest", "hill"); } }, "Crest") : null,
        this.canWrite ? h("button", { onclick: () => this.remove(f.id), "data-testid": `terrain-delete-${f.id}` }, "Delete") : null);
      this.list.appendChild(li);
    }
    this.saveBtn.disabled = !(this.canWrite && this.dirty);
  }
}
