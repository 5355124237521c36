// The setup page: rulebook, table and anchors, roster builder, printing, live camera calibration,
// table check, play. Plain ES module. The server checks every draft with the code that reads the
// files (so a field is marked the moment it is wrong) and writes the files only when they are valid;
// the draft itself is kept in this browser (localStorage), so nothing typed is lost on a reload.
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const token = params.get("token") || sessionStorage.getItem("campo-token");
if (params.get("token")) sessionStorage.setItem("campo-token", params.get("token"));
const headers = { "content-type": "application/json", ...(token ? { "X-Campo-Token": token } : {}) };

const setup = (window.campoSetup = {
  status: null, rulebooks: [], catalogue: null, table: null, tableVersion: null, roster: null, rosterVersion: null,
  problems: { table: [], roster: [] }, warnings: { table: [], roster: [] }, saved: { table: true, roster: true },
  undo: [], step: "game", calibration: null, check: null, cells: 6,
});

async function api(path, body, method = "POST") {
  const res = await fetch(path, body === undefined ? {} : { method, headers, body: JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch (e) { data = { ok: false, error: `${res.status} ${res.statusText}` }; }
  if (!res.ok && data && data.detail) data = { ok: false, error: data.detail };
  return data;
}

// -- steps ------------------------------------------------------------------------------------

function showStep(name) {
  setup.step = name;
  for (const b of document.querySelectorAll("#steps [data-step]")) b.classList.toggle("active", b.dataset.step === name);
  for (const s of document.querySelectorAll(".step")) s.classList.toggle("active", s.id === `step-${name}`);
  history.replaceState(null, "", `#${name}`);
  if (name === "print") renderPrint();
  if (name === "play") renderReady();
  window.scrollTo(0, 0);
}
for (const b of document.querySelectorAll("#steps [data-step]")) b.addEventListener("click", () => showStep(b.dataset.step));
for (const b of document.querySelectorAll("[data-next]")) b.addEventListener("click", () => showStep(b.dataset.next));

// -- saving -----------------------------------------------------------------------------------

function setSaveState() {
  const node = $("save-state");
  const bad = setup.problems.table.length + setup.problems.roster.length;
  if (!setup.saved.table || !setup.saved.roster) { node.textContent = "saving…"; node.className = "warn"; }
  else if (bad) { node.textContent = `${bad} problem${bad > 1 ? "s" : ""}: not saved`; node.className = "bad"; }
  else { node.textContent = "all saved"; node.className = "ok"; }
  $("undo").disabled = setup.undo.length === 0;
}

function remember(kind) {
  setup.undo.push({ kind, value: JSON.stringify(setup[kind]) });
  if (setup.undo.length > 200) setup.undo.shift();
  setSaveState();
}

$("undo").addEventListener("click", () => {
  const last = setup.undo.pop();
  if (!last) return;
  setup[last.kind] = JSON.parse(last.value);
  if (last.kind === "table") renderTable(); else renderRoster();
  changed(last.kind);
});
document.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === "z" && !["INPUT", "SELECT"].includes(document.activeElement.tagName)) $("undo").click();
});

const timers = {};
function changed(kind) {
  setup.saved[kind] = false;
  localStorage.setItem(`campo-draft-${kind}`, JSON.stringify(setup[kind]));
  setSaveState();
  clearTimeout(timers[kind]);
  timers[kind] = setTimeout(() => save(kind), 350);
}

// one save of a kind at a time, each sent after the last one's answer, with the file version it
// gave: a second edit while a save is on its way must not meet our own write as a conflict
const saving = {};
function save(kind) {
  saving[kind] = (saving[kind] || Promise.resolve()).catch(() => {}).then(() => saveNow(kind));
  return saving[kind];
}

