"""`campo export`: a recording as JSON lines (every state and event) or as CSV (the events)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from typing import Any, TextIO

from campo.server.recording.reader import Entry, Recording

CSV_COLUMNS = ("seq", "t", "kind", "turn", "base", "other", "summary", "details")


def json_lines(rec: Recording) -> Iterator[str]:
    """One JSON object per state or event, oldest first (shared/interfaces.md)."""
    for entry in rec.entries():
        yield json.dumps(entry.to_json(), separators=(",", ":"), ensure_ascii=False)


def _fmt(v: Any, digits: int = 1) -> str:
    """A number for people: ``digits`` decimals at most, no trailing zeros (4, 10.4, 5.4)."""
    return f"{round(v, digits):g}" if isinstance(v, float) else str(v)


def _word(v: Any) -> str:
    """A trait's value for people: yes/no, march column, 3; '-' when it had none."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v).replace("_", " ")


PHASE_FLAGS = {"not_now": "NOT ITS PHASE", "too_far": "TOO FAR FOR THE PHASE",
               "stretched": "beyond its move (forced march?)", "result": "(a result?)"}
"""How a move's ``phase_check`` verdict reads in a one-line summary ("ok": nothing added)."""


def summary(entry: Entry) -> str:
    """A one-line human description of an event (used by the CSV and the report)."""
    d = entry.data
    k = entry.kind
    if k == "move":
        allowance = d.get("allowance")
        limit = "" if allowance is None else f" of {_fmt(allowance)}{d['unit']}"
        flag = " EXCEEDED" if d.get("exceeded") else ""
        check = d.get("phase_check") or {}
        phase = PHASE_FLAGS.get(check.get("verdict"), "")
        if phase:
            phase = f" {phase} in {d.get('phase')}"
        return (f"{d['base']} moved {_fmt(d['distance'])}{d['unit']}{limit}"
                f" (furthest point {_fmt(d['furthest'])}{d['unit']}, turned "
                f"{_fmt(d['turned_deg'], 0)}°){flag}{phase}")
    if k in ("appeared", "disappeared"):
        return f"{d['base']} {k} at ({_fmt(d['x_mm'], 0)}, {_fmt(d['y_mm'], 0)}) mm"
    if k in ("stale", "fresh"):
        return f"{d['base']} {'not seen (stale)' if k == 'stale' else 'seen again'}"
    if k in ("contact", "contact_broken"):
        a, b = d["bases"]
        aspects = d.get("aspects") or {}
        what = "contact" if k == "contact" else "contact broken"
        return (f"{what}: {a} ({aspects.get(a, '?')}) / {b} ({aspects.get(b, '?')})")
    if k == "charge":
        legal = {True: "legal", False: "not legal", None: "legality unknown"}[d.get("legal")]
        return f"{d['charger']} charged {d['target']}, contact on its {d.get('aspect')} ({legal})"
    if k == "turn":
        return f"turn {d.get('turn')}"
    if k == "phase":
        return f"phase {d.get('phase')}" + (f" of turn {d['turn']}" if d.get("turn") else "")
    if k == "losses":
        return f"{d['base']} losses {d.get('previous')} -> {d.get('losses')}"
    if k == "unit_state":
        before = d.get("before") or {}
        changes = ", ".join(f"{key} {_word(before.get(key))} -> {_word(value)}"
                            for key, value in (d.get("traits") or {}).items())
        return f"{d.get('base')} state: {changes}" + (f" ({d['source']})" if d.get("source") else "")
    if k == "note":
        return str(d.get("text", ""))
    if k == "card":
        card = d.get("card") or {}
        return f"card {d.get('drawn')} of turn {d.get('turn')}: {card.get('text', '?')}"
    if k == "shuffle":
        return f"deck shuffled for turn {d.get('turn')} ({d.get('cards')} cards, seed {d.get('seed')})"
    if k == "roll":
        dice = " | ".join(" ".join(str(f) for f in g) for g in d.get("dice") or [])
        who = f"Campo rolled (seed {d.get('seed')})" if d.get("by") == "campo" else "umpire's dice"
        return f"{d.get('test')} {d.get('actor')} -> {d.get('target') or '-'}: {who} {dice}"
    if k == "resolution":
        outcome = d.get("outcome") or {}
        return (f"{d.get('test')} {d.get('actor')} -> {d.get('target') or '-'} "
                f"{d.get('status')}: {outcome.get('row')}: {outcome.get('text')}")
    return json.dumps(d, ensure_ascii=False, sort_keys=True)[:200]


def _base_and_other(entry: Entry) -> tuple[str, str]:
    d = entry.data
    if entry.kind == "charge":
        return d.get("charger", ""), d.get("target", "")
    if entry.kind in ("roll", "resolution"):
        return d.get("actor", ""), d.get("target", "")
    if "bases" in d and isinstance(d["bases"], list) and len(d["bases"]) == 2:
        return d["bases"][0], d["bases"][1]
    return str(d.get("base", "")), ""


def write_csv(rec: Recording, out: TextIO) -> int:
    """The events (not the states) as CSV, one row each; returns the number of rows."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    turn: Any = ""
    n = 0
    for entry in rec.events():
        if entry.kind == "turn":
            turn = entry.data.get("turn", "")
        base, other = _base_and_other(entry)
        writer.writerow([entry.seq, f"{entry.t:.3f}", entry.kind, turn, base, other,
                         summary(entry),
                         json.dumps(entry.data, separators=(",", ":"), ensure_ascii=False)])
        n += 1
    return n
