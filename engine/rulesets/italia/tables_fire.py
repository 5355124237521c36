"""ISD §6 bombardment and ISD §7 musketry: arcs, ranges, range bands, cover and result tables as
data, with the arithmetic of reading them: every fire number of the rulebook lives here, read by
the verdicts (`fire.py`), the modifiers (`modifiers_fire.py`) and the quick reference.

Modifiers that depend on the situation (cover, flank, formation ...) are worked out in
``modifiers_fire.py``; this module only holds the tables and the arithmetic of reading them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from campo.engine.results import Band
from campo.engine.rulesets.italia.settings import ItaliaSettings

ARTILLERY_ARC_HALF_DEG = 30.0
"""ISD §6: «arco di 30° su ogni lato della batteria sparante» (geometry: ISD A4)."""

MUSKETRY_ARC_HALF_DEG = 30.0
"""ISD §7: «arco di fuoco di 30° su ogni lato»."""

LIGHT_INFANTRY_ARC_HALF_DEG = 45.0
"""ISD §7: «le Unità classificate Fanterie Leggere hanno un arco di fuoco di 45°»."""

FIRE_OVER_FRIENDS_CLEARANCE_IN = 2.0
"""ISD §6: artillery (and rockets) fire over friends at least 2" from the battery."""

LOS_MAX_DEPTH_IN_WOOD_OR_TOWN_IN = 2.0
"""ISD §6: a sight line may not go more than 2" (5 cm) inside a wood or a town (ISD A15)."""

SIGHT_BLOCKING_LINES = frozenset({"tree_row", "crest"})
"""ISD §6: «la linea di vista non può oltrepassare la cresta» of a hill, nor a «filare di alberi»."""

SIGHT_DEEP_AREAS = frozenset({"wood", "town", "village"})
"""ISD §6: a sight line may run at most 2" inside a «bosco o ... città» (ISD A15)."""

MIN_MUSKETRY_DICE = 1
"""ISD §7: «Quando si fa fuoco si spara sempre con almeno 1 d6»."""

MUSKETRY_HIT_ON = 5
"""ISD §7: «Ogni 5 o 6 costituisce un colpo a segno»."""

ARTILLERY_COVER = {"low_wall": "soft", "hedge": "soft", "cultivated": "soft", "rough": "soft",
                   "rice": "soft", "village": "soft", "farm": "soft", "tree_row": "soft",
                   "stone_wall": "hard", "wall": "hard", "fortification": "hard",
                   "fortification_line": "hard", "town": "hard"}
"""ISD §6 bombardment modifier rows: the cover each terrain kind gives against guns."""

MUSKETRY_COVER = {"wood": "soft", "parapet": "soft", "tree_lined_road": "soft", "hedge": "soft",
                  "low_wall": "soft", "orchard": "soft", "village": "soft", "farm": "soft",
                  "wall": "hard", "stone_wall": "hard", "fortification": "hard",
                  "fortification_line": "hard", "town": "hard"}
"""ISD §7 musketry modifier rows (and ISD A35 melee protection): the cover of each kind."""

DIFFICULT_GROUND = frozenset({"wood", "marsh", "rice", "rough", "cultivated", "town", "village"})
"""ISD §6: a gun in battery on difficult terrain fires at -1."""


class RangeBand(str, Enum):
    """ISD §6 "Tabella della Gittata": the four artillery range bands (edges: ISD A7)."""

    UP_TO_3 = "up_to_3"  # «fino a 3"»
    OVER_3_TO_12 = "over_3_to_12"  # «oltre 3" a 12"»
    OVER_12_TO_18 = "over_12_to_18"  # «oltre 12" a 18"»
    OVER_18_TO_24 = "over_18_to_24"  # «oltre 18" a 24"»


@dataclass(frozen=True)
class BandRow:
    """One range band: up to ``upper_in`` inches (edges: ISD A7), as the analysis names it
    (``band``) and, for artillery, as the §6 table does (``table``)."""

    upper_in: float
    band: Band
    table: RangeBand | None = None


ARTILLERY_BANDS: tuple[BandRow, ...] = (
    BandRow(3.0, Band.CLOSE, RangeBand.UP_TO_3),
    BandRow(12.0, Band.SHORT, RangeBand.OVER_3_TO_12),
    BandRow(18.0, Band.MEDIUM, RangeBand.OVER_12_TO_18),
    BandRow(24.0, Band.LONG, RangeBand.OVER_18_TO_24),
)
"""ISD §6: «si allunga per 24 pollici», in four bands; nothing beyond the last."""