async function saveNow(kind) {
  if (kind === "roster" && (!setup.roster || !setup.roster.bases.length)) {
    setup.problems.roster = []; setup.saved.roster = true; markProblems("roster"); setSaveState(); return;
  }
  // what is sent, as text: edits change setup[kind] in place, so only a copy tells them apart
  const sent = JSON.stringify(setup[kind]);
  const reply = await api(`/api/setup/${kind}`, { [kind]: JSON.parse(sent), version: setup[`${kind}Version`] }, "PUT");
  if (reply.ok) setup[`${kind}Version`] = reply.version;   // our own write: the next save builds on it
  if (JSON.stringify(setup[kind]) !== sent) return;   // edited meanwhile: the next save decides
  if (reply.changed) {
    setup.problems[kind] = [{ key: "", path: [], message: `${reply.error} (reload the page to see the file)` }];
  } else {
    setup.problems[kind] = reply.problems || (reply.ok ? [] : [{ key: "", path: [], message: reply.error }]);
    setup.warnings[kind] = reply.warnings || [];
  }
  if (reply.ok) localStorage.removeItem(`campo-draft-${kind}`);
  setup.saved[kind] = true;
  markProblems(kind);
  setSaveState();
  if (kind === "table" && reply.ok) save("roster");   // anchors changed: the roster's markers are checked again
}

function markProblems(kind) {
  const root = $(`step-${kind}`);
  for (const n of root.querySelectorAll(".bad")) n.classList.remove("bad");
  for (const n of root.querySelectorAll(".field-msg")) n.remove();
  const list = $(`${kind}-problems`);
  list.replaceChildren();
  const all = [...setup.problems[kind].map((p) => ({ ...p, level: "bad" })), ...setup.warnings[kind].map((p) => ({ ...p, level: "warn" }))];
  for (const p of all) {
    let node = null;
    for (let n = p.path.length; n > 0 && !node; n--) node = root.querySelector(`[data-path="${kind === "table" ? "" : "roster."}${p.path.slice(0, n).join(".")}"]`);
    if (node && !node.matches("[data-path$='bases']")) {
      if (p.level === "bad") node.classList.add("bad");
      const msg = document.createElement("div");
      msg.className = `field-msg ${p.level}`;
      msg.textContent = p.message;
      msg.dataset.testid = "field-message";
      (node.closest("label") || node).after(msg);
    }
    const li = document.createElement("li");
    li.className = p.level;
    li.textContent = `${p.key ? p.key + ": " : ""}${p.message}`;
    list.append(li);
  }
}

// -- step 1: the game -------------------------------------------------------------------------

async function loadStatus() {
  setup.status = await api("/api/setup/status");
  $("folder").textContent = setup.status.folder;
  const files = $("files");
  files.replaceChildren();
  for (const [name, f] of Object.entries(setup.status.files)) {
    const li = document.createElement("li");
    li.className = f.ok ? "ok" : f.error ? "bad" : "";
    li.textContent = `${setup.status.paths[name]}: ${f.ok ? "saved" : f.error ? f.error : "not yet"}`;
    files.append(li);
  }
  return setup.status;
}

function renderRulebooks() {
  const box = $("rulebooks");
  box.replaceChildren();
  for (const r of setup.rulebooks) {
    const b = document.createElement("button");
    b.className = "card" + (setup.roster && setup.roster.ruleset === r.ruleset ? " active" : "");
    b.dataset.testid = `rulebook-${r.ruleset}`;
    b.innerHTML = `<b></b><span></span>`;
    b.querySelector("b").textContent = r.title;
    b.querySelector("span").textContent = unitWords(r);
    b.addEventListener("click", () => chooseRulebook(r.ruleset));
    box.append(b);
  }
}

async function chooseRulebook(name) {
  if (setup.roster && setup.roster.ruleset === name) return;
  if (setup.roster) remember("roster");
  setup.roster = { ruleset: name, bases: setup.roster ? setup.roster.bases : [] };
  await loadCatalogue();
  renderRulebooks();
  renderRoster();
  changed("roster");
}

function unitWords(r) {
  return r.unit === "in" ? `distances in inches of ${r.mm_per_unit} mm` : `distances in ${r.unit}`;
}

// -- step 2: the table ------------------------------------------------------------------------

const PRESETS = [[1800, 1200], [1200, 800], [2400, 1200], [1500, 1000]];
const DICTS = ["DICT_4X4_250", "DICT_4X4_1000", "DICT_5X5_250", "DICT_6X6_250", "DICT_APRILTAG_36h11"];

