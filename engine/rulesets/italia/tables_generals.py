"""ISD §10 risks to generals and ISD §3 initiative, as data and small lookups.

The 2d6 modifiers for a particular general are in ``modifiers_other.py`` (``general_risk_modifiers``).
"""

from __future__ import annotations

from campo.engine.rulesets.italia.troops import INITIATIVE_POINTS, GeneralQuality

GENERAL_HIT_ON_OR_BELOW = 5
"""ISD §10: 2d6 + modifiers of «5 o meno»: the general is hit and leaves the field."""

REPLACEMENT_MIN_D6: dict[int, int] = {1: 5, 2: 4, 3: 3}
"""ISD §10: replacement arrives on 5–6 at the 1st test, 4–6 at the 2nd, 3–6 at the 3rd."""

REPLACEMENT_LATER_MIN_D6 = 2
"""ISD §10: «e poi di seguito anche con 2, ma con 1 continua a non entrare»."""

REPLACEMENT_QUALITY_VALUE = 0
"""ISD §10: «Il nuovo generale è sempre considerato scadente (+ 0)»."""

CAPTURE_ON_OR_BELOW = 1
"""ISD §10: a general contacted rolls 1d6; «1 o meno» is captured, else moves up to 3" away."""

CAPTURE_MODIFIER: dict[str, int] = {"heavy": -1, "line": -1, "light": -2}
"""ISD §10: −1 if the enemy is heavy or line cavalry, −2 if light cavalry."""


def general_hit(total_2d6: int) -> bool:
    """ISD §10: hit on a modified 2d6 of 5 or less.

    >>> general_hit(5), general_hit(6)
    (True, False)
    """
    return total_2d6 <= GENERAL_HIT_ON_OR_BELOW


def replacement_arrives(attempt: int, d6: int) -> bool:
    """ISD §10: does the replacement arrive at this attempt (1 = first test)?

    >>> [replacement_arrives(1, d) for d in (4, 5)], replacement_arrives(2, 4), replacement_arrives(3, 3)
    ([False, True], True, True)
    >>> replacement_arrives(4, 2), replacement_arrives(9, 1)
    (True, False)
    """
    if attempt < 1:
        raise ValueError(f"attempts count from 1, got {attempt}")
    if not 1 <= d6 <= 6:
        raise ValueError(f"a d6 is 1..6, got {d6}")
    return d6 >= REPLACEMENT_MIN_D6.get(attempt, REPLACEMENT_LATER_MIN_D6)


def general_captured(d6: int, enemy_cavalry_class: str | None = None) -> bool:
    """ISD §10: a general whose base is contacted is captured on 1d6 (−1 heavy/line cavalry,
    −2 light cavalry) of 1 or less.

    >>> general_captured(1), general_captured(2), general_captured(2, "line"), general_captured(3, "light")
    (True, False, True, True)
    """
    if not 1 <= d6 <= 6:
        raise ValueError(f"a d6 is 1..6, got {d6}")
    return d6 + CAPTURE_MODIFIER.get(enemy_cavalry_class or "", 0) <= CAPTURE_ON_OR_BELOW


def initiative_total(two_d6: int, general_qualities: list[str]) -> int:
    """ISD §3: first-turn initiative = 2d6 + points of one's generals (2 / 1 / 0)."""
    return two_d6 + sum(INITIATIVE_POINTS[GeneralQuality(q)] for q in general_qualities)
