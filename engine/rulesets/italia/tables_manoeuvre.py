"""ISD ManTab (the Manoeuvre Table) and the ISD §8 artillery limbering test, as data.

Modifiers for a given unit and situation are in ``modifiers_other.py`` (``manoeuvre_modifiers``,
``limbering_modifiers``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


NEAR_INFANTRY_IN = 6.0
"""ISD ManTab: «a 6" da fanteria» nemica, -1 (nearest points, ISD A25)."""

NEAR_ARTILLERY_IN = 3.0
"""ISD ManTab: «a 3" dall'artiglieria» nemica, -1 (ISD A25)."""


class ManoeuvreOutcome(str, Enum):
    """Rows of the Manoeuvre Table (ISD ManTab)."""

    # «Unità Disordinata»
    ROUT = "rout"  # fino a 2 «Rotta»
    DISORDER_FULL = "disorder_full"  # 3, 4 «Disordine»: retires a whole move, 2 losses
    DISORDER_HALF = "disorder_half"  # 5, 6 «Disordine»: falls back ½ move, 1 loss
    UNCERTAIN = "uncertain"  # 7, 8 «Incerto»
    RALLIED = "rallied"  # 9, 10 «Riordinato»
    RALLIED_WITH_ELAN = "rallied_with_elan"  # + di 10 «Riordinato con slancio»
    # «Unità Ordinata»
    RETIRED = "retired"  # fino a 2 «Ritirato»
    MOVED_AWAY = "moved_away"  # 3, 4 «Allontanato»
    HALTED = "halted"  # 5, 6 «Fermo»
    SLOWED = "slowed"  # 7, 8 «Rallentato»
    WELL_LED = "well_led"  # + di 8 «Ben Guidato»


@dataclass(frozen=True)
class ManoeuvreResult:
    """One row of ISD ManTab.

    ``forward_fraction``: the most of its move the unit may use as it wishes (1 = full move,
    0.5 = half). ``backward_fraction``: a move it must (``forced``) or may make straight back
    (ISD A26). ``recovers_order``: True if it is no longer disordered (for UNCERTAIN only if it
    stays still). ``removed``: routed off the table.
    """

    outcome: ManoeuvreOutcome
    italian: str
    forward_fraction: float
    backward_fraction: float
    forced_back: bool
    losses: int
    recovers_order: bool
    becomes_disordered: bool
    removed: bool
    text: str
    cites: str = "ISD ManTab"


_R = ManoeuvreResult
DISORDERED_ROWS: tuple[tuple[int, ManoeuvreResult], ...] = (
    (2, _R(ManoeuvreOutcome.ROUT, "Rotta", 0.0, 1.0, True, 0, False, True, True,
           "falls back a whole move, disorders friends it passes through, then is removed")),
    (4, _R(ManoeuvreOutcome.DISORDER_FULL, "Disordine", 0.0, 1.0, True, 2, False, True, False,
           "retires in disorder a whole move and takes 2 losses")),
    (6, _R(ManoeuvreOutcome.DISORDER_HALF, "Disordine", 0.0, 0.5, True, 1, False, True, False,
           "falls back in disorder ½ move and takes 1 loss")),
    (8, _R(ManoeuvreOutcome.UNCERTAIN, "Incerto", 0.0, 0.5, False, 0, True, False, False,
           "recovers order if it stays still; may fall back ½ move but then stays disordered")),
    (10, _R(ManoeuvreOutcome.RALLIED, "Riordinato", 0.5, 0.0, False, 0, True, False, False,
            "recovers from disorder, may move ½ move")),
    (99, _R(ManoeuvreOutcome.RALLIED_WITH_ELAN, "Riordinato con slancio", 1.0, 0.0, False, 0, True,
            False, False, "recovers from disorder and moves normally")),
)
"""ISD ManTab, "Unità Disordinata" column: up to 2, 3–4, 5–6, 7–8, 9–10, more than 10."""