function cornerAnchors(w, d, size, inset) {
  return [[inset, inset], [w - inset, inset], [w - inset, d - inset], [inset, d - inset]]
    .map(([x, y], i) => ({ marker: i, x_mm: x, y_mm: y, size_mm: size, up_deg: 90.0 }));
}

function newTable() {
  return { table: { width_mm: 1800.0, depth_mm: 1200.0, dictionary: "DICT_4X4_250" }, anchors: cornerAnchors(1800, 1200, 40, 40) };
}

function num(v) { const n = Number(String(v).replace(",", ".")); return v === "" || Number.isNaN(n) ? v : n; }

function renderTable() {
  const t = setup.table;
  $("t-width").value = t.table.width_mm;
  $("t-depth").value = t.table.depth_mm;
  $("t-dict").value = t.table.dictionary;
  const body = $("anchors").querySelector("tbody");
  body.replaceChildren();
  t.anchors.forEach((a, i) => {
    const tr = document.createElement("tr");
    for (const key of ["marker", "x_mm", "y_mm", "size_mm", "up_deg"]) {
      const td = document.createElement("td");
      const input = document.createElement("input");
      input.type = "number"; input.inputMode = "decimal"; input.value = a[key];
      input.dataset.path = `anchors.${i}.${key}`;
      input.dataset.testid = `anchor-${i}-${key}`;
      input.addEventListener("focus", () => remember("table"), { once: true });
      input.addEventListener("input", () => { a[key] = key === "marker" ? num(input.value) : num(input.value); drawTable(); changed("table"); });
      td.append(input);
      tr.append(td);
    }
    const td = document.createElement("td");
    const del = document.createElement("button");
    del.textContent = "Remove"; del.className = "danger";
    del.addEventListener("click", () => { remember("table"); t.anchors.splice(i, 1); renderTable(); changed("table"); });
    td.append(del); tr.append(td); body.append(tr);
  });
  drawTable();
  markProblems("table");
}

function drawTable() {
  const t = setup.table, svg = $("table-svg");
  const w = Number(t.table.width_mm) || 1, d = Number(t.table.depth_mm) || 1;
  svg.setAttribute("viewBox", `-40 -40 ${w + 80} ${d + 80}`);
  let html = `<rect x="0" y="0" width="${w}" height="${d}" class="cloth"/>`;
  for (const a of t.anchors) {
    const s = Number(a.size_mm) || 0, x = Number(a.x_mm), y = d - Number(a.y_mm);
    html += `<rect x="${x - s / 2}" y="${y - s / 2}" width="${s}" height="${s}" class="anchor"/>` +
      `<text x="${x}" y="${y - s}" class="anchor-label">${Number(a.marker)}</text>`;
  }
  html += `<text x="${w / 2}" y="${d + 32}" class="edge">side A</text><text x="${w / 2}" y="-12" class="edge">side B</text>`;
  svg.innerHTML = html;
}

for (const [id, key] of [["t-width", "width_mm"], ["t-depth", "depth_mm"], ["t-dict", "dictionary"]]) {
  $(id).addEventListener("focus", () => remember("table"));
  $(id).addEventListener(id === "t-dict" ? "change" : "input", () => {
    setup.table.table[key] = key === "dictionary" ? $(id).value : num($(id).value);
    drawTable(); changed("table");
    if (key === "dictionary") loadDictionary();
  });
}
$("a-corners").addEventListener("click", () => {
  remember("table");
  const t = setup.table.table;
  setup.table.anchors = cornerAnchors(Number(t.width_mm), Number(t.depth_mm), num($("a-size").value), num($("a-inset").value));
  renderTable(); changed("table");
});
$("a-add").addEventListener("click", () => {
  remember("table");
  const used = new Set(setup.table.anchors.map((a) => a.marker));
  let m = 0; while (used.has(m)) m++;
  setup.table.anchors.push({ marker: m, x_mm: Number(setup.table.table.width_mm) / 2, y_mm: 40.0, size_mm: 40.0, up_deg: 90.0 });
  renderTable(); changed("table");
});

