// Review mode (`campo replay`): a timeline under the board. The page itself (app.js) renders
// whatever state the server pushes on /ws; this script only moves the server's replay cursor
// (POST /api/replay/cursor) and draws, for the moment shown, each move's recorded path with its
// measured length. Loaded only by the replay server (it adds this file to the page).
const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function s(tag, attrs, parent, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  parent.appendChild(node);
  return node;
}

/** A length for a label: one decimal, no trailing ".0" (4, 10.4, 5.4). */
export function fmt(v) {
  return String(Math.round(v * 10) / 10);
}

export function clock(t) {
  const total = Math.max(0, Math.floor(t));
  const hrs = Math.floor(total / 3600), min = Math.floor((total % 3600) / 60), sec = total % 60;
  const mm = hrs ? String(min).padStart(2, "0") : String(min);
  return `${hrs ? `${hrs}:` : ""}${mm}:${String(sec).padStart(2, "0")}`;
}

const FILTERS = {
  all: () => true,
  moves: (e) => e.kind === "move",
  combat: (e) => ["contact", "contact_broken", "charge", "losses"].includes(e.kind),
  umpire: (e) => ["turn", "phase", "note"].includes(e.kind),
};

const replay = (window.campoReplay = {
  timeline: null, t: 0, playing: false, speed: 1, filter: "all", shownSeq: null,
  pending: null, inFlight: false, dragging: false, lastState: null,
});

// -- the cursor ---------------------------------------------------------------------------------

async function post(body) {
  const r = await fetch("/api/replay/cursor", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`cursor: HTTP ${r.status}`);
  return r.json();
}

/** Move the cursor; while a request is in flight only the newest wish is kept. */
function seek(body) {
  replay.pending = body;
  if (replay.inFlight) return;
  replay.inFlight = true;
  const next = replay.pending;
  replay.pending = null;
  post(next).then(showMoment).catch((e) => console.warn(e.message)).finally(() => {
    replay.inFlight = false;
    if (replay.pending) seek(replay.pending);
  });
}

function seekTime(t) {
  replay.t = Math.min(Math.max(0, t), replay.timeline ? replay.timeline.duration : 0);
  updateClock();
  seek({ t: replay.t });
}

function seekEvent(ev) {
  replay.t = ev.t;
  replay.shownSeq = ev.seq;
  updateClock();
  seek({ seq: ev.seq });
}

// -- what the moment shows ----------------------------------------------------------------------

function showMoment(state) {
  replay.lastState = state;
  const r = (state.live || {}).replay || {};
  if (!replay.playing && !replay.dragging && typeof r.t === "number") {
    replay.t = r.t;
    updateClock();
  }
  drawMoves(r.moves || [], (state.analysis || {}).unit || "");
  markCurrentEvent();
}

function movesLayer() {
  let g = document.getElementById("layer-replay");
  if (!g) {
    const flip = document.getElementById("flip");
    g = document.createElementNS(SVG, "g");
    g.id = "layer-replay";
    flip.insertBefore(g, document.getElementById("layer-bases"));
  }
  return g;
}

function drawMoves(moves, unit) {
  const g = movesLayer();
  g.replaceChildren();
  for (const m of moves) {
    const path = m.path_mm || [];
    if (path.length < 2) continue;
    const cls = `replay-move ${m.side || ""}${m.exceeded ? " exceeded" : ""}`;
    const mg = s("g", { class: cls, "data-testid": `move-path-${m.base}`, "data-seq": m.seq }, g);
    s("polyline", { points: path.map((p) => p.join(",")).join(" "), "marker-end": "url(#arrow)" }, mg);
    const mid = path[Math.floor(path.length / 2)];
    const u = m.unit || unit;
    const allowance = m.allowance == null ? "" : ` / ${fmt(m.allowance)}${u}`;
    const text = `${fmt(m.distance)}${u}${allowance}${m.exceeded ? " !" : ""}`;
    s("text", { transform: `translate(${mid[0] + 12} ${mid[1]}) scale(1 -1)`, class: "replay-move-label" },
      mg, text);
  }
}

// -- the bar ------------------------------------------------------------------------------------

function updateClock() {
  const d = replay.timeline ? replay.timeline.duration : 0;
  $("replay-time").textContent = `${clock(replay.t)} / ${clock(d)}`;
  if (!replay.dragging) $("replay-scrubber").value = String(replay.t);
  const turns = replay.timeline ? replay.timeline.turns : [];
  const current = turns.filter((x) => x.t <= replay.t).pop();
  if (current) $("replay-turn").value = String(current.seq);
}

function visibleEvents() {
  return replay.timeline.events.filter(FILTERS[replay.filter]);
}

function stepEvent(dir) {
  const evs = visibleEvents();
  const eps = 1e-6;
  const target = dir > 0 ? evs.find((e) => e.t > replay.t + eps || (e.t >= replay.t - eps && replay.shownSeq !== null && e.seq > replay.shownSeq))
    : [...evs].reverse().find((e) => e.t < replay.t - eps || (e.t <= replay.t + eps && replay.shownSeq !== null && e.seq < replay.shownSeq));
  if (target) { pause(); seekEvent(target); }
}

