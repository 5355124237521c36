"""ISD §9 melee: charge constants, the results table, pursuit test and distances, as data.

Score modifiers for a given situation are in ``modifiers_melee.py`` (``melee_modifiers``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

CHARGE_ARC_HALF_DEG = 30.0
"""ISD §9: target «entro 30° dal proprio fronte» (geometry: ISD A27)."""

ENEMY_ZONE_IN = 2.0
"""ISD §9: no move brings a unit closer than 2" to an enemy unless charging it (ISD A29)."""

CHARGE_ARC_REACH_IN = 40.0
"""How far the charge arc is drawn: beyond any charge's reach (18" in road column + 2")."""

FLANK_COVER_AREAS = frozenset({"wood", "town", "village", "farm", "fortification", "orchard"})
"""ISD §1: a unit wholly in these areas cannot be attacked in the flank (it is in cover)."""

LINEAR_OBSTACLES = frozenset({"hedge", "wall", "stone_wall", "low_wall", "parapet",
                              "fortification_line"})
"""ISD §1, §9: linear terrain a unit defends («Truppe che difendono ostacoli lineari»); one
along a unit's front denies a flank attack on it."""

SOFT_GROUND = frozenset({"marsh", "rice", "wood"})
"""ISD §9 «Cavalleria su terreno molle (paludi o risaie) o in boschi» (−2)."""

GARRISONS = frozenset({"town", "village"})
"""ISD §9: the built-up areas a garrison (``traits.garrison``) holds against cavalry."""

SUPPORT_ENEMY_WITHIN_FRONT_IN = 2.0
"""ISD §1: an enemy within 2" of the front does not remove support."""

ARTILLERY_SUPPORT_RANGE_IN = 3.0
"""ISD §1: a battery supports if the enemy in the melee is in its arc at 3" or less, not in contact."""

MAX_SUPPORTS = 2
"""ISD §9 [*]: at most two supporting units count (artillery support is not limited)."""

MELEE_FALL_BACK_IN = 3.0
"""ISD §9: the loser «muove 3" allontanandosi perpendicolarmente alla linea del proprio retro»."""

LOSER_EXTRA_FALL_BACK_IN = 3.0
"""ISD §9 "Dopo il combattimento": the loser may fall back a further 3" at most."""

WINNER_FALL_BACK_IN: dict[str, float] = {"infantry": 3.0, "cavalry": 6.0}
"""ISD §9 "Dopo il combattimento": the winner may fall back in a straight line up to 3" / 6"."""

PURSUIT_DISTANCE_IN: dict[str, float] = {"infantry": 3.0, "cavalry": 6.0}
"""ISD §9: infantry pursues 3", cavalry 6"; artillery never pursues."""

PURSUIT_NEW_CONTACT_ARC_HALF_DEG = 30.0
"""ISD §9: pursuers may contact new enemies «entro 30° sul suo percorso» (ISD A40)."""

PURSUIT_SUCCESS_ON = 5
"""ISD §9: pursuit test 1d6, «un risultato di 5 o 6» after modifiers pursues."""

HORSE_ARTILLERY_EVADE_IN = 3.0
"""ISD §9: horse artillery attacked may limber and move away up to 3" at no cost."""

LIMBERED_ARTILLERY_FLEE_IN: dict[str, float] = {"horse": 6.0, "foot": 3.0}
"""ISD §9: artillery attacked while limbered flees towards its lines 6" (horse) / 3" (foot)."""

ROUT_PASSAGE_GAP_IN = 2.0
"""ISD §1: a router blocked by enemies is captured unless a gap of at least 2" lets it pass (A39)."""

GENERAL_ESCAPE_IN = 3.0
"""ISD §10: a general contacted and not captured moves up to 3" away from the enemy."""


class Pursuit(str, Enum):
    """What the winner does after a melee result (ISD §9 "Risultati del combattimento")."""

    NONE = "none"
    TEST = "test"  # «il vincitore testa per inseguire»
    MUST = "must"  # «il vincitore deve inseguire»