MUSKETRY_BANDS: tuple[BandRow, ...] = (BandRow(6.0, Band.SHORT),)
"""ISD §7: «Tutti i fucili fanno fuoco a 6 pollici di distanza»: one band, nothing beyond."""

ARTILLERY_MAX_RANGE_IN = ARTILLERY_BANDS[-1].upper_in
MUSKETRY_RANGE_IN = MUSKETRY_BANDS[-1].upper_in

EDGE_EPS_IN = 1e-6
"""A distance within this many inches of a band edge is on it (measurement rounding)."""

RANGE_MODIFIER: dict[str, dict[RangeBand, int]] = {
    "divisional": {
        RangeBand.UP_TO_3: +2,
        RangeBand.OVER_3_TO_12: +1,
        RangeBand.OVER_12_TO_18: 0,
        RangeBand.OVER_18_TO_24: -1,
    },
    "reserve": {
        RangeBand.UP_TO_3: +3,
        RangeBand.OVER_3_TO_12: +2,
        RangeBand.OVER_12_TO_18: +1,
        RangeBand.OVER_18_TO_24: 0,
    },
}
"""ISD §6 "Tabella della Gittata e Modificatori per la distanza". Rockets fire as divisional."""


def bands(artillery: bool) -> tuple[BandRow, ...]:
    """The range bands of guns (ISD §6) or of muskets (ISD §7)."""
    return ARTILLERY_BANDS if artillery else MUSKETRY_BANDS


def max_range_in(artillery: bool) -> float:
    """The maximum range: the last band's edge (24" guns, 6" muskets)."""
    return bands(artillery)[-1].upper_in


def inclusive_edges(settings: ItaliaSettings | None = None) -> bool:
    """ISD A7: whether a distance exactly on a band's upper edge is in that band."""
    return (settings or ItaliaSettings()).a7_band_edges == "upper_inclusive"


def within(distance_in: float, upper_in: float, settings: ItaliaSettings | None = None) -> bool:
    """Whether a distance lies within a band's upper edge (ISD A7)."""
    if inclusive_edges(settings):
        return distance_in <= upper_in + EDGE_EPS_IN
    return distance_in < upper_in - EDGE_EPS_IN


def band_indices(distance_in: np.ndarray, artillery: np.ndarray,
                 settings: ItaliaSettings | None = None) -> np.ndarray:
    """For many distances, the position of the band each falls in (`bands` of its weapon),
    -1 beyond the maximum range: the one reading of the range table, so "in range" and "which
    band" cannot disagree."""
    d = np.asarray(distance_in, dtype=float)
    gun = np.broadcast_to(np.asarray(artillery, dtype=bool), d.shape)
    out = np.full(d.shape, -1, dtype=np.int64)
    for weapon in (True, False):
        mine = gun == weapon
        if not mine.any():                  # (no shot of this weapon: its table unread)
            continue
        for k, row in reversed(list(enumerate(bands(weapon)))):
            out[mine & within(d, row.upper_in, settings)] = k
    return out


def band_row(distance_in: float, artillery: bool,
             settings: ItaliaSettings | None = None) -> BandRow | None:
    """The band one distance falls in, or None beyond the maximum range (`band_indices`)."""
    k = int(band_indices(np.array([distance_in]), np.array([artillery]), settings)[0])
    return None if k < 0 else bands(artillery)[k]


def artillery_band(distance_in: float, settings: ItaliaSettings | None = None) -> RangeBand | None:
    """The range band of a distance in inches, or None beyond 24" (ISD §6, edges ISD A7).

    >>> artillery_band(3.0).value, artillery_band(3.01).value, artillery_band(24.0).value
    ('up_to_3', 'over_3_to_12', 'over_18_to_24')
    >>> artillery_band(24.5) is None
    True
    """
    if distance_in < 0:
        raise ValueError(f"distance must be >= 0, got {distance_in}")
    row = band_row(distance_in, True, settings)
    return None if row is None else row.table


def range_modifier(band: RangeBand, battery: str = "divisional", *, rockets: bool = False) -> int:
    """ISD §6 range modifier; rocket batteries count as divisional artillery."""
    return RANGE_MODIFIER["divisional" if rockets else battery][band]


# --- Bombardment results (ISD §6) ---------------------------------------------------------------


class BombardmentOutcome(str, Enum):
    """Rows of the ISD §6 artillery fire table."""

    REDUCED_AMMUNITION = "reduced_ammunition"  # 2: «La batteria va in munizionamento ridotto»
    NO_EFFECT = "no_effect"  # 3–7
    DISORDER = "disorder"  # 8–10: «Il bersaglio si disordina»
    ONE_LOSS = "one_loss"  # 11–12: «1 perdita, si disordina e arretra 3"»
    TWO_LOSSES = "two_losses"  # over 12: «2 perdite, si disordina e arretra 3"»