async function loadDictionary() {
  const info = await api(`/api/setup/dictionary/${encodeURIComponent(setup.table.table.dictionary)}`);
  if (info && info.cells) setup.cells = info.cells;
}

// -- step 3: the roster -----------------------------------------------------------------------

async function loadCatalogue() {
  if (!setup.roster) return;
  setup.catalogue = await api(`/api/setup/catalogue/${encodeURIComponent(setup.roster.ruleset)}`);
  const sel = $("add-type");
  sel.replaceChildren();
  for (const t of setup.catalogue.types) {
    const o = document.createElement("option");
    o.value = t.key; o.textContent = `${t.label}: ${t.meaning}`;
    sel.append(o);
  }
  const lists = setup.catalogue.army_lists || [];
  $("army-lists").hidden = lists.length === 0;
  const army = $("army");
  army.replaceChildren();
  for (const l of lists) { const o = document.createElement("option"); o.value = l.army; o.textContent = l.army; army.append(o); }
  renderArmy();
  $("roster-ruleset").textContent = `(${setup.catalogue.title}, ${unitWords(setup.catalogue)})`;
}

function renderArmy() {
  const list = (setup.catalogue && setup.catalogue.army_lists || []).find((l) => l.army === $("army").value);
  const ul = $("army-units");
  ul.replaceChildren();
  if (!list) return;
  list.units.forEach((u, i) => {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.textContent = "Add";
    b.dataset.testid = `army-add-${i}`;
    b.addEventListener("click", () => addBases({ type: u.type, traits: u.traits, size_mm: u.size_mm, name: u.troop }, 1));
    const span = document.createElement("span");
    span.textContent = `${u.troop}: ${u.type}${u.size_mm ? ` (${u.size_mm[0]}×${u.size_mm[1]} mm)` : ""}` +
      `${u.points ? `, ${u.points} pts` : ""}${u.note ? ` — ${u.note}` : ""}`;
    li.append(b, span);
    ul.append(li);
  });
}
$("army").addEventListener("change", renderArmy);

function proposedMarker(w, d) {
  const cells = setup.cells;
  const fit = Math.min(w, d) - 2;
  return Math.max(1, Math.min(30, Math.floor(fit * cells / (cells + 2))));
}

function nextMarker(used) {
  const anchors = new Set((setup.table ? setup.table.anchors : []).map((a) => a.marker));
  let m = 10;
  while (used.has(m) || anchors.has(m)) m++;
  return m;
}

function slug(s) { return String(s).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "unit"; }

function addBases(template, count) {
  if (!setup.roster) { alert("choose a rulebook first (step 1)"); return; }
  remember("roster");
  const side = $("add-side").value;
  const bases = setup.roster.bases;
  const used = new Set(bases.map((b) => b.marker));
  const ids = new Set(bases.map((b) => b.id));
  for (let k = 0; k < count; k++) {
    const [w, d] = template.size_mm || [null, null];
    const stem = `${side.toLowerCase()}-${slug(template.name || template.type)}`;
    let n = 1; while (ids.has(`${stem}-${n}`)) n++;
    const id = `${stem}-${n}`;
    const marker = nextMarker(used);
    used.add(marker); ids.add(id);
    const base = { marker, id, side, name: `${template.name || template.type} ${n}`, type: template.type,
      width_mm: w, depth_mm: d, marker_size_mm: w && d ? proposedMarker(w, d) : null,
      marker_offset_mm: [0.0, 0.0], marker_rotation_deg: 0.0, height_mm: 3.0, traits: { ...template.traits } };
    bases.push(base);
  }
  renderRoster();
  changed("roster");
}

$("add-unit").addEventListener("click", () => {
  const t = setup.catalogue.types.find((x) => x.key === $("add-type").value);
  addBases({ type: t.type, traits: t.traits, size_mm: t.size_mm, name: t.label }, Math.max(1, Math.min(50, Number($("add-count").value) || 1)));
});

