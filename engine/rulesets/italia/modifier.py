"""The Modifier value shared by every ISD modifier function: pure functions on FACTS
(``modifiers_fire``, ``modifiers_melee``, ``modifiers_other``) that say which ISD modifiers apply
to one shot, one melee, one Manoeuvre test.

The geometry engine decides the facts (range, flank fire, cover class, contact aspect, who is
within 6" ...) and the roster gives the traits; those functions turn them into the list of
modifiers an umpire would read out, each with its citation, e.g. ``flank fire: double dice``
(ISD §1, §7). Nothing there measures anything. Every Facts field is documented where declared.

Conventions of :class:`Modifier`: ``score_delta`` adds to the roll (2d6 for bombardment and
manoeuvre, 1d6 for melee and pursuit, *each die* for musketry); ``dice_delta`` and
``dice_multiplier`` change the number of musketry dice; ``players_choice`` marks a ± the player
chooses (pursuit), whose magnitude is ``score_delta``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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
        """JSON-ready form (for the analysis output and the overlay): every field, in order
        (`dataclasses.asdict` without its deep copy: the fields are plain values)."""
        return {"label": self.label, "cites": self.cites, "score_delta": self.score_delta,
                "dice_delta": self.dice_delta, "dice_multiplier": self.dice_multiplier,
                "reroll_ones": self.reroll_ones, "players_choice": self.players_choice}


def score_total(mods: Sequence[Modifier]) -> int:
    """Sum of the fixed score modifiers (players' choice ± excluded)."""
    return sum(m.score_delta for m in mods if not m.players_choice)
