// The side panel's contents: a base's analysis, the ruleset's settings and reference tables,
// and the umpire's event log. Plain DOM, rebuilt from the data on every change.

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "onclick" || k === "onchange") node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}

export const num = (v, digits = 2) => (typeof v === "number" && Number.isFinite(v) ? v.toFixed(digits) : "–");
const yesNo = (v) => h("span", { class: v ? "yes" : "no" }, v ? "yes" : "no");

function table(columns, rows, testid) {
  return h("table", { class: "data", "data-testid": testid },
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", {}, c)))),
    h("tbody", {}, rows));
}

function nameOf(id, basesById) {
  const b = basesById.get(id);
  return b ? `${b.name || id}` : id;
}

/** Everything the engine says about one base (`info`: its full analysis, asked for when it was
 * tapped; `summaries`: every base's summary, for who this one commands). */
export function renderBasePanel(root, base, info, unit, basesById, problems, summaries = {}, waiting = null) {
  root.replaceChildren();
  if (!base) {
    root.appendChild(h("p", { class: "hint" }, "Tap a base to see its arc, targets, charges, contacts and command."));
    return;
  }
  root.appendChild(h("h2", { class: `side-${base.side}`, "data-testid": "base-name" }, base.name || base.id));
  root.appendChild(h("p", { class: "hint" },
    `${base.id} · side ${base.side} · type ${base.type} · (${num(base.x_mm, 0)}, ${num(base.y_mm, 0)}) mm · heading ${num(base.heading_deg, 0)}°`,
    base.stale ? " · hidden (last seen pose)" : ""));
  if (!info) {
    root.appendChild(h("p", { class: "hint", "data-testid": "base-waiting" }, waiting || "No analysis for this base."));
    return;
  }
  const targets = info.targets || [];
  root.appendChild(h("h3", {}, `Targets (${unit})`));
  root.appendChild(targets.length ? table(["target", "distance", "band", "arc", "range", "sight", "margin"],
    targets.map((t) => h("tr", { "data-target": t.id },
      h("td", {}, nameOf(t.id, basesById)),
      h("td", { class: "num", "data-field": "distance" }, num(t.distance)),
      h("td", {}, t.band || "–"),
      h("td", {}, yesNo(t.in_arc)), h("td", {}, yesNo(t.in_range)), h("td", {}, yesNo(t.line_of_sight)),
      h("td", { class: "num", "data-field": "margin" }, num(t.margin)))), "targets")
    : h("p", { class: "hint", "data-testid": "targets" }, "none"));

  const charges = info.charges || [];
  root.appendChild(h("h3", {}, "Charges"));
  root.appendChild(charges.length ? table(["target", "legal", "distance", "strikes", "why not"],
    charges.map((c) => h("tr", { "data-charge": c.target },
      h("td", {}, nameOf(c.target, basesById)),
      h("td", {}, yesNo(c.legal)),
      h("td", { class: "num", "data-field": "distance" }, num(c.distance)),
      h("td", {}, c.contact_aspect || "–"),
      h("td", {}, (c.reasons || []).join("; ")))), "charges")
    : h("p", { class: "hint", "data-testid": "charges" }, "none"));

  // ISD: the melee this base fights, with the modifiers the board makes applicable (the d6 is
  // rolled at the table); "assumed" lists what the camera cannot know
  const melee = info.melee;
  if (melee && melee.modifiers) {
    root.appendChild(h("h3", {}, `Melee against ${nameOf(melee.against, basesById)}`));
    root.appendChild(h("div", { "data-testid": "melee" },
      h("p", { "data-field": "total" }, `score d6 ${melee.total >= 0 ? "+" : ""}${melee.total}`),
      h("ul", {}, melee.modifiers.map((m) => h("li", {}, m.label))),
      (melee.assumed || []).length ? h("p", { class: "hint" }, `assumed: ${melee.assumed.join("; ")}`) : null));
  }

  const contacts = info.contacts || [];
  root.appendChild(h("h3", {}, "Contacts"));
  root.appendChild(h("p", { "data-testid": "contacts" },
    contacts.length ? contacts.map((c) => `${nameOf(c.id, basesById)} on its ${c.aspect}`).join(", ") : "none"));
  root.appendChild(h("h3", {}, "Supported by"));
  root.appendChild(h("p", { "data-testid": "supported-by" },
    (info.supported_by || []).map((id) => nameOf(id, basesById)).join(", ") || "none"));
  root.appendChild(h("h3", {}, "Commanded by"));
  const reach = new Map((info.command || []).map((c) => [c.id, c]));
  root.appendChild(h("p", { "data-testid": "commanded-by" },
    (info.commanded_by || []).map((id) => {
      const c = reach.get(id);
      return c ? `${nameOf(id, basesById)} (${num(c.distance)} ${unit}, margin ${num(c.margin)})` : nameOf(id, basesById);
    }).join(", ") || "none"));
  const commands = Object.entries(summaries).filter(([, other]) => (other.commanded_by || []).includes(base.id)).map(([id]) => id);
  if (commands.length) {
    root.appendChild(h("h3", {}, "Commands"));
    root.appendChild(h("p", { "data-testid": "commands" }, commands.map((id) => nameOf(id, basesById)).join(", ")));
  }
  const mine = (problems || []).filter((p) => (p.bases || []).includes(base.id));
  if (mine.length) {
    root.appendChild(h("h3", {}, "Problems"));
    root.appendChild(h("ul", {}, mine.map((p) => h("li", { class: p.severity === "error" ? "no" : "" }, p.message))));
  }
}