const BASE_FIELDS = [["id", "text", "id"], ["name", "text", "name"], ["side", "side", "side"], ["type", "type", "type"],
  ["width_mm", "number", "width mm"], ["depth_mm", "number", "depth mm"], ["marker", "int", "marker"], ["marker_size_mm", "number", "marker mm"]];
const MORE_FIELDS = [["marker_rotation_deg", "number", "marker turned °"], ["height_mm", "number", "height mm"]];

function input(kind, value, choices) {
  let el;
  if (kind === "side" || kind === "type" || kind === "choice") {
    el = document.createElement("select");
    const opts = kind === "side" ? ["A", "B"] : kind === "type" ? Object.keys(typeMeanings()) : ["", ...choices];
    for (const c of opts) { const o = document.createElement("option"); o.value = String(c); o.textContent = c === "" ? "—" : String(c); el.append(o); }
    el.value = value === undefined || value === null ? "" : String(value);
  } else if (kind === "bool") {
    el = document.createElement("select");
    for (const [v, t] of [["", "—"], ["true", "yes"], ["false", "no"]]) { const o = document.createElement("option"); o.value = v; o.textContent = t; el.append(o); }
    el.value = value === true ? "true" : value === false ? "false" : "";
  } else {
    el = document.createElement("input");
    el.type = kind === "number" || kind === "int" ? "number" : "text";
    if (el.type === "number") el.inputMode = "decimal";
    el.value = value === undefined || value === null ? "" : value;
  }
  return el;
}

function typeMeanings() {
  const out = {};
  for (const t of (setup.catalogue ? setup.catalogue.types : [])) out[t.type] = t.meaning;
  return out;
}

function parseTrait(kind, raw) {
  if (raw === "") return undefined;
  if (kind === "bool") return raw === "true";
  if (kind === "int") { const n = Number(raw); return Number.isInteger(n) ? n : raw; }
  if (kind === "choice") { const t = Number(raw); return raw !== "" && !Number.isNaN(t) && /^\d+$/.test(raw) ? t : raw; }
  if (kind === "text_or_list") return raw.includes(",") ? raw.split(",").map((s) => s.trim()).filter(Boolean) : raw;
  return raw;
}

function fieldLabel(text, el, path) {
  const label = document.createElement("label");
  label.className = "field";
  label.append(text, el);
  el.dataset.path = path;
  return label;
}