ORDERED_ROWS: tuple[tuple[int, ManoeuvreResult], ...] = (
    (2, _R(ManoeuvreOutcome.RETIRED, "Ritirato", 0.0, 1.0, True, 0, False, False, False,
           "retires a whole move")),
    (4, _R(ManoeuvreOutcome.MOVED_AWAY, "Allontanato", 0.0, 0.5, True, 0, False, False, False,
           "moves away at least ½ move")),
    (6, _R(ManoeuvreOutcome.HALTED, "Fermo", 0.0, 0.0, False, 0, False, False, False,
           "does not move")),
    (8, _R(ManoeuvreOutcome.SLOWED, "Rallentato", 0.5, 0.0, False, 0, False, False, False,
           "moves up to ½ move")),
    (99, _R(ManoeuvreOutcome.WELL_LED, "Ben Guidato", 1.0, 0.0, False, 0, False, False, False,
            "moves normally")),
)
"""ISD ManTab, "Unità Ordinata" column: up to 2, 3–4, 5–6, 7–8, more than 8."""


def manoeuvre_result(total: int, *, disordered: bool = False) -> ManoeuvreResult:
    """Read the Manoeuvre Table for a modified 2d6 total (ISD ManTab).

    >>> manoeuvre_result(9).outcome.value, manoeuvre_result(8).forward_fraction
    ('well_led', 0.5)
    >>> manoeuvre_result(10, disordered=True).outcome.value, manoeuvre_result(11, disordered=True).forward_fraction
    ('rallied', 1.0)
    >>> manoeuvre_result(-3, disordered=True).removed
    True
    """
    rows = DISORDERED_ROWS if disordered else ORDERED_ROWS
    for upper, result in rows:
        if total <= upper:
            return result
    return rows[-1][1]


def manoeuvre_rows(disordered: bool) -> list[tuple[str, ManoeuvreResult]]:
    """A column of the Manoeuvre Table as printed: each row's 2d6 span ("up to 2", "3–4" ...
    "9+") and its result."""
    rows, low = [], None
    for upper, r in DISORDERED_ROWS if disordered else ORDERED_ROWS:
        rows.append((f"up to {upper}" if low is None
                     else f"{low}–{upper}" if upper < 99 else f"{low}+", r))
        low = upper + 1
    return rows


def manoeuvre_table(disordered: bool, title: str) -> dict[str, Any]:
    """The column as a table ``{"title", "cites", "columns", "rows"}``: the rules panel's, and
    the one the Manoeuvre test's dice are read on."""
    return {"title": title, "cites": "ISD ManTab", "columns": ["2d6 total", "result", "effect"],
            "rows": [[label, r.italian, r.text] for label, r in manoeuvre_rows(disordered)]}


MARCH_COLUMN_DEPLOY_ON = 9
"""ISD §1: from march column to combat formation needs 9 or more, then half a move."""

MARCH_COLUMN_DEPLOY_MOVE_FRACTION = 0.5
"""ISD §1: «può muovere mezza mossa» after deploying from march column."""


def deploys_from_march_column(total: int) -> bool:
    """ISD §1: a Manoeuvre total of 9 or more lets a march column deploy (then ½ move)."""
    return total >= MARCH_COLUMN_DEPLOY_ON


def allows_about_face(result: ManoeuvreResult, *, mode: str = "any_move_result") -> bool:
    """ISD §8 about face, read by ISD A50: any result that lets the unit move forward
    (ordered: Slowed or better; disordered: Rallied or better), or only a full-move result."""
    if mode == "full_move_result":
        return result.forward_fraction >= 1.0
    return result.forward_fraction > 0


# --- Artillery limbering test (ISD §8) ----------------------------------------------------------

LIMBER_SUCCESS_ON = 7
"""ISD §8: 2d6 «fino a 6» cannot limber; «7 o più» limbers up and moves freely."""


def limbering_succeeds(total: int) -> bool:
    """ISD §8: a battery in battery limbers up (to move) on a modified 2d6 of 7 or more.

    >>> limbering_succeeds(6), limbering_succeeds(7)
    (False, True)
    """
    return total >= LIMBER_SUCCESS_ON