/** The base's state (losses, disorder, formation ...): one tap each, touch-sized. `onSet(key,
 * value)` sends a change; `onUndo()` takes the last change back. */
export function renderStateControls(root, controls, canWrite, onSet, onUndo) {
  if (!controls || !controls.length) return;
  const box = h("section", { class: "state-controls", "data-testid": "state-controls" },
    h("h3", {}, "State ", canWrite ? h("button", { class: "undo", "data-testid": "state-undo",
      title: "take back the last change of a base's state", onclick: () => onUndo() }, "Undo") : null));
  for (const c of controls) {
    const row = h("div", { class: `state-row kind-${c.kind}`, "data-state": c.key, title: c.cites || "" },
      h("span", { class: "state-label" }, c.label));
    if (c.kind === "bool") {
      row.appendChild(h("button", { class: `toggle${c.value ? " on" : ""}`, "data-testid": `state-${c.key}`,
        "aria-pressed": c.value ? "true" : "false", disabled: !canWrite,
        onclick: () => onSet(c.key, !c.value) }, c.value ? "yes" : "no"));
    } else if (c.kind === "count") {
      const value = typeof c.value === "number" ? c.value : 0;
      row.appendChild(h("button", { class: "step", "data-testid": `state-${c.key}-minus`, disabled: !canWrite || value <= (c.least || 0),
        "aria-label": `${c.label} minus one`, onclick: () => onSet(c.key, value - 1) }, "−"));
      row.appendChild(h("span", { class: "count", "data-testid": `state-${c.key}-value` },
        c.most !== undefined ? `${value} / ${c.most}` : String(value)));
      row.appendChild(h("button", { class: "step", "data-testid": `state-${c.key}-plus`,
        disabled: !canWrite || (c.most !== undefined && value >= c.most),
        "aria-label": `${c.label} plus one`, onclick: () => onSet(c.key, value + 1) }, "+"));
    } else {
      for (const choice of c.choices || []) {
        row.appendChild(h("button", { class: `choice${choice === c.value ? " on" : ""}`,
          "data-testid": `state-${c.key}-${choice}`, disabled: !canWrite || choice === c.value,
          onclick: () => onSet(c.key, choice) }, choice.replace(/_/g, " ")));
      }
    }
    if (c.note) row.appendChild(h("span", { class: "hint state-note" }, c.note));
    box.appendChild(row);
  }
  // first thing under the base's name (the umpire's most frequent tap), not below the analysis
  const name = root.querySelector('[data-testid="base-name"]');
  const under = name && name.nextElementSibling ? name.nextElementSibling.nextSibling : null;
  root.insertBefore(box, under);
}

