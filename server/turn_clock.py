"""The game's turn clock: the current turn, phase and the side that plays first, stepped forward
and back (back is undo) through the rulebook's sequence of play (`Ruleset.sequence_of_play`).

Every step is published as umpire events (`turn` when the turn changes, then `phase`), which a
recording keeps and the movement audit reads; a game resumed with its recording carries on where
the clock was (`restore`). A card-driven rulebook (ATTILA) has no fixed order: its clock follows
the umpire's deck, stepping forward draws the next card (or shuffles for the next turn) and
stepping back puts the last card back.

>>> clock = TurnClock("federico")
>>> clock.step("next", source="page").view["phase"], clock.view()["turn"]
('initiative', 1)
>>> clock.step("first", side="B", source="page").view["first"]
'B'
>>> [e["kind"] for e in clock.step("back", source="page").events]
['turn']
>>> clock.view()["turn"], clock.view()["phase"]
(0, None)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from campo.engine.registry import get_ruleset
from campo.engine.ruleset import UmpireTool
from campo.engine.sequence import SIDES, Phase, Position, next_position, previous_position
from campo.errors import CampoInputError

ACTIONS = ("next", "back", "first")


@dataclass(frozen=True)
class ClockStep:
    """What one step did: the events to publish (oldest first) and the clock's view after."""

    events: list[dict[str, Any]]
    view: dict[str, Any]