function renderRoster() {
  const box = $("bases");
  box.replaceChildren();
  const roster = setup.roster;
  $("roster-count").textContent = roster ? `${roster.bases.length} bases` : "choose a rulebook first (step 1)";
  if (!roster) return;
  const traitsByKey = Object.fromEntries((setup.catalogue ? setup.catalogue.traits : []).map((t) => [t.key, t]));
  roster.bases.forEach((b, i) => {
    const card = document.createElement("div");
    card.className = `base side-${b.side}`;
    card.dataset.testid = `base-${i}`;
    const row = document.createElement("div");
    row.className = "base-fields";
    for (const [key, kind, text] of BASE_FIELDS) {
      const el = input(kind, b[key]);
      el.dataset.testid = `base-${i}-${key}`;
      el.addEventListener("focus", () => remember("roster"), { once: true });
      el.addEventListener(el.tagName === "SELECT" ? "change" : "input", () => {
        b[key] = kind === "number" || kind === "int" ? num(el.value) : el.value;
        if (key === "side") card.className = `base side-${b.side}`;
        changed("roster");
      });
      row.append(fieldLabel(text, el, `roster.bases.${i}.${key}`));
    }
    const del = document.createElement("button");
    del.textContent = "Remove"; del.className = "danger"; del.dataset.testid = `base-${i}-remove`;
    del.addEventListener("click", () => { remember("roster"); roster.bases.splice(i, 1); renderRoster(); changed("roster"); });
    row.append(del);
    card.append(row);
    const t = setup.catalogue && setup.catalogue.types.find((x) => x.type === b.type && (!x.traits.arm || x.traits.arm === (b.traits || {}).arm)) ||
      setup.catalogue && setup.catalogue.types.find((x) => x.type === b.type);
    const main = t ? t.main_traits : [];
    const traits = document.createElement("div");
    traits.className = "base-fields traits";
    const shown = new Set([...main, ...Object.keys(b.traits || {})]);
    for (const key of shown) {
      const info = traitsByKey[key] || { kind: "text", choices: [] };
      const el = input(info.kind === "int" && info.choices.length ? "choice" : info.kind, (b.traits || {})[key], info.choices);
      el.dataset.testid = `base-${i}-trait-${key}`;
      el.title = info.doc || "";
      el.addEventListener("focus", () => remember("roster"), { once: true });
      el.addEventListener(el.tagName === "SELECT" ? "change" : "input", () => {
        const v = parseTrait(info.kind, el.value);
        b.traits = b.traits || {};
        if (v === undefined) delete b.traits[key]; else b.traits[key] = v;
        changed("roster");
      });
      traits.append(fieldLabel(key, el, `roster.bases.${i}.traits.${key}`));
    }
    const more = document.createElement("details");
    more.innerHTML = "<summary>more</summary>";
    const moreRow = document.createElement("div");
    moreRow.className = "base-fields";
    for (const [key, kind, text] of MORE_FIELDS) {
      const el = input(kind, b[key]);
      el.addEventListener("input", () => { b[key] = num(el.value); changed("roster"); });
      moreRow.append(fieldLabel(text, el, `roster.bases.${i}.${key}`));
    }
    const addTrait = input("choice", "", Object.keys(traitsByKey).filter((k) => !shown.has(k)));
    addTrait.addEventListener("change", () => { if (addTrait.value) { remember("roster"); b.traits = { ...(b.traits || {}), [addTrait.value]: "" }; delete b.traits[addTrait.value]; shownExtra(b, addTrait.value); } });
    moreRow.append(fieldLabel("add a trait", addTrait, ""));
    more.append(moreRow);
    if (t && t.size_note && !(b.width_mm && b.depth_mm)) {
      const note = document.createElement("p"); note.className = "hint"; note.textContent = t.size_note; card.append(note);
    }
    card.append(traits, more);
    box.append(card);
  });
  markProblems("roster");
}

function shownExtra(base, key) {
  const info = (setup.catalogue.traits || []).find((t) => t.key === key);
  base.traits[key] = info && info.kind === "bool" ? false : info && info.choices.length ? info.choices[0] : "x";
  renderRoster();
  changed("roster");
}

$("import-file").addEventListener("change", async () => {
  const file = $("import-file").files[0];
  if (!file) return;
  const reply = await api("/api/setup/import/roster", { text: await file.text(), name: file.name });
  $("import-file").value = "";
  if (!reply.ok) {
    setup.problems.roster = (reply.lines || [reply.error]).map((m) => ({ key: "", path: [], message: m }));
    markProblems("roster"); setSaveState();
    return;
  }
  remember("roster");
  setup.roster = reply.roster;
  await loadCatalogue();
  renderRulebooks(); renderRoster(); changed("roster");
});

// -- step 4: printing -------------------------------------------------------------------------

function renderPrint() {
  const q = `paper=${encodeURIComponent($("paper").value)}`;
  $("markers-pdf").href = `/api/setup/markers.pdf?${q}&cut=${encodeURIComponent($("cut").value)}`;
  $("anchors-pdf2").href = `/api/setup/anchors.pdf?${q}`;
  $("anchors-pdf").href = `/api/setup/anchors.pdf?${q}`;
  const ok = setup.problems.roster.length === 0 && setup.roster && setup.roster.bases.length;
  $("print-hint").textContent = ok ? `${setup.roster.bases.length} base markers and ${setup.table.anchors.length} anchors.` : "Finish the roster first (step 3).";
}
$("paper").addEventListener("change", renderPrint);
$("cut").addEventListener("change", renderPrint);

// -- step 5: the camera -----------------------------------------------------------------------

let imgBusy = false;
function refreshPicture(img, view) {
  if (imgBusy) return;
  imgBusy = true;
  const next = new Image();
  next.onload = () => { img.src = next.src; imgBusy = false; };
  next.onerror = () => { imgBusy = false; };
  next.src = `/api/setup/camera.jpg?view=${view}&width=960&n=${Date.now()}`;
}

