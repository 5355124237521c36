"""The Modifier value shared by every ISD modifier function (see ``modifiers.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

Cover = Literal["none", "soft", "hard"]
"""Cover class decided by geometry: soft / hard cover (ISD §6, §7 rows; melee value ISD A35)."""


@dataclass(frozen=True)
class Modifier:
    """One applicable modifier, as an umpire would say it."""

    label: str
    cites: str
    score_delta: int = 0
    dice_delta: int = 0
    dice_multiplier: int = 1
    reroll_ones: bool = False
    players_choice: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for the analysis output and the overlay)."""
        return asdict(self)


def score_total(mods: Sequence[Modifier]) -> int:
    """Sum of the fixed score modifiers (players' choice ± excluded)."""
    return sum(m.score_delta for m in mods if not m.players_choice)
