"""A rulebook's sequence of play as data, the turn clock's steps through it, and a move judged
against the phase it was made in.

Each ruleset gives its `SequenceOfPlay` (`Ruleset.sequence_of_play`): the phases of one turn in
order, each saying who acts (the side that plays first or second this turn, both, nobody, or a
fixed side for a card), what the acting side's bases may do with their move, what the other
side's may (a result of the phase: falling back, retreating) and the rules it comes from. A
card-driven rulebook (ATTILA) lists the phases its cards open; the cards give the order.

>>> seq = SequenceOfPlay("demo", phases=(
...     Phase("fire", "Fire", "both", moves="none", cites=("X 1",)),
...     Phase("move", "Movement", "first", moves="full", cites=("X 2",))))
>>> p = next_position(seq, Position())
>>> p.turn, p.phase, next_position(seq, p).phase, next_position(seq, next_position(seq, p)).turn
(1, 'fire', 'move', 2)
>>> previous_position(seq, p) == Position()
True
>>> judge_move(seq.phase("move"), "A", "B", furthest_mm=90, allowance_mm=100).verdict
'not_now'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from campo.errors import CampoInputError

Actor = Literal["first", "second", "both", "none", "A", "B"]
"""Who acts in a phase: the side that plays first (or second) this turn, both, nobody, or a
fixed side (a card names its player)."""
Moves = Literal["full", "results", "none"]
"""What a side's bases may do with their move in a phase: their full move (measured against the
allowance), only the moves a result imposes (falling back, retreat, pursuit: not measured), or
nothing."""
SIDES = ("A", "B")


@dataclass(frozen=True)
class Phase:
    """One phase of the turn: who acts, what each side's bases may do with their move, why."""

    key: str
    title: str
    actor: Actor
    moves: Moves = "none"
    """What the acting side's bases may do (both sides' when ``actor`` is "both")."""
    others: Moves = "none"
    """What the other side's bases may do (a result of the acting side's fire or melee)."""
    does: str = ""
    """One line: what happens in the phase."""
    cites: tuple[str, ...] = ()
    stretch: float = 1.0
    """The acting side may go up to this many times its move at a cost (ATTILA's forced march)."""
    stretch_note: str = ""

    def acting_side(self, first: str) -> str | None:
        """The side that acts when ``first`` plays first this turn (None: both or nobody)."""
        if self.actor in SIDES:
            return self.actor
        if self.actor == "first":
            return first
        if self.actor == "second":
            return other_side(first)
        return None

    def moves_of(self, side: str, first: str) -> Moves:
        """What ``side``'s bases may do with their move in this phase."""
        acting = self.acting_side(first)
        if self.actor == "both" or side == acting:
            return self.moves
        return self.others if self.actor != "none" else self.moves

    def to_dict(self) -> dict[str, Any]:
        out = {"key": self.key, "title": self.title, "actor": self.actor, "moves": self.moves,
               "others": self.others, "does": self.does, "cites": list(self.cites)}
        if self.stretch != 1.0:
            out |= {"stretch": self.stretch, "stretch_note": self.stretch_note}
        return out


@dataclass(frozen=True)
class SequenceOfPlay:
    """A rulebook's turn: its phases in order (card-driven: the phases its cards may open, in
    no order; the cards give it), how the side that plays first is chosen, the game's length."""

    ruleset: str
    phases: tuple[Phase, ...]
    card_driven: bool = False
    initiative: str = ""
    """How the side that plays first is chosen, one line with its rule."""
    initiative_each_turn: bool = False
    """The umpire sets who plays first at every turn (Federico) rather than once (ISD)."""
    turns: int | None = None
    """The game's length in turns, when the rulebook gives one."""
    cites: tuple[str, ...] = ()
    position_of_tool: Callable[[Mapping[str, Any]], tuple[int, str | None]] | None = \
        field(default=None, compare=False)
    """Card-driven: (turn, phase key) read from the umpire tool's view (ATTILA's deck)."""

    def __post_init__(self) -> None:
        keys = [p.key for p in self.phases]
        if len(set(keys)) != len(keys) or not keys:
            raise ValueError(f"{self.ruleset}: phase keys must be unique and present: {keys}")

    def phase(self, key: str) -> Phase:
        """The phase named ``key`` (`CampoInputError` naming the known ones)."""
        for p in self.phases:
            if p.key == key:
                return p
        raise CampoInputError(f"{self.ruleset} has no phase {key!r} "
                              f"(it knows: {', '.join(p.key for p in self.phases)})", key="phase")

    def index(self, key: str) -> int:
        return self.phases.index(self.phase(key))

    def to_dict(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "phases": [p.to_dict() for p in self.phases],
                "card_driven": self.card_driven, "initiative": self.initiative,
                "initiative_each_turn": self.initiative_each_turn, "turns": self.turns,
                "cites": list(self.cites)}


def other_side(side: str) -> str:
    return "B" if side == "A" else "A"


@dataclass(frozen=True)
class Position:
    """Where the game is: turn 0 with no phase before it starts; ``first`` plays first."""

    turn: int = 0
    phase: str | None = None
    first: str = "A"

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "phase": self.phase, "first": self.first}


def next_position(seq: SequenceOfPlay, at: Position) -> Position:
    """The phase after ``at`` (the first phase of the next turn after the last). Not for a
    card-driven sequence, whose cards say what comes next."""
    if seq.card_driven:
        raise CampoInputError(f"{seq.ruleset}'s cards give the next phase", key="phase")
    if at.phase is None:
        return replace(at, turn=max(at.turn, 0) + 1, phase=seq.phases[0].key)
    i = seq.index(at.phase)
    if i + 1 < len(seq.phases):
        return replace(at, phase=seq.phases[i + 1].key)
    return replace(at, turn=at.turn + 1, phase=seq.phases[0].key)