for (const b of document.querySelectorAll("#sources [data-source]")) {
  b.addEventListener("click", async () => {
    const reply = await api("/api/setup/camera", { source: b.dataset.source }, "PUT");
    if (!reply.ok) alert(reply.error);
    showCamera(reply.camera);
  });
}

function showCamera(cam) {
  if (!cam) return;
  $("source-now").textContent = `now: ${cam.source}${cam.signal ? "" : " (no signal)"}`;
  for (const b of document.querySelectorAll("#sources [data-source]")) b.classList.toggle("active", b.dataset.source === cam.spec);
  const phone = cam.spec === "phone" || cam.spec === "browser";
  $("phone-hint").hidden = !phone;
  if (phone) {
    const url = `${location.origin}/camera${token ? `?token=${encodeURIComponent(token)}` : ""}`;
    $("phone-hint").textContent = `On the phone, open ${url} (phones need campo serve --https) and press Start. ` +
      `${cam.senders ? `Connected: ${cam.received_fps} frames a second.` : "No phone connected yet."}`;
  }
}

async function pollCalibration() {
  if (setup.step !== "camera") return;
  const p = await api("/api/setup/calibration");
  setup.calibration = p;
  $("cal-views").textContent = `${p.views} (good from ${p.good_views})`;
  $("cal-coverage").textContent = `${Math.round(100 * p.coverage)} % of the picture`;
  const v = p.verdict;
  $("cal-rms").textContent = v ? `${v.rms_px.toFixed(2)} px` : "–";
  $("cal-focal").textContent = v ? `${v.fx.toFixed(0)} px ± ${v.focal_uncertainty_pct.toFixed(2)} %` : "–";
  $("cal-seeing").textContent = p.seeing;
  $("cal-advice").textContent = p.refusal ? p.refusal : p.advice;
  $("cal-saved").textContent = p.saved ? `Saved ${p.saved}` : p.save_error;
  $("cal-save").disabled = !v || !!p.saved;
  $("board-text").textContent = p.board_text;
  refreshPicture($("cal-img"), "calibration");
  const cam = await api("/api/setup/camera");
  showCamera(cam);
}
$("cal-save").addEventListener("click", async () => { const r = await api("/api/setup/calibration/save", {}); if (!r.ok) alert(r.error); });
let restartArmed = false;
$("cal-restart").addEventListener("click", async () => {
  if (setup.calibration && setup.calibration.views > 0 && !restartArmed) {
    restartArmed = true; $("cal-restart").textContent = "Tap again to drop the views";
    setTimeout(() => { restartArmed = false; $("cal-restart").textContent = "Start over"; }, 4000);
    return;
  }
  restartArmed = false; $("cal-restart").textContent = "Start over";
  await api("/api/setup/calibration/restart", {});
});
$("b-apply").addEventListener("click", async () => {
  const r = await api("/api/setup/calibration/board", { squares: $("b-squares").value, square_mm: num($("b-square").value), marker_mm: num($("b-marker").value) }, "PUT");
  if (!r.ok) alert(r.error);
});

// -- step 6: the table check ------------------------------------------------------------------

async function pollCheck() {
  if (setup.step !== "check") return;
  const c = await api("/api/setup/check");
  setup.check = c;
  if (c.pending) { $("check-advice").textContent = "looking…"; return; }
  if (c.error) { $("check-advice").textContent = c.error; return; }
  $("check-advice").textContent = c.advice + (c.calibrated ? "" : " (the camera is not calibrated: positions are approximate)");
  $("check-anchors").textContent = `anchors read: ${c.anchors_seen} of ${c.anchors_total}` +
    (c.located ? ", table located" : ", table NOT located") + (c.blur_px !== null ? `; edge blur ${c.blur_px} px` : "");
  const body = $("check-bases");
  body.replaceChildren();
  for (const b of c.bases) {
    const tr = document.createElement("tr");
    tr.className = b.seen ? "seen" : "missing";
    tr.dataset.testid = `check-${b.id}`;
    const px = b.sighting ? `${b.sighting.side_px}` : b.expected_px ? `~${b.expected_px[1]}–${b.expected_px[0]}` : "";
    for (const text of [b.seen ? "✔" : "✘", `${b.id} (${b.name})`, String(b.marker), px, b.seen ? b.reason : `${b.status}: ${b.reason}`]) {
      const td = document.createElement("td"); td.textContent = text; tr.append(td);
    }
    body.append(tr);
  }
  const unknown = $("check-unknown");
  unknown.replaceChildren();
  for (const u of c.unknown) {
    const li = document.createElement("li"); li.className = "warn";
    li.textContent = `marker ${u.marker} is not on the roster (${u.side_px} px${u.x_mm !== null ? `, at x ${u.x_mm} y ${u.y_mm} mm` : ""}): add it to the roster or take it off the table`;
    unknown.append(li);
  }
  refreshPicture($("check-img"), "check");
}