/** The settings form: one control per setting; `onEdit(name, value)` when the umpire changes one.
 * Settings the rulebook does not give (`gap`) come last, under their own heading. */
export function renderSettings(root, settings, canWrite, onEdit, gapHeading = "Not in the rulebook: set for your group") {
  root.replaceChildren();
  const row = (s) => {
    let control;
    if (s.type === "bool") {
      control = h("input", { type: "checkbox", checked: !!s.value, disabled: !canWrite, "data-setting": s.name,
        onchange: (e) => onEdit(s.name, e.target.checked) });
    } else if (s.type === "choice") {
      control = h("select", { disabled: !canWrite, "data-setting": s.name,
        onchange: (e) => onEdit(s.name, s.choices.find((c) => String(c) === e.target.value)) },
        s.choices.map((c) => h("option", { value: String(c), selected: c === s.value }, String(c))));
    } else if (s.type === "list" || s.type === "size" || s.type === "map") {
      // edited as JSON: ["wood", "town"], [40, 20] or {"FP": "javelins"}
      control = h("input", { type: "text", class: "json", value: JSON.stringify(s.value), disabled: !canWrite,
        "data-setting": s.name, onchange: (e) => {
          try { onEdit(s.name, JSON.parse(e.target.value)); e.target.classList.remove("bad"); }
          catch (err) { e.target.classList.add("bad"); }
        } });
    } else {
      control = h("input", { type: "number", step: "any", value: s.value, disabled: !canWrite, "data-setting": s.name,
        onchange: (e) => onEdit(s.name, Number(e.target.value)) });
    }
    return h("div", { class: `setting${s.overridden ? " overridden" : ""}${s.gap ? " gap" : ""}`, "data-setting-row": s.name },
      h("div", { class: "row" }, h("span", { class: "name" }, s.name), control),
      h("div", { class: "desc" }, s.description));
  };
  const gaps = settings.filter((x) => x.gap);
  if (gaps.length) {
    root.appendChild(h("p", { class: "hint" }, h("a", { href: "#gap-settings", "data-testid": "gap-jump" },
      `${gapHeading}: ${gaps.length} settings, below ↓`)));
  }
  for (const s of settings.filter((x) => !x.gap)) root.appendChild(row(s));
  if (gaps.length) {
    const box = h("div", { class: "gap-settings", id: "gap-settings", "data-testid": "gap-settings" },
      h("h3", { class: "gap-heading", "data-testid": "gap-heading" }, gapHeading),
      h("p", { class: "hint" }, "The rulebook gives no value for these: agree them with your group before the game."));
    for (const s of gaps) box.appendChild(row(s));
    root.appendChild(box);
  }
}

export function renderReference(root, tables) {
  root.replaceChildren();
  for (const t of tables) {
    root.appendChild(h("h3", { class: t.gap ? "gap-heading" : null }, `${t.title} `,
      t.gap ? h("span", { class: "gap-badge" }, "not in the rulebook") : null, " ",
      h("small", { class: "hint" }, t.cites || "")));
    const node = table(t.columns, t.rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, String(c))))), null);
    if (t.gap) node.classList.add("gap");
    root.appendChild(node);
  }
}

export function appendEvent(list, payload) {
  const what = payload.kind === "turn" ? `Turn ${payload.turn ?? ""}` :
    payload.kind === "phase" ? `Phase ${payload.title || payload.phase || ""}` :
    payload.kind === "roll" ? `Dice (${payload.test} ${payload.actor}): ${(payload.dice || []).map((g) => g.join(" ")).join(" | ")}` :
    payload.kind === "resolution" ? `Result ${payload.status} (${payload.test} ${payload.actor}): ${payload.outcome.row}` : "Note";
  const when = payload.time_unix ? new Date(payload.time_unix * 1000).toLocaleTimeString() : "";
  list.prepend(h("li", {}, `${when} ${what}${payload.text ? `: ${payload.text}` : ""}`));
  while (list.children.length > 100) list.lastChild.remove();
}
