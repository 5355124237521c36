"""What each base is under Federico: arm, class, weapon, dice, ranges, special troops.

Read from ``type`` and ``traits`` (shared/interfaces.md, "Ruleset vocabulary"); the numbers come
from `units` (Federico "Classificazione truppe", "Raggio di tiro").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from campo.engine.rulesets.federico.units import (
    CLASS_BY_WEIGHT,
    DICE,
    ELITE_CLASS,
    LIGHT_CLASS,
    LINE_CLASS,
    RANGES_CM,
)
from campo.engine.scenario import BaseState

ARMS = ("infantry", "cavalry", "artillery", "commander")


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
    def ranges_cm(self) -> tuple[float, float]:
        """(short, long) of its weapon; (0, 0) for a base that does not fire."""
        return RANGES_CM.get(self.weapon or "", (0.0, 0.0))

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
        return self.arm == "infantry" and self.klass == ELITE_CLASS

    @property
    def skirmisher(self) -> bool:
        """Light Infantry and Indians: not halved, woods and villages, and they pass through
        friends (Federico "Movimenti")."""
        return self.light_infantry or (self.arm == "infantry" and self.indians)

    @property
    def march_column(self) -> bool:
        return self.formation == "march_column"

    @property
    def mounted(self) -> bool:
        return self.arm == "cavalry"


def _class(arm: str, traits: dict[str, Any]) -> int | None:
    """traits.class, else the weight's class for cavalry/artillery, light infantry 3, else 4."""
    if arm == "commander":
        return None
    value = traits.get("class")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if arm in ("cavalry", "artillery") and traits.get("weight") in CLASS_BY_WEIGHT:
        return CLASS_BY_WEIGHT[traits["weight"]]
    if arm == "infantry" and traits.get("light"):
        return LIGHT_CLASS
    return LINE_CLASS


def classify(base: BaseState) -> Piece:
    """Read a base's type and traits (Federico "Classificazione truppe", "Comandanti")."""
    tr = base.traits
    arm = base.type if base.type in ARMS else "infantry"
    fired = tr.get("fired")
    formation = tr.get("formation")
    return Piece(
        id=base.id, side=base.side, arm=arm,
        regiment=str(tr.get("regiment") or base.id),
        klass=_class(arm, tr),
        weight=tr.get("weight"),
        formation=formation if formation in ("line", "march_column", "limbered") else "line",
        light=bool(tr.get("light", False)),
        indians=bool(tr.get("indians", False)),
        highlanders=bool(tr.get("highlanders", False)),
        rank=(tr.get("rank") or "general") if arm == "commander" else None,
        ability=tr.get("ability") if arm == "commander" else None,
        fired=fired if isinstance(fired, bool) else None,
        moved=bool(tr.get("moved", False)),
        stale=base.stale,
    )
