// ATTILA's part of the umpire's page (loaded by app.js through the ruleset registry, served at
// /rulesets/attila.js): groups outlined and mandatory charges marked on the table, deployment
// zones, the group, move cost and melee in the Base panel; the card deck, mandatory charges,
// army morale and Control Points in the Army tab.
import { badge, baseCorners, el, label, pts } from "/static/board.js";
import { h, nameOf, pct, sideName, table } from "/static/panels.js";

export const hasArmyTab = true;
/** Summary badges drawn here in their own way (the board draws the others behind each base). */
export const drawnBadges = ["must charge"];

/** Bases that must charge (ATT 13): id -> the mandatory-charge entry. */
function mandatoryByBase(board) {
  return new Map(((board && board.mandatory_charges) || []).map((m) => [m.base, m]));
}

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

/** Deployment zones (ATT 11): drawn under the bases while the toggle is on. */
export function drawZones(layer, ctx, show) {
  const zones = ctx.board.deployment && ctx.board.deployment.zones;
  if (!show || !zones) return;
  for (const [side, z] of Object.entries(zones)) {
    if (z.area) el("polygon", { points: pts(z.area), class: `zone area ${side}`, "data-testid": `zone-${side}-area` }, layer);
    if (z.legal) el("polygon", { points: pts(z.legal), class: `zone legal ${side}`, "data-testid": `zone-${side}-legal` }, layer);
  }
}

export function hasZones(ctx) {
  return !!(ctx.board.deployment && ctx.board.deployment.zones);
}

/** Marks over the bases: group outlines (ATT 4) and mandatory charges (ATT 13). */
export function drawMarks(layer, ctx) {
  const byId = ctx.byId;
  for (const g of ctx.board.groups || []) {
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
  for (const [id] of mandatoryByBase(ctx.board)) {
    const b = byId.get(id);
    if (!b) continue;
    el("polygon", { points: pts(grown(b, 5)), class: "must-charge", "data-testid": `must-charge-${id}` }, layer);
    badge(layer, b, "MUST CHARGE", "badge must", `badge-must-charge-${id}`);
  }
}

/** The Base panel's ATTILA section. */
export function renderBaseExtras(root, base, info, ctx) {
  const box = h("section", { class: "ruleset-extra", "data-testid": "attila-base" });
  const byId = ctx.byId, board = ctx.board;
  const group = (board.groups || []).find((g) => g.id === info.group);
  box.appendChild(h("h3", {}, "Group"));
  box.appendChild(h("p", { "data-testid": "group" },
    group ? `${group.label || group.id} (${group.kind}): ${group.members.map((id) => nameOf(id, byId)).join(", ")}`
      + (group.split ? " · split" : "") : (base.type === "general" ? "General (moves free)" : "none"),
    info.move_cost !== undefined ? ` · moving costs ${info.move_cost} PC` : ""));
  const must = mandatoryByBase(board).get(base.id);
  const inGroup = (board.mandatory_charges || []).find((m) => (m.whole_group || []).includes(base.id) && m.base !== base.id);
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

/** The Army tab: the card deck, mandatory charges, army morale and victory, Control Points. */
export function renderArmyPanel(root, ctx) {
  if (ctx.tool) root.appendChild(deckSection(ctx.tool, ctx.canWrite, ctx.onTool));  // a replay has no deck
  root.appendChild(mandatorySection(ctx.board, ctx.byId));
  root.appendChild(attilaArmy(ctx.board));
  root.appendChild(controlPoints(ctx.board, ctx.byId));
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