@dataclass(frozen=True)
class MeleeResult:
    """A row of ISD §9 "Risultati del combattimento", read by score difference."""

    name: str
    draw: bool
    loser_losses: int
    each_side_losses: int
    loser_falls_back_in: float
    loser_disordered: bool
    supporting_artillery: str  # "stays", "falls_back_limbered", "captured"
    pursuit: Pursuit
    text: str
    cites: str = "ISD §9"


MELEE_RESULTS: tuple[tuple[int, int | None, MeleeResult], ...] = (
    (0, 1, MeleeResult(
        "draw", True, 0, 1, 0.0, False, "stays", Pursuit.NONE,
        "Parità: both stay in place and take 1 loss; fight again without the attack bonus")),
    (2, 3, MeleeResult(
        "falls_back_1", False, 1, 0, MELEE_FALL_BACK_IN, True, "falls_back_limbered", Pursuit.NONE,
        'Loser falls back 3" in disorder taking 1 loss (supporting artillery falls back limbered)')),
    (4, 5, MeleeResult(
        "falls_back_2", False, 2, 0, MELEE_FALL_BACK_IN, True, "captured", Pursuit.TEST,
        'Loser falls back 3" in disorder taking 2 losses (supporting artillery captured); '
        "winner tests to pursue")),
    (6, None, MeleeResult(
        "falls_back_3", False, 3, 0, MELEE_FALL_BACK_IN, True, "captured", Pursuit.MUST,
        'Loser falls back 3" in disorder taking 3 losses (supporting artillery captured); '
        "winner must pursue")),
)
"""ISD §9: difference 0–1, 2–3, 4–5, 6 or more."""


def melee_result(difference: int) -> MeleeResult:
    """The result for a score difference, higher minus lower (ISD §9, ISD A41).

    >>> melee_result(1).name, melee_result(3).loser_losses, melee_result(5).pursuit.value, melee_result(9).loser_losses
    ('draw', 1, 'test', 3)
    """
    if difference < 0:
        raise ValueError(f"difference is higher minus lower, got {difference}")
    for low, high, result in MELEE_RESULTS:
        if difference >= low and (high is None or difference <= high):
            return result
    raise AssertionError("unreachable: the table covers every difference")


def melee_rows() -> list[tuple[str, MeleeResult]]:
    """The §9 results table as printed: each row's span of the difference ("0–1" ... "6+") and
    its result."""
    return [(f"{low}–{high}" if high is not None else f"{low}+", r)
            for low, high, r in MELEE_RESULTS]


@dataclass(frozen=True)
class MeleeOutcome:
    """Both sides' scores read on the table: who lost, and the row."""

    winner: str | None  # "a", "b" or None on a draw
    difference: int
    result: MeleeResult


def resolve_melee(score_a: int, score_b: int) -> MeleeOutcome:
    """Compare the two sides' final scores (1d6 + factors + modifiers; ISD §9, ISD A41)."""
    diff = abs(score_a - score_b)
    result = melee_result(diff)
    winner = None if result.draw else ("a" if score_a > score_b else "b")
    return MeleeOutcome(winner, diff, result)


def pursuit_succeeds(d6: int, modifier_total: int = 0) -> bool:
    """ISD §9: 1d6 + modifiers of 5 or more pursues.

    >>> pursuit_succeeds(5), pursuit_succeeds(6, -2), pursuit_succeeds(4, +1), pursuit_succeeds(3)
    (True, False, True, False)
    """
    if not 1 <= d6 <= 6:
        raise ValueError(f"a d6 is 1..6, got {d6}")
    return d6 + modifier_total >= PURSUIT_SUCCESS_ON


def may_pursue(pursuer_arm: str, enemy_arm: str) -> bool:
    """ISD §9: artillery never pursues; infantry never pursues cavalry."""
    if pursuer_arm == "artillery":
        return False
    return not (pursuer_arm == "infantry" and enemy_arm == "cavalry")