@dataclass(frozen=True)
class BombardmentResult:
    """What one gun's 2d6 does (ISD §6)."""

    outcome: BombardmentOutcome
    losses: int
    disorder: bool
    fall_back_in: float
    reduced_ammunition: bool
    total: int
    note: str
    cites: str = "ISD §6"


FALL_BACK_IN = 3.0
"""ISD §6: «arretra 3"»; artillery targets limber up and fall back (ISD A45)."""

_BOMBARD_ROWS: dict[BombardmentOutcome, tuple[int, bool, float, str]] = {
    BombardmentOutcome.REDUCED_AMMUNITION: (0, False, 0.0, "battery goes to reduced ammunition"),
    BombardmentOutcome.NO_EFFECT: (0, False, 0.0, "no effect"),
    BombardmentOutcome.DISORDER: (0, True, 0.0, "target disordered"),
    BombardmentOutcome.ONE_LOSS: (1, True, FALL_BACK_IN, 'target: 1 loss, disordered, falls back 3"'),
    BombardmentOutcome.TWO_LOSSES: (2, True, FALL_BACK_IN, 'target: 2 losses, disordered, falls back 3"'),
}


def _bombard(outcome: BombardmentOutcome, total: int, note: str = "") -> BombardmentResult:
    losses, disorder, back, text = _BOMBARD_ROWS[outcome]
    return BombardmentResult(
        outcome, losses, disorder, back, outcome is BombardmentOutcome.REDUCED_AMMUNITION, total,
        (text + ("; " + note if note else "")),
    )


BOMBARDMENT_TABLE: tuple[tuple[int | None, BombardmentOutcome], ...] = (
    (2, BombardmentOutcome.REDUCED_AMMUNITION),   # «2»
    (7, BombardmentOutcome.NO_EFFECT),            # «da 3 a 7»
    (10, BombardmentOutcome.DISORDER),            # «da 8 a 10»
    (12, BombardmentOutcome.ONE_LOSS),            # «da 11 a 12»
    (None, BombardmentOutcome.TWO_LOSSES),        # «oltre 12»
)
"""ISD §6 artillery fire table: each row up to its modified 2d6 total (None: no upper end)."""

ROCKET_DISORDER_FROM = 8
"""ISD §6 rocket table: «8 e oltre» the target is disordered (2 ammunition, 3-7 nothing)."""


def table_rows(rows: tuple[tuple[int | None, BombardmentOutcome], ...]
               ) -> list[tuple[str, BombardmentOutcome]]:
    """(label of the totals, outcome) of each row: "2", "3–7", "13+"."""
    out, low = [], None
    for upper, outcome in rows:
        if upper is None:
            out.append((f"{low}+", outcome))
        else:
            out.append((str(upper) if low is None or low == upper else f"{low}–{upper}", outcome))
            low = upper + 1
    return out


def bombardment_rows() -> list[tuple[str, BombardmentOutcome, str]]:
    """The §6 table as the page shows it: (totals, outcome, what it does)."""
    return [(label, o, _BOMBARD_ROWS[o][3]) for label, o in table_rows(BOMBARDMENT_TABLE)]


def rocket_rows() -> list[tuple[str, BombardmentOutcome, str]]:
    """The §6 rocket table (reduced ammunition, nothing, disorder) as the page shows it."""
    rows = ((BOMBARDMENT_TABLE[0][0], BombardmentOutcome.REDUCED_AMMUNITION),
            (ROCKET_DISORDER_FROM - 1, BombardmentOutcome.NO_EFFECT),
            (None, BombardmentOutcome.DISORDER))
    return [(label, o, _BOMBARD_ROWS[o][3]) for label, o in table_rows(rows)]


def bombardment_outcome_for_total(total: int) -> BombardmentOutcome:
    """Table row for a modified total, ignoring the natural-roll rules (ISD §6).

    >>> [bombardment_outcome_for_total(t).value for t in (2, 7, 8, 12, 13)]
    ['reduced_ammunition', 'no_effect', 'disorder', 'one_loss', 'two_losses']
    """
    return next(o for upper, o in BOMBARDMENT_TABLE if upper is None or total <= upper)


