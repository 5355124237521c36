// Campo's projector page: full screen on the projector over the table. It draws, in table
// millimetres mapped to its own pixels by projector.json's homography, the base the umpire
// selected on the tablet (arc, range bands, charge paths, command radius), the ruler and, on
// request, the terrain's edges; black everywhere else and over every marker, so the camera's
// markers never get the light. It also shows black or the calibration pattern when the server
// asks (calibration, server/projector.py), and says so when the projector is not calibrated.
//
// For tests and benchmarks: window.projector.draws lists {seq, base, drawn, painted} (epoch ms,
// performance.timeOrigin + performance.now(), the clock the tablet's tap uses too).

const params = new URLSearchParams(location.search);
const token = params.get("token");
const canvas = document.getElementById("light");
const ctx = canvas.getContext("2d");
const patternImg = document.getElementById("pattern");
const message = document.getElementById("message");
const now = () => performance.timeOrigin + performance.now();

const P = (window.projector = { state: null, msg: null, geometry: null, tokens: [], draws: [], connected: false, acked: 0 });

const COLOURS = { arc: "rgba(255, 220, 90, 0.22)", arcEdge: "#ffdc5a", band: ["#7fd4ff", "#5aa0ff", "#3d6cff", "#2a4bd0"],
  chargeArc: "rgba(255, 120, 60, 0.7)", legal: "#4dff88", illegal: "#ff4d4d", command: "#5affe6", ruler: "#ffffff",
  terrain: "#d08cff" };

function writeHeaders() {
  const h = { "Content-Type": "application/json" };
  if (token) h["X-Campo-Token"] = token;
  return h;
}

async function put(path, body) {
  try { await fetch(path, { method: "PUT", headers: writeHeaders(), body: JSON.stringify(body) }); }
  catch (e) { /* the server is restarting: the next message retries */ }
}

// -- connection --------------------------------------------------------------------------------

