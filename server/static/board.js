// The table drawn to scale in SVG, in table millimetres: terrain, bases, a base's overlay,
// the ruler and the terrain being drawn. y points up (toward player B), as in the table frame.

const SVG = "http://www.w3.org/2000/svg";

export function el(tag, attrs = {}, parent = null, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  }
  if (text !== null) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

export function baseCorners(b) {
  // front-left, front-right, rear-right, rear-left (as server/camera_view.py)
  const a = (b.heading_deg * Math.PI) / 180;
  const f = [Math.cos(a), Math.sin(a)];
  const r = [Math.sin(a), -Math.cos(a)];
  const hw = b.width_mm / 2, hd = b.depth_mm / 2;
  const p = (sf, sr) => [b.x_mm + sf * hd * f[0] + sr * hw * r[0], b.y_mm + sf * hd * f[1] + sr * hw * r[1]];
  return [p(1, -1), p(1, 1), p(-1, 1), p(-1, -1)];
}

export const pts = (list) => list.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ");

export function label(parent, x, y, text, cls) {
  // text is drawn upright although the group is flipped
  return el("text", { transform: `translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(1 -1)`, class: cls,
    "text-anchor": "middle", "dominant-baseline": "middle" }, parent, text);
}

/** The name, shortened with an ellipsis to about 1.8 base widths (narrow guns sit side by side). */
export function fitLabel(name, widthMm, font) {
  const max = Math.max(4, Math.floor((widthMm * 1.8) / (0.55 * font)));
  return name.length <= max ? name : `${name.slice(0, max - 1)}…`;
}

/** A pill by a base, upright whatever its heading: in front of it (``where`` "front", the
 * rulebooks' calls to action) or behind its name ("rear", the state the umpire set). */
export function badge(layer, b, text, cls, testid, where = "front", mmPerPx = screenScale(layer)) {
  // sized in screen pixels, so it reads at arm's length however large the table
  const font = 12 * mmPerPx, height = 19 * mmPerPx;
  const a = (b.heading_deg * Math.PI) / 180;
  const off = where === "front" ? b.depth_mm / 2 + height * 0.7 : -(b.depth_mm / 2 + 24 + height * 0.7);
  const x = b.x_mm + off * Math.cos(a), y = b.y_mm + off * Math.sin(a);
  const g = el("g", { class: cls, "data-testid": testid, "data-base": b.id }, layer);
  const w = text.length * font * 0.6 + font;
  el("rect", { x: x - w / 2, y: y - height / 2, width: w, height, rx: height / 2 }, g);
  label(g, x, y, text, "badge-text").style.fontSize = `${font.toFixed(2)}px`;
  return g;
}

/** Table mm per screen pixel where ``node`` is drawn (1 when it is not on screen). Reading it
 * makes the browser lay the page out: ask once per drawing, not once per base. */
export function screenScale(node) {
  const ctm = node.getScreenCTM ? node.getScreenCTM() : null;
  return ctm && (ctm.a || ctm.b) ? 1 / Math.hypot(ctm.a, ctm.b) : 1;
}