class TurnClock:
    """The turn clock of one game (thread-safe: the page and the HTTP API may step at once)."""

    topic = "turn"

    def __init__(self, ruleset: str, tool: UmpireTool | None = None) -> None:
        self.sequence = get_ruleset(ruleset).sequence_of_play()
        self.tool = tool if self.sequence.card_driven else None
        if self.sequence.card_driven and tool is None:
            raise ValueError(f"{ruleset}'s turn is card-driven: its clock needs the deck")
        self._at = Position()
        self._first_of: dict[int, str] = {}
        self._lock = threading.Lock()
        if self.tool is not None:
            self._at = self._from_tool(self.tool.view())

    # --- reading ------------------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        """What the page's stepper shows: the turn, the phase and what it allows, what the next
        step leads to."""
        with self._lock:
            return self._view()

    def position(self) -> Position:
        with self._lock:
            return self._at

    def _view(self) -> dict[str, Any]:
        seq, at = self.sequence, self._at
        out: dict[str, Any] = {"ruleset": seq.ruleset, **at.to_dict(), "card_driven": seq.card_driven,
                               "initiative_each_turn": seq.initiative_each_turn, "turns": seq.turns,
                               "started": at.phase is not None, "actions": list(self._actions())}
        if at.phase is not None:
            phase = seq.phase(at.phase)
            out |= {"title": label(phase, at.first), "does": phase.does, "cites": list(phase.cites),
                    "acting": phase.acting_side(at.first),
                    "moves": {s: phase.moves_of(s, at.first) for s in SIDES},
                    "index": seq.phases.index(phase) + 1, "of": len(seq.phases)}
        if self.tool is None:
            following = next_position(seq, at)
            out["next"] = {"turn": following.turn, "phase": following.phase,
                           "title": label(seq.phase(str(following.phase)), following.first)}
        else:
            deck = self.tool.view()
            over = not deck.get("turn") or deck.get("turn_over")
            out["next"] = ({"turn": at.turn + 1, "phase": "shuffle",
                            "title": f"shuffle for turn {at.turn + 1}"} if over
                           else {"turn": at.turn, "phase": None, "title": "draw a card"})
        return out

    def _actions(self) -> tuple[str, ...]:
        if self.sequence.card_driven:
            return ("next", "back")
        return ACTIONS

    # --- stepping -----------------------------------------------------------------------------
    def step(self, action: str, *, side: str | None = None, source: str,
             settings: Any = None) -> ClockStep:
        """``next`` phase, ``back`` one phase (undo), or set the side that plays ``first`` this
        turn; `CampoInputError` when it cannot be done (nothing changes then)."""
        if action not in self._actions():
            raise CampoInputError(f"unknown turn action {action!r} "
                                  f"({', '.join(self._actions())})", key="action")
        with self._lock:
            before = self._at
            if self.tool is not None:
                self._at = self._tool_step(action, settings)
            elif action == "next":
                self._at = next_position(self.sequence, before)
            elif action == "back":
                if before.phase is None:
                    raise CampoInputError("the game has not started: nothing to take back",
                                          key="action")
                self._at = previous_position(self.sequence, before, self._first_of)
            else:
                if side not in SIDES:
                    raise CampoInputError("give the side that plays first: A or B", key="side")
                if before.phase is None:
                    raise CampoInputError("the game has not started: step to turn 1 first",
                                          key="side")
                self._at = replace(before, first=side)
            if self._at.turn > 0:
                self._first_of[self._at.turn] = self._at.first
            return ClockStep(self._events(before, action, source), self._view())

    def follow_tool(self, view: Mapping[str, Any], *, source: str) -> ClockStep | None:
        """The umpire acted on the deck itself (card-driven rulebooks): the clock moves with it;
        None when the position did not change."""
        if self.tool is None:
            return None
        with self._lock:
            before, self._at = self._at, self._from_tool(view)
            if self._at == before:
                return None
            return ClockStep(self._events(before, "deck", source), self._view())

    def restore(self, turn: int, phase: str | None, first: str,
                first_of: Mapping[int, str] | None = None) -> dict[str, Any]:
        """Carry on a recorded game where its clock was (a fixed sequence; a card-driven one
        restores its deck, then `follow_tool`). `CampoInputError` for a phase this rulebook
        does not have."""
        if phase is not None:
            self.sequence.phase(phase)
        if first not in SIDES:
            raise CampoInputError(f"first side {first!r} is not A or B", key="first")
        with self._lock:
            self._at = Position(turn, phase, first) if phase is not None else Position(first=first)
            self._first_of = dict(first_of or {})
            return self._view()

    def _tool_step(self, action: str, settings: Any) -> Position:
        assert self.tool is not None
        if action == "back":
            return self._from_tool(self.tool.act("undo", settings))
        view = self.tool.view()
        over = not view.get("turn") or view.get("turn_over")
        return self._from_tool(self.tool.act("shuffle" if over else "draw", settings))

    def _from_tool(self, view: Mapping[str, Any]) -> Position:
        assert self.sequence.position_of_tool is not None
        turn, phase = self.sequence.position_of_tool(view)
        return Position(turn, phase, "A")

    def _events(self, before: Position, action: str, source: str) -> list[dict[str, Any]]:
        """The `turn` (when it changed) and `phase` events of a step (lock held)."""
        at, now = self._at, round(time.time(), 3)
        common = {"source": source, "step": action, "time_unix": now}
        out = []
        if at.turn != before.turn:
            out.append({"kind": "turn", "turn": at.turn, **common})
        if at.phase is not None and (at != before):
            phase = self.sequence.phase(at.phase)
            event = {"kind": "phase", "turn": at.turn, "phase": at.phase, "title": label(phase, at.first),
                     "first": at.first, **common}
            acting = phase.acting_side(at.first)
            if acting is not None:
                event["side"] = acting
            out.append(event)
        return out


def label(phase: Phase, first: str) -> str:
    """The phase's title with the table side that acts in it, when that depends on who plays
    first ("First impulse: fire (side B)")."""
    acting = phase.acting_side(first)
    return f"{phase.title} (side {acting})" if phase.actor in ("first", "second") else phase.title


def restore_from_events(clock: TurnClock, events: Iterable[tuple[str, Mapping[str, Any]]]) -> bool:
    """Put a fixed-sequence clock where a recording's `turn` and `phase` events left it (the
    last phase event in the last turn; turn 0 when a turn event took the clock back before the
    start); True when the recording had any. Events of phases this rulebook does not know
    (typed by hand on an older page) are skipped."""
    turn, phase, first = 0, None, "A"
    first_of: dict[int, str] = {}
    seen = False
    for kind, data in events:
        if kind == "turn" and isinstance(data.get("turn"), int):
            seen = True
            if data["turn"] != turn:
                turn, phase = data["turn"], None
        elif kind == "phase" and isinstance(data.get("turn"), int):
            key = data.get("phase")
            if not isinstance(key, str) or key not in {p.key for p in clock.sequence.phases}:
                continue
            seen = True
            turn, phase = data["turn"], key
            if data.get("first") in SIDES:
                first = data["first"]
                first_of[turn] = first
    if seen:
        clock.restore(turn, phase if turn > 0 else None, first, first_of)
    return seen