function connect(delay = 500) {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws${token ? `?token=${encodeURIComponent(token)}` : ""}`;
  const socket = new WebSocket(url);
  socket.onopen = () => { P.connected = true; delay = 500; resize(true); };
  socket.onmessage = (e) => onMessage(JSON.parse(e.data));
  socket.onclose = () => { P.connected = false; setTimeout(() => connect(Math.min(delay * 2, 5000)), delay); };
}

function onMessage(msg) {
  if (msg.topic === "state") {
    P.state = msg.payload;
    if (P.msg && P.msg.view.base) refreshGeometry();
    draw(msg.seq);
  } else if (msg.topic === "status") {
    // where the status tokens lie (server/projector_view.py token_darkness): kept dark too
    const tokens = msg.payload.projector_tokens || [];
    if (JSON.stringify(tokens) !== JSON.stringify(P.tokens)) { P.tokens = tokens; draw(-1); }
  } else if (msg.topic === "projector") {
    P.msg = msg.payload;
    P.geometry = msg.payload.geometry;
    show(msg.seq);
  }
}

// The selected base's arcs follow it as it moves: asked again on new states, one at a time.
let geometryBusy = false, geometryStale = false;
async function refreshGeometry() {
  if (geometryBusy) { geometryStale = true; return; }
  geometryBusy = true;
  geometryStale = false;
  const id = P.msg.view.base;
  try {
    const res = await fetch(`/api/geometry/${encodeURIComponent(id)}`);
    if (res.ok && P.msg && P.msg.view.base === id) { P.geometry = await res.json(); draw(-1); }
  } catch (e) { /* next state */ }
  geometryBusy = false;
  if (geometryStale && P.msg && P.msg.view.base) refreshGeometry();
}

// -- what to show ------------------------------------------------------------------------------

function resize(force = false) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.round(innerWidth * dpr), h = Math.round(innerHeight * dpr);
  if (force || canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
    put("/api/projector/screen", { width: w, height: h });
    draw(-1);
  }
}
window.addEventListener("resize", () => resize());

/** Tell the server the picture it asked for is on screen (after the browser has painted it). */
function acknowledge(step) {
  if (!step || step === P.acked) return;
  requestAnimationFrame(() => requestAnimationFrame(() => { P.acked = step; put("/api/projector/shown", { step }); }));
}

function show(seq) {
  const m = P.msg;
  if (m.mode === "pattern") {
    message.hidden = true;
    const src = m.pattern_url;
    if (patternImg.getAttribute("src") !== src) patternImg.setAttribute("src", src);
    patternImg.decode().then(() => {
      if (P.msg !== m) return;   // the server asked for something else meanwhile
      patternImg.hidden = false;
      canvas.hidden = true;
      acknowledge(m.step);
    }).catch(() => { /* not loaded: the calibration times out and says so */ });
    return;
  }
  patternImg.hidden = true;
  canvas.hidden = false;
  draw(seq);
  acknowledge(m.step);
}

function notCalibrated() {
  const job = P.msg && P.msg.job;
  const failed = job && job.state === "failed" ? `<small>last try: ${escapeHtml(job.reason || "")}</small>` : "";
  message.innerHTML = "Campo projector: not calibrated<small>Aim the projector at the table, then press " +
    "“Calibrate projector” on the tablet (Camera tab).</small>" + failed;
  message.hidden = false;
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}

// -- drawing -----------------------------------------------------------------------------------

function mapper(cal) {
  const H = cal.homography;
  const sx = canvas.width / cal.projector_size[0], sy = canvas.height / cal.projector_size[1];
  return ([x, y]) => {
    const w = H[2][0] * x + H[2][1] * y + H[2][2];
    return [(sx * (H[0][0] * x + H[0][1] * y + H[0][2])) / w, (sy * (H[1][0] * x + H[1][1] * y + H[1][2])) / w];
  };
}

function path(map, points, closed) {
  ctx.beginPath();
  points.forEach((p, i) => { const [u, v] = map(p); if (i === 0) ctx.moveTo(u, v); else ctx.lineTo(u, v); });
  if (closed) ctx.closePath();
}

function circle([cx, cy], r, n = 120) {
  return Array.from({ length: n }, (_, i) => [cx + r * Math.cos((2 * Math.PI * i) / n), cy + r * Math.sin((2 * Math.PI * i) / n)]);
}

/** The square (table mm) kept dark round a marker: centre, "up" in degrees, side. */
function square([cx, cy], upDeg, side) {
  const a = (upDeg * Math.PI) / 180, u = [Math.cos(a), Math.sin(a)], r = [Math.sin(a), -Math.cos(a)], h = side / 2;
  return [[-1, 1], [1, 1], [1, -1], [-1, -1]].map(([sr, su]) => [cx + h * (sr * r[0] + su * u[0]), cy + h * (sr * r[1] + su * u[1])]);
}

function darkSquares() {
  const m = P.msg, grow = (size) => size * (1 + 2 * m.quiet_factor) + 2 * m.margin_mm;
  const out = (m.anchors || []).map((a) => square([a.x_mm, a.y_mm], a.up_deg, grow(a.size_mm)));
  for (const b of (P.state ? P.state.bases : [])) {
    const spec = (m.markers || {})[b.id];
    if (!spec) continue;
    const h = (b.heading_deg * Math.PI) / 180, f = [Math.cos(h), Math.sin(h)], r = [Math.sin(h), -Math.cos(h)];
    const [or, of] = spec.offset_mm;
    const c = [b.x_mm + or * r[0] + of * f[0], b.y_mm + or * r[1] + of * f[1]];
    out.push(square(c, b.heading_deg + spec.rotation_deg, grow(spec.size_mm)));
  }
  // a token's card may lie at any angle: the square that holds it turned any way
  for (const [x, y, size] of P.tokens) out.push(square([x, y], 0, grow(size) * Math.SQRT2));
  return out;
}

function draw(seq) {
  const m = P.msg;
  if (!m || m.mode === "pattern") return;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = "#000";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  if (m.mode === "dark") { message.hidden = true; return; }
  if (!m.calibration) { notCalibrated(); record(seq); return; }
  message.hidden = true;
  const map = mapper(m.calibration);
  const px = canvas.width / 1920;   // line widths scale with the picture
  ctx.lineJoin = "round";
  const view = m.view, g = P.geometry, state = P.state;
  const base = view.base && state ? state.bases.find((b) => b.id === view.base) : null;
  // arcs and charge zones reach past the table's edge: no light off the table (players, floor)
  ctx.save();
  if (state && state.table) {
    const { width_mm: w, depth_mm: d } = state.table;
    path(map, [[0, 0], [w, 0], [w, d], [0, d]], true);
    ctx.clip();
  }
  if (view.terrain && state) {
    ctx.strokeStyle = COLOURS.terrain;
    ctx.lineWidth = 3 * px;
    for (const t of state.terrain || []) {
      if (t.polygon_mm) { path(map, t.polygon_mm, true); ctx.stroke(); }
      if (t.line_mm) { path(map, t.line_mm, false); ctx.stroke(); }
    }
  }
  if (base && g && g.id === base.id) {
    if (g.arc && g.arc.length > 2) {
      path(map, g.arc, true);
      ctx.fillStyle = COLOURS.arc;
      ctx.fill();
      ctx.strokeStyle = COLOURS.arcEdge;
      ctx.lineWidth = 3 * px;
      ctx.stroke();
    }
    (g.bands || []).forEach((band, i) => {
      if (!band.polygon || band.polygon.length < 3) return;
      path(map, band.polygon, true);
      ctx.strokeStyle = COLOURS.band[Math.min(i, COLOURS.band.length - 1)];
      ctx.lineWidth = 2 * px;
      ctx.stroke();
    });
    if (g.charge_arc && g.charge_arc.length > 2) {
      path(map, g.charge_arc, true);
      ctx.setLineDash([12 * px, 10 * px]);
      ctx.strokeStyle = COLOURS.chargeArc;
      ctx.lineWidth = 2 * px;
      ctx.stroke();
      ctx.setLineDash([]);
    }
    for (const ch of g.charges || []) {
      ctx.strokeStyle = ch.legal ? COLOURS.legal : COLOURS.illegal;
      ctx.lineWidth = 4 * px;
      if (ch.path && ch.path.length > 1) { path(map, ch.path, false); ctx.stroke(); }
      if (ch.contact_outline && ch.contact_outline.length > 2) { path(map, ch.contact_outline, true); ctx.stroke(); }
    }
  }
  if (base && m.command_radius_mm) {
    path(map, circle([base.x_mm, base.y_mm], m.command_radius_mm), true);
    ctx.strokeStyle = COLOURS.command;
    ctx.lineWidth = 3 * px;
    ctx.stroke();
  }
  drawRuler(map, view.ruler || [], px);
  ctx.restore();
  // last: no light on any marker, inside an arc or not
  ctx.fillStyle = "#000";
  for (const sq of darkSquares()) { path(map, sq, true); ctx.fill(); }
  record(seq);
}

function drawRuler(map, points, px) {
  if (!points.length) return;
  ctx.strokeStyle = ctx.fillStyle = COLOURS.ruler;
  ctx.lineWidth = 3 * px;
  for (const p of points) { path(map, circle(p, 8, 24), true); ctx.stroke(); }
  if (points.length < 2) return;
  path(map, points, false);
  ctx.stroke();
  const summary = (P.state && P.state.summary) || {};
  const mm = Math.hypot(points[1][0] - points[0][0], points[1][1] - points[0][1]);
  const unit = summary.unit || "mm", per = summary.mm_per_unit || 1;
  const [u, v] = map([(points[0][0] + points[1][0]) / 2, (points[0][1] + points[1][1]) / 2]);
  ctx.font = `${Math.round(28 * px)}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.fillText(`${(mm / per).toFixed(1)} ${unit}`, u, v - 14 * px);
}

function record(seq) {
  if (seq < 0 || !P.msg) return;
  const entry = { seq, base: P.msg.view.base, drawn: now(), painted: null };
  P.draws.push(entry);
  if (P.draws.length > 500) P.draws.shift();
  requestAnimationFrame(() => { entry.painted = now(); });
}

resize(true);
connect();
