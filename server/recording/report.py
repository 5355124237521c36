"""`campo report`: one self-contained HTML page per game, to share with the club.

It shows the deployment (the table when the first turn began, or just before the first move),
every unit's track over the game, the losses per turn and the full event list. No scripts,
no external files: inline CSS and SVG only, so the page can be mailed or put on any web site.
"""

from __future__ import annotations

import math
from collections import defaultdict
from html import escape
from pathlib import Path
from typing import Any

from campo.server.recording.export import summary
from campo.server.recording.reader import Entry, Recording
from campo.server.recording.svg import SIDE_COLOURS, TableSvg
from campo.server.recording.unit_history import UnitHistory, turn_order, unit_history

TRACK_STEP_MM = 3.0
"""Track points closer than this to the previous one are dropped (marker jitter, file size)."""

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:960px;color:#222;padding:0 1em}
h1{margin-bottom:.2em} .meta{color:#555;margin-top:0}
table{border-collapse:collapse;width:100%;font-size:.92em;margin:.5em 0 1.5em}
th,td{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f3f3ee} tr.exceeded td{background:#fde8e4}
.side-A{color:#1f5fbf;font-weight:600} .side-B{color:#c0392b;font-weight:600}
svg{max-width:100%;height:auto;border:1px solid #999;background:#fff}
"""


def _clock(t: float) -> str:
    m, s = divmod(int(round(t)), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def deployment_state(rec: Recording, events: list[Entry]) -> Entry | None:
    """The table as deployed: at the first turn marker, else just before the first move."""
    first_turn = next((e for e in events if e.kind == "turn"), None)
    if first_turn is not None:
        at = rec.state_at_seq(first_turn.seq)
        if at is not None and at.data.get("bases"):
            return at
    first_move = next((e for e in events if e.kind == "move"), None)
    if first_move is not None:
        at = rec.state_at(float(first_move.data.get("t_start", first_move.t)) - 1e-6)
        if at is not None:
            return at
    return next((s for s in rec.states() if s.data.get("bases")), None)


def _tracks(rec: Recording) -> tuple[dict[str, list[tuple[float, float]]], dict[str, Any],
                                     dict[str, Any], dict[str, Any] | None]:
    """Every base's centre over the game, its first and last pose, and the last state."""
    tracks: dict[str, list[tuple[float, float]]] = defaultdict(list)
    first: dict[str, Any] = {}
    last: dict[str, Any] = {}
    final: dict[str, Any] | None = None
    for entry in rec.states():
        final = entry.data
        for b in entry.data.get("bases") or []:
            p = (float(b["x_mm"]), float(b["y_mm"]))
            pts = tracks[b["id"]]
            if not pts or math.dist(pts[-1], p) >= TRACK_STEP_MM:
                pts.append(p)
            first.setdefault(b["id"], b)
            last[b["id"]] = b
    return tracks, first, last, final


def render_report(rec: Recording, *, title: str | None = None) -> str:
    events = rec.events()
    deployed = deployment_state(rec, events)
    tracks, first, last, final = _tracks(rec)
    scenario = (deployed.data if deployed else final) or {}
    table = scenario.get("table") or {"width_mm": 1800, "depth_mm": 1200}
    name = title or scenario.get("name") or rec.path.stem
    meta = rec.meta
    head = (f"<h1>{escape(str(name))}</h1><p class='meta'>Recorded {escape(meta.get('created', '?'))}"
            f" &middot; {escape(str(scenario.get('ruleset', '?')))} &middot; length "
            f"{_clock(rec.duration)} &middot; {rec.count('state')} states, {len(events)} events"
            f"</p>")

    parts = [head, "<h2>Deployment</h2>"]
    if deployed is None:
        parts.append("<p>No bases were recorded.</p>")
    else:
        svg = TableSvg(table["width_mm"], table["depth_mm"])
        svg.terrain(deployed.data.get("terrain") or [])
        for b in deployed.data.get("bases") or []:
            svg.base(b)
        parts.append(f"<p>At {_clock(deployed.t)}.</p>" + svg.render("deployment"))
        parts.append(_roster_table(deployed.data.get("bases") or []))

    parts.append("<h2>Tracks</h2><p>Every unit's path over the game (dashed), from its first "
                 "position (faded) to its last.</p>")
    svg = TableSvg(table["width_mm"], table["depth_mm"])
    svg.terrain((final or scenario).get("terrain") or [])
    for bid, b in first.items():
        svg.base(b, faded=True)
    for bid, pts in tracks.items():
        svg.track(str(last[bid].get("side")), pts, bid)
    for b in last.values():
        svg.base(b)
    parts.append(svg.render("tracks"))

    history = unit_history(rec.entries())
    parts.append("<h2>Losses per turn</h2>" + _losses_table(history))
    parts.append("<h2>State per turn</h2><p>At the end of each turn, every base whose state "
                 "then differed from how it began (losses, disorder, formation ...), from the "
                 "recorded states and the umpire's changes.</p>" + _state_table(history))
    parts.append("<h2>Events</h2>" + _events_table(events))
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{escape(str(name))}</title><style>{CSS}</style></head><body>"
            + "".join(parts) + "<footer><p class='meta'>Made by Campo.</p></footer></body></html>")


def _roster_table(bases: list[dict[str, Any]]) -> str:
    rows = "".join(
        f"<tr><td class='side-{escape(str(b.get('side')))}'>{escape(str(b.get('side')))}</td>"
        f"<td>{escape(str(b['id']))}</td><td>{escape(str(b.get('name') or ''))}</td>"
        f"<td>{escape(str(b.get('type')))}</td>"
        f"<td>{b['x_mm']:.0f}, {b['y_mm']:.0f}</td><td>{b['heading_deg']:.0f}°</td></tr>"
        for b in sorted(bases, key=lambda b: (str(b.get("side")), str(b["id"]))))
    return ("<table><tr><th>Side</th><th>Base</th><th>Name</th><th>Type</th>"
            f"<th>Position (mm)</th><th>Facing</th></tr>{rows}</table>")


def _sides(history: UnitHistory) -> list[str]:
    return sorted(set(history.sides.values()) | set(SIDE_COLOURS))


def _turn_label(turn: Any) -> str:
    return "before turn 1" if turn is None else escape(str(turn))


def _losses_table(history: UnitHistory) -> str:
    """Per turn and side: losses taken (``traits.losses``) and bases that left the table."""
    losses, lost = history.losses(), history.bases_lost()
    turns = [t for t in history.turns() if t in losses or t in lost]
    if not turns:
        return "<p>No losses were recorded.</p>"
    sides = _sides(history)
    head = "".join(f"<th class='side-{escape(s)}'>Side {escape(s)} losses</th>"
                   f"<th class='side-{escape(s)}'>Side {escape(s)} bases lost</th>" for s in sides)
    rows = []
    for turn in turns:
        cells = "".join(f"<td>{losses.get(turn, {}).get(s, 0)}</td><td>{lost.get(turn, {}).get(s, 0)}</td>"
                        for s in sides)
        rows.append(f"<tr><td>{_turn_label(turn)}</td>{cells}</tr>")
    return f"<table class='losses'><tr><th>Turn</th>{head}</tr>{''.join(rows)}</table>"


def state_words(traits: dict[str, Any]) -> str:
    """A base's state in a few words: ``losses 3, disordered, formation march column`` (false
    and absent traits are left out)."""
    words = []
    for key, value in traits.items():
        if value is None or value is False:
            continue
        words.append(key if value is True else f"{key} {str(value).replace('_', ' ')}")
    return ", ".join(words)


def _gone_by(history: UnitHistory, base: str, turn: Any) -> bool:
    """The base had left the table for good by the end of ``turn``."""
    return base in history.gone and turn_order(history.gone[base]) <= turn_order(turn)


def _state_table(history: UnitHistory) -> str:
    """Per turn and side: each base's state at the end of the turn where it differs from how it
    began, and the bases gone."""
    sides = _sides(history)
    rows = []
    for turn in history.turns():
        cells = []
        for side in sides:
            said = [f"{escape(bid)}: {escape(words)}" for bid, traits in
                    sorted(history.ends.get(turn, {}).get(side, {}).items())
                    if (words := state_words(traits)) and not _gone_by(history, bid, turn)]
            said += [f"{escape(bid)}: left the table" for bid, t in sorted(history.gone.items())
                     if t == turn and history.sides.get(bid) == side]
            cells.append(f"<td>{'<br>'.join(said)}</td>")
        if any(c != "<td></td>" for c in cells):
            rows.append(f"<tr><td>{_turn_label(turn)}</td>{''.join(cells)}</tr>")
    if not rows:
        return "<p>No base's state changed.</p>"
    head = "".join(f"<th class='side-{escape(s)}'>Side {escape(s)}</th>" for s in sides)
    return f"<table class='states'><tr><th>Turn</th>{head}</tr>{''.join(rows)}</table>"


def _events_table(events: list[Entry]) -> str:
    rows = []
    turn: Any = ""
    for e in events:
        if e.kind == "turn":
            turn = e.data.get("turn", "")
        cls = " class='exceeded'" if e.data.get("exceeded") else ""
        rows.append(f"<tr{cls}><td>{_clock(e.t)}</td><td>{escape(str(turn))}</td>"
                    f"<td>{escape(e.kind)}</td><td>{escape(summary(e))}</td></tr>")
    if not rows:
        return "<p>No events were recorded.</p>"
    return ("<table class='events'><tr><th>Time</th><th>Turn</th><th>Event</th><th>What</th></tr>"
            + "".join(rows) + "</table>")


def write_report(rec: Recording, out: Path, *, title: str | None = None) -> None:
    out.write_text(render_report(rec, title=title), encoding="utf-8")
