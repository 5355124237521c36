"""What happened to each base's state over a recorded game, turn by turn: its losses, disorder,
formation ... (every trait that changed during the game) and the bases that left the table.

Read from both sources a recording has: the states (the traits each base carried) and the
``unit_state`` events (the umpire's changes, durable before the page heard the answer, so a
change can be in the events without a later state, e.g. after a crash). Entries are folded in
order, keeping each base's traits as last seen: a change counts once, whichever source shows it
first, and a state that merely repeats it changes nothing.

>>> from campo.server.recording.reader import Entry
>>> base = {"id": "a-1", "side": "A", "traits": {"weapon": "MR"}}
>>> h = unit_history([
...     Entry(1, 0.0, "state", {"bases": [base]}),
...     Entry(2, 1.0, "turn", {"turn": 1}),
...     Entry(3, 2.0, "unit_state", {"base": "a-1", "traits": {"losses": 2}, "before": {"losses": 0}}),
...     Entry(4, 2.1, "state", {"bases": [{**base, "traits": {"weapon": "MR", "losses": 2}}]}),
...     Entry(5, 3.0, "turn", {"turn": 2}),
...     Entry(6, 4.0, "disappeared", {"base": "a-1", "side": "A"})])
>>> [(c.turn, c.base, c.key, c.before, c.after) for c in h.changes]
[(1, 'a-1', 'losses', 0, 2)]
>>> h.losses()
{1: {'A': 2}}
>>> h.ends[1]["A"], h.gone
({'a-1': {'losses': 2}}, {'a-1': 2})
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from campo.server.recording.reader import Entry

Turn = Any
"""A turn number as the umpire marked it; None before the first turn marker."""


@dataclass(frozen=True)
class TraitChange:
    """One trait of one base changed: when, in which turn, from what to what, and who said so
    (``state``: seen in a recorded state; else the event's ``source``: page, api, token ...)."""

    seq: int
    t: float
    turn: Turn
    base: str
    side: str
    key: str
    before: Any
    after: Any
    source: str


@dataclass
class UnitHistory:
    """The changes in order; at the end of each turn, per side, each base's traits that then
    differed from what they were before the game changed them (``ends[turn][side][base] =
    {key: value}``; a change undone is gone again); the turn each base left the table for
    good (``gone``)."""

    changes: list[TraitChange] = field(default_factory=list)
    ends: dict[Turn, dict[str, dict[str, dict[str, Any]]]] = field(default_factory=dict)
    gone: dict[str, Turn] = field(default_factory=dict)
    sides: dict[str, str] = field(default_factory=dict)

    def losses(self) -> dict[Turn, dict[str, int]]:
        """Turn -> side -> losses suffered in that turn (increases of ``traits.losses``; a loss
        taken back, e.g. by undo, is subtracted)."""
        out: dict[Turn, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for c in self.changes:
            if c.key == "losses":
                out[c.turn][c.side] += _count(c.after) - _count(c.before)
        return {turn: dict(sides) for turn, sides in out.items()}

    def bases_lost(self) -> dict[Turn, dict[str, int]]:
        """Turn -> side -> bases that left the table in that turn and never came back."""
        out: dict[Turn, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for base, turn in self.gone.items():
            out[turn][self.sides.get(base, "?")] += 1
        return {turn: dict(sides) for turn, sides in out.items()}

    def turns(self) -> list[Turn]:
        """Every turn with something to say, in order (None, before turn 1, first)."""
        seen = set(self.ends) | set(self.losses()) | set(self.bases_lost())
        return sorted(seen, key=turn_order)


def turn_order(turn: Turn) -> tuple[int, float, str]:
    """Sort key: before turn 1 first, then numbers, then anything else by its text."""
    if turn is None:
        return (0, 0.0, "")
    if isinstance(turn, (int, float)) and not isinstance(turn, bool):
        return (1, float(turn), "")
    return (2, 0.0, str(turn))


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def unit_history(entries: Iterable[Entry]) -> UnitHistory:
    """Fold a recording's entries (oldest first, states and events) into a `UnitHistory`."""
    out = UnitHistory()
    traits: dict[str, dict[str, Any]] = {}     # each base's traits as last seen
    last: dict[str, Any] = {}                  # each base's dict in the last state
    start: dict[str, dict[str, Any]] = defaultdict(dict)   # each changed key's value before it
    left: dict[str, Turn] = {}
    turn: Turn = None

    def note(e: Entry, base: str, key: str, before: Any, after: Any, source: str) -> None:
        out.changes.append(TraitChange(e.seq, e.t, turn, base, out.sides.get(base, "?"), key,
                                       before, after, source))
        start[base].setdefault(key, before)

    def close_turn() -> None:
        per_side: dict[str, dict[str, dict[str, Any]]] = {}
        for base in sorted(start):
            now = {k: traits[base].get(k) for k in sorted(start[base])
                   if traits[base].get(k) != start[base][k]}
            if now:
                per_side.setdefault(out.sides.get(base, "?"), {})[base] = now
        if per_side:
            out.ends[turn] = per_side

    for e in entries:
        marked = e.data.get("turn") if e.kind in ("turn", "phase", "state") else None
        if marked is not None and marked != turn:   # a state or a phase says its turn too
            close_turn()
            turn = marked
        if e.kind == "state":
            for b in e.data.get("bases") or []:
                bid = str(b["id"])
                if b is last.get(bid):   # the reader shares an unchanged base's dict
                    continue
                last[bid] = b
                out.sides.setdefault(bid, str(b.get("side", "?")))
                now = b.get("traits") or {}
                seen = traits.get(bid)
                if seen is None:
                    traits[bid] = dict(now)
                    continue
                if now == seen:
                    continue
                for key in sorted(set(now) | set(seen)):
                    if now.get(key) != seen.get(key):
                        note(e, bid, key, seen.get(key), now.get(key), "state")
                traits[bid] = dict(now)
        elif e.kind == "unit_state":
            bid = str(e.data.get("base"))
            before = e.data.get("before") or {}
            seen = traits.setdefault(bid, dict(before))
            for key, value in (e.data.get("traits") or {}).items():
                if seen.get(key, before.get(key)) != value:
                    note(e, bid, key, seen.get(key, before.get(key)), value,
                         str(e.data.get("source", "event")))
                seen[key] = value
        elif e.kind == "disappeared":
            bid = str(e.data.get("base"))
            out.sides.setdefault(bid, str(e.data.get("side", "?")))
            left[bid] = turn
        elif e.kind == "appeared":
            left.pop(str(e.data.get("base")), None)
    close_turn()
    out.gone = left
    return out