export class Board {
  constructor(svg) {
    this.svg = svg;
    this.flip = svg.querySelector("#flip");
    this.cloth = svg.querySelector("#cloth");
    this.layers = {
      terrain: svg.querySelector("#layer-terrain"),
      zones: svg.querySelector("#layer-zones"),
      overlay: svg.querySelector("#layer-overlay"),
      marks: svg.querySelector("#layer-marks"),
      bases: svg.querySelector("#layer-bases"),
      ruler: svg.querySelector("#layer-ruler"),
      draft: svg.querySelector("#layer-draft"),
    };
    const defs = el("defs", {}, svg);
    const m = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5,
      markerHeight: 5, orient: "auto-start-reverse" }, defs);
    el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "context-stroke" }, m);
    // arcs and charge zones reach past the table's edge: clip them to the table
    const clip = el("clipPath", { id: "table-clip", clipPathUnits: "userSpaceOnUse" }, defs);
    this.clipRect = el("rect", { x: 0, y: 0, width: 1800, height: 1200 }, clip);
    this.layers.overlay.setAttribute("clip-path", "url(#table-clip)");
    this.size = [0, 0];
  }

  setTable(width, depth) {
    if (this.size[0] === width && this.size[1] === depth) return;
    this.size = [width, depth];
    const pad = 30;
    this.svg.setAttribute("viewBox", `${-pad} ${-pad} ${width + 2 * pad} ${depth + 2 * pad}`);
    this.flip.setAttribute("transform", `matrix(1 0 0 -1 0 ${depth})`);
    this.cloth.setAttribute("width", width);
    this.cloth.setAttribute("height", depth);
    this.clipRect.setAttribute("width", width);
    this.clipRect.setAttribute("height", depth);
  }

  /** Table mm under a pointer event. */
  toTable(event) {
    const pt = this.svg.createSVGPoint();
    pt.x = event.clientX;
    pt.y = event.clientY;
    const p = pt.matrixTransform(this.flip.getScreenCTM().inverse());
    return [p.x, p.y];
  }

  drawTerrain(terrain, selectedId = null) {
    const g = this.layers.terrain;
    g.replaceChildren();
    for (const t of terrain) {
      const sel = t.id === selectedId ? " selected" : "";
      if (t.polygon_mm) {
        el("polygon", { points: pts(t.polygon_mm), class: `terrain area ${t.kind}${sel}`, "data-terrain": t.id }, g);
        if (t.crest_mm) el("polyline", { points: pts(t.crest_mm), class: "terrain crest" }, g);
        const c = t.polygon_mm.reduce((a, p) => [a[0] + p[0], a[1] + p[1]], [0, 0]).map((v) => v / t.polygon_mm.length);
        label(g, c[0], c[1], t.name || t.kind, "terrain-label");
      } else if (t.line_mm) {
        el("polyline", { points: pts(t.line_mm), class: `terrain line ${t.kind}${sel}`, "data-terrain": t.id }, g);
      }
    }
  }

  drawBases(bases, selectedId) {
    const g = this.layers.bases;
    g.replaceChildren();
    for (const b of bases) {
      const cls = `base ${b.side}${b.stale ? " stale" : ""}${b.id === selectedId ? " selected" : ""}`;
      const bg = el("g", { class: cls, "data-base": b.id, "data-testid": `base-${b.id}` }, g);
      const c = baseCorners(b);
      el("polygon", { points: pts(c), class: "base-rect" }, bg);
      el("line", { x1: c[0][0], y1: c[0][1], x2: c[1][0], y2: c[1][1], class: "front" }, bg);
      // the name sits behind the base, so the base's own colour stays visible
      const a = (b.heading_deg * Math.PI) / 180;
      const font = Math.min(20, Math.max(11, b.width_mm * 0.28));
      const off = b.depth_mm / 2 + font * 0.8;
      const t = label(bg, b.x_mm - off * Math.cos(a), b.y_mm - off * Math.sin(a), fitLabel(b.name || b.id, b.width_mm, font),
        "base-label");
      t.setAttribute("font-size", font.toFixed(1));
      el("title", {}, bg, b.name || b.id);
    }
  }

  /** A short bar on each base's edge that an enemy touches (from the bases' summaries), so
   * contacts show without a tap; red on a flank or the rear. */
  drawContacts(bases, summaries) {
    const g = this.layers.marks;
    const byId = new Map(bases.map((b) => [b.id, b]));
    for (const b of bases) {
      const contacts = (summaries[b.id] || {}).contacts || {};
      for (const [other, aspect] of Object.entries(contacts)) {
        const o = byId.get(other);
        if (!o) continue;
        const [fl, fr, rr, rl] = baseCorners(b);
        let edge = [fl, fr];
        if (aspect === "rear") edge = [rl, rr];
        else if (aspect === "flank") {
          // the flank nearer the enemy's centre
          const a = (b.heading_deg * Math.PI) / 180;
          const right = (o.x_mm - b.x_mm) * Math.sin(a) - (o.y_mm - b.y_mm) * Math.cos(a) > 0;
          edge = right ? [fr, rr] : [fl, rl];
        }
        el("line", { x1: edge[0][0], y1: edge[0][1], x2: edge[1][0], y2: edge[1][1],
          class: `contact-mark ${aspect}`, "data-contact": `${b.id}:${other}` }, g);
      }
    }
  }

  /** Each base's state words from its summary (disordered, shaken, out of command ...), behind
   * it, so what happened to a unit shows without a tap; ``drawnElsewhere``: words the
   * rulebook's page module already draws its own way. */
  drawBadges(bases, summaries, drawnElsewhere = []) {
    const scale = screenScale(this.layers.marks);
    for (const b of bases) {
      const words = ((summaries[b.id] || {}).badges || []).filter((w) => !drawnElsewhere.includes(w));
      if (words.length) {
        badge(this.layers.marks, b, words.join(" · "), "badge state", `badge-state-${b.id}`, "rear", scale);
      }
    }
  }

  /** A base's arc, bands, charge paths and lines of sight to its targets. */
  drawOverlay(base, geometry, analysis, basesById) {
    const g = this.layers.overlay;
    g.replaceChildren();
    if (!base) return;
    if (geometry) {
      if (geometry.charge_arc && geometry.charge_arc.length > 2)
        el("polygon", { points: pts(geometry.charge_arc), class: "charge-arc", "data-testid": "charge-arc" }, g);
      if (geometry.arc && geometry.arc.length > 2)
        el("polygon", { points: pts(geometry.arc), class: "arc", "data-testid": "arc" }, g);
      for (const band of geometry.bands || []) {
        if (band.polygon && band.polygon.length > 2)
          el("polygon", { points: pts(band.polygon), class: "band", "data-band": band.band }, g);
      }
      for (const ch of geometry.charges || []) {
        if (ch.path && ch.path.length > 1)
          el("polyline", { points: pts(ch.path), class: `charge-path ${ch.legal ? "legal" : "illegal"}`,
            "data-target": ch.target }, g);
        // where the charger stands at contact (closed flush, ISD A30) and where an enemy's 2" zone
        // stops it (ISD A29)
        if (ch.contact_outline && ch.contact_outline.length > 2)
          el("polygon", { points: pts(ch.contact_outline), class: `charge-contact ${ch.legal ? "legal" : "illegal"}`,
            "data-target": ch.target }, g);
        if (ch.intercepted_at)
          el("circle", { cx: ch.intercepted_at[0], cy: ch.intercepted_at[1], r: 9, class: "charge-stop",
            "data-target": ch.target }, g);
      }
    }
    // Sight lines only to targets within range: every enemy in the arc is listed in the panel,
    // but lines to the far ones would bury the table.
    for (const t of (analysis && analysis.targets) || []) {
      const other = basesById.get(t.id);
      if (!other || !t.in_range) continue;
      el("line", { x1: base.x_mm, y1: base.y_mm, x2: other.x_mm, y2: other.y_mm,
        class: `los ${t.line_of_sight ? "clear" : "blocked"}`, "data-target": t.id }, g);
    }
  }

  drawRuler(points, mmPerUnit, unit) {
    const g = this.layers.ruler;
    g.replaceChildren();
    if (points.length === 0) return null;
    for (const [x, y] of points) el("circle", { cx: x, cy: y, r: 8, class: "ruler-point" }, g);
    if (points.length < 2) return null;
    const [[x1, y1], [x2, y2]] = points;
    el("line", { x1, y1, x2, y2, class: "ruler-line" }, g);
    const mm = Math.hypot(x2 - x1, y2 - y1);
    const text = `${(mm / mmPerUnit).toFixed(2)} ${unit}`;
    label(g, (x1 + x2) / 2, (y1 + y2) / 2 + 22, text, "base-label");
    return { mm, units: mm / mmPerUnit, text };
  }

  drawDraft(points, closed) {
    const g = this.layers.draft;
    g.replaceChildren();
    if (!points.length) return;
    el(closed ? "polygon" : "polyline", { points: pts(points), class: "draft", fill: closed ? null : "none" }, g);
    for (const [x, y] of points) el("circle", { cx: x, cy: y, r: 7, class: "ruler-point" }, g);
  }
}
