"""What each base is under "L'Italia s'è desta!" for the geometry engine: arm, arc, range.

Read from ``type`` and ``traits`` (shared/interfaces.md, "Ruleset vocabulary"). Numbers cite the
rulebook; readings cite the ambiguity item (ISD A<n>). Movement allowances come from the tables
module (`tables_movement.movement_allowance`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from campo.engine.rulesets.italia import tables_fire
from campo.engine.rulesets.italia.troops import UNIT_LETTERS, Quality, efficacy_state
from campo.engine.scenario import BaseState


@dataclass(frozen=True)
class UnitInfo:
    """The rules-relevant reading of one base."""

    id: str
    side: str
    kind: str                 # "unit", "gun", "limber", "general"
    arm: str                  # "infantry", "cavalry", "artillery", "general"
    letter: str | None
    light: bool
    march_column: bool
    limbered: bool
    horse: bool
    rockets: bool
    battery: str              # "divisional" / "reserve" (guns)
    division: str | None
    rank: str | None          # generals
    commands: tuple[str, ...]
    quality: str | None
    disordered: bool
    shaken: bool
    losses: int
    attached_to: str | None
    stale: bool
    dispersed: bool           # ISD §4: a unit dispersed by its losses, a gun eliminated

    @property
    def is_general(self) -> bool:
        return self.kind == "general"

    @property
    def is_unit(self) -> bool:
        """Infantry or cavalry unit (a lettered base)."""
        return self.kind == "unit"

    @property
    def is_gun(self) -> bool:
        return self.kind == "gun"

    @property
    def moves_as_horse_artillery(self) -> bool:
        """Horse artillery, and rocket batteries (ISD Lists: «Batteria di Razzi, a cavallo»)."""
        return self.horse or self.rockets

    @property
    def can_fire(self) -> bool:
        """Infantry fires musketry (ISD §7); guns in battery bombard (ISD Intro, §6); a
        dispersed unit or an eliminated gun does not (ISD §4)."""
        if self.kind == "unit":
            return self.arm == "infantry" and not self.dispersed
        return self.kind == "gun" and not self.limbered and not self.dispersed

    @property
    def fire_range_in(self) -> float:
        """ISD §6 24" (guns), ISD §7 6" (muskets): the range table's last edge."""
        return tables_fire.max_range_in(self.kind == "gun")

    @property
    def arc_half_deg(self) -> float:
        """ISD §6, §7: 30° each side; light infantry 45°."""
        if self.kind == "gun":
            return tables_fire.ARTILLERY_ARC_HALF_DEG
        if self.light and self.arm == "infantry":
            return tables_fire.LIGHT_INFANTRY_ARC_HALF_DEG
        return tables_fire.MUSKETRY_ARC_HALF_DEG

    @property
    def can_charge(self) -> bool:
        """Only cavalry and infantry charge; artillery never (ISD §9); nor a dispersed unit
        (ISD §4)."""
        return self.kind == "unit" and not self.dispersed


def arm_of(t: str, traits: Mapping[str, Any]) -> str:
    """A base's arm from its type and traits, or "general" (ISD §4: ``traits.arm``, else a
    cavalry class, else the letter: C is cavalry, the others infantry; the roster builder too)."""
    if t == "general":
        return "general"
    if t in ("gun", "limber"):
        return "artillery"
    arm = traits.get("arm")
    if arm in ("infantry", "cavalry", "artillery"):
        return arm
    if "cavalry" in traits or t == "C":
        return "cavalry"
    return "infantry"


def classify(base: BaseState, default_formation: str = "line") -> UnitInfo:
    """Read a base's type and traits (ISD §4, §6, §8; ISD A13 for the default formation)."""
    tr: dict[str, Any] = base.traits
    get = tr.get
    kind = _KINDS.get(base.type, "unit")
    commands = get("commands") or ()
    if isinstance(commands, str):
        commands = (commands,)
    general = kind == "general"
    letter = base.type if base.type in UNIT_LETTERS else None
    losses = max(int(get("losses", 0) or 0), 0)
    # the fields in UnitInfo's order (`_unit_info`)
    return _unit_info(
        base.id, base.side, kind, arm_of(base.type, tr),
        letter,
        bool(get("light", False)),
        get("formation", default_formation) == "march_column",
        bool(get("limbered", False)) or kind == "limber",
        bool(get("horse", False)),
        bool(get("rockets", False)),
        str(get("battery", "divisional")),
        get("division"),
        (get("rank") or "division") if general else None,         # rank
        tuple(commands),
        get("quality"),
        bool(get("disordered", False)),
        # shaken when the trait says so or the losses reach the Efficacy table's (ISD §4)
        bool(get("shaken", False)) or (letter is not None
                                       and efficacy_state(letter, losses) == "shaken"),
        losses,
        get("attached_to"),
        base.stale,
        _dispersed(kind, letter, losses, get("quality")),
    )


def _dispersed(kind: str, letter: str | None, losses: int, quality: Any) -> bool:
    """ISD §4: a unit at the Efficacy table's losses is dispersed, «perdendo ogni efficacia di
    combattimento» (it routs, §1); a gun at its losses is eliminated."""
    if letter is not None:
        return efficacy_state(letter, losses) == "dispersed"
    if kind == "gun":
        return efficacy_state("gun", losses, quality=quality if quality in _QUALITIES
                              else "regular") == "dispersed"
    return False


_QUALITIES = frozenset(q.value for q in Quality)
_KINDS = {"gun": "gun", "limber": "limber", "general": "general"}
_FIELDS = tuple(f.name for f in fields(UnitInfo))


def _unit_info(*values: Any) -> UnitInfo:
    """``UnitInfo(*values)`` without the frozen dataclass's one ``object.__setattr__`` per
    field (twenty, for every base of every analysis): the same instance, equal and hashing
    alike, its fields set in one dict update (as `Rect` sets its corners)."""
    info = object.__new__(UnitInfo)
    info.__dict__.update(zip(_FIELDS, values))
    return info
