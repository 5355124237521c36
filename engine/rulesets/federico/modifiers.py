"""A modifier as an umpire reads it out, and the odds of one modified D6 against a table.

Every Federico roll is one D6 plus the sum of its modifiers (Federico "Modificatori", "Mischie").

>>> round(probability(lambda r: r <= 2, -1), 4)   # 1D6 - 1 scores 2 or less: 1, 2, 3
0.5
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Modifier:
    """One applicable modifier: what, how much, and where the rule is."""

    label: str
    delta: int
    cites: str

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "delta": self.delta, "cites": self.cites}


def total(mods: Sequence[Modifier]) -> int:
    return sum(m.delta for m in mods)


def probability(event: Callable[[int], bool], modifier: int) -> float:
    """Chance that 1D6 + ``modifier`` satisfies ``event``."""
    return sum(1 for face in range(1, 7) if event(face + modifier)) / 6.0


def rounded(odds: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 4) for k, v in odds.items()}
