"""How far a base may move and wheel this turn (ATT 5.B, 5.G, 5.I; readings AT15, AT16).

The normal move is the troop type's rate (`units.Unit.move_cm`). Inside a wood, marsh or
difficult terrain, and on the move after a ford, a 1D6 is rolled and subtracted (ATT 5.B): Campo
cannot know the roll, so the umpire records it in the scenario (``armies.<side>.move_rolls``,
base id -> 1..6) and the *available* move is the normal move less the roll (never below 0).

Wheels (ATT 5.I, AT15): the wheel distance is the arc travelled by the moving front corner,
frontage x angle in radians, at most half the move. ATT 5.G «Anche se il movimento totale viene
ridotto, l'unità può sempre effettuare la conversione della distanza massima»: with the default
``at15_wheel_limit = half_normal_move`` the limit stays half the NORMAL move even when the roll
cuts the move, and the wheel may then use more than the move left (the straight part is what is
lost); ``half_available_move`` halves the reduced move instead. Wheels are forward only: the base
pivots on the front corner toward which it turns, so the other front corner moves ahead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.morale import armies
from campo.engine.rulesets.attila.tables import MAX_WHEEL_DEG, MM_PER_CM, WHEEL_SHARE

WHEEL_CITES = "ATT 5.G, 5.I, AT15"


@dataclass(frozen=True)
class MoveBudget:
    """One base's move this turn, in cm."""

    normal_cm: float
    available_cm: float          # normal less the recorded 1D6 (ATT 5.B)
    roll: int | None             # the 1D6 recorded for this base, if any
    wheel_limit_cm: float        # the most the moving front corner may travel wheeling (AT15)
    wheel_of: str                # "normal" or "available": which move was halved

    def wheel_limit_deg(self, frontage_mm: float) -> float:
        """The widest wheel for this frontage (the arc over the frontage, in degrees, at most
        90: a wheel turns the front at most square to where it faced)."""
        if frontage_mm <= 0:
            return 0.0
        return min(MAX_WHEEL_DEG, math.degrees(self.wheel_limit_cm * MM_PER_CM / frontage_mm))

    def wheel_phrase(self) -> str:
        """'half its normal move of 10 cm' (what the limit is) for reasons and notes."""
        move = self.normal_cm if self.wheel_of == "normal" else self.available_cm
        return f"half its {self.wheel_of} move of {move:g} cm"

    def to_dict(self, frontage_mm: float) -> dict[str, Any]:
        d: dict[str, Any] = {"normal_cm": round(self.normal_cm, 2),
                             "available_cm": round(self.available_cm, 2),
                             "wheel_limit_cm": round(self.wheel_limit_cm, 2),
                             "wheel_limit_deg": round(self.wheel_limit_deg(frontage_mm), 1),
                             "wheel_of": f"half the {self.wheel_of} move ({WHEEL_CITES})"}
        if self.roll is not None:
            d["roll"] = self.roll
        return d


def move_budget(board: Board, base_id: str) -> MoveBudget:
    """The base's normal and available move and its wheel limit (once per state)."""
    known: dict[str, MoveBudget] = board.state.cached("attila.budgets", dict)
    found = known.get(base_id)
    if found is None:
        found = known[base_id] = _budget(board, base_id)
    return found


def _budget(board: Board, base_id: str) -> MoveBudget:
    u, s = board.units[base_id], board.settings
    normal = u.move_cm(s)
    # ATT 5.B «Basette di Fanteria e Generali che entrano in Boschi ... lanciare 1 D6 e
    # sottrarre il risultato»: Generals roll too (a Camp never moves, ATT 8.B)
    roll = armies(board)[u.side].move_rolls.get(base_id) if not u.is_camp else None
    available = max(0.0, normal - roll * s.at18_distance_scale) if roll is not None else normal
    of = "available" if s.at15_wheel_limit == "half_available_move" else "normal"
    limit = (available if of == "available" else normal) * WHEEL_SHARE
    return MoveBudget(normal, available, roll, limit, of)
