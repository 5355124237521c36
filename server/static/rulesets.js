// What only Federico or ATTILA have, drawn from the engine's analysis: on the table (ATTILA groups
// outlined, deployment zones, bases that must charge; Federico's isolated bases), in the Base panel
// (regiment, class, fire modifiers and odds, melee odds; group, move cost, mandatory charge) and in
// the Army tab (army morale, objectives, Control Points, mandatory charges, the card deck).
import { baseCorners, el, label, pts } from "./board.js";
import { h, num } from "./panels.js";

export const HAS_ARMY_TAB = new Set(["federico", "attila"]);
const pct = (p) => (typeof p === "number" ? `${Math.round(p * 100)}%` : "–");
const signed = (v) => (v > 0 ? `+${v}` : `${v}`);
const sideName = (s) => `Side ${s}`;

function nameOf(id, byId) {
  const b = byId.get(id);
  return b ? b.name || id : id;
}

function table(columns, rows, testid) {
  return h("table", { class: "data", "data-testid": testid },
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", {}, c)))), h("tbody", {}, rows));
}

/** Bases that must charge (ATTILA, ATT 13): id -> the mandatory-charge entry. */
export function mandatoryByBase(analysis) {
  return new Map(((analysis && analysis.mandatory_charges) || []).map((m) => [m.base, m]));
}

// -- on the table ------------------------------------------------------------------------------

function grown(b, by) {
  // the base's corners pushed `by` mm outward from its centre
  return baseCorners(b).map(([x, y]) => {
    const dx = x - b.x_mm, dy = y - b.y_mm, d = Math.hypot(dx, dy) || 1;
    return [x + (dx / d) * by, y + (dy / d) * by];
  });
}

function hull(points) {
  const p = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower = [], upper = [];
  for (const q of p) { while (lower.length >= 2 && cross(lower.at(-2), lower.at(-1), q) <= 0) lower.pop(); lower.push(q); }
  for (const q of p.reverse()) { while (upper.length >= 2 && cross(upper.at(-2), upper.at(-1), q) <= 0) upper.pop(); upper.push(q); }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

/** Deployment zones (ATTILA, ATT 11): drawn under the bases while the toggle is on. */
export function drawZones(layer, analysis, show) {
  layer.replaceChildren();
  const zones = analysis && analysis.deployment && analysis.deployment.zones;
  if (!show || !zones) return;
  for (const [side, z] of Object.entries(zones)) {
    if (z.area) el("polygon", { points: pts(z.area), class: `zone area ${side}`, "data-testid": `zone-${side}-area` }, layer);
    if (z.legal) el("polygon", { points: pts(z.legal), class: `zone legal ${side}`, "data-testid": `zone-${side}-legal` }, layer);
  }
}

/** Marks over the bases: ATTILA group outlines and mandatory charges, Federico isolated bases. */
export function drawMarks(layer, state) {
  layer.replaceChildren();
  const analysis = state.analysis || {};
  const byId = new Map(state.bases.map((b) => [b.id, b]));
  for (const g of analysis.groups || []) {
    const members = g.members.map((id) => byId.get(id)).filter(Boolean);
    if (g.members.length < 2 || !members.length) continue;
    const outline = hull(members.flatMap((b) => grown(b, 7)));
    el("polygon", { points: pts(outline), class: `group-outline${g.split ? " split" : ""}`, "data-testid": `group-${g.id}`,
      "data-group": g.id }, layer);
    // the label beyond the group's far side from its front, clear of its arcs
    const a = (members[0].heading_deg * Math.PI) / 180;
    const cx = members.reduce((s, b) => s + b.x_mm, 0) / members.length;
    const cy = members.reduce((s, b) => s + b.y_mm, 0) / members.length;
    const back = Math.max(...outline.map(([x, y]) => -((x - cx) * Math.cos(a) + (y - cy) * Math.sin(a)))) + 34;
    label(layer, cx - back * Math.cos(a), cy - back * Math.sin(a), `group ${g.label || g.id}${g.split ? " (split)" : ""}`,
      "group-label");
  }
  const mandatory = mandatoryByBase(analysis);
  for (const [id] of mandatory) {
    const b = byId.get(id);
    if (!b) continue;
    el("polygon", { points: pts(grown(b, 5)), class: "must-charge", "data-testid": `must-charge-${id}` }, layer);
    badge(layer, b, "MUST CHARGE", "badge must", `badge-must-charge-${id}`);
  }
  for (const id of analysis.isolated || []) {
    const b = byId.get(id);
    if (b) badge(layer, b, "ISOLATED", "badge isolated", `badge-isolated-${id}`);
  }
}

function badge(layer, b, text, cls, testid) {
  // a pill just in front of the base (toward its front edge), upright whatever the heading
  const a = (b.heading_deg * Math.PI) / 180;
  const off = b.depth_mm / 2 + 16;
  const x = b.x_mm + off * Math.cos(a), y = b.y_mm + off * Math.sin(a);
  const g = el("g", { class: cls, "data-testid": testid, "data-base": b.id }, layer);
  const w = text.length * 9 + 12;
  el("rect", { x: x - w / 2, y: y - 11, width: w, height: 22, rx: 10 }, g);
  label(g, x, y, text, "badge-text");
}

// -- the Base panel ----------------------------------------------------------------------------

/** Extra sections of the Base panel for the ruleset of `analysis`. */
export function renderBaseExtras(root, base, info, analysis, byId) {
  if (!base || !info || !analysis) return;
  const unit = analysis.unit || "";
  if (analysis.ruleset === "federico") federicoBase(root, base, info, analysis, byId, unit);
  else if (analysis.ruleset === "attila") attilaBase(root, base, info, analysis, byId, unit);
}

function federicoBase(root, base, info, analysis, byId, unit) {
  const box = h("section", { class: "ruleset-extra", "data-testid": "federico-base" });
  box.appendChild(h("h3", {}, "Regiment"));
  const reg = info.regiment ? (analysis.regiments || {})[info.regiment] : null;
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

function attilaBase(root, base, info, analysis, byId, unit) {
  const box = h("section", { class: "ruleset-extra", "data-testid": "attila-base" });
  const group = (analysis.groups || []).find((g) => g.id === info.group);
  box.appendChild(h("h3", {}, "Group"));
  box.appendChild(h("p", { "data-testid": "group" },
    group ? `${group.label || group.id} (${group.kind}): ${group.members.map((id) => nameOf(id, byId)).join(", ")}`
      + (group.split ? " · split" : "") : (base.type === "general" ? "General (moves free)" : "none"),
    info.move_cost !== undefined ? ` · moving costs ${info.move_cost} PC` : ""));
  const must = mandatoryByBase(analysis).get(base.id);
  const inGroup = (analysis.mandatory_charges || []).find((m) => (m.whole_group || []).includes(base.id) && m.base !== base.id);
  if (must || inGroup) {
    const m = must || inGroup;
    box.appendChild(h("h3", { class: "must" }, "Mandatory charge"));
    box.appendChild(h("p", { "data-testid": "base-mandatory" },
      must ? `must charge ${m.targets.map((t) => nameOf(t, byId)).join(" or ") || "—"} (${m.reason})`
        : `its group follows ${nameOf(m.base, byId)}'s mandatory charge`,
      m.note ? h("div", { class: "hint" }, m.note) : null));
  }
  if (info.melee) {
    const m = info.melee;
    box.appendChild(h("h3", {}, "In melee"));
    box.appendChild(h("p", { "data-testid": "attila-melee" }, `melee die ${m.die}`,
      m.may_attack === false ? " · may not start a melee" : "",
      (m.flanked_by || []).length ? ` · flanked by ${m.flanked_by.map((i) => nameOf(i, byId)).join(", ")}` : "",
      m.general_adds_d4_minus_1 ? ` · General ${nameOf(m.general_adds_d4_minus_1, byId)} adds 1d4 -1` : "",
      (m.reasons || []).length ? h("div", { class: "hint" }, m.reasons.join("; ")) : null));
  }
  if (info.reorganisation) {
    const r = info.reorganisation;
    box.appendChild(h("h3", {}, "Reorganisation"));
    box.appendChild(h("p", {}, r.eligible ? `may try: ${r.rally_on}` : `may not: ${r.reasons.join("; ")}`,
      r.modifiers.length ? ` (${r.modifiers.join("; ")})` : ""));
  }
  root.appendChild(box);
}

// -- the Army tab ------------------------------------------------------------------------------

/** The Army tab: army morale and victory, objectives or Control Points, mandatory charges, deck. */
export function renderArmyPanel(root, analysis, byId, deck, canWrite, onDeck) {
  root.replaceChildren();
  if (!analysis) return;
  if (analysis.ruleset === "attila") {
    if (deck) root.appendChild(deckSection(deck, canWrite, onDeck));  // a replay has no deck
    root.appendChild(mandatorySection(analysis, byId));
    root.appendChild(attilaArmy(analysis));
    root.appendChild(controlPoints(analysis, byId));
  } else if (analysis.ruleset === "federico") {
    root.appendChild(federicoArmy(analysis, byId));
  }
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

function mandatorySection(a, byId) {
  const list = a.mandatory_charges || [];
  const box = h("section", { "data-testid": "mandatory-section" }, h("h3", {}, "Mandatory charges (ATT 13)"));
  box.appendChild(list.length ? h("ul", { "data-testid": "mandatory-charges" }, list.map((m) => h("li", { "data-mandatory": m.base },
    h("strong", {}, nameOf(m.base, byId)), ` must charge ${m.targets.map((t) => nameOf(t, byId)).join(" or ") || "—"}`,
    ` — ${m.reason}`,
    (m.whole_group || []).length ? h("div", { class: "hint" }, `with its group: ${m.whole_group.map((i) => nameOf(i, byId)).join(", ")}`) : null,
    (m.excused_terrain || []).length ? h("div", { class: "hint" }, `excused (terrain): ${m.excused_terrain.map((i) => nameOf(i, byId)).join(", ")}`) : null)))
    : h("p", { class: "hint", "data-testid": "mandatory-charges" }, "none now"));
  return box;
}

function attilaArmy(a) {
  const morale = a.army_morale || {};
  const v = a.victory || {};
  const box = h("section", { "data-testid": "army-section" }, h("h3", {}, "Army morale and victory (ATT 10, 15)"));
  box.appendChild(table(["", ...Object.keys(morale).map(sideName)], [
    ["discipline", (s) => s.discipline],
    ["army total", (s) => s.total],
    ["losses", (s) => `${s.losses} (${pct(s.loss_share)})`],
    ["Demoralised at", (s) => s.break_point],
    ["status", (s) => (s.beaten ? "BEATEN" : s.demoralised ? "DEMORALISED" : `steady (${s.losses_to_demoralise} more losses to break)`)],
    ["General", (s) => (s.general_dead ? "dead" : "alive")],
  ].map(([k, f]) => h("tr", {}, h("th", {}, k), Object.values(morale).map((s) => h("td", {}, String(f(s)))))), "army-morale"));
  box.appendChild(h("p", { "data-testid": "victory" },
    v.winner ? `${sideName(v.winner)} wins (${v.level}): ${v.reason}` : v.level === "draw" ? `Draw: ${v.reason}` : v.reason || ""));
  return box;
}

function controlPoints(a, byId) {
  const cp = a.control_points || {};
  const box = h("section", { "data-testid": "control-points" }, h("h3", {}, "Control Points (ATT 4)"));
  for (const [side, s] of Object.entries(cp)) {
    box.appendChild(h("p", {}, h("strong", {}, sideName(side)), ` · PC die ${s.die} · General `,
      s.general ? `${nameOf(s.general, byId)} (${s.general_status.replace("_", " ")})` : "dead",
      s.demoralised ? " · Demoralised" : ""));
    box.appendChild(table(["group", "bases", "cost", "why"], Object.entries(s.groups || {}).map(([gid, g]) =>
      h("tr", { "data-cp-group": gid }, h("td", {}, gid.startsWith("~") ? nameOf(gid.slice(1), byId) : gid),
        h("td", {}, g.members.map((m) => nameOf(m, byId)).join(", ")),
        h("td", { class: "num" }, `${g.cost} PC`), h("td", {}, (g.reasons || []).join("; ")))), `cp-${side}`));
  }
  return box;
}

function deckSection(deck, canWrite, onDeck) {
  const box = h("section", { class: "deck", "data-testid": "deck" }, h("h3", {}, "Card deck (ATT 14)"));
  box.appendChild(h("div", { class: "row" },
    h("button", { "data-testid": "deck-shuffle", disabled: !canWrite, onclick: () => onDeck("shuffle") }, "Shuffle: next turn"),
    h("button", { "data-testid": "deck-draw", disabled: !canWrite || deck.turn === 0 || deck.remaining === 0,
      onclick: () => onDeck("draw") }, "Draw a card"),
    h("span", { id: "deck-msg", "data-testid": "deck-msg" })));
  box.appendChild(h("div", { class: "card-now", "data-testid": "deck-current" },
    deck.current ? deck.current.text : deck.turn === 0 ? "Shuffle to start turn 1" : "Turn shuffled: draw the first card"));
  box.appendChild(h("p", { class: "hint", "data-testid": "deck-count" },
    `turn ${deck.turn} · ${deck.drawn.length} drawn · ${deck.remaining} of ${deck.size} left${deck.turn_over ? " · turn over: shuffle" : ""} · seed ${deck.seed}`));
  if (deck.drawn.length > 1)
    box.appendChild(h("ol", { class: "drawn", "data-testid": "deck-drawn" }, deck.drawn.slice(0, -1).map((c) => h("li", {}, c.text))));
  if (deck.left && deck.left.length)
    box.appendChild(h("details", {}, h("summary", {}, "cards left (in no order)"),
      h("ul", { "data-testid": "deck-left" }, deck.left.map((t) => h("li", {}, t)))));
  return box;
}