def bombardment_result(
    natural_2d6: int,
    modifier_total: int = 0,
    *,
    rockets: bool = False,
    settings: ItaliaSettings | None = None,
) -> BombardmentResult:
    """One gun's result from its natural 2d6 and the sum of its modifiers (ISD §6).

    Natural 12 (double 6) gives at least "1 loss, disordered, falls back 3"" whatever the
    modifiers; natural 2 (double 1) is reduced ammunition whatever the modifiers. A modified total
    of 2 or less that is not a natural 2 is "no effect" (ISD A51) unless the setting says
    otherwise. Rockets never cause losses and never make the target fall back: 8+ disorders.

    >>> bombardment_result(12, -5).outcome.value
    'one_loss'
    >>> bombardment_result(2, +6).outcome.value
    'reduced_ammunition'
    >>> bombardment_result(4, -2).outcome.value
    'no_effect'
    >>> bombardment_result(11, +2).losses, bombardment_result(11, +2, rockets=True).losses
    (2, 0)
    """
    if not 2 <= natural_2d6 <= 12:
        raise ValueError(f"natural 2d6 must be 2..12, got {natural_2d6}")
    s = settings or ItaliaSettings()
    if rockets:
        return rocket_result(natural_2d6, modifier_total, settings=s)
    total = natural_2d6 + modifier_total
    if natural_2d6 == 2:
        return _bombard(BombardmentOutcome.REDUCED_AMMUNITION, total, "natural double 1")
    outcome = bombardment_outcome_for_total(total)
    note = ""
    if outcome is BombardmentOutcome.REDUCED_AMMUNITION and s.a51_low_artillery_rolls == "natural_double_1_only":
        outcome, note = BombardmentOutcome.NO_EFFECT, "modified 2 or less is no effect (ISD A51)"
    if natural_2d6 == 12 and outcome in (BombardmentOutcome.NO_EFFECT, BombardmentOutcome.DISORDER):
        outcome, note = BombardmentOutcome.ONE_LOSS, "natural double 6"
    return _bombard(outcome, total, note)


def rocket_result(
    natural_2d6: int, modifier_total: int = 0, *, settings: ItaliaSettings | None = None
) -> BombardmentResult:
    """ISD §6 "Tabella di fuoco delle Batterie di Razzi": 2 ammo, 3–7 nothing, 8+ disorder.

    A natural 12 disorders whatever the modifiers (the §6 natural-12 rule read for the rocket
    table, whose best row is disorder).
    """
    if not 2 <= natural_2d6 <= 12:
        raise ValueError(f"natural 2d6 must be 2..12, got {natural_2d6}")
    s = settings or ItaliaSettings()
    total = natural_2d6 + modifier_total
    if natural_2d6 == 2:
        return _bombard(BombardmentOutcome.REDUCED_AMMUNITION, total, "natural double 1 (rockets)")
    if total <= 2 and s.a51_low_artillery_rolls == "modified_2_or_less":
        return _bombard(BombardmentOutcome.REDUCED_AMMUNITION, total, "rockets")
    if total >= ROCKET_DISORDER_FROM or natural_2d6 == 12:
        return _bombard(BombardmentOutcome.DISORDER, total, "rockets: no loss, no fall back")
    return _bombard(BombardmentOutcome.NO_EFFECT, total, "rockets")


# --- Musketry (ISD §7) ------------------------------------------------------------------------------


def musketry_die_hits(die: int, score_delta: int = 0) -> bool:
    """ISD §7: a die hits on 5 or 6 after the per-die modifier; a natural 6 always hits and a
    natural 1 always misses (re-roll rights aside).

    >>> [musketry_die_hits(d) for d in (1, 4, 5, 6)]
    [False, False, True, True]
    >>> musketry_die_hits(6, -1), musketry_die_hits(5, -1), musketry_die_hits(4, +1), musketry_die_hits(1, +4)
    (True, False, True, False)
    """
    if not 1 <= die <= 6:
        raise ValueError(f"a d6 is 1..6, got {die}")
    if die == 6:
        return True
    if die == 1:
        return False
    return die + score_delta >= MUSKETRY_HIT_ON


def split_fire_dice(dice: int, settings: ItaliaSettings | None = None) -> tuple[int, int]:
    """ISD §7, ISD A11: (dice at the artillery, dice at the unit it is joined to); the artillery's
    share is rounded down («calcolando per difetto»).

    >>> split_fire_dice(3), split_fire_dice(4), split_fire_dice(1)
    ((1, 2), (2, 2), (0, 1))
    """
    s = settings or ItaliaSettings()
    at_artillery = int(dice * s.a11_split_fire_artillery_share)
    return at_artillery, dice - at_artillery