def previous_position(seq: SequenceOfPlay, at: Position, first_of: dict[int, str] | None = None
                      ) -> Position:
    """The phase before ``at``, back to turn 0 (not started); ``first_of`` remembers who played
    first in earlier turns."""
    if at.phase is None or at.turn <= 0:
        return Position(first=at.first)
    i = seq.index(at.phase)
    if i > 0:
        return replace(at, phase=seq.phases[i - 1].key)
    if at.turn == 1:
        return Position(first=at.first)
    turn = at.turn - 1
    return Position(turn, seq.phases[-1].key, (first_of or {}).get(turn, at.first))


Verdict = Literal["ok", "stretched", "too_far", "result", "not_now", "unknown"]


@dataclass(frozen=True)
class MoveVerdict:
    """A move judged against the phase it was made in."""

    verdict: Verdict
    reason: str
    cites: tuple[str, ...] = field(default_factory=tuple)
    limit_mm: float | None = None
    """The furthest the base could go in this phase (its allowance, or the stretch)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"verdict": self.verdict, "reason": self.reason,
                               "cites": list(self.cites)}
        if self.limit_mm is not None:
            out["limit_mm"] = round(self.limit_mm, 1)
        return out


def judge_move(phase: Phase | None, first: str, side: str | None, *, furthest_mm: float,
               allowance_mm: float | None, tolerance_mm: float = 0.0) -> MoveVerdict:
    """Whether a base of ``side`` may have moved ``furthest_mm`` (its furthest corner) in
    ``phase``: "ok"; "stretched" (beyond the move but within a paid stretch, e.g. a forced
    march); "too_far"; "result" (only a result of the phase moves this side: not measured);
    "not_now" (nothing in this phase moves this side's bases); "unknown" (no phase set, no side,
    no allowance)."""
    if phase is None:
        return MoveVerdict("unknown", "no phase set on the turn clock")
    if side not in SIDES:
        return MoveVerdict("unknown", "the base has no side", phase.cites)
    acting = phase.acting_side(first)
    who = f"side {acting}" if acting else ("both sides" if phase.actor == "both" else "nobody")
    moves = phase.moves_of(side, first)
    if moves == "none":
        return MoveVerdict("not_now", f"{phase.title}: side {side}'s bases do not move "
                                      f"(the phase is {who}'s)", phase.cites)
    if moves == "results":
        return MoveVerdict("result", f"{phase.title}: side {side}'s bases move only as a result "
                                     "(falling back, retreat, pursuit); check it was one",
                           phase.cites)
    if allowance_mm is None:
        return MoveVerdict("unknown", f"{phase.title}: the rulebook gives this base no move",
                           phase.cites)
    if furthest_mm <= allowance_mm + tolerance_mm:
        return MoveVerdict("ok", f"{phase.title}: within its move", phase.cites, allowance_mm)
    stretched = allowance_mm * phase.stretch
    if phase.stretch > 1.0 and side == acting and furthest_mm <= stretched + tolerance_mm:
        return MoveVerdict("stretched", f"{phase.title}: beyond its move, within "
                                        f"{phase.stretch:g}x: {phase.stretch_note}",
                           phase.cites, stretched)
    limit = stretched if phase.stretch > 1.0 and side == acting else allowance_mm
    return MoveVerdict("too_far", f"{phase.title}: further than side {side} may move now",
                       phase.cites, limit)


# --- the rulesets' docs ------------------------------------------------------------------------
_WHO = {"first": "the side playing first", "second": "the side playing second", "both": "both",
        "none": "nobody", "A": "player A", "B": "player B"}
_MOVES = {"full": "their move", "results": "results only", "none": "stay"}


def sequence_markdown(seq: SequenceOfPlay) -> str:
    """The sequence as the Markdown table in docs/rulesets/*.md (a generated block)."""
    from campo.engine.rulesets.doc_common import cell

    order = "the cards' order (any)" if seq.card_driven else "in this order"
    lines = [f"Phases, {order}; {cell(seq.initiative)}."
             + (f" The game lasts {seq.turns} turns." if seq.turns else ""), "",
             "| # | phase (`key`) | who acts | acting side's bases | other side's | what happens | rules |",
             "|---|---|---|---|---|---|---|"]
    for n, p in enumerate(seq.phases, 1):
        moves = _MOVES[p.moves] + (f" (up to {p.stretch:g}x: {p.stretch_note})" if p.stretch != 1 else "")
        others = "—" if p.actor in ("both", "none") else _MOVES[p.others]
        lines.append(f"| {n} | {cell(p.title)} (`{p.key}`) | {_WHO[p.actor]} | {cell(moves)} | "
                     f"{others} | {cell(p.does)} | {', '.join(p.cites)} |")
    return "\n".join(lines)


def refresh_doc(text: str, ruleset: str) -> str:
    """A ruleset doc's text with its ``sequence`` block rewritten from the ruleset's data."""
    from campo.engine.registry import get_ruleset
    from campo.engine.rulesets.doc_common import refresh_blocks

    seq = get_ruleset(ruleset).sequence_of_play()
    return refresh_blocks(text, {"sequence": lambda: sequence_markdown(seq)})


def main(argv: list[str] | None = None) -> int:
    """``python -m campo.engine.sequence RULESET DOC.md``: rewrite the doc's sequence block."""
    import sys
    from pathlib import Path

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m campo.engine.sequence RULESET DOC.md", file=sys.stderr)
        return 2
    path = Path(args[1])
    path.write_text(refresh_doc(path.read_text(encoding="utf-8"), args[0]), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