// -- step 7: play -----------------------------------------------------------------------------

async function renderReady() {
  const s = await loadStatus();
  const ul = $("ready");
  ul.replaceChildren();
  const c = setup.check;
  const items = [
    [s.files.table.ok, "table.toml saved"], [s.files.roster.ok, "roster.toml saved"],
    [s.files.camera.ok, s.files.camera.ok ? "camera.json saved" : "camera not calibrated (positions near the edges will be off by a few mm)"],
    [!!(c && c.all_seen), c && !c.pending && !c.error ? c.advice : "table not checked yet"],
  ];
  for (const [ok, text] of items) { const li = document.createElement("li"); li.className = ok ? "ok" : "warn"; li.textContent = text; ul.append(li); }
  $("play").disabled = !(s.files.table.ok && s.files.roster.ok);
}
$("play").addEventListener("click", async () => {
  $("play-msg").textContent = "starting…";
  const r = await api("/api/setup/play", {});
  if (!r.ok) { $("play-msg").textContent = r.error; return; }
  location.href = `/${token ? `?token=${encodeURIComponent(token)}` : ""}`;
});

// -- start ------------------------------------------------------------------------------------

async function start() {
  const [status, books] = await Promise.all([loadStatus(), api("/api/setup/rulebooks")]);
  setup.rulebooks = books;
  for (const [w, d] of PRESETS) {
    const b = document.createElement("button");
    b.textContent = `${w / 10}×${d / 10} cm`;
    b.dataset.testid = `preset-${w}x${d}`;
    b.addEventListener("click", () => {
      remember("table");
      const inset = num($("a-inset").value), size = num($("a-size").value);
      setup.table.table.width_mm = w; setup.table.table.depth_mm = d;
      setup.table.anchors = cornerAnchors(w, d, size, inset);
      renderTable(); changed("table");
    });
    $("table-presets").append(b);
  }
  for (const d of DICTS) { const o = document.createElement("option"); o.value = d; o.textContent = d; $("t-dict").append(o); }
  const [table, roster] = await Promise.all([api("/api/setup/table"), api("/api/setup/roster")]);
  const draftTable = localStorage.getItem("campo-draft-table"), draftRoster = localStorage.getItem("campo-draft-roster");
  setup.table = draftTable && !table.data ? JSON.parse(draftTable) : table.data || newTable();
  setup.tableVersion = table.version;
  setup.roster = draftRoster && !roster.data ? JSON.parse(draftRoster) : roster.data;
  setup.rosterVersion = roster.version;
  for (const [kind, f] of [["table", table], ["roster", roster]])
    if (f.error) setup.problems[kind] = [{ key: "", path: [], message: f.error }];
  await loadDictionary();
  renderRulebooks();
  renderTable();
  if (setup.roster) await loadCatalogue();
  renderRoster();
  if (!table.exists) changed("table");   // a new folder: the default table is saved at once
  if (status.camera) showCamera(status.camera);
  setSaveState();
  const wanted = location.hash.slice(1);
  showStep(document.getElementById(`step-${wanted}`) ? wanted : (table.data && roster.data ? "camera" : "game"));
  setInterval(pollCalibration, 500);
  setInterval(pollCheck, 700);
}
start();
