// The tablet's side of the projector: what the umpire selects (base, ruler, terrain edges) goes
// to the server (PUT /api/projector/view), which sends it on to the projector page; and the
// "Calibrate projector" button with its progress and result (server/projector.py).

export class ProjectorLink {
  constructor({ token, panel }) {
    this.token = token;
    this.panel = panel;   // the Camera tab's projector section (index.html), or null
    this.view = { base: null, ruler: [], terrain: false };
    this.info = null;     // the latest `projector` message
    this.lastTap = null;  // {base, t}: when the umpire tapped, epoch ms (tests compare clocks)
    this.canWrite = false; // a read-only page (no token) does not steer the projector
    if (panel) {
      panel.querySelector("[data-projector-calibrate]").addEventListener("click", () => this.calibrate());
      panel.querySelector("[data-projector-terrain]").addEventListener("change", (e) => this.set({ terrain: e.target.checked }));
    }
  }

  headers() {
    const h = { "Content-Type": "application/json" };
    if (this.token) h["X-Campo-Token"] = this.token;
    return h;
  }

  /** Change part of the view and send it (only when it changed, and only to a server with a
   * projector: the live one says so with its first `projector` message; a replay never does). */
  set(part, tapTime = null, force = false) {
    const next = { ...this.view, ...part };
    if (!force && JSON.stringify(next) === JSON.stringify(this.view)) return;
    this.view = next;
    if (!this.info || !this.canWrite) return;
    if (tapTime !== null) this.lastTap = { base: next.base, t: tapTime };
    fetch("/api/projector/view", { method: "PUT", headers: this.headers(), body: JSON.stringify(next) })
      .catch(() => { /* no server: the next change resends everything */ });
  }

  setWritable(canWrite) {
    this.canWrite = canWrite;
    if (this.info) this.onProjector(this.info);
  }

  onProjector(p) {
    const first = !this.info;
    this.info = p;
    if (first && (this.view.base || this.view.ruler.length)) this.set({}, null, true);
    if (!this.panel) return;
    this.panel.hidden = false;
    const cal = p.calibration, job = p.job || {};
    const status = this.panel.querySelector("[data-projector-status]");
    let text = cal ? `calibrated: residual median ${cal.median_mm.toFixed(2)} mm, worst ${cal.worst_mm.toFixed(2)} mm, ` +
      `${Math.round(cal.coverage * 100)} % of the table` : "not calibrated";
    if (job.state === "running") text = `calibrating: ${job.progress}…`;
    else if (job.state === "done") text += ` — last run ${job.accepted ? "kept" : "not kept"}: ${job.reason}`;
    else if (job.state === "failed") text += ` — last run failed: ${job.reason}`;
    status.textContent = text;
    this.panel.querySelector("[data-projector-calibrate]").disabled = !this.canWrite || job.state === "running";
  }

  async calibrate() {
    const button = this.panel.querySelector("[data-projector-calibrate]");
    button.disabled = true;
    try {
      const res = await fetch("/api/projector/calibrate", { method: "POST", headers: this.headers(), body: "{}" });
      if (!res.ok && res.status !== 422) {
        const body = await res.json().catch(() => ({}));
        this.panel.querySelector("[data-projector-status]").textContent = `refused: ${body.error || res.status}`;
      }
    } finally { button.disabled = false; }
  }
}
