// Campo's overlay page: connects to /ws, renders whatever `state` arrives (live or replay), and
// sends the umpire's edits. No build step: plain ES modules.
//
// A `state` message carries the scenario and each base's compact summary (contacts, command,
// badges) plus the table-level facts the board draws; the tapped base's full analysis and its
// arcs come from /api/bases/{id}/analysis and /api/geometry/{id}. What only one rulebook has
// (its marks, panels and Army tab) is that rulebook's own page module, named by the server.
import { Board } from "./board.js";
import { appendEvent, renderBasePanel, renderReference, renderSettings, renderStateControls } from "./panels.js";
import { TerrainEditor } from "./terrain.js";
import { TurnStepper } from "./turn.js";
import { Resolver } from "./resolve.js";
import { ProjectorLink } from "./projector_link.js";

const params = new URLSearchParams(location.search);
const token = params.get("token") || sessionStorage.getItem("campo-token");
if (params.get("token")) sessionStorage.setItem("campo-token", params.get("token"));

// Shared with tests and benchmarks: the latest data and the measured delivery latencies.
const campo = (window.campo = {
  state: null, status: null, hello: null, seq: 0, statesReceived: 0, latenciesMs: [], drawnLatenciesMs: [],
  selected: null, geometry: null, detail: null, stateControls: null, tool: "select", ruler: [], rulerResult: null, connected: false,
  umpireTool: null, rulebook: null, turn: null,
});
const NO_RULEBOOK = { hasArmyTab: false, drawMarks() {}, drawZones() {}, renderBaseExtras() {}, renderArmyPanel() {} };
let rulebook = NO_RULEBOOK;

const $ = (id) => document.getElementById(id);
const board = new Board($("table"));
let socket = null;
let geometryRequest = 0;
let settingsEdits = {};
let rulesInfo = null;

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

const terrain = new TerrainEditor({ send, redraw: () => render(), board });
const turnStepper = new TurnStepper($("turn-bar"), send);
const projector = (campo.projector = new ProjectorLink({ token, panel: $("projector-panel") }));
const resolver = new Resolver({ board, token: () => token, byId: () => basesById(), onApplied: () => fetchDetail() });

// -- connection --------------------------------------------------------------------------------

