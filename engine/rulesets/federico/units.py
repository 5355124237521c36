"""What each base is under Federico: arm, class, weapon, dice, ranges, moves, special troops.

Read from ``type`` and ``traits`` (shared/interfaces.md, "Ruleset vocabulary"). Numbers cite the
Italian headings (Federico "Raggio di tiro"); readings cite the ambiguity item (Federico F9).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campo.engine.scenario import BaseState

MM_PER_CM = 10.0   # Federico "Raggio di tiro": distances in «CM»

# Federico "Raggio di tiro": (short, long) in cm.
RANGES_CM: dict[str, tuple[float, float]] = {
    "musket": (9.0, 18.0),             # «Moschetto: 9CM Corta, 18CM Lunga»
    "light_artillery": (18.0, 30.0),   # «Art. Leggera: 18CM Corta, 30CM Lunga»
    "medium_artillery": (18.0, 40.0),  # «Art. Media: 18CM Corta, 40CM Lunga»
    "heavy_artillery": (24.0, 60.0),   # «Art. Pesante.: 24CM Corta, 60CM Lunga»
}

# Federico "Esecuzione del tiro": dice per base.
DICE: dict[str, int] = {"musket": 1, "light_artillery": 2, "medium_artillery": 3,
                        "heavy_artillery": 4}

# Federico "Classificazione truppe": artillery and cavalry class by weight.
CLASS_BY_WEIGHT = {"heavy": 5, "medium": 4, "light": 3}

# Federico "Movimenti": cm per turn.
MOVE_CM = {
    ("infantry", "march_column"): 12.0,   # «Fanteria o Artiglieria in colonna di marcia 12cm»
    ("artillery", "march_column"): 12.0,
    ("infantry", "line"): 9.0,            # «Fanteria in linea 9cm»
    ("artillery", "limbered"): 9.0,       # «Artiglieria al traino 9cm»
    ("cavalry", "march_column"): 18.0,    # «Cavalleria in colonna di marcia 18cm»
    ("cavalry", "line"): 15.0,            # «Cavalleria in linea 15cm»
    ("commander", "line"): 18.0,          # «Comandanti 18cm»
}

# Federico "Mischie": «10cm. per la fanteria, 20 cm. per la cavalleria».
FALL_BACK_CM = {"infantry": 10.0, "cavalry": 20.0}

LOWEST_CLASS = 3   # Federico "Classificazione truppe": below 3 the unit is eliminated


@dataclass(frozen=True)
class Piece:
    """The rules-relevant reading of one base."""

    id: str
    side: str
    arm: str                  # "infantry", "cavalry", "artillery", "commander"
    regiment: str             # traits.regiment, or the base id when it has none
    klass: int | None         # troop class 3-5 (None for commanders)
    weight: str | None
    formation: str            # "line", "march_column", "limbered"
    light: bool
    indians: bool
    highlanders: bool
    rank: str | None          # commanders: "chief" / "general"
    ability: int | None
    fired: bool | None        # traits.fired (None = not said)
    moved: bool
    stale: bool

    @property
    def is_commander(self) -> bool:
        return self.arm == "commander"

    @property
    def is_troop(self) -> bool:
        return self.arm != "commander"

    @property
    def weapon(self) -> str | None:
        """Federico "Esecuzione del tiro": infantry muskets, artillery by weight; cavalry and
        commanders do not fire; limbered artillery cannot fire."""
        if self.arm == "infantry":
            return "musket"
        if self.arm == "artillery" and self.formation == "line":
            return f"{self.weight or 'medium'}_artillery"
        return None

    @property
    def can_fire(self) -> bool:
        return self.weapon is not None

    @property
    def dice(self) -> int:
        return DICE.get(self.weapon or "", 0)

    @property
    def ranges_cm(self) -> tuple[float, float] | None:
        return RANGES_CM.get(self.weapon or "")

    @property
    def can_attack(self) -> bool:
        """Infantry and cavalry attack; artillery and commanders do not (Federico "Mischie")."""
        return self.arm in ("infantry", "cavalry")

    @property
    def light_infantry(self) -> bool:
        return self.arm == "infantry" and self.light

    @property
    def light_cavalry(self) -> bool:
        return self.arm == "cavalry" and self.weight == "light"

    @property
    def heavy_cavalry(self) -> bool:
        return self.arm == "cavalry" and self.weight == "heavy"

    @property
    def elite_infantry(self) -> bool:
        """Class 5 infantry: «Guardie, Granatieri o Elite» (Federico "Classificazione truppe")."""
        return self.arm == "infantry" and self.klass == 5

    @property
    def skirmisher(self) -> bool:
        """Light Infantry and Indians: halving and woods exceptions (Federico "Movimenti")."""
        return self.light_infantry or (self.arm == "infantry" and self.indians)

    @property
    def march_column(self) -> bool:
        return self.formation == "march_column"


def _arm(base: BaseState) -> str:
    return base.type if base.type in ("infantry", "cavalry", "artillery", "commander") \
        else "infantry"


def _class(arm: str, traits: dict[str, Any]) -> int | None:
    """traits.class, else the weight's class for cavalry/artillery, else Line (4)."""
    if arm == "commander":
        return None
    value = traits.get("class")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if arm in ("cavalry", "artillery") and traits.get("weight") in CLASS_BY_WEIGHT:
        return CLASS_BY_WEIGHT[traits["weight"]]
    if arm == "infantry" and traits.get("light"):
        return 3
    return 4


def _formation(arm: str, traits: dict[str, Any]) -> str:
    f = traits.get("formation")
    if f in ("line", "march_column", "limbered"):
        return f
    return "line"


def classify(base: BaseState) -> Piece:
    """Read a base's type and traits (Federico "Classificazione truppe", "Comandanti")."""
    tr = base.traits
    arm = _arm(base)
    fired = tr.get("fired")
    return Piece(
        id=base.id, side=base.side, arm=arm,
        regiment=str(tr.get("regiment") or base.id),
        klass=_class(arm, tr),
        weight=tr.get("weight"),
        formation=_formation(arm, tr),
        light=bool(tr.get("light", False)),
        indians=bool(tr.get("indians", False)),
        highlanders=bool(tr.get("highlanders", False)),
        rank=(tr.get("rank") or "general") if arm == "commander" else None,
        ability=tr.get("ability") if arm == "commander" else None,
        fired=fired if isinstance(fired, bool) else None,
        moved=bool(tr.get("moved", False)),
        stale=base.stale,
    )
