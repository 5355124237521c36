"""ISD §11 Division/Corps morale test and ISD §12 army morale, by the reading of ISD A42/A43."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from campo.engine.rulesets.italia.settings import ItaliaSettings

MoraleStatus = Literal["fresh", "shaken", "routed", "off_table"]

MORALE_DIE_ADJUSTMENT: dict[int, int] = {1: -1, 2: -1, 3: 0, 4: 0, 5: +1, 6: +1}
"""ISD §11: «1d6: 1 o 2 = - 1; 5 o 6 = + 1» (3 or 4: no change)."""

ARMY_MORALE_PER_FORMATION = 3
"""ISD §12: Corps/Divisions in the army x 3 = the army's critical morale value."""


@dataclass(frozen=True)
class MoraleUnit:
    """One unit of the formation: its base value (``troops.morale_factor``) and its state."""

    value: int
    status: MoraleStatus = "fresh"


@dataclass(frozen=True)
class MoraleTest:
    """The arithmetic of one test, so an umpire can check it."""

    morale_value: int
    losses_total: float
    die: int
    adjustment: int
    total: float
    failed: bool
    cites: str = "ISD §11, ISD A42"


def morale_value(units: Iterable[MoraleUnit]) -> int:
    """ISD §11: the sum of the combat factors of the formation's units (artillery 1)."""
    return sum(u.value for u in units)


def _weight(u: MoraleUnit, s: ItaliaSettings) -> float:
    if u.status == "shaken":
        return float(u.value)
    if u.status == "routed":
        return 2.0 * u.value
    if u.status == "off_table":
        return u.value / 2.0 if s.a43_off_table_value == "half" else float(u.value)
    return 0.0


def morale_test(
    units: Iterable[MoraleUnit], die: int, settings: ItaliaSettings | None = None
) -> MoraleTest:
    """ISD §11 test of a Division or Corps, read by ISD A42 (``losses_sum``): total = base values
    of shaken and off-table units (off-table at half, ISD A43) + double values of routed units +
    the die adjustment; the formation fails («decimata») if total >= Morale Value.

    The ``value_plus_die`` alternative reads «a questo totale si aggiunge» literally: the same
    weighted sum over *all* units (fresh at base value) plus the adjustment, against the
    starting Morale Value.

    >>> us = [MoraleUnit(2, "routed"), MoraleUnit(2, "shaken"), MoraleUnit(3), MoraleUnit(1)]
    >>> t = morale_test(us, die=5)
    >>> (t.morale_value, t.losses_total, t.total, t.failed)
    (8, 6.0, 7.0, False)
    >>> morale_test(us + [MoraleUnit(2, "routed")], die=6).failed
    True
    """
    if not 1 <= die <= 6:
        raise ValueError(f"a d6 is 1..6, got {die}")
    s = settings or ItaliaSettings()
    units = list(units)
    value = morale_value(units)
    if s.a42_morale_test == "losses_sum":
        losses = sum(_weight(u, s) for u in units)
    else:
        losses = sum(_weight(u, s) if u.status != "fresh" else float(u.value) for u in units)
    adj = MORALE_DIE_ADJUSTMENT[die]
    total = losses + adj
    return MoraleTest(value, losses, die, adj, total, total >= value)


def army_morale_start(formations: int) -> int:
    """ISD §12: number of Corps/Divisions x 3."""
    return formations * ARMY_MORALE_PER_FORMATION


def army_morale_after_failure(current: int, d6: int) -> int:
    """ISD §12: each failed formation test takes 1d6 off army morale; at 0 the army routs."""
    if not 1 <= d6 <= 6:
        raise ValueError(f"a d6 is 1..6, got {d6}")
    return max(0, current - d6)


def army_routed(current: int) -> bool:
    """ISD §12: «Quando il valore raggiunge 0, l'armata è in rotta e sconfitta»."""
    return current <= 0