function connect(delay = 500) {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws${token ? `?token=${encodeURIComponent(token)}` : ""}`;
  socket = new WebSocket(url);
  socket.onopen = () => { campo.connected = true; delay = 500; };
  socket.onmessage = (e) => onMessage(JSON.parse(e.data));
  socket.onclose = () => {
    campo.connected = false;
    setPill("st-mode", "disconnected — retrying", "bad");
    setTimeout(() => connect(Math.min(delay * 2, 5000)), delay);
  };
}

function onMessage(msg) {
  campo.seq = msg.seq;
  const p = msg.payload;
  switch (msg.topic) {
    case "hello": onHello(p); break;
    case "state": onState(p); break;
    case "status": onStatus(p); break;
    case "event": appendEvent($("events-list"), p); break;
    case "turn": campo.turn = p; turnStepper.update(p); break;
    case "reply": onReply(p); break;
    case "projector": projector.onProjector(p); break;
    default:
      if (campo.hello && campo.hello.tool && msg.topic === campo.hello.tool.topic) { campo.umpireTool = p; renderArmy(); }
      break;
  }
}

async function loadRulebook(url) {
  if (!url || campo.rulebook === url) return;
  try {
    rulebook = { ...NO_RULEBOOK, ...(await import(url)) };
    campo.rulebook = url;
    render();
  } catch (e) { console.warn("rulebook page module not loaded:", e); }
}

function onHello(p) {
  campo.hello = p;
  loadRulebook(p.page_module);
  const ro = !p.can_write;
  setPill("st-access", ro ? "read-only (no token)" : (p.token_required ? "umpire (token)" : "umpire"), ro ? "warn" : "ok");
  terrain.setWritable(p.can_write);
  projector.setWritable(!!p.can_write);
  // the game's setup (table, roster, camera), when this server has one (not the demo, not a replay)
  $("st-setup").hidden = !p.setup_url;
  if (p.setup_url) $("st-setup").href = p.setup_url + (token ? `?token=${encodeURIComponent(token)}` : "");
  $("ev-note-btn").disabled = ro;
  turnStepper.setWritable(p.can_write);
  if (rulesInfo) renderRules();
}

function onState(state) {
  campo.state = state;
  campo.statesReceived += 1;
  const live = state.live || {};
  if (live.captured_unix) {
    campo.latenciesMs.push(Date.now() - live.captured_unix * 1000);
    if (campo.latenciesMs.length > 2000) campo.latenciesMs.shift();
  }
  terrain.fromServer(state.terrain);
  const error = state.summary && state.summary.error;
  setPill("st-engine", error ? `rules engine: ${error}` : "", "bad");
  if (campo.selected && !state.bases.some((b) => b.id === campo.selected)) select(null);
  else if (campo.selected) fetchDetail();
  render();
  if (live.captured_unix) {
    campo.drawnLatenciesMs.push(Date.now() - live.captured_unix * 1000);
    if (campo.drawnLatenciesMs.length > 2000) campo.drawnLatenciesMs.shift();
  }
}

function onStatus(s) {
  // Every member is optional: a replay server sends only what it knows.
  campo.status = s;
  setPill("st-mode", s.mode === "replay" ? "replay" : "live", "ok");
  if (s.camera) {
    const cam = s.camera;
    setPill("st-signal", cam.signal ? cam.source : `no signal (${cam.source || "camera"})`, cam.signal ? "ok" : "bad");
  } else setPill("st-signal", "");
  if (typeof s.fps === "number") setPill("st-fps", `${s.fps.toFixed(1)} fps`, s.fps > 0 ? "" : "warn");
  else setPill("st-fps", "");
  if (typeof s.anchors_seen === "number")
    setPill("st-anchors", `anchors ${s.anchors_seen}/${s.anchors_total ?? "?"}`, s.anchors_seen >= 2 ? "ok" : "bad");
  else setPill("st-anchors", "");
  if (typeof s.table_located === "boolean")
    setPill("st-table", s.table_located ? "table located" : "table NOT located", s.table_located ? "ok" : "bad");
  else setPill("st-table", "");
  if (s.frame_error) setPill("st-table", `frames unusable: ${s.frame_error}`, "bad");
  const unknown = s.unknown_markers || [];
  setPill("st-unknown", unknown.length ? `unknown markers: ${unknown.join(", ")}` : "", "warn");
  const tokens = s.token_problems || [];  // status tokens that set nothing, and why (server/tokens.py)
  setPill("st-tokens", tokens.join("; "), "warn");
  const skipped = (s.camera && s.camera.skipped) || [];
  setPill("st-skipped", skipped.length ? `images skipped: ${skipped.map((k) => `${k.name} (${k.error})`).join("; ")}` : "", "warn");
  const rec = s.recording;
  if (!rec) setPill("st-recording", "");
  else if (rec.ok) setPill("st-recording", `recording ${rec.file}`, "ok");
  else setPill("st-recording", `recording paused: ${rec.error}` + (rec.waiting ? ` (${rec.waiting} entries waiting)` : ""), "bad");
}

function onReply(r) {
  if (r.type === "terrain") terrain.onReply(r);
  else if (r.type === "settings") {
    $("settings-msg").textContent = r.ok ? (r.saved ? "applied and saved" : "applied") : `refused: ${r.error}`;
    if (r.ok) { settingsEdits = {}; loadRules(); }
  } else if (r.type === "unit_state" || r.type === "undo_unit_state") {
    setPill("st-engine", r.ok ? "" : `refused: ${r.error}`, r.ok ? "" : "bad");
  } else if (r.type === "turn") {
    turnStepper.onReply(r);
  } else if (r.type === "deck") {
    const msg = $("deck-msg");
    if (msg) msg.textContent = r.ok ? "" : `refused: ${r.error}`;
  } else if (!r.ok) console.warn("refused:", r.error);
}

function setPill(id, text, cls = "") {
  const node = $(id);
  node.textContent = text;
  node.className = `pill ${cls}`;
}

// -- drawing -----------------------------------------------------------------------------------

function basesById() {
  return new Map((campo.state ? campo.state.bases : []).map((b) => [b.id, b]));
}

function byId(id) {
  return id && campo.state ? campo.state.bases.find((b) => b.id === id) : undefined;
}

/** What a rulebook's page module reads: the table-level summary, the bases, the umpire tool. */
function rulebookContext() {
  const summary = (campo.state && campo.state.summary) || {};
  return { board: summary.board || {}, summaries: summary.bases || {}, byId: basesById(),
    unit: summary.unit || "", tool: campo.umpireTool, canWrite: !!(campo.hello && campo.hello.can_write),
    onTool: (action) => send({ type: "deck", action }) };
}

function render() {
  const state = campo.state;
  if (!state) return;
  board.setTable(state.table.width_mm, state.table.depth_mm);
  board.drawTerrain(terrain.dirty || terrain.isDrawing ? terrain.features : state.terrain, terrain.selected);
  board.drawBases(state.bases, campo.selected);
  const summary = state.summary || {};
  const ctx = rulebookContext();
  const base = byId(campo.selected);
  const info = campo.selected ? campo.detail : null;
  board.drawOverlay(base, campo.geometry, info, ctx.byId);
  board.layers.marks.replaceChildren();
  board.drawContacts(state.bases, summary.bases || {});
  board.drawBadges(state.bases, summary.bases || {}, rulebook.drawnBadges || []);
  renderBasePanel($("tab-base"), base, info, summary.unit || "", ctx.byId, summary.problems, summary.bases || {},
    campo.selected && !campo.detail ? "loading…" : null);
  if (base && info) {
    renderStateControls($("tab-base"), campo.stateControls, ctx.canWrite,
      (key, value) => send({ type: "unit_state", base: base.id, traits: { [key]: value } }),
      () => send({ type: "undo_unit_state" }));
    resolver.renderTargets($("tab-base"), base, info, ctx.canWrite, (id) => (ctx.byId.get(id) || {}).name || id);
    rulebook.renderBaseExtras($("tab-base"), base, info, ctx);
  }
  const zones = !!rulebook.hasZones && rulebook.hasZones(ctx);
  $("zones-toggle").hidden = !zones;
  board.layers.zones.replaceChildren();
  rulebook.drawZones(board.layers.zones, ctx, zones && $("zones-check").checked);
  rulebook.drawMarks(board.layers.marks, ctx);
  $("tabs").querySelector('[data-tab="army"]').hidden = !rulebook.hasArmyTab;
  renderArmy();
  terrain.redrawDraft();
  drawRuler();
}

function renderArmy() {
  if (!campo.state) return;
  const keep = $("deck-msg") ? $("deck-msg").textContent : "";
  $("tab-army").replaceChildren();
  rulebook.renderArmyPanel($("tab-army"), rulebookContext());
  if ($("deck-msg")) $("deck-msg").textContent = keep;
}

$("zones-check").addEventListener("change", () => render());

function drawRuler() {
  const a = (campo.state && campo.state.summary) || {};
  campo.rulerResult = board.drawRuler(campo.ruler, a.mm_per_unit || 1, a.unit || "mm");
  $("ruler-readout").textContent = campo.tool === "ruler"
    ? (campo.rulerResult ? `${campo.rulerResult.text} (${campo.rulerResult.mm.toFixed(0)} mm)` : "tap two points") : "";
}

function select(id, tapTime = null) {
  campo.selected = id;
  projector.set({ base: id }, tapTime);
  campo.geometry = null;
  campo.detail = null;
  if (id) { fetchDetail(); showTab("base"); }
  render();
}

// The tapped base's full analysis and arcs, one request at a time: states may arrive faster than
// the engine judges a base; the newest state is asked about when the answer comes.
let detailInFlight = false;
let detailStale = false;
async function fetchDetail() {
  if (detailInFlight) { detailStale = true; return; }
  const id = campo.selected;
  const ticket = ++geometryRequest;
  detailInFlight = true;
  detailStale = false;
  try {
    const res = await fetch(`/api/bases/${encodeURIComponent(id)}/detail`);
    if (ticket === geometryRequest && campo.selected === id) {
      const both = res.ok ? await res.json() : { analysis: null, geometry: null, state: null };
      campo.detail = both.analysis;
      campo.geometry = both.geometry;
      campo.stateControls = both.state || null;
      render();
    }
  } catch (e) { /* the next state retries */ }
  detailInFlight = false;
  if (detailStale && campo.selected) fetchDetail();
}

// -- input -------------------------------------------------------------------------------------

$("table").addEventListener("click", (e) => {
  const p = board.toTable(e);
  if (terrain.isDrawing) { terrain.addPoint(p); return; }
  if (campo.tool === "ruler") {
    campo.ruler = campo.ruler.length >= 2 ? [p] : [...campo.ruler, p];
    projector.set({ ruler: campo.ruler });
    drawRuler();
    return;
  }
  const tapTime = performance.timeOrigin + e.timeStamp;   // the projector page's clock too
  const hit = e.target.closest("[data-base]");
  if (hit) { select(hit.getAttribute("data-base"), tapTime); return; }
  const t = e.target.closest("[data-terrain]");
  if (t && activeTab === "terrain") { terrain.select(t.getAttribute("data-terrain")); return; }
  select(nearestBase(p, 30), tapTime);
});

function nearestBase([x, y], within) {
  let best = null, bestD = within;
  for (const b of (campo.state ? campo.state.bases : [])) {
    const d = Math.hypot(b.x_mm - x, b.y_mm - y) - Math.max(b.width_mm, b.depth_mm) / 2;
    if (d < bestD) { best = b.id; bestD = d; }
  }
  return best;
}

for (const btn of document.querySelectorAll("#tools [data-tool]")) {
  btn.addEventListener("click", () => {
    campo.tool = btn.dataset.tool;
    campo.ruler = [];
    projector.set({ ruler: [] });
    for (const b of document.querySelectorAll("#tools [data-tool]")) b.classList.toggle("active", b === btn);
    drawRuler();
  });
}

let activeTab = "base";
function showTab(name) {
  activeTab = name;
  for (const b of document.querySelectorAll("#tabs [data-tab]")) b.classList.toggle("active", b.dataset.tab === name);
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.id === `tab-${name}`);
  if (name === "rules" && !rulesInfo) loadRules();
  if (name === "camera") refreshCamera();
}
for (const b of document.querySelectorAll("#tabs [data-tab]")) b.addEventListener("click", () => showTab(b.dataset.tab));

// -- rules panel -------------------------------------------------------------------------------

async function loadRules() {
  const res = await fetch("/api/rules");
  if (!res.ok) return;
  rulesInfo = await res.json();
  terrain.setKinds(rulesInfo.terrain_kinds || []);
  renderRules();
  renderReference($("reference"), rulesInfo.reference);
}

function renderRules() {
  const canWrite = !!(campo.hello && campo.hello.can_write);
  renderSettings($("settings-list"), rulesInfo.settings, canWrite, (name, value) => {
    settingsEdits[name] = value;
    $("settings-save").disabled = false;
    $("settings-msg").textContent = "not applied yet";
  }, rulesInfo.gap_heading);
  $("settings-save").disabled = !canWrite || Object.keys(settingsEdits).length === 0;
}

$("settings-save").addEventListener("click", () => {
  const current = {};
  for (const s of rulesInfo.settings) if (s.overridden) current[s.name] = s.value;
  // scalars in `settings`, lists and maps in `structured` (server/messages.py)
  const settings = {}, structured = {};
  for (const [k, v] of Object.entries({ ...current, ...settingsEdits }))
    (v !== null && typeof v === "object" ? structured : settings)[k] = v;
  send({ type: "settings", settings, structured });
});

// -- camera panel ------------------------------------------------------------------------------

let cameraFrame = 0;
function refreshCamera() {
  if (activeTab !== "camera") return;
  const img = $("camera-img");
  const sel = campo.selected ? `&base=${encodeURIComponent(campo.selected)}` : "";
  const next = () => setTimeout(refreshCamera, 250);
  img.onload = () => { $("camera-msg").textContent = ""; next(); };
  img.onerror = () => { $("camera-msg").textContent = "no image (no signal?)"; setTimeout(refreshCamera, 1000); };
  img.src = `/api/camera.jpg?width=960&overlay=${$("camera-overlay").checked}${sel}&n=${++cameraFrame}`;
}

// -- umpire events -----------------------------------------------------------------------------

$("ev-note-btn").addEventListener("click", () => {
  const text = $("ev-note").value.trim();
  if (text) send({ type: "event", kind: "note", text });
  $("ev-note").value = "";
});

connect();
loadRules();
