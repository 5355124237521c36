// A phone's camera streamed to campo serve: getUserMedia -> canvas -> JPEG -> WebSocket /ws/camera.
// Each frame is a binary message: a 20-byte header (frame number u32, capture time ms f64, encode
// ms f64, little-endian) then the JPEG. At most two frames are in flight: the server acknowledges
// each one, so a slow Wi-Fi lowers the rate instead of queueing old pictures.
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const token = params.get("token") || sessionStorage.getItem("campo-token");
const IN_FLIGHT = 2;

const stats = (window.campoCamera = { sent: 0, acked: 0, rttMs: [], fps: 0, errors: [], width: 0, height: 0, running: false });
let socket = null, stream = null, wakeLock = null;
let inFlight = 0, number = 0;
const sentAt = new Map();
const times = [];

function say(text) { $("camera-state").textContent = text; }

async function start() {
  if (stats.running) return stop();
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    say("This browser opens the camera only on a secure page: start campo serve with --https and open its https:// address.");
    return;
  }
  const [w, h] = $("resolution").value.split("x").map(Number);
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: w }, height: { ideal: h } }, audio: false });
  } catch (e) { say(`The camera did not open: ${e.message}`); return; }
  const video = $("preview");
  video.srcObject = stream;
  await video.play();
  try { if (navigator.wakeLock) wakeLock = await navigator.wakeLock.request("screen"); } catch (e) { /* not offered */ }
  connect();
  stats.running = true;
  $("start").textContent = "Stop";
  pump();
}

function stop() {
  stats.running = false;
  if (stream) for (const t of stream.getTracks()) t.stop();
  if (socket) socket.close();
  if (wakeLock) wakeLock.release();
  $("start").textContent = "Start";
  say("Stopped.");
}

function connect() {
  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/camera${token ? `?token=${encodeURIComponent(token)}` : ""}`;
  socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  socket.onopen = () => { inFlight = 0; sentAt.clear(); say("Streaming to Campo."); };
  socket.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.error) { stats.errors.push(m.error); say(m.error); inFlight = Math.max(0, inFlight - 1); return; }
    if (m.ack === undefined) return;
    inFlight = Math.max(0, inFlight - 1);
    stats.acked += 1;
    const t = sentAt.get(m.ack);
    sentAt.delete(m.ack);
    if (t !== undefined) { stats.rttMs.push(performance.now() - t); if (stats.rttMs.length > 300) stats.rttMs.shift(); }
  };
  socket.onclose = () => { if (stats.running) { say("Connection lost: reconnecting…"); setTimeout(connect, 1000); } };
}

const canvas = document.createElement("canvas");
async function pump() {
  const video = $("preview");
  while (stats.running) {
    if (!socket || socket.readyState !== WebSocket.OPEN || inFlight >= IN_FLIGHT || !video.videoWidth) {
      await new Promise((r) => setTimeout(r, 5));
      continue;
    }
    const captured = Date.now(), t0 = performance.now();
    canvas.width = video.videoWidth; canvas.height = video.videoHeight;
    canvas.getContext("2d").drawImage(video, 0, 0);
    const blob = await new Promise((r) => canvas.toBlob(r, "image/jpeg", Number($("quality").value)));
    const encodeMs = performance.now() - t0;
    const jpeg = await blob.arrayBuffer();
    const msg = new Uint8Array(20 + jpeg.byteLength);
    const view = new DataView(msg.buffer);
    number += 1;
    view.setUint32(0, number, true); view.setFloat64(4, captured, true); view.setFloat64(12, encodeMs, true);
    msg.set(new Uint8Array(jpeg), 20);
    if (!socket || socket.readyState !== WebSocket.OPEN) continue;
    sentAt.set(number, t0);
    socket.send(msg);
    inFlight += 1;
    stats.sent += 1;
    stats.width = video.videoWidth; stats.height = video.videoHeight;
    times.push(performance.now());
    while (times.length && times[0] < performance.now() - 2000) times.shift();
    stats.fps = times.length > 1 ? (times.length - 1) / ((times[times.length - 1] - times[0]) / 1000) : 0;
    show();
  }
}

function show() {
  $("camera-sent").textContent = `${stats.sent} frames`;
  $("camera-fps").textContent = `${stats.fps.toFixed(1)} frames a second`;
  const r = [...stats.rttMs].sort((a, b) => a - b);
  $("camera-rtt").textContent = r.length ? `${r[Math.floor(r.length / 2)].toFixed(0)} ms` : "–";
  $("camera-size").textContent = `${stats.width}×${stats.height}`;
}

$("start").addEventListener("click", start);
if (params.get("autostart")) start();
