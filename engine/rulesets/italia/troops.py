"""Troop data of "L'Italia s'è desta!": base sizes, efficacy, combat and fire factors, weapons, grades.

Pure rulebook facts with their sections (``pieces.py`` is the geometry engine's reading of a
base's traits; this module holds the numbers). Readings of unclear text cite ISD A<n>. Roster
vocabulary (interfaces.md): ``type`` is A–E, ``gun``, ``limber`` or ``general``; ``traits.arm``
says infantry/cavalry/artillery (letter E exists for both).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from campo.engine.rulesets.italia.vocabulary import VOCABULARY
from campo.engine.rulesets.italia.weather import weather_effects
from campo.errors import CampoInputError

MM_PER_INCH = 25.0
"""ISD Intro: «tutte le distanze sono calcolate in POLLICI (2,5 cm.)»."""

UNIT_LETTERS: tuple[str, ...] = ("A", "B", "C", "D", "E")


class Arm(str, Enum):
    """ISD Intro, §4: the three arms."""

    INFANTRY = "infantry"
    CAVALRY = "cavalry"
    ARTILLERY = "artillery"


class Quality(str, Enum):
    """ISD §4: VETERANE / REGOLARI / INESPERTE (roster value ``green`` = inesperte)."""

    VETERAN = "veteran"
    REGULAR = "regular"
    GREEN = "green"


class Weapon(str, Enum):
    """ISD §7 "Tipo di Arma"."""

    FO = "FO"  # fucili obsoleti
    ML = "ML"  # moschetti a canna liscia
    MR = "MR"  # moschetti a canna rigata
    FRR = "FRR"  # fucili rigati a retrocarica


class CavalryClass(str, Enum):
    """ISD §9 melee table: HC, Drg/Line (also lancers), LC (which troops: ISD A37)."""

    HEAVY = "heavy"
    LINE = "line"
    LIGHT = "light"


class GeneralQuality(str, Enum):
    """ISD §3: decisivi / capaci / mediocri."""

    DECISIVE = "decisive"
    CAPABLE = "capable"
    MEDIOCRE = "mediocre"


class GeneralRank(str, Enum):
    """ISD §2, §3: Division general, Corps commander; ``army`` = the C. in C. (the player)."""

    DIVISION = "division"
    CORPS = "corps"
    ARMY = "army"


# --- Base sizes (ISD Intro) -------------------------------------------------------------------


@dataclass(frozen=True)
class BaseSize:
    """Nominal base, frontage x depth in cm as printed."""

    frontage_cm: float
    depth_cm: float
    represents: str
    cites: str = "ISD Intro"

    @property
    def frontage_mm(self) -> float:
        return self.frontage_cm * 10.0

    @property
    def depth_mm(self) -> float:
        return self.depth_cm * 10.0


BASE_SIZES: dict[tuple[str, Arm], BaseSize] = {
    ("A", Arm.INFANTRY): BaseSize(10.0, 4.0, "Brigata di fanteria"),
    ("B", Arm.INFANTRY): BaseSize(8.0, 4.0, "Brigata di fanteria"),
    ("C", Arm.CAVALRY): BaseSize(8.0, 3.0, "Reggimento di cavalleria"),
    ("D", Arm.INFANTRY): BaseSize(8.0, 2.0, "Battaglione di fanteria"),
    ("E", Arm.INFANTRY): BaseSize(5.0, 2.0, "Battaglione di fanteria"),
    ("E", Arm.CAVALRY): BaseSize(5.0, 3.0, "Squadrone di cavalleria"),
    ("gun", Arm.ARTILLERY): BaseSize(2.5, 4.0, "1 cannone"),
    ("limber", Arm.ARTILLERY): BaseSize(2.5, 4.5, "avantreno, cassone ecc."),
}
"""ISD Intro. Cavalry B and D (they appear in ISD Lists), generals and rockets have no size."""


def default_arm(unit_type: str) -> Arm | None:
    """The arm a letter implies (ISD Intro); None for ``E`` (both arms) and ``general``."""
    if unit_type in ("A", "B", "D"):
        return Arm.INFANTRY
    if unit_type == "C":
        return Arm.CAVALRY
    if unit_type in ("gun", "limber"):
        return Arm.ARTILLERY
    return None


_ALLOWED_ARMS: dict[str, set[Arm]] = {  # one source of truth: the roster vocabulary (ISD §4, Lists)
    unit_type: {Arm(arm) for arm in choices["arm"]} for unit_type, choices in VOCABULARY.per_type.items()
}


def resolve_arm(unit_type: str, arm: str | None) -> Arm:
    """The unit's arm from ``type`` and ``traits.arm``; E without an arm is an error.

    The army lists (ISD Lists) field cavalry of sizes B and D, so ``traits.arm = "cavalry"`` is
    accepted on B and D; A is infantry only and C cavalry only.
    """
    if unit_type == "general":
        raise CampoInputError("a general has no arm", key="type")
    allowed = _ALLOWED_ARMS.get(unit_type)
    if allowed is None:
        raise CampoInputError(f"unknown unit type {unit_type!r}", key="type")
    if arm is None:
        found = default_arm(unit_type)
        if found is None:
            raise CampoInputError(
                f"type {unit_type!r} needs traits.arm (infantry or cavalry)", key="traits.arm"
            )
        return found
    try:
        value = Arm(arm)
    except ValueError:
        raise CampoInputError(
            f"unknown arm {arm!r}; expected infantry, cavalry or artillery", key="traits.arm"
        ) from None
    if value not in allowed:
        raise CampoInputError(f"type {unit_type!r} cannot be {value.value}", key="traits.arm")
    return value


SIZE_RANK: dict[str, int] = {"A": 4, "B": 3, "C": 2, "D": 2, "E": 1}
"""ISD A24: "largest unit" of a Group («l'unità più numerosa», ISD §8) by letter, A > B > C/D > E."""


# --- Efficacy (ISD §4 "Tabella di Efficacia delle Unita'") -------------------------------------


@dataclass(frozen=True)
class Efficacy:
    """Losses from fresh to shaken, then further losses to dispersed (None: E disperses at once)."""

    to_shaken: int
    further_to_dispersed: int | None
    cites: str = "ISD §4"

    @property
    def to_dispersed(self) -> int:
        """Total losses at which the unit disperses (routs)."""
        return self.to_shaken + (self.further_to_dispersed or 0)


EFFICACY: dict[str, Efficacy] = {
    "A": Efficacy(6, 5),
    "B": Efficacy(5, 4),
    "C": Efficacy(3, 2),
    "D": Efficacy(3, 2),
    "E": Efficacy(3, None),
}

ARTILLERY_LOSSES_TO_ELIMINATE: dict[Quality, int] = {
    Quality.GREEN: 2,
    Quality.REGULAR: 3,
    Quality.VETERAN: 4,
}
"""ISD §4: artillery is eliminated after 2 / 3 / 4 losses (inesperte / regolari / veterane)."""

EfficacyState = Literal["fresh", "shaken", "dispersed"]


def efficacy_state(unit_type: str, losses: int, *, quality: str = "regular") -> EfficacyState:
    """Fresh, shaken or dispersed after ``losses`` (ISD §4; artillery is fresh until hit, §8).

    >>> efficacy_state("B", 5), efficacy_state("B", 8), efficacy_state("B", 9)
    ('shaken', 'shaken', 'dispersed')
    >>> efficacy_state("E", 3)
    'dispersed'
    """
    if losses < 0:
        raise CampoInputError(f"losses must be >= 0, got {losses}", key="traits.losses")
    if unit_type == "gun":
        if losses >= ARTILLERY_LOSSES_TO_ELIMINATE[Quality(quality)]:
            return "dispersed"
        return "fresh" if losses == 0 else "shaken"
    eff = EFFICACY[unit_type]
    if losses >= eff.to_dispersed:
        return "dispersed"
    return "shaken" if losses >= eff.to_shaken else "fresh"


# --- Melee combat factor (ISD §4 "Fattore di combattimento nel corpo a corpo") ----------------

COMBAT_FACTOR: dict[tuple[str, Arm], int] = {
    ("A", Arm.INFANTRY): 3,
    ("B", Arm.INFANTRY): 2,
    ("C", Arm.CAVALRY): 2,
    ("D", Arm.INFANTRY): 1,
    ("E", Arm.CAVALRY): 1,
    ("gun", Arm.ARTILLERY): 1,
    ("E", Arm.INFANTRY): 0,
    # Cavalry B and D exist only in ISD Lists; the factor follows the letter (B 2, D 1).
    ("B", Arm.CAVALRY): 2,
    ("D", Arm.CAVALRY): 1,
}
"""ISD §4. Rocket bases: 0 (see combat_factor). The cavalry B/D rows are our extension by letter."""


def combat_factor(
    unit_type: str, arm: str | None = None, *, rockets: bool = False, snow: bool = False
) -> int:
    """Melee combat factor (ISD §4); snow halves it rounding up (ISD §13).

    >>> combat_factor("A"), combat_factor("E", "infantry"), combat_factor("gun", rockets=True)
    (3, 0, 0)
    >>> combat_factor("B", snow=True), combat_factor("A", snow=True)
    (1, 2)
    """
    if rockets:
        return 0
    factor = COMBAT_FACTOR[(unit_type, resolve_arm(unit_type, arm))]
    return math.ceil(factor / 2) if snow else factor


def morale_factor(unit_type: str, arm: str | None = None, *, rockets: bool = False) -> int:
    """A unit's worth in the Morale Value (ISD §11): its combat factor, artillery bases 1.

    §11 says artillery counts 1 «come le Unità di tipo C», yet C's factor is 2 in ISD §4; we keep
    the §4 table for C and 1 for every gun base (rockets included).
    """
    if unit_type == "gun":
        return 1
    return combat_factor(unit_type, arm, rockets=rockets)


# --- Musketry (ISD §7 "Fattore di fuoco di fucileria", "Tipo di Arma") ------------------------

MUSKETRY_DICE: dict[str, int] = {"A": 4, "B": 3, "D": 3, "E": 2}
"""ISD §7: infantry A 4 d6, B and D 3 d6, E 2 d6; cavalry never fires musketry."""


@dataclass(frozen=True)
class WeaponData:
    """ISD §7 weapon row: change in dice and whether 1s are re-rolled (once per shot)."""

    name: str
    dice_delta: int
    reroll_ones: bool
    cites: str = "ISD §7"


WEAPONS: dict[Weapon, WeaponData] = {
    Weapon.FO: WeaponData("fucili obsoleti", -1, False),
    Weapon.ML: WeaponData("moschetti a canna liscia", 0, False),
    Weapon.MR: WeaponData("moschetti a canna rigata", 0, True),
    Weapon.FRR: WeaponData("fucili rigati a retrocarica", +1, True),
}


def musketry_base_dice(unit_type: str, arm: str | None = None) -> int:
    """Base fire factor in d6 (ISD §7); 0 for cavalry and artillery (they never fire musketry)."""
    if unit_type not in MUSKETRY_DICE or resolve_arm(unit_type, arm) is not Arm.INFANTRY:
        return 0
    return MUSKETRY_DICE[unit_type]


# --- Generals (ISD §3) ------------------------------------------------------------------------

INITIATIVE_POINTS: dict[GeneralQuality, int] = {
    GeneralQuality.DECISIVE: 2,
    GeneralQuality.CAPABLE: 1,
    GeneralQuality.MEDIOCRE: 0,
}
"""ISD §3: points added to 2d6 for first-turn initiative."""

MANOEUVRE_VALUE: dict[GeneralQuality, int] = {
    GeneralQuality.DECISIVE: 3,
    GeneralQuality.CAPABLE: 2,
    GeneralQuality.MEDIOCRE: 1,
}
"""ISD ManTab, ISD §8: a general's modifier on the Manoeuvre Table and the limbering test."""

COMMAND_RADIUS_IN: dict[GeneralRank, float] = {
    GeneralRank.DIVISION: 9.0,
    GeneralRank.CORPS: 6.0,
    GeneralRank.ARMY: 6.0,
}
"""ISD §3: Division 9", Corps 6". The C. in C. (``army``) is the player and has no radius in the
text; we give him the Corps radius (the most administrative level)."""


def command_radius_in(rank: str, *, weather: str = "clear", attached: bool = False) -> float:
    """Command radius in inches: halved in fog/darkness (ISD §13); 0 when attached (ISD §8)."""
    if attached:
        return 0.0
    return COMMAND_RADIUS_IN[GeneralRank(rank)] * weather_effects(weather).command_radius_factor


GENERAL_QUALITY_TABLE: dict[str, dict[GeneralQuality, tuple[int, ...]]] = {
    "france": {
        GeneralQuality.DECISIVE: (4, 5, 6),
        GeneralQuality.CAPABLE: (2, 3),
        GeneralQuality.MEDIOCRE: (1,),
    },
    "austria": {
        GeneralQuality.DECISIVE: (6,),
        GeneralQuality.CAPABLE: (4, 5),
        GeneralQuality.MEDIOCRE: (1, 2, 3),
    },
    "piedmont": {
        GeneralQuality.DECISIVE: (5, 6),
        GeneralQuality.CAPABLE: (3, 4),
        GeneralQuality.MEDIOCRE: (1, 2),
    },
    "garibaldini": {
        GeneralQuality.DECISIVE: (5, 6),
        GeneralQuality.CAPABLE: (2, 3, 4),
        GeneralQuality.MEDIOCRE: (1,),
    },
    "others": {
        GeneralQuality.DECISIVE: (6,),
        GeneralQuality.CAPABLE: (5,),
        GeneralQuality.MEDIOCRE: (1, 2, 3, 4),
    },
}
"""ISD §3 "Qualità dei Generali": 1d6 per general, by nationality."""


def general_quality_roll(nation: str, d6: int) -> GeneralQuality:
    """ISD §3: the quality a d6 gives for a nationality (unknown nations use "others")."""
    table = GENERAL_QUALITY_TABLE.get(nation, GENERAL_QUALITY_TABLE["others"])
    for quality, faces in table.items():
        if d6 in faces:
            return quality
    raise ValueError(f"d6 must be 1..6, got {d6}")