function markCurrentEvent() {
  for (const li of document.querySelectorAll("#replay-events li")) {
    li.classList.toggle("current", Number(li.dataset.seq) === replay.shownSeq);
    li.classList.toggle("past", Number(li.dataset.t) <= replay.t);
  }
}

function renderEvents() {
  const list = $("replay-events");
  list.replaceChildren();
  for (const e of visibleEvents()) {
    const li = h("li", { "data-seq": e.seq, "data-t": e.t, "data-kind": e.kind,
      "data-testid": `replay-event-${e.seq}`, on: { click: () => { pause(); seekEvent(e); } } },
    h("span", { class: "t" }, clock(e.t)), " ", h("b", {}, e.kind), " ", e.summary);
    list.append(li);
  }
  markCurrentEvent();
}

let lastFrame = null;
function frame(now) {
  if (!replay.playing) return;
  if (lastFrame !== null) {
    replay.t += ((now - lastFrame) / 1000) * replay.speed;
    replay.shownSeq = null;
    if (replay.t >= replay.timeline.duration) {
      replay.t = replay.timeline.duration;
      pause();
    }
    updateClock();
    seek({ t: replay.t });
  }
  lastFrame = now;
  if (replay.playing) requestAnimationFrame(frame);
}

function play() {
  if (replay.t >= replay.timeline.duration) replay.t = 0;
  replay.playing = true;
  lastFrame = null;
  $("replay-play").textContent = "Pause";
  requestAnimationFrame(frame);
}

function pause() {
  replay.playing = false;
  $("replay-play").textContent = "Play";
}

function buildBar(tl) {
  const speed = h("select", { id: "replay-speed", "data-testid": "replay-speed", title: "speed",
    on: { change: (e) => { replay.speed = Number(e.target.value); } } });
  for (const v of [0.5, 1, 2, 5, 10, 30, 60]) {
    const o = h("option", { value: v }, `${v}×`);
    if (v === 1) o.selected = true;
    speed.append(o);
  }
  const turn = h("select", { id: "replay-turn", "data-testid": "replay-turn", title: "jump to a turn",
    on: { change: (e) => { const tr = tl.turns.find((x) => String(x.seq) === e.target.value); if (tr) { pause(); seekEvent(tr); } } } },
  h("option", { value: "" }, "turn…"));
  for (const tr of tl.turns) turn.append(h("option", { value: tr.seq }, `turn ${tr.turn}`));
  const filter = h("select", { id: "replay-filter", "data-testid": "replay-filter",
    on: { change: (e) => { replay.filter = e.target.value; renderEvents(); } } });
  for (const [v, label] of [["all", "all events"], ["moves", "moves"], ["combat", "contacts, charges, losses"], ["umpire", "turns and notes"]])
    filter.append(h("option", { value: v }, label));
  const scrub = h("input", { id: "replay-scrubber", "data-testid": "replay-scrubber", type: "range",
    min: 0, max: tl.duration, step: 0.1, value: 0, "aria-label": "time in the game",
    on: {
      input: (e) => { replay.dragging = true; pause(); replay.shownSeq = null; seekTime(Number(e.target.value)); },
      change: (e) => { replay.dragging = false; seekTime(Number(e.target.value)); },
    } });
  const bar = h("div", { id: "replay-bar", "data-testid": "replay-bar" },
    h("button", { id: "replay-prev", "data-testid": "replay-prev", title: "previous event", on: { click: () => stepEvent(-1) } }, "◀"),
    h("button", { id: "replay-play", "data-testid": "replay-play", on: { click: () => (replay.playing ? pause() : play()) } }, "Play"),
    h("button", { id: "replay-next", "data-testid": "replay-next", title: "next event", on: { click: () => stepEvent(1) } }, "▶"),
    speed, scrub, h("span", { id: "replay-time", "data-testid": "replay-time" }, ""), turn, filter);
  $("board").append(bar);
  const panel = $("tab-events");
  panel.prepend(h("p", { class: "hint" }, `Replay of ${tl.file}: tap an event to see that moment.`),
    h("ol", { id: "replay-events", "data-testid": "replay-events" }));
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type !== "range") return;
    if (e.key === " ") { e.preventDefault(); replay.playing ? pause() : play(); }
    else if (e.key === "ArrowRight" && e.shiftKey) stepEvent(1);
    else if (e.key === "ArrowLeft" && e.shiftKey) stepEvent(-1);
  });
}

/** Redraw the moves when a state arrives that this page did not ask for (another tablet). */
function watch() {
  const state = window.campo && window.campo.state;
  if (state && state !== replay.lastState && !replay.inFlight) {
    const r = (state.live || {}).replay;
    if (r && (!replay.lastState || ((replay.lastState.live || {}).replay || {}).t !== r.t)) showMoment(state);
  }
  requestAnimationFrame(watch);
}

async function start() {
  const r = await fetch("/api/replay/timeline");
  replay.timeline = await r.json();
  buildBar(replay.timeline);
  renderEvents();
  updateClock();
  document.body.classList.add("replay-ready");
  requestAnimationFrame(watch);
}

start();
