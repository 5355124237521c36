// Federico's part of the umpire's page (loaded by app.js through the ruleset registry, served at
// /rulesets/federico.js): isolated bases marked on the table, the regiment, fire modifiers and
// melee odds in the Base panel, army morale, objectives and initiative in the Army tab.
import { badge } from "/static/board.js";
import { h, nameOf, num, pct, sideName, signed, table } from "/static/panels.js";

export const hasArmyTab = true;
/** Summary badges drawn here in their own way (the board draws the others behind each base). */
export const drawnBadges = ["isolated"];

/** Marks over the bases: bases cut off from their regiment (Federico F17). */
export function drawMarks(layer, ctx) {
  const byId = ctx.byId;
  for (const id of ctx.board.isolated || []) {
    const b = byId.get(id);
    if (b) badge(layer, b, "ISOLATED", "badge isolated", `badge-isolated-${id}`);
  }
}

export function drawZones() {}

/** The Base panel's Federico section. */
export function renderBaseExtras(root, base, info, ctx) {
  const box = h("section", { class: "ruleset-extra", "data-testid": "federico-base" });
  box.appendChild(h("h3", {}, "Regiment"));
  const byId = ctx.byId;
  const reg = info.regiment ? (ctx.board.regiments || {})[info.regiment] : null;
  box.appendChild(h("p", { "data-testid": "regiment" },
    info.regiment ? `${info.regiment} · class ${info.class ?? "–"}` : "commander",
    reg ? ` · ${reg.bases.length} bases${reg.split ? " · split" : ""}` : "",
    info.isolated ? h("span", { class: "badge-inline isolated", "data-testid": "isolated-badge" },
      "ISOLATED: must rejoin its regiment") : null));
  if (info.movement) {
    const m = info.movement;
    box.appendChild(h("p", { class: "hint", "data-testid": "movement" },
      `move ${num(m.rate_cm, 0)} cm (${(m.formation || "").replace("_", " ")})`,
      m.halved_here ? ` · halved here: ${num(m.rate_here_cm, 1)} cm` : ""));
  }
  if (info.commander) {
    const c = info.commander;
    box.appendChild(h("p", {}, c.attached_to ? `attached to ${c.attached_to}` : "not attached", c.lost ? " · lost" : ""));
  }
  const shots = (info.targets || []).filter((t) => t.modifiers !== undefined);
  if (shots.length) {
    box.appendChild(h("h3", {}, "Fire modifiers and odds"));
    box.appendChild(table(["target", "modifiers", "total", "dice", "hit", "halt"], shots.map((t) =>
      h("tr", { "data-fire": t.id, class: t.legal ? "" : "muted" },
        h("td", {}, nameOf(t.id, byId), t.legal ? "" : h("div", { class: "hint" }, (t.reasons || []).join("; "))),
        h("td", {}, t.modifiers.length ? h("ul", { class: "mods" }, t.modifiers.map((m) => h("li", { title: m.cites || "" },
          `${signed(m.delta)} ${m.label}`))) : "none"),
        h("td", { class: "num" }, signed(t.modifier_total ?? 0)),
        h("td", { class: "num" }, String(t.dice ?? 0)),
        h("td", { class: "num" }, t.odds && "hit" in t.odds ? pct(t.odds.hit) : "–"),
        h("td", { class: "num" }, t.odds && "halt_chance" in t.odds ? pct(t.odds.halt_chance) : "–"))), "fire-modifiers"));
  }
  const attacks = (info.charges || []).filter((c) => c.melee);
  if (attacks.length) {
    box.appendChild(h("h3", {}, "Melee odds (per die)"));
    box.appendChild(table(["defender", "modifiers", "def. eliminated", "def. falls back", "att. falls back",
      "att. eliminated", "defender's test"], attacks.map((c) => {
      const o = c.melee.odds_per_die || {};
      const dm = c.defender_morale || {};
      return h("tr", { "data-melee": c.target },
        h("td", {}, nameOf(c.target, byId), c.legal ? "" : h("div", { class: "hint" }, "not legal now")),
        h("td", {}, (c.melee.modifiers || []).map((m) => `${signed(m.delta)} ${m.label}`).join("; ") || "none"),
        h("td", { class: "num" }, pct(o.defender_eliminated)), h("td", { class: "num" }, pct(o.defender_falls_back)),
        h("td", { class: "num" }, pct(o.attacker_falls_back)), h("td", { class: "num" }, pct(o.attacker_eliminated)),
        h("td", {}, dm.automatic || (dm.odds ? `falls back ${pct(dm.odds.falls_back)}` : "–")));
    }), "melee-odds"));
  }
  root.appendChild(box);
}

/** The Army tab: army morale, objectives, initiative, isolated bases. */
export function renderArmyPanel(root, ctx) {
  root.appendChild(federicoArmy(ctx.board, ctx.byId));
}

function federicoArmy(a, byId) {
  const box = h("section", { "data-testid": "army-section" }, h("h3", {}, "Army"));
  const morale = a.army_morale || {};
  const init = a.initiative || {};
  box.appendChild(table(["", ...Object.keys(morale).map(sideName)], [
    ["Commander in Chief", (s) => (s.chief ? nameOf(s.chief, byId) : "none")],
    ["Command Capacity", (s) => s.command_capacity ?? "–"],
    ["bases at start / now", (s) => `${s.bases_at_start ?? "–"} / ${s.bases_now ?? "–"}`],
    ["lost", (s) => s.lost ?? "–"],
    ["army morale test at losses of", (s) => (s.threshold_bases !== undefined
      ? `${s.threshold_bases} bases (${num(s.threshold_percent, 0)}%)` : s.note || "–")],
    ["test due now", (s) => (s.test_due === undefined ? "–" : s.test_due ? "YES" : "no")],
    ["passes on", (s) => (s.pass_chance !== undefined ? pct(s.pass_chance) : "–")],
  ].map(([k, f]) => h("tr", {}, h("th", {}, k), Object.values(morale).map((s) => h("td", {}, String(f(s)))))), "army-morale"));
  box.appendChild(h("h3", {}, "Objectives"));
  const objs = a.objectives || [];
  box.appendChild(objs.length ? table(["objective", "held by", "A", "B"], objs.map((o) => h("tr", { "data-objective": o.id },
    h("td", {}, `${o.id} (${o.kind})`), h("td", {}, o.held_by ? sideName(o.held_by) : "nobody"),
    h("td", {}, (o.bases.A || []).length), h("td", {}, (o.bases.B || []).length))), "objectives")
    : h("p", { class: "hint", "data-testid": "objectives" }, "no hill, village, town or bridge on the table"));
  box.appendChild(h("p", { "data-testid": "initiative" }, Object.entries(init).filter(([k]) => k === "A" || k === "B")
    .map(([s, v]) => `${sideName(s)}: objectives held ${(v.objectives_held || []).length}, initiative +${v.bonus}`).join(" · ")));
  const isolated = a.isolated || [];
  box.appendChild(h("h3", {}, "Isolated bases"));
  box.appendChild(h("p", { "data-testid": "isolated-list" }, isolated.length
    ? isolated.map((id) => nameOf(id, byId)).join(", ") + " (must rejoin their regiments)" : "none"));
  return box;
}
