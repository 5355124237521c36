"""Resolving a test with the dice: what to roll, the rulebook's table it is read on, and the
result with its proposed effects on the bases' state, for any rulebook.

A ruleset builds a `DiceTest` from its own verdict on the moment (the modifiers the analysis
computed) and its tables module (`Ruleset.fire_test`); `DiceTest.read` reads the dice the umpire
entered, or those `roll` drew, off that table. The effects are proposals: the values each
base's state traits take after the result (`campo.engine.unit_state`), a base to lift off the
table, a ghost pose for a fall back. Nothing here changes a game; the server applies confirmed
effects through the umpire's unit states, so they can be undone like any change.

>>> two = Roll("2d6", count=2, sides=6)
>>> check_dice([two], [[3, 5]])
[[3, 5]]
>>> check_dice([two], [[3, 7]])
Traceback (most recent call last):
...
campo.errors.CampoInputError: dice[0][1]: a d6 shows 1 to 6 (got 7)
>>> import random
>>> roll([two], random.Random(4))
([[2, 3]], [[2, 3]])
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Container, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from campo.errors import CampoInputError, UnknownBaseError

Dice = list[list[int]]
"""The faces of each `Roll` of a test, in order (a list of faces per roll)."""


@dataclass(frozen=True)
class Roll:
    """One group of dice a test rolls: ``count`` dice of ``sides`` faces (plus ``offset`` to each
    die: ATTILA's «1d4 -1»). ``reroll_ones``: each 1 is rolled again once (ISD §7 rifles); the
    faces entered are those after the re-roll. ``only_if``: the group counts only when the
    result so far says so (ATTILA's save, rolled only for a hit)."""

    label: str
    count: int
    sides: int
    offset: int = 0
    reroll_ones: bool = False
    only_if: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Ghost:
    """Where a base would stand after an effect moves it (drawn as a ghost on the board)."""

    x_mm: float
    y_mm: float
    heading_deg: float
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"x_mm": round(self.x_mm, 1), "y_mm": round(self.y_mm, 1),
                "heading_deg": round(self.heading_deg, 1), "text": self.text}


@dataclass(frozen=True)
class Effect:
    """What a result does to one base: its state traits after (``traits``, the ruleset's
    `StateTrait` keys), and what the umpire does by hand: ``remove`` it from the table, move it
    to the ``ghost`` pose."""

    base: str
    text: str
    traits: dict[str, Any] = field(default_factory=dict)
    remove: bool = False
    ghost: Ghost | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"base": self.base, "text": self.text, "traits": dict(self.traits),
                               "remove": self.remove}
        if self.ghost is not None:
            out["ghost"] = self.ghost.to_dict()
        return out


@dataclass(frozen=True)
class Outcome:
    """The table's answer to the dice: the result in a few words (``row``), what it means, the
    labels of the rows of `DiceTest.table` the dice were read on (``rows``: one per die when each
    die is read alone), the numbers on the way (``score``) and the proposed effects."""

    row: str
    text: str
    cites: str
    rows: tuple[str, ...] = ()
    score: dict[str, Any] = field(default_factory=dict)
    effects: tuple[Effect, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"row": self.row, "text": self.text, "cites": self.cites, "rows": list(self.rows),
                "score": dict(self.score), "effects": [e.to_dict() for e in self.effects]}


@dataclass(frozen=True)
class DiceTest:
    """One test ready to roll: who, at whom, the modifiers the engine computed (as the analysis
    shows them), the dice to roll, the rulebook table the result is read on (``{"title",
    "cites", "columns", "rows"}``, each row's first cell its label), and the reader."""

    kind: str
    actor: str
    target: str
    title: str
    cites: str
    modifiers: list[dict[str, Any]]
    rolls: tuple[Roll, ...]
    table: dict[str, Any]
    reader: Callable[[Dice], Outcome] = field(repr=False, compare=False)
    notes: tuple[str, ...] = ()

    def read(self, dice: Sequence[Sequence[int]]) -> Outcome:
        """The outcome of these faces (`CampoInputError` naming the bad die)."""
        return self.reader(check_dice(self.rolls, dice))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "actor": self.actor, "target": self.target, "title": self.title,
                "cites": self.cites, "modifiers": list(self.modifiers),
                "rolls": [r.to_dict() for r in self.rolls], "table": self.table,
                "notes": list(self.notes)}


def on_table(known: Container[str], *ids: str) -> None:
    """`UnknownBaseError` for the first of ``ids`` the board does not hold."""
    for i in ids:
        if i not in known:
            raise UnknownBaseError(f"no base {i!r} on the table now")


def refuse_shot(actor: str, target: str, reasons: Sequence[str] | None, verb: str = "fire at"
                ) -> CampoInputError:
    """The error for a shot the verdict does not allow, with its reasons."""
    why = "; ".join(reasons) if reasons else "not in its arc of fire or range"
    return CampoInputError(f"{actor} cannot {verb} {target}: {why}", key="target")


def check_dice(rolls: Sequence[Roll], dice: Sequence[Sequence[int]]) -> Dice:
    """The faces as plain lists, each group the right size and each face on its die."""
    if not isinstance(dice, Sequence) or isinstance(dice, str) or len(dice) != len(rolls):
        raise CampoInputError(f"give {len(rolls)} group(s) of dice "
                              f"({', '.join(r.label for r in rolls)})", key="dice")
    out: Dice = []
    for g, (r, faces) in enumerate(zip(rolls, dice)):
        if not isinstance(faces, Sequence) or isinstance(faces, str) or len(faces) != r.count:
            raise CampoInputError(f"{r.label}: give {r.count} die faces", key=f"dice[{g}]")
        for k, face in enumerate(faces):
            if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= r.sides:
                raise CampoInputError(f"a d{r.sides} shows 1 to {r.sides} (got {face!r})",
                                      key=f"dice[{g}][{k}]")
        out.append([int(f) for f in faces])
    return out


def roll(rolls: Sequence[Roll], rng: random.Random) -> tuple[Dice, Dice]:
    """Campo's roll: (the faces first thrown, the faces after re-rolling 1s where allowed)."""
    first: Dice = [[rng.randint(1, r.sides) for _ in range(r.count)] for r in rolls]
    final = [[rng.randint(1, r.sides) if r.reroll_ones and f == 1 else f for f in faces]
             for r, faces in zip(rolls, first)]
    return first, final


def fall_back(x_mm: float, y_mm: float, heading_deg: float, distance_mm: float, text: str
              ) -> Ghost:
    """The pose of a base moved straight back (away from its front) by ``distance_mm``, facing
    as before.

    >>> g = fall_back(100.0, 100.0, 90.0, 75.0, "falls back 3\\"")
    >>> round(g.x_mm, 6), g.y_mm, g.heading_deg
    (100.0, 25.0, 90.0)
    """
    a = math.radians(heading_deg)
    return Ghost(x_mm - distance_mm * math.cos(a), y_mm - distance_mm * math.sin(a),
                 heading_deg, text)
