"""What each base is under ATTILA: troop class, melee die, weapon, range, move.

Read from the base's ``type`` and ``traits`` (shared/interfaces.md, "attila") and the settings;
the rulebook's numbers come from `tables`.
"""

from __future__ import annotations

from dataclasses import dataclass

from campo.engine.rulesets.attila.settings import AttilaSettings
from campo.engine.rulesets.attila.tables import (
    CAVALRY, DIE_SIZE, GENERAL_DIE, GENERAL_MOVE_CM, INFANTRY, LIGHT_GROUP, MAX_RANGE_CM, MOUNTED,
    NOT_CLOSE_ORDER, PIKES_DIE, SAME_ARM_LIGHT_MIX, SHOOTING_DIE, WOUNDED_GENERAL_MOVE_CM,
)
from campo.engine.scenario import BaseState


@dataclass(frozen=True)
class Unit:
    """The rules-relevant reading of one base."""

    id: str
    side: str
    type: str
    kind: str                 # "troops", "general" or "camp"
    melee_die: str
    missile: str | None
    phalanx: bool
    tribal: bool
    pikes: bool
    group_label: str | None
    disordered: bool
    wounded: bool
    absent: bool              # stale: not seen by the camera, so neither target nor charge

    @property
    def is_general(self) -> bool:
        return self.kind == "general"

    @property
    def is_camp(self) -> bool:
        return self.kind == "camp"

    @property
    def is_troops(self) -> bool:
        return self.kind == "troops"

    @property
    def mounted(self) -> bool:
        return self.type in MOUNTED

    @property
    def infantry(self) -> bool:
        return self.type in INFANTRY

    @property
    def cavalry(self) -> bool:
        return self.type in CAVALRY

    def close_order(self, settings: AttilaSettings) -> bool:
        """ATT 1 «Tutte le unità vengono considerate "in Ordine Chiuso", ad eccezione della
        fanteria in Schermaglia» (ATT AT27)."""
        if not self.is_troops:
            return self.is_camp
        return self.type != NOT_CLOSE_ORDER or settings.at27_skirmishers_close_order

    def group_class(self, settings: AttilaSettings) -> str | None:
        """Which groups the base may join: "light"/"heavy" (ATT 4.G-H) or "infantry"/"cavalry"/
        "light_mix" (ATT 4.B) under ``at13_group_composition``; None for Generals and Camps."""
        if not self.is_troops:
            return None
        if settings.at13_group_composition == "light_heavy":
            return "light" if self.type in LIGHT_GROUP else "heavy"
        if self.type in SAME_ARM_LIGHT_MIX:
            return "light_mix"
        return "infantry" if self.infantry else "mounted"

    def heavy(self, settings: AttilaSettings) -> bool:
        """A 'Heavy unit' for the shooting save (ATT 6.C, AT9)."""
        return self.type in settings.heavy_types

    def move_cm(self, settings: AttilaSettings) -> float:
        """Normal move in cm (Generals ATT 5.E and 8.C; troops: the group's setting, AT11)."""
        if self.is_general:
            base = WOUNDED_GENERAL_MOVE_CM if self.wounded else GENERAL_MOVE_CM
        elif self.is_camp:
            return 0.0  # ATT 8.B «Gli Accampamenti non possono mai muovere»
        else:
            base = float(getattr(settings, f"move_cm_{self.type.lower()}"))
        return base * settings.at18_distance_scale

    def move_is_gap(self) -> bool:
        """The move comes from a 'not in the rulebook' setting."""
        return self.is_troops

    def shooting_die(self, settings: AttilaSettings) -> str | None:
        if self.missile is None:
            return None
        die = SHOOTING_DIE[self.missile]
        return disordered_die(die, settings) if self.disordered else die

    def max_range_cm(self, settings: AttilaSettings) -> float:
        return MAX_RANGE_CM[self.missile] * settings.at18_distance_scale if self.missile else 0.0

    def current_melee_die(self, settings: AttilaSettings) -> str:
        return disordered_die(self.melee_die, settings) if self.disordered else self.melee_die


def disordered_die(die: str, settings: AttilaSettings) -> str:
    """One step down the ladder (ATT 8.A, AT22); the last step is the floor."""
    ladder = list(settings.at22_disorder_ladder)
    if die not in ladder:
        return die
    i = ladder.index(die)
    return ladder[min(i + 1, len(ladder) - 1)]


def die_at_least(die: str, minimum: str) -> bool:
    """``die`` is ``minimum`` or larger (ATT 13: 'D6 o più', 'D8 o più')."""
    return DIE_SIZE.get(die, 0) >= DIE_SIZE[minimum]


def read_unit(b: BaseState, settings: AttilaSettings) -> Unit:
    """The reading of one scenario base."""
    t = b.traits
    kind = "general" if b.type == "general" else ("camp" if b.type == "camp" else "troops")
    pikes = bool(t.get("pikes", False))
    if kind == "general":
        die = GENERAL_DIE
    elif kind == "camp":
        die = t.get("melee_die") or settings.melee_die_camp
    elif settings.at21_melee_die_source == "traits_then_type" and t.get("melee_die"):
        die = t["melee_die"]
    elif pikes and settings.at21_melee_die_source == "traits_then_type":
        die = PIKES_DIE
    else:
        die = getattr(settings, f"melee_die_{b.type.lower()}", "d6")
    missile = t.get("missile")
    if missile is None and settings.at10_missile_source == "traits_then_type":
        missile = settings.missile_by_type.get(b.type)
    if kind == "general":
        missile = None
    group = t.get("group")
    return Unit(id=b.id, side=b.side, type=b.type, kind=kind, melee_die=die, missile=missile,
                phalanx=bool(t.get("phalanx", False)), tribal=bool(t.get("tribal", False)),
                pikes=pikes, group_label=str(group) if group is not None else None,
                disordered=bool(t.get("disordered", False)), wounded=bool(t.get("wounded", False)),
                absent=b.stale)
